#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Soak (prints figures; the one benchmark with a verdict): scrapes the
# exporter as fast as 4 clients can for MINUTES (one per path: Accept-Encoding
# identity and gzip, each with a new connection per scrape and with keep-alive
# asked for) while it polls the synthetic big host (16 devices x 2 ports of
# the mlx5-roce fixture) every 100ms, and prints RSS, PSS, open descriptors
# and polls every SAMPLE seconds (30 by default, $SOAK_SAMPLE).
#
# The rule, checked at every sample after the warm-up (the first 20% of the
# run, at least one sample of 30 s and at most 120 s; its last sample is the
# baseline):
#   - RSS may not exceed the baseline by more than max(2 MiB, 10%);
#   - descriptors other than sockets may not exceed the baseline at all;
#   - sockets may not exceed the baseline + 4 (the connections the clients
#     may have open at the moment of reading);
#   - the daemon must be alive, its poll count must grow between samples,
#     every scrape must get a complete 200, and it must exit 0 on SIGTERM
#     at the end (under ASan that also means LeakSanitizer found nothing).
# Any breach prints "SOAK FAIL: ..." and the script exits 1; else "SOAK PASS".
# Works with the ASan+UBSan binary too (RSS is higher; the same rule): its
# quarantine is set to 16 MiB so that it fills during the warm-up.
#
#   tests/bench/soak.sh BUILD/rdma_exporter MINUTES
#
# scrape_load is taken from BUILD/tests/bench/ (or $SCRAPE_LOAD).
set -euo pipefail
BIN=$(readlink -f "${1:?usage: soak.sh BINARY MINUTES}")
MINUTES=${2:?usage: soak.sh BINARY MINUTES}
SAMPLE=${SOAK_SAMPLE:-30}
CLIENTS=4
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

LOAD=${SCRAPE_LOAD:-$(dirname "$BIN")/tests/bench/scrape_load}
if [ ! -x "$LOAD" ]; then
	echo "soak.sh: no load tool at $LOAD: cmake --build $(dirname "$BIN") --target scrape_load (or set SCRAPE_LOAD)" >&2
	exit 2
fi
TOTAL=$(awk -v m="$MINUTES" 'BEGIN { printf "%d", m * 60 }')
if [ "$TOTAL" -lt $((2 * SAMPLE)) ]; then
	echo "soak.sh: MINUTES must cover at least two samples of ${SAMPLE}s" >&2
	exit 2
fi
# warm-up: 20% of the run, rounded up to whole samples, 1 sample to 120s
WARM=$(awk -v t="$TOTAL" -v s="$SAMPLE" 'BEGIN { w = t / 5; if (w > 120) w = 120
	n = int((w + s - 1) / s); if (n < 1) n = 1; printf "%d", n * s }')

# ASan keeps freed memory in a quarantine (256 MiB by default) before reuse,
# so a sanitized daemon's RSS climbs for minutes of scraping before it
# levels: a smaller quarantine (still catching use-after-free of recently
# freed blocks) fills during the warm-up. Options already set win.
SANITIZED=
if ldd "$BIN" 2>/dev/null | grep -q libasan; then
	export ASAN_OPTIONS="quarantine_size_mb=16${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	SANITIZED=" (ASan build: ASAN_OPTIONS=$ASAN_OPTIONS)"
fi

TMP=$(mktemp -d)
PID=
LOADS=()
cleanup() {
	local p
	for p in "${LOADS[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

bench_tree "$TMP" 16 2
PORT=$(bench_free_port)
URL=http://127.0.0.1:$PORT/metrics
"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$TMP/sys" \
	--collector.disable-defaults --collector.sysfs --poll.interval=100ms \
	--log.level=warn >"$TMP/log" 2>&1 &
PID=$!
if ! bench_wait_http "$URL" 30; then
	echo "SOAK FAIL: the exporter did not answer:" >&2
	cat "$TMP/log" >&2
	exit 1
fi

echo "== soak: $(basename "$BIN") for ${MINUTES} min ($TOTAL s), $CLIENTS clients at maximum rate" \
	"(identity and gzip, each closed per scrape and kept alive), --poll.interval=100ms$SANITIZED"
bench_machine_note
echo "synthetic host: 16 devices x 2 ports, $(bench_counter_files "$TMP") counter files;" \
	"warm-up ${WARM}s; sample every ${SAMPLE}s"
echo "rule after warm-up: RSS <= baseline + max(2 MiB, 10%); non-socket fds <= baseline;" \
	"sockets <= baseline + $CLIENTS; alive; polls grow; no failed scrape; exit 0 on SIGTERM"

# one client per path: identity and gzip, each with a new connection per
# scrape and on a kept-alive connection (when the server keeps it)
MIXES="identity-close gzip-close identity-keepalive gzip-keepalive"
for mix in $MIXES; do
	opts=()
	case $mix in gzip-*) opts+=(-z) ;; esac
	case $mix in *-keepalive) opts+=(-k) ;; esac
	"$LOAD" -c 1 -d "$TOTAL" "${opts[@]}" "$URL" >"$TMP/load.$mix" 2>&1 &
	LOADS+=($!)
