#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The HTTP server under a connection flood, with the default web flags: from
# 127.0.0.2 a python3 attacker holds 2,000 idle connections and 64 slowloris
# connections (one header byte a second, reconnecting when cut); meanwhile
# scrapes and /healthz from 127.0.0.1 must each answer within 1 s, several
# times. Then --web.max-connections-per-client (a 9th connection from one
# address is closed at once while 8 are open, and the 8 are still served) and
# --web.request-header-timeout (a connection that sends a header byte every
# 0.5 s is cut after about 5 s, though the idle timeout never expires), each
# counted in rdma_exporter_http_connections_rejected_total{reason}.
#
#   slowloris.sh BINARY     (FIXTURES dir from env)
set -u
BIN=${1:?usage: slowloris.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools python3 curl
# the attacker's 2,064 sockets (the exporter raises its own limit at start)
ulimit -n "$(ulimit -Hn)" 2>/dev/null
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 2200 ]; then
	echo "not ok - an open file limit of 2200 for the attacker (have $(ulimit -n))"
	exit 1
fi

launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$FIXTURES/sysfs/rxe" \
		--poll.interval=1s --no-collector.netlink --no-collector.ethtool \
		--no-collector.probe --log.level=debug >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/healthz"; }
start_on_free_port launch ready || { echo "not ok - the exporter starts"; exit 1; }

REJ=rdma_exporter_http_connections_rejected_total
rejected() { sample "$REJ{reason=\"$1\"}"; }
check "rejected connections: every reason exported at 0 from the start" bash -c \
	"curl -s http://127.0.0.1:$PORT/metrics | grep -c '^$REJ{reason=\"\\(per_client_limit\\|global_limit\\|header_deadline\\)\"} 0\$' | grep -qx 3"

expect_200() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT/metrics")" = 200 ]; }

# --- keep-alive: HTTP/1.1 reuses the connection (no "Connection: close")
check "HTTP/1.1: two requests in one curl take one connection" bash -c \
	"curl -sv -o /dev/null -o /dev/null 'http://127.0.0.1:$PORT/metrics' 'http://127.0.0.1:$PORT/healthz' 2>&1 | grep -q 'Re-using existing connection'"
check "HTTP/1.1: no Connection: close header" bash -c \
	"! curl -s -D - -o /dev/null 'http://127.0.0.1:$PORT/metrics' | grep -qi '^Connection: close'"
check "HTTP/1.1: gzip and plain scrapes on one connection, 2 connects for 4 requests at most" bash -c \
	"test \$(curl -s -o /dev/null -o /dev/null -o /dev/null -o /dev/null -w '%{num_connects}\n' --compressed 'http://127.0.0.1:$PORT/metrics' 'http://127.0.0.1:$PORT/metrics' 'http://127.0.0.1:$PORT/' 'http://127.0.0.1:$PORT/healthz' | paste -sd+ | bc) -eq 1"
check "HTTP/1.0 with Connection: keep-alive is kept alive" bash -c \
	"curl -sv -0 -H 'Connection: keep-alive' -o /dev/null -o /dev/null 'http://127.0.0.1:$PORT/healthz' 'http://127.0.0.1:$PORT/healthz' 2>&1 | grep -q 'Re-using existing connection'"
check "a POST is answered 405 and its body not read" bash -c \
	"test \$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -d x=1 'http://127.0.0.1:$PORT/metrics') = 405"

cat >"$TMP/attack.py" <<'EOF'
import errno, socket, sys, time

port, seconds = int(sys.argv[1]), float(sys.argv[2])
SRC, IDLE, SLOW = "127.0.0.2", 2000, 64

def connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    s.bind((SRC, 0))
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return s

def alive(s):
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False

idle = [connect() for _ in range(IDLE)]
slow = [connect() for _ in range(SLOW)]
started = [False] * SLOW
print("attacker: connections open", flush=True)
end = time.monotonic() + seconds
cut = 0
while time.monotonic() < end:
    for i, s in enumerate(slow):
        try:
            if not started[i]:
                s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                started[i] = True
            else:
                s.send(b"X")
        except BlockingIOError:
            pass
        except OSError:
            # cut by the server (or never connected): a real attacker comes back
            s.close()
            slow[i], started[i] = connect(), False
            cut += 1
    time.sleep(1)
print("attacker: idle connections still open %d of %d, slowloris connections cut %d"
      % (sum(alive(s) for s in idle), IDLE, cut), flush=True)
EOF

