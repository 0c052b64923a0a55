#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the release packages and checks them:
#   scripts/package.sh [BUILD_DIR]     (default build-pkg)
# configures BUILD_DIR as a release build without tests, builds it, runs
# cpack -G DEB and -G RPM (the RPM only where rpmbuild is installed) into
# BUILD_DIR/packages/, then lintian and rpmlint (packaging/rpm/rpmlint.toml) on
# them. Exits non-zero on a build failure or on any lintian or rpmlint error or
# warning. docs/install.md says what the packages do.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-pkg}
OUT=$BUILD/packages

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRDMA_EXPORTER_TESTS=OFF \
	-DRDMA_EXPORTER_SANITIZE=OFF -DRDMA_EXPORTER_TSAN=OFF >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null
gens=DEB
command -v rpmbuild >/dev/null && gens="DEB;RPM"
rm -rf "$OUT"
(cd "$BUILD" && cpack -G "$gens" -B "$PWD/packages" >/dev/null)
rc=0
for p in "$OUT"/*.deb; do
	echo "== $p"
	if command -v lintian >/dev/null; then
		lintian --tag-display-limit 0 "$p" 2>&1 | grep -v '^running with root privileges' |
			tee "$OUT/lintian.log" || true
		grep -q '^[EW]: ' "$OUT/lintian.log" && rc=1
	fi
done
for p in "$OUT"/*.rpm; do
	[ -e "$p" ] || continue
	echo "== $p"
	if command -v rpmlint >/dev/null; then
		rpmlint -c packaging/rpm/rpmlint.toml "$p" | grep -E ': [EW]: |checked' || true
		rpmlint -c packaging/rpm/rpmlint.toml "$p" | grep -q ' 0 errors, 0 warnings' || rc=1
	fi
done
exit $rc
