#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Live test of the ethtool collector's whole I/O path on this machine's kernel:
# in a network namespace of its own (unshare -n) it makes a veth pair, starts the
# real exporter with --collector.ethtool.netdev-include='veth.*' and a raw
# --collector.ethtool.stat-include, and checks veth's real driver statistics
# (SIOCETHTOOL), rdma_netdev_info{driver="veth"}, that DCB, netlink pause and
# netlink FEC (ETHTOOL_MSG_FEC_GET) are reported as unsupported once (no error storm), a rename and a removal while
# the exporter runs, and promtool on every scrape.
#
#   ethtool-netns.sh BINARY      exit 0 passed, 1 failed, 77 skipped (no namespaces)
set -u
BIN=$(readlink -f "${1:?usage: ethtool-netns.sh BINARY}")

if [ "${ETHTOOL_NETNS_INNER:-}" != 1 ]; then
	if ! unshare -n true 2>/dev/null; then
		if [ "${RDMA_EXPORTER_NETNS_REQUIRED:-0}" = 1 ]; then
			echo "ethtool-netns: FAIL: cannot create a network namespace (unshare -n; needs root or CAP_SYS_ADMIN)" >&2
			exit 1
		fi
		echo "ethtool-netns: SKIP: cannot create a network namespace (unshare -n; needs root or CAP_SYS_ADMIN)" >&2
		exit 77
	fi
	ETHTOOL_NETNS_INNER=1 exec unshare -n "$0" "$@"
fi

# --- inside the namespace from here on: only our veth pair and lo exist
TMP=$(mktemp -d)
PID=
pass=0
fail=0
trap '[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT
ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

ip link set lo up
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
mkdir -p "$TMP/sys/class"            # no RDMA devices: only the include selects netdevs
PORT=$((20000 + RANDOM % 40000))
"$BIN" --web.listen-address=127.0.0.1:$PORT --path.sysfs="$TMP/sys" --poll.interval=200ms \
	--no-collector.netlink --collector.ethtool.netdev-include='veth.*' \
	--collector.ethtool.stat-include='peer_ifindex|rx_queue_0_drops' --log.level=info \
	>"$TMP/log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do
	curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && break
	sleep 0.05
done
sleep 1 # several polls
scrape() { curl -fsS "http://127.0.0.1:$PORT/metrics" >"$TMP/$1"; }
has() { grep -qF -- "$2" "$TMP/$1"; }
promtool_clean() { local out; out=$(promtool check metrics <"$TMP/$1" 2>&1) && [ -z "$out" ] || { echo "$out" | head -5 >&2; return 1; }; }

scrape s1
ifindex1=$(cat /sys/class/net/veth1/ifindex 2>/dev/null || ip -o link show veth1 | cut -d: -f1)
check "rdma_netdev_info{netdev=\"veth0\",driver=\"veth\"} 1" has s1 'rdma_netdev_info{netdev="veth0",driver="veth",driver_version="1.0",firmware_version="",bus_info=""} 1'
check "veth1 watched too" has s1 'rdma_netdev_info{netdev="veth1",driver="veth"'
check "lo is not watched (not matched by the include)" bash -c "! grep -q 'netdev=\"lo\"' '$TMP/s1'"
check "veth's real driver statistic peer_ifindex of veth0 = ifindex of veth1 ($ifindex1)" \
	has s1 "rdma_netdev_ethtool_statistic{netdev=\"veth0\",name=\"peer_ifindex\"} $ifindex1"
check "rx_queue_0_drops selected by the stat include" has s1 'rdma_netdev_ethtool_statistic{netdev="veth0",name="rx_queue_0_drops"} 0'
check "statistics outside the stat include are not exported" bash -c "! grep -q 'name=\"rx_queue_0_xdp_packets\"' '$TMP/s1'"
check "no DCB on veth: no rdma_netdev_pfc_* series" bash -c "! grep -q '^rdma_netdev_pfc' '$TMP/s1'"
check "no netlink pause statistics on veth: no rdma_netdev_pause_frames_total" bash -c "! grep -q '^rdma_netdev_pause_frames_total' '$TMP/s1'"
# veth has no get_fecparam: the kernel answers ETHTOOL_MSG_FEC_GET with EOPNOTSUPP (issue 32)
check "no FEC over netlink on veth: no rdma_netdev_fec_* series" bash -c "! grep -q '^rdma_netdev_fec_' '$TMP/s1'"
check "collector success 1" has s1 'rdma_exporter_collector_success{collector="ethtool"} 1'
check "collector sees 2 netdevs" has s1 'rdma_exporter_collector_devices{collector="ethtool"} 2'
check "no read errors for unsupported sources" has s1 'rdma_exporter_collector_read_errors_total{collector="ethtool"} 0'
check "promtool check metrics is clean" promtool_clean s1
check "missing DCB logged once at info, not per poll" test "$(grep -c 'has no DCB' "$TMP/log")" = 1
check "missing pause statistics logged once at info" test "$(grep -c 'has no standard pause statistics' "$TMP/log")" = 1
check "missing FEC logged once at info" test "$(grep -c 'has no FEC over ethtool netlink' "$TMP/log")" = 1
check "no warning or error lines" bash -c "! grep -E 'level=(warn|error)' '$TMP/log'"

# --- rename while the exporter runs: the old name goes, the new one comes
ip link set veth1 down
ip link set veth1 name vethR
ip link set vethR up
sleep 1.2
scrape s2
check "renamed netdev appears as vethR" has s2 'rdma_netdev_info{netdev="vethR",driver="veth"'
check "old name veth1 is gone" bash -c "! grep -q 'netdev=\"veth1\"' '$TMP/s2'"
check "veth0 still served" has s2 'rdma_netdev_info{netdev="veth0",driver="veth"'
check "promtool clean after the rename" promtool_clean s2

# --- removal: both ends go, the exporter keeps serving
ip link del veth0
sleep 1.2
scrape s3
check "removed netdevs are gone" bash -c "! grep -q '^rdma_netdev_info' '$TMP/s3'"
check "collector success still 1" has s3 'rdma_exporter_collector_success{collector="ethtool"} 1'
check "promtool clean after the removal" promtool_clean s3
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "exits 0 on SIGTERM" test $rc = 0
if [ $fail != 0 ]; then
	echo "# exporter log:"
	sed 's/^/#   /' "$TMP/log" | tail -30
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
