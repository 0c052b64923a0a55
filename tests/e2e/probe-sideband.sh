#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# probe-sideband.sh BINARY - the probe collector's UDP discovery sideband on a host
# without RDMA (every build machine here), the probe collector on as by default and
# the web server on loopback: the process holds no UDP socket at all, with or without
# a targets file (the sideband opens only while a probe port is open, bound to the
# RDMA netdevs' addresses, never the wildcard). A valid targets file is in the very
# first scrape. A bad --collector.probe.listen-address is exit 2 with a clear line.
set -uo pipefail
BIN=$(readlink -f "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/include/tap.sh"

mkdir -p "$TMP/sys/class"
cat >"$TMP/targets.json" <<'JSON'
[{"targets": ["192.0.2.1", "192.0.2.2:7000"], "labels": {"rack": "r1"}},
 {"targets": ["192.0.2.3"]}]
JSON

# start ARGS...: the exporter on a free loopback port (polling every $POLL, 200ms
# unless set), up within 10 s.
start() {
	local i
	for i in 1 2 3 4 5; do
		PORT=$(free_port)
		"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$TMP/sys" \
			--poll.interval="${POLL:-200ms}" "$@" >"$TMP/log" 2>&1 &
		PID=$!
		end=$((SECONDS + 10))
		while [ $SECONDS -lt $end ]; do
			curl -fsS -m 1 -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && return 0
			kill -0 "$PID" 2>/dev/null || break
			sleep 0.05
		done
		kill -9 "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
		PID=
		grep -q "cannot listen" "$TMP/log" || break
	done
	cat "$TMP/log"
	return 1
}

stop() {
	kill "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
}

# The process's UDP sockets: its socket fds' inodes found in /proc/PID/net/udp{,6}.
udp_sockets() {
	local inodes
	inodes=$(find "/proc/$PID/fd" -type l -printf '%l\n' 2>/dev/null |
		sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
	[ -n "$inodes" ] || { echo 0; return; }
	cat "/proc/$PID/net/udp" "/proc/$PID/net/udp6" 2>/dev/null |
		awk -v list="$inodes" 'BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
			NR > 0 && ($10 in want) { c++ } END { print c + 0 }'
}

[ -r /proc/self/net/udp ] || { echo "1..0 # SKIP no /proc/net/udp"; exit 77; }

# --- no targets file: the responder alone has nothing to answer for
if start; then
	check "no RDMA, no targets file: no UDP socket" test "$(udp_sockets)" = 0
	sleep 1.5 # an engine sync or two
	check "no RDMA, no targets file: still no UDP socket after a sync" test "$(udp_sockets)" = 0
	curl -fsS -m 5 -o "$TMP/body" "http://127.0.0.1:$PORT/metrics"
	check "the probe collector runs (success 1)" \
		grep -q 'rdma_exporter_collector_success{collector="probe"} 1' "$TMP/body"
	check "unsolicited discovery answers are a reason" \
		grep -q 'rdma_probe_discovery_dropped_total{reason="unexpected"} 0' "$TMP/body"
	stop
fi

# --- a targets file: loaded before the first poll (one poll an hour: the first scrape
# is the first poll's), and no client socket either
if POLL=1h start --collector.probe.targets-file="$TMP/targets.json"; then
	curl -fsS -m 5 -o "$TMP/first" "http://127.0.0.1:$PORT/metrics"
	check "first scrape: rdma_probe_targets 3" grep -qx 'rdma_probe_targets 3' "$TMP/first"
	check "first scrape: reload success 1" \
		grep -qx 'rdma_probe_targets_file_reload_success 1' "$TMP/first"
	check "targets file: no UDP socket" test "$(udp_sockets)" = 0
	sleep 1.5 # the peers try to resolve (and fail: no local port)
	check "targets file: still no UDP socket after the peers were tried" test "$(udp_sockets)" = 0
	stop
fi

# --- an explicit listen address: still nothing without a probe port
if start --collector.probe.targets-file="$TMP/targets.json" --collector.probe.listen-address=127.0.0.1,::1; then
	sleep 1.5
	check "listen-address given, no RDMA port: no UDP socket" test "$(udp_sockets)" = 0
	stop
fi

bad() { # bad WANT VALUE
	local rc
	"$BIN" --collector.probe.listen-address="$2" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q -- "$1" "$TMP/err" && return 0
	echo "rc=$rc stderr: $(cat "$TMP/err")" >&2
	return 1
}
check "listen-address with a port: exit 2" bad "no port" 127.0.0.1:9879
check "listen-address wildcard: exit 2" bad "wildcard" 0.0.0.0
check "listen-address a name: exit 2" bad "is not an IPv4 or IPv6 address" localhost
check "listen-address empty item: exit 2" bad "is empty" 127.0.0.1,

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