done

fail=()
fds_split() { # fds_split PID: "FILES SOCKETS", each the minimum of 5 reads 50ms apart
	local files sockets min_f=999999 min_s=999999
	for _ in 1 2 3 4 5; do
		# one listing for both counts (connections come and go between two);
		# || true: an fd closed while find lists the directory makes it fail
		read -r files sockets <<<"$({ find "/proc/$1/fd" -mindepth 1 -maxdepth 1 -printf '%l\n' \
			2>/dev/null || true; } | awk '/^socket:/ { s++; next } { f++ } END { print f + 0, s + 0 }')"
		[ "$files" -lt "$min_f" ] && min_f=$files
		[ "$sockets" -lt "$min_s" ] && min_s=$sockets
		sleep 0.05
	done
	echo "$min_f $min_s"
}
polls() {
	# all of the body to awk (no early exit: curl would fail on the closed pipe)
	curl -fsS -m 5 "$URL" 2>/dev/null | awk '$1 == "rdma_exporter_polls_total" && !v { v = $2 } END { print v }' || true
}

printf '%6s %10s %10s %6s %8s %8s  %s\n' t_s rss_kB pss_kB files sockets polls note
base_rss=
last_polls=0
t=0
while [ "$t" -lt "$TOTAL" ]; do
	sleep "$SAMPLE"
	t=$((t + SAMPLE))
	if ! kill -0 "$PID" 2>/dev/null; then
		fail+=("the daemon died before ${t}s")
		break
	fi
	read -r rss pss <<<"$(bench_mem "$PID")"
	read -r files sockets <<<"$(fds_split "$PID")"
	p=$(polls)
	note=
	if [ -z "$p" ] || [ "$p" -le "$last_polls" ]; then
		fail+=("polls did not grow by ${t}s (${p:-no answer} after $last_polls)")
		note="polls stuck"
	fi
	last_polls=${p:-$last_polls}
	if [ "$t" -le "$WARM" ]; then
		note="${note:-warm-up}"
		base_rss=$rss base_files=$files base_sockets=$sockets
	else
		limit=$(awk -v b="$base_rss" 'BEGIN { l = b * 0.10; if (l < 2048) l = 2048; printf "%d", b + l }')
		if [ "$rss" -gt "$limit" ]; then
			fail+=("RSS ${rss} kB at ${t}s > limit $limit kB (baseline $base_rss kB)")
			note="RSS GREW"
		fi
		if [ "$files" -gt "$base_files" ]; then
			fail+=("non-socket fds $files at ${t}s > baseline $base_files")
			note="FDS GREW"
		fi
		if [ "$sockets" -gt $((base_sockets + CLIENTS)) ]; then
			fail+=("sockets $sockets at ${t}s > baseline $base_sockets + $CLIENTS")
			note="SOCKETS GREW"
		fi
		note=${note:-ok}
	fi
	printf '%6s %10s %10s %6s %8s %8s  %s\n' "$t" "$rss" "$pss" "$files" "$sockets" "${p:--}" "$note"
done

for p in "${LOADS[@]}"; do wait "$p" 2>/dev/null || true; done
LOADS=()
echo
for mix in $MIXES; do
	line=$(tail -1 "$TMP/load.$mix")
	echo "load $mix: $line"
	errors=$(tr ' ' '\n' <<<"$line" | awk -F= '$1 == "errors" { print $2 }')
	[ "${errors:-x}" = 0 ] || fail+=("$mix scrapes failed: errors=${errors:-?}")
done

if kill -0 "$PID" 2>/dev/null; then
	kill -TERM "$PID"
	status=0
	wait "$PID" || status=$?
	PID=
	[ "$status" = 0 ] || fail+=("exit status $status on SIGTERM (log below)")
else
	fail+=("the daemon was not alive at the end")
fi
echo "(figures from a shared 2-core machine: noisy)"
if [ ${#fail[@]} -gt 0 ]; then
	echo
	for f in "${fail[@]}"; do echo "SOAK FAIL: $f"; done
	echo "--- daemon log (last 30 lines):"
	tail -30 "$TMP/log"
	exit 1
fi
echo "SOAK PASS: RSS, descriptors and polls steady after the ${WARM}s warm-up, no failed scrape, clean exit"
