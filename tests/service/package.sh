#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The Debian package: cpack builds it from the build dir, dpkg-deb extracts it into a
# scratch root, and the test checks the file list, the control data (shlibs
# dependencies, the conffile, the maintainer scripts, which package-lifecycle.sh
# runs), runs rdma_exporter --version from the extracted path, verifies the extracted
# units and runs lintian (errors and warnings fail; in an optimised build no hardening-* tag of
# lintian -I) and checks the hardening with readelf.
#
#   package.sh BUILD_DIR
set -u
. "$(dirname "$0")/package-lib.sh"
ROOT=$TMP/root

DEB=$(package_build DEB "$TMP/out")
if [ -z "$DEB" ]; then
	not_ok "cpack -G DEB: no rdma-exporter_*.deb"
	echo "# $pass passed, $fail failed"
	exit 1
fi
ok "cpack -G DEB"
echo "# $(basename "$DEB")"

mkdir -p "$ROOT"
check "dpkg-deb -x into a scratch root" dpkg-deb -x "$DEB" "$ROOT"
(cd "$ROOT" && find . -type f | sed 's#^\./#/#' | sort) >"$TMP/files"
package_expected_files "$TMP/expected"
if diff -u "$TMP/expected" "$TMP/files" >"$TMP/files.diff"; then
	ok "the file list"
else
	not_ok "the file list"
	sed 's/^/# /' "$TMP/files.diff"
fi

out=$("$ROOT/usr/bin/rdma_exporter" --version 2>&1)
rc=$?
echo "# $out"
check "rdma_exporter --version from the extracted path" \
	bash -c "[ $rc -eq 0 ] && [[ '$out' == 'rdma_exporter, version '* ]]"
check "the man page is the real --help" \
	bash -c "zcat '$ROOT/usr/share/man/man1/rdma_exporter.1.gz' | grep -q 'listen\\\\-address'"

dpkg-deb -f "$DEB" Depends >"$TMP/depends"
echo "# Depends: $(cat "$TMP/depends")"
check "Depends from shlibs names libmicrohttpd and libibverbs" \
	grep -q 'libmicrohttpd.*libibverbs\|libibverbs.*libmicrohttpd' "$TMP/depends"
dpkg-deb --ctrl-tarfile "$DEB" | tar -t | sed 's#^\./##' | grep . | sort >"$TMP/control"
check "control files: conffiles, control, md5sums and the maintainer scripts" \
	diff <(printf 'conffiles\ncontrol\nmd5sums\npostinst\npostrm\nprerm\n') "$TMP/control"
check "/etc/default/rdma_exporter is a conffile" \
	bash -c "dpkg-deb --info '$DEB' conffiles | grep -qx /etc/default/rdma_exporter"
check "the unit runs the packaged binary" \
	grep -q '^ExecStart=/usr/bin/rdma_exporter \$ARGS$' \
	"$ROOT/usr/lib/systemd/system/rdma_exporter.service"
check "the unit reads the packaged environment file" \
	grep -q '^EnvironmentFile=-/etc/default/rdma_exporter$' \
	"$ROOT/usr/lib/systemd/system/rdma_exporter.service"
check "the environment file sets ARGS" grep -q '^ARGS=' "$ROOT/etc/default/rdma_exporter"
# verify needs the binary where ExecStart= says: point it into the scratch root.
mkdir -p "$TMP/units"
sed "s#^ExecStart=/usr/bin/#ExecStart=$ROOT/usr/bin/#" \
	"$ROOT/usr/lib/systemd/system/rdma_exporter.service" >"$TMP/units/rdma_exporter.service"
cp "$ROOT/usr/lib/systemd/system/rdma_exporter.socket" "$TMP/units/"
check "systemd-analyze verify on the extracted units" \
	systemd-analyze verify --man=no "$TMP/units/rdma_exporter.service" \
	"$TMP/units/rdma_exporter.socket"

