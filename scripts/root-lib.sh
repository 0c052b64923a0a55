#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Debian roots made with mmdebstrap, for building the release packages in
# Debian 11 (scripts/build-in-root.sh) and for installing them in Debian 11, 12
# and 13 (scripts/install-test.sh). Sourced, not run:
#   root_tarball SUITE VARIANT PKGS [ARCHS]
#                                     prints the path of a root tarball with
#                                     PKGS installed (made, or taken from the cache);
#                                     ARCHS: its dpkg architectures, comma-separated,
#                                     the first native (default: this machine's),
#                                     the others foreign (PKGS may name pkg:arm64)
#   root_unpack TARBALL DIR           unpacks it into DIR (empty or absent)
#   root_run DIR CMD...               runs CMD chrooted in DIR, in a mount namespace
#                                     of its own with /proc, /dev and /sys mounted:
#                                     the mounts go away with it, whatever happens
# The mirror is the one this machine's apt uses for Debian (its sources), or
# ROOT_MIRROR; the security archive ROOT_SECURITY_MIRROR likewise, or none with
# ROOT_SECURITY=off (the arm64 cross root of scripts/build-in-root.sh: this
# workplace's mirror of bullseye-security answers 404 for arm64 packages, and
# multiarch needs the same version of a library for both architectures).
# The cache: ${RDMA_EXPORTER_ROOT_CACHE:-~/.cache/rdma_exporter-roots}/, one tarball
# per suite, variant, package list and mirror (their sha256 in the name). A
# cache is never needed for correctness: remove the folder, or set
# RDMA_EXPORTER_ROOT_CACHE=off to make a fresh root each time; each tarball is
# remade when older than ROOT_CACHE_DAYS (default 7) so security updates come in.
# Needs root (chroot, mknod) and mmdebstrap (scripts/install-deps.sh --test).

# sources_mirror REGEX [EXCLUDE]: the first http(s) URL in this machine's apt
# sources (deb822 or one-line) whose path ends in /REGEX, not matching EXCLUDE.
sources_mirror() {
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE "https?://[^ ]+/$1/?( |\$)" | grep -v -- "${2:-^$}" | head -1 | tr -d ' '
}

# root_mirror, root_security_mirror: the Debian and security mirrors of the roots
# (ROOT_MIRROR, ROOT_SECURITY_MIRROR, else this machine's, else deb.debian.org).
root_mirror() {
	local m=${ROOT_MIRROR:-$(sources_mirror debian security)}
	echo "${m:-http://deb.debian.org/debian}"
}

root_security_mirror() {
	local m=${ROOT_SECURITY_MIRROR:-$(sources_mirror debian-security)}
	echo "${m:-http://deb.debian.org/debian-security}"
}

# root_sources SUITE: the sources of a root, one per line (mmdebstrap's form).
root_sources() {
	local m s
	m=$(root_mirror)
	s=$(root_security_mirror)
	echo "deb ${m%/} $1 main"
	echo "deb ${m%/} $1-updates main"
	[ "${ROOT_SECURITY:-on}" = off ] || echo "deb ${s%/} $1-security main"
}

root_tarball() {
	local suite=$1 variant=$2 pkgs=$3 archs=${4:-} dir key tar srcs=() arch_opt=()
	command -v mmdebstrap >/dev/null ||
		{ echo "root-lib: mmdebstrap not found (scripts/install-deps.sh --test)" >&2; return 1; }
	dir=${RDMA_EXPORTER_ROOT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rdma_exporter-roots}
	if [ "$dir" = off ]; then
		dir=$(mktemp -d)
	fi
	mkdir -p "$dir"
	[ -z "$archs" ] || arch_opt=(--architectures="$archs")
	key=$( (echo "$suite $variant${archs:+ $archs}"; echo "$pkgs" | tr -s ' \t\n' '\n' | sort -u; root_sources "$suite") |
		sha256sum | cut -c1-16)
	tar=$dir/$suite-$variant${archs:+-${archs//,/-}}-$key.tar
	if [ -f "$tar" ] && [ -s "$tar" ] && [ -z "$(find "$tar" -mtime +"${ROOT_CACHE_DAYS:-7}")" ]; then
		echo "root-lib: $suite root from the cache: $tar" >&2
		echo "$tar"
		return
	fi
	mapfile -t srcs < <(root_sources "$suite")
	local inc=()
	[ -z "${pkgs//[[:space:]]/}" ] || inc=(--include="$(echo $pkgs | tr ' ' ,)")
	echo "root-lib: making the $suite root ($variant + $(echo $pkgs | wc -w) packages) with mmdebstrap" >&2
	if ! mmdebstrap --quiet --mode=root --format=tar --variant="$variant" "${arch_opt[@]}" "${inc[@]}" \
		--aptopt='Acquire::Retries "3"' "$suite" "$tar.tmp" "${srcs[@]}" >&2; then
		rm -f "$tar.tmp"
		echo "root-lib: mmdebstrap $suite failed" >&2
		return 1
	fi
	mv "$tar.tmp" "$tar"
	echo "$tar"
}

root_unpack() {
	mkdir -p "$2"
	tar -C "$2" -xf "$1"
}

root_run() {
	local dir=$1
	shift
	cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
	# shellcheck disable=SC2016
	unshare --mount --propagation private -- sh -c '
		d=$1; shift
		mount -t proc proc "$d/proc" && mount --rbind /dev "$d/dev" &&
			mount --rbind /sys "$d/sys" && mount -t tmpfs tmpfs "$d/tmp" || exit 125
		exec chroot "$d" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' sh "$dir" "$@"
}
