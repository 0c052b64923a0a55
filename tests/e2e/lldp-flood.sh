#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The LLDP collector against blinding (issue 42), live on this kernel: as in
# lldp-netns.sh, Debian's lldpd in a second network namespace sends LLDP over a veth
# pair (every second, TTL 10 s) to the end the real exporter watches. Once the
# neighbour has been heard for a few polls, a raw-socket helper in Python floods the
# same veth for 16 s with 50 junk LLDP frames a second (valid LLDP header, garbage
# TLVs) and 50 frames a second from 100 fake neighbours (distinct chassis IDs, TTL
# 65535, each every 2 s). The verdict counts scrapes, not time: the real neighbour
# must be in every scrape taken during the flood, the fake neighbours in at most
# the table's size, and the junk counted as invalid; promtool on the last scrape.
# On the code before issue 42 the 100 fakes evicted the neighbour from the 4-entry
# table (the one whose TTL ended first) within a poll.
#
#   lldp-flood.sh BINARY      exit 0 passed, 1 failed, 77 skipped (no namespaces, lldpd or python3)
set -u
BIN=$(readlink -f "${1:?usage: lldp-flood.sh BINARY}")

if [ "${LLDP_FLOOD_INNER:-}" != 1 ]; then
	for c in lldpd lldpcli python3; do
		if ! command -v $c >/dev/null; then
			echo "lldp-flood: SKIP: $c not installed (scripts/install-deps.sh --test)" >&2
			exit 77
		fi
	done
	if ! unshare -n true 2>/dev/null; then
		if [ "${RDMA_EXPORTER_NETNS_REQUIRED:-0}" = 1 ]; then
			echo "lldp-flood: FAIL: cannot create a network namespace (unshare -n; needs root)" >&2
			exit 1
		fi
		echo "lldp-flood: SKIP: cannot create a network namespace (unshare -n; needs root)" >&2
		exit 77
	fi
	LLDP_FLOOD_INNER=1 exec unshare -n "$0" "$@"
fi

# --- inside the namespace from here on
TMP=$(mktemp -d)
chmod 755 "$TMP" # lldpcli connects as the _lldpd user
PID=
NS=
LP=
FL=
pass=0
fail=0
cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	[ -n "$FL" ] && kill -9 "$FL" 2>/dev/null
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

mkdir -p "$TMP/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs"
echo veth1 >"$TMP/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0"

mkdir -p /run/lldpd
CTL=$TMP/lldpd.sock
cat >"$TMP/lldpd.conf" <<'CONF'
configure system hostname leaf-sw-1
configure system chassisid leaf-sw-1-chassis
configure lldp portidsubtype ifname
configure ports sw0 lldp portdescription "Ethernet1/7"
configure lldp tx-hold 10
configure lldp tx-interval 1
CONF
nsenter -t "$NS" -n lldpd -d -u "$CTL" -I sw0 -O "$TMP/lldpd.conf" -S "test leaf" >"$TMP/lldpd.log" 2>&1 &
LP=$!

PORT=$((20000 + RANDOM % 40000))
# fixed polls, so that the frames between two polls do not depend on the scrape cadence
# (LLDP_FLOOD_POLL=5s measures a longer interval; the TTL is 10 s)
"$BIN" --web.listen-address=127.0.0.1:$PORT --path.sysfs="$TMP/sys" --poll.mode=fixed \
	--poll.interval="${LLDP_FLOOD_POLL:-2s}" \
	--no-collector.sysfs --no-collector.netlink --no-collector.ethtool --collector.lldp \
	--log.level=info >"$TMP/log" 2>&1 &
PID=$!
scrape() { curl -fsS "http://127.0.0.1:$PORT/metrics" >"$TMP/$1"; }
want='rdma_port_neighbor_info{device="rxe0",port="1",netdev="veth1",chassis_id="leaf-sw-1-chassis",port_id="sw0",system_name="leaf-sw-1",port_description="Ethernet1/7"} 1'
present() { grep -qF -- "$want" "$TMP/$1"; }
counter() { sed -n "s/^$2{device=\"rxe0\",port=\"1\",netdev=\"veth1\"} //p" "$TMP/$1"; }

# the neighbour heard in two polls at least (so it is established), before the flood
heard() {
	local i seen=0
	for i in $(seq 1 60); do
		if scrape s0 2>/dev/null && present s0; then
			seen=$((seen + 1))
			[ "$seen" -ge 6 ] && return 0
		else
			seen=0
			[ $((i % 10)) = 9 ] && lldpcli -u "$CTL" update >/dev/null 2>&1
		fi
		sleep 0.5
	done
	return 1
}
check "neighbour heard before the flood" heard

# 16 s: every 20 ms one junk frame and one frame from fake neighbour k % 100
nsenter -t "$NS" -n python3 - >"$TMP/flood.log" 2>&1 <<'PY' &
import socket, struct, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("sw0", 0))
hdr = bytes.fromhex("0180c200000e" "020000000002" "88cc")
def tlv(t, v): return struct.pack("!H", t << 9 | len(v)) + v
junk = hdr + bytes.fromhex("0207") + b"\x04\x01\x02" + bytes(40)
t0 = time.monotonic()
k = 0
while time.monotonic() - t0 < 16:
    fake = hdr + tlv(1, b"\x07evil-%d" % (k % 100)) + tlv(2, b"\x05p1") + tlv(3, b"\xff\xff") \
        + tlv(5, b"fake") + tlv(0, b"")
    s.send(junk)
    s.send(fake)
    k += 1
    time.sleep(max(0, t0 + k * 0.02 - time.monotonic()))
print("sent", 2 * k)
PY
FL=$!
inv0=$(counter s0 rdma_lldp_frames_invalid_total)
total=0
seen=0
maxfake=0
for i in $(seq 1 15); do
	sleep 1
	scrape s$i || continue
	total=$((total + 1))
	present s$i && seen=$((seen + 1))
	f=$(grep -c 'chassis_id="evil-' "$TMP/s$i")
	[ "$f" -gt "$maxfake" ] && maxfake=$f
done
wait "$FL"
FL=
sleep 2.5 # a poll after the flood
scrape s99
inv=$(($(counter s99 rdma_lldp_frames_invalid_total) - ${inv0:-0}))
echo "# flood: $(cat "$TMP/flood.log"); neighbour in $seen of $total scrapes; at most $maxfake fake neighbours in a scrape; $inv junk frames counted invalid"
check "scrapes taken during the flood" test "$total" -ge 12
check "real neighbour in every scrape during the flood" test "$seen" = "$total"
check "fake neighbours bounded by the table (<= 7)" test "$maxfake" -le 7
check "junk counted invalid (>= 700 of 800)" test "$inv" -ge 700
check "real neighbour still there after the flood" present s99
check "collector success 1" grep -qF 'rdma_exporter_collector_success{collector="lldp"} 1' "$TMP/s99"
promtool_clean() { local out; out=$(promtool check metrics <"$TMP/$1" 2>&1) && [ -z "$out" ] || { echo "$out" | head -5 >&2; return 1; }; }
if command -v promtool >/dev/null; then check "promtool clean after the flood" promtool_clean s99; fi
check "no warning or error lines" bash -c "! grep -E 'level=(warn|error)' '$TMP/log'"
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
check "exits 0 on SIGTERM" test $rc = 0
if [ $fail != 0 ]; then
	echo "# exporter log:"
	sed 's/^/#   /' "$TMP/log" | tail -20
	echo "# lldpd log:"
	sed 's/^/#   /' "$TMP/lldpd.log" | tail -10
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
