#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The systemd units: `systemd-analyze verify` on both (the service with ExecStart=
# pointing at the built binary, so that verify finds it), and the exposure score of
# `systemd-analyze security --offline=true`, which must stay at or below 2.5.
#
#   units.sh BINARY UNIT_DIR
set -u
BIN=${1:?usage: units.sh BINARY UNIT_DIR}
UNITS=${2:?usage: units.sh BINARY UNIT_DIR}
MAX_EXPOSURE=2.5
. "$(dirname "$0")/../include/tap.sh"

BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
sed "s#^ExecStart=/usr/bin/rdma_exporter#ExecStart=$BIN#" "$UNITS/rdma_exporter.service" \
	>"$TMP/rdma_exporter.service"
cp "$UNITS/rdma_exporter.socket" "$TMP/"

if grep -q "^ExecStart=$BIN " "$TMP/rdma_exporter.service"; then
	ok "the service's ExecStart= points at the built binary"
else
	not_ok "ExecStart=/usr/bin/rdma_exporter not found in the service"
fi

# --man=no: the man page of Documentation= is installed with the package, not here.
for u in rdma_exporter.service rdma_exporter.socket; do
	if systemd-analyze verify --man=no "$TMP/$u" >"$TMP/verify.log" 2>&1 &&
		! grep -q . "$TMP/verify.log"; then
		ok "systemd-analyze verify $u"
	else
		not_ok "systemd-analyze verify $u"
		sed 's/^/# /' "$TMP/verify.log"
	fi
done

systemd-analyze security --offline=true --no-pager "$TMP/rdma_exporter.service" \
	>"$TMP/security.log" 2>&1
score=$(sed -n 's/.*Overall exposure level for rdma_exporter.service: \([0-9.]*\).*/\1/p' \
	"$TMP/security.log")
if [ -z "$score" ]; then
	not_ok "systemd-analyze security printed no exposure level"
	sed 's/^/# /' "$TMP/security.log"
else
	echo "# exposure level: $score (at most $MAX_EXPOSURE)"
	grep '✗' "$TMP/security.log" | sed 's/  */ /g; s/^/#   /'
	if awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
		ok "exposure level $score <= $MAX_EXPOSURE"
	else
		not_ok "exposure level $score > $MAX_EXPOSURE"
	fi
fi

# What the unit must keep for the collectors to work (see the comments in the unit).
need() { # need DESCRIPTION REGEX
	if grep -Eq "$2" "$TMP/rdma_exporter.service"; then ok "$1"; else not_ok "$1"; fi
}
need "Type=notify with a watchdog" '^WatchdogSec=[0-9]'
need "probes can open uverbs" '^DeviceAllow=char-infiniband_verbs rw'
need "netlink and the UDP sideband are allowed" \
	'^RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK$'
need "no capability" '^CapabilityBoundingSet=$'
if grep -Eq '^(PrivateDevices|PrivateNetwork|ProtectProc=invisible|ProcSubset=pid)' \
	"$TMP/rdma_exporter.service"; then
	not_ok "a setting that hides uverbs, the RDMA netdevs or /proc/<pid>/comm"
else
	ok "nothing hides uverbs, the RDMA netdevs or /proc/<pid>/comm"
fi

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
