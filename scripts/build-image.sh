#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds the container image rdma-exporter:<version> with buildah, from the
# project's own build and nothing pulled from a registry:
#   scripts/build-image.sh [--arch ARCH] [--binary PATH] [--tag TAG] [--root DIR --runroot DIR]
#   scripts/build-image.sh --index [--binary ARCH=PATH]... [--tag TAG] [--oci-archive FILE]
#                          [--root DIR --runroot DIR]
#   scripts/build-image.sh --print-version     the version alone, nothing built
# <version> is unique per commit (image_version below): `git describe` from the
# newest tag, 0.1.0-12-gabc1234, with -dirty for uncommitted changes; with no
# tag in the history, the project version and the commit, 0.1.0-gabc1234.
# The last line printed names the tag and the image's digest.
# Without --binary it configures and builds build-image/ as a release build
# (the same options as scripts/package.sh) and uses that binary.
# --arch ARCH: the image for the Debian architecture ARCH (amd64, arm64; by
# default this machine's). For another one than this machine's, the binary is
# a cross build (scripts/cross-build.sh ARCH build-image-ARCH, or --binary),
# run under qemu-user for its version, and the library closure comes from
# ARCH's loader (ld.so --list under qemu-user) and multiarch directories; the
# tag gets -ARCH appended. --index: the images for amd64 and arm64
# (<version>-amd64, <version>-arm64) and the multi-arch index rdma-exporter:
# <version> of both; --oci-archive FILE also writes the index with both images
# to FILE (an OCI archive, `buildah manifest push --all`). With --index,
# --binary ARCH=PATH gives the binary of ARCH (scripts/release.sh: the Debian 11
# builds), --tag the index's name (the images: TAG-amd64, TAG-arm64), and
# SBOM_OUT (below) may hold @ARCH@, replaced by each architecture.
# IMAGE_SOURCE: the org.opencontainers.image.source label (the repository URL).
# --root/--runroot: the containers-storage to commit into (the container test
# uses a scratch one so that it leaves nothing in the host's storage).
#
# The image is "from scratch": exactly the binary, the shared libraries it
# links (its ldd closure), the ibverbs providers with their driver files and
# their own libraries. No shell, no package manager. It runs as 65534:65534
# (nobody) with the exporter as its entrypoint and --path.sysfs=/host/sys, the
# mount point the DaemonSet in deploy/kubernetes/ gives the host's /sys.
# docs/kubernetes.md describes the image and its size.
set -euo pipefail
trap 'echo "build-image.sh: failed (status $?) at line $LINENO" >&2' ERR
cd "$(dirname "$0")/.."

BINARY=
TAG=
STORE=()
PRINT_VERSION=
HOST_ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
ARCH=$HOST_ARCH
INDEX=
INDEX_BINS=()
OCI_ARCHIVE=
while [ $# -gt 0 ]; do
	case $1 in
	--binary) BINARY=$2; INDEX_BINS+=("$2"); shift 2 ;;
	--tag) TAG=$2; shift 2 ;;
	--arch) ARCH=$2; shift 2 ;;
	--index) INDEX=1; shift ;;
	--oci-archive) OCI_ARCHIVE=$2; shift 2 ;;
	--root | --runroot) STORE+=("$1" "$2"); shift 2 ;;
	--print-version) PRINT_VERSION=1; shift ;;
	*) echo "usage: build-image.sh [--arch ARCH] [--binary PATH] [--tag TAG] [--root DIR --runroot DIR] | --index [--oci-archive FILE] | --print-version" >&2; exit 2 ;;
	esac
done
# ARCH: its GNU triplet (the multiarch directory), the loader's canonical path
# (the binaries' PT_INTERP; /usr$LOADER in the image, merged /usr) and the
# qemu-user binary that runs it here. One line per architecture.
case $ARCH in
amd64) TRIPLET=x86_64-linux-gnu LOADER=/lib64/ld-linux-x86-64.so.2 QEMU=qemu-x86_64 ;;
arm64) TRIPLET=aarch64-linux-gnu LOADER=/lib/ld-linux-aarch64.so.1 QEMU=qemu-aarch64 ;;
*) echo "build-image: no image for architecture '$ARCH' (amd64, arm64)" >&2; exit 2 ;;
esac

