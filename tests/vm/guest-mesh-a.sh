# SPDX-License-Identifier: Apache-2.0
#
# guest-mesh-a.sh - VM A (10.0.2.15) of the two-VM pingmesh test; VM B (10.0.2.16) runs
# guest-mesh-b.sh at the same time, their eth0s cabled, rxe0 on each. vm-mesh.sh prepends
# guest-mesh-lib.sh (the helpers) and runs both. The two scripts share no files: each
# polls the other's /metrics over HTTP.
#
#   1. A probes B (target 10.0.2.16, labels peer="b") and a host that does not exist
#      (10.0.2.99:9879, peer="nowhere"): replies from B, resolve errors only for nowhere.
#   2. B stops its exporter for ~10 s and starts it again (new QP number): A's timeouts
#      for B rise, A re-resolves B (after 3 unanswered probes) and replies resume.
#   3. Hostile input to A's own responder with probe_inject: garbage, a short packet, a
#      bad version (malformed), an unsolicited reply (unexpected), a flood of 3000
#      requests (ratelimit); a garbage UDP datagram to the discovery port (malformed).
#   4. The targets file: a malformed file keeps the previous targets (reload_success 0,
#      one error line), the good file comes back (1), an edit is re-read on its own,
#      SIGHUP re-reads the unchanged file.
#   5. A stops its first exporter (SIGTERM, status 0).
#   6. B restarts under A's other probe settings: A starts its exporter again with the
#      defaults (10 s, 5 probes, 1 s), then with --collector.probe.interval=1s
#      --collector.probe.timeout=500ms (count x timeout over the interval), each time
#      with a targets file whose labels name the scenario (and, for the defaults,
#      file_sd labels that are dropped: job, __meta_*); B stops its exporter for 30 s
#      once it sees replies in that scenario on A's /metrics, and starts it again (new
#      QP number). A's replies from B must resume within the bound docs/pingmesh.md
#      states, counted from B's /metrics serving again. Then A stops: B takes that as
#      the end of the test.
#
# Files written to /mnt/host/out/: exporter.log, exporter-defaults.log,
# exporter-fast.log, scrape-*.txt (promtool-checked by vm-mesh.sh), rdma-res-qp.txt (the
# QP table injection used).

LB="device=\"$DEV\",port=\"$PORT\",target=\"$B_IP\",peer=\"b\""
NOWHERE=10.0.2.99:9879
LN="device=\"$DEV\",port=\"$PORT\",target=\"$NOWHERE\",peer=\"nowhere\""
RL="device=\"$DEV\",port=\"$PORT\""           # the responder's series
LOG=$OUT/exporter.log
GOOD='[{"targets":["10.0.2.16"],"labels":{"peer":"b"}},{"targets":["10.0.2.99:9879"],"labels":{"peer":"nowhere"}}]'

note "VM A ($A_IP), uptime at start: $(uptime_s)s, kernel $(uname -r)"
echo "$GOOD" > "$TARGETS"
check "rdma_exporter is on PATH" command -v rdma_exporter > /dev/null
T_START=$(uptime_s)
start_exporter "$LOG"
check "exporter serves $URL with the targets file (pid $EXP)" kill -0 "$EXP"

############################################################################
# 1. The mesh: B answers, 10.0.2.99 does not exist
############################################################################
t0=$(uptime_s)
wait_value 120 "$OUT/scrape-up.txt" rdma_probe_replies_total "$LB" ge 3
check "A->B: at least 3 replies from $B_IP within 120 s ($(since "$t0") s; $(counts "$LB"))" \
    num_ge "$(value rdma_probe_replies_total "$LB")" 3
