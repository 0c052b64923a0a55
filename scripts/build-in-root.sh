#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the release packages inside a Debian 11 (bullseye) root, so that the
# binary needs glibc 2.31 at most and the .deb's Depends (dpkg-shlibdeps) are
# bullseye's library versions: the packages then install on Debian 11, 12, 13,
# Ubuntu 22.04, 24.04 and (the RPM) RHEL 9 and its rebuilds (docs/install.md).
#   scripts/build-in-root.sh [--suite SUITE] [--arch ARCH] OUTDIR
# OUTDIR gets rdma-exporter_VERSION_ARCH.deb, rdma-exporter-VERSION-1.PROC.rpm
# (the root has rpmbuild: bullseye's rpm package), the stripped binary
# rdma_exporter and build-in-root.log. ARCH: amd64 (default, x86_64) or arm64
# (aarch64), a cross build in the same suite with its multiarch -dev packages,
# gcc-aarch64-linux-gnu and qemu-user (help2man on the binary), as
# scripts/cross-build.sh does on this machine; the glibc check reads the arm64
# binary with the cross binutils.
# The source: `git archive HEAD` in a clean checkout; in one with uncommitted
# changes the working tree's files (tracked and untracked, not the ignored
# ones), and the revision --version shows gets -dirty (a warning says so).
# The root: scripts/root-lib.sh (mmdebstrap, cached). Needs root.
# Fails when the binary needs a glibc newer than GLIBC_MAX (2.31, bullseye's).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/root-lib.sh

SUITE=bullseye
GLIBC_MAX=2.31
ARCH=amd64
while [ $# -gt 1 ]; do
	case $1 in
	--suite) SUITE=$2; shift 2 ;;
	--arch) ARCH=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: build-in-root.sh [--suite SUITE] [--arch ARCH] OUTDIR" >&2; exit 2; }
# ARCH -> its GNU triplet (cmake/toolchain-TRIPLET.cmake, the multiarch directory,
# the cross tools' prefix); empty for this machine's. One line per architecture.
case $ARCH in
amd64) TRIPLET= ;;
arm64) TRIPLET=aarch64-linux-gnu ;;
*) echo "build-in-root: no build for architecture '$ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "build-in-root: needs root (chroot)" >&2; exit 1; }

# What scripts/install-deps.sh installs to build, plus rpm (rpmbuild) and
# binutils' objdump (build-essential) for the glibc check.
DEV_PKGS="libmicrohttpd-dev libmnl-dev libibverbs-dev librdmacm-dev libsystemd-dev zlib1g-dev
	libyaml-dev libgnutls28-dev libcrypt-dev libprotobuf-c-dev"
PKGS="build-essential cmake pkg-config help2man protobuf-c-compiler python3 rpm file dpkg-dev"
if [ -z "$TRIPLET" ]; then
	TAR=$(root_tarball "$SUITE" apt "$PKGS $DEV_PKGS")
	CMAKE_CROSS='' CPACK_ENV='' TOOLS=''
else
	# No security archive here: this workplace's mirror has no arm64 packages of
	# bullseye-security (404), and multiarch wants one version of each library for
	# both architectures. The build needs headers and symbols, not the fixes: the
	# packages' users install their own libraries (Depends).
	TAR=$(ROOT_SECURITY=off root_tarball "$SUITE" apt "$PKGS gcc-$TRIPLET binutils-$TRIPLET qemu-user libc6-dev:$ARCH
		$(printf '%s:'"$ARCH"' ' $DEV_PKGS)" "$(dpkg --print-architecture),$ARCH")
	CMAKE_CROSS="-DCMAKE_TOOLCHAIN_FILE=/build/src/cmake/toolchain-$TRIPLET.cmake"
	# dpkg-shlibdeps (cpack) reads ARCH's libraries and their packages when told the host
	CPACK_ENV="DEB_HOST_ARCH=$ARCH DEB_HOST_MULTIARCH=$TRIPLET"
	TOOLS=$TRIPLET-
fi

R=$(mktemp -d "${TMPDIR:-/var/tmp}/rdma_exporter-root.XXXXXX")
trap 'rm -rf "$R"' EXIT
root_unpack "$TAR" "$R"
mkdir -p "$R/build/src" "$R/build/out"

REV=$(git rev-parse --short=12 HEAD)
EPOCH=$(git log -1 --format=%ct HEAD)
if [ -z "$(git status --porcelain)" ]; then
	git archive --format=tar HEAD | tar -C "$R/build/src" -xf -
else
	echo "build-in-root: uncommitted changes: building the working tree as $REV-dirty" >&2
	REV=$REV-dirty
	EPOCH=$(date +%s)
	git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf - | tar -C "$R/build/src" -xf -
fi

cat >"$R/build/run.sh" <<SCRIPT
set -eu
export SOURCE_DATE_EPOCH=$EPOCH
cmake -S /build/src -B /build/b -DCMAKE_BUILD_TYPE=Release -DRDMA_EXPORTER_TESTS=OFF \
	-DRDMA_EXPORTER_SANITIZE=OFF -DRDMA_EXPORTER_TSAN=OFF -DRDMA_EXPORTER_WERROR=ON \
	-DRDMA_EXPORTER_REVISION=$REV $CMAKE_CROSS
cmake --build /build/b -j$(nproc) -- -k
cd /build/b && env $CPACK_ENV cpack -G "DEB;RPM" -B /build/out/cpack
cp /build/out/cpack/*.deb /build/out/cpack/*.rpm /build/out/
cp /build/b/rdma_exporter /build/out/rdma_exporter
${TOOLS}strip --strip-unneeded /build/out/rdma_exporter
${TOOLS}objdump -T /build/out/rdma_exporter | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1 >/build/out/glibc
dpkg-deb -f /build/out/*.deb Depends >/build/out/depends
dpkg-deb -f /build/out/*.deb Architecture >/build/out/arch
file -b /build/out/rdma_exporter >/build/out/file
SCRIPT
if ! root_run "$R" sh /build/run.sh >"$OUT/build-in-root.log" 2>&1; then
	tail -30 "$OUT/build-in-root.log" >&2
	echo "build-in-root: the build in $SUITE failed (all of it in $OUT/build-in-root.log)" >&2
	exit 1
fi
cp "$R"/build/out/*.deb "$R"/build/out/*.rpm "$R/build/out/rdma_exporter" "$OUT/"
glibc=$(cat "$R/build/out/glibc")
echo "build-in-root: $SUITE $ARCH build of $REV: needs glibc $glibc; Depends: $(cat "$R/build/out/depends")"
echo "build-in-root: $(cat "$R/build/out/file")"
[ "$(cat "$R/build/out/arch")" = "$ARCH" ] ||
	{ echo "build-in-root: the .deb has Architecture: $(cat "$R/build/out/arch"), not $ARCH" >&2; exit 1; }
if [ "$(printf '%s\n%s\n' "$glibc" "$GLIBC_MAX" | sort -V | tail -1)" != "$GLIBC_MAX" ]; then
	echo "build-in-root: the binary needs glibc $glibc, more than $GLIBC_MAX" >&2
	exit 1
fi
ls -l "$OUT"
