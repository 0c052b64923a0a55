#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures, asserts nothing): this exporter against Debian's
# prometheus-node-exporter running only its infiniband collector, on the same
# synthetic host (DEVICES x PORTS copies of the mlx5-roce fixture, 16 x 2 by
# default: every port with the fixture's counters/ and hw_counters/), loaded
# by the same closed-loop tool (scrape_load) in one run, each exporter on its
# own loopback port, plain HTTP.
#
# For each exporter: p50/p99 scrape latency and scrapes per second at 1 and 4
# clients, with Accept-Encoding identity and gzip, with a new connection per
# scrape and with keep-alive asked for; CPU seconds per 1,000 scrapes
# (utime+stime from /proc/PID/stat); RSS and PSS (smaps_rollup) after the
# load; CPU per poll; series counts; and the ratios ours/theirs. Then a
# deployment measured side by side: one scraper asking as Prometheus does
# (its User-Agent, Accept-Encoding: gzip) every BENCH_SCRAPE_PERIOD s (15) for BENCH_WARMUP_SCRAPES (5) + BENCH_MEASURE_SCRAPES (8) scrapes, ours
# at its defaults (aligned polling): CPU per minute, series, polls per minute,
# median data age, scrape p50 and anonymous memory, each beside node_exporter's
# with the ratio; then ours per collector and per thread (schedstat of each
# named thread) as a ratio to node_exporter's whole CPU, beside a third
# instance of ours on a copy of the tree with one device hung (mlx5_1's port 1
# hw_counters/ a bind mount of tests/tools/blockfs, whose reads block).
# BENCH_SKIP_LOAD=1 runs the deployment alone.
#
# Ours runs only its sysfs collector (--collector.disable-defaults
# --collector.sysfs). During the load it runs with --poll.interval=1h, so
# it polls once at start and its scrape CPU is the serving cost alone; its
# poll cost is measured by a second instance at --poll.interval=100ms over an
# idle period (CPU / polls). node_exporter has no poller: it reads sysfs on
# every scrape, so its poll cost is in its scrape cost.
#
#   cmake --build BUILD --target rdma_exporter scrape_load
#   tests/bench/vs-node-exporter.sh BUILD/rdma_exporter [SECONDS_PER_ROW] [DEVICES] [PORTS]
#
# scrape_load is taken from BUILD/tests/bench/ (or $SCRAPE_LOAD).
# node_exporter: `scripts/install-deps.sh --bench` (or $NODE_EXPORTER).
set -euo pipefail
BIN=$(readlink -f "${1:?usage: vs-node-exporter.sh BINARY [SECONDS_PER_ROW] [DEVICES] [PORTS]}")
SECS=${2:-4}
DEVICES=${3:-16}
PORTS=${4:-2}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

LOAD=${SCRAPE_LOAD:-$(dirname "$BIN")/tests/bench/scrape_load}
if [ ! -x "$LOAD" ]; then
	echo "vs-node-exporter.sh: no load tool at $LOAD: cmake --build $(dirname "$BIN") --target scrape_load (or set SCRAPE_LOAD)" >&2
	exit 2
fi
NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter || true)}
if [ -z "$NE" ] || [ ! -x "$NE" ]; then
	echo "SKIP vs-node-exporter: prometheus-node-exporter is not installed;" \
		"install it with: scripts/install-deps.sh --bench (Debian package prometheus-node-exporter)"
	exit 0
fi

TMP=$(mktemp -d)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	if grep -q " $TMP/" /proc/mounts 2>/dev/null; then
		umount -l "$TMP/hungsys/class/infiniband/mlx5_1/ports/1/hw_counters" 2>/dev/null || true
		fusermount3 -u -z "$TMP/mnt" 2>/dev/null || umount -l "$TMP/mnt" 2>/dev/null || true
	fi
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

bench_tree "$TMP" "$DEVICES" "$PORTS"
files=$(bench_counter_files "$TMP")

STARTED=
start() { # start NAME PORT ARGS...: runs a daemon, sets STARTED to its pid
	local name=$1 port=$2
	shift 2
	"$@" >"$TMP/$name.log" 2>&1 &
	STARTED=$!
	PIDS+=("$STARTED")
	if ! bench_wait_http "http://127.0.0.1:$port/metrics" 15; then
		echo "vs-node-exporter.sh: $name did not answer on port $port:" >&2
		cat "$TMP/$name.log" >&2
		exit 1
	fi
}