# B stops its exporter 3 s after it sees these replies on our /metrics: this is the
# baseline of the stop/restart phase.
base_tmo=$(value rdma_probe_timeouts_total "$LB")
base_tmo=${base_tmo:-0}
base_res=$(value rdma_probe_errors_total "$LB,reason=\"resolve\"")
base_res=${base_res:-0}
check_peer "A->B" "$LB"
check "A->B: labels in the order device, port, target, then the file's (scrape-up.txt)" \
    grep -qF "rdma_probe_replies_total{device=\"$DEV\",port=\"$PORT\",target=\"$B_IP\",peer=\"b\"} " \
    "$OUT/scrape-up.txt"
check_value rdma_probe_targets "" 2
check_value rdma_probe_targets_file_reload_success "" 1
check_loopback
v=$(value rdma_probe_responder_requests_total "$RL")
check "responder: rdma_probe_responder_requests_total{$RL} > 0 (got ${v:-<absent>})" num_gt "$v" 0
# B may have got our replies before it asked for our QP itself: give it time.
wait_value 30 "$OUT/scrape-discovery.txt" rdma_probe_discovery_requests_total "" gt 0
v=$(value rdma_probe_discovery_requests_total "")
check "discovery: rdma_probe_discovery_requests_total > 0, B asked for our QP (got ${v:-<absent>})" \
    num_gt "$v" 0
wait_value 30 "$OUT/scrape-nowhere.txt" rdma_probe_errors_total "$LN,reason=\"resolve\"" gt 0
v=$(value rdma_probe_errors_total "$LN,reason=\"resolve\"")
check "nowhere: rdma_probe_errors_total{$LN,reason=\"resolve\"} > 0 (got ${v:-<absent>})" num_gt "$v" 0
v=$(value rdma_probe_sent_total "$LN")
check "nowhere: nothing sent to $NOWHERE (rdma_probe_sent_total ${v:-<absent>})" \
    test "${v:-0}" = 0
check "exporter alive after probing a host that does not exist" kill -0 "$EXP"
note "phase 1 (mesh up) done at $(since "$T_START") s"

############################################################################
# 2. B stops for ~10 s and comes back with a new QP
############################################################################
t0=$(uptime_s)
wait_value 90 "$OUT/scrape-b-down.txt" rdma_probe_timeouts_total "$LB" ge $((base_tmo + 3))
check "A->B: timeouts rise while B is down (from $base_tmo; $(since "$t0") s; $(counts "$LB"))" \
    num_ge "$(value rdma_probe_timeouts_total "$LB")" $((base_tmo + 3))
down_repl=$(value rdma_probe_replies_total "$LB")
down_repl=${down_repl:-0}
t0=$(uptime_s)
wait_value 120 "$OUT/scrape-b-back.txt" rdma_probe_replies_total "$LB" gt "$down_repl"
check "A->B: replies resume after B's restart (from $down_repl; $(since "$t0") s; $(counts "$LB"))" \
    num_gt "$(value rdma_probe_replies_total "$LB")" "$down_repl"
v=$(value rdma_probe_errors_total "$LB,reason=\"resolve\"")
check "A->B: B was re-resolved: resolve errors while it was down ($base_res -> ${v:-<absent>})" \
    num_gt "$v" "$base_res"
check "A->B: 0 <= sent - replies - timeouts <= 1 after the restart ($(counts "$LB"))" \
    in_flight_ok "$LB"
# 10.0.2.99 has been retried with a doubling backoff all along, not every 1 s round
el=$(since "$T_START")
v=$(value rdma_probe_errors_total "$LN,reason=\"resolve\"")
check "nowhere: resolve retried with backoff (${v:-<absent>} errors in $el s of 1 s rounds, want < half)" \
    awk -v e="$v" -v t="$el" 'BEGIN { exit !(e != "" && e > 0 && e < t / 2) }'
note "phase 2 (B stopped and restarted) done at $(since "$T_START") s"

############################################################################
# 3. Hostile input to our own responder (loopback on rxe0) and discovery port
############################################################################
if ! command -v probe_inject > /dev/null; then
    note "probe_inject is not in the guest: injection checks skipped"
