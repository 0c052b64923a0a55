#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# sd_notify and the watchdog without systemd: the daemon runs with NOTIFY_SOCKET
# pointing at a unix datagram socket of the test's own (notify-receiver.py) and
# WATCHDOG_USEC/WATCHDOG_PID set as systemd sets them; the receiver must get
# READY=1, STATUS= lines, WATCHDOG=1 pings and STOPPING=1. A watchdog shorter than
# two poll intervals must stop the daemon at start with one line and exit 2.
#
#   notify.sh BINARY        (FIXTURES dir from env)
set -u
BIN=${1:?usage: notify.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
FIXTURES=${FIXTURES:-$HERE/../fixtures}
TREE=$FIXTURES/sysfs/mlx5-roce
. "$HERE/../include/tap.sh"

# WATCHDOG_PID must be the daemon's own pid: a shell exports its $$ and execs the binary.
NOHOST=(--no-collector.netlink --no-collector.ethtool --no-collector.probe)

wait_for() { # wait_for REGEX FILE [TENTHS]
	local i
	for i in $(seq 1 "${3:-100}"); do
		grep -Eq "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

wait_count() { # wait_count REGEX FILE COUNT: COUNT lines match within 10 s
	local i n
	for i in $(seq 1 100); do
		n=$(grep -Ec "$1" "$2" 2>/dev/null)
		[ "${n:-0}" -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# --- the daemon talks to its NOTIFY_SOCKET
python3 "$HERE/notify-receiver.py" "$TMP/notify.sock" "$TMP/msgs" 30 &
EXTRA_PIDS=$!
wait_for '^LISTENING$' "$TMP/msgs" || not_ok "the notify receiver did not start"
PORT=$((20000 + RANDOM % 40000))
NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=2000000 \
	bash -c 'export WATCHDOG_PID=$$; exec "$@"' sh "$BIN" --path.sysfs="$TREE" \
	--web.listen-address="127.0.0.1:$PORT" --poll.interval=200ms "${NOHOST[@]}" \
	>"$TMP/log" 2>&1 &
PID=$!

check "READY=1 is sent" wait_for '^READY=1$' "$TMP/msgs"
check "the listener is bound when READY=1 arrives" \
	curl -fsS -o /dev/null "http://127.0.0.1:$PORT/metrics"
check "STATUS= names the devices and the last poll" \
	wait_for '^STATUS=2 RDMA devices; last poll [0-9T:-]+Z took [0-9]+ms; 0 of 1 collectors failing$' \
	"$TMP/msgs"
check "STATUS= comes before READY=1 (the first poll is published first)" \
	awk '/^STATUS=/ { s = 1 } /^READY=1$/ { exit !s }' "$TMP/msgs"
check "WATCHDOG=1 pings from the poll loop" wait_for '^WATCHDOG=1$' "$TMP/msgs"
sleep 1
n=$(grep -c '^WATCHDOG=1$' "$TMP/msgs")
check "a ping per poll (200ms polls: $n pings)" [ "$n" -ge 3 ]
kill -HUP "$PID"
check "SIGHUP: RELOADING=1 then READY=1" \
	wait_for '^RELOADING=1$' "$TMP/msgs"
# Waited for: the daemon sends it once the reload is done, a while after RELOADING=1
# on a slow (or sanitized) build.
check "READY=1 again after the reload" wait_count '^READY=1$' "$TMP/msgs" 2
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "SIGTERM exits 0" [ "$rc" -eq 0 ]
check "STOPPING=1 is sent" wait_for '^STOPPING=1$' "$TMP/msgs" 30
wait "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=
check "NOTIFY_SOCKET and WATCHDOG_* are not logged as errors" \
	bash -c "! grep -q 'level=error' '$TMP/log'"

# --- a watchdog the poll interval cannot feed
WATCHDOG_USEC=3000000 bash -c 'export WATCHDOG_PID=$$; exec "$@"' sh "$BIN" \
	--path.sysfs="$TREE" --poll.interval=2s "${NOHOST[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "WatchdogSec=3s with --poll.interval=2s: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "one clear line on stderr" bash -c "[ \$(wc -l <'$TMP/err') -eq 1 ] &&
	grep -q '^rdma_exporter: error: --poll.interval=2000ms is too long for the systemd watchdog (WatchdogSec=3000ms)' '$TMP/err'"
sed 's/^/# /' "$TMP/err"

WATCHDOG_USEC=notanumber bash -c 'export WATCHDOG_PID=$$; exec "$@"' sh "$BIN" \
	--path.sysfs="$TREE" "${NOHOST[@]}" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "a malformed WATCHDOG_USEC: exit 2 (got $rc)" [ "$rc" -eq 2 ]

# The watchdog of another process (WATCHDOG_PID not ours) is not this daemon's:
# it starts although 1s would be too short for the 5s default interval.
# A random port another test holds ("cannot listen") is tried again on another.
for try in 1 2 3 4 5; do
	PORT=$((20000 + RANDOM % 40000))
	WATCHDOG_USEC=1000000 WATCHDOG_PID=1 "$BIN" --path.sysfs="$TREE" \
		--web.listen-address="127.0.0.1:$PORT" "${NOHOST[@]}" >"$TMP/log" 2>&1 &
	PID=$!
	started=0
	for _ in $(seq 1 200); do
		curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && { started=1; break; }
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.05
	done
	[ "$started" -eq 1 ] && break
	wait "$PID" 2>/dev/null
	PID=
	grep -q "cannot listen" "$TMP/log" || break
done
check "WATCHDOG_PID of another process: the watchdog is ignored" [ "$started" -eq 1 ]
[ "$started" -eq 1 ] || sed 's/^/# /' "$TMP/log"
kill -TERM "$PID" 2>/dev/null
wait "$PID"
PID=

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
