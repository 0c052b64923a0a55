# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the shell tests that cannot run everywhere (a tool or a kernel
# feature missing).

# skip VAR REASON...: this test cannot run here. Exit 77, which ctest reports as
# skipped (SKIP_RETURN_CODE 77), or exit 1 (failed) where the environment
# variable VAR is 1: scripts/test.sh sets it in CI, where a test that never ran
# must not pass for one that did.
skip() {
	local var=$1
	shift
	if [ "${!var:-0}" = 1 ]; then
		echo "not ok - cannot run: $* ($var=1)"
		exit 1
	fi
	echo "# SKIP: $* (exit 77; $var=1 makes this a failure)"
	exit 77
}