kv() { # kv KEY LINE: the value of KEY=VALUE in a scrape_load line
	tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2; exit }'
}

PORT_OURS=$(bench_free_port)
start ours "$PORT_OURS" "$BIN" --web.listen-address="127.0.0.1:$PORT_OURS" \
	--path.sysfs="$TMP/sys" --collector.disable-defaults --collector.sysfs \
	--poll.interval=1h --poll.mode=fixed --log.level=error
PID_ours=$STARTED
PORT_NE=$(bench_free_port)
start node "$PORT_NE" "$NE" --web.listen-address="127.0.0.1:$PORT_NE" \
	--path.sysfs="$TMP/sys" --collector.disable-defaults --collector.infiniband \
	--log.level=error
PID_node=$STARTED
URL_OURS=http://127.0.0.1:$PORT_OURS/metrics
URL_NE=http://127.0.0.1:$PORT_NE/metrics

echo "== vs-node-exporter: $(basename "$BIN") vs. $("$NE" --version 2>&1 | head -1)"
bench_machine_note
echo "synthetic host: $DEVICES devices x $PORTS ports, $files counter files (counters/ + hw_counters/)," \
	"regular files in $TMP (not the kernel's sysfs)"
echo "ours: --collector.disable-defaults --collector.sysfs --poll.interval=1h --poll.mode=fixed (one poll at start;" \
	"scrapes serve the snapshot). node_exporter: --collector.disable-defaults --collector.infiniband" \
	"(reads sysfs on every scrape)."

# --- what each returns (a fairness note: the names and the coverage differ)
curl -fsS -H 'Accept-Encoding: identity' "$URL_OURS" >"$TMP/ours.prom"
curl -fsS -H 'Accept-Encoding: identity' "$URL_NE" >"$TMP/node.prom"
echo
echo "series per scrape: ours $(bench_series "$TMP/ours.prom") in all, $(bench_series "$TMP/ours.prom" 'rdma_[dp]')" \
	"rdma_device_*/rdma_port_*; node_exporter $(bench_series "$TMP/node.prom") in all," \
	"$(bench_series "$TMP/node.prom" node_infiniband_) node_infiniband_*"
echo "  (node_exporter $("$NE" --version 2>&1 | awk 'NR == 1 { print $3 }') exports counters/ only, not hw_counters/;" \
	"it also serves go_*, process_* and promhttp_* series, ours process_* and rdma_exporter_*)"

# BENCH_SKIP_LOAD=1: only the deployment below (the figures issue 40 asks for)
if [ "${BENCH_SKIP_LOAD:-0}" != 1 ]; then
# --- idle: CPU per poll (ours at 100ms), and each one's idle CPU
IDLE=10
PORT_POLL=$(bench_free_port)
start poll "$PORT_POLL" "$BIN" --web.listen-address="127.0.0.1:$PORT_POLL" \
	--path.sysfs="$TMP/sys" --collector.disable-defaults --collector.sysfs \
	--poll.interval=100ms --poll.mode=fixed --log.level=error
PID_poll=$STARTED
curl -fsS "http://127.0.0.1:$PORT_POLL/metrics" >"$TMP/p0"
t0_poll=$(bench_cpu_ticks "$PID_poll")
t0_ne=$(bench_cpu_ticks "$PID_node")
sleep "$IDLE"
t1_poll=$(bench_cpu_ticks "$PID_poll")
t1_ne=$(bench_cpu_ticks "$PID_node")
curl -fsS "http://127.0.0.1:$PORT_POLL/metrics" >"$TMP/p1"
kill "$PID_poll"
wait "$PID_poll" 2>/dev/null || true
polls=$(($(bench_metric rdma_exporter_polls_total "$TMP/p1") - $(bench_metric rdma_exporter_polls_total "$TMP/p0")))
poll_cpu_ms=$(awk -v t=$((t1_poll - t0_poll)) -v hz="$BENCH_CLK_TCK" -v n="$polls" \
	'BEGIN { printf "%.2f", n ? t * 1000 / hz / n : 0 }')
echo
echo "poll cost, ours: $polls polls in ${IDLE}s at --poll.interval=100ms," \
	"$(bench_ticks_to_s $((t1_poll - t0_poll))) CPU s: ${poll_cpu_ms} ms CPU per poll" \
	"($(awk -v c="$poll_cpu_ms" -v f="$files" 'BEGIN { printf "%.2f", c * 1000 / f }') us per counter file)"
