# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the shell tests: a scratch dir ($TMP, removed at exit), TAP-like
# counting (ok, not_ok, check; totals in $pass and $fail) and, at exit, SIGKILL
# for the daemon in $PID and any other process in $EXTRA_PIDS that a test
# left running. free_port (port.sh) picks a port for a listener.

. "$(dirname "${BASH_SOURCE[0]}")/port.sh"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rdma-exporter-test.XXXXXX")
PID=
EXTRA_PIDS=
pass=0
fail=0

tap_cleanup() {
	local p
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	for p in $EXTRA_PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap tap_cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
