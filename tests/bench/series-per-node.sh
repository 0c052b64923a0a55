#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures): series one node exports at default flags, text
# exposition, per collector, for the shapes of issue 31's budget: an H100
# node (8 InfiniBand HCAs of one port) with a 64-peer pingmesh, and a node of
# 8 RoCE ports, with the collector that dominates it. Budget (issues 31 and
# 40): <= 1,500 series for the H100 shape, the netlink collector counted.
# With --check first it also exits 1 when the H100 shape is over the budget
# (the ctest series_budget: series counts are deterministic, not timings).
#
# Where the numbers come from:
# - sysfs and the exporter's own series: the built exporter scraped on
#   synthetic trees of the mlx5-roce fixture (tests/bench/lib.sh bench_tree:
#   DEVICES copies of its mlx5_0 with 1 port; link_layer set to InfiniBand for
#   the H100 shape; each device's PCI function behind a PCIe switch, pcie_tree
#   below, for issue 32's PCIe series), and on the peer fixtures of
#   ../shared/fixtures as they are.
#   Netlink, ethtool and the probes have no input here (no RDMA device, no
#   netdev): their series are absent from these scrapes.
# - the probe collector: its collect() on a probe state built as the engine
#   leaves it after healthy rounds (8 ports, each with its loopback, 64 remote
#   targets), rendered by the exposition code, written by the unit test
#   tests/collectors/probe/test_probe_export.c (PROBE_SERIES_OUT). For the
#   RoCE shape the probe part is the same (8 ports, 64 peers). The 5
#   discovery series the exporter shows without a device count in its row.
# - the netlink collector: its collect() over a scripted RDMA netlink
#   transport answering for 8 mlx5 devices of one port, each with the
#   kernel's QPs (SMI and GSI of ib_core, IPoIB's UD QP on InfiniBand) and
#   one NCCL rank of a Slurm job, default flags (no process rows, attribution
#   on, top 10 workloads, rdma_qps the states holding a QP and ERR), written
#   by the unit test
#   tests/collectors/netlink/test_netlink_collector.c (NETLINK_SERIES_OUT,
#   .ib and .roce). Its 7 rdma_exporter_netlink_* series count in its row.
# - the ethtool collector: its collect() on 8 RoCE netdevs of a ConnectX-7
#   (mlx5 ethtool -S names, DCB PFC on priority 3, RS-FEC over netlink,
#   carrier_down_count), written by tests/collectors/ethtool/
#   test_ethtool_collector.c (ETHTOOL_SERIES_OUT; .module: with module
#   reads, which need CAP_NET_ADMIN, a QSFP module on each). The H100 shape
#   has none: an InfiniBand port's gid_attrs/ndevs name no netdev, so the
#   ethtool collector watches no netdev there (the IPoIB netdevs ib0.. are
#   not RDMA netdevs to it).
#
#   tests/bench/series-per-node.sh [--check] build/rdma_exporter [BUILD_DIR]
set -euo pipefail
CHECK=
if [ "${1:-}" = --check ]; then
	CHECK=1
	shift
fi
BUDGET=1500
BIN=$(readlink -f "${1:?usage: series-per-node.sh [--check] BINARY [BUILD_DIR]}")
BUILD=$(readlink -f "${2:-$(dirname "$BIN")}")
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=$HERE/../../../shared/fixtures
# shellcheck source=tests/bench/lib.sh
. "$HERE/lib.sh"
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

# scrape ROOT OUT [FLAGS...]: one scrape (after the first poll) of the exporter on ROOT
scrape() {
	local root=$1 out=$2 port
	shift 2
	port=$(bench_free_port)
	"$BIN" --web.listen-address="127.0.0.1:$port" --path.sysfs="$root" --log.level=error "$@" &
	PID=$!
	bench_wait_http "http://127.0.0.1:$port/metrics" 10
	curl -fsS "http://127.0.0.1:$port/metrics" >"$out"
	kill "$PID"
	wait "$PID" 2>/dev/null || true
	PID=
}

