#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Socket activation: systemd-socket-activate binds 127.0.0.1:PORT and starts the
# daemon at the first connection with the listening socket passed as fd 3; the daemon
# must serve on it (its own --web.listen-address names another port it must not
# bind). Two passed sockets are refused with exit 2.
#
#   socket-activation.sh BINARY        (FIXTURES dir from env)
set -u
BIN=${1:?usage: socket-activation.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
FIXTURES=${FIXTURES:-$HERE/../fixtures}
TREE=$FIXTURES/sysfs/mlx5-roce
. "$HERE/../include/tap.sh"

NOHOST=(--no-collector.netlink --no-collector.ethtool --no-collector.probe)

# systemd-socket-activate execs the daemon in its own process: PID is the daemon's.
started=0
for _ in 1 2 3 4 5 6 7 8 9 10; do
	PORT=$(free_port)
	OTHER=$((PORT + 1))
	systemd-socket-activate -l "127.0.0.1:$PORT" "$BIN" --path.sysfs="$TREE" \
		--web.listen-address="127.0.0.1:$OTHER" "${NOHOST[@]}" >"$TMP/log" 2>&1 &
	PID=$!
	for _ in $(seq 1 50); do
		grep -q "^Listening on" "$TMP/log" && break
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$PID" 2>/dev/null; then
		started=1
		break
	fi
	wait "$PID" 2>/dev/null
	PID=
done
check "systemd-socket-activate listens on 127.0.0.1:$PORT" [ "$started" -eq 1 ]

# The first connection starts the daemon, which polls once and then accepts it.
check "the scrape through the passed socket succeeds" \
	curl -fsS --max-time 20 -o "$TMP/metrics" "http://127.0.0.1:$PORT/metrics"
check "the scrape has the fixture's port counters" \
	grep -q '^rdma_port_data_received_bytes_total{device="mlx5_0",port="1"}' "$TMP/metrics"
check "the daemon logs the passed socket's address" \
	grep -q "msg=listening address=127.0.0.1:$PORT path=/metrics tls=off" "$TMP/log"
check "a second scrape on the same socket" \
	curl -fsS --max-time 5 -o /dev/null "http://127.0.0.1:$PORT/healthz"
check "--web.listen-address is not bound when a socket is passed" \
	bash -c "! curl -fsS --max-time 2 -o /dev/null http://127.0.0.1:$OTHER/metrics 2>/dev/null"
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "SIGTERM exits 0 (got $rc)" [ "$rc" -eq 0 ]

# Two ListenStream= sockets: the exporter serves one and says so. A port pair taken by
# another process makes systemd-socket-activate itself fail (exit 1, before the daemon
# runs): try another pair, as above.
rc=-1
for _ in 1 2 3 4 5 6 7 8 9 10; do
	P1=$(free_port)
	timeout 30 systemd-socket-activate -l "127.0.0.1:$P1" -l "127.0.0.1:$((P1 + 1))" "$BIN" \
		--path.sysfs="$TREE" "${NOHOST[@]}" >"$TMP/log2" 2>&1 &
	PID=$!
	listening=0
	for _ in $(seq 1 200); do
		if [ "$(grep -c "^Listening on" "$TMP/log2")" -ge 2 ]; then
			listening=1
			break
		fi
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	if [ "$listening" -eq 1 ]; then
		curl -fsS --max-time 5 -o /dev/null "http://127.0.0.1:$P1/metrics" 2>/dev/null
		wait "$PID"
		rc=$?
		PID=
		break
	fi
	wait "$PID" 2>/dev/null
	PID=
done
check "two passed sockets: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "two passed sockets: one clear line" \
	grep -q '^rdma_exporter: error: socket activation passed 2 sockets' "$TMP/log2"

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
