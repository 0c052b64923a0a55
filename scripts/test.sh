#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs what is missing, builds with -Werror and runs the whole test suite:
#   1. unit tests (cmocka), end-to-end tests on fixture trees (promtool), and
#      the Soft-RoCE VM test, on a normal build;
#   2. all of them again on an ASan+UBSan build (the VM test runs the
#      sanitized binary inside the guest).
# Set RDMA_EXPORTER_SKIP_VM=1 to leave out the VM test (it needs ~2 minutes
# and downloads Debian's kernel package on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --test

jobs=$(nproc)
# In CI a VM test that cannot run is a failure, not a skip.
if [ "${CI:-}" = "true" ]; then
	export RDMA_EXPORTER_VM_REQUIRED=1
	export RDMA_EXPORTER_NETNS_REQUIRED=1
fi
vm_args=()
if [ "${RDMA_EXPORTER_SKIP_VM:-0}" = 1 ]; then
	vm_args=(-LE vm)
fi

. scripts/build-config.sh

echo "=== build (-Werror)"
# Every option given again: scripts/run.sh configures the same build dir without tests.
configure_test build
cmake --build build -j"$jobs"
echo "=== tests"
# --no-tests=error: a run that found no test fails instead of passing.
(cd build && ctest --output-on-failure --no-tests=error "${vm_args[@]}")

echo "=== build (ASan+UBSan, -Werror)"
configure_test build-asan asan
cmake --build build-asan -j"$jobs"
echo "=== tests under ASan+UBSan"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure --no-tests=error "${vm_args[@]}")
echo "=== all test runs passed"
