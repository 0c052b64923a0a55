#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The Debian package's life: install, upgrade, remove and purge, twice over.
#
# 1. Real dpkg, real deb-systemd-helper: two packages of the build's binary (versions
#    0.0.1 and 0.0.2, cpack -D) go through dpkg --root into a scratch root with
#    --force-script-chrootless, so the maintainer scripts run with DPKG_ROOT set. The
#    test checks dpkg's state, the files, the admin's conffile edit across the upgrade,
#    the enablement as `systemctl --root` sees it (service enabled on installation,
#    socket not; an admin's disable and enable kept by a reinstall), and that purge
#    leaves no unit symlink, no deb-systemd-helper state and no conffile behind. Stubs
#    of systemctl and deb-systemd-invoke first on PATH log every call: with DPKG_ROOT
#    set none may come (a package installed into another root never touches this
#    host's systemd).
# 2. The same scripts, extracted, run as dpkg would on a host whose PID 1 is systemd:
#    in a mount namespace (unshare -rm) with /run/systemd/system made on a tmpfs, with
#    stubs of systemctl, deb-systemd-helper and deb-systemd-invoke that log their
#    arguments; the logs must be the calls dh_installsystemd's snippets make (start
#    on installation, restart on upgrade, stop on removal, daemon-reload, purge).
#    Then without /run/systemd/system (no call to systemctl or deb-systemd-invoke).
# What no test here can do: run systemd as PID 1, so no unit is really started,
# restarted or stopped (docs/install.md says what is and is not exercised).
#
# Exit 77 (skipped) where a tool is missing or no mount namespace can be made
# for part 2; exit 1 (failed) instead with RDMA_EXPORTER_PACKAGE_REQUIRED=1 (CI).
#
#   package-lifecycle.sh BUILD_DIR
set -u
BUILD=${1:?usage: package-lifecycle.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
. "$(dirname "$0")/../include/skip.sh"
for t in dpkg dpkg-deb dpkg-query cpack deb-systemd-helper systemctl; do
	command -v "$t" >/dev/null ||
		skip RDMA_EXPORTER_PACKAGE_REQUIRED "$t not found (scripts/install-deps.sh --test installs it)"
done
. "$(dirname "$0")/../include/tap.sh"
SYSTEMCTL=$(command -v systemctl)
U=rdma_exporter

# --- two package versions of the build's binary -----------------------------------
build_deb() { # build_deb VERSION
	if (cd "$BUILD" && cpack -G DEB -B "$TMP/pkg-$1" -D CPACK_PACKAGE_VERSION="$1") \
		>"$TMP/cpack-$1.log" 2>&1; then
		ls "$TMP/pkg-$1/rdma-exporter_$1"_*.deb
	else
		sed 's/^/# /' "$TMP/cpack-$1.log" >&2
	fi
}
DEB1=$(build_deb 0.0.1)
DEB2=$(build_deb 0.0.2)
if [ -z "$DEB1" ] || [ -z "$DEB2" ]; then
	not_ok "cpack -G DEB for versions 0.0.1 and 0.0.2"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "cpack -G DEB for versions 0.0.1 and 0.0.2"

# Stubs that log their name and arguments, one call a line, to $STUBLOG.
# deb-systemd-helper's answers: was-enabled is true for the units in $WAS_ENABLED,
# debian-installed for those in $DEBIAN_INSTALLED.
make_stubs() { # make_stubs DIR NAME...
	local dir=$1 name
	shift
	mkdir -p "$dir"
	for name in "$@"; do
		cat >"$dir/$name" <<'STUB'
#!/bin/sh
name=${0##*/}
echo "$name $*" >>"$STUBLOG"
if [ "$name" = deb-systemd-helper ]; then
	[ "$1" = --quiet ] && shift
	case $1 in
	was-enabled) case " ${WAS_ENABLED:-} " in *" $2 "*) exit 0 ;; esac; exit 1 ;;
	debian-installed) case " ${DEBIAN_INSTALLED:-} " in *" $2 "*) exit 0 ;; esac; exit 1 ;;
	esac
fi
exit 0
STUB
		chmod 755 "$dir/$name"
	done
}

