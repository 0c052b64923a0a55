#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The RPM (cpack -G RPM, for RHEL-family systems), checked on this Debian host:
# rpmlint with packaging/rpm/rpmlint.toml (no error, no warning), the file list
# (rpm -qlp) against the .deb's, %config(noreplace) on /etc/default/rdma_exporter,
# Requires: (RHEL package names for every DT_NEEDED of the binary, from
# packaging/rpm/requires.map, each with its minimum version; glibc's the newest
# GLIBC_ symbol version the binary uses), the version from CHANGELOG.md and %changelog, the
# payload extracted with rpm2cpio | cpio (the binary runs, the unit names it).
# Then two versions (0.0.1, then the one above) through rpm --root --noscripts into a scratch
# database (install, upgrade keeping an edited config, erase), and the scriptlets
# rpm -qp --scripts shows, run in rpm's order for install, upgrade and erase with
# $1 = 1, 2, 1, 0 under stubs that log: as on RHEL 9 and 10 (with
# /usr/lib/systemd/systemd-update-helper, made in a mount namespace) and as on RHEL
# 8 (without). No systemd runs: the units are never started (docs/install.md).
#
# Exit 77 (skipped) where a tool is missing or no mount namespace can be made
# for the scriptlets; exit 1 (failed) instead with
# RDMA_EXPORTER_PACKAGE_REQUIRED=1 (CI).
#
#   package-rpm.sh BUILD_DIR
set -u
. "$(dirname "$0")/../include/skip.sh"
for t in rpm rpmbuild rpmlint rpm2cpio cpio cpack readelf python3; do
	command -v "$t" >/dev/null ||
		skip RDMA_EXPORTER_PACKAGE_REQUIRED "$t not found (scripts/install-deps.sh --test installs it)"
done
. "$(dirname "$0")/package-lib.sh"
U=rdma_exporter

RPM=$(package_build RPM "$TMP/out")
if [ -z "$RPM" ]; then
	not_ok "cpack -G RPM"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "cpack -G RPM: $(basename "$RPM")"

rpmlint -c "$SRC/packaging/rpm/rpmlint.toml" "$RPM" >"$TMP/rpmlint.log" 2>&1
grep -E '^[^ ]+: [EW]: |errors?, [0-9]+ warnings?' "$TMP/rpmlint.log" | sed 's/^/# rpmlint: /'
check "rpmlint: 0 errors, 0 warnings" grep -q ' 0 errors, 0 warnings' "$TMP/rpmlint.log"

# --- the file list, as the .deb's (plus the build-id link rpmbuild adds) -----------
rpm -qlp "$RPM" | grep -v '^/usr/lib/\.build-id' >"$TMP/rpmlist"
(rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$RPM" | awk '$1 !~ /^d/ {print $2}' |
	grep -v '^/usr/lib/\.build-id' | sort) >"$TMP/files"
package_expected_files "$TMP/expected"
if diff -u "$TMP/expected" "$TMP/files" >"$TMP/files.diff"; then
	ok "rpm -qlp: the files of the .deb"
else
	not_ok "rpm -qlp: the files of the .deb"
	sed 's/^/# /' "$TMP/files.diff"
fi
check "no directory of the filesystem or systemd packages is owned" \
	bash -c "! grep -qxE '/etc|/etc/default|/usr(/bin|/lib|/lib/systemd|/lib/systemd/system|/share|/share/man|/share/man/man1|/share/doc)?' '$TMP/rpmlist'"
check "/etc/default/rdma_exporter is %config(noreplace)" bash -c \
	"rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' '$RPM' | grep -qx 'cn /etc/default/rdma_exporter'"

# --- Requires: every DT_NEEDED soname as its RHEL package ---------------------------
MAP=$SRC/packaging/rpm/requires.map
BIN=$(sed -n 's/^set(RDMA_EXPORTER_BIN "\(.*\)")$/\1/p' "$BUILD/CPackProjectConfig.cmake")
# glibc: the newest GLIBC_ symbol version the binary uses; the others: requires.map's
# third column (">= VERSION").
GLIBC=$(readelf -W --dyn-syms "$BIN" | grep -o '@GLIBC_[0-9.]*' | sed 's/@GLIBC_//' | sort -uV | tail -1)
readelf -dW "$BIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r so; do
	awk -v so="$so" -v glibc="$GLIBC" '$1 == so {
		if ($2 == "glibc") print "glibc >= " glibc
		else if ($3 == ">=") print $2 " >= " $4
		else print $2 }' "$MAP"
