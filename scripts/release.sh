#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Makes the release artefacts of VERSION in one folder; uploads nothing:
#   scripts/release.sh [--check] [--out DIR] [--no-arm64] VERSION
# Refuses (exit 1, before building anything) a checkout with uncommitted
# changes or untracked files, a VERSION that is not the project version in
# CMakeLists.txt, and a CHANGELOG.md without a "## [VERSION] - DATE" entry (the
# "Unreleased" section is not a release). Then, into DIR (default dist/VERSION/):
#   rdma_exporter-VERSION.tar.gz          the source (git archive of HEAD)
#   rdma-exporter_VERSION_amd64.deb,      built in a Debian 11 root
#   rdma-exporter-VERSION-1.x86_64.rpm    (scripts/build-in-root.sh)
#   rdma-exporter_VERSION_arm64.deb,      cross-built in a Debian 11 root
#   rdma-exporter-VERSION-1.aarch64.rpm   (scripts/build-in-root.sh --arch arm64;
#                                         --no-arm64: amd64 only, said in the summary)
#   rdma-exporter-VERSION.oci.tar         the image, an OCI archive for skopeo: the
#                                         multi-arch index of the amd64 and arm64
#                                         images (scripts/build-image.sh --index, the
#                                         Debian 11 binaries); amd64 alone with --no-arm64
#   rdma-exporter-VERSION-ARCH.spdx.json  the SPDX SBOM of each image (scripts/image-sbom.py)
#   SHA256SUMS                            sha256sum of all the above
# --check: also installs the .deb in Debian 11, 12 and 13 roots
# (scripts/install-test.sh). docs/install.md says how a site mirrors the folder.
# Needs root (the Debian 11 root), mmdebstrap, buildah.
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK=0
ARM64=1
OUT=
while [ $# -gt 0 ]; do
	case $1 in
	--check) CHECK=1; shift ;;
	--no-arm64) ARM64=0; shift ;;
	--out) OUT=$2; shift 2 ;;
	-*) echo "usage: release.sh [--check] [--out DIR] [--no-arm64] VERSION" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: release.sh [--check] [--out DIR] [--no-arm64] VERSION" >&2; exit 2; }
V=$1
die() { echo "release: $*" >&2; exit 1; }

# --- the fast refusals (tests/service/release-refuses.sh) -------------------------
[[ $V =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION '$V' is not X.Y.Z"
git rev-parse --git-dir >/dev/null 2>&1 || die "not a git checkout"
dirty=$(git status --porcelain)
[ -z "$dirty" ] || die "the checkout has uncommitted changes or untracked files; commit or stash them:
$dirty"
proj=$(sed -n 's/^project(rdma_exporter VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ "$proj" = "$V" ] || die "CMakeLists.txt has project version $proj, not $V"
grep -qE "^## \[$(printf '%s' "$V" | sed 's/\./\\./g')\] - [0-9]{4}-[0-9]{2}-[0-9]{2}\$" CHANGELOG.md ||
	die "CHANGELOG.md has no '## [$V] - YYYY-MM-DD' entry (an Unreleased section is not a release)"
pkgver=$(python3 scripts/gen-changelog.py --print-version --version "$V" CHANGELOG.md)
[ "$pkgver" = "$V" ] || die "the packages would be $pkgver, not $V: CHANGELOG.md lists unreleased changes after $V"
[ "$ARM64" = 0 ] || [ -f cmake/toolchain-aarch64-linux-gnu.cmake ] ||
	die "cmake/toolchain-aarch64-linux-gnu.cmake is absent: no arm64 packages can be built (--no-arm64 for amd64 only)"
[ "${RELEASE_REFUSALS_ONLY:-0}" = 0 ] || { echo "release: the checks before building pass"; exit 0; }
[ "$(id -u)" -eq 0 ] || die "needs root (the Debian 11 build root)"

OUT=${OUT:-dist/$V}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -z "$(ls -A "$OUT")" ] || die "$OUT is not empty"
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/rdma_exporter-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct HEAD)

echo "release: source tarball"
git archive --format=tar.gz --prefix="rdma_exporter-$V/" -o "$OUT/rdma_exporter-$V.tar.gz" HEAD

echo "release: amd64 .deb and .rpm in a Debian 11 root"
scripts/build-in-root.sh "$WORK/amd64"
cp "$WORK"/amd64/*.deb "$WORK"/amd64/*.rpm "$OUT/"

S=$WORK/storage
if [ "$ARM64" = 1 ]; then
	echo "release: arm64 .deb and .rpm in a Debian 11 root (cross build)"
	scripts/build-in-root.sh --arch arm64 "$WORK/arm64"
	cp "$WORK"/arm64/*.deb "$WORK"/arm64/*.rpm "$OUT/"
	# the arm64 image's libraries are this machine's :arm64 packages
	scripts/install-deps.sh --cross arm64
	echo "release: the multi-arch image and its SBOMs"
	SBOM_OUT=$OUT/rdma-exporter-$V-@ARCH@.spdx.json scripts/build-image.sh --index \
		--binary amd64="$WORK/amd64/rdma_exporter" --binary arm64="$WORK/arm64/rdma_exporter" \
		--tag "rdma-exporter:$V" --oci-archive "$OUT/rdma-exporter-$V.oci.tar" \
		--root "$S/root" --runroot "$S/runroot"
else
	echo "release: the amd64 image and its SBOM"
	SBOM_OUT=$OUT/rdma-exporter-$V-amd64.spdx.json scripts/build-image.sh \
		--binary "$WORK/amd64/rdma_exporter" --tag "rdma-exporter:$V" --root "$S/root" --runroot "$S/runroot"
	buildah --root "$S/root" --runroot "$S/runroot" push --quiet "rdma-exporter:$V" \
		"oci-archive:$OUT/rdma-exporter-$V.oci.tar:rdma-exporter:$V" >/dev/null
fi
buildah --root "$S/root" --runroot "$S/runroot" rmi --all >/dev/null 2>&1 || true

(cd "$OUT" && sha256sum -- * >"$WORK/SHA256SUMS" && mv "$WORK/SHA256SUMS" SHA256SUMS)
for f in "$OUT"/*.deb; do
	case $f in *_"$V"_*.deb) ;; *) die "$f is not version $V" ;; esac
done

if [ "$CHECK" = 1 ]; then
	echo "release: --check: the amd64 .deb in Debian 11, 12 and 13"
	scripts/install-test.sh "$OUT/rdma-exporter_${V}_amd64.deb" bullseye bookworm trixie
fi
echo "release: $OUT (nothing uploaded):"
(cd "$OUT" && ls -l)
[ "$ARM64" = 1 ] || echo "release: --no-arm64: no arm64 packages"
