# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the e2e scripts that run the real binary (e2e.sh, webconfig.sh,
# slowloris.sh, fdbudget.sh): a scratch dir, TAP-like counting, and starting the
# exporter on a free loopback port. The script sets BIN (its argument) and HERE
# (its directory) first; FIXTURES comes from the environment (ctest) or defaults to
# the tree's. Both are made absolute: some tests run the exporter elsewhere.

BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
FIXTURES=$(cd "${FIXTURES:-$HERE/../fixtures}" && pwd)

# require_tools TOOL...: each must be installed, else one not-ok line and exit 1.
require_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null ||
			{ echo "not ok - $tool is installed (scripts/install-deps.sh --test)"; exit 1; }
	done
}

. "$HERE/../include/tap.sh"
. "$HERE/../include/promtool.sh" # promtool_clean FILE
PORT=

# start_on_free_port LAUNCH READY: LAUNCH starts the exporter in the background on
# 127.0.0.1:$PORT with its output in $TMP/log and sets PID; READY succeeds once it
# serves. Up to 10 random ports: one already in use ("cannot listen") tries another.
start_on_free_port() {
	local launch=$1 ready=$2 try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		PORT=$(free_port)
		"$launch"
		for _ in $(seq 1 100); do
			"$ready" && return 0
			kill -0 "$PID" 2>/dev/null || break
			sleep 0.05
		done
		wait "$PID" 2>/dev/null
		PID=
		grep -q "cannot listen" "$TMP/log" || break
	done
	echo "exporter did not start; log:" >&2
	cat "$TMP/log" >&2
	return 1
}

# stop_exporter: SIGTERM, and its exit status. A daemon still there after 20 s (it
# bounds its own shutdown at 10 s) is a failure: what its threads wait on is
# printed, then it is killed.
stop_exporter() {
	local rc t
	kill -TERM "$PID"
	for t in $(seq 1 200); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$PID" 2>/dev/null; then
		echo "exporter $PID still running 20 s after SIGTERM; its threads:" >&2
		for t in /proc/"$PID"/task/*; do
			echo "  $(cat "$t/comm" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)" >&2
		done
		tail -5 "$TMP/log" >&2
		kill -9 "$PID"
		wait "$PID" 2>/dev/null
		PID=
		return 1
	fi
	wait "$PID"
	rc=$?
	PID=
	return $rc
}

# sample SERIES: the value of one series (its name and labels as exposed, e.g.
# 'rdma_exporter_polls_total' or 'x{reason="y"}') in a scrape, or "missing".
sample() {
	curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" |
		awk -v s="$1" 'index($0, s " ") == 1 { v = $2 } END { print (v == "" ? "missing" : v) }'
}

# wait_sample SERIES VALUE [SECONDS]: succeeds once the series has VALUE (the
# poller publishes counters once a poll), within SECONDS (default 5); else
# prints the last value seen and fails.
wait_sample() {
	local v t
	for t in $(seq 1 $((${3:-5} * 10))); do
		v=$(sample "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.1
	done
	echo "# $1 is $v, not $2" >&2
	return 1
}

# stop_timed: SIGTERM through stop_exporter; sets RC (its status) and MS
# (milliseconds to exit).
stop_timed() {
	local t0
	t0=$(date +%s%N)
	stop_exporter
	RC=$?
	MS=$((($(date +%s%N) - t0) / 1000000))
}