# --- the flood: scrapes and /healthz from another address must not wait
python3 "$TMP/attack.py" "$PORT" 14 >"$TMP/attack.log" 2>&1 &
APID=$!
sleep 3
timed() { # timed PATH: "CODE SECONDS" of one request with a 1 s limit
	curl -s -o /dev/null --max-time 1 -w '%{http_code} %{time_total}' \
		"http://127.0.0.1:$PORT$1"
}
slow_answers=0
for round in 1 2 3 4 5 6 7 8; do
	for path in /metrics /healthz; do
		r=$(timed "$path")
		echo "  round $round $path: $r"
		case $r in 200\ *) ;; *) slow_answers=$((slow_answers + 1)) ;; esac
	done
	sleep 1
done
check "under 2,000 idle and 64 slowloris connections, 8 scrapes and 8 /healthz each answer 200 within 1 s" \
	test "$slow_answers" -eq 0
wait "$APID"
sed 's/^/  /' "$TMP/attack.log"
check "the attacker ran" grep -q "attacker: idle connections" "$TMP/attack.log"
check "the exporter survived the flood" kill -0 "$PID"
# The counters settle once the server has seen every attacker connection end (a
# slow machine, ThreadSanitizer's, may still cut some at their deadline seconds
# later): three equal readings 1.5 s apart, over several polls.
settled() {
	local a b same=0
	b=$(rejected "$1")
	for _ in $(seq 1 30); do
		sleep 1.5 # a poll publishes the counters
		a=$b
		b=$(rejected "$1")
		if [ "$a" = "$b" ]; then
			same=$((same + 1))
			[ "$same" -ge 2 ] && break
		else
			same=0
		fi
	done
	echo "$b"
}
flood_hd=$(settled header_deadline)
flood_pc=$(settled per_client_limit)
echo "  rejected after the flood: per_client_limit $flood_pc, header_deadline $flood_hd, global_limit $(rejected global_limit)"
check "the flood's connections over the per-client limit are counted (over 1,000)" \
	test "$flood_pc" -gt 1000
check "the flood's slowloris connections cut are counted as header_deadline" test "$flood_hd" -gt 0
check "one client address never counts as the global limit" test "$(rejected global_limit)" = 0

# --- one client address: 8 connections, not 9
cat >"$TMP/perclient.py" <<'EOF'
import socket, sys, time

port = int(sys.argv[1])
def connect():
    s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=("127.0.0.3", 0))
    return s
held = [connect() for _ in range(8)]
time.sleep(0.3)
ninth = connect()
ninth.settimeout(2)
try:
    refused = ninth.recv(1) == b""
except ConnectionResetError:
    refused = True
except socket.timeout:
    refused = False
print("ninth refused:", refused)
# the eight are still served
ok = 0
for s in held:
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    if s.recv(64).startswith(b"HTTP/1.1 200"):
        ok += 1
print("held served:", ok)
sys.exit(0 if refused and ok == 8 else 1)
EOF
check "a 9th connection from one address is closed at once while 8 are open; the 8 are served" \
	python3 "$TMP/perclient.py" "$PORT"
check "the 9th connection counted: per_client_limit +1" \
	wait_sample "$REJ{reason=\"per_client_limit\"}" $((flood_pc + 1))

# --- a request head that never ends is cut at --web.request-header-timeout (5 s)
cat >"$TMP/slowhead.py" <<'EOF'
import socket, sys, time

port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port), timeout=0.5, source_address=("127.0.0.4", 0))
t0 = time.monotonic()
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
while time.monotonic() - t0 < 12:
    try:
        s.sendall(b"X")
        if s.recv(1) == b"":
            break
    except socket.timeout:
        continue
    except OSError:
        break
dt = time.monotonic() - t0
print("cut after %.1f s" % dt)
sys.exit(0 if 4 <= dt <= 8 else 1)
EOF
# Baselines are taken just before each step, so a late cut of a flood
# connection cannot be mistaken for one of the step's.
hd0=$(settled header_deadline)
check "a header sent one byte every 0.5 s is cut after 4 to 8 s (request-header-timeout 5s)" \
	python3 "$TMP/slowhead.py" "$PORT"
check "the cut counted: header_deadline +1" \
	wait_sample "$REJ{reason=\"header_deadline\"}" $((hd0 + 1))
hd1=$(settled header_deadline)
check "a kept-alive idle connection is not cut by the header timeout before the idle timeout" \
	python3 - "$PORT" <<'EOF'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2, source_address=("127.0.0.5", 0))
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200")
time.sleep(7)  # past the 5 s header timeout, within the 10 s idle timeout
s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
sys.exit(0 if s.recv(4096).startswith(b"HTTP/1.1 200") else 1)
EOF

check "the kept-alive connection was not counted: header_deadline unchanged" \
	test "$(settled header_deadline)" = "$hd1"
check "the exporter still serves" expect_200
stop_exporter
check "exit status 0 after SIGTERM" test $? -eq 0
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
