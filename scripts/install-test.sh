#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs the .deb with apt in fresh Debian roots (mmdebstrap minbase, through
# scripts/root-lib.sh, cached) and checks it as an admin would:
#   scripts/install-test.sh DEB SUITE...      e.g. ... bullseye bookworm trixie
# In each root: apt-get install ./DEB (its Depends from that suite's archive),
# rdma_exporter --version, a scrape of the mlx5-roce fixture tree (`once`, the
# sysfs collector) with the device and port metrics in it, `rdma_exporter check`
# on it (exit 0, healthy, as docs/check.md says), then apt-get remove (the
# binary and units gone, the conffile kept) and purge (every file of the
# package gone, dpkg forgets it). TAP on stdout; exit 1 on a failure. Needs
# root and network access to the mirror (root-lib.sh); the roots themselves
# come from the cache when there.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
SRC=$PWD
. scripts/root-lib.sh
[ $# -ge 2 ] || { echo "usage: install-test.sh DEB SUITE..." >&2; exit 2; }
DEB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
[ -f "$DEB" ] || { echo "install-test: no $DEB" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "install-test: needs root (chroot)" >&2; exit 1; }

n=0
fail=0
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/rdma_exporter-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# The script run inside the root: one TAP line per step (numbered outside).
cat >"$WORK/in-root.sh" <<'SCRIPT'
#!/bin/sh
ok() { echo "ok $*"; }
no() { echo "not ok $*"; }
t() { d=$1; shift; if "$@" >/tmp/t.out 2>&1; then ok "$d"; else no "$d"; sed 's/^/# /' /tmp/t.out | tail -20; fi; }
SYSFS_ONLY="--no-collector.netlink --no-collector.ethtool --no-collector.probe"
export SYSFS_ONLY
t "apt-get update" apt-get -q update
t "apt-get install ./$DEBNAME" apt-get -y -q install "/pkg/$DEBNAME"
t "dpkg: rdma-exporter installed" sh -c "dpkg-query -W -f='\${Status}' rdma-exporter | grep -q 'install ok installed'"
echo "# installed: $(dpkg-query -W -f='${Package} ${Version}' rdma-exporter 2>/dev/null); Depends: $(dpkg-query -W -f='${Depends}' rdma-exporter 2>/dev/null)"
t "rdma_exporter --version" sh -c 'rdma_exporter --version | grep -q "^rdma_exporter, version "'
rdma_exporter --version 2>&1 | sed 's/^/# /'
t "scrape of the mlx5-roce fixture (once): device and port metrics" sh -c \
	'rdma_exporter once --path.sysfs=/fixture/mlx5-roce $SYSFS_ONLY >/tmp/scrape &&
	 grep -q "^rdma_device_info{device=\"mlx5_0\"" /tmp/scrape &&
	 grep -q "^rdma_port_cnp_packets_handled_total{device=\"mlx5_0\",port=\"1\"} 8123456789$" /tmp/scrape'
# The daemon on a loopback port, scraped over HTTP with bash's /dev/tcp (no curl in
# a minbase root): the libmicrohttpd of this suite serves the exposition.
port=$((20000 + $$ % 20000))
rdma_exporter --path.sysfs=/fixture/mlx5-roce $SYSFS_ONLY --web.listen-address=127.0.0.1:$port \
	>/tmp/daemon.log 2>&1 &
pid=$!
got=
for i in $(seq 50); do
	bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf 'GET /metrics HTTP/1.0\r\nHost: x\r\n\r\n' >&3 && cat <&3" \
		>/tmp/http 2>/dev/null && grep -q '^rdma_device_info{device="mlx5_0"' /tmp/http && got=1 && break
	sleep 0.2
done
kill $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -n "$got" ] && grep -q '^HTTP/1.[01] 200' /tmp/http && grep -qi '^Content-Length: ' /tmp/http; then
	ok "daemon: GET /metrics over HTTP: 200, the fixture's device"
else
	no "daemon: GET /metrics over HTTP: 200, the fixture's device"
	head -5 /tmp/http | sed 's/^/# /'
	tail -5 /tmp/daemon.log | sed 's/^/# /'
fi
rdma_exporter check --path.sysfs=/fixture/mlx5-roce $SYSFS_ONLY --check.window=100ms \
	--check.rate-min=100 --check.state-file=/tmp/check-state >/tmp/check 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^OK      ports mlx5_0/1: ACTIVE' /tmp/check; then
	ok "check on the healthy fixture: exit 0"
else
	no "check on the healthy fixture: exit 0 (got $rc)"
	sed 's/^/# /' /tmp/check
fi
dpkg -L rdma-exporter | while read -r f; do [ -d "$f" ] || echo "$f"; done >/tmp/files
apt-get -y -q remove rdma-exporter >/tmp/remove 2>&1 || sed 's/^/# /' /tmp/remove
t "apt-get remove: the binary and the units gone" sh -c \
	'[ ! -e /usr/bin/rdma_exporter ] && [ ! -e /usr/lib/systemd/system/rdma_exporter.service ] &&
	 [ ! -e /usr/lib/systemd/system/rdma_exporter.socket ]'
t "apt-get remove: the conffile /etc/default/rdma_exporter kept" test -f /etc/default/rdma_exporter
apt-get -y -q purge rdma-exporter >/tmp/purge 2>&1 || sed 's/^/# /' /tmp/purge
t "apt-get purge: dpkg forgets the package" sh -c '! dpkg-query -W -f="\${Status}" rdma-exporter 2>/dev/null | grep -q installed'
t "apt-get purge: none of its $(wc -l </tmp/files) files left" sh -c \
	'while read -r f; do [ ! -e "$f" ] && [ ! -L "$f" ] || { echo "left: $f"; exit 1; }; done </tmp/files'
t "apt-get purge: no enablement symlink left" sh -c '! ls /etc/systemd/system/*/rdma_exporter.* 2>/dev/null | grep -q .'
SCRIPT

for suite in "$@"; do
	echo "# $suite"
	if ! tar=$(root_tarball "$suite" minbase ""); then
		n=$((n + 1))
		echo "not ok $n - $suite: mmdebstrap root"
		fail=$((fail + 1))
		continue
	fi
	R=$WORK/$suite
	root_unpack "$tar" "$R"
	mkdir -p "$R/pkg" "$R/fixture"
	cp "$DEB" "$R/pkg/"
	cp "$WORK/in-root.sh" "$R/in-root.sh"
	cp -a "$SRC/tests/fixtures/sysfs/mlx5-roce" "$R/fixture/"
	while IFS= read -r line; do
		case $line in
		"ok "*) n=$((n + 1)); echo "ok $n - $suite: ${line#ok }" ;;
		"not ok "*) n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $suite: ${line#not ok }" ;;
		*) echo "$line" ;;
		esac
	done < <(root_run "$R" env DEBNAME="$(basename "$DEB")" sh /in-root.sh 2>&1)
	rm -rf "$R"
done
echo "1..$n"
echo "# $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$n" -gt 0 ]