echo "node_exporter has no poller; idle (unscraped) CPU over the same ${IDLE}s:" \
	"$(bench_ticks_to_s $((t1_ne - t0_ne))) s. Its sysfs reading is in its scrape cost below."

# --- load: the same tool, the same requests, ours and theirs one after the other
echo
echo "load: scrape_load, ${SECS}s per row, closed loop (each client sends its next scrape when the"
echo "previous response is complete); latency = connect (if any) + request + whole body."
echo "conn=close: a new TCP connection per scrape (Connection: close); conn=keepalive: the client"
echo "asks to keep it, and connects says how many the server allowed."
printf '%-13s %-8s %-9s %3s %7s %8s %8s %8s %9s %9s %8s %6s\n' exporter encoding conn cl scrapes \
	p50_ms p99_ms scr/s cpu_s/1k body_B connects errs
run_row() { # run_row NAME PID URL ENCODING CONN CLIENTS
	local name=$1 pid=$2 url=$3 enc=$4 conn=$5 clients=$6 opts=() line t0 t1 n cpu
	[ "$enc" = gzip ] && opts+=(-z)
	[ "$conn" = keepalive ] && opts+=(-k)
	"$LOAD" -c "$clients" -n 20 "${opts[@]}" "$url" >/dev/null || true # warm-up
	t0=$(bench_cpu_ticks "$pid")
	line=$("$LOAD" -c "$clients" -d "$SECS" "${opts[@]}" "$url") || true
	t1=$(bench_cpu_ticks "$pid")
	n=$(kv requests "$line")
	cpu=$(awk -v t=$((t1 - t0)) -v hz="$BENCH_CLK_TCK" -v n="$n" 'BEGIN { printf "%.3f", n ? t / hz * 1000 / n : 0 }')
	printf '%-13s %-8s %-9s %3s %7s %8s %8s %8s %9s %9s %8s %6s\n' "$name" "$enc" "$conn" "$clients" "$n" \
		"$(kv p50_ms "$line")" "$(kv p99_ms "$line")" "$(kv rps "$line")" "$cpu" \
		"$(kv body_bytes "$line")" "$(kv connects "$line")" "$(kv errors "$line")"
	echo "$enc $conn $clients $name $(kv p50_ms "$line") $(kv p99_ms "$line") $(kv rps "$line") $cpu" >>"$TMP/rows"
}
for enc in identity gzip; do
	for conn in close keepalive; do
		for clients in 1 4; do
			run_row ours "$PID_ours" "$URL_OURS" "$enc" "$conn" "$clients"
			run_row node_exporter "$PID_node" "$URL_NE" "$enc" "$conn" "$clients"
		done
	done
done

# --- memory after the load
read -r rss_o pss_o <<<"$(bench_mem "$PID_ours")"
read -r rss_n pss_n <<<"$(bench_mem "$PID_node")"
echo
echo "memory after the load (kB): ours RSS $rss_o PSS $pss_o fds $(bench_fds "$PID_ours");" \
	"node_exporter RSS $rss_n PSS $pss_n fds $(bench_fds "$PID_node")"

# --- ratios
echo
echo "ratios ours/node_exporter (below 1: ours is lower; for scr/s above 1: ours serves more)"
printf '%-8s %-9s %3s %8s %8s %8s %9s\n' encoding conn cl p50 p99 scr/s cpu/1k
awk '$4 == "ours" { o[$1 " " $2 " " $3] = $0 } $4 == "node_exporter" { n[$1 " " $2 " " $3] = $0 }
	function r(a, b) { return b + 0 == 0 ? "-" : sprintf("%.3f", a / b) }
	END {
		for (k in o) {
			split(o[k], x); split(n[k], y)
			printf "%-8s %-9s %3s %8s %8s %8s %9s\n", x[1], x[2], x[3], r(x[5], y[5]), r(x[6], y[6]),
				r(x[7], y[7]), r(x[8], y[8])
		}
	}' "$TMP/rows" | sort -k1,1r -k2,2 -k3,3n
