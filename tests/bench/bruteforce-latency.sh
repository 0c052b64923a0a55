#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# How fast the right user is served under a password-guessing flood
# (docs/security.md, "Basic auth under attack"): the figures that
# tests/e2e/bruteforce.sh printed and judged until issue 42 (medians under
# 200 ms, none over 2 s, SIGTERM to exit under 5 s; on one HTTP thread that
# ran every bcrypt, medians were 2.5 s). Prints them; asserts nothing. Run it
# on an idle machine: the flood keeps two cores busy.
#
#   tests/bench/bruteforce-latency.sh BUILD/rdma_exporter [SCRAPES]
set -u
BIN=$(readlink -f "${1:?usage: bruteforce-latency.sh RDMA_EXPORTER [SCRAPES]}")
N=${2:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
FIXTURES=${FIXTURES:-$HERE/../fixtures}
for t in python3 curl htpasswd; do
	command -v "$t" >/dev/null || { echo "needs $t" >&2; exit 1; }
done
TMP=$(mktemp -d)
PID=""
ATTACK=""
cleanup() {
	[ -n "$ATTACK" ] && kill "$ATTACK" 2>/dev/null
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

ALICE=$(htpasswd -nbBC 12 "" secret | tr -d ':\n')
printf 'basic_auth_users:\n  alice: %s\n' "$ALICE" >"$TMP/web.yml"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$FIXTURES/sysfs/rxe" \
	--poll.interval=1s --no-collector.netlink --no-collector.ethtool --no-collector.probe \
	--web.config.file="$TMP/web.yml" >"$TMP/log" 2>&1 &
PID=$!
url=http://127.0.0.1:$PORT
up=
for _ in $(seq 1 100); do
	[ "$(curl -s -o /dev/null -w '%{http_code}' -u alice:secret "$url/metrics")" = 200 ] && up=1 && break
	sleep 0.1
done
[ -n "$up" ] || { echo "the exporter did not serve; its log:" >&2; cat "$TMP/log" >&2; exit 1; }

# stats FILE: median and max of the times in FILE (seconds), in ms
stats() {
	sort -n "$1" | awk '{ t[NR] = $1 } END {
		printf "median %.1f ms, max %.1f ms (%d)", t[int((NR + 1) / 2)] * 1000, t[NR] * 1000, NR }'
}
times() { # times PATH OUT: N requests by the right user at uneven pauses
	local i
	: >"$2"
	for i in $(seq 1 "$N"); do
		curl -s -o /dev/null -w '%{time_total}\n' --max-time 30 -u alice:secret \
			"$url$1" >>"$2"
		sleep "0.$((i * 37 % 10))"
	done
}
times /metrics "$TMP/base"
echo "unloaded: scrape $(stats "$TMP/base")"
python3 "$HERE/../e2e/attack.py" "$PORT" 600 "$TMP/stop" >"$TMP/attack.out" 2>&1 &
ATTACK=$!
sleep 1
times /metrics "$TMP/scrape"
times /healthz "$TMP/health"
echo "under a flood from 8 addresses: scrape $(stats "$TMP/scrape"); /healthz $(stats "$TMP/health")"
t0=$(date +%s%N)
kill -TERM "$PID"
wait "$PID"
rc=$?
t1=$(date +%s%N)
PID=
echo "SIGTERM under the flood: exit $rc after $(((t1 - t0) / 1000000)) ms"
touch "$TMP/stop"
wait "$ATTACK"
ATTACK=
echo "the flood's answers: $(cat "$TMP/attack.out")"