# image_version PROJECT_VERSION: a version no other build shares, so that a
# tag names one build and IfNotPresent never runs a stale image. `git describe
# --tags --always --dirty` is the tag (v stripped), the commits since it and
# the commit (0.1.0-12-gabc1234), the tag alone on a tagged commit; in a
# history without a tag it prints the commit alone, which gets the project
# version in front (0.1.0-gabc1234). -dirty: built from uncommitted changes.
# Outside a checkout: the project version, which is not unique (a warning says so).
image_version() {
	local d
	if ! d=$(git describe --tags --always --dirty --abbrev=7 2>/dev/null); then
		echo "build-image: not a git checkout: the tag is the project version $1, not unique" >&2
		echo "$1"
		return
	fi
	case $d in
	v[0-9]*) echo "${d#v}" ;;
	[0-9]*.*) echo "$d" ;;
	*) echo "$1-g$d" ;;
	esac
}

if [ -n "$PRINT_VERSION" ]; then
	version=$(sed -n 's/^project(rdma_exporter VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
	image_version "$version"
	exit 0
fi
command -v buildah >/dev/null || { echo "build-image: buildah not found (scripts/install-deps.sh --test)" >&2; exit 1; }

# --index: this script once per architecture, then the index of the two.
if [ -n "$INDEX" ]; then
	declare -A bin_of=()
	for b in "${INDEX_BINS[@]}"; do
		case $b in
		amd64=* | arm64=*) bin_of[${b%%=*}]=${b#*=} ;;
		*) echo "build-image: --index takes --binary ARCH=PATH (amd64, arm64), not '$b'" >&2; exit 2 ;;
		esac
	done
	version=$(sed -n 's/^project(rdma_exporter VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
	list=${TAG:-rdma-exporter:$(image_version "$version")}
	buildah "${STORE[@]}" manifest rm "$list" >/dev/null 2>&1 || true
	buildah "${STORE[@]}" manifest create "$list" >/dev/null
	for arch in amd64 arm64; do
		one=(--arch "$arch" --tag "$list-$arch" "${STORE[@]}")
		[ -z "${bin_of[$arch]:-}" ] || one+=(--binary "${bin_of[$arch]}")
		SBOM_OUT=${SBOM_OUT:+${SBOM_OUT//@ARCH@/$arch}} "$0" "${one[@]}"
		buildah "${STORE[@]}" manifest add "$list" "containers-storage:localhost/$list-$arch" >/dev/null
	done
	if [ -n "$OCI_ARCHIVE" ]; then
		rm -f "$OCI_ARCHIVE" "$OCI_ARCHIVE.digest"
		buildah "${STORE[@]}" manifest push --quiet --all --format oci \
			--digestfile "$OCI_ARCHIVE.digest" "$list" "oci-archive:$OCI_ARCHIVE" >/dev/null
		echo "build-image: index $list digest $(cat "$OCI_ARCHIVE.digest") with both images in $OCI_ARCHIVE"
		rm -f "$OCI_ARCHIVE.digest"
	fi
	buildah "${STORE[@]}" manifest inspect "$list" |
		python3 -c 'import json, sys; [print("build-image: index entry", m["platform"]["architecture"], m["digest"]) for m in json.load(sys.stdin)["manifests"]]'
	echo "build-image: index $list"
	exit 0
fi
# RUN: runs an ARCH program here (qemu-user for another architecture).
RUN=()
[ "$ARCH" = "$HOST_ARCH" ] || RUN=("$QEMU" -L /)

if [ -z "$BINARY" ] && [ "$ARCH" != "$HOST_ARCH" ]; then
	scripts/cross-build.sh "$ARCH" "build-image-$ARCH" >/dev/null
	BINARY=build-image-$ARCH/rdma_exporter
elif [ -z "$BINARY" ]; then
	cmake -S . -B build-image -DCMAKE_BUILD_TYPE=Release -DRDMA_EXPORTER_TESTS=OFF \
		-DRDMA_EXPORTER_SANITIZE=OFF -DRDMA_EXPORTER_TSAN=OFF >/dev/null
	cmake --build build-image -j"$(nproc)" --target rdma_exporter >/dev/null
	BINARY=build-image/rdma_exporter
fi
[ -x "$BINARY" ] || { echo "build-image: no executable at '$BINARY'" >&2; exit 1; }

# "rdma_exporter, version 0.1.0 (revision: 220fcf058a44)": the third word is
# the project version, the fifth the commit the binary was built from.
BIN_VERSION=$("${RUN[@]}" "$BINARY" --version | awk 'NR == 1 { print $3 }')
[ -n "$BIN_VERSION" ] || { echo "build-image: cannot read the version of $BINARY" >&2; exit 1; }
VERSION=$(image_version "$BIN_VERSION")
if [ "$ARCH" = "$HOST_ARCH" ]; then
	TAG=${TAG:-rdma-exporter:$VERSION}
else
	TAG=${TAG:-rdma-exporter:$VERSION-$ARCH}
fi
REVISION=$(git rev-parse HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || REVISION="$REVISION-dirty"
bin_rev=$("${RUN[@]}" "$BINARY" --version | sed -n '1s/.*(revision: \([0-9a-f]*\)).*/\1/p')
[ -z "$bin_rev" ] || [[ $REVISION == "$bin_rev"* ]] ||
	echo "build-image: $BINARY was built from $bin_rev, not this checkout's ${REVISION:0:12}: the tag names the checkout" >&2
# Where the project is published: IMAGE_SOURCE, else the checkout's origin remote when it
# is a web URL; without either the image carries no .source label (never a placeholder).
SOURCE=${IMAGE_SOURCE:-$(git remote get-url origin 2>/dev/null | grep -E '^https?://' || true)}
SOURCE_LABEL=()
[ -z "$SOURCE" ] || SOURCE_LABEL=(--label org.opencontainers.image.source="$SOURCE")
PROVIDERS=/usr/lib/$TRIPLET/libibverbs
if [ "$ARCH" != "$HOST_ARCH" ]; then
	[ -d "$PROVIDERS" ] || { echo "build-image: no $PROVIDERS (scripts/install-deps.sh --cross $ARCH)" >&2; exit 1; }
fi
[ -d "$PROVIDERS" ] || PROVIDERS=$(dirname "$(ldconfig -p | awk '/libibverbs.so.1 / && !n++ { print $NF }')")/libibverbs

STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

# copy_path FILE: FILE at the same path under the stage, a symlink as a symlink
# plus the file it resolves to.
copy_path() {
	mkdir -p "$STAGE$(dirname "$1")"
	cp -a "$1" "$STAGE$1"
	if [ -L "$1" ]; then
		copy_path "$(readlink -f "$1")"
	fi
}

# Debian's merged /usr: /lib and /lib64 are links into /usr, and ldd names
# libraries by either path.
mkdir -p "$STAGE/usr/lib" "$STAGE/usr/lib64" "$STAGE/usr/bin" "$STAGE/etc" "$STAGE/host/sys"
ln -s usr/lib "$STAGE/lib"
ln -s usr/lib64 "$STAGE/lib64"
install -m 0755 "$BINARY" "$STAGE/usr/bin/rdma_exporter"
STRIP=strip
[ "$ARCH" = "$HOST_ARCH" ] || STRIP=$TRIPLET-strip
"$STRIP" --strip-unneeded "$STAGE/usr/bin/rdma_exporter" 2>/dev/null || true

cp -a /etc/libibverbs.d "$STAGE/etc/"
for p in "$PROVIDERS"/*.so; do
	copy_path "$p"
done
# The ldd closure of the binary and of every provider, libgcc_s too: glibc
# dlopens it for pthread_cancel and thread exit.
# Another architecture's: its loader lists them (what ldd does), under qemu-user
# with that architecture's libraries from / (-L /), and libgcc_s from its
# multiarch directory.
objs=("$BINARY" "$PROVIDERS"/*.so)
list_libs() {
	if [ "$ARCH" = "$HOST_ARCH" ]; then
		ldd "$1"
	else
		"${RUN[@]}" "$LOADER" --list "$1"
	fi
}
libs=$(for o in "${objs[@]}"; do list_libs "$o"; done |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
if [ "$ARCH" = "$HOST_ARCH" ]; then
	gcc_s=$(ldconfig -p | awk '/libgcc_s.so.1 / && !n++ { print $NF }')
else
	gcc_s=/usr/lib/$TRIPLET/libgcc_s.so.1
fi
for l in $libs $gcc_s; do
	case $l in /lib/* | /lib64/*) l=/usr$l ;; esac
	copy_path "$l"
done
# The dynamic loader's canonical path, and a passwd so that tools show a name.
[ -e "$STAGE/usr$LOADER" ] || cp -aL "$LOADER" "$STAGE/usr$LOADER"
printf 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$STAGE/etc/passwd"
printf 'nogroup:x:65534:\n' >"$STAGE/etc/group"

# The SBOM, when SBOM_OUT names its file (scripts/release.sh: beside the OCI archive):
# scripts/image-sbom.py on every file staged from this machine (a staged path is its
# path here), the exporter and the two lines above aside.
if [ -n "${SBOM_OUT:-}" ]; then
	python3 scripts/image-sbom.py --binary "$STAGE/usr/bin/rdma_exporter" --version "$VERSION" --arch "$ARCH" \
		-o "$SBOM_OUT" --files <(cd "$STAGE" && find . -type f ! -path ./usr/bin/rdma_exporter \
		! -path ./etc/passwd ! -path ./etc/group | sed 's#^\.##')
fi
ctr=$(buildah "${STORE[@]}" from scratch)
cleanup() {
	buildah "${STORE[@]}" rm "$ctr" >/dev/null 2>&1 || true
	rm -rf "$STAGE"
}
trap cleanup EXIT
buildah "${STORE[@]}" copy "$ctr" "$STAGE" / >/dev/null
buildah "${STORE[@]}" config \
	--arch "$ARCH" --os linux \
	--user 65534:65534 \
	--entrypoint '["/usr/bin/rdma_exporter", "--path.sysfs=/host/sys"]' \
	--cmd '[]' \
	--port 9879/tcp \
	--label org.opencontainers.image.title=rdma-exporter \
	--label org.opencontainers.image.description="Prometheus exporter for RDMA networks" \
	--label org.opencontainers.image.version="$VERSION" \
	--label org.opencontainers.image.revision="$REVISION" \
	"${SOURCE_LABEL[@]}" \
	--label org.opencontainers.image.licenses=Apache-2.0 \
	"$ctr"
buildah "${STORE[@]}" commit --quiet --rm "$ctr" "$TAG" >/dev/null
ctr=
size=$(buildah "${STORE[@]}" images --format '{{.Size}}' "$TAG" | awk 'NR == 1')
# The digest of the image's manifest in this storage: what `podman push`
# sends unchanged to a registry that takes it as is (--format oci, no
# recompression); a registry that gets it converted answers with its own
# digest, which `podman push --digestfile FILE` writes (docs/kubernetes.md).
digest=$(buildah "${STORE[@]}" images --digests --format '{{.Digest}}' "$TAG" | awk 'NR == 1')
echo "build-image: $TAG ($size, revision $REVISION)"
echo "build-image: tag $TAG digest $digest"
