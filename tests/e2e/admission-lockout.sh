#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Issue 42, item 1: the default configuration (no web config) under the lock-out
# attack. 8 clients (8 IPv4 addresses, then 8 IPv6 /64s) each scrape /metrics
# (trusted from then on) and hold 8 kept-alive connections, all 64 of
# --web.max-connections, reconnecting and scraping again as soon as one is cut;
# meanwhile a scraper that had scraped before makes 60 scrapes, each on a new
# connection. At least 57 must be served, over IPv4 and over IPv6 (the attackers
# using a different address of their /64 for each connection). The verdict is on
# counts: each scrape is served or refused at accept, never judged by its time.
#
# Runs in a network namespace of its own (unshare -n): its loopback carries the
# IPv6 /64s (2001:db8:0:N::/64, addresses added nodad so they bind at once).
#
#   admission-lockout.sh BINARY   exit 0 passed, 1 failed, 77 skipped (no namespaces)
set -u
BIN=${1:?usage: admission-lockout.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${ADMISSION_NETNS_INNER:-}" ]; then
	if ! unshare -n true 2>/dev/null; then
		echo "admission-lockout: SKIP: cannot create a network namespace (unshare -n; needs root)" >&2
		exit 77
	fi
	ADMISSION_NETNS_INNER=1 exec unshare -n "$0" "$@"
fi
. "$HERE/lib.sh"
require_tools python3 curl ip

ip link set lo up
for n in 1 2 3 4 5 6 7 8; do
	for h in 1 2 3 4 5 6 7 8; do
		ip -6 addr add "2001:db8:0:$n::$h/64" dev lo nodad
	done
done
ip -6 addr add 2001:db8:0:100::1/64 dev lo nodad
ip -6 addr add 2001:db8:0:ff::1/64 dev lo nodad

cat >"$TMP/lockout.py" <<'EOF'
# lockout.py HOST PORT SCRAPER_SRC SRC_PATTERN SCRAPES
# SRC_PATTERN has {n} (the attacker, 1..8) and {h} (its connection, 1..8).
import select, socket, sys, threading

host, port, scraper, pattern, scrapes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
family = socket.AF_INET6 if ":" in host else socket.AF_INET
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"

def response(s):
    """One whole response on s (head and Content-Length body): its status, or None."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        c = s.recv(65536)
        if not c:
            return None
        buf += c
    head, body = buf.split(b"\r\n\r\n", 1)
    length = [int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
    while length and len(body) < length[0]:
        c = s.recv(65536)
        if not c:
            return None
        body += c
    return head.split(b" ")[1]

def get(src, close):
    """A new connection from src with one GET /metrics: the socket (kept) and whether it got 200."""
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.bind((src, 0))
        s.connect((host, port))
        s.sendall(REQ if not close else REQ.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        return s, response(s) == b"200"
    except OSError:
        return s, False

held, stop, counts = {}, threading.Event(), {"cut": 0, "refused": 0}
for n in range(1, 9):  # one scrape each first: then trusted
    s, ok = get(pattern.format(n=n, h=1), True)
    s.close()
    if not ok:
        sys.exit("attacker %d not let in for its first scrape: the setup is wrong" % n)
for n in range(1, 9):
    for h in range(1, 9):
        src = pattern.format(n=n, h=h)
        s, ok = get(src, False)
        if not ok:
            sys.exit("attacker %s not let in before the attack: the setup is wrong" % src)
        held[s] = src
print("# attack: 64 connections held")

def attacker():
    while not stop.is_set():
        ready, _, _ = select.select(list(held), [], [], 0.05)
        for s in ready:
            try:
                gone = s.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                gone = True
            if not gone:
                continue
            src = held.pop(s)
            s.close()
            counts["cut"] += 1
            while not stop.is_set():  # reconnect at once, until let in again
                t, ok = get(src, False)
                if ok:
                    held[t] = src
                    break
                t.close()
                counts["refused"] += 1

t = threading.Thread(target=attacker)
t.start()
served = 0
for i in range(scrapes):
    s, ok = get(scraper, True)
    s.close()
    served += ok
    stop.wait(0.02)
stop.set()
t.join()
print("# scraper served %d of %d; attacker connections cut %d, refused %d"
      % (served, scrapes, counts["cut"], counts["refused"]))
print(served)
EOF

# round FAMILY LISTEN_HOST SCRAPER_SRC SRC_PATTERN: the attack against a fresh exporter;
# prints the scrapes served of 60.
HOST=
launch() {
	"$BIN" --web.listen-address="$LISTEN:$PORT" --path.sysfs="$FIXTURES/sysfs/rxe" \
		--poll.interval=1s --no-collector.netlink --no-collector.ethtool \
		--no-collector.probe --log.level=info >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { curl -sg -o /dev/null --max-time 1 --interface "$SCRAPER" "http://$LISTEN:$PORT/metrics"; }
round() {
	local name=$1 out
	HOST=$2 SCRAPER=$3
	LISTEN=$HOST
	[ "${HOST#*:}" != "$HOST" ] && LISTEN="[$HOST]"
	# ready scrapes from the scraper's address: it scraped before the attack
	start_on_free_port launch ready || { not_ok "$name: the exporter starts"; return; }
	out=$(python3 "$TMP/lockout.py" "$HOST" "$PORT" "$SCRAPER" "$4" 60)
	echo "$out" | grep '^#'
	SERVED=$(echo "$out" | tail -1)
	check "$name: the scraper is served at least 57 of 60 scrapes under the attack (served ${SERVED:-none})" \
		test "${SERVED:-0}" -ge 57
	stop_exporter
	check "$name: exit status 0 after SIGTERM" test $? -eq 0
}

round IPv4 127.0.0.1 127.0.0.1 '127.0.0.{n}0'
round IPv6 2001:db8:0:ff::1 2001:db8:0:100::1 '2001:db8:0:{n}::{h}'
echo "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
