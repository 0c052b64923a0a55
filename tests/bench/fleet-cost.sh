#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures, asserts nothing): what the shipped rules cost a
# fleet (issue 31), measured by tests/fleet/fleet.py on the healthy mixed fleet
# at two or more sizes, in a real Prometheus (Debian's 2.42), the exporter's
# series written every SCRAPE seconds (default 15: the shipped ServiceMonitor's
# interval; a range over raw series holds 4 times the samples it holds at 60):
#   - samples read per minute by every rule, summed, from Prometheus's own query
#     statistics (stats=all on each rule's expression at the last step); windows
#     longer than the history written (fleet.py writes ~75 minutes) scaled to a
#     full day; with their ratio between sizes (growth against node count);
#   - the budget findings: a raw series read over more than 1h, a quantile over
#     per-pair (per-target) series; and, as notes, recording rules whose output
#     has as many series as their input;
#   - series per node of the full exposition (--full) at the largest size, and of
#     the families the rules read.
# Then, with CRASH_NODES (default 520) > 0, the job_crash scenario on a fleet of
# that many nodes (a 16-peer pingmesh, 1-minute samples: the pages, not the
# cost): QPs in error on 512 nodes at once, issue 31's number (fleet_scenarios'
# 32-node fleet puts them on all 32), must give at most one page.
# Budget (issue 31): <= 5 M samples per minute at 2,000 nodes. SIZES="100 300"
# at 15 s take about 10 minutes on 2 cores and 6 GB of memory (the generator
# holds every minute's value in Python lists, ~1,000 series a node at k = 64;
# the OpenMetrics text goes to promtool 1 GB at a time); SIZES="200 2000"
# measures the budget itself on a machine with ~60 GB.
#
#   tests/bench/fleet-cost.sh BUILD/rdma_exporter [RULES_DIR]
#   SIZES="100 200" K=64 SCRAPE=15 CRASH_NODES=0 tests/bench/fleet-cost.sh BUILD/rdma_exporter
set -euo pipefail
BIN=$(readlink -f "${1:?usage: fleet-cost.sh BINARY [RULES_DIR]}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RULES=${2:-$ROOT/alerts}
SIZES=${SIZES:-"100 300"}
K=${K:-64}
SCRAPE=${SCRAPE:-15}
CRASH_NODES=${CRASH_NODES:-520}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

prev_n="" prev_tot=""
for n in $SIZES; do
	echo "== $n nodes, ${K}-peer pingmesh, the families the rules read ($RULES)"
	python3 "$ROOT/tests/fleet/fleet.py" --exporter "$BIN" --root "$ROOT" --rules-dir "$RULES" \
		--nodes "$n" --k "$K" --scrape "$SCRAPE" --scenario healthy_mixed --cost --json "$TMP/$n.json" --jobs 1 |
		{ grep -v '^   PAGE\|^        ' || true; } | uniq
	read -r samples series < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))[0]; print(int(r["cost_total"][1]), r["series"])' "$TMP/$n.json")
	echo "   total: $samples samples per minute (day-scaled), $series series, $((series / n)) per node;" \
		"$((samples / n)) samples a node a minute: $((samples / n * 2000)) projected at 2,000 nodes (budget 5000000)"
	if [ -n "$prev_n" ]; then
		awk -v a="$prev_tot" -v b="$samples" -v na="$prev_n" -v nb="$n" 'BEGIN {
			printf "   growth %d -> %d nodes: samples x%.2f for nodes x%.2f (exponent %.2f)\n",
				na, nb, b / a, nb / na, log(b / a) / log(nb / na) }'
	fi
	prev_n=$n prev_tot=$samples
done
last=${SIZES##* }
echo "== full exposition at $last nodes (every family; per-target buckets off: --collector.probe.target-histograms off, on: today)"
python3 - "$ROOT" "$BIN" "$last" "$K" <<'PY'
import os, sys, tempfile, shutil
root, binary, n, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, os.path.join(root, "tests", "fleet"))
import fleet
tmp = tempfile.mkdtemp()
try:
    exp = fleet.exporter_output(binary, os.path.join(root, "tests", "fixtures", "sysfs", "mlx5-roce"), tmp)
    synth = open(os.path.join(root, "tests", "monitoring", "fixtures", "synthetic-roce-node.prom")).read()
    for hist in (False, True):
        t = fleet.Templates(exp, synth, set(), True, hist)
        f = fleet.Fleet(t, n, 2, "static", k=k)
        ib = [len(nd.series) for nd in f.nodes if not nd.roce]
        roce = [len(nd.series) for nd in f.nodes if nd.roce]
        print(f"   per-target buckets {'on ' if hist else 'off'}: {f.series_count()} series; per node: "
              f"H100 IB {max(ib)}, RoCE {min(roce)}-{max(roce)}; per probed target {len(t.target)}")
finally:
    shutil.rmtree(tmp)
PY
if [ "$CRASH_NODES" -gt 0 ]; then
	echo "== job_crash on $CRASH_NODES nodes (QPs in error on 512 of them), 16-peer pingmesh, 1-minute samples"
	python3 "$ROOT/tests/fleet/fleet.py" --exporter "$BIN" --root "$ROOT" --rules-dir "$RULES" \
		--nodes "$CRASH_NODES" --k 16 --scrape 60 --scenario job_crash --jobs 1 |
		{ grep -v '^        ' || true; } | tail -n 8
fi