# cmake --install honours --prefix and DESTDIR, in the unit's paths too.
if DESTDIR=$TMP/destdir cmake --install "$BUILD" --prefix /opt/rdmax >"$TMP/install.log" 2>&1; then
	ok "cmake --install --prefix /opt/rdmax with DESTDIR"
else
	not_ok "cmake --install --prefix /opt/rdmax with DESTDIR"
	sed 's/^/# /' "$TMP/install.log"
fi
(cd "$TMP/destdir" && find . -type f | sed 's#^\./#/#' | sort) >"$TMP/installed"
sed 's#^/etc/#/opt/rdmax/etc/#; s#^/usr/#/opt/rdmax/#' "$TMP/expected" | sort >"$TMP/expected2"
if diff -u "$TMP/expected2" "$TMP/installed" >"$TMP/installed.diff"; then
	ok "cmake --install: the same files under the prefix"
else
	not_ok "cmake --install: the same files under the prefix"
	sed 's/^/# /' "$TMP/installed.diff"
fi
U=$TMP/destdir/opt/rdmax/lib/systemd/system/rdma_exporter.service
check "cmake --install: ExecStart= and EnvironmentFile= follow the prefix" \
	bash -c "grep -qx 'ExecStart=/opt/rdmax/bin/rdma_exporter \$ARGS' '$U' &&
	grep -qx 'EnvironmentFile=-/opt/rdmax/etc/default/rdma_exporter' '$U'"

# lintian refuses nothing as root but says so; its verdicts are E: and W: lines.
lintian --tag-display-limit 0 "$DEB" >"$TMP/lintian.log" 2>&1
grep -v '^running with root privileges' "$TMP/lintian.log" | sed 's/^/# lintian: /'
check "lintian: no error" bash -c "! grep -q '^E: ' '$TMP/lintian.log'"
check "lintian: no warning (maintainer scripts, changelog.gz included)" \
	bash -c "! grep -q '^W: ' '$TMP/lintian.log'"
check "lintian ran" bash -c "! grep -qi 'command not found\|^internal error' '$TMP/lintian.log'"

# Hardening (RDMA_EXPORTER_HARDEN): lintian's informational hardening-* tags
# and the dynamic section. A Debug build (the sanitizer run) is built without
# _FORTIFY_SOURCE, which needs optimisation: there only RELRO, BIND_NOW and
# PIE are checked.
BTYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
lintian -I --tag-display-limit 0 "$DEB" >"$TMP/lintian-info.log" 2>&1
if [ "$BTYPE" = Debug ]; then
	echo "# Debug build: hardening-no-fortify-functions is expected, not checked"
	check "lintian -I: no hardening tag but fortify (Debug build)" \
		bash -c "! grep 'hardening-' '$TMP/lintian-info.log' | grep -vq 'hardening-no-fortify-functions'"
else
	grep 'hardening-' "$TMP/lintian-info.log" | sed 's/^/# lintian -I: /'
	check "lintian -I: no hardening-* tag" bash -c "! grep -q 'hardening-' '$TMP/lintian-info.log'"
fi
BIN=$ROOT/usr/bin/rdma_exporter
check "readelf: full RELRO (GNU_RELRO and BIND_NOW)" bash -c \
	"readelf -lW '$BIN' | grep -q GNU_RELRO && readelf -dW '$BIN' | grep -Eq 'BIND_NOW|FLAGS_1.*NOW'"
check "readelf: a position-independent executable" bash -c "readelf -hW '$BIN' | grep -q 'DYN'"
check "a stack protector is in the binary" bash -c "readelf -sW --dyn-syms '$BIN' | grep -q __stack_chk_fail"
if [ "$BTYPE" != Debug ]; then
	check "fortified libc calls are in the binary" bash -c "readelf -sW --dyn-syms '$BIN' | grep -q '__[a-z_]*_chk@'"
fi

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
