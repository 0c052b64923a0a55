#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Live test of the LLDP collector (issue 33) on this machine's kernel: in a network
# namespace of its own (unshare -n) a veth pair, one end moved into a second namespace
# where Debian's lldpd (our own instance: -d, its own control socket, -O /dev/null so
# no host configuration is read; the host's lldpd service, if any, lives in the host
# namespace and cannot see these veths) sends LLDP every second with a TTL of
# tx-interval x tx-hold. The real exporter watches the other end, named as the netdev
# of port 1 of a fake RDMA device in a fixture sysfs tree, with only --collector.lldp.
# Checks: the neighbour's chassis id, port id, system name and port description appear
# in rdma_port_neighbor_info; a changed system name replaces the series; after lldpd
# is killed (SIGKILL: no shutdown frame) the series is gone once the TTL has run out;
# garbage frames (sent by a raw-socket helper in Python) are counted as invalid and the
# exporter keeps serving; promtool on every scrape.
#
#   lldp-netns.sh BINARY      exit 0 passed, 1 failed, 77 skipped (no namespaces or no lldpd)
set -u
BIN=$(readlink -f "${1:?usage: lldp-netns.sh BINARY}")

if [ "${LLDP_NETNS_INNER:-}" != 1 ]; then
	if ! command -v lldpd >/dev/null || ! command -v lldpcli >/dev/null; then
		echo "lldp-netns: SKIP: lldpd not installed (scripts/install-deps.sh --test)" >&2
		exit 77
	fi
	if ! unshare -n true 2>/dev/null; then
		if [ "${RDMA_EXPORTER_NETNS_REQUIRED:-0}" = 1 ]; then
			echo "lldp-netns: FAIL: cannot create a network namespace (unshare -n; needs root)" >&2
			exit 1
		fi
		echo "lldp-netns: SKIP: cannot create a network namespace (unshare -n; needs root)" >&2
		exit 77
	fi
	LLDP_NETNS_INNER=1 exec unshare -n "$0" "$@"
fi

# --- inside the namespace from here on
TMP=$(mktemp -d)
chmod 755 "$TMP" # lldpcli connects as the _lldpd user
PID=
NS=
LP=
pass=0
fail=0
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	[ -n "$LP" ] && kill -9 "$LP" 2>/dev/null
	[ -n "$NS" ] && kill -9 "$NS" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }

