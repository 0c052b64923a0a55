#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `rdma_exporter --once` / `rdma_exporter once` (docs/check.md): on every fixture
# tree the one-shot exposition passes `promtool check metrics` without a warning,
# has exactly the families of a scrape of the daemon on the same tree and flags,
# and its stable samples equal the scrape golden file (tests/e2e/golden). With
# --once.output the file is replaced by a rename (a new inode, no temporary file
# left), 0644; a path that cannot be written is exit 1 and leaves nothing.
#
#   check-once.sh BINARY       (FIXTURES and GOLDEN from env)
set -u
BIN=${1:?usage: check-once.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=${GOLDEN:-$HERE/golden}
. "$HERE/lib.sh"
require_tools promtool curl

# As e2e.sh: sample lines whose values change from run to run.
VOLATILE='^(process_[a-z_]+|rdma_exporter_(collector_duration_seconds|last_poll_timestamp_seconds|polls_total|build_info))[ {]'
FLAGS=(--poll.interval=1s --no-collector.netlink --no-collector.ethtool --no-collector.probe)

e2e_launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" "${START_ARGS[@]}" >"$TMP/log" 2>&1 &
	PID=$!
}
healthz_ready() { curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; }
promtool_clean() {
	local out
	out=$(promtool check metrics <"$1" 2>&1) && [ -z "$out" ] && return 0
	echo "$out" | head -20 >&2
	return 1
}
families() { awk '$1 == "#" && $2 == "TYPE" { print $3, $4 }' "$1"; }

for name in node-exporter-mixed procfs-mixed mlx5-roce rxe efa broken; do
	tree=$FIXTURES/sysfs/$name once=$TMP/$name.once.prom
	"$BIN" --once --path.sysfs="$tree" "${FLAGS[@]}" >"$once" 2>"$TMP/stderr"
	check "$name: --once exits 0" [ $? = 0 ]
	check "$name: --once passes promtool check metrics without warnings" promtool_clean "$once"
	if diff -u "$GOLDEN/$name.prom" <(grep -Ev "$VOLATILE" "$once") >"$TMP/diff"; then
		ok "$name: --once equals the scrape golden file"
	else
		not_ok "$name: --once differs from golden/$name.prom"
		head -30 "$TMP/diff"
	fi
	START_ARGS=(--path.sysfs="$tree" "${FLAGS[@]}")
	if start_on_free_port e2e_launch healthz_ready; then
		curl -fsS "http://127.0.0.1:$PORT/metrics" >"$TMP/$name.scrape.prom"
		stop_exporter
		if diff <(families "$TMP/$name.scrape.prom") <(families "$once") >"$TMP/diff"; then
			ok "$name: --once has a scrape's families"
		else
			not_ok "$name: --once families differ from a scrape's"
			head -20 "$TMP/diff"
		fi
	else
		not_ok "$name: the daemon starts for the comparison"
	fi
done

tree=$FIXTURES/sysfs/rxe
"$BIN" once --path.sysfs="$tree" "${FLAGS[@]}" >"$TMP/sub.prom"
check "once subcommand equals --once" \
	diff <(grep -Ev "$VOLATILE" "$TMP/sub.prom") <(grep -Ev "$VOLATILE" "$TMP/rxe.once.prom")

mkdir "$TMP/textfile"
out=$TMP/textfile/rdma.prom
echo "old" >"$out"
ino=$(stat -c %i "$out")
"$BIN" --once --once.output="$out" --path.sysfs="$tree" "${FLAGS[@]}"
check "--once.output: exit 0" [ $? = 0 ]
check "--once.output: the file was replaced by a rename" [ "$(stat -c %i "$out")" != "$ino" ]
check "--once.output: the exposition is in it" promtool_clean "$out"
check "--once.output: mode 0644" [ "$(stat -c %a "$out")" = 644 ]
check "--once.output: no temporary file left" [ "$(ls "$TMP/textfile")" = rdma.prom ]
"$BIN" --once --once.output "$out" --path.sysfs="$tree" "${FLAGS[@]}"
check "--once.output FILE (two arguments): exit 0" [ $? = 0 ]
mkdir "$TMP/textfile/dir.prom"
"$BIN" --once --once.output="$TMP/textfile/dir.prom" --path.sysfs="$tree" "${FLAGS[@]}" 2>"$TMP/stderr"
check "--once.output onto a directory: exit 1" [ $? = 1 ]
check "--once.output failure: logged" grep -q 'msg="cannot write the exposition"' "$TMP/stderr"
check "--once.output failure: no temporary file left" [ "$(ls "$TMP/textfile" | wc -l)" = 2 ]
"$BIN" --once --once.output= --path.sysfs="$tree" 2>/dev/null
check "--once.output=: exit 2" [ $? = 2 ]
"$BIN" --once --path.sysfs=/nonexistent 2>/dev/null
check "--once with a bad --path.sysfs: exit 2" [ $? = 2 ]
check "once --help" bash -c "'$BIN' once --help | grep -q 'once.output=FILE'"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
