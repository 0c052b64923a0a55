#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Issue 42: a client without credentials that was there before Prometheus and
# scrapes faster (here every 1.3 s against 2 s, from 127.0.0.2, with
# Prometheus's User-Agent) is followed as the one seen first, unless
# Prometheus's address is named with --poll.follow-address. Two aligned
# exporters on the mlx5-roce fixture tree, one with
# --poll.follow-address=127.0.0.1 (Prometheus's), one without; the client
# starts on both before Prometheus does. Which scraper each follows is read
# from rdma_exporter_data_age_seconds_count{scraper="followed"}: over the
# window it grows by Prometheus's scrapes on the first, by the client's
# requests on the second. Counts, not timings; the median data age of each
# label is printed, not asserted.
#
#   follow-address.sh RDMA_EXPORTER    (FIXTURES dir from env)
set -u
BIN=${1:?usage: follow-address.sh RDMA_EXPORTER}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools prometheus curl python3

SYSFS=$FIXTURES/sysfs/mlx5-roce
FOLLOW=()
launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$SYSFS" \
		--collector.disable-defaults --collector.sysfs --poll.interval=3s \
		--poll.min-interval=200ms "${FOLLOW[@]}" >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/metrics"; }

FOLLOW=(--poll.follow-address=127.0.0.1)
start_on_free_port launch ready || { echo "not ok - the exporter naming Prometheus starts"; exit 1; }
NAMED_PID=$PID
NAMED_PORT=$PORT
EXTRA_PIDS=$NAMED_PID
FOLLOW=()
start_on_free_port launch ready || { echo "not ok - the exporter naming none starts"; exit 1; }
PLAIN_PORT=$PORT

# the client: every 1.3 s from 127.0.0.2, counting its requests (30 s: 23
# against Prometheus's 15, told apart beyond the +-2 of the checks)
(
	n=0
	while :; do
		for port in "$NAMED_PORT" "$PLAIN_PORT"; do
			curl -s -o /dev/null --max-time 1 --interface 127.0.0.2 \
				-A "Prometheus/2.45.0" "http://127.0.0.1:$port/metrics" &
		done
		n=$((n + 1))
		echo "$n" >"$TMP/client.count"
		sleep 1.3
	done
) &
EXTRA_PIDS="$NAMED_PID $!"
sleep 8 # the client is learnt first

PROM_PORT=$(free_port)
cat >"$TMP/prometheus.yml" <<YML
global:
  scrape_interval: 2s
  evaluation_interval: 2s
scrape_configs:
  - job_name: rdma
    static_configs:
      - targets: ['127.0.0.1:$NAMED_PORT', '127.0.0.1:$PLAIN_PORT']
YML
prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$TMP/prom.log" 2>&1 &
EXTRA_PIDS="$EXTRA_PIDS $!"
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
	[ "$(value up "$NAMED_PORT")" = 1 ] && [ "$(value up "$PLAIN_PORT")" = 1 ] &&
		{ prom_up=true; break; }
	sleep 0.1
done
check "Prometheus scrapes both exporters (up == 1)" $prom_up
$prom_up || { sed 's/^/  prom: /' "$TMP/prom.log"; exit 1; }

followed() { PORT=$1 sample 'rdma_exporter_data_age_seconds_count{scraper="followed"}'; }
sleep 14 # Prometheus learnt, and the polls in step
n0=$(followed "$NAMED_PORT")
p0=$(followed "$PLAIN_PORT")
c0=$(cat "$TMP/client.count")
sleep 30
n1=$(followed "$NAMED_PORT")
p1=$(followed "$PLAIN_PORT")
c1=$(cat "$TMP/client.count")
scrapes=$(value 'count_over_time(up[30s])' "$NAMED_PORT")
client=$((c1 - c0))
named=$((n1 - n0))
plain=$((p1 - p0))
echo "# over 30 s: Prometheus $scrapes scrapes, the client $client requests;" \
	"followed requests: $named with --poll.follow-address, $plain without"
check "with --poll.follow-address, Prometheus is followed ($named followed requests, $scrapes scrapes, +-2)" \
	python3 -c "import sys; sys.exit(0 if abs($named - float('$scrapes')) <= 2 else 1)"
check "without, the client seen first is followed ($plain followed requests, $client requests, +-2)" \
	python3 -c "import sys; sys.exit(0 if abs($plain - $client) <= 2 else 1)"
for port in "$NAMED_PORT" "$PLAIN_PORT"; do
	echo "# median data age at :$port:" \
		"$(value "histogram_quantile(0.5, rate(rdma_exporter_data_age_seconds_bucket{scraper=\"followed\"}[30s]))" "$port") s (followed)," \
		"$(value "histogram_quantile(0.5, rate(rdma_exporter_data_age_seconds_bucket{scraper=\"other\"}[30s]))" "$port") s (other)"
done

check "the exporter naming none exits cleanly" stop_exporter
PID=$NAMED_PID
check "the exporter naming Prometheus exits cleanly" stop_exporter
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