# --- 1. real dpkg into a scratch root -----------------------------------------------
R=$TMP/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
: >"$R/var/lib/dpkg/status"
: >"$R/var/lib/dpkg/available"
make_stubs "$TMP/hoststubs" systemctl deb-systemd-invoke
export STUBLOG=$TMP/host-calls.log
: >"$STUBLOG"
# Not root: a user namespace gives dpkg the root it chowns files to.
AS_ROOT=()
if [ "$(id -u)" -ne 0 ]; then
	AS_ROOT=(unshare -r)
fi
rdpkg() { # rdpkg ARGS...: dpkg on the scratch root, the stubs first on PATH
	PATH=$TMP/hoststubs:$PATH:/usr/sbin:/sbin "${AS_ROOT[@]}" dpkg --root="$R" \
		--force-script-chrootless --force-not-root --force-depends \
		--log="$TMP/dpkg.log" "$@" >>"$TMP/dpkg.out" 2>&1
}
status() { dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Version} ${Status}' rdma-exporter 2>/dev/null; }
enabled() { "$SYSTEMCTL" --root="$R" is-enabled "$1" 2>/dev/null; }
dpkg_step() { # dpkg_step DESCRIPTION EXPECTED_STATUS DPKG_ARGS...
	local d=$1 want=$2
	shift 2
	if rdpkg "$@" && [ "$(status)" = "$want" ]; then
		ok "$d: $want"
	else
		not_ok "$d: want '$want', dpkg-query says '$(status)'"
		sed 's/^/# /' "$TMP/dpkg.out"
	fi
	: >"$TMP/dpkg.out"
}

dpkg_step "dpkg -i 0.0.1" "0.0.1 install ok installed" -i "$DEB1"
check "installed: the binary runs" bash -c "'$R/usr/bin/rdma_exporter' --version >/dev/null"
check "installed: the units and the conffile" test -f "$R/usr/lib/systemd/system/$U.service" \
	-a -f "$R/usr/lib/systemd/system/$U.socket" -a -f "$R/etc/default/$U"
check "installed: the service is enabled (systemctl --root is-enabled)" \
	test "$(enabled $U.service)" = enabled
check "installed: the socket is not enabled" test "$(enabled $U.socket)" = disabled
check "installed: deb-systemd-helper keeps state for the service" \
	test -e "$R/var/lib/systemd/deb-systemd-helper-enabled/$U.service.dsh-also"

sed -i 's/^ARGS=.*/ARGS="--poll.interval=10s"/' "$R/etc/default/$U"
dpkg_step "dpkg -i 0.0.2 (upgrade)" "0.0.2 install ok installed" -i "$DEB2"
check "upgraded: the admin's ARGS= kept" grep -qx 'ARGS="--poll.interval=10s"' "$R/etc/default/$U"
check "upgraded: the service still enabled" test "$(enabled $U.service)" = enabled

# The admin prefers socket activation; a reinstall (postinst configure with the old
# version) must keep that choice.
"$SYSTEMCTL" --root="$R" --quiet disable $U.service 2>/dev/null
"$SYSTEMCTL" --root="$R" --quiet enable $U.socket 2>/dev/null
dpkg_step "dpkg -i 0.0.2 again (reinstall)" "0.0.2 install ok installed" -i "$DEB2"
check "reinstalled: the admin's disabled service stays disabled" \
	test "$(enabled $U.service)" = disabled
check "reinstalled: the admin's enabled socket stays enabled" test "$(enabled $U.socket)" = enabled

dpkg_step "dpkg -r" "0.0.2 deinstall ok config-files" -r rdma-exporter
check "removed: no binary, no unit file" test ! -e "$R/usr/bin/rdma_exporter" \
	-a ! -e "$R/usr/lib/systemd/system/$U.service"
check "removed: the conffile stays until purge" test -f "$R/etc/default/$U"

dpkg_step "dpkg -P (dpkg-query: not installed)" "" -P rdma-exporter
check "purged: the conffile is gone" test ! -e "$R/etc/default/$U"
left=$(find "$R/etc" "$R/var/lib/systemd" -name "$U.*" 2>/dev/null)
check "purged: no unit symlink and no deb-systemd-helper state left${left:+: $left}" test -z "$left"
check "DPKG_ROOT: no systemctl or deb-systemd-invoke call on this host" test ! -s "$STUBLOG"
sed 's/^/# host call: /' "$STUBLOG"

