#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# skip-guard.sh SOURCE_DIR: the skip guard of scripts/test.sh on a real ctest.
# A scratch CMake project has a test that passes, one that exits 77
# (SKIP_RETURN_CODE), one that fails and one that is disabled; ctest_stage
# (scripts/ctest-stage.sh, what scripts/test.sh runs) must pass a run with a
# skip only where the guard is off or tests/skip-allowed.txt allows it outside
# CI, and fail it in CI or with RDMA_EXPORTER_NO_SKIPS=1, naming the test and
# its reason; a failed ctest keeps its status. Then scripts/check-skips.py on
# reports it cannot parse, and the tree itself: tests/skip-allowed.txt lists
# no test, and every ctest run of scripts/test.sh goes through ctest_stage.
set -u
SRC=$(cd "${1:?usage: skip-guard.sh SOURCE_DIR}" && pwd)
. "$SRC/tests/include/tap.sh"
GUARD=$SRC/scripts/check-skips.py

P=$TMP/proj
mkdir -p "$P"
cat >"$P/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.13)
project(skipguard NONE)
enable_testing()
add_test(NAME ran COMMAND sh -c "echo fine")
add_test(NAME skipper COMMAND sh -c "echo '# SKIP: no frobnicator here'; exit 77")
set_tests_properties(skipper PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME broken COMMAND sh -c "exit 1")
add_test(NAME off COMMAND true)
set_tests_properties(off PROPERTIES DISABLED ON)
EOF
if ! cmake -S "$P" -B "$P/b" >"$TMP/cmake.log" 2>&1; then
	sed 's/^/# /' "$TMP/cmake.log"
	not_ok "cmake configures the scratch project"
	exit 1
fi
: >"$TMP/empty"
printf '# a comment\n\n' >"$TMP/comments"
printf 'skipper no frobnicator on this laptop # and a comment\n' >"$TMP/allows"
printf 'skipper\n' >"$TMP/noreason"

# stage CI NO_SKIPS ALLOWED CTEST_ARGS...: ctest_stage on the scratch build as
# scripts/test.sh runs it; its output in $TMP/out, its status in $rc.
stage() {
	local ci=$1 noskips=$2 allowed=$3
	shift 3
	(
		export CI=$ci RDMA_EXPORTER_NO_SKIPS=$noskips SKIP_ALLOWED=$allowed
		. "$SRC/scripts/ctest-stage.sh"
		ctest_stage t "$P/b" ctest --no-tests=error "$@"
	) >"$TMP/out" 2>&1
	rc=$?
}
said() { grep -q -- "$1" "$TMP/out" || { sed 's/^/#   /' "$TMP/out"; false; }; }

stage "" 0 "$TMP/empty" -R '^(ran|skipper)$'
check "guard off (no CI, no RDMA_EXPORTER_NO_SKIPS): a skip passes, as ctest alone ($rc)" test "$rc" = 0
check "guard off: the JUnit report is written all the same" test -s "$P/b/ctest-junit.xml"

stage "" 1 "$TMP/comments" -R '^ran$'
check "RDMA_EXPORTER_NO_SKIPS=1, every test ran: passes ($rc)" test "$rc" = 0
check "... and says so" said 'all 1 tests ran'

stage "" 1 "$TMP/comments" -R '^(ran|skipper)$'
check "RDMA_EXPORTER_NO_SKIPS=1, a test exits 77: fails ($rc)" test "$rc" = 1
check "... naming the test, ctest's reason and the test's" \
	said 'FAIL: skipper did not run: SKIP_RETURN_CODE=77; # SKIP: no frobnicator here'
check "... and the count of tests that did not run" said '1 of 2 tests did not run (skipper)'

stage true 0 "$TMP/empty" -R '^(ran|skipper)$'
check "CI=true, a test exits 77: fails ($rc)" test "$rc" = 1
check "... naming it" said 'FAIL: skipper did not run'

stage true 0 "$TMP/empty" -R '^(ran|off)$'
check "CI=true, a DISABLED test: fails ($rc)" test "$rc" = 1
check "... naming it" said 'FAIL: off did not run: disabled'

stage "" 1 "$TMP/allows" -R '^(ran|skipper)$'
check "RDMA_EXPORTER_NO_SKIPS=1, the skip allowed with its reason: passes ($rc)" test "$rc" = 0
check "... printing the reason" said 'skipper did not run, allowed by .*: no frobnicator on this laptop'

stage true 0 "$TMP/allows" -R '^(ran|skipper)$'
check "CI=true, the skip listed in the allowed file: fails ($rc)" test "$rc" = 1
check "... the allowed file must be empty in CI" said 'must list no test in CI, it lists: skipper'

stage true 0 "$TMP/allows" -R '^ran$'
check "CI=true, a non-empty allowed file fails even when nothing skipped ($rc)" test "$rc" = 1

stage "" 1 "$TMP/noreason" -R '^(ran|skipper)$'
check "an allowed entry without its reason: fails ($rc)" test "$rc" = 1
check "... saying so" said "'skipper' has no reason"

stage "" 1 "$TMP/missing-file" -R '^ran$'
check "an allowed file that cannot be read: fails ($rc)" test "$rc" = 1

stage true 0 "$TMP/empty" -R '^(ran|skipper|broken)$'
check "CI=true, a test fails and one skips: ctest's status is kept ($rc)" test "$rc" = 8
check "... and the skip is reported as well" said 'FAIL: skipper did not run'

# --- scripts/check-skips.py on reports it cannot parse as XML ------------------
J=$P/b/ctest-junit.xml
python3 "$GUARD" --allowed "$TMP/empty" "$TMP/nothing.xml" >"$TMP/out" 2>&1
rc=$?
check "no report: fails ($rc)" test "$rc" = 1
echo 'Errors while running CTest' >"$TMP/garbage.xml"
python3 "$GUARD" --allowed "$TMP/empty" "$TMP/garbage.xml" >"$TMP/out" 2>&1
rc=$?
check "a file that is no report: fails ($rc)" test "$rc" = 1
# A control byte is not XML: the parser refuses the file, the fallback reads it.
stage "" 0 "$TMP/empty" -R '^(ran|skipper)$'
sed 's/# SKIP: no frobnicator here/# SKIP: no \x01 frobnicator \& <here>/' "$J" >"$TMP/bad.xml"
if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/bad.xml" 2>/dev/null; then
	not_ok "the doctored report is not XML"
fi
python3 "$GUARD" --allowed "$TMP/empty" "$TMP/bad.xml" >"$TMP/out" 2>&1
rc=$?
check "a report that is not valid XML: the skip is still found ($rc)" test "$rc" = 1
check "... with its reason" said 'FAIL: skipper did not run: SKIP_RETURN_CODE=77'

# --- the tree --------------------------------------------------------------------
entries=$(sed 's/#.*//' "$SRC/tests/skip-allowed.txt" | grep -c '[^[:space:]]')
check "tests/skip-allowed.txt lists no test ($entries): CI allows none" test "$entries" = 0
# Its commands with their continuation lines joined.
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$SRC/scripts/test.sh" >"$TMP/test.sh"
runs=$(grep -c 'ctest --output-on-failure' "$TMP/test.sh")
staged=$(grep -c '^ctest_stage .*ctest --output-on-failure' "$TMP/test.sh")
check "scripts/test.sh: all $runs ctest runs go through ctest_stage ($staged)" \
	test "$runs" = "$staged" -a "$runs" -ge 3

echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
