#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The shutdown watchdog (src/daemon/daemon.c): once a stop signal came, the process
# ends within 10 s whatever hangs. rdma_exporter_hangtest is the same daemon
# with a test hook that hangs the shutdown stage named by
# RDMA_EXPORTER_TEST_HANG: on SIGTERM it must exit 1 within 10 s plus a margin
# (13 s), printing the watchdog's log line. The real binary, which has no
# hook, and the hang binary with no stage chosen must exit 0 within 3 s.
#
#   shutdown-watchdog.sh BINARY HANGTEST_BINARY     (FIXTURES dir from env)
set -u
BIN=${1:?usage: shutdown-watchdog.sh BINARY HANGTEST_BINARY}
HANG=$(readlink -f "${2:?usage: shutdown-watchdog.sh BINARY HANGTEST_BINARY}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools curl

RUN=$BIN
launch() {
	"$RUN" --web.listen-address="127.0.0.1:$PORT" \
		--path.sysfs="$FIXTURES/sysfs/mlx5-roce" --poll.interval=200ms \
		--no-collector.netlink --no-collector.ethtool --no-collector.probe \
		>"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; }


# prompt_exit NAME: started by start_on_free_port, exits 0 within 3 s of SIGTERM.
prompt_exit() {
	start_on_free_port launch ready || { not_ok "$1 starts"; return; }
	stop_timed
	check "$1: exit status 0 on SIGTERM (got $RC)" test "$RC" = 0
	check "$1: exits within 3 s of SIGTERM ($MS ms)" test "$MS" -lt 3000
}

# --- no hook: the real binary, and the hang binary with no stage chosen
RUN=$BIN prompt_exit "rdma_exporter"
unset RDMA_EXPORTER_TEST_HANG
RUN=$HANG prompt_exit "rdma_exporter_hangtest without RDMA_EXPORTER_TEST_HANG"

# --- stopping the web server hangs: the watchdog ends the process
export RDMA_EXPORTER_TEST_HANG=http_stop
RUN=$HANG
if start_on_free_port launch ready; then
	stop_timed
	check "hang at http_stop: the hook was reached" \
		grep -q "hangtest: hanging at stage http_stop" "$TMP/log"
	check "hang at http_stop: exit status 1 (got $RC)" test "$RC" = 1
	check "hang at http_stop: exits within 13 s of SIGTERM ($MS ms)" test "$MS" -le 13000
	check "hang at http_stop: not before the 10 s timeout ($MS ms)" test "$MS" -ge 9500
	check "hang at http_stop: the watchdog's log line" \
		grep -q 'level=error msg="shutdown did not finish in time; exiting" timeout_s=10' \
		"$TMP/log"
else
	not_ok "rdma_exporter_hangtest starts"
fi
unset RDMA_EXPORTER_TEST_HANG

echo "shutdown-watchdog: $fail failed"
[ "$fail" = 0 ] || { echo "last log:"; cat "$TMP/log"; }
[ "$fail" = 0 ]
