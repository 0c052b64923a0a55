#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `rdma_exporter --once` / `rdma_exporter once` (docs/check.md): on every fixture
# tree the one-shot exposition passes `promtool check metrics` without a warning,
# has exactly the families of a scrape of the daemon on the same tree and flags,
# and its stable samples equal the scrape golden file (tests/e2e/golden). With
# --once.output the file is replaced by a rename (a new inode, no temporary file
# left), 0644; a path that cannot be written is exit 1 and leaves nothing. A FIFO,
# a symlink, a character device or a directory there is refused (exit 1) and left
# as it was; a SIGTERM between the temporary file's write and the rename (sent by
# the test seam of rdma_exporter_checkseam, tests/tools/checkseam_main.c) removes
# the temporary file; a full stdout is logged as ENOSPC.
#
#   check-once.sh BINARY CHECKSEAM_BINARY       (FIXTURES and GOLDEN from env)
set -u
BIN=${1:?usage: check-once.sh BINARY CHECKSEAM}
SEAM=${2:?usage: check-once.sh BINARY CHECKSEAM}
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=${GOLDEN:-$HERE/golden}
. "$HERE/lib.sh"
SEAM=$(cd "$(dirname "$SEAM")" && pwd)/$(basename "$SEAM")
require_tools promtool curl

# As e2e.sh: sample lines whose values change from run to run.
VOLATILE='^(process_[a-z_]+|rdma_exporter_(collector_duration_seconds|last_poll_timestamp_seconds|polls_total|build_info))[ {]'
FLAGS=(--poll.interval=1s --no-collector.netlink --no-collector.ethtool --no-collector.probe --no-collector.events)

e2e_launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" "${START_ARGS[@]}" >"$TMP/log" 2>&1 &
	PID=$!
}
healthz_ready() { curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; }
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
check "--once.output onto a directory: refused" \
	grep -q 'msg="refusing to replace what is not a regular file".* type="a directory"' "$TMP/stderr"
check "--once.output failure: no temporary file left" [ "$(ls "$TMP/textfile" | wc -l)" = 2 ]
mkdir "$TMP/ro"
"$BIN" --once --once.output="$TMP/ro/sub/rdma.prom" --path.sysfs="$tree" "${FLAGS[@]}" 2>"$TMP/stderr"
check "--once.output into a missing directory: exit 1" [ $? = 1 ]
check "--once.output failure: logged" grep -q 'msg="cannot write the exposition"' "$TMP/stderr"

# Not a regular file: refused, exit 1, the node left as it was (a rename would replace
# the node itself; as root, /dev/null for every process). timeout: the old code hung on
# nothing, but a write-through to a FIFO would.
special() { # special NAME TEST-FLAG TYPE: --once.output=$TMP/special/NAME is refused
	local name=$1 flag=$2 type=$3 rc
	timeout 20 "$BIN" --once --once.output="$TMP/special/$name" --path.sysfs="$tree" "${FLAGS[@]}" \
		2>"$TMP/stderr" </dev/null
	rc=$?
	check "--once.output onto $type: exit 1" [ $rc = 1 ]
	check "--once.output onto $type: refused, logged" \
		grep -q "msg=\"refusing to replace what is not a regular file\".* type=\"$type\"" "$TMP/stderr"
	check "--once.output onto $type: still $type" [ "$flag" "$TMP/special/$name" ]
	check "--once.output onto $type: no temporary file left" \
		bash -c "! ls '$TMP/special' | grep -q '\.tmp\.'"
}
mkdir "$TMP/special"
mkfifo "$TMP/special/fifo.prom"
special fifo.prom -p "a FIFO"
echo "old" >"$TMP/special/target"
ln -s target "$TMP/special/link.prom"
special link.prom -L "a symlink"
check "--once.output onto a symlink: its target unchanged" [ "$(cat "$TMP/special/target")" = old ]
# A private /dev/null (char 1,3), not the host's: a regression must not break the host.
if [ "$(id -u)" = 0 ] && mknod "$TMP/special/null.prom" c 1 3 2>/dev/null; then
	special null.prom -c "a character device"
else
	ok "--once.output onto a character device # SKIP mknod needs root"
fi

# SIGTERM between the write of the temporary file and the rename: the process ends
# by the signal, the temporary file is gone, the old file is still there.
echo "old" >"$out"
RDMA_EXPORTER_TEST_ONCE_WRITTEN='kill -TERM $PPID' \
	"$SEAM" once --once.output="$out" --path.sysfs="$tree" "${FLAGS[@]}" 2>"$TMP/stderr"
rc=$?
check "SIGTERM during --once.output: ended by the signal (rc $rc)" [ $rc = 143 ]
check "SIGTERM during --once.output: no temporary file left" \
	bash -c "! ls '$TMP/textfile' | grep -q '\.tmp\.'"
check "SIGTERM during --once.output: the old file is intact" [ "$(cat "$out")" = old ]

# A full stdout: exit 1 and the real errno, not EIO.
"$BIN" --once --path.sysfs="$tree" "${FLAGS[@]}" >/dev/full 2>"$TMP/stderr"
check "--once to a full stdout: exit 1" [ $? = 1 ]
check "--once to a full stdout: ENOSPC logged" \
	grep -q 'msg="cannot write the exposition" file=stdout err="No space left on device"' "$TMP/stderr"
"$BIN" --once --once.output= --path.sysfs="$tree" 2>/dev/null
check "--once.output=: exit 2" [ $? = 2 ]
"$BIN" --once --path.sysfs=/nonexistent 2>/dev/null
check "--once with a bad --path.sysfs: exit 2" [ $? = 2 ]
check "once --help" bash -c "'$BIN' once --help | grep -q 'once.output=FILE'"

echo "1..$((pass + fail))"
[ "$fail" -eq 0 ]
