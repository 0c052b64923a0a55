#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs the Debian 12 packages rdma_exporter needs, only those missing, with
# apt's own output; while another process holds the apt lock it waits (at most
# RDMA_EXPORTER_APT_LOCK_WAIT seconds, 600 by default) and says so once.
#   scripts/install-deps.sh          build + run dependencies
#   scripts/install-deps.sh --test   also what the test suite needs (cmocka,
#                                    promtool, curl, QEMU and rdma-core tools for the VM test,
#                                    openssl and htpasswd for the web config test,
#                                    lldpd for the LLDP test (its own instance in a network
#                                    namespace; a host service the package starts is
#                                    stopped and disabled again when this script installed it),
#                                    libfuse3-dev and fuse3 for the hung-device test,
#                                    systemd-analyze, systemd-socket-activate, python3,
#                                    dpkg-dev, lintian, rpm and rpmlint for the service and
#                                    package tests, mmdebstrap for the Debian roots
#                                    (scripts/build-in-root.sh, install-test.sh), podman, buildah and runc for the
#                                    container image test, nodejs, npm and the npm packages
#                                    of tests/k8s/package.json for the Kubernetes manifest
#                                    test; not kubectl, which that test also needs:
#                                    Debian 12's kubernetes-client 1.20 cannot render
#                                    the kustomizations, install kubectl 1.27 or later,
#                                    see docs/kubernetes.md)
#   scripts/install-deps.sh --cross ARCH
#                                    also what scripts/cross-build.sh ARCH needs to build for
#                                    the Debian architecture ARCH (arm64) on this machine:
#                                    dpkg --add-architecture ARCH, the cross compiler, the
#                                    :ARCH -dev packages of BUILD_PKGS, the ARCH ibverbs
#                                    providers (for the image), qemu-user to run the result
#                                    and dpkg-dev (dpkg-shlibdeps); --test implies
#                                    --cross arm64 (the cross_arm64_goldens test)
#   scripts/install-deps.sh --bench  also what tests/bench/ needs (Debian's node_exporter
#                                    to compare against, strace and perf for poll-cost.sh,
#                                    curl); combine with --test as you like
set -euo pipefail

BUILD_PKGS="build-essential cmake pkg-config libmicrohttpd-dev libmnl-dev libibverbs-dev
	librdmacm-dev libsystemd-dev zlib1g-dev libyaml-dev libgnutls28-dev libcrypt-dev help2man
	libprotobuf-c-dev protobuf-c-compiler"
TEST_PKGS="libcmocka-dev prometheus prometheus-alertmanager curl gzip clang-format pmccabe
	libfuse3-dev fuse3
	qemu-system-x86 busybox-static cpio kmod xz-utils rdma-core ibverbs-utils ibverbs-providers
	perftest rdmacm-utils iproute2 ethtool openssl apache2-utils lldpd
	systemd python3 python3-yaml dpkg-dev lintian rpm rpmlint podman buildah runc nodejs
	mmdebstrap"
# Benchmarks only: never needed to build or test. prometheus-node-exporter is
# installed without its recommends (the textfile collector scripts) and its
# service is not needed: the benchmark runs the binary itself.
BENCH_PKGS="prometheus-node-exporter strace linux-perf curl procps"
# The libraries the CMake build links (pkg_check_modules): installed as ARCH:
# the -dev packages of BUILD_PKGS that are Multi-Arch: same, so that the amd64
# twins the normal build needs stay (apt brings both to the same version).
CROSS_DEV_PKGS="libc6-dev libmicrohttpd-dev libmnl-dev libibverbs-dev librdmacm-dev
	libsystemd-dev zlib1g-dev libyaml-dev libgnutls28-dev libcrypt-dev libprotobuf-c-dev
	ibverbs-providers"

# cross_triplet ARCH: the GNU triplet of a Debian architecture this project
# cross-builds for (scripts/cross-build.sh has the same table); another
# architecture is one more line here and there.
cross_triplet() {
	case $1 in
	arm64) echo aarch64-linux-gnu ;;
	*) return 1 ;;
	esac
}

pkgs=$BUILD_PKGS
test=0
cross=()
usage() { echo "usage: install-deps.sh [--test] [--bench] [--cross ARCH]" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--test) pkgs="$pkgs $TEST_PKGS"; test=1; cross+=(arm64) ;;
	--bench) pkgs="$pkgs $BENCH_PKGS" ;;
	--cross)
		[ $# -ge 2 ] || usage
		cross_triplet "$2" >/dev/null || { echo "install-deps: no cross build for '$2' (arm64)" >&2; exit 2; }
		cross+=("$2")
		shift
		;;
	*) usage ;;
	esac
	shift
