# SPDX-License-Identifier: Apache-2.0
#
# probe-spin-b.sh - VM B (10.0.2.16) of tests/bench/probe-spin.sh (guest-lib.sh is
# prepended): an exporter with the defaults (the responder A probes), and ib_send_lat
# -c UD servers for A's clients, until A's "done" listener answers (or 480 s).
set -u
DEV=rxe0
A_IP=10.0.2.15
OUT=/mnt/host/out
URL=http://$A_IP:9870/metrics
mkdir -p "$OUT"
note "VM B, kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
rdma_exporter --web.listen-address=:9879 --no-collector.sysfs --no-collector.netlink \
    --no-collector.ethtool > "$OUT/exporter-b.log" 2>&1 &
EXP=$!
# One server per client run of A (each exits after its client), while A is not done.
( while :; do timeout 120 ib_send_lat -d $DEV -x 1 -c UD -n 1000 > /dev/null 2>&1 || sleep 0.2; done ) &
LOOP=$!
t0=$(uptime_s)
while ! scrape /tmp/done.txt "$URL" 2>/dev/null; do
    awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { exit !(b - a > 480) }' && break
    sleep 1
done
kill $LOOP 2>/dev/null
kill -TERM $EXP
wait $EXP
check "B's exporter ran and exited with status 0 ($?)" test $? = 0
echo "$pass passed, $fail failed"
[ $fail = 0 ]