printf '%-22s %8s %8s\n' memory RSS PSS
printf '%-22s %8s %8s\n' "" "$(bench_ratio "$rss_o" "$rss_n")" "$(bench_ratio "$pss_o" "$pss_n")"
# --- the old arithmetic, for --poll.mode=fixed: Prometheus every 15s, ours polling every 5s
# (CPU s per 1,000 scrapes is ms per scrape)
scrape_o=$(awk '$1 == "identity" && $2 == "close" && $3 == 1 && $4 == "ours" { print $8 }' "$TMP/rows")
scrape_n=$(awk '$1 == "identity" && $2 == "close" && $3 == 1 && $4 == "node_exporter" { print $8 }' "$TMP/rows")
min_o=$(awk -v p="$poll_cpu_ms" -v s="$scrape_o" 'BEGIN { printf "%.1f", 12 * p + 4 * s }')
min_n=$(awk -v s="$scrape_n" 'BEGIN { printf "%.1f", 4 * s }')
echo
echo "CPU per minute with --poll.mode=fixed at 5s, computed (scraped every 15s, identity, 1 client):" \
	"ours $min_o ms (12 polls + 4 scrapes), node_exporter $min_n ms (4 scrapes):" \
	"ratio $(bench_ratio "$min_o" "$min_n"). Ours reads $files counter files a poll, node_exporter" \
	"only counters/ ($(find "$TMP/sys" -path '*/counters/*' -type f | wc -l) files) a scrape."
fi

# --- a deployment, measured: one scraper (Prometheus's User-Agent) every PERIOD
# seconds; ours at its defaults (every collector, aligned polling, 15s interval),
# node_exporter with its infiniband collector. WARM scrapes to learn the period,
# then MEASURE scrapes measured.
PERIOD=${BENCH_SCRAPE_PERIOD:-15}
WARM=${BENCH_WARMUP_SCRAPES:-5}
MEASURE=${BENCH_MEASURE_SCRAPES:-8}
PORT_DEP=$(bench_free_port)
start deploy "$PORT_DEP" "$BIN" --web.listen-address="127.0.0.1:$PORT_DEP" \
	--path.sysfs="$TMP/sys" --log.level=error
PID_deploy=$STARTED
URL_DEP=http://127.0.0.1:$PORT_DEP/metrics
# a fresh node_exporter too: the one above carries the load's heap
PORT_NE2=$(bench_free_port)
start node2 "$PORT_NE2" "$NE" --web.listen-address="127.0.0.1:$PORT_NE2" \
	--path.sysfs="$TMP/sys" --collector.disable-defaults --collector.infiniband \
	--log.level=error
PID_node=$STARTED
URL_NE=http://127.0.0.1:$PORT_NE2/metrics
# ours again at its defaults with one device hung: a copy of the tree in which
# mlx5_1's port 1 hw_counters/ is a bind mount of tests/tools/blockfs's FUSE
# mirror, every read there blocking (at most 120 s a read, then the next poll's
# read blocks again) as the counters of an HCA whose firmware hangs; the other
# devices are the same regular files as the others read. Left out where FUSE,
# bind mounts or blockfs are missing.
BLOCKFS=${BLOCKFS:-$(dirname "$BIN")/tests/tools/blockfs}
HUNG_DIR=class/infiniband/mlx5_1/ports/1/hw_counters
PID_hung=
hung_tree() {
	[ -x "$BLOCKFS" ] && [ -e /dev/fuse ] || return 1
	mkdir -p "$TMP/mnt" && cp -r "$TMP/sys" "$TMP/hungsys" && touch "$TMP/gate" || return 1
	"$BLOCKFS" --block=/mlx5_1/ports/1/hw_counters/ --gate="$TMP/gate" --max-block=120 \
		"$TMP/sys" "$TMP/mnt" >"$TMP/blockfs.log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 1 100); do
		[ -e "$TMP/mnt/class/infiniband/mlx5_1" ] && break
		sleep 0.05
	done
	mount --bind "$TMP/mnt/$HUNG_DIR" "$TMP/hungsys/$HUNG_DIR" 2>/dev/null
}
if hung_tree; then
	PORT_HUNG=$(bench_free_port)
	start hung "$PORT_HUNG" "$BIN" --web.listen-address="127.0.0.1:$PORT_HUNG" \
		--path.sysfs="$TMP/hungsys" --log.level=error
	PID_hung=$STARTED
	URL_HUNG=http://127.0.0.1:$PORT_HUNG/metrics
else
	echo "(no hung-device row: blockfs at $BLOCKFS, /dev/fuse or a bind mount missing)"