else
    rdma res show qp > "$OUT/rdma-res-qp.txt" 2>&1
    # "link rxe0/1 lqpn 17 type UD state RTS sq-psn 0 comm rdma_exporter"
    qpns=$(awk -v link="$DEV/$PORT" '
        { delete f; for (i = 1; i < NF; i++) f[$i] = $(i + 1) }
        f["link"] == link && f["type"] == "UD" && f["comm"] == "rdma_exporter" { print f["lqpn"] }' \
        "$OUT/rdma-res-qp.txt")
    QPN=$(echo "$qpns" | head -1)
    check "the exporter's UD QP on $DEV/$PORT in rdma res show qp (lqpn ${QPN:-none})" \
        test -n "$QPN"
    [ "$(echo "$qpns" | wc -w)" -le 1 ] || note "several UD QPs of rdma_exporter: $(echo "$qpns" | tr '\n' ' ')using $QPN"
    inject() {          # inject KIND [N]
        local out rc
        out=$(timeout 60 probe_inject "$DEV" "$PORT" "$A_IP" "$QPN" "$@" 2>&1)
        rc=$?
        check "probe_inject $* exits 0 (rc=$rc): $(echo "$out" | tail -1)" test $rc = 0
    }
    scrape_and_normalize "$OUT/scrape-inject-before.txt"
    mal=$(value rdma_probe_responder_dropped_total "$RL,reason=\"malformed\"")
    mal=${mal:-0}
    if [ -n "$QPN" ]; then
        inject garbage
        inject short
        inject badversion
        wait_value 15 "$OUT/scrape-inject-malformed.txt" rdma_probe_responder_dropped_total \
            "$RL,reason=\"malformed\"" ge $((mal + 3))
        v=$(value rdma_probe_responder_dropped_total "$RL,reason=\"malformed\"")
        check "responder: dropped{reason=\"malformed\"} grows by 3 ($mal -> ${v:-<absent>})" \
            num_eq "$v" $((mal + 3))

        unx=$(value rdma_probe_responder_dropped_total "$RL,reason=\"unexpected\"")
        unx=${unx:-0}
        inject reply
        wait_value 15 "$OUT/scrape-inject-unexpected.txt" rdma_probe_responder_dropped_total \
            "$RL,reason=\"unexpected\"" ge $((unx + 1))
        v=$(value rdma_probe_responder_dropped_total "$RL,reason=\"unexpected\"")
        # (>=: a genuine reply that came after its probe's timeout counts here too)
        check "responder: dropped{reason=\"unexpected\"} grows ($unx -> ${v:-<absent>})" \
            num_ge "$v" $((unx + 1))

        req=$(value rdma_probe_responder_requests_total "$RL")
        req=${req:-0}
        rl=$(value rdma_probe_responder_dropped_total "$RL,reason=\"ratelimit\"")
        rl=${rl:-0}
        inject request 3000
        wait_value 20 "$OUT/scrape-inject-flood.txt" rdma_probe_responder_dropped_total \
            "$RL,reason=\"ratelimit\"" gt "$rl"
        v=$(value rdma_probe_responder_requests_total "$RL")
        check "responder: requests grow under a flood of 3000 ($req -> ${v:-<absent>})" \
            num_gt "$v" "$req"
        v=$(value rdma_probe_responder_dropped_total "$RL,reason=\"ratelimit\"")
        check "responder: dropped{reason=\"ratelimit\"} > 0 after the flood ($rl -> ${v:-<absent>})" \
            num_gt "$v" "$rl"
        note "flood: requests $req -> $(value rdma_probe_responder_requests_total "$RL")," \
            "ratelimit $rl -> $v, send $(value rdma_probe_responder_dropped_total "$RL,reason=\"send\"")"
    fi
