#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# fifo.sh BINARY - a FIFO at every attribute and counter path of a sysfs tree (a wrong
# --path.sysfs or a bind mount can have one; real sysfs has none) must never block the
# daemon: it starts, answers /healthz and scrapes at once, counts the unreadable files,
# and exits promptly on SIGTERM. Every file is opened with O_NONBLOCK and checked to be a
# regular file before a read (src/base/fileio.c). The same with a FIFO as the probe
# collector's targets file.
set -uo pipefail
BIN=$(readlink -f "$1")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
. "$SRC/tests/include/tap.sh"

cp -a "$SRC/tests/fixtures/sysfs/mlx5-roce" "$TMP/sys"
# Every regular file under the devices' directories becomes a FIFO (nobody ever writes
# to it, so a blocking open or read would wait forever).
n=0
while IFS= read -r -d '' f; do
    rm -f "$f" && mkfifo "$f" && n=$((n + 1))
done < <(find "$TMP/sys/devices" -type f -print0)
[ "$n" -gt 50 ] && ok "$n attribute and counter files replaced by FIFOs" || not_ok "only $n FIFOs made"
mkfifo "$TMP/targets.json"

for _ in 1 2 3 4 5; do
    PORT=$(free_port)
    timeout 60 "$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$TMP/sys" \
        --poll.interval=200ms --no-collector.netlink --no-collector.ethtool \
        --collector.probe.targets-file="$TMP/targets.json" --no-collector.probe.responder \
        > "$TMP/log" 2>&1 &
    PID=$!
    up=0
    end=$((SECONDS + 10))
    while [ $SECONDS -lt $end ]; do
        curl -fsS -m 1 -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && { up=1; break; }
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.05
    done
    [ $up = 1 ] && break
    kill -9 "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; PID=""
    grep -q "cannot listen" "$TMP/log" || break
done
[ "${up:-0}" = 1 ] && ok "starts and answers /healthz within 10 s" || { not_ok "did not start"; cat "$TMP/log"; exit 1; }

sleep 1 # several polls over the FIFOs
t0=$(date +%s%N)
if curl -fsS -m 5 -o "$TMP/scrape.txt" "http://127.0.0.1:$PORT/metrics"; then
    ok "scrape answered in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
else
    not_ok "scrape failed or timed out"
fi
polls=$(awk '/^rdma_exporter_polls_total / { print $2 }' "$TMP/scrape.txt")
[ "${polls:-0}" -ge 2 ] && ok "the poller goes on: rdma_exporter_polls_total=$polls" ||
    not_ok "the poller is stuck: rdma_exporter_polls_total='$polls'"
errs=$(awk '/^rdma_exporter_collector_read_errors_total\{collector="sysfs"\}/ { print $2 }' "$TMP/scrape.txt")
[ "${errs:-0}" -gt 0 ] && ok "unreadable files are counted: read_errors_total{collector=\"sysfs\"}=$errs" ||
    not_ok "no read errors counted for FIFOs (got '$errs')"
grep -q 'rdma_probe_targets_file_reload_success 0' "$TMP/scrape.txt" &&
    ok "a FIFO as the targets file is refused, not waited on" || not_ok "targets file FIFO not refused"

t0=$(date +%s%N)
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=""
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $rc = 0 ] && [ $ms -lt 5000 ] && ok "SIGTERM: exit 0 in $ms ms" || not_ok "SIGTERM: rc $rc after $ms ms"

echo "fifo: $fail failed"
[ $fail = 0 ]
