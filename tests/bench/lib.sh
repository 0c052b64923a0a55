# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Shared bits of the benchmark scripts (sourced, never run): the synthetic
# big-host sysfs tree, free loopback ports, and the /proc readings every
# script prints. Functions are prefixed bench_; nothing here asserts.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_FIXTURE=$BENCH_DIR/../fixtures/sysfs/mlx5-roce/class/infiniband/mlx5_0
BENCH_CLK_TCK=$(getconf CLK_TCK)

# bench_tree ROOT DEVICES PORTS: ROOT/sys/class/infiniband/mlx5_0.. made of
# regular files and directories (no symlinks), so a benchmark measures the
# exporter, not sysfs: each device is the mlx5-roce fixture's mlx5_0 (its
# attributes and device-level hw_counters/), each of its PORTS ports a copy
# of that fixture's port 1 (counters/ and hw_counters/, ~55 files).
bench_tree() {
	local root=$1 devices=$2 ports=$3 d p dev f
	mkdir -p "$root/sys/class/infiniband"
	for d in $(seq 0 $((devices - 1))); do
		dev=$root/sys/class/infiniband/mlx5_$d
		mkdir -p "$dev/ports"
		for f in "$BENCH_FIXTURE"/*; do [ -f "$f" ] && cp "$f" "$dev/"; done
		[ -d "$BENCH_FIXTURE/hw_counters" ] && cp -r "$BENCH_FIXTURE/hw_counters" "$dev/"
		for p in $(seq 1 "$ports"); do cp -r "$BENCH_FIXTURE/ports/1" "$dev/ports/$p"; done
	done
}

# bench_counter_files ROOT: how many counter files the tree has.
bench_counter_files() {
	find "$1/sys" -path '*counters*' -type f | wc -l
}

# bench_free_port: a loopback TCP port nobody listens on, below the ephemeral
# range (the load tool's closed connections sit in TIME_WAIT there).
. "$(dirname "${BASH_SOURCE[0]}")/../include/port.sh"
bench_free_port() { free_port; }

# bench_wait_http URL [SECONDS]: waits until URL answers 200 (asking for gzip,
# as Prometheus does: a plain-text request makes ours keep the text beside
# its gzip copy for a while, which a deployment scraped by Prometheus never does).
bench_wait_http() {
	local tries=$((${2:-10} * 20))
	for _ in $(seq 1 "$tries"); do
		curl -fsS --compressed -H 'Accept-Encoding: gzip' -o /dev/null "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# bench_cpu_ticks PID: utime + stime of the whole process, in clock ticks.
bench_cpu_ticks() {
	# comm may hold spaces: the fields start after the last ')'
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# bench_cpu_ns PID: CPU time of the process's live threads in ns (schedstat's
# run time, exact), for short windows where 10 ms ticks are too coarse. A thread
# that exits in the window takes its time with it: that under-counts, never over.
bench_cpu_ns() {
	cat "/proc/$1/task/"*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# bench_threads PID: one line per live thread, "TID COMM RUN_NS" (comm with
# spaces as _), for bench_thread_table.
bench_threads() {
	local t
	for t in "/proc/$1/task/"*; do
		[ -r "$t/schedstat" ] || continue
		echo "$(basename "$t") $(tr ' ' '_' <"$t/comm" 2>/dev/null) $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null)"
	done
}

# bench_thread_table PID BEFORE AFTER MINUTES: CPU ms a minute per thread name
# and per collector between two bench_threads snapshots, as "kind name ms"
# lines ("thread rdma-c-sysfs 1.23", "collector sysfs 2.34", "total - 3.45").
# Threads are told apart by name: rdma-c-NAME (collector NAME's worker),
# rdma-sysfs-read (sysfs readers), rdma-events (the events listener),
# rdma-poller (rendering, gzip, self metrics), MHD-*/rdma-reaper/rdma-auth
# (HTTP); the probe engine keeps the process's name (the kernel files its QPs
# under it), told from the main thread by its TID.
bench_thread_table() {
	awk -v pid="$1" -v m="$4" 'FILENAME == ARGV[2] { a[$1] = $3; next }
		{
			d = $3 - ($1 in a ? a[$1] : 0); name = $2
			if ($1 == pid) name = "(main)"
			else if (name !~ /^(rdma-|MHD)/) name = "(probe-engine)"
			t[name] += d; tot += d
			c = name
			if (name ~ /^rdma-c-/) c = substr(name, 8)
			else if (name == "rdma-sysfs-read") c = "sysfs"
			else if (name == "rdma-events") c = "events"
			else if (name == "(probe-engine)") c = "probe"
			else if (name ~ /^MHD|^rdma-reaper|^rdma-auth/) c = "(http)"
			else if (name == "rdma-poller") c = "(poller)"
			col[c] += d
		}
		END {
			for (k in t) printf "thread %s %.2f\n", k, t[k] / 1e6 / m
			for (k in col) printf "collector %s %.2f\n", k, col[k] / 1e6 / m
			printf "total - %.2f\n", tot / 1e6 / m
		}' /dev/null "$2" "$3"
}

# bench_ticks_to_s TICKS: seconds, as a decimal.
bench_ticks_to_s() {
	awk -v t="$1" -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.3f", t / hz }'
}

# bench_mem PID: "RSS_KB PSS_KB" from smaps_rollup (status VmRSS when the
# kernel has no smaps_rollup; PSS then reads -).
bench_mem() {
	if [ -r "/proc/$1/smaps_rollup" ]; then
		awk '$1 == "Rss:" { r = $2 } $1 == "Pss:" { p = $2 } END { print r, p }' \
			"/proc/$1/smaps_rollup"
	else
		awk '$1 == "VmRSS:" { print $2, "-" }' "/proc/$1/status"
	fi
}

# bench_anon PID: anonymous memory in kB (smaps_rollup; - without it).
bench_anon() {
	awk '$1 == "Anonymous:" { a = $2 } END { print (a == "" ? "-" : a) }' \
		"/proc/$1/smaps_rollup" 2>/dev/null || echo -
}

# bench_hist_median NAME FILE0 FILE1 [LABELS]: the median of histogram NAME
# (its series whose labels before le are LABELS, e.g. 'scraper="followed",')
# over the observations between two scrapes, interpolated in its bucket as
# histogram_quantile() does; - when there are none.
bench_hist_median() {
	awk -v m="$1_bucket{${4:-}" 'FNR == 1 { f++ }
		index($1, m "le=\"") == 1 {
			le = substr($1, length(m) + 5); sub(/"}$/, "", le)
			if (f == 1) c0[le] = $2; else { c1[le] = $2; order[n++] = le }
		}
		END {
			total = c1["+Inf"] - c0["+Inf"]
			if (total <= 0) { print "-"; exit }
			prev_le = 0; prev_c = 0
			for (i = 0; i < n; i++) {
				le = order[i]; c = c1[le] - c0[le]
				if (c >= total / 2) {
					if (le == "+Inf") { print prev_le; exit }
					printf "%.3f\n", prev_le + (le - prev_le) * (total / 2 - prev_c) / (c - prev_c)
					exit
				}
				prev_le = le; prev_c = c
			}
		}' "$2" "$3"
}

# bench_fds PID: open file descriptors.
bench_fds() {
	# || true: an fd closed while find lists the directory makes it fail
	{ find "/proc/$1/fd" -mindepth 1 -maxdepth 1 2>/dev/null || true; } | wc -l
}

# bench_metric NAME FILE: the first sample value of NAME in an exposition.
bench_metric() {
	awk -v m="$1" '$1 == m || index($1, m "{") == 1 { print $2; exit }' "$2"
}

# bench_series FILE [PREFIX]: sample lines (not comments), optionally only
# those whose name starts with PREFIX.
bench_series() {
	grep -v '^#' "$1" | grep -c "^${2:-}" || true
}

# bench_ratio A B: A/B with two decimals, "-" when B is 0 or either is empty.
bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

# bench_machine_note: one line saying where the figures come from.
bench_machine_note() {
	local model
	model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "machine: shared $(nproc)-core build machine (${model:-unknown CPU}), kernel $(uname -r)," \
		"load average $(cut -d' ' -f1-3 /proc/loadavg) at start; others build and test on it," \
		"so figures are noisy: compare ratios within one run, not across runs"
}