fi
dmal=$(value rdma_probe_discovery_dropped_total 'reason="malformed"')
dmal=${dmal:-0}
# the sideband listens on the RDMA netdev's address only (never 127.0.0.1)
printf 'not a discovery query' > /dev/udp/$A_IP/$HTTP_PORT
wait_value 10 "$OUT/scrape-inject-udp.txt" rdma_probe_discovery_dropped_total 'reason="malformed"' \
    ge $((dmal + 1))
v=$(value rdma_probe_discovery_dropped_total 'reason="malformed"')
check "discovery: dropped{reason=\"malformed\"} grows by 1 after a garbage datagram ($dmal -> ${v:-<absent>})" \
    num_eq "$v" $((dmal + 1))
check "exporter alive after the hostile input" kill -0 "$EXP"
check "exporter still serves /metrics" scrape /tmp/alive.txt
note "phase 3 (injection) done at $(since "$T_START") s"

############################################################################
# 4. Reloading the targets file
############################################################################
# Each rewrite gets a later mtime, one second apart at least, so that a change is seen
# whether the exporter compares seconds or nanoseconds, or only looks for a later one.
# The file is written beside and renamed into place with its mtime already set: the
# exporter sees one change per rewrite, never a half-written file or a second mtime.
MT=$(date +%s)
put_targets() { # put_targets CONTENT
    local now
    now=$(date +%s)
    MT=$((MT + 2))
    [ $MT -gt "$now" ] || MT=$((now + 1))
    printf '%s' "$1" > "$TARGETS.new"
    touch -d "@$MT" "$TARGETS.new"
    mv -f "$TARGETS.new" "$TARGETS"
    [ "$(stat -c %Y "$TARGETS")" = $MT ] || note "touch -d @$MT did not set the mtime of $TARGETS"
}
errors_logged() { grep 'level=error' "$LOG" | grep -c 'targets-file'; }
nerr=$(errors_logged)
put_targets '[{"targets":["10.0.2.16"],"labels":{"peer":"b"}},{"targets":'
wait_value 15 "$OUT/scrape-reload-bad.txt" rdma_probe_targets_file_reload_success "" eq 0
check_value rdma_probe_targets_file_reload_success "" 0
check_value rdma_probe_targets "" 2
v=$(value rdma_probe_replies_total "$LB")
sleep 3                 # three more mtime checks: the same bad file is not logged again
wait_value 10 "$OUT/scrape-reload-bad2.txt" rdma_probe_replies_total "$LB" gt "${v:-0}"
check "a bad file keeps the previous targets: probes to B go on ($(counts "$LB"))" \
    num_gt "$(value rdma_probe_replies_total "$LB")" "${v:-0}"
check "one error line containing targets-file for the bad file ($nerr -> $(errors_logged))" \
    test "$(errors_logged)" = $((nerr + 1))
grep 'level=error' "$LOG" | grep 'targets-file' | tail -1 | sed 's/^/#   /'

put_targets "$GOOD"
wait_value 15 "$OUT/scrape-reload-good.txt" rdma_probe_targets_file_reload_success "" eq 1
check_value rdma_probe_targets_file_reload_success "" 1
check_value rdma_probe_targets "" 2

# An edit is re-read without a signal (a new mtime, ctime and size): one group fewer
one='[{"targets":["10.0.2.16"],"labels":{"peer":"b"}}]'
put_targets "$one"
wait_value 15 "$OUT/scrape-reload-edit.txt" rdma_probe_targets "" eq 1
check_value rdma_probe_targets "" 1
check_value rdma_probe_targets_file_reload_success "" 1

# SIGHUP re-reads the file even when nothing changed: one more load logged (the
# exporter logs every load of the file at info), the same targets
loads_logged() { grep 'level=info' "$LOG" | grep -c 'targets-file'; }
nload=$(loads_logged)
kill -HUP "$EXP"
for _ in $(seq 1 30); do [ "$(loads_logged)" -gt "$nload" ] && break; sleep 0.5; done
check "SIGHUP re-reads the unchanged targets file (info lines with targets-file: $nload -> $(loads_logged))" \
    test "$(loads_logged)" = $((nload + 1))
