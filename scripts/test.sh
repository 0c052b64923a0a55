#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs what is missing, builds with -Werror and runs the whole test suite:
#   1. unit tests (cmocka), end-to-end tests on fixture trees (promtool), and
#      the Soft-RoCE VM test, on a normal build;
#   2. all of them again on an ASan+UBSan build (the VM test runs the
#      sanitized binary inside the guest);
#   3. the tests that run threads (unit, e2e, service, bench-smoke; not the VM
#      test, lint, fuzz replays, monitoring or the package) on a ThreadSanitizer
#      build.
# Each stage chooses its tests by ctest label, set beside each test (the legend
# is in tests/CMakeLists.txt): no stage names a test.
# Set RDMA_EXPORTER_SKIP_VM=1 to leave out the VM test (it needs ~2 minutes
# and downloads Debian's kernel package on first use).
# In CI (CI=true), or with RDMA_EXPORTER_NO_SKIPS=1, a stage in which a test
# was skipped fails, naming it and why (scripts/ctest-stage.sh); outside CI
# tests/skip-allowed.txt may list the ones allowed to skip.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --test

jobs=$(nproc)
# In CI a test that cannot run is a failure, not a skip: each says why.
if [ "${CI:-}" = "true" ]; then
	export RDMA_EXPORTER_VM_REQUIRED=1
	export RDMA_EXPORTER_NETNS_REQUIRED=1
	export RDMA_EXPORTER_CONTAINER_REQUIRED=1
	export RDMA_EXPORTER_K8S_REQUIRED=1
	export RDMA_EXPORTER_PACKAGE_REQUIRED=1
	export RDMA_EXPORTER_CROSS_REQUIRED=1
fi
# Labels every stage leaves out: vm with RDMA_EXPORTER_SKIP_VM=1.
skip=""
if [ "${RDMA_EXPORTER_SKIP_VM:-0}" = 1 ]; then
	skip="|vm"
fi

. scripts/build-config.sh
. scripts/ctest-stage.sh

echo "=== build (-Werror)"
# Every option given again: scripts/run.sh configures the same build dir without tests.
configure_test build
cmake --build build -j"$jobs"
echo "=== tests"
# --no-tests=error: a run that found no test fails instead of passing.
# asan-only (vm_rxe_mesh) runs in the ASan stage only (its two VMs run the sanitized
# binary there, the same checks): about 180 s that kept the whole run near the 35
# minutes of CI.
ctest_stage tests build ctest --output-on-failure --no-tests=error -LE "^(asan-only$skip)\$"

echo "=== build (ASan+UBSan, -Werror)"
configure_test build-asan asan
cmake --build build-asan -j"$jobs"
echo "=== tests under ASan+UBSan"
# any-build is left out: the tests that are the same in every build. The container
# image is made from the normal build's binary; a package is never made from a
# sanitizer build and its tests check what dpkg and rpm make of the files;
# fleet_scenarios judges the rules in Prometheus (the exporter only gives it the
# shapes of its series); the k8s ones render YAML; cross_arm64_goldens builds its
# own arm64 Release binary (about 70 s).
# clock is left out too: the e2e tests that mostly wait on the clock (slowloris,
# brute force, data age, aligned polling: about 150 s) run in the normal build only,
# as in the TSan stage below: the code they drive runs under ASan in its unit tests
# (test_http_conn, test_http_auth, test_authlimit, test_tlslimit, test_pollsched) and in the other e2e
# tests.
ctest_stage asan build-asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure --no-tests=error \
	-LE "^(any-build|clock$skip)\$"

echo "=== build (TSan, -Werror)"
configure_test build-tsan tsan
cmake --build build-tsan -j"$jobs"
echo "=== tests under TSan"
# gcc 12's TSan cannot run with the address-space randomisation of newer kernels
# (vm.mmap_rnd_bits above 28: "FATAL: ThreadSanitizer: unexpected memory mapping");
# setarch -R turns randomisation off for these processes only. Where it is refused
# (a container's seccomp profile), the tests run as they are.
tsan_run=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
	tsan_run=(setarch "$(uname -m)" -R)
fi
# Reports go to files, not stderr: a daemon an e2e script runs in the background
# writes its stderr to a scratch log, so a race there is printed and fails the
# stage here even where the script does not look at the exit status.
tsan_reports=$PWD/build-tsan/tsan-reports
rm -rf "$tsan_reports"
mkdir -p "$tsan_reports"
# The tests that run threads: unit, e2e, service, bench-smoke; not no-threads
# (service_units) or any-build (service_package), which run no daemon. clock (the
# e2e tests that mostly wait on the clock, about 150 s) runs in the two stages
# above only: under TSan they wait the same and their threads' code is exercised by
# the unit tests of the same modules (test_pollsched, test_http_conn, test_http_auth, test_authlimit,
# test_tlslimit) and by the other e2e tests.
tsan_rc=0
ctest_stage tsan build-tsan env RDMA_EXPORTER_TEST_SLOWDOWN=5 \
	"TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:exitcode=66:log_path=$tsan_reports/report" \
	"${tsan_run[@]}" ctest --output-on-failure --no-tests=error \
	-L '^(unit|e2e|service|bench-smoke)$' -LE '^(any-build|clock|no-threads)$' || tsan_rc=$?
if [ -n "$(ls -A "$tsan_reports")" ]; then
	cat "$tsan_reports"/*
	echo "ThreadSanitizer reported the above" >&2
	exit 1
fi
[ "$tsan_rc" -eq 0 ] || exit "$tsan_rc"
echo "=== all test runs passed"