fi
UA="Prometheus/2.42.0"
# scrape_both N: one scrape of each as Prometheus asks (its User-Agent, gzip),
# the bodies (decoded) in $TMP/dep.N and $TMP/ne.N, latencies appended
scrape_both() {
	curl -fsS -A "$UA" --compressed -H 'Accept-Encoding: gzip' -o "$TMP/dep.$1" \
		-w '%{time_total}\n' "$URL_DEP" >>"$TMP/lat.ours"
	curl -fsS -A "$UA" --compressed -H 'Accept-Encoding: gzip' -o "$TMP/ne.$1" \
		-w '%{time_total}\n' "$URL_NE" >>"$TMP/lat.node"
}
# hung_scrapes: the hung instance's scrapes, on the same grid shifted by half a
# period, so that its polls do not run on the two cores at the moment the
# other two's do (each would slow the others' cold reads down)
hung_scrapes() {
	local i
	for i in $(seq 0 $((WARM + MEASURE))); do
		sleep "$(awk -v s="$t_start" -v i="$i" -v p="$PERIOD" -v now="$(date +%s.%N)" \
			'BEGIN { d = s + (i + 0.5) * p - now; printf "%.3f", (d > 0 ? d : 0) }')"
		curl -fsS -A "$UA" --compressed -H 'Accept-Encoding: gzip' -o "$TMP/hung.$i" \
			"$URL_HUNG" || true
	done
}
echo
echo "deployment: one scraper (Prometheus's User-Agent, gzip) every ${PERIOD}s for $((WARM + MEASURE)) scrapes," \
	"the last $MEASURE measured;" \
	"ours at its defaults (all collectors, --poll.mode=aligned), node_exporter infiniband only"
t_start=$(date +%s.%N)
HUNG_LOOP=
if [ -n "$PID_hung" ]; then
	hung_scrapes &
	HUNG_LOOP=$!
fi
for i in $(seq 0 $((WARM + MEASURE))); do
	# on a fixed grid, as Prometheus scrapes
	sleep "$(awk -v s="$t_start" -v i="$i" -v p="$PERIOD" -v now="$(date +%s.%N)" \
		'BEGIN { d = s + i * p - now; printf "%.3f", (d > 0 ? d : 0) }')"
	if [ "$i" -eq "$WARM" ]; then
		: >"$TMP/lat.ours"
		: >"$TMP/lat.node"
		c0_o=$(bench_cpu_ticks "$PID_deploy")
		c0_n=$(bench_cpu_ticks "$PID_node")
		n0_o=$(bench_cpu_ns "$PID_deploy")
		n0_n=$(bench_cpu_ns "$PID_node")
		bench_threads "$PID_deploy" >"$TMP/threads0.ours"
		[ -z "$PID_hung" ] || bench_threads "$PID_hung" >"$TMP/threads0.hung"
	fi
	scrape_both "$i"