done | sort -u >"$TMP/want-requires"
rpm -qpR "$RPM" | grep -v '^rpmlib(\|^/bin/sh$\|^systemd$' | sort -u >"$TMP/requires"
echo "# Requires: $(tr '\n' ',' <"$TMP/requires" | sed 's/,$//; s/,/, /g')"
check "Requires: the RHEL package of every library the binary links, no other" \
	diff "$TMP/want-requires" "$TMP/requires"
check "Requires: every one with a minimum version (>=)" bash -c "! grep -qv ' >= [0-9]' '$TMP/requires'"
check "Requires: glibc >= $GLIBC, the newest GLIBC_ symbol version the binary uses" \
	grep -qx "glibc >= $GLIBC" "$TMP/requires"
check "Requires: names systemd-libs, libibverbs, libmicrohttpd and zlib, versioned" bash -c \
	"for p in systemd-libs libibverbs libmicrohttpd zlib; do grep -q \"^\$p >= \" '$TMP/requires' || exit 1; done"
check "Requires(post), (preun), (postun): systemd" bash -c \
	"[ \$(rpm -qp --qf '[%{REQUIREFLAGS:deptype} %{REQUIRENAME}\n]' '$RPM' | grep -c 'post.* systemd$\|preun.* systemd$\|postun.* systemd$') -eq 3 ]"

# --- version and %changelog from CHANGELOG.md -------------------------------------------
PROJ=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$BUILD/CMakeCache.txt")
PKGVER=$(python3 "$SRC/scripts/gen-changelog.py" --print-version --version "$PROJ" "$SRC/CHANGELOG.md")
check "version-release is CHANGELOG.md's version, release 1 ($PKGVER-1)" \
	test "$(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$RPM")" = "$PKGVER-1"
rpm -qp --changelog "$RPM" >"$TMP/changelog"
check "%changelog: the top entry is $PKGVER-1" bash -c "head -1 '$TMP/changelog' | grep -q ' - $PKGVER-1\$'"
check "%changelog: one entry per CHANGELOG.md version" test "$(grep -c '^\* ' "$TMP/changelog")" = \
	"$(grep -c '^## \[[0-9]' "$SRC/CHANGELOG.md" | awk -v u="$(grep -c '^## \[Unreleased\]' "$SRC/CHANGELOG.md")" '{print $1 + u}')"

# --- the payload ----------------------------------------------------------------------
X=$TMP/x
mkdir -p "$X"
check "rpm2cpio | cpio -idm extracts it" bash -c "cd '$X' && rpm2cpio '$RPM' | cpio -idm --quiet"
check "extracted: rdma_exporter --version runs" bash -c "'$X/usr/bin/rdma_exporter' --version >/dev/null"
check "extracted: the unit runs /usr/bin/rdma_exporter" \
	grep -q '^ExecStart=/usr/bin/rdma_exporter ' "$X/usr/lib/systemd/system/$U.service"

# --- two versions through rpm --root (files and database, no scriptlet) ---------------
RPM1=$(package_build RPM "$TMP/v1" -D CPACK_PACKAGE_VERSION=0.0.1)
RPM2=$RPM
R=$TMP/root
AS_ROOT=()
[ "$(id -u)" -ne 0 ] && AS_ROOT=(unshare -r)
rrpm() { "${AS_ROOT[@]}" rpm --root="$R" --dbpath=/var/lib/rpm "$@" >>"$TMP/rpm.out" 2>&1; }
qver() { rpm --root="$R" --dbpath=/var/lib/rpm -q --qf '%{VERSION}' rdma-exporter 2>/dev/null; }
mkdir -p "$R"
rrpm --initdb
rrpm -i --noscripts --nodeps "$RPM1"
check "rpm --root -i 0.0.1: installed version $(qver)" test "$(qver)" = 0.0.1
sed -i 's/^ARGS=.*/ARGS="--poll.interval=10s"/' "$R/etc/default/$U" 2>/dev/null
rrpm -U --noscripts --nodeps "$RPM2"
check "rpm --root -U $PKGVER: installed version $(qver)" test "$(qver)" = "$PKGVER"
check "upgraded: the admin's ARGS= kept" grep -qx 'ARGS="--poll.interval=10s"' "$R/etc/default/$U"
rrpm -e --noscripts --nodeps rdma-exporter
check "rpm --root -e: gone from the database and the disk" bash -c \
	"! rpm --root='$R' --dbpath=/var/lib/rpm -q rdma-exporter >/dev/null 2>&1 && [ ! -e '$R/usr/bin/rdma_exporter' ]"