ip link set lo up
ip link add veth1 type veth peer name sw0
unshare -n sleep 300 &
NS=$!
for _ in $(seq 1 50); do
	[ "$(readlink /proc/$NS/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.02
done
ip link set sw0 netns "$NS"
ip link set veth1 up
nsenter -t "$NS" -n ip link set sw0 up

# the fixture sysfs: RDMA device rxe0, port 1, bound to veth1
mkdir -p "$TMP/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs"
echo veth1 >"$TMP/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"

# lldpd's privilege separation chroots to /run/lldpd (Debian's build)
mkdir -p /run/lldpd
CTL=$TMP/lldpd.sock
# The configuration goes in lldpd's own file (-O): at start lldpd applies it, then resumes
# with the whole configuration it read before, which undid lldpcli commands sent in the
# meantime (system name back to the host's, TX interval back to 30 s: no frame in 30 s).
cat >"$TMP/lldpd.conf" <<'CONF'
configure system hostname leaf-sw-1
configure system chassisid leaf-sw-1-chassis
configure lldp portidsubtype ifname
configure ports sw0 lldp portdescription "Ethernet1/7"
configure lldp tx-hold 3
configure lldp tx-interval 1
CONF
nsenter -t "$NS" -n lldpd -d -u "$CTL" -I sw0 -O "$TMP/lldpd.conf" -S "test leaf" >"$TMP/lldpd.log" 2>&1 &
LP=$!
# lldpcli, tried again while lldpd is still starting (its socket may exist before it answers)
cli() {
	local i
	for i in $(seq 1 50); do
		lldpcli -u "$CTL" "$@" >/dev/null 2>>"$TMP/lldpcli.log" && return 0
		sleep 0.1
	done
	return 1
}
configured() {
	local i
	for i in $(seq 1 100); do
		grep -q "should resume operations" "$TMP/lldpd.log" &&
			lldpcli -u "$CTL" show chassis 2>/dev/null | grep -q "SysName: *leaf-sw-1" &&
			lldpcli -u "$CTL" show configuration 2>/dev/null | grep -q "Transmit delay: *1$" &&
			return 0
		sleep 0.1
	done
	return 1
}
check "lldpd configured from its file and running" configured

PORT=$((20000 + RANDOM % 40000))
"$BIN" --web.listen-address=127.0.0.1:$PORT --path.sysfs="$TMP/sys" --poll.interval=200ms \
	--no-collector.sysfs --no-collector.netlink --no-collector.ethtool --collector.lldp \
	--log.level=info >"$TMP/log" 2>&1 &
PID=$!
scrape() { curl -fsS "http://127.0.0.1:$PORT/metrics" >"$TMP/$1"; }
has() { grep -qF -- "$2" "$TMP/$1"; }
promtool_clean() { local out; out=$(promtool check metrics <"$TMP/$1" 2>&1) && [ -z "$out" ] || { echo "$out" | head -5 >&2; return 1; }; }
# wait (at most $2 s) until scrape $1 has / has not ($3 = !) the text $4
wait_for() {
	local name=$1 secs=$2 neg=$3 text=$4 i
	for i in $(seq 1 $((secs * 5))); do
		scrape "$name" 2>/dev/null || { sleep 0.2; continue; }
		if [ "$neg" = "!" ]; then ! has "$name" "$text" && return 0
		else has "$name" "$text" && return 0; fi
		sleep 0.2
	done
	return 1
}

want='rdma_port_neighbor_info{device="rxe0",port="1",netdev="veth1",chassis_id="leaf-sw-1-chassis",port_id="sw0",system_name="leaf-sw-1",port_description="Ethernet1/7"} 1'
# asked to send again every 4 s while the neighbour is not there (a frame lost before the
# exporter's socket was open is not sent again for a TX interval)
seen_or_update() {
	local i
	for i in 1 2 3 4 5; do
		wait_for s1 4 "" "$want" && return 0
		cli update
	done
	return 1
}
check "neighbour appears (chassis id, port id, system name, port description)" seen_or_update
check "frames counted as received" bash -c "grep -qE '^rdma_lldp_frames_received_total\{device=\"rxe0\",port=\"1\",netdev=\"veth1\"\} [1-9]' '$TMP/s1'"
check "no invalid frames from lldpd" has s1 'rdma_lldp_frames_invalid_total{device="rxe0",port="1",netdev="veth1"} 0'
check "collector success 1" has s1 'rdma_exporter_collector_success{collector="lldp"} 1'
check "promtool check metrics is clean" promtool_clean s1

# a new system name: the frame from the same chassis and port replaces the series
cli configure system hostname leaf-sw-2
cli update
check "renamed system: new series" wait_for s2 10 "" 'system_name="leaf-sw-2"'
check "renamed system: old series gone at once" bash -c "! grep -q 'system_name=\"leaf-sw-1\"' '$TMP/s2'"

# garbage: a valid LLDP header with a truncated TLV, then a frame without a TTL TLV
if command -v python3 >/dev/null; then
	nsenter -t "$NS" -n python3 - <<'PY'
import socket
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("sw0", 0))
hdr = bytes.fromhex("0180c200000e" "020000000001" "88cc")
s.send(hdr + bytes.fromhex("0207") + b"\x04\x01\x02" + bytes(40))       # chassis TLV cut short
s.send(hdr + bytes.fromhex("020704aabbccddeeff" "0403057377") + bytes(40))  # no TTL TLV
s.send(hdr + bytes(range(256)) * 2)                                      # noise
PY
	check "garbage frames counted as invalid" wait_for s3 10 "" 'rdma_lldp_frames_invalid_total{device="rxe0",port="1",netdev="veth1"} 3'
	check "still serving the neighbour after garbage" has s3 'system_name="leaf-sw-2"'
	check "promtool clean after garbage" promtool_clean s3
fi

# SIGKILL: no shutdown frame; the series must go when the TTL (about 3-4 s) runs out
# (15 s allowed: a wide bound, not a measurement)
kill -9 "$LP"
wait "$LP" 2>/dev/null
LP=
check "neighbour gone after its TTL" wait_for s5 15 "!" 'rdma_port_neighbor_info{'
check "frame counters still served" has s5 'rdma_lldp_frames_received_total{device="rxe0",port="1",netdev="veth1"}'
check "collector success still 1" has s5 'rdma_exporter_collector_success{collector="lldp"} 1'
check "promtool clean after expiry" promtool_clean s5
check "no warning or error lines" bash -c "! grep -E 'level=(warn|error)' '$TMP/log'"
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "exits 0 on SIGTERM" test $rc = 0
if [ $fail != 0 ]; then
	echo "# exporter log:"
	sed 's/^/#   /' "$TMP/log" | tail -30
	echo "# lldpd log:"
	sed 's/^/#   /' "$TMP/lldpd.log" | tail -15
	[ -s "$TMP/lldpcli.log" ] && sed 's/^/#   lldpcli: /' "$TMP/lldpcli.log" | tail -5
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