grep 'level=info' "$LOG" | grep 'targets-file' | tail -1 | sed 's/^/#   /'
scrape_and_normalize "$OUT/scrape-reload-sighup.txt"
check_value rdma_probe_targets "" 1
check_value rdma_probe_targets_file_reload_success "" 1
check "exporter alive after SIGHUP" kill -0 "$EXP"
note "phase 4 (reload) done at $(since "$T_START") s"

############################################################################
# 5. The end: a last look, then stop (B waits for our /metrics to go away)
############################################################################
scrape_and_normalize "$OUT/scrape-final.txt"
check_peer "A->B at the end" "$LB"
check_loopback
check "no error-level log line except the bad targets file's" \
    test -z "$(grep 'level=error' "$LOG" | grep -v 'targets-file')"
check "no sanitizer report in exporter.log" sanitizer_clean "$LOG"
stop_exporter "$LOG"
if [ $fail != 0 ]; then
    note "last lines of exporter.log:"
    tail -30 "$LOG" | sed 's/^/#   /'
fi
note "phase 5 (first exporter stopped) done at $(since "$T_START") s"

############################################################################
# 6. B restarts while A probes it with the defaults, then with 1 s / 500 ms
############################################################################
B_URL=http://$B_IP:$HTTP_PORT/metrics
b_serves() { scrape /tmp/b.txt "$B_URL" 2>/dev/null; }
# wait_b UP|DOWN SECONDS: until B's /metrics serves (UP) or not (DOWN); 0 when it did
wait_b() {
    local t0
    t0=$(uptime_s)
    while :; do
        if b_serves; then [ "$1" = UP ] && return 0; else [ "$1" = DOWN ] && return 0; fi
        awk -v a="$t0" -v b="$(uptime_s)" -v s="$2" 'BEGIN { exit !(b - a >= s) }' && return 1
        sleep 0.5
    done
}
# restart_scenario TAG BOUND_S LABELS_JSON FLAGS...: A probes B with FLAGS; B (watching
# for replies with scenario="TAG" on our /metrics) stops for 30 s and starts again.
restart_scenario() {
    local tag=$1 bound=$2 labels=$3 log t0 t_up el v down_repl res0 ls
    log=$OUT/exporter-$tag.log
    ls="device=\"$DEV\",port=\"$PORT\",target=\"$B_IP\",peer=\"b\",scenario=\"$tag\""
    shift 3
    echo "[{\"targets\":[\"$B_IP\"],\"labels\":$labels}]" > "$TARGETS"
    EXPORTER_FLAGS=("--web.listen-address=:$HTTP_PORT" --poll.interval=1s --log.level=debug
        "--collector.probe.targets-file=$TARGETS" "$@")
    start_exporter "$log"
    check "$tag: exporter serves $URL with ${*:-the default probe flags} (pid $EXP)" kill -0 "$EXP"
    t0=$(uptime_s)
    wait_value 120 "$OUT/scrape-$tag-up.txt" rdma_probe_replies_total "$ls" ge 3
    check "$tag: at least 3 replies from B ($(since "$t0") s; $(counts "$ls"))" \
        num_ge "$(value rdma_probe_replies_total "$ls")" 3
    res0=$(value rdma_probe_errors_total "$ls,reason=\"resolve\"")
    wait_b DOWN 60
    check "$tag: B's exporter stopped (its /metrics gone)" test $? = 0
    wait_value 60 "$OUT/scrape-$tag-b-down.txt" rdma_probe_errors_total \
        "$ls,reason=\"resolve\"" gt "${res0:-0}"
    check "$tag: A asked B again while it was down (resolve errors ${res0:-0} -> $(value \
        rdma_probe_errors_total "$ls,reason=\"resolve\""); $(counts "$ls"))" \
        num_gt "$(value rdma_probe_errors_total "$ls,reason=\"resolve\"")" "${res0:-0}"
    down_repl=$(value rdma_probe_replies_total "$ls")
    wait_b UP 90
    check "$tag: B's exporter is back (its /metrics serves)" test $? = 0
    t_up=$(uptime_s)
    wait_value $((bound + 20)) "$OUT/scrape-$tag-b-back.txt" rdma_probe_replies_total "$ls" \
        gt "${down_repl:-0}"
    el=$(since "$t_up")
    v=$(value rdma_probe_replies_total "$ls")
    # 5 s of slack: B's HTTP listener comes up before its probe port, and we poll every 0.5 s
    check "$tag: replies from the restarted B within the bound, $bound s (after $el s; $(counts "$ls"))" \
        awk -v v="$v" -v d="${down_repl:-0}" -v e="$el" -v b="$bound" \
        'BEGIN { exit !(v != "" && v > d && e <= b + 5) }'
    note "benchmark: $tag: B answered again $el s after its /metrics came back (bound $bound s)"
    if [ "$tag" = defaults ]; then
        # at default flags the text has no per-target timeouts (issue 40): sent less
        # replies tells them, and the rules read those two
        check "$tag: replies <= sent after the restart ($(counts "$ls"))" \
            awk -v s="$(value rdma_probe_sent_total "$ls")" -v r="$v" \
            'BEGIN { exit !(s != "" && r != "" && r + 0 <= s + 0) }'
    else
        check "$tag: 0 <= sent - replies - timeouts <= 1 after the restart ($(counts "$ls"))" \
            in_flight_ok "$ls"
    fi
    check "$tag: no sanitizer report in ${log##*/}" sanitizer_clean "$log"
}
# The defaults' bound: max(3 t + 4 s, t + max(interval, 60 s) + s), t 1 s, s 10 s / 5: 63 s
restart_scenario defaults 63 \
    '{"peer":"b","scenario":"defaults","job":"rdma","instance":"b:9879","__meta_sd":"x"}'
