#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The hard bound on data age (docs/configuration.md, "Polling"): whatever the
# scrape-aligned schedule believes, a scrape never gets data older than
# --poll.interval plus one poll. The issue-29 case: one odd request (a person's
# curl) 1.2 s before the same client starts scraping regularly, with a period
# (5 s) longer than --poll.interval (2 s): the short gap stays in the
# schedule's gap window for 8 scrapes. Each request's data age is read from the poll's
# own start time (rdma_exporter_last_poll_timestamp_seconds): it may be older
# than the poll's end by the poll's duration, so the bound checked is
# interval + 2 polls + 1 s of slack for a loaded machine. The exporter's own
# histogram must agree: no observation above its 5 s bucket.
#
#   data-age-bound.sh RDMA_EXPORTER    (FIXTURES dir from env)
set -u
BIN=${1:?usage: data-age-bound.sh RDMA_EXPORTER}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools curl python3

SYSFS=$FIXTURES/sysfs/mlx5-roce
launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$SYSFS" \
		--collector.disable-defaults --collector.sysfs --poll.interval=2s \
		--poll.min-interval=1s >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/metrics"; }
start_on_free_port launch ready || { echo "not ok - the exporter starts"; exit 1; }

# One odd request, then a regular scraper every 5 s for 40 s (8 scrapes: more
# than the schedule needs to learn it), each with its data age.
python3 - "$PORT" >"$TMP/ages" <<'PY' || true
import re, sys, time, urllib.request
url = "http://127.0.0.1:%s/metrics" % sys.argv[1]
def scrape(ua):
    req = urllib.request.Request(url, headers={"User-Agent": ua})
    body = urllib.request.urlopen(req, timeout=10).read().decode()
    now = time.time()
    m = re.search(r"^rdma_exporter_last_poll_timestamp_seconds (\S+)$", body, re.M)
    return now - float(m.group(1))
print("odd %.3f" % scrape("curl/7.88.1"))
time.sleep(1.2)
start = time.monotonic()
for i in range(9):
    time.sleep(max(0.0, start + 5 * i - time.monotonic()))
    print("regular %.3f" % scrape("curl/7.88.1"))
PY
sed 's/^/# age /' "$TMP/ages"
regular=$(grep -c '^regular ' "$TMP/ages")
check "the regular scraper got 9 answers ($regular)" test "$regular" -eq 9
worst=$(awk '{ if ($2 > m) m = $2 } END { printf "%.3f", m }' "$TMP/ages")
dur=$(sample rdma_exporter_collector_duration_seconds'{collector="sysfs"}')
echo "# oldest data served: $worst s; a poll takes $dur s"
check "no scrape got data older than interval + 2 polls + 1 s ($worst s)" \
	python3 -c "import sys; sys.exit(0 if $worst <= 2 + 2 * $dur + 1 else 1)"
# The exporter's histogram, all label sets summed: every observation <= 5 s.
hist=$(curl -s "http://127.0.0.1:$PORT/metrics" | python3 -c '
import re, sys
le5 = total = 0.0
for line in sys.stdin:
    m = re.match(r"rdma_exporter_data_age_seconds_bucket\{(.*)\} (\S+)$", line)
    if m and "le=\"5\"" in m.group(1):
        le5 += float(m.group(2))
    m = re.match(r"rdma_exporter_data_age_seconds_count(\{.*\})? (\S+)$", line)
    if m:
        total += float(m.group(2))
print("%d %d" % (le5, total))')
echo "# data age histogram: $hist (observations <= 5 s, all)"
check "the exporter's histogram saw every request at most 5 s old ($hist)" \
	python3 -c "import sys; a, b = map(int, '$hist'.split()); sys.exit(0 if b >= 9 and a == b else 1)"
check "the exporter exits cleanly" stop_exporter
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
