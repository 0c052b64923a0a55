# SPDX-License-Identifier: Apache-2.0
#
# probe-spin-a.sh - VM A (10.0.2.15) of tests/bench/probe-spin.sh (guest-lib.sh is
# prepended, PS_SECS set): perftest's figures, then for each setting an exporter that
# probes its loopback and B (a round of 5 probes every 100 ms each) for PS_SECS seconds
# after a 3 s start; the figures are taken from the difference of two scrapes.
set -u
DEV=rxe0
A_IP=10.0.2.15
B_IP=10.0.2.16
OUT=/mnt/host/out
LISTEN=127.0.0.1:9871
URL=http://$LISTEN/metrics
LL="device=\"$DEV\",port=\"1\",target=\"loopback\""
LB="device=\"$DEV\",port=\"1\",target=\"$B_IP:9879\""
mkdir -p "$OUT"
echo "[{\"targets\": [\"$B_IP:9879\"]}]" > /tmp/targets.json
note "VM A, kernel $(uname -r), $(nproc) vCPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# perftest DEST: "typical 99%" of ib_send_lat -c UD (one-way: half the round trip)
perftest() {
    local srv=""
    if [ "$1" = "$A_IP" ]; then
        ib_send_lat -d $DEV -x 1 -c UD -n 1000 > /dev/null 2>&1 &
        srv=$!
        sleep 0.5
    fi
    # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9% (microseconds)
    retry 20 timeout 60 ib_send_lat -d $DEV -x 1 -c UD -n 1000 "$1" 2>/dev/null |
        awk '$1 == 2 { printf "%s %s", $5, $8; exit }'
    [ -z "$srv" ] || wait $srv 2>/dev/null
}

# hist_quantile Q NAME LABELS: histogram_quantile over the buckets in $NORM (seconds)
hist_quantile() {
    local want
    want=$(printf '%s_bucket{%s} 0\n' "$2" "$3" | normalize | cut -f1)
    awk -F'\t' -v want="$want" -v q="$1" '
    {
        i = index($1, "{"); lab = substr($1, i + 1, length($1) - i - 1)
        n = split(lab, kv, ","); rest = ""; le = ""
        for (j = 1; j <= n; j++) {
            if (kv[j] ~ /^le="/) { le = kv[j]; gsub(/^le="|"$/, "", le); continue }
            rest = rest (rest == "" ? "" : ",") kv[j]
        }
        if (le == "" || substr($1, 1, i) rest "}" != want) next
        if (le == "+Inf") { total = $2 + 0; next }
        nb++; ub[nb] = le + 0; cnt[nb] = $2 + 0
    }
    END {
        if (total <= 0) exit
        for (i = 2; i <= nb; i++)
            for (j = i; j > 1 && ub[j - 1] > ub[j]; j--) {
                t = ub[j]; ub[j] = ub[j - 1]; ub[j - 1] = t
                t = cnt[j]; cnt[j] = cnt[j - 1]; cnt[j - 1] = t
            }
        rank = q * total
        for (b = 1; b <= nb && cnt[b] < rank; b++) ;
        if (b > nb) { printf "%.9g\n", ub[nb]; exit }
        lo = 0; c = cnt[b]
        if (b > 1) { lo = ub[b - 1]; c -= cnt[b - 1]; rank -= cnt[b - 1] }
        printf "%.9g\n", lo + (ub[b] - lo) * rank / c
    }' "$NORM"
}
# cpu_ns PID: CPU time of all the process's threads (schedstat), ns
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }
# delta OLD NEW: NEW less OLD, key by key (normalized scrapes)
delta() { awk -F'\t' 'NR == FNR { o[$1] = $2; next } { printf "%s\t%.12g\n", $1, $2 - o[$1] }' "$1" "$2"; }

read -r lo_typ lo_p99 <<< "$(perftest $A_IP)"
read -r me_typ me_p99 <<< "$(perftest $B_IP)"
note "ib_send_lat -c UD loopback: typical ${lo_typ:-?}us 99% ${lo_p99:-?}us; A->B: typical ${me_typ:-?}us 99% ${me_p99:-?}us"
ok=$(awk -v a="$lo_typ" -v b="$me_typ" 'BEGIN { print (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/) }')
check "ib_send_lat printed a typical for loopback and A->B" test "$ok" = 1

