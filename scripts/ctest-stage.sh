# SPDX-License-Identifier: Apache-2.0
#
# Sourced by scripts/test.sh (and tests/lint/skip-guard.sh, which checks it):
# one ctest run of the test suite and the skip guard on it.

# ctest_stage STAGE DIR COMMAND...: runs COMMAND, a ctest command line (perhaps
# behind env or setarch), in the build dir DIR with --output-junit
# DIR/ctest-junit.xml added. Where CI=true or RDMA_EXPORTER_NO_SKIPS=1, every
# test must then have run: scripts/check-skips.py lists the ones that did not
# (skipped with exit 77, disabled, not found) and fails the stage, except those
# tests/skip-allowed.txt lists with their reason (SKIP_ALLOWED overrides the
# file), and in CI that list must be empty. Returns ctest's status, else 1 when
# the guard failed, else 0; the guard runs even after a failed ctest, so that
# one log says both.
ctest_stage() {
	local stage=$1 dir rc=0 root ci=()
	dir=$(cd "$2" && pwd)
	shift 2
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	rm -f "$dir/ctest-junit.xml"
	(cd "$dir" && "$@" --output-junit "$dir/ctest-junit.xml") || rc=$?
	[ "${CI:-}" = true ] || [ "${RDMA_EXPORTER_NO_SKIPS:-0}" = 1 ] || return "$rc"
	[ "${CI:-}" = true ] && ci=(--ci)
	python3 "$root/scripts/check-skips.py" "${ci[@]}" --stage "$stage" \
		--allowed "${SKIP_ALLOWED:-$root/tests/skip-allowed.txt}" "$dir/ctest-junit.xml" ||
		{ [ "$rc" -ne 0 ] || rc=1; }
	return "$rc"
}
