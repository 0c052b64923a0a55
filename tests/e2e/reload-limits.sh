#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A reload never holds up a stop, and hostile web config files are refused fast,
# at start and at SIGHUP (docs/security.md): a FIFO as the web config file or as
# its cert_file/key_file is refused as "not a regular file" without being opened
# (before, open() waited for a writer and SIGTERM was ignored); YAML nested 60,000
# deep is refused in under 2 s (took 16 s); and with the reload hung by the test
# hook (rdma_exporter_hangtest, stage web_reload) SIGTERM still ends the process
# within 5 s, as reloads run off the signal thread. Loopback only; every wait is
# bounded.
#
#   reload-limits.sh BINARY HANGTEST_BINARY     (FIXTURES dir from env)
set -u
BIN=${1:?usage: reload-limits.sh BINARY HANGTEST_BINARY}
HANG=$(readlink -f "${2:?usage: reload-limits.sh BINARY HANGTEST_BINARY}")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools curl

COMMON=(--path.sysfs="$FIXTURES/sysfs/rxe" --poll.interval=1s --no-collector.netlink
	--no-collector.ethtool --no-collector.probe)
CONF=$TMP/web.yml
RUN=$BIN
launch() {
	"$RUN" --web.listen-address="127.0.0.1:$PORT" "${COMMON[@]}" \
		--web.config.file="$CONF" >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; }
good_config() {
	rm -f "$CONF"
	printf 'http_server_config:\n  headers:\n    X-Frame-Options: deny\n' >"$CONF"
}
# deep FILE: 60,000 levels of {a: {a: ...}} (about 300 KB)
deep() { python3 -c 'import sys; n = 60000; sys.stdout.write("{a: " * n + "x" + "}" * n + "\n")' >"$1"; }

# hup_logs PATTERN SECONDS: SIGHUP, then PATTERN must appear in a new log line in time
hup_logs() {
	local before t
	before=$(grep -c -- "$1" "$TMP/log")
	kill -HUP "$PID"
	for t in $(seq 1 $(($2 * 20))); do
		[ "$(grep -c -- "$1" "$TMP/log")" -gt "$before" ] && return 0
		sleep 0.05
	done
	echo "  '$1' not logged within $2 s of SIGHUP; log tail:" >&2
	tail -3 "$TMP/log" >&2
	return 1
}
# start_fails NAME: the exporter refuses $CONF at start with status 2 within 5 s,
# its error containing $WANT
start_fails() {
	local t0 rc ms
	t0=$(date +%s%N)
	timeout 5 "$BIN" --web.listen-address=127.0.0.1:1 "${COMMON[@]}" \
		--web.config.file="$CONF" >"$TMP/start.log" 2>&1 </dev/null
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "at start, $1: exit status 2 (got $rc, $ms ms)" test "$rc" = 2
	check "at start, $1: the error says \"$WANT\"" grep -q -- "$WANT" "$TMP/start.log"
	[ "$rc" = 2 ] || cat "$TMP/start.log" >&2
}

# --- at start
rm -f "$CONF" && mkfifo "$CONF"
WANT="cannot read \"$CONF\": not a regular file" start_fails "a FIFO as the web config file"
printf 'x\n' >"$TMP/plain.pem"
rm -f "$TMP/cert.fifo" "$TMP/key.fifo" && mkfifo "$TMP/cert.fifo" "$TMP/key.fifo"
rm -f "$CONF" && printf 'tls_server_config:\n  cert_file: cert.fifo\n  key_file: plain.pem\n' >"$CONF"
WANT="cert_file: cannot read \"$TMP/cert.fifo\": not a regular file" start_fails "a FIFO as cert_file"
rm -f "$CONF" && printf 'tls_server_config:\n  cert_file: plain.pem\n  key_file: key.fifo\n' >"$CONF"
WANT="key_file: cannot read \"$TMP/key.fifo\": not a regular file" start_fails "a FIFO as key_file"
rm -f "$CONF" && deep "$CONF"
WANT="nested deeper than 32 levels" start_fails "YAML nested 60,000 deep"

# --- at reload: each refused and logged at once, the daemon still stops at once
good_config
if start_on_free_port launch ready; then
	rm -f "$CONF" && mkfifo "$CONF"
	check "SIGHUP with a FIFO as the web config: refused within 3 s" \
		hup_logs "web config not reloaded.*not a regular file" 3
	rm -f "$CONF" && printf 'tls_server_config:\n  cert_file: cert.fifo\n  key_file: plain.pem\n' >"$CONF"
	check "SIGHUP with a FIFO as cert_file: refused within 3 s" \
		hup_logs "web config not reloaded.*cert_file: cannot read.*not a regular file" 3
	rm -f "$CONF" && printf 'tls_server_config:\n  cert_file: plain.pem\n  key_file: key.fifo\n' >"$CONF"
	check "SIGHUP with a FIFO as key_file: refused within 3 s" \
		hup_logs "web config not reloaded.*key_file: cannot read.*not a regular file" 3
	rm -f "$CONF" && deep "$CONF"
	check "SIGHUP with YAML nested 60,000 deep: refused within 2 s" \
		hup_logs "web config not reloaded.*nested deeper than 32 levels" 2
	good_config
	check "SIGHUP with a good file again: reloaded" hup_logs "web config reloaded" 3
	check "still serving" ready
	rm -f "$CONF" && mkfifo "$CONF"
	kill -HUP "$PID"
	sleep 0.5
	stop_timed
	check "SIGTERM after a SIGHUP with a FIFO: exit status 0 (got $RC)" test "$RC" = 0
	check "SIGTERM after a SIGHUP with a FIFO: exits within 5 s ($MS ms)" test "$MS" -lt 5000
else
	not_ok "starts with a good web config"
fi

# --- a reload that hangs (test hook) does not hold up SIGTERM
good_config
export RDMA_EXPORTER_TEST_HANG=web_reload
RUN=$HANG
if start_on_free_port launch ready; then
	kill -HUP "$PID"
	for _ in $(seq 1 60); do
		grep -q "hangtest: hanging at stage web_reload" "$TMP/log" && break
		sleep 0.05
	done
	check "hung reload: the hook was reached" \
		grep -q "hangtest: hanging at stage web_reload" "$TMP/log"
	stop_timed
	check "hung reload: SIGTERM ends the process within 5 s ($MS ms)" test "$MS" -lt 5000
	check "hung reload: exit status 1 (got $RC)" test "$RC" = 1
	check "hung reload: says the reload was left running" \
		grep -q 'a web config reload is still running; exiting without it' "$TMP/log"
else
	not_ok "rdma_exporter_hangtest starts"
fi
unset RDMA_EXPORTER_TEST_HANG

echo "reload-limits: $fail failed"
[ "$fail" = 0 ] || { echo "last log:"; cat "$TMP/log"; }
[ "$fail" = 0 ]
