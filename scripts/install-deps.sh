#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs the Debian 12 packages rdma_exporter needs, only those missing.
#   scripts/install-deps.sh          build + run dependencies
#   scripts/install-deps.sh --test   also what the test suite needs (cmocka,
#                                    promtool, curl, QEMU and rdma-core tools for the VM test,
#                                    openssl and htpasswd for the web config test,
#                                    systemd-analyze, systemd-socket-activate, python3,
#                                    dpkg-dev and lintian for the service and package tests)
set -euo pipefail

BUILD_PKGS="build-essential cmake pkg-config libmicrohttpd-dev libmnl-dev libibverbs-dev
	librdmacm-dev libsystemd-dev zlib1g-dev libyaml-dev libgnutls28-dev libcrypt-dev help2man"
TEST_PKGS="libcmocka-dev prometheus curl gzip clang-format
	qemu-system-x86 busybox-static cpio kmod xz-utils rdma-core ibverbs-utils ibverbs-providers
	perftest rdmacm-utils iproute2 ethtool openssl apache2-utils
	systemd python3 dpkg-dev lintian"

pkgs=$BUILD_PKGS
[ "${1:-}" = "--test" ] && pkgs="$pkgs $TEST_PKGS"

missing=()
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all present: ${pkgs//[$'\t\n']/ }" | tr -s ' ' 
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
echo "install-deps: done"
