#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs the Debian 12 packages rdma_exporter needs, only those missing.
#   scripts/install-deps.sh          build + run dependencies
#   scripts/install-deps.sh --test   also what the test suite needs (cmocka,
#                                    promtool, curl, QEMU and rdma-core tools for the VM test,
#                                    openssl and htpasswd for the web config test,
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
	perftest rdmacm-utils iproute2 ethtool openssl apache2-utils
	systemd python3 python3-yaml dpkg-dev lintian rpm rpmlint podman buildah runc nodejs
	mmdebstrap"
# Benchmarks only: never needed to build or test. prometheus-node-exporter is
# installed without its recommends (the textfile collector scripts) and its
# service is not needed: the benchmark runs the binary itself.
BENCH_PKGS="prometheus-node-exporter strace linux-perf curl procps"

pkgs=$BUILD_PKGS
test=0
for arg in "$@"; do
	case $arg in
	--test) pkgs="$pkgs $TEST_PKGS"; test=1 ;;
	--bench) pkgs="$pkgs $BENCH_PKGS" ;;
	*) echo "usage: install-deps.sh [--test] [--bench]" >&2; exit 2 ;;
	esac
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

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
	SUDO=sudo
fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
npm_ci
kubectl_note
echo "install-deps: done"