# by_collector FILE: sample lines by the collector that writes them (by
# family prefix), then the total.
by_collector() {
	awk '!/^#/ && NF {
		n = $1; sub(/[{ ].*/, "", n)
		if (n ~ /^rdma_probe_/) c = "probe"
		else if (n ~ /^rdma_(resources|resource_limit|pds|qps|cqs|cq_entries|mrs|mr_registered_bytes|cm_ids|srqs)$/ ||
			 n ~ /^rdma_(process|workload|exporter_netlink)_/ ||
			 (n == "rdma_port_statistic_total" && $0 ~ /source="netlink"/)) c = "netlink"
		else if (n ~ /^rdma_exporter_|^process_|^rdma_scrape_|^rdma_collector_|^rdma_http_/) c = "exporter (self)"
		else if (n ~ /^rdma_netdev_/) c = "ethtool"
		else c = "sysfs"
		count[c]++; total++
	}
	END {
		for (c in count) printf "  %-18s %6d\n", c, count[c]
		printf "  %-18s %6d\n", "total", total
	}' "$1" | sort
}

# pcie_link DIR: the PCIe link attributes of a port or function, Gen5 x16 trained as such
pcie_link() {
	mkdir -p "$1"
	echo "32.0 GT/s PCIe" >"$1/current_link_speed"
	echo "32.0 GT/s PCIe" >"$1/max_link_speed"
	echo 16 >"$1/current_link_width"
	echo 16 >"$1/max_link_width"
}

# pcie_tree ROOT DEVICES: each device's PCI function behind a PCIe switch, as on an
# HGX board (root port -> switch upstream -> downstream -> function), its AER files
# all zero, and class/infiniband/DEV/device linked to it (issue 32's PCIe series).
pcie_tree() {
	local d fn f
	for d in $(seq 0 $(($2 - 1))); do
		fn=$1/sys/devices/pci0000:00/0000:00:0$d.0/0000:1$d:00.0/0000:2$d:00.0/0000:3$d:00.0
		pcie_link "$fn"
		pcie_link "${fn%/*}"
		pcie_link "${fn%/*/*}"
		pcie_link "${fn%/*/*/*}"
		for f in correctable nonfatal fatal; do
			printf 'RxErr 0\nBadTLP 0\nTOTAL_ERR_COR 0\n' >"$fn/aer_dev_$f"
		done
		ln -s "../../../devices/pci0000:00/0000:00:0$d.0/0000:1$d:00.0/0000:2$d:00.0/0000:3$d:00.0" \
			"$1/sys/class/infiniband/mlx5_$d/device"
	done
}

node_tree() { # node_tree ROOT DEVICES LINK_LAYER
	bench_tree "$1" "$2" 1
	for f in "$1"/sys/class/infiniband/*/ports/*/link_layer; do echo "$3" >"$f"; done
	pcie_tree "$1" "$2"
}

# --- the probe part, from the exposition code (8 ports, 64 peers, healthy)
probe_test=$BUILD/tests/collectors/probe/test_probe_export
PROBE_SERIES_OUT=$TMP/probe.txt "$probe_test" >/dev/null 2>&1
probe_total=$(grep -vc '^#' "$TMP/probe.txt")
per_target=$(grep -v '^#' "$TMP/probe.txt" | grep -o 'target="[^"]*"' | grep -v loopback |
	sort | uniq -c | sort -n | tail -1 | awk '{ print $1 }')
targets=$(grep -v '^#' "$TMP/probe.txt" | grep -o 'target="[^"]*"' | grep -v loopback | sort -u | wc -l)
per_port=$(grep -v '^#' "$TMP/probe.txt" | grep -vc 'target="[^l]')
echo "probe collector, 8 ports, $targets remote targets, default flags (text exposition):"
echo "  per remote target  $per_target"
echo "  remote targets     $((probe_total - per_port))"
echo "  per port (loopback, port histograms, responder)  $per_port"
echo "  by family:"
grep -v '^#' "$TMP/probe.txt" | sed 's/[{ ].*//' | sort | uniq -c | awk '{ printf "    %-48s %5d\n", $2, $1 }'
echo "  total              $probe_total"
echo "  with --collector.probe.target-detail: $(grep -vc '^#' "$TMP/probe.txt.detail")"
echo "  with --collector.probe.target-histograms: $(grep -vc '^#' "$TMP/probe.txt.flag")"
echo

# --- the netlink part, from the collector over scripted RDMA netlink (8 mlx5 devices)
FIXTURES=$HERE/../fixtures NETLINK_SERIES_OUT=$TMP/netlink.txt \
	"$BUILD/tests/collectors/netlink/test_netlink_collector" >/dev/null 2>&1
