# SPDX-License-Identifier: Apache-2.0
#
# promtool.sh - promtool_clean FILE: `promtool check metrics` (its lint included)
# accepts FILE with exit status 0 and says nothing. No finding is filtered: users
# run the same lint on the exporter's output in their CI (issue 40). Prints what
# promtool said and returns 1 otherwise. Sourced by tests/e2e/lib.sh and
# tests/vm/host-lib.sh.

promtool_clean() {
	local out rc=0
	out=$(promtool check metrics <"$1" 2>&1) || rc=$?
	if [ $rc != 0 ] || [ -n "$out" ]; then
		printf 'promtool check metrics: exit %s\n%s\n' "$rc" "$out" | head -20 >&2
		return 1
	fi
}