done
foreign=()
for arch in $(printf '%s\n' "${cross[@]}" | sort -u); do
	foreign+=("$arch")
	pkgs="$pkgs gcc-$(cross_triplet "$arch") qemu-user dpkg-dev file"
	for p in $CROSS_DEV_PKGS; do
		pkgs="$pkgs $p:$arch"
	done
done

# npm ci in tests/k8s: the schemas of the manifest test, pinned by its
# package-lock.json, into tests/k8s/node_modules (git-ignored).
npm_ci() {
	[ $test = 1 ] || return 0
	local dir
	dir=$(cd "$(dirname "$0")/../tests/k8s" && pwd)
	[ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ] && return 0
	echo "install-deps: npm ci in tests/k8s"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}

# kubectl_note: says where k8s_manifests will skip (fail in CI) for want of a
# kubectl with kustomize v4 or later built in, which no Debian 12 package has.
kubectl_note() {
	[ $test = 1 ] || return 0
	kubectl version --client 2>/dev/null | grep -q '^Kustomize Version: v[4-9]' && return 0
	echo "install-deps: note: no kubectl 1.27 or later (kustomize v4+ built in) on PATH;" \
		"k8s_manifests will skip, and fail in CI: install it (docs/kubernetes.md)" >&2
}

# lldpd_host_off: Debian's lldpd package enables and starts lldpd.service, which
# would send LLDP frames on every host interface. The test runs its own lldpd in a
# network namespace (tests/e2e/lldp-netns.sh) and needs no host service: when this
# run installed the package, the service goes off again (an lldpd the machine
# already had is left alone).
lldpd_host_off() {
	case " ${missing[*]} " in *" lldpd "*) ;; *) return 0 ;; esac
	command -v systemctl >/dev/null && [ -d /run/systemd/system ] || return 0
	$SUDO systemctl disable --now lldpd.service >/dev/null 2>&1 &&
		echo "install-deps: stopped and disabled the host lldpd.service the package started" \
			"(the LLDP test runs its own in a namespace)"
	return 0
}

# Debian's npm conflicts with a nodejs that brings its own (NodeSource's).
[ $test = 1 ] && ! command -v npm >/dev/null && pkgs="$pkgs npm"
missing=()
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all present: ${pkgs//[$'\t\n']/ }" | tr -s ' ' 
	npm_ci
	kubectl_note
	exit 0
fi

# apt_lock_wait: when another process holds apt's or dpkg's lock (an
# unattended upgrade, another apt-get), wait for it, at most APT_LOCK_WAIT
# seconds, saying so once, instead of apt-get failing at once (exit 100). The
# holder is read from /proc/locks, which lists fcntl locks (apt's) and flock
# locks alike with the PID; RDMA_EXPORTER_APT_LOCKS names other lock files for
# tests/service/apt-lock.sh. apt-get itself is also given the same bound
# (DPkg::Lock::Timeout) for the race where another process takes the lock
# between this check and apt-get.
APT_LOCKS=${RDMA_EXPORTER_APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock}
APT_LOCK_WAIT=${RDMA_EXPORTER_APT_LOCK_WAIT:-600}
lock_holder() {
	local lock ino
	for lock in $APT_LOCKS; do
		ino=$(stat -L -c %i "$lock" 2>/dev/null) || continue
		awk -v ino="$ino" '$2 != "->" { n = split($6, id, ":"); if (id[n] == ino) { print $5; exit } }' \
			/proc/locks 2>/dev/null | grep . && return 0
	done
	return 1
}
apt_lock_wait() {
	local pid waited=0 said=0
	while pid=$(lock_holder); do
		if [ $said = 0 ]; then
			echo "install-deps: waiting for the apt lock held by PID $pid" \
				"($(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null | cut -c1-60)) (up to $APT_LOCK_WAIT s)"
			said=1
		fi
		if [ $waited -ge "$APT_LOCK_WAIT" ]; then
			echo "install-deps: the apt lock is still held by PID $pid after $APT_LOCK_WAIT s;" \
				"try again when it is done" >&2
			exit 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
	[ $said = 0 ] || echo "install-deps: the apt lock is free after $waited s"
}

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
echo "install-deps: installing ${missing[*]}"
apt_lock_wait
# A foreign architecture is added once; apt-get update then fetches its lists.
for arch in "${foreign[@]}"; do
	dpkg --print-foreign-architectures | grep -qx "$arch" || $SUDO dpkg --add-architecture "$arch"
done
# apt's own output and progress are shown: a slow mirror or a failing package is
# visible where it happens.
apt_lock=(-o "DPkg::Lock::Timeout=$APT_LOCK_WAIT")
$SUDO apt-get "${apt_lock[@]}" update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get "${apt_lock[@]}" install -y --no-install-recommends \
	"${missing[@]}"
lldpd_host_off
npm_ci
kubectl_note
echo "install-deps: done"