check "erased: the edited config is kept as .rpmsave" test -f "$R/etc/default/$U.rpmsave"
[ "$fail" -eq 0 ] || sed 's/^/# rpm: /' "$TMP/rpm.out"

# --- the scriptlets, in rpm's order, under stubs ------------------------------------
S=$TMP/scripts
mkdir -p "$S"
for v in 1 2; do
	f=RPM$v
	for tag in POSTIN PREUN POSTUN; do
		rpm -qp --qf "%{$tag}" "${!f}" >"$S/$tag.$v"
	done
done
check "the scriptlets: %post, %preun and %postun from packaging/rpm/" bash -c \
	"cmp -s <(grep -v '^\$' '$S/POSTIN.2') <(grep -v '^\$' '$SRC/packaging/rpm/post.sh') &&
	 cmp -s <(grep -v '^\$' '$S/PREUN.2') <(grep -v '^\$' '$SRC/packaging/rpm/preun.sh') &&
	 cmp -s <(grep -v '^\$' '$S/POSTUN.2') <(grep -v '^\$' '$SRC/packaging/rpm/postun.sh')"
if ! unshare -rm sh -c 'mount -t tmpfs tmpfs /usr/lib/systemd' 2>/dev/null; then
	echo "# $pass passed, $fail failed"
	[ "$fail" -eq 0 ] || exit 1
	skip RDMA_EXPORTER_PACKAGE_REQUIRED "no mount namespace here (unshare -rm): the scriptlets are not run"
fi
mkdir -p "$TMP/stubs"
cat >"$TMP/stubs/log" <<'STUB'
#!/bin/sh
echo "${0##*/} $*" >>"$STUBLOG"
STUB
chmod 755 "$TMP/stubs/log"
ln -s log "$TMP/stubs/systemctl"
ln -s log "$TMP/stubs/systemd-update-helper"
export STUBLOG=$TMP/calls.log STUBS=$TMP/stubs
# run_tx HELPER STEP...: each STEP is SCRIPTLET.VERSION:ARG, run as rpm runs it
# (sh SCRIPT ARG) in a mount namespace whose /usr/lib/systemd holds the stub
# systemd-update-helper when HELPER is 1 (RHEL 9) and is empty when 0 (RHEL 8).
run_tx() {
	local helper=$1 step
	shift
	: >"$STUBLOG"
	for step in "$@"; do
		# shellcheck disable=SC2016
		HELPER=$helper unshare -rm sh -c 'mount -t tmpfs tmpfs /usr/lib/systemd &&
			if [ "$HELPER" = 1 ]; then cp -P "$STUBS/log" /usr/lib/systemd/systemd-update-helper; fi &&
			PATH=$STUBS:$PATH exec sh "$@"' sh "$S/${step%%:*}" "${step#*:}" >/dev/null 2>&1 ||
			echo "$step: exit status $?" >>"$STUBLOG"
	done
	cat "$STUBLOG"
}
expect() { # expect DESCRIPTION EXPECTED HELPER STEP...
	local d=$1 want=$2 got
	shift 2
	got=$(run_tx "$@")
	if [ "$got" = "$want" ]; then
		ok "$d"
	else
		not_ok "$d"
		diff <(echo "$want") <(echo "$got") | sed 's/^/# /'
	fi
}
UNITS="$U.service $U.socket"
# Install: %post 1. Upgrade 0.0.1 -> the build's: new %post 2, old %preun 1, old %postun 1.
# Erase: %preun 0, %postun 0.
expect "RHEL 9: install applies the presets" \
	"systemd-update-helper install-system-units $UNITS" 1 POSTIN.1:1
expect "RHEL 9: upgrade marks the service for restart, nothing else" \
	"systemd-update-helper mark-restart-system-units $U.service" 1 POSTIN.2:2 PREUN.1:1 POSTUN.1:1
expect "RHEL 9: erase disables and stops both units" \
	"systemd-update-helper remove-system-units $UNITS" 1 PREUN.2:0 POSTUN.2:0
expect "RHEL 8: install applies the presets" \
	"systemctl --no-reload preset $UNITS" 0 POSTIN.1:1
expect "RHEL 8: upgrade restarts the service if it runs" \
	"systemctl try-restart $U.service" 0 POSTIN.2:2 PREUN.1:1 POSTUN.1:1
expect "RHEL 8: erase disables and stops both units" \
	"systemctl --no-reload disable --now $UNITS" 0 PREUN.2:0 POSTUN.2:0

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