for s in ib roce; do
	echo "netlink collector, 8 mlx5 devices ($s), default flags (text exposition):"
	grep -v '^#' "$TMP/netlink.txt.$s" | sed 's/[{ ].*//' | sort | uniq -c |
		awk '{ printf "    %-48s %5d\n", $2, $1 }'
	echo "  per device         $(grep -c 'device="mlx5_0"' "$TMP/netlink.txt.$s")"
	echo "  total              $(grep -vc '^#' "$TMP/netlink.txt.$s")"
done
echo "  ib with --collector.netlink.qp-states=all --collector.netlink.top-processes=10:" \
	"$(grep -vc '^#' "$TMP/netlink.txt.ib.flags")"
echo

# --- the ethtool part, from the collector on 8 RoCE netdevs of a ConnectX-7
ETHTOOL_SERIES_OUT=$TMP/ethtool.txt "$BUILD/tests/collectors/ethtool/test_ethtool_collector" \
	>/dev/null 2>&1
echo "ethtool collector, 8 RoCE netdevs, default flags (text exposition):"
grep -v '^#' "$TMP/ethtool.txt" | sed 's/[{ ].*//' | sort | uniq -c |
	awk '{ printf "    %-48s %5d\n", $2, $1 }'
echo "  per netdev         $(grep -c 'netdev="eth0"' "$TMP/ethtool.txt")"
echo "  total              $(grep -vc '^#' "$TMP/ethtool.txt")"
echo "  with CAP_NET_ADMIN (module series): $(grep -vc '^#' "$TMP/ethtool.txt.module")" \
	"($(grep -v '^#' "$TMP/ethtool.txt.module" | grep -c '^rdma_netdev_module_') module series)"
echo

for shape in "h100 8 InfiniBand ib" "roce 8 Ethernet roce"; do
	set -- $shape
	node_tree "$TMP/$1" "$2" "$3"
	scrape "$TMP/$1/sys" "$TMP/$1.txt"
	cat "$TMP/$1.txt" "$TMP/probe.txt" "$TMP/netlink.txt.$4" >"$TMP/$1-all.txt"
	# an InfiniBand node has no RoCE netdev for the ethtool collector
	[ "$4" = roce ] && cat "$TMP/ethtool.txt" >>"$TMP/$1-all.txt"
	echo "$1 shape ($2 ports, $3), default flags, with the probe, netlink$([ "$4" = roce ] && echo " and ethtool") parts above:"
	by_collector "$TMP/$1-all.txt" | tee "$TMP/$1-by.txt"
	total=$(awk '$1 == "total" { print $2 }' "$TMP/$1-by.txt")
	# what dominates: the largest collector and the largest family (sample name)
	echo "  largest: $(grep -v ' total ' "$TMP/$1-by.txt" |
		awk '{ n = $NF; $NF = ""; if (n + 0 > m) { m = n + 0; c = $0 } }
		     END { gsub(/^ +| +$/, "", c); print c " (" m " of '"$total"')" }'),"\
		"family $(grep -v '^#' "$TMP/$1-all.txt" | sed 's/[{ ].*//' | sort | uniq -c |
			sort -n | tail -1 | awk '{ print $2 " (" $1 ")" }')"
	if [ "$1" = h100 ]; then
		h100_total=$total
		echo "  budget             $BUDGET ($((BUDGET - total)) to spare)"
	fi
	if [ "$4" = roce ]; then
		echo "  with CAP_NET_ADMIN: $(($(grep -vc '^#' "$TMP/$1-all.txt") + \
			$(grep -c '^rdma_netdev_module_' "$TMP/ethtool.txt.module")))"
	fi
	echo
done

if [ -n "$CHECK" ]; then
	if [ "$h100_total" -gt "$BUDGET" ]; then
		echo "FAIL: the H100 shape exports $h100_total series at default flags, over the budget of $BUDGET" >&2
		exit 1
	fi
	echo "ok: the H100 shape exports $h100_total series at default flags (budget $BUDGET)"
	exit 0
fi

for tree in "$SHARED"/sysfs/*/; do
	[ -d "$tree/sys" ] || continue
	scrape "$tree/sys" "$TMP/shared.txt"
	echo "fixture $(basename "$tree") (../shared/fixtures, no probe part):"
	by_collector "$TMP/shared.txt"
	echo
done
