#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Every metric name README.md and docs/**/*.md give must be one the exporter
# exports: a renamed family or a typo in the docs fails here. docs/metrics.md
# is left out: it is generated from the binary and checked by
# monitoring_metrics_doc. The names the exporter
# exports are the e2e golden outputs (real output of the binary on the
# fixture trees) plus the family names in the sources of the collectors
# whose output needs hardware or a VM (netlink, ethtool, probe).
#
#   tests/e2e/readme-names.sh [SOURCE_DIR]
set -euo pipefail
ROOT=$(cd "${1:-$(dirname "$0")/../..}" && pwd)

# Words of the form rdma_* in the docs that are not metric names (a test binary too;
# rdma_probe, rdma_probe_pair, _prober, _target: levels of recording rules, level:metric:operation).
NOT_METRICS='^(rdma_cm|rdma_connect|rdma_port|rdma_port_received_packets_total|rdma_exporter_hangtest|rdma_probe|rdma_probe_pair|rdma_probe_prober|rdma_probe_target)$'

known=$(mktemp)
trap 'rm -f "$known"' EXIT
{
	grep -rhoE '"rdma_[a-z0-9_]+"' "$ROOT/src" "$ROOT/collectors" | tr -d '"'
	grep -hoE '^rdma_[a-z0-9_]+' "$ROOT"/tests/e2e/golden/*.prom
} | sort -u > "$known"

cd "$ROOT"
mapfile -t docs < <(printf '%s\n' README.md; find docs -name '*.md' ! -path docs/metrics.md | sort)

pass=0 fail=0
# Fragments that end in _ (rdma_port_{unicast,...}) are patterns, not names.
while IFS=: read -r file name; do
	[[ $name =~ $NOT_METRICS ]] && continue
	base=$name
	for suffix in _bucket _sum _count; do
		base=${base%"$suffix"}
	done
	if grep -qxF "$name" "$known" || grep -qxF "$base" "$known"; then
		pass=$((pass + 1))
	else
		echo "not ok - $file names $name, which the exporter does not export"
		fail=$((fail + 1))
	fi
done < <(grep -oHE '\brdma_[a-z0-9_]*[a-z0-9]\b' "${docs[@]}" | sort -u)
echo "$pass passed, $fail failed"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
