#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The arm64 binary against the amd64 goldens: builds it with
# scripts/cross-build.sh --no-install arm64 BUILD_DIR (incremental), checks
# that it is an AArch64 executable, and runs tests/e2e/e2e.sh on it through a
# wrapper that execs qemu-aarch64 with the arm64 loader and libraries of this
# machine's multiarch directories (-L /). Every golden scrape must equal the
# native one byte for byte (the same files, FIXTURES and GOLDEN from ctest).
#   arm64-goldens.sh SOURCE_DIR BUILD_DIR
# Exit 77 (skipped) where the cross toolchain is not installed, unless
# RDMA_EXPORTER_CROSS_REQUIRED=1 (CI).
set -uo pipefail
SRC=${1:?usage: arm64-goldens.sh SOURCE_DIR BUILD_DIR}
BUILD=${2:?usage: arm64-goldens.sh SOURCE_DIR BUILD_DIR}

skip() {
	if [ "${RDMA_EXPORTER_CROSS_REQUIRED:-0}" = 1 ]; then
		echo "not ok - $* (RDMA_EXPORTER_CROSS_REQUIRED=1)"
		exit 1
	fi
	echo "# SKIP: $*"
	exit 77
}

for t in aarch64-linux-gnu-gcc qemu-aarch64 readelf; do
	command -v "$t" >/dev/null || skip "$t is not installed (scripts/install-deps.sh --test)"
done
[ -e /usr/lib/aarch64-linux-gnu/pkgconfig/libibverbs.pc ] && [ -e /lib/ld-linux-aarch64.so.1 ] ||
	skip "the arm64 -dev packages are not installed (scripts/install-deps.sh --test)"

start=$SECONDS
if ! "$SRC/scripts/cross-build.sh" --no-install arm64 "$BUILD"; then
	echo "not ok - scripts/cross-build.sh arm64 builds"
	exit 1
fi
echo "# cross build: $((SECONDS - start)) s"
BIN=$BUILD/rdma_exporter
if ! readelf -h "$BIN" | grep -Eq 'Machine:[[:space:]]+AArch64'; then
	echo "not ok - $BIN is an AArch64 executable"
	exit 1
fi
echo "ok - $BIN is an AArch64 executable"

TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT
# exec: the PID e2e.sh signals is the emulated exporter's (qemu-user passes
# SIGTERM, SIGINT and SIGQUIT on to it).
printf '#!/bin/sh\nexec qemu-aarch64 -L / "%s" "$@"\n' "$BIN" >"$TMPD/rdma_exporter"
chmod +x "$TMPD/rdma_exporter"
start=$SECONDS
"$SRC/tests/e2e/e2e.sh" "$TMPD/rdma_exporter"
rc=$?
echo "# e2e under qemu-aarch64: $((SECONDS - start)) s"
exit $rc
