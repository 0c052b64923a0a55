#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# scripts-sequence.sh SOURCE_DIR - the README's two commands in order share build/:
# scripts/run.sh configures it without tests, then scripts/test.sh configures it again
# and must get every test back (a CMake cache keeps options not given again), and a
# ctest run that finds no test must fail (--no-tests=error), not pass. Both scripts
# configure through scripts/build-config.sh, which this test drives the same way on a
# scratch build directory (configure only: no build, no test run).
set -uo pipefail
SRC=$(readlink -f "$1")
T=$(mktemp -d "${TMPDIR:-/tmp}/scripts-sequence.XXXXXX")
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }
count() { ctest --test-dir "$T" -N 2>/dev/null | awk '/^Total Tests:/ { print $3 }'; }

cd "$SRC" || exit 2
# shellcheck source=../../scripts/build-config.sh
. scripts/build-config.sh
for s in run.sh test.sh; do
    if grep -q '^\. scripts/build-config.sh' "scripts/$s"; then
        ok "scripts/$s configures through scripts/build-config.sh"
    else
        notok "scripts/$s does not use scripts/build-config.sh"
    fi
done
grep -q 'ctest .*--no-tests=error' scripts/test.sh && ok "scripts/test.sh runs ctest with --no-tests=error" ||
    notok "scripts/test.sh runs ctest without --no-tests=error"

configure_run "$T" || notok "configure_run failed"
n=$(count)
[ "${n:-x}" = 0 ] && ok "after scripts/run.sh's configure: no tests registered" ||
    notok "after scripts/run.sh's configure: expected 0 tests, got '${n}'"
if (cd "$T" && ctest --no-tests=error >/dev/null 2>&1); then
    notok "ctest --no-tests=error passes in a build without tests"
else
    ok "ctest --no-tests=error fails in a build without tests"
fi
configure_test "$T" || notok "configure_test failed"
n=$(count)
[ "${n:-0}" -gt 20 ] && ok "then scripts/test.sh's configure of the same dir: $n tests registered" ||
    notok "then scripts/test.sh's configure of the same dir: expected > 20 tests, got '${n}'"
grep -q '^RDMA_EXPORTER_WERROR:BOOL=ON' "$T/CMakeCache.txt" && ok "-Werror on for the tests" ||
    notok "-Werror not on after configure_test"
configure_run "$T" && n=$(count)
[ "${n:-x}" = 0 ] && ok "scripts/run.sh after scripts/test.sh: tests off again (no stale option)" ||
    notok "scripts/run.sh after scripts/test.sh: expected 0 tests, got '${n}'"

echo "scripts-sequence: $fails failed"
[ $fails = 0 ]
