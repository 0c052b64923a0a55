#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Native histograms with a real client: Debian's Prometheus 2.42 with
# --enable-feature=native-histograms scrapes native_hist_serve (the exporter's
# poller, histogram, sink, protobuf encoder and HTTP server, with a synthetic
# collector in place of the RDMA probe; tests/tools/native_hist_serve.c) every
# second, and its query API answers with native data:
#   - the series is a native histogram ("histogram" in the result, not "value");
#   - histogram_count(rate(...[5s])) is the synthetic observation rate
#     (200 per target per 250 ms poll: 800/s);
#   - histogram_quantile(0.99, rate(...[1m])) lies in the synthetic uniform
#     band (3..4 µs for rdma_probe_rtt_seconds, 30..40 µs for
#     rdma_probe_network_rtt_seconds), within a native bucket's 9%;
#     the 0.999 quantile near the 2 ms / 20 ms tail.
# The shipped recording rules (alerts/rdma-recording.rules.yml) loaded into the
# same Prometheus record the RTT quantiles from the native histograms.
# A text scrape of the same server still passes `promtool check metrics`.
# Then the real rdma_exporter on the mlx5-roce fixture tree: its protobuf scrape
# holds every family of its text scrape, in the same order (collectors, self,
# process and HTTP metrics), and gzip when asked.
#
#   native-histograms.sh NATIVE_HIST_SERVE RDMA_EXPORTER    (FIXTURES dir from env)
set -u
BIN=${1:?usage: native-histograms.sh NATIVE_HIST_SERVE RDMA_EXPORTER}
EXPORTER=$(readlink -f "${2:?usage: native-histograms.sh NATIVE_HIST_SERVE RDMA_EXPORTER}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools prometheus promtool python3 curl

PROTO='application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'

launch() {
	"$BIN" "127.0.0.1:$PORT" 4 250 >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/metrics"; }
start_on_free_port launch ready || { echo "not ok - native_hist_serve starts"; exit 1; }

# --- the server itself: protobuf when asked for, text otherwise
ctype=$(curl -s -o "$TMP/scrape.pb" -w '%{content_type}' -H "Accept: $PROTO" \
	"http://127.0.0.1:$PORT/metrics")
check "protobuf Accept: Content-Type $ctype" test "$ctype" = "$PROTO"
check "protobuf Accept: a non-empty body" test -s "$TMP/scrape.pb"
ctype=$(curl -s -o "$TMP/scrape.txt" -w '%{content_type}' "http://127.0.0.1:$PORT/metrics")
check "no Accept: text ($ctype)" test "$ctype" = "text/plain; version=0.0.4; charset=utf-8"
check "the text scrape passes promtool check metrics" \
	promtool_clean "$TMP/scrape.txt"
check "the text keeps the classic buckets (18 per series)" test \
	"$(grep -c '^rdma_probe_network_rtt_seconds_bucket{.*target="10.0.0.2"' "$TMP/scrape.txt")" = 18

# --- Prometheus 2.42 with native histograms
PROM_PORT=$(free_port)
# The shipped recording rules load too: their RTT quantiles must answer on
# native data (2.42 stores no _bucket series of a protobuf-scraped histogram).
# Every group evaluated each second (they run every 1 to 5 minutes in production).
RULES=$TMP/rdma-recording.rules.yml
python3 -c '
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
for g in doc["groups"]:
    g["interval"] = "1s"
yaml.safe_dump(doc, open(sys.argv[2], "w"))' "$HERE/../../alerts/rdma-recording.rules.yml" "$RULES"
cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['$RULES']
scrape_configs:
  - job_name: rdma
    static_configs:
      - targets: ['127.0.0.1:$PORT']
YML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --enable-feature=native-histograms \
	--log.level=warn >"$TMP/prom.log" 2>&1 &
PROM=$!
EXTRA_PIDS="$PROM"
api="http://127.0.0.1:$PROM_PORT/api/v1"
prom_up=false
for _ in $(seq 1 300); do
	curl -s --max-time 1 "$api/query?query=up" | grep -q '"value":\[[0-9.]*,"1"\]' &&
		{ prom_up=true; break; }
	sleep 0.1
done
check "Prometheus scrapes the target (up == 1)" $prom_up
$prom_up || { sed 's/^/  prom: /' "$TMP/prom.log"; }
sleep 6 # a few scrapes

# query EXPR: the JSON of an instant query
query() { curl -s --max-time 5 --get "$api/query" --data-urlencode "query=$1"; }
# check_range DESCRIPTION EXPR LO HI: every series of the result is a number in [LO, HI]
check_range() {
	local json
	json=$(query "$2")
	echo "  $2 -> $json" | cut -c1-400
	check "$1" python3 -c '
import json, sys
r = json.loads(sys.argv[1])["data"]["result"]
lo, hi = float(sys.argv[2]), float(sys.argv[3])
vals = [float(s["value"][1]) for s in r]
sys.exit(0 if len(vals) == 4 and all(lo <= v <= hi for v in vals) else 1)' "$json" "$3" "$4"
}

for name in rdma_probe_rtt_seconds rdma_probe_network_rtt_seconds; do
	json=$(query "$name")
	check "$name is stored as a native histogram (4 series with a \"histogram\")" python3 -c '
import json, sys
r = json.loads(sys.argv[1])["data"]["result"]
sys.exit(0 if len(r) == 4 and all("histogram" in s for s in r) else 1)' "$json"
	# [5s]: over [1m] with only a few seconds of data rate() divides by the whole minute
	check_range "$name: histogram_count(rate([5s])) is the 800/s observed" \
		"histogram_count(rate(${name}[5s]))" 640 960
done
# a native bucket is at most 9% wide: the band widened by 10% on each side
check_range "rdma_probe_rtt_seconds: p99 in the 3..4 us band" \
	"histogram_quantile(0.99, rate(rdma_probe_rtt_seconds[1m]))" 2.7e-6 4.4e-6
check_range "rdma_probe_network_rtt_seconds: p99 in the 30..40 us band" \
	"histogram_quantile(0.99, rate(rdma_probe_network_rtt_seconds[1m]))" 27e-6 44e-6
check_range "rdma_probe_network_rtt_seconds: p50 in the 30..40 us band" \
	"histogram_quantile(0.5, rate(rdma_probe_network_rtt_seconds[1m]))" 27e-6 44e-6
check_range "rdma_probe_network_rtt_seconds: p99.9 near the 20 ms tail" \
	"histogram_quantile(0.999, rate(rdma_probe_network_rtt_seconds[1m]))" 18e-3 22e-3
# 0.995 * 35 us + 0.005 * 20 ms
check_range "histogram_sum / histogram_count: the mean (134.8 us)" \
	"histogram_sum(rate(rdma_probe_network_rtt_seconds[1m])) / histogram_count(rate(rdma_probe_network_rtt_seconds[1m]))" \
	130e-6 140e-6
# Not asserted: Prometheus 2.42 keeps only the native series of a histogram
# scraped as protobuf (2.45 and later keep the classic ones too with
# scrape_classic_histograms: true); docs/native-histograms.md says so.
echo "# info: classic _bucket series stored from the protobuf scrape:" \
	"$(query 'count(rdma_probe_network_rtt_seconds_bucket)' | grep -o '"value":\[[^]]*\]' || echo none)"
# The recording rules of alerts/ on native data: the per-target mean (each rule
# reads the classic _sum/_count or, as here, the native histogram); the quantiles
# are per port since issue 31 (rdma_probe_port_rtt_seconds, which this server
# does not make). 0.995 * 3.5 us + 0.005 * 2 ms = 13.5 us.
check_range "recording rule rdma_probe:rtt_seconds:mean5m on native data: the mean (13.5 us)" \
	"rdma_probe:rtt_seconds:mean5m" 12e-6 15e-6
json=$(query "rdma_exporter_build_info")
check "the other families come through the protobuf scrape too (build_info)" \
	bash -c "grep -q '\"result\":\[{' <<<'$json'"

kill "$PROM" 2>/dev/null
wait "$PROM" 2>/dev/null
kill -TERM "$PID"
wait "$PID"
check "native_hist_serve exits 0 on SIGTERM" test $? -eq 0
PID=

# --- the real exporter: every family in both formats
launch() {
	"$EXPORTER" --web.listen-address="127.0.0.1:$PORT" \
		--path.sysfs="$FIXTURES/sysfs/mlx5-roce" --poll.interval=1h \
		--no-collector.netlink --no-collector.ethtool --no-collector.probe >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; }
start_on_free_port launch ready || { echo "not ok - rdma_exporter starts"; exit 1; }
curl -s -o "$TMP/real.txt" "http://127.0.0.1:$PORT/metrics"
curl -s -o "$TMP/real.pb" -H "Accept: $PROTO" "http://127.0.0.1:$PORT/metrics"
curl -s -o "$TMP/real.pb.gz" -H "Accept: $PROTO" -H 'Accept-Encoding: gzip' \
	"http://127.0.0.1:$PORT/metrics"
# The names of the delimited MetricFamily messages (field 1 opens each one), in order.
cat >"$TMP/names.py" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
p = 0
while p < len(d):
    n = s = 0
    while True:
        c = d[p]; p += 1; n |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            break
    m = d[p:p + n]
    assert m[0] == 0x0a and m[1] < 0x80, "a message that does not start with its name"
    print(m[2:2 + m[1]].decode())
    p += n
PY
python3 "$TMP/names.py" "$TMP/real.pb" >"$TMP/pb-names" 2>&1
sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$TMP/real.txt" >"$TMP/txt-names"
check "real exporter: the protobuf has the $(wc -l <"$TMP/txt-names") families of the text, in order" \
	diff "$TMP/txt-names" "$TMP/pb-names"
check "real exporter: self, process and HTTP families among them" \
	grep -qx rdma_exporter_http_connections_rejected_total "$TMP/pb-names"
check "real exporter: gzip of the protobuf decodes to the same bytes" \
	bash -c "gzip -dc '$TMP/real.pb.gz' | cmp -s - '$TMP/real.pb'"
stop_exporter
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
