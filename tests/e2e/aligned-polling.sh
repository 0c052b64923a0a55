#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Scrape-aligned polling with a real scraper (docs/configuration.md, "Polling"):
# Debian's Prometheus scrapes two exporters on the mlx5-roce fixture tree every
# 2 s, one with --poll.mode=aligned (the default) at --poll.interval=3s (the
# longest wait after a poll: above the scrape interval) and
# --poll.min-interval=200ms (polls driven by a scraper without credentials at
# least 1 s apart, so a 2 s one gets a poll per scrape), one with
# --poll.mode=fixed at --poll.interval=1s. Once the aligned one has learnt the
# scraper it polls once per scrape (polls = scrapes +- 2 over 20 s), the fixed
# one every second (twice as many). A burst of 50 manual requests makes at
# most a poll a second. Counts, not timings; the median data age of each (the
# scraper followed, and the others) is printed, not asserted.
#
#   aligned-polling.sh RDMA_EXPORTER    (FIXTURES dir from env)
set -u
BIN=${1:?usage: aligned-polling.sh RDMA_EXPORTER}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools prometheus curl python3

SYSFS=$FIXTURES/sysfs/mlx5-roce
MODE=aligned
launch() {
	local timing=(--poll.interval=1s)

	[ "$MODE" = aligned ] && timing=(--poll.interval=3s --poll.min-interval=200ms)
	"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$SYSFS" \
		--collector.disable-defaults --collector.sysfs "${timing[@]}" \
		--poll.mode="$MODE" >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/metrics"; }

MODE=fixed
start_on_free_port launch ready || { echo "not ok - the fixed-mode exporter starts"; exit 1; }
FIXED_PID=$PID
FIXED_PORT=$PORT
EXTRA_PIDS=$FIXED_PID
MODE=aligned
start_on_free_port launch ready || { echo "not ok - the aligned exporter starts"; exit 1; }
ALIGNED_PID=$PID
ALIGNED_PORT=$PORT

PROM_PORT=$(free_port)
cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: rdma
    static_configs:
      - targets: ['127.0.0.1:$ALIGNED_PORT', '127.0.0.1:$FIXED_PORT']
YML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$TMP/prom.log" 2>&1 &
EXTRA_PIDS="$FIXED_PID $!"
api="http://127.0.0.1:$PROM_PORT/api/v1"
query() { curl -s --max-time 5 --get "$api/query" --data-urlencode "query=$1"; }
# value EXPR PORT: the value of an instant query's series of that target
value() {
	query "$1" | python3 -c '
import json, sys
try:
    result = json.load(sys.stdin)["data"]["result"]
except (ValueError, KeyError):
    result = []  # Prometheus not answering yet
for s in result:
    if s["metric"].get("instance", "").endswith(":" + sys.argv[1]):
        print(s["value"][1]); break
else:
    print("missing")' "$2"
}
prom_up=false
for _ in $(seq 1 300); do
	[ "$(value up "$ALIGNED_PORT")" = 1 ] && [ "$(value up "$FIXED_PORT")" = 1 ] &&
		{ prom_up=true; break; }
	sleep 0.1
done
check "Prometheus scrapes both exporters (up == 1)" $prom_up
$prom_up || { sed 's/^/  prom: /' "$TMP/prom.log"; exit 1; }

# polls PORT: rdma_exporter_polls_total, read by a curl (another scraper)
polls() { PORT=$1 sample rdma_exporter_polls_total; }

sleep 12 # 4 scrapes to learn the period, and some slack
a0=$(polls "$ALIGNED_PORT")
f0=$(polls "$FIXED_PORT")
sleep 20
a1=$(polls "$ALIGNED_PORT")
f1=$(polls "$FIXED_PORT")
scrapes=$(value 'count_over_time(up[20s])' "$ALIGNED_PORT")
aligned=$((a1 - a0))
fixed=$((f1 - f0))
echo "# over 20 s: $scrapes scrapes; aligned $aligned polls, fixed $fixed polls"
check "Prometheus scraped about 10 times in 20 s ($scrapes)" \
	python3 -c "import sys; sys.exit(0 if 8 <= float('$scrapes') <= 11 else 1)"
check "aligned: one poll per scrape ($aligned polls, $scrapes scrapes, +-2)" \
	python3 -c "import sys; sys.exit(0 if abs($aligned - float('$scrapes')) <= 2 else 1)"
check "fixed at 1 s polls far more ($fixed) than aligned ($aligned)" test $((fixed * 10)) -ge $((aligned * 15))
for port in "$ALIGNED_PORT" "$FIXED_PORT"; do
	for who in followed other; do
		echo "# median data age at :$port, scraper=$who:" \
			"$(value "histogram_quantile(0.5, rate(rdma_exporter_data_age_seconds_bucket{scraper=\"$who\"}[20s]))" "$port") s"
	done
done

# A burst of 50 requests: at most one poll a second
PORT=$ALIGNED_PORT
b0=$(polls "$ALIGNED_PORT")
t0=$(date +%s%N)
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/metrics"; done
b1=$(polls "$ALIGNED_PORT")
ms=$((($(date +%s%N) - t0) / 1000000))
burst=$((b1 - b0))
echo "# 50 requests in $ms ms: $burst polls"
check "a burst of 50 requests: at most one poll per second ($burst polls in $ms ms)" \
	test "$burst" -le $((ms / 1000 + 2))

check "the aligned exporter exits cleanly" stop_exporter
PID=$FIXED_PID
check "the fixed-mode exporter exits cleanly" stop_exporter
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
