#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures, asserts nothing): the cost of one poll and of one
# scrape on a synthetic big host, built from the mlx5-roce fixture copied
# DEVICES times (each device has PORTS ports of ~55 counter files).
#
# Side by side in one run, as ratios: counter files kept open and re-read with
# pread (the normal mode) vs. opened and closed on every read (the fallback
# when file descriptors run out, forced here with a low `ulimit -n`).
#
#   tests/bench/sysfs-scale.sh build/rdma_exporter [DEVICES] [PORTS]
set -euo pipefail
BIN=$(readlink -f "${1:?usage: sysfs-scale.sh BINARY [DEVICES] [PORTS]}")
DEVICES=${2:-16}
PORTS=${3:-2}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# --- the synthetic tree (regular files, so it measures the exporter, not sysfs)
bench_tree "$TMP" "$DEVICES" "$PORTS"
files=$(bench_counter_files "$TMP")
metric() { bench_metric "$@"; }

run() { # run LABEL NOFILE|unlimited: polls 20 times at 100ms, prints per-poll figures
	local label=$1 nofile=$2 port
	port=$(bench_free_port)
	(if [ "$nofile" != unlimited ]; then ulimit -n "$nofile"; fi; exec "$BIN" --web.listen-address="127.0.0.1:$port" \
		--path.sysfs="$TMP/sys" --poll.interval=100ms --log.level=error) &
	PID=$!
	for _ in $(seq 1 100); do
		curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break
		sleep 0.05
	done
	curl -fsS "http://127.0.0.1:$port/metrics" >"$TMP/a"
	sleep 2
	curl -fsS "http://127.0.0.1:$port/metrics" >"$TMP/b"
	local polls cpu dur rss fds series t_plain t_gz bytes gzbytes
	polls=$(($(metric rdma_exporter_polls_total "$TMP/b") - $(metric rdma_exporter_polls_total "$TMP/a")))
	cpu=$(awk -v a="$(metric process_cpu_seconds_total "$TMP/a")" \
		-v b="$(metric process_cpu_seconds_total "$TMP/b")" -v n="$polls" \
		'BEGIN { printf "%.3f", (b - a) * 1000 / n }')
	dur=$(awk -v d="$(metric rdma_exporter_collector_duration_seconds "$TMP/b")" 'BEGIN { printf "%.3f", d * 1000 }')
	rss=$(awk -v r="$(metric process_resident_memory_bytes "$TMP/b")" 'BEGIN { printf "%.1f", r / 1048576 }')
	fds=$(metric process_open_fds "$TMP/b")
	series=$(grep -vc '^#' "$TMP/b")
	bytes=$(wc -c <"$TMP/b")
	t_plain=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$port/metrics")
	gzbytes=$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/metrics" | wc -c)
	t_gz=$(curl -s -o /dev/null -H 'Accept-Encoding: gzip' -w '%{time_total}' "http://127.0.0.1:$port/metrics")
	kill "$PID"
	wait "$PID" || true
	PID=
	printf '%-22s %8s %12s %10s %8s %6s %8s %9s %9s\n' "$label" "$polls" "$cpu" "$dur" "$rss" "$fds" \
		"$series" "$t_plain" "$t_gz"
	echo "$cpu" >"$TMP/cpu.$label"
	echo "$bytes $gzbytes" >"$TMP/size"
}

echo "synthetic host: $DEVICES devices x $PORTS ports, $files counter files"
printf '%-22s %8s %12s %10s %8s %6s %8s %9s %9s\n' mode polls cpu_ms/poll collect_ms rss_MiB fds series scrape_s gz_scrape_s
run kept-open-pread unlimited
run open-per-read 256
read -r bytes gzbytes <"$TMP/size"
echo "exposition: $bytes bytes, gzip $gzbytes bytes ($(awk -v a="$bytes" -v b="$gzbytes" 'BEGIN { printf "%.1f", a / b }')x smaller)"
awk -v a="$(cat "$TMP/cpu.kept-open-pread")" -v b="$(cat "$TMP/cpu.open-per-read")" \
	'BEGIN { if (a > 0) printf "open-per-read costs %.2fx the CPU of kept-open pread per poll\n", b / a }'
