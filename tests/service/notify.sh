#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# sd_notify and the watchdog without systemd: the daemon runs with NOTIFY_SOCKET
# pointing at a unix datagram socket of the test's own (notify-receiver.py) and
# WATCHDOG_USEC/WATCHDOG_PID set as systemd sets them; the receiver must get
# READY=1, STATUS= lines, WATCHDOG=1 pings and STOPPING=1. A watchdog shorter than
# the poll interval is fed between polls: never an exit 2 (a flag pushed to a
# fleet would otherwise stop every exporter: RestartPreventExitStatus=2).
#
#   notify.sh BINARY        (FIXTURES dir from env)
set -u
BIN=${1:?usage: notify.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
FIXTURES=${FIXTURES:-$HERE/../fixtures}
TREE=$FIXTURES/sysfs/mlx5-roce
. "$HERE/../include/tap.sh"

# WATCHDOG_PID must be the daemon's own pid: a shell exports its $$ and execs the binary.
NOHOST=(--no-collector.netlink --no-collector.ethtool --no-collector.probe --no-collector.events
	--no-collector.devlink)

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

# start_notified LOG ARGS...: the daemon with NOTIFY_SOCKET and a 2 s watchdog ($WD
# when set) on a
# random port, its output in LOG; sets PID and PORT. A port another test holds
# ("cannot listen") is tried again on another.
start_notified() {
	local log=$1 try
	shift
	for try in 1 2 3 4 5; do
		PORT=$(free_port)
		NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=${WD:-2000000} \
			bash -c 'export WATCHDOG_PID=$$; exec "$@"' sh "$BIN" --path.sysfs="$TREE" \
			--web.listen-address="127.0.0.1:$PORT" "${NOHOST[@]}" "$@" >"$log" 2>&1 &
		PID=$!
		wait_for 'msg=listening|cannot listen' "$log" && ! grep -q 'cannot listen' "$log" &&
			return 0
		wait "$PID" 2>/dev/null
		PID=
		grep -q 'cannot listen' "$log" || break
	done
	sed 's/^/# /' "$log"
	return 1
}

# --- the daemon talks to its NOTIFY_SOCKET
python3 "$HERE/notify-receiver.py" "$TMP/notify.sock" "$TMP/msgs" 30 &
EXTRA_PIDS=$!
wait_for '^LISTENING$' "$TMP/msgs" || not_ok "the notify receiver did not start"
start_notified "$TMP/log" --poll.interval=200ms

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

# --- any poll interval with any watchdog: WatchdogSec=2s, --poll.interval=10s.
# The poller pings while it waits between polls (every 500 ms, a quarter of
# the watchdog), so the daemon starts and is never starved; it used to exit 2.
rm -f "$TMP/notify.sock"
python3 "$HERE/notify-receiver.py" "$TMP/notify.sock" "$TMP/msgs2" 30 "$TMP/stamped" &
EXTRA_PIDS=$!
wait_for '^LISTENING$' "$TMP/msgs2" || not_ok "the notify receiver did not start"
start_notified "$TMP/log2" --poll.interval=10s
check "WatchdogSec=2s with --poll.interval=10s: READY=1" wait_for '^READY=1$' "$TMP/msgs2"
# 5 s: well past two watchdog periods, less than the first poll interval.
sleep 5
check "still running 5 s later (not exit 2, not starved)" kill -0 "$PID"
n=$(grep -c ' WATCHDOG=1$' "$TMP/stamped")
# The gaps between pings from READY=1 on, and the time since the last one.
gaps=$(awk -v now="$(python3 -c 'import time; print(time.monotonic() * 1000)')" '
	/ READY=1$/ { last = $1 }
	/ WATCHDOG=1$/ && last { if ($1 - last > max) max = $1 - last; last = $1 }
	END { if (now - last > max) max = now - last; printf "%d", max }' "$TMP/stamped")
check "pings while waiting for the next poll ($n in 5 s)" [ "$n" -ge 8 ]
check "WATCHDOG=1 at least every second (longest gap ${gaps}ms)" [ "${gaps:-99999}" -le 1000 ]
check "no STATUS= of a second poll yet (the pings are not polls)" \
	awk '/^READY=1$/ { r = 1 } r && /^STATUS=/ { n++ } END { exit n != 0 }' "$TMP/msgs2"
check "the watchdog is logged once at start" \
	grep -q 'level=info msg="systemd watchdog enabled" watchdog_ms=2000 ping_interval_ms=500' \
	"$TMP/log2"
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "SIGTERM exits 0 (got $rc)" [ "$rc" -eq 0 ]
wait "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=

# --- a malformed WATCHDOG_USEC (systemd never sets one): a warning, not a refusal
WD=notanumber start_notified "$TMP/log3"
check "a malformed WATCHDOG_USEC: the exporter serves" \
	curl -fsS -o /dev/null "http://127.0.0.1:$PORT/metrics"
check "and says it ignores the watchdog" \
	grep -q 'level=warn msg="ignoring the systemd watchdog"' "$TMP/log3"
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "SIGTERM exits 0 (got $rc)" [ "$rc" -eq 0 ]

# The watchdog of another process (WATCHDOG_PID not ours) is not this daemon's:
# it starts, and its log says nothing of a watchdog.
# A random port another test holds ("cannot listen") is tried again on another.
for try in 1 2 3 4 5; do
	PORT=$(free_port)
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
check "and no watchdog is logged" bash -c "! grep -q 'systemd watchdog' '$TMP/log'"
kill -TERM "$PID" 2>/dev/null
wait "$PID"
PID=

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
