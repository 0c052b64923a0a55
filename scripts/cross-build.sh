#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds rdma_exporter for another Debian architecture on this machine, with
# Debian's multiarch and cross toolchain (docs/install.md, "arm64"):
#   scripts/cross-build.sh [--deb] [--no-install] ARCH BUILD_DIR
# ARCH is a Debian architecture of the table below (arm64). It installs what
# is missing (scripts/install-deps.sh --cross ARCH: the cross compiler, the
# :ARCH -dev packages, qemu-user), configures BUILD_DIR as a Release build
# without tests with cmake/toolchain-<triplet>.cmake and builds the binary,
# BUILD_DIR/rdma_exporter. --deb: also the man page (help2man on the binary
# under qemu-user) and the .deb, with cpack, into BUILD_DIR/packages/; its
# Architecture field must be ARCH. --no-install: fail instead of installing
# (the cross_arm64_goldens test). The last line printed names the binary (and
# the package). Debian 11 and 12: only what their apt, dpkg and cmake have.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	echo "usage: cross-build.sh [--deb] [--no-install] ARCH BUILD_DIR" >&2
	exit 2
}
DEB=0
INSTALL=1
while [ $# -gt 0 ]; do
	case $1 in
	--deb) DEB=1; shift ;;
	--no-install) INSTALL=0; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
ARCH=$1
BUILD=$2

# Debian architecture -> GNU triplet (the toolchain file's name, the
# multiarch directory, the compiler's prefix) and the qemu-user binary. One
# line per architecture (scripts/install-deps.sh has the same table).
case $ARCH in
arm64) TRIPLET=aarch64-linux-gnu QEMU=qemu-aarch64 ;;
*) echo "cross-build: no cross build for '$ARCH' (arm64)" >&2; exit 2 ;;
esac
TOOLCHAIN=$PWD/cmake/toolchain-$TRIPLET.cmake

if [ $INSTALL = 1 ]; then
	scripts/install-deps.sh --cross "$ARCH"
else
	for p in "$TRIPLET-gcc" "$QEMU"; do
		command -v "$p" >/dev/null ||
			{ echo "cross-build: $p not found (scripts/install-deps.sh --cross $ARCH)" >&2; exit 1; }
	done
	[ -e "/usr/lib/$TRIPLET/pkgconfig/libibverbs.pc" ] ||
		{ echo "cross-build: no $ARCH -dev packages (scripts/install-deps.sh --cross $ARCH)" >&2; exit 1; }
fi

cmake -S . -B "$BUILD" -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" -DCMAKE_BUILD_TYPE=Release \
	-DRDMA_EXPORTER_TESTS=OFF -DRDMA_EXPORTER_SANITIZE=OFF -DRDMA_EXPORTER_TSAN=OFF >/dev/null
# A build dir configured for another architecture (or natively) keeps its
# compiler: say so rather than build the wrong thing.
grep -qs "^set(CMAKE_C_COMPILER \".*/$TRIPLET-gcc" "$BUILD"/CMakeFiles/*/CMakeCCompiler.cmake || {
	echo "cross-build: $BUILD was configured with another compiler: use a fresh directory" >&2
	exit 1
}
jobs=$(nproc)
if [ $DEB = 0 ]; then
	cmake --build "$BUILD" -j"$jobs" --target rdma_exporter >/dev/null
	echo "cross-build: $BUILD/rdma_exporter ($ARCH)"
	exit 0
fi

cmake --build "$BUILD" -j"$jobs" >/dev/null
rm -rf "$BUILD/packages"
# dpkg-shlibdeps looks the libraries up in ARCH's multiarch directories and
# their packages (libfoo:ARCH) when told the host architecture.
(cd "$BUILD" && DEB_HOST_ARCH=$ARCH DEB_HOST_MULTIARCH=$TRIPLET cpack -G DEB -B "$PWD/packages" >/dev/null)
deb=$(ls "$BUILD"/packages/*.deb)
got=$(dpkg-deb -f "$deb" Architecture)
[ "$got" = "$ARCH" ] || { echo "cross-build: $deb has Architecture: $got, not $ARCH" >&2; exit 1; }
echo "cross-build: Depends: $(dpkg-deb -f "$deb" Depends)"
echo "cross-build: $BUILD/rdma_exporter $deb ($ARCH)"
