#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the release packages inside a Debian 11 (bullseye) root, so that the
# binary needs glibc 2.31 at most and the .deb's Depends (dpkg-shlibdeps) are
# bullseye's library versions: the packages then install on Debian 11, 12, 13,
# Ubuntu 22.04, 24.04 and (the RPM) RHEL 9 and its rebuilds (docs/install.md).
#   scripts/build-in-root.sh [--suite SUITE] OUTDIR
# OUTDIR gets rdma-exporter_VERSION_amd64.deb, rdma-exporter-VERSION-1.x86_64.rpm
# (the root has rpmbuild: bullseye's rpm package), the stripped binary
# rdma_exporter and build-in-root.log.
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
while [ $# -gt 1 ]; do
	case $1 in
	--suite) SUITE=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: build-in-root.sh [--suite SUITE] OUTDIR" >&2; exit 2; }
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "build-in-root: needs root (chroot)" >&2; exit 1; }

# What scripts/install-deps.sh installs to build, plus rpm (rpmbuild) and
# binutils' objdump (build-essential) for the glibc check.
PKGS="build-essential cmake pkg-config libmicrohttpd-dev libmnl-dev libibverbs-dev
	librdmacm-dev libsystemd-dev zlib1g-dev libyaml-dev libgnutls28-dev libcrypt-dev help2man
	libprotobuf-c-dev protobuf-c-compiler python3 rpm file dpkg-dev"
TAR=$(root_tarball "$SUITE" apt "$PKGS")

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
	-DRDMA_EXPORTER_REVISION=$REV
cmake --build /build/b -j$(nproc) -- -k
cd /build/b && cpack -G "DEB;RPM" -B /build/out/cpack
cp /build/out/cpack/*.deb /build/out/cpack/*.rpm /build/out/
cp /build/b/rdma_exporter /build/out/rdma_exporter
strip --strip-unneeded /build/out/rdma_exporter
objdump -T /build/out/rdma_exporter | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1 >/build/out/glibc
dpkg-deb -f /build/out/*.deb Depends >/build/out/depends
SCRIPT
if ! root_run "$R" sh /build/run.sh >"$OUT/build-in-root.log" 2>&1; then
	tail -30 "$OUT/build-in-root.log" >&2
	echo "build-in-root: the build in $SUITE failed (all of it in $OUT/build-in-root.log)" >&2
	exit 1
fi
cp "$R"/build/out/*.deb "$R"/build/out/*.rpm "$R/build/out/rdma_exporter" "$OUT/"
glibc=$(cat "$R/build/out/glibc")
echo "build-in-root: $SUITE build of $REV: needs glibc $glibc; Depends: $(cat "$R/build/out/depends")"
if [ "$(printf '%s\n%s\n' "$glibc" "$GLIBC_MAX" | sort -V | tail -1)" != "$GLIBC_MAX" ]; then
	echo "build-in-root: the binary needs glibc $glibc, more than $GLIBC_MAX" >&2
	exit 1
fi
ls -l "$OUT"