# setting NAME BINARY FLAGS...: one exporter, its figures into /tmp/fig-NAME
setting() {
    local name=$1 bin=$2 t0 c0 c1 exp cpu
    shift 2
    if ! command -v "$bin" > /dev/null; then
        note "$name: $bin not in this run"
        return
    fi
    # per-target buckets (the quantiles below read them) are behind a flag since issue 31
    local hist=()
    if "$bin" --help 2>&1 | grep -q 'collector.probe.target-histograms'; then
        hist=(--collector.probe.target-histograms)
    fi
    "$bin" --web.listen-address=$LISTEN --poll.interval=500ms --no-collector.sysfs "${hist[@]}" \
        --no-collector.netlink --no-collector.ethtool --collector.probe.interval=100ms \
        --collector.probe.port=9880 --collector.probe.targets-file=/tmp/targets.json "$@" \
        > "$OUT/exporter-$name.log" 2>&1 &
    exp=$!
    sleep 3
    : > /tmp/s0.norm
    : > /tmp/s1.norm
    scrape /tmp/s0.txt "$URL" && normalize < /tmp/s0.txt > /tmp/s0.norm
    c0=$(cpu_ns $exp); t0=$(uptime_s)
    sleep "$PS_SECS"
    scrape "$OUT/scrape-$name.txt" "$URL" && normalize < "$OUT/scrape-$name.txt" > /tmp/s1.norm
    c1=$(cpu_ns $exp)
    cpu=$(awk -v a="$c0" -v b="$c1" 'BEGIN { printf "%.0f", b - a }')
    kill -TERM $exp; wait $exp 2>/dev/null
    delta /tmp/s0.norm /tmp/s1.norm > /tmp/d.norm
    local n_l n_b w_b secs
    secs=$(since "$t0")
    n_l=$(NORM=/tmp/d.norm value rdma_probe_rtt_seconds_count "$LL")
    n_b=$(NORM=/tmp/d.norm value rdma_probe_rtt_seconds_count "$LB")
    # per target before issue 31, per port (loopback's included) since
    w_b=$(NORM=/tmp/d.norm value rdma_probe_wakeup_requests_total "$LB" 2>/dev/null ||
        NORM=/tmp/d.norm value rdma_probe_wakeup_requests_total "device=\"$DEV\",port=\"1\"" 2>/dev/null ||
        echo 0)
    {
        echo "name=$name"
        echo "l_med=$(NORM=/tmp/d.norm hist_quantile 0.5 rdma_probe_rtt_seconds "$LL")"
        echo "l_p99=$(NORM=/tmp/d.norm hist_quantile 0.99 rdma_probe_rtt_seconds "$LL")"
        echo "b_med=$(NORM=/tmp/d.norm hist_quantile 0.5 rdma_probe_rtt_seconds "$LB")"
        echo "b_p99=$(NORM=/tmp/d.norm hist_quantile 0.99 rdma_probe_rtt_seconds "$LB")"
        echo "b_net=$(NORM=/tmp/d.norm hist_quantile 0.5 rdma_probe_network_rtt_seconds "$LB")"
        echo "n_l=${n_l:-0} n_b=${n_b:-0} w_b=${w_b:-0} secs=$secs cpu=$cpu"
    } > "/tmp/fig-$name"
    cp "/tmp/fig-$name" "$OUT/fig-$name.txt"
    check "$name: probes answered on loopback (${n_l:-0}) and A->B (${n_b:-0})" \
        num_gt "$(( ${n_l:-0} + ${n_b:-0} ))" 0
}
setting before rdma_exporter_before
setting spin0 rdma_exporter --collector.probe.spin-max=0
setting default rdma_exporter
# more wake-up round trips before each probe (--collector.probe.warmups, issue 30)
setting warm1 rdma_exporter --collector.probe.warmups=1
setting warm3 rdma_exporter --collector.probe.warmups=3
setting spin5ms rdma_exporter --collector.probe.spin-max=5ms
# loopback answered by a second thread (issue 30, probe_loop.h)
setting thread rdma_exporter --collector.probe.loopback-thread
# The clock reads: hpet traps to the emulator on every clock_gettime; with tsc (when the
# guest offers it) they are a few instructions, as perftest's rdtsc.
CS=/sys/devices/system/clocksource/clocksource0
if grep -qw tsc $CS/available_clocksource 2>/dev/null && echo tsc > $CS/current_clocksource 2>/dev/null; then
    note "clocksource now $(cat $CS/current_clocksource)"
    setting default-tsc rdma_exporter
    setting thread-tsc rdma_exporter --collector.probe.loopback-thread
    setting spin0-tsc rdma_exporter --collector.probe.spin-max=0
    read -r lo_typ2 lo_p992 <<< "$(perftest $A_IP)"
    note "ib_send_lat -c UD loopback with tsc: typical ${lo_typ2:-?}us 99% ${lo_p992:-?}us"
else
    note "no tsc clocksource in this guest ($(cat $CS/available_clocksource 2>/dev/null))"
fi

note "RTT/2 of the probe against ib_send_lat -c UD typical (x: ratio), TCG guest; CPU: the exporter's, all threads"
for f in /tmp/fig-*; do
    [ -f "$f" ] || continue
    l_med= l_p99= b_med= b_p99= b_net=
    eval "$(grep -v '^n_l=' "$f")"
    eval "$(grep '^n_l=' "$f")"
    awk -v n="$name" -v lm="$l_med" -v lp="$l_p99" -v bm="$b_med" -v bp="$b_p99" -v bn="$b_net" \
        -v lt="$lo_typ" -v lq="$lo_p99" -v mt="$me_typ" -v mq="$me_p99" \
        -v nl="$n_l" -v nb="$n_b" -v wb="$w_b" -v s="$secs" -v c="$cpu" '
    function x(a, b) { return (b + 0 > 0 && a != "") ? sprintf("%.2fx", a / b) : "-" }
    function us(v) { return v == "" ? "-" : sprintf("%.1fus", v * 5e5) }
    BEGIN {
        printf "# %-8s loopback median %s (%s) p99 %s (%s of perftest typical, %s of its 99%%) | ", \
            n, us(lm), x(lm * 5e5, lt), us(lp), x(lp * 5e5, lt), x(lp * 5e5, lq)
        printf "A->B median %s (%s) p99 %s (%s, %s of its 99%%) network median %s | ", \
            us(bm), x(bm * 5e5, mt), us(bp), x(bp * 5e5, mt), x(bp * 5e5, mq), us(bn)
        printf "%d+%d probes %d wake-ups in %.1fs, CPU %.2f%% of a core, %.1fus a probe\n", \
            nl, nb, wb, s, (s > 0 ? c / 1e7 / s : 0), (nl + nb > 0 ? c / 1e3 / (nl + nb) : 0) }'
done
# B stops when this answers
rdma_exporter --web.listen-address=:9870 --collector.disable-defaults > /dev/null 2>&1 &
DONE=$!
sleep 3
kill -TERM $DONE; wait $DONE 2>/dev/null
echo "$pass passed, $fail failed"
[ $fail = 0 ]
