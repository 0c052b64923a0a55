# SPDX-License-Identifier: Apache-2.0
#
# guest-mesh-b.sh - VM B (10.0.2.16) of the two-VM pingmesh test (see guest-mesh-a.sh;
# vm-mesh.sh prepends guest-mesh-lib.sh). B probes A (target 10.0.2.15, peer="a"), then
# stops its exporter for ~10 s and starts it again with the same flags, so that A sees
# a peer go away and come back with a new QP number; then twice more for 30 s, while A
# probes with the defaults and with 1 s / 500 ms (A's phase 6). B coordinates with A
# through A's /metrics only: it stops once A has counted replies from B (in the
# scenario A names with a label of B's target), and it ends when A's exporter stops
# answering (A stops it last).
#
# Files written to /mnt/host/out/ (vm-mesh.sh: peer/): exporter-1.log (before the
# first restart), exporter-2.log, exporter-defaults.log, exporter-fast.log (after each
# restart), scrape-*.txt.

LA="device=\"$DEV\",port=\"$PORT\",target=\"$A_IP\",peer=\"a\""
LAB="device=\"$DEV\",port=\"$PORT\",target=\"$B_IP\",peer=\"b\""    # A's series for us
A_URL=http://$A_IP:$HTTP_PORT/metrics
RL="device=\"$DEV\",port=\"$PORT\""
WAIT_FOR_A=600          # seconds B waits, at most, for A's exporter to stop

note "VM B ($B_IP), uptime at start: $(uptime_s)s, kernel $(uname -r)"
echo '[{"targets":["10.0.2.15"],"labels":{"peer":"a"}}]' > "$TARGETS"
check "rdma_exporter is on PATH" command -v rdma_exporter > /dev/null
T_START=$(uptime_s)
start_exporter "$OUT/exporter-1.log"
check "exporter serves $URL with the targets file (pid $EXP)" kill -0 "$EXP"

############################################################################
# 1. The mesh: A answers
############################################################################
t0=$(uptime_s)
wait_value 120 "$OUT/scrape-up.txt" rdma_probe_replies_total "$LA" ge 3
check "B->A: at least 3 replies from $A_IP within 120 s ($(since "$t0") s; $(counts "$LA"))" \
    num_ge "$(value rdma_probe_replies_total "$LA")" 3
check_peer "B->A" "$LA"
check_value rdma_probe_targets "" 1
check_value rdma_probe_targets_file_reload_success "" 1
check_loopback

############################################################################
# 2. Stop and start again, once A has counted at least 3 replies from us (A takes its
#    baseline then; 3 s of margin for its next scrape)
############################################################################
t0=$(uptime_s)
wait_value 120 /tmp/a-up.txt rdma_probe_replies_total "$LAB" ge 3 "$A_URL"
check "A's /metrics shows at least 3 replies from B ($(since "$t0") s; $(counts "$LAB"))" \
    num_ge "$(value rdma_probe_replies_total "$LAB")" 3
sleep 3
note "stopping the exporter at $(since "$T_START") s, for 10 s"
check "no sanitizer report in exporter-1.log" sanitizer_clean "$OUT/exporter-1.log"
stop_exporter "$OUT/exporter-1.log"
sleep 10
start_exporter "$OUT/exporter-2.log"
check "exporter restarted with the same flags (pid $EXP)" kill -0 "$EXP"
t0=$(uptime_s)
wait_value 90 "$OUT/scrape-restarted.txt" rdma_probe_replies_total "$LA" gt 0
check "B->A: replies resume after the restart ($(since "$t0") s; $(counts "$LA"))" \
    num_gt "$(value rdma_probe_replies_total "$LA")" 0
# A finds our new QP through discovery (its first query after our restart is answered)
t0=$(uptime_s)
wait_value 120 "$OUT/scrape-restarted-discovery.txt" rdma_probe_discovery_requests_total "" gt 0
v=$(value rdma_probe_discovery_requests_total "")
check "discovery: A asked the restarted exporter for its QP (rdma_probe_discovery_requests_total ${v:-<absent>}, $(since "$t0") s)" \
    num_gt "$v" 0
note "phase 2 (stop and restart) done at $(since "$T_START") s"

############################################################################
# 2b. Two more restarts, 30 s each, while A probes with the defaults, then with
#     1 s / 500 ms (A labels our target scenario="defaults", then "fast")
############################################################################
cur_log=$OUT/exporter-2.log
for tag in defaults fast; do
    t0=$(uptime_s)
    wait_value 400 /tmp/a-$tag.txt rdma_probe_replies_total "$LAB,scenario=\"$tag\"" ge 3 "$A_URL"
    check "$tag: A's /metrics shows at least 3 replies from B ($(since "$t0") s; $(counts \
        "$LAB,scenario=\"$tag\""))" num_ge "$(value rdma_probe_replies_total "$LAB,scenario=\"$tag\"")" 3
    sleep 3
    note "$tag: stopping the exporter at $(since "$T_START") s, for 30 s"
    check "no sanitizer report in ${cur_log##*/}" sanitizer_clean "$cur_log"
    stop_exporter "$cur_log"
    sleep 30
    cur_log=$OUT/exporter-$tag.log
    start_exporter "$cur_log"
    check "$tag: exporter restarted with the same flags (pid $EXP)" kill -0 "$EXP"
    t0=$(uptime_s)
    wait_value 90 "$OUT/scrape-restarted-$tag.txt" rdma_probe_replies_total "$LA" gt 0
    check "$tag: B->A: replies after the restart ($(since "$t0") s; $(counts "$LA"))" \
        num_gt "$(value rdma_probe_replies_total "$LA")" 0
done
note "phase 2b (restarts under A's defaults and 1 s / 500 ms) done at $(since "$T_START") s"

############################################################################
# 3. Wait for A to finish (its exporter stops answering), then a last look
############################################################################
# A TCP connect is enough: refused once A's exporter is gone, timed out once A's VM is off.
a_listens() { timeout 5 bash -c "exec 3<>/dev/tcp/$A_IP/$HTTP_PORT" 2>/dev/null; }
t0=$(uptime_s)
a_gone=0
while awk -v a="$t0" -v b="$(uptime_s)" -v s=$WAIT_FOR_A 'BEGIN { exit !(b - a < s) }'; do
    if ! a_listens && ! { sleep 0.5; a_listens; }; then
        a_gone=1
        break
    fi
    sleep 2
done
check "A's exporter stopped answering (after $(since "$t0") s, at most $WAIT_FOR_A s)" test $a_gone = 1
scrape_and_normalize "$OUT/scrape-final.txt"
check_peer "B->A at the end" "$LA"
check_loopback
check_value rdma_probe_targets "" 1
# A's injection happens on A only: nothing malformed or over the rate limit here.
# (unexpected is not checked: a reply that comes after its probe's timeout counts there)
for reason in malformed ratelimit; do
    v=$(value rdma_probe_responder_dropped_total "$RL,reason=\"$reason\"")
    check "responder: dropped{reason=\"$reason\"} is 0 on B (got ${v:-<absent>})" test "${v:-0}" = 0
done
check "no error-level log line" test -z "$(grep -h 'level=error' "$OUT"/exporter-*.log)"
check "no sanitizer report in exporter-fast.log" sanitizer_clean "$OUT/exporter-fast.log"
stop_exporter "$OUT/exporter-fast.log"
if [ $fail != 0 ]; then
    note "last lines of exporter-fast.log:"
    tail -30 "$OUT/exporter-fast.log" | sed 's/^/#   /'
fi
note "VM B: $(since "$T_START") s since the first exporter started"
finish
