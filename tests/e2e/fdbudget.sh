#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The descriptor budget: HTTP connections and kept-open counter files share
# RLIMIT_NOFILE. With a hard limit of 256 and a tree of 16 devices (~900
# counter files, more than the limit), connections held open at the
# connection limit must never make a counter read fail
# (rdma_exporter_collector_read_errors_total stays 0), and a
# --web.max-connections above the budget is cut to it with one warning.
#
#   fdbudget.sh BINARY     (FIXTURES dir from env)
set -u
BIN=${1:?usage: fdbudget.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools python3 curl

# 16 copies of the mlx5-roce fixture's mlx5_0 (regular files)
SRC=$FIXTURES/sysfs/mlx5-roce/class/infiniband/mlx5_0
for d in $(seq 0 15); do
	mkdir -p "$TMP/sys/class/infiniband/mlx5_$d"
	cp -r "$SRC"/. "$TMP/sys/class/infiniband/mlx5_$d/"
done
files=$(find "$TMP/sys" -path '*counters*' -type f | wc -l)
check "the tree has more counter files ($files) than the limit of 256" test "$files" -gt 256

EXTRA=()
launch() {
	# hard and soft (ulimit -n sets both): the daemon raises its soft limit to the hard one
	(ulimit -n 256 && exec "$BIN" --web.listen-address="127.0.0.1:$PORT" \
		--path.sysfs="$TMP/sys" --poll.interval=200ms --no-collector.netlink \
		--no-collector.ethtool --no-collector.probe --web.connection-timeout=1m \
		"${EXTRA[@]}") >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; }
# read_errors: the sysfs collector's skipped values plus the process_* values
# the exporter could not read about itself (/proc opens), "0" when none
read_errors() {
	curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" |
		awk '/^rdma_exporter_collector_read_errors_total\{collector="sysfs"\} / ||
			/^rdma_exporter_self_read_errors_total / { n++; sum += $2 }
			END { print (n == 2 ? sum : "missing") }'
}

# hold.py PORT N SECONDS PID: N connections, 8 per source address (the per-client
# limit), held SECONDS; prints the exporter's open descriptors meanwhile and how
# many connections were still open at the end. Each address scrapes once first,
# as Prometheus would: clients that never did may not take the quarter of the
# connections reserved for those that did (docs/security.md).
cat >"$TMP/hold.py" <<'EOF'
import os, socket, sys, time
port, n, secs, pid = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
for src in sorted({"127.0.1.%d" % (10 + i // 8) for i in range(n)}):
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(src, 0))
    s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")  # the server closes it when done
    while s.recv(65536):
        pass
    s.close()
held = []
for i in range(n):
    s = socket.socket()
    s.bind(("127.0.1.%d" % (10 + i // 8), 0))
    s.settimeout(2)
    s.connect(("127.0.0.1", port))  # done once in the listen backlog
    s.setblocking(False)
    held.append(s)
time.sleep(1)
print("fds:", len(os.listdir("/proc/%s/fd" % pid)), flush=True)
time.sleep(secs)
open_ = 0
for s in held:
    try:
        open_ += s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        open_ += 1
    except OSError:
        pass
print("open at the end:", open_)
EOF

# --- the default 64 connections, all held for 3 s (15 polls)
start_on_free_port launch ready || { echo "not ok - the exporter starts"; exit 1; }
check "before the connections: no read error" test "$(read_errors)" = 0
fds_before=$(ls /proc/"$PID"/fd | wc -l)
python3 "$TMP/hold.py" "$PORT" 64 3 "$PID" >"$TMP/hold.out"
echo "  open descriptors: $fds_before before, $(awk '/^fds:/ { print $2 }' "$TMP/hold.out") with the connections (limit 256)"
check "64 connections held through 15 polls: still no read error" test "$(read_errors)" = 0
check "64 connections at the limit of 64 (8 per address): none refused" bash -c \
	"curl -s http://127.0.0.1:$PORT/metrics | grep -c '^rdma_exporter_http_connections_rejected_total{.*} 0\$' | grep -qx 5"
check "the exporter serves after them" ready
stop_exporter

# --- a connection limit above the budget is cut to (256 - 64) / 2 = 96, with a warning
EXTRA=(--web.max-connections=1000 --web.max-connections-per-client=1000)
start_on_free_port launch ready || { echo "not ok - the exporter starts with 1000"; exit 1; }
check "one warning: the connection limit is above the budget" bash -c \
	"test \$(grep -c 'level=warn.*max-connections is above the descriptor budget.*used=96' '$TMP/log') -eq 1"
python3 "$TMP/hold.py" "$PORT" 150 3 "$PID" >"$TMP/hold.out"
sed 's/^/  /' "$TMP/hold.out"
check "at most 96 connections taken (open descriptors below 256)" \
	test "$(awk '/^fds:/ { print $2 }' "$TMP/hold.out")" -lt 256
check "150 connections tried: still no read error" test "$(read_errors)" = 0
# Each of the 54 over the limit is refused (global_limit) or, from an address holding
# at least 2 fewer than another, let in for one of that one's idle connections
# (idle_replaced): the two add up to 54 once counted (polled, as wait_sample does).
over_limit() {
	local g i
	for _ in $(seq 1 50); do
		g=$(sample 'rdma_exporter_http_connections_rejected_total{reason="global_limit"}')
		i=$(sample 'rdma_exporter_http_connections_rejected_total{reason="idle_replaced"}')
		[ "$((g + i))" -eq 54 ] 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# global_limit $g + idle_replaced $i, not 54" >&2
	return 1
}
check "the 54 connections over the limit of 96: refused (global_limit) or replacing an idle one (idle_replaced)" \
	over_limit
stop_exporter
check "exit status 0 after SIGTERM" test $? -eq 0
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
