# SPDX-License-Identifier: Apache-2.0
#
# guest-mesh-lib.sh - helpers of the two-VM pingmesh test (guest-mesh-a.sh on VM A,
# guest-mesh-b.sh on VM B). Not run on its own: vm-mesh.sh prepends it to each guest
# script, after guest-lib.sh (the scrape, normalize and value helpers it shares with
# guest-e2e.sh); a guest receives one script file and nothing else from the host.
set -u

DEV=rxe0
PORT=1
OUT=/mnt/host/out
A_IP=10.0.2.15
B_IP=10.0.2.16
HTTP_PORT=9879                 # HTTP /metrics on TCP, the discovery sideband on UDP
URL=http://127.0.0.1:$HTTP_PORT/metrics
TARGETS=/tmp/targets.json
NORM=/tmp/scrape.norm
# The exporter's flags, the same on both VMs and across B's restart. Rounds every
# second, three probes each, 300 ms to answer (a TCG round trip is about 1 ms). The
# checks read each target's timeouts and RTT histogram, which the text has only with
# --collector.probe.target-detail since issue 40 (phase 6 checks the defaults without it).
EXPORTER_FLAGS=("--web.listen-address=:$HTTP_PORT" --poll.interval=1s --log.level=debug
    --collector.probe.interval=1s --collector.probe.count=3 --collector.probe.timeout=300ms
    --collector.probe.target-detail "--collector.probe.targets-file=$TARGETS")
mkdir -p "$OUT"
: > "$NORM"

scrape_and_normalize() {   # scrape_and_normalize FILE [URL]: into $NORM (emptied on failure)
    if scrape "$1" "${2:-$URL}"; then
        normalize < "$1" > "$NORM"
    else
        : > "$NORM"
        return 1
    fi
}
# wait_value SECONDS FILE NAME LABELS OP BOUND [URL]: scrapes (URL, default ours) into
# FILE every 0.5 s until value OP BOUND holds (OP: gt, ge, eq); 0 when it did, 1 after
# SECONDS. $NORM holds the last scrape.
wait_value() {
    local secs=$1 file=$2 name=$3 labels=$4 op=$5 bound=$6 url=${7:-$URL} t0
    t0=$(uptime_s)
    while :; do
        scrape_and_normalize "$file" "$url" && "num_$op" "$(value "$name" "$labels")" "$bound" &&
            return 0
        awk -v a="$t0" -v b="$(uptime_s)" -v s="$secs" 'BEGIN { exit !(b - a >= s) }' && return 1
        sleep 0.5
    done
}

############################################################################
# Checks shared by both VMs
############################################################################
# in_flight_ok LABELS: 0 <= sent - replies - timeouts <= 1 (one probe may be in flight)
in_flight_ok() {
    awk -v s="$(value rdma_probe_sent_total "$1")" -v r="$(value rdma_probe_replies_total "$1")" \
        -v t="$(value rdma_probe_timeouts_total "$1")" \
        'BEGIN { d = s - r - t; exit !(s != "" && r != "" && t != "" && d >= 0 && d <= 1) }'
}
counts() {              # counts LABELS: "sent S replies R timeouts T" from $NORM
    echo "sent $(value rdma_probe_sent_total "$1") replies $(value rdma_probe_replies_total "$1")" \
        "timeouts $(value rdma_probe_timeouts_total "$1")"
}
# check_peer WHAT LABELS: the probe series of a live peer target, from $NORM
check_peer() {
    local what=$1 l=$2 v
    v=$(value rdma_probe_replies_total "$l")
    check "$what: rdma_probe_replies_total{$l} > 0 (got ${v:-<absent>})" num_gt "$v" 0
    v=$(value rdma_probe_rtt_seconds_count "$l")
    check "$what: rdma_probe_rtt_seconds_count{$l} > 0 (got ${v:-<absent>})" num_gt "$v" 0
    v=$(value rdma_probe_rtt_seconds_bucket "$l,le=\"+Inf\"")
    check "$what: rdma_probe_rtt_seconds_bucket{le=\"+Inf\"} equals _count (${v:-<absent>})" \
        num_eq "$v" "$(value rdma_probe_rtt_seconds_count "$l")"
    # the classic buckets are behind --collector.probe.target-histograms: the port's histogram
    v=$(value rdma_probe_port_rtt_seconds_count "device=\"$DEV\",port=\"$PORT\"")
    check "$what: rdma_probe_port_rtt_seconds_count > 0 (got ${v:-<absent>})" num_gt "$v" 0
    check "$what: 0 <= sent - replies - timeouts <= 1 ($(counts "$l"))" in_flight_ok "$l"
}
# check_loopback: the loopback probe still runs next to the mesh
check_loopback() {
    local l="device=\"$DEV\",port=\"$PORT\",target=\"loopback\"" v
    v=$(value rdma_probe_replies_total "$l")
    check "loopback: rdma_probe_replies_total{$l} > 0 (got ${v:-<absent>})" num_gt "$v" 0
    check "loopback: 0 <= sent - replies - timeouts <= 1 ($(counts "$l"))" in_flight_ok "$l"
}

############################################################################
# The exporter
############################################################################
EXP=""
# start_exporter LOG: starts rdma_exporter with EXPORTER_FLAGS (output to LOG) and
# waits until it serves /metrics; sets EXP. 0 when it is up.
start_exporter() {
    local log=$1 t0
    t0=$(uptime_s)
    rdma_exporter "${EXPORTER_FLAGS[@]}" > "$log" 2>&1 &
    EXP=$!
    for _ in $(seq 1 150); do              # up to ~30 s under TCG (ASan: slower)
        kill -0 "$EXP" 2>/dev/null || break
        if scrape /tmp/up.txt 2>/dev/null; then
            note "exporter pid $EXP serves $URL after $(since "$t0") s"
            return 0
        fi
        sleep 0.2
    done
    note "exporter did not come up; last lines of ${log##*/}:"
    tail -20 "$log" | sed 's/^/#   /'
    return 1
}
# stop_exporter LOG: SIGTERM, a check that it exits with status 0 within 15 s
stop_exporter() {
    local log=$1 rc
    if ! kill -0 "$EXP" 2>/dev/null; then
        wait "$EXP"
        notok "exporter $EXP exits on SIGTERM (it had already exited with status $?)"
        return
    fi
    kill -TERM "$EXP"
    for _ in $(seq 1 150); do kill -0 "$EXP" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$EXP" 2>/dev/null; then
        kill -KILL "$EXP"
        wait "$EXP" 2>/dev/null
        notok "exporter $EXP exits on SIGTERM (still running after 15 s, killed)"
        return
    fi
    wait "$EXP"
    rc=$?
    check "exporter $EXP exits on SIGTERM with status 0 (got $rc)" test $rc = 0
    if [ $rc != 0 ]; then tail -30 "$log" | sed 's/^/#   /'; fi
}
# sanitizer_clean LOG...: no AddressSanitizer/UBSan/LeakSanitizer report
sanitizer_clean() { ! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$@"; }

finish() {
    note "uptime at end: $(uptime_s)s"
    echo "$pass passed, $fail failed"
    [ $fail = 0 ]
}