done
c1_o=$(bench_cpu_ticks "$PID_deploy")
c1_n=$(bench_cpu_ticks "$PID_node")
n1_o=$(bench_cpu_ns "$PID_deploy")
n1_n=$(bench_cpu_ns "$PID_node")
bench_threads "$PID_deploy" >"$TMP/threads1.ours"
[ -z "$PID_hung" ] || bench_threads "$PID_hung" >"$TMP/threads1.hung"
[ -z "$HUNG_LOOP" ] || wait "$HUNG_LOOP"
last=$((WARM + MEASURE))
mins=$(awk -v n="$MEASURE" -v p="$PERIOD" 'BEGIN { print n * p / 60 }')
cpu_o=$(awk -v t=$((c1_o - c0_o)) -v hz="$BENCH_CLK_TCK" -v m="$mins" 'BEGIN { printf "%.1f", t * 1000 / hz / m }')
cpu_n=$(awk -v t=$((c1_n - c0_n)) -v hz="$BENCH_CLK_TCK" -v m="$mins" 'BEGIN { printf "%.1f", t * 1000 / hz / m }')
ns_o=$(awk -v a="$n0_o" -v b="$n1_o" -v m="$mins" 'BEGIN { printf "%.1f", (b - a) / 1e6 / m }')
ns_n=$(awk -v a="$n0_n" -v b="$n1_n" -v m="$mins" 'BEGIN { printf "%.1f", (b - a) / 1e6 / m }')
polls=$(($(bench_metric rdma_exporter_polls_total "$TMP/dep.$last") - $(bench_metric rdma_exporter_polls_total "$TMP/dep.$WARM")))
ppm=$(awk -v n="$polls" -v m="$mins" 'BEGIN { printf "%.1f", n / m }')
age=$(bench_hist_median rdma_exporter_data_age_seconds "$TMP/dep.$WARM" "$TMP/dep.$last" 'scraper="followed",')
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) printf "%.3f", v[int((NR + 1) / 2)] * 1000; else print "-" }'; }
p50_o=$(med "$TMP/lat.ours")
p50_n=$(med "$TMP/lat.node")
ser_o=$(bench_series "$TMP/dep.$last")
ser_n=$(bench_series "$TMP/ne.$last")
anon_o=$(bench_anon "$PID_deploy")
anon_n=$(bench_anon "$PID_node")
printf '%-28s %12s %14s %8s\n' figure ours node_exporter ratio
printf '%-28s %12s %14s %8s\n' "CPU ms per minute" "$ns_o" "$ns_n" "$(bench_ratio "$ns_o" "$ns_n")"
printf '%-28s %12s %14s %8s\n' "  the same in 10 ms ticks" "$cpu_o" "$cpu_n" "$(bench_ratio "$cpu_o" "$cpu_n")"
printf '%-28s %12s %14s %8s\n' "series per scrape" "$ser_o" "$ser_n" "$(bench_ratio "$ser_o" "$ser_n")"
printf '%-28s %12s %14s %8s\n' "polls per minute" "$ppm" "(per scrape)" -
printf '%-28s %12s %14s %8s\n' "median data age at scrape s" "$age" "0 (reads)" -
printf '%-28s %12s %14s %8s\n' "scrape p50 ms" "$p50_o" "$p50_n" "$(bench_ratio "$p50_o" "$p50_n")"
printf '%-28s %12s %14s %8s\n' "anonymous memory kB" "$anon_o" "$anon_n" "$(bench_ratio "$anon_o" "$anon_n")"
# --- where ours spends it: per collector and per thread, each beside node_exporter's
# whole CPU a minute (the ratio says how much of the 0.5 target each part takes)
bench_thread_table "$PID_deploy" "$TMP/threads0.ours" "$TMP/threads1.ours" "$mins" >"$TMP/table.ours"
if [ -n "$PID_hung" ]; then
	bench_thread_table "$PID_hung" "$TMP/threads0.hung" "$TMP/threads1.hung" "$mins" >"$TMP/table.hung"
else
	: >"$TMP/table.hung"
fi
echo
echo "ours per collector and per thread, CPU ms a minute (schedstat, live threads), and as a ratio to"
echo "node_exporter's whole CPU a minute ($ns_n ms); \"hung\": ours with mlx5_1's port 1 hw_counters blocking"
printf '%-10s %-18s %10s %8s %10s %8s\n' kind name ours ratio hung ratio
awk -v ne="$ns_n" 'FNR == 1 { f++ } f == 1 { o[$1 " " $2] = $3; k[$1 " " $2] = 1 } f == 2 { h[$1 " " $2] = $3; k[$1 " " $2] = 1 }
	function r(v) { return v == "" || ne + 0 == 0 ? "-" : sprintf("%.3f", v / ne) }
	END {
		for (x in k) {
			split(x, p, " ")
			printf "%-10s %-18s %10s %8s %10s %8s\n", p[1], p[2], (x in o ? o[x] : "-"), r(o[x]),
				(x in h ? h[x] : "-"), r(h[x])
		}
	}' "$TMP/table.ours" "$TMP/table.hung" | sort -k1,1 -k3,3nr
if [ -n "$PID_hung" ]; then
	echo "hung instance: rdma_device_responsive{device=\"mlx5_1\"} $(bench_metric 'rdma_device_responsive{device="mlx5_1"}' "$TMP/hung.$last")," \
		"blocked readers $(bench_metric rdma_exporter_sysfs_blocked_readers "$TMP/hung.$last")," \
		"series $(bench_series "$TMP/hung.$last")"
fi
echo "(CPU: schedstat run time of each process's threads, ns; below it utime+stime, 10 ms ticks;"
echo " data age: rdma_exporter_data_age_seconds{scraper=\"followed\"} over the measured scrapes, interpolated in its bucket;"
echo " node_exporter reads sysfs during the scrape: its data is fresh and its scrape waits on it)"
echo "(figures from a shared 2-core machine with the load tool on the same cores: compare within this run)"
