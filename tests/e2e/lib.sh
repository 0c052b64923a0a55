# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the e2e scripts that run the real binary (e2e.sh, webconfig.sh): a
# scratch dir, TAP-like counting, and starting the exporter on a free loopback port.
# The script sets BIN first.

TMP=$(mktemp -d)
PID=
PORT=
pass=0
fail=0

cleanup() {
	[ -n "$PID" ] && kill -9 "$PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND...
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# start_on_free_port LAUNCH READY: LAUNCH starts the exporter in the background on
# 127.0.0.1:$PORT with its output in $TMP/log and sets PID; READY succeeds once it
# serves. Up to 10 random ports: one already in use ("cannot listen") tries another.
start_on_free_port() {
	local launch=$1 ready=$2 try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		PORT=$((20000 + RANDOM % 40000))
		"$launch"
		for _ in $(seq 1 100); do
			"$ready" && return 0
			kill -0 "$PID" 2>/dev/null || break
			sleep 0.05
		done
		wait "$PID" 2>/dev/null
		PID=
		grep -q "cannot listen" "$TMP/log" || break
	done
	echo "exporter did not start; log:" >&2
	cat "$TMP/log" >&2
	return 1
}

stop_exporter() {
	local rc
	kill -TERM "$PID"
	wait "$PID"
	rc=$?
	PID=
	return $rc
}