check "defaults: file_sd labels job, instance, __meta_* dropped from the probe series" \
    test -z "$(grep -E '^rdma_probe_[a-z_]+\{[^}]*(job|instance|__meta_sd)=' \
        "$OUT/scrape-defaults-up.txt")"
# The text exposition at default flags (issue 40): per target sent, replies and the sum of
# the round trips; its RTT histogram, its timeouts and the port's network RTT and wake-up
# requests only with --collector.probe.target-detail (phases 1-5 run with it).
check "defaults: rdma_probe_round_trip_seconds_total{$B_IP} is in the text" \
    grep -qE "^rdma_probe_round_trip_seconds_total\{[^}]*target=\"$B_IP\"" "$OUT/scrape-defaults-up.txt"
check "defaults: no per-target RTT histogram, timeouts, network RTT or wake-up requests in the text" \
    test -z "$(grep -E '^rdma_probe_(rtt_seconds|network_rtt_seconds|timeouts_total|port_network_rtt_seconds|wakeup_requests_total)[_{]' \
        "$OUT/scrape-defaults-up.txt")"
check "defaults: one warning line for the dropped labels" \
    test "$(grep 'level=warn' "$OUT/exporter-defaults.log" | grep -c 'labels dropped')" = 1
stop_exporter "$OUT/exporter-defaults.log"
# 1 s, 5, 500 ms: t + 60 s + s = 60.7 s
restart_scenario fast 61 '{"peer":"b","scenario":"fast"}' \
    --collector.probe.interval=1s --collector.probe.timeout=500ms --collector.probe.target-detail
check "no error-level log line in the scenarios' logs" \
    test -z "$(grep -h 'level=error' "$OUT/exporter-defaults.log" "$OUT/exporter-fast.log")"
stop_exporter "$OUT/exporter-fast.log"
note "phase 6 (restarts under the defaults and 1 s / 500 ms) done at $(since "$T_START") s"
note "VM A: $(since "$T_START") s since the exporter started"
finish