# --- 2. the scripts as on a host run by systemd -------------------------------------
CTL=$TMP/control
dpkg-deb -e "$DEB2" "$CTL"
make_stubs "$TMP/stubs" systemctl deb-systemd-helper deb-systemd-invoke
export STUBLOG=$TMP/calls.log
# run_script SCRIPT ARGS...: in a mount namespace with /run/systemd/system when
# $SYSTEMD_RUNNING is 1; prints the calls.
run_script() {
	: >"$STUBLOG"
	# shellcheck disable=SC2016
	unshare -rm sh -c 'mount -t tmpfs tmpfs /run &&
		if [ "$SYSTEMD_RUNNING" = 1 ]; then mkdir -p /run/systemd/system; fi &&
		PATH=$STUBS:$PATH exec sh "$@"' sh "$CTL/$1" "${@:2}" >/dev/null 2>&1 ||
		echo "exit status $?" >>"$STUBLOG"
	cat "$STUBLOG"
}
expect() { # expect DESCRIPTION EXPECTED_CALLS SCRIPT ARGS...
	local d=$1 want=$2 got
	shift 2
	got=$(run_script "$@")
	if [ "$got" = "$want" ]; then
		ok "$d"
	else
		not_ok "$d"
		diff <(echo "$want") <(echo "$got") | sed 's/^/# /'
	fi
}
export STUBS=$TMP/stubs SYSTEMD_RUNNING=1 WAS_ENABLED=$U.service DEBIAN_INSTALLED=
unset DPKG_ROOT
if ! unshare -rm sh -c 'mount -t tmpfs tmpfs /run' 2>/dev/null; then
	echo "# $pass passed, $fail failed"
	[ "$fail" -eq 0 ] || exit 1
	skip RDMA_EXPORTER_PACKAGE_REQUIRED "no mount namespace here (unshare -rm): the scripts' systemd branch is not run"
fi

H="deb-systemd-helper"
expect "systemd running: postinst configure (installation) enables and starts the service" \
	"$H unmask $U.service
$H --quiet was-enabled $U.service
$H enable $U.service
$H debian-installed $U.socket
$H update-state $U.socket
systemctl --system daemon-reload
deb-systemd-invoke start $U.service" postinst configure ""
WAS_ENABLED=$U.socket DEBIAN_INSTALLED="$U.service $U.socket"
expect "systemd running: postinst configure 0.0.1 (upgrade, admin chose the socket) keeps it, restarts the service" \
	"$H unmask $U.service
$H --quiet was-enabled $U.service
$H update-state $U.service
$H debian-installed $U.socket
$H unmask $U.socket
$H --quiet was-enabled $U.socket
$H enable $U.socket
$H update-state $U.socket
systemctl --system daemon-reload
deb-systemd-invoke restart $U.service" postinst configure 0.0.1
expect "systemd running: prerm upgrade stops nothing (postinst restarts)" "" prerm upgrade 0.0.2
expect "systemd running: prerm remove stops the service and the socket" \
	"deb-systemd-invoke stop $U.service $U.socket" prerm remove
expect "systemd running: postrm remove reloads systemd" \
	"systemctl --system daemon-reload" postrm remove
expect "systemd running: postrm purge purges both units' state" \
	"$H purge $U.service $U.socket" postrm purge
expect "systemd running: postrm upgrade does nothing" "" postrm upgrade 0.0.2

SYSTEMD_RUNNING=0 WAS_ENABLED=$U.service DEBIAN_INSTALLED=
expect "no systemd: postinst configure enables, starts nothing" \
	"$H unmask $U.service
$H --quiet was-enabled $U.service
$H enable $U.service
$H debian-installed $U.socket
$H update-state $U.socket" postinst configure ""
expect "no systemd: prerm remove calls nothing" "" prerm remove
expect "no systemd: postrm remove calls nothing" "" postrm remove
SYSTEMD_RUNNING=1
export DPKG_ROOT=/srv/chroot
expect "systemd running, DPKG_ROOT set: postinst configure 0.0.1 touches no running systemd" \
	"$H unmask $U.service
$H --quiet was-enabled $U.service
$H enable $U.service
$H debian-installed $U.socket
$H update-state $U.socket" postinst configure 0.0.1
expect "systemd running, DPKG_ROOT set: prerm remove calls nothing" "" prerm remove
unset DPKG_ROOT

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
