#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A hung HCA with a real blocking read (issue 29). tests/tools/blockfs mirrors the
# mlx5-roce fixture over FUSE and blocks every read of mlx5_1's port hw_counters
# while a gate file exists: a few seconds here, not the minutes a firmware command
# can take (nothing changes once a read outlives the device deadline, and CI stays
# fast). The daemon polls every second (the default device deadline for that
# interval is about 500ms) with WATCHDOG_USEC=2000000 and a NOTIFY_SOCKET of the
# test's own:
#   1. mlx5_1 hangs while the daemon runs: every scrape answers within 1 s with
#      mlx5_0's values and a fresh poll, rdma_device_responsive{device="mlx5_1"} 0,
#      one blocked reader, WATCHDOG=1 never more than 2 s apart, the same process
#      throughout; the gate removed, mlx5_1 answers again by itself;
#   2. mlx5_1 hangs before the start: the first poll gives up on it at the device
#      deadline and the daemon listens (the log says so in that order, within
#      5 s), mlx5_1 unresponsive from the first scrape; SIGTERM exits 0 at once
#      while the read still blocks;
#   3. `rdma_exporter check` on the hung tree: FAIL (exit 1) naming mlx5_1.
# FUSE must work (root and /dev/fuse, as in CI): a mount that fails is a failure
# with its reason, never a skip.
#
#   hung-device.sh BINARY BLOCKFS     (FIXTURES dir from env)
set -u
BIN=${1:?usage: hung-device.sh BINARY BLOCKFS}
BLOCKFS=$(readlink -f "${2:?usage: hung-device.sh BINARY BLOCKFS}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools curl python3
NOTIFY_RECEIVER=$HERE/../service/notify-receiver.py
TREE=$FIXTURES/sysfs/mlx5-roce
MNT=$TMP/mnt
GATE=$TMP/gate
FS_PID=
RECV_PID=

hung_cleanup() {
	rm -f "$GATE"
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	PID=
	[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null
	if [ -n "$FS_PID" ]; then
		fusermount3 -u -z "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
		kill "$FS_PID" 2>/dev/null
		wait "$FS_PID" 2>/dev/null
	fi
	tap_cleanup
}
trap hung_cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# --- the FUSE mirror
mkdir -p "$MNT"
"$BLOCKFS" --block=/mlx5_1/ports/1/hw_counters/ --gate="$GATE" --max-block=120 \
	"$TREE" "$MNT" >"$TMP/blockfs.log" 2>&1 &
FS_PID=$!
for _ in $(seq 1 100); do
	grep -q " $MNT fuse" /proc/mounts && [ -e "$MNT/class/infiniband/mlx5_1" ] && break
	kill -0 "$FS_PID" 2>/dev/null || break
	sleep 0.1
done
if ! grep -q " $MNT fuse" /proc/mounts; then
	echo "not ok - the FUSE fixture mounts at $MNT (needs root, /dev/fuse and libfuse3; " \
		"scripts/install-deps.sh --test); blockfs said:"
	sed 's/^/# /' "$TMP/blockfs.log"
	exit 1
fi
ok "the FUSE fixture is mounted"
check "a read of mlx5_0's counters through it answers" \
	test -n "$(cat "$MNT/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer")"

# launch: the daemon on $PORT with the watchdog and the notify socket; the receiver
# runs from start_receiver.
launch() {
	NOTIFY_SOCKET=$TMP/notify.sock WATCHDOG_USEC=2000000 \
		bash -c 'export WATCHDOG_PID=$$; exec "$@"' sh "$BIN" \
		--web.listen-address="127.0.0.1:$PORT" --path.sysfs="$MNT" \
		--poll.mode=fixed --poll.interval=1s \
		--no-collector.netlink --no-collector.ethtool --no-collector.probe >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; }

start_receiver() {
	rm -f "$TMP/notify.sock" "$TMP/msgs" "$TMP/stamped"
	python3 "$NOTIFY_RECEIVER" "$TMP/notify.sock" "$TMP/msgs" 60 "$TMP/stamped" &
	RECV_PID=$!
	for _ in $(seq 1 50); do
		grep -q '^LISTENING$' "$TMP/msgs" 2>/dev/null && return 0
		sleep 0.1
	done
	not_ok "the notify receiver starts"
}

# The longest gap between WATCHDOG=1 pings from READY=1 on, and until now (ms).
watchdog_gap() {
	awk -v now="$(python3 -c 'import time; print(time.monotonic() * 1000)')" '
		/ READY=1$/ { last = $1 }
		/ WATCHDOG=1$/ && last { if ($1 - last > max) max = $1 - last; last = $1 }
		END { if (last && now - last > max) max = now - last; printf "%d", last ? max : 99999 }' \
		"$TMP/stamped"
}

# Seconds between the last poll and now, from the scrape.
poll_age() {
	awk -v t="$(sample rdma_exporter_last_poll_timestamp_seconds)" -v now="$(date +%s.%N)" \
		'BEGIN { printf "%.1f", now - t }'
}

RESP1='rdma_device_responsive{device="mlx5_1"}'
STATE0='rdma_port_state{device="mlx5_0",port="1"}'
STATE1='rdma_port_state{device="mlx5_1",port="1"}'

# --- 1. mlx5_1 hangs while the daemon runs
start_receiver
start_on_free_port launch ready || { not_ok "the exporter starts"; exit 1; }
first_pid=$PID
check "before the hang: mlx5_1 responsive" wait_sample "$RESP1" 1
check "READY=1 is sent" grep -q '^READY=1$' "$TMP/msgs"
touch "$GATE"
check "the hang: mlx5_1 is reported unresponsive" wait_sample "$RESP1" 0 10
slowest=0
stale=0
for _ in $(seq 1 12); do
	t=$(curl -s -o "$TMP/scrape" -w '%{time_total}' --max-time 10 "http://127.0.0.1:$PORT/metrics")
	ms=$(awk -v t="$t" 'BEGIN { printf "%d", t * 1000 }')
	[ "$ms" -gt "$slowest" ] && slowest=$ms
	age=$(poll_age)
	awk -v a="$age" 'BEGIN { exit !(a > 3) }' && stale=$((stale + 1))
	sleep 0.5
done
check "during the hang: every scrape answered within 1 s (slowest ${slowest}ms)" \
	test "$slowest" -lt 1000
check "during the hang: every scrape had a poll under 3 s old ($stale stale)" test "$stale" = 0
check "during the hang: mlx5_0's values are there" test "$(sample "$STATE0")" = 4
check "during the hang: mlx5_1's values are left out" test "$(sample "$STATE1")" = missing
check "during the hang: mlx5_1 is still unresponsive" test "$(sample "$RESP1")" = 0
check "during the hang: one reader thread blocked" \
	test "$(sample rdma_exporter_sysfs_blocked_readers)" = 1
n=$(grep -c 'read blocks' "$TMP/blockfs.log")
check "during the hang: one read blocked, never retried ($n in blockfs)" test "$n" = 1
check "during the hang: the collector succeeds" \
	test "$(sample 'rdma_exporter_collector_success{collector="sysfs"}')" = 1
gap=$(watchdog_gap)
check "WATCHDOG=1 never more than 2 s apart (longest gap ${gap}ms)" test "$gap" -lt 2000
check "the same process throughout (no restart, no crash)" kill -0 "$first_pid"
check "the hang is logged once, with the device and the deadline" \
	test "$(grep -cE 'msg="device does not answer: its reads block;.*device=mlx5_1 timeout_ms=[0-9]+$' "$TMP/log")" = 1
rm -f "$GATE"
check "released: mlx5_1 answers again by itself" wait_sample "$RESP1" 1 10
check "released: mlx5_1's values are back" wait_sample "$STATE1" 4
check "released: no reader blocked" wait_sample rdma_exporter_sysfs_blocked_readers 0
check "released: said once at info" grep -q 'level=info msg="device answers again" collector=sysfs device=mlx5_1 unresponsive_ms=' "$TMP/log"
gap=$(watchdog_gap)
check "WATCHDOG=1 never more than 2 s apart, to the end (longest gap ${gap}ms)" test "$gap" -lt 2000
check "still the same process" test "$PID" = "$first_pid"
stop_timed
check "SIGTERM exits 0 (got $RC)" test "$RC" = 0
wait "$RECV_PID" 2>/dev/null
RECV_PID=

# --- 2. mlx5_1 hangs before the start
touch "$GATE"
start_receiver
t0=$(now_ms)
if start_on_free_port launch ready; then
	took=$(($(now_ms) - t0))
	check "hung at start: the daemon serves within 5 s (${took}ms; the device deadline is about 500ms)" \
		test "$took" -lt 5000
	check "hung at start: the first poll gave up on mlx5_1 before listening" \
		awk '/msg="device does not answer/ { d = NR } /msg=listening/ { l = NR } END { exit !(d && l && d < l) }' \
		"$TMP/log"
	check "hung at start: mlx5_1 unresponsive in the first scrape" test "$(sample "$RESP1")" = 0
	check "hung at start: mlx5_0's values in the first scrape" test "$(sample "$STATE0")" = 4
	check "hung at start: READY=1 is sent" grep -q '^READY=1$' "$TMP/msgs"
	stop_timed
	check "SIGTERM while the read still blocks: exit 0 (got $RC) within 5 s (${MS}ms)" \
		test "$RC" = 0 -a "$MS" -lt 5000
else
	not_ok "hung at start: the daemon starts"
fi
wait "$RECV_PID" 2>/dev/null
RECV_PID=

# --- 3. check on the hung tree
"$BIN" check --path.sysfs="$MNT" --check.window=1s --no-collector.netlink \
	--no-collector.ethtool --no-collector.probe --check.state-file="$TMP/check-state" \
	>"$TMP/check.out" 2>"$TMP/check.err"
rc=$?
check "check with mlx5_1 hung: exit 1 (got $rc)" test "$rc" = 1
check "check names mlx5_1 as not answering" \
	grep -q '^FAIL    ports mlx5_1: the device does not answer' "$TMP/check.out"
check "check: mlx5_0's ports are judged as usual" grep -q '^OK      ports mlx5_0/1:' "$TMP/check.out"
rm -f "$GATE"

echo "hung-device: $pass passed, $fail failed"
[ "$fail" = 0 ] || { echo "last log:"; sed 's/^/# /' "$TMP/log"; cat "$TMP/check.out"; }
[ "$fail" = 0 ]
