#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures, asserts nothing): what one poll costs the kernel
# and the CPU, per poll and per counter file, on the synthetic big host
# (DEVICES x PORTS copies of the mlx5-roce fixture, 16 x 2 by default).
#
# The daemon runs only its sysfs collector at --poll.interval=200ms and is
# not scraped except to read rdma_exporter_polls_total at both ends of each
# window (one scrape each, a few dozen syscalls against thousands per poll).
#   1. syscalls: `strace -f -p PID` attached for POLLS poll intervals, after
#      the start-up scan (so the figures are the steady state, not the first
#      open of every file), counted per syscall over whole polls only (what
#      `strace -c -f` would print, without the partial polls at the ends).
#      strace slows the daemon; the counts are exact, its times are not and
#      are not printed.
#   2. CPU: `perf stat -e task-clock,context-switches -p PID` over another
#      POLLS polls without strace; where perf is missing or not allowed
#      (perf_event_paranoid, seccomp), utime+stime from /proc/PID/stat.
#   3. memory and the polling thread over another POLLS polls: RssAnon
#      (/proc/PID/status) sampled every 50 ms, min/median/max; the polling
#      thread's CPU (its schedstat run time, ns) and minor page faults per
#      poll; and, with the trim_shim module built beside the binary
#      (BUILD/tests/bench/libtrim_shim.so, or $TRIM_SHIM_LIB, LD_PRELOADed),
#      malloc_trim() calls and their CPU. TRIM_SHIM=never makes the shim skip
#      every malloc_trim(): the same binary without it.
# Per counter means per counter file of the tree (each read once a poll).
# Full re-scans (every --collector.sysfs.rescan-interval, 5m by default,
# which reopen every file) are left out: the rescan interval is set to 24h.
#
#   tests/bench/poll-cost.sh BUILD/rdma_exporter [POLLS] [DEVICES] [PORTS]
#   TRIM_SHIM=never tests/bench/poll-cost.sh BUILD/rdma_exporter [POLLS] ...
set -euo pipefail
BIN=$(readlink -f "${1:?usage: poll-cost.sh BINARY [POLLS] [DEVICES] [PORTS]}")
POLLS=${2:-50}
DEVICES=${3:-16}
PORTS=${4:-2}
INTERVAL_MS=200
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
PID=
TRACER=
cleanup() {
	[ -n "$TRACER" ] && kill -INT "$TRACER" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT

bench_tree "$TMP" "$DEVICES" "$PORTS"
files=$(bench_counter_files "$TMP")
PORT=$(bench_free_port)
URL=http://127.0.0.1:$PORT/metrics
SHIM=${TRIM_SHIM_LIB:-$(dirname "$BIN")/tests/bench/libtrim_shim.so}
[ -f "$SHIM" ] || SHIM=
LD_PRELOAD=${SHIM:+$SHIM} TRIM_SHIM_OUT=$TMP/trim "$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$TMP/sys" \
	--collector.disable-defaults --collector.sysfs --poll.interval=${INTERVAL_MS}ms \
	--collector.sysfs.rescan-interval=24h --log.level=error >"$TMP/log" 2>&1 &
PID=$!
if ! bench_wait_http "$URL" 15; then
	echo "poll-cost.sh: the exporter did not answer:" >&2
	cat "$TMP/log" >&2
	exit 1
fi
# gzip, as Prometheus asks: a plain request keeps the plain text beside its
# gzip copy for 10 minutes (section 3's memory)
polls_now() {
	curl -fsS --compressed -H 'Accept-Encoding: gzip' "$URL" >"$TMP/scrape"
	bench_metric rdma_exporter_polls_total "$TMP/scrape"
}
window_s=$(awk -v n="$POLLS" -v i="$INTERVAL_MS" 'BEGIN { printf "%.1f", n * i / 1000 }')
series=$(curl -fsS "$URL" | grep -c '^rdma_[dp]')

echo "== poll-cost: $(basename "$BIN"), sysfs collector only, --poll.interval=${INTERVAL_MS}ms"
bench_machine_note
echo "synthetic host: $DEVICES devices x $PORTS ports: $files counter files," \
	"$series rdma_device_*/rdma_port_* series per poll"

# --- 1. syscalls per poll (strace, steady state, whole polls only)
sleep 1 # past the first poll and the start-up scan
strace -f -qq -o "$TMP/trace" -p "$PID" 2>"$TMP/strace.err" &
TRACER=$!
sleep "$window_s"
kill -INT "$TRACER" 2>/dev/null || true
wait "$TRACER" 2>/dev/null || true # strace exits non-zero on SIGINT: judge by its output
TRACER=
echo
# Every poll starts by listing class/infiniband (the device-list check), so
# the calls between the first and the last of those openat()s are exactly
# (markers - 1) whole polls, whatever strace's attach and detach cut off.
# "<... resumed>" lines are the second half of a call already counted.
awk -v f="$files" -v out="$TMP/counts" '
	/"class\/infiniband", O_RDONLY.*O_DIRECTORY/ {
		if (markers++) for (k in pending) { calls[k] += pending[k]; total += pending[k] }
		delete pending
	}
	markers && !/resumed>/ && $2 ~ /^[a-z_0-9]+\(/ { name = $2; sub(/\(.*/, "", name); pending[name]++ }
	END {
		n = markers - 1
		print n, total > out
		if (n < 1) exit
		for (k in calls) printf "  %-18s %10.1f %10.3f\n", k, calls[k] / n, calls[k] / n / f
	}' "$TMP/trace" | sort -k2,2nr | head -12 >"$TMP/table"
read -r sc_polls total <"$TMP/counts"
if [ "${sc_polls:-0}" -ge 1 ]; then
	echo "syscalls (strace -f -p, $sc_polls whole polls in ${window_s}s; strace slows the daemon, so"
	echo "fewer polls than untraced; counts are exact, strace's times are not printed):"
	printf '  %-18s %10s %10s\n' syscall per_poll per_counter
	cat "$TMP/table"
	syscalls_per_poll=$(awk -v t="$total" -v n="$sc_polls" 'BEGIN { printf "%.1f", t / n }')
	syscalls_per_counter=$(awk -v t="$total" -v n="$sc_polls" -v f="$files" 'BEGIN { printf "%.3f", t / n / f }')
else
	echo "syscalls: strace saw no whole poll (ptrace not allowed here?): $(head -1 "$TMP/strace.err" 2>/dev/null)"
	syscalls_per_poll=-
	syscalls_per_counter=-
fi

# --- 2. CPU per poll (perf stat, else /proc/PID/stat)
sleep 1
p0=$(polls_now)
cpu_src=
if command -v perf >/dev/null &&
	perf stat -x, -e task-clock,context-switches -p "$PID" -o "$TMP/perf" -- sleep "$window_s" 2>/dev/null &&
	grep -q task-clock "$TMP/perf"; then
	p1=$(polls_now)
	cpu_ms=$(awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { print $1; exit }' "$TMP/perf")
	csw=$(awk -F, '$3 ~ /^context-switches/ { print $1; exit }' "$TMP/perf")
	cpu_src="perf stat task-clock"
else
	p0=$(polls_now)
	t0=$(bench_cpu_ticks "$PID")
	sleep "$window_s"
	t1=$(bench_cpu_ticks "$PID")
	p1=$(polls_now)
	cpu_ms=$(awk -v t=$((t1 - t0)) -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.1f", t * 1000 / hz }')
	csw=
	cpu_src="/proc/PID/stat utime+stime (perf unavailable: $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?') perf_event_paranoid)"
fi
cpu_polls=$((p1 - p0))
us_per_poll=$(awk -v c="$cpu_ms" -v n="$cpu_polls" 'BEGIN { printf "%.0f", n ? c * 1000 / n : 0 }')
ns_per_counter=$(awk -v c="$cpu_ms" -v n="$cpu_polls" -v f="$files" 'BEGIN { printf "%.0f", n ? c * 1e6 / n / f : 0 }')
echo
echo "CPU ($cpu_src, $cpu_polls polls in ${window_s}s, no tracer): ${cpu_ms} ms in all${csw:+, $csw context switches}"
echo
printf '%-22s %s\n' "counter files/poll" "$files" "series/poll" "$series" "syscalls/poll" "$syscalls_per_poll" \
	"syscalls/counter" "$syscalls_per_counter" "CPU us/poll" "$us_per_poll" "CPU ns/counter" "$ns_per_counter"

# --- 3. memory over time, and the polling thread's CPU and faults per poll
TID=
for t in /proc/"$PID"/task/*; do
	[ "$(cat "$t/comm" 2>/dev/null)" = rdma-poller ] && TID=${t##*/}
done
thread_ns() { awk '{ print $1 }' "/proc/$PID/task/$TID/schedstat"; }
thread_minflt() { sed 's/.*) //' "/proc/$PID/task/$TID/stat" | awk '{ print $8 }'; }
trim_totals() { cat "$TMP/trim" 2>/dev/null || echo 0 0 0 0 0; }
rss_anon() {
	local k v _
	while read -r k v _; do
		if [ "$k" = RssAnon: ]; then echo "$v"; fi
	done <"/proc/$PID/status"
}
m0=$(polls_now)
n0=$(thread_ns)
f0=$(thread_minflt)
read -r c0 cns0 s0 mi0 mins0 <<<"$(trim_totals)"
end=$((SECONDS + ${window_s%.*} + 1))
: >"$TMP/anon"
while [ "$SECONDS" -lt "$end" ]; do
	rss_anon >>"$TMP/anon"
	sleep 0.05
done
n1=$(thread_ns)
f1=$(thread_minflt)
read -r c1 cns1 s1 mi1 mins1 <<<"$(trim_totals)"
m1=$(polls_now)
kill "$PID"
wait "$PID" 2>/dev/null || true
PID=
mem_polls=$((m1 - m0))
read -r anon_min anon_med anon_max anon_n <<<"$(sort -n "$TMP/anon" |
	awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)], v[NR], NR }')"
thread_us=$(awk -v a="$n0" -v b="$n1" -v n="$mem_polls" 'BEGIN { printf "%.0f", n ? (b - a) / 1000 / n : 0 }')
faults=$(awk -v a="$f0" -v b="$f1" -v n="$mem_polls" 'BEGIN { printf "%.1f", n ? (b - a) / n : 0 }')
echo
echo "memory and the polling thread ($mem_polls polls; RssAnon sampled every 50 ms, $anon_n samples):"
if [ -z "$SHIM" ]; then
	trim="no trim_shim (cmake --build BUILD --target trim_shim): malloc_trim calls not counted"
elif [ "${TRIM_SHIM:-}" = never ]; then
	trim="TRIM_SHIM=never: $((s1 - s0)) malloc_trim calls skipped"
else
	trim="$((c1 - c0)) malloc_trim calls ($c1 since start), $(awk -v c=$((c1 - c0)) -v t=$((cns1 - cns0)) \
		'BEGIN { printf "%.0f", c ? t / 1000 / c : 0 }') us CPU each"
fi
[ -n "$SHIM" ] && [ "$((mi1 - mi0))" -gt 0 ] &&
	trim="$trim; $((mi1 - mi0)) mallinfo2 calls, $(awk -v c=$((mi1 - mi0)) -v t=$((mins1 - mins0)) \
		'BEGIN { printf "%.1f", c ? t / 1000 / c : 0 }') us CPU each"
echo "  $trim"
printf '%-22s %s\n' "RssAnon kB min/med/max" "$anon_min / $anon_med / $anon_max" \
	"poller CPU us/poll" "$thread_us" "poller minflt/poll" "$faults"
echo "(figures from a shared 2-core machine: noisy; the syscall counts are not)"
