#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# ctest bench_smoke (label bench-smoke): the benchmark tooling is right, never
# how fast anything is. No timing is asserted.
#   - scrape_load reads whole responses correctly: a Content-Length body and
#     a chunked one (several chunks, a trailer), with and without keep-alive
#     (one connection for all requests when the server keeps it), gzip asked
#     for and decoded to the same bytes, errors counted for a 404 and for a
#     closed port, and its output line has every key the scripts read;
#   - against the real exporter: every scrape complete, its body the same as
#     curl's;
#   - lib.sh: the synthetic tree has the expected counter files, and the /proc
#     readings and the exposition look-ups return numbers.
#
#   tests/bench/smoke.sh BUILD/tests/bench/scrape_load BUILD/rdma_exporter
set -euo pipefail
LOAD=$(readlink -f "${1:?usage: smoke.sh SCRAPE_LOAD RDMA_EXPORTER}")
BIN=$(readlink -f "${2:?usage: smoke.sh SCRAPE_LOAD RDMA_EXPORTER}")
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"

TMP=$(mktemp -d)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$TMP"
}
trap cleanup EXIT
pass=0
failed=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
kv() { tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2; exit }'; }
expect() { # expect WHAT LINE KEY VALUE
	local got
	got=$(kv "$3" "$2")
	if [ "$got" = "$4" ]; then ok; else bad "$1: $3=$got, expected $4 (line: $2)"; fi
}

# --- a server that frames its bodies both ways (python3, loopback)
cat >"$TMP/server.py" <<'EOF'
import gzip, http.server, sys
BODY = b"".join(b"metric_%d{a=\"b\"} %d\n" % (i, i) for i in range(3000))
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        if self.path not in ("/cl", "/chunked"):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = BODY
        self.send_response(200)
        if "gzip" in self.headers.get("Accept-Encoding", ""):
            body = gzip.compress(BODY)
            self.send_header("Content-Encoding", "gzip")
        if self.path == "/cl":
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Trailer", "X-Done")
        self.end_headers()
        for i in range(0, len(body), 4000):
            part = body[i:i + 4000]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\nX-Done: yes\r\n\r\n")
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
open(sys.argv[2], "wb").write(BODY)
s.serve_forever()
EOF
SPORT=$(bench_free_port)
python3 "$TMP/server.py" "$SPORT" "$TMP/expected" &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$TMP/expected" ] && (: </dev/tcp/127.0.0.1/"$SPORT") 2>/dev/null && break; sleep 0.05; done
size=$(wc -c <"$TMP/expected")

for path in cl chunked; do
	for ka in "" -k; do
		for z in "" -z; do
			what="/$path ${ka:-close} ${z:-identity}"
			rm -f "$TMP/out"
			line=$("$LOAD" -c 2 -n 30 $ka $z -o "$TMP/out" "http://127.0.0.1:$SPORT/$path") || bad "$what: exit $?"
			expect "$what" "$line" requests 30
			expect "$what" "$line" errors 0
			if [ -n "$ka" ]; then expect "$what" "$line" connects 2; else expect "$what" "$line" connects 30; fi
			if [ -z "$z" ]; then
				expect "$what" "$line" body_bytes "$size"
				if cmp -s "$TMP/out" "$TMP/expected"; then ok; else bad "$what: -o body differs"; fi
			else
				if gzip -dc "$TMP/out" 2>/dev/null | cmp -s - "$TMP/expected"; then ok; else bad "$what: -o body is not the gzip of the body"; fi
			fi
			for key in clients keepalive encoding requests errors connects seconds rps p50_ms p90_ms p99_ms max_ms body_bytes; do
				[ -n "$(kv "$key" "$line")" ] || bad "$what: no $key= in: $line"
			done
		done
	done
done
if line=$("$LOAD" -n 5 "http://127.0.0.1:$SPORT/nope"); then bad "404: exit 0"; else ok; fi
expect "404" "$line" errors 5
if line=$("$LOAD" -n 3 "http://127.0.0.1:$(bench_free_port)/metrics"); then bad "closed port: exit 0"; else ok; fi
expect "closed port" "$line" errors 3
check() { # check WHAT CONDITION...: ok when the command succeeds
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}
usage_error() { "$LOAD" "$@" >/dev/null 2>&1; [ $? = 2 ]; }
check "-n with -d accepted" usage_error -n 1 -d 1 "http://127.0.0.1:$SPORT/cl"
check "https accepted" usage_error -n 1 "https://127.0.0.1:$SPORT/cl"

# --- the real exporter on a small synthetic tree
bench_tree "$TMP" 2 1
files=$(bench_counter_files "$TMP")
check "bench_tree 2 1: $files counter files, expected 106 (2 x 53)" [ "$files" = 106 ]
PORT=$(bench_free_port)
"$BIN" --web.listen-address="127.0.0.1:$PORT" --path.sysfs="$TMP/sys" --collector.disable-defaults \
	--collector.sysfs --poll.interval=1h --log.level=error &
PID=$!
PIDS+=("$PID")
bench_wait_http "http://127.0.0.1:$PORT/metrics" 15 || bad "the exporter did not answer"
for z in "" -z; do
	rm -f "$TMP/out"
	line=$("$LOAD" -c 2 -n 40 $z -o "$TMP/out" "http://127.0.0.1:$PORT/metrics") || bad "exporter ${z:-identity}: exit $?"
	expect "exporter ${z:-identity}" "$line" errors 0
	expect "exporter ${z:-identity}" "$line" requests 40
	curl -fsS "http://127.0.0.1:$PORT/metrics" >"$TMP/curl"
	: >"$TMP/body"
	if [ -n "$z" ]; then gzip -dc "$TMP/out" >"$TMP/body" || true; else cp "$TMP/out" "$TMP/body" || true; fi
	# the snapshot is rendered once a poll (one poll an hour here): same bytes
	if cmp -s "$TMP/body" "$TMP/curl"; then ok; else bad "exporter ${z:-identity}: body differs from curl's"; fi
done
check "bench_metric: no polls_total" [ "$(bench_metric rdma_exporter_polls_total "$TMP/curl")" -ge 1 ]
check "bench_series: too few rdma_port_ series" [ "$(bench_series "$TMP/curl" rdma_port_)" -gt 100 ]
read -r rss pss <<<"$(bench_mem "$PID")"
positive() { [ "${1:-0}" -gt 0 ] 2>/dev/null; }
check "bench_mem: RSS '$rss'" positive "$rss"
check "bench_mem: PSS '$pss'" positive "$pss"
check "bench_cpu_ticks: not a number" grep -Eq '^[0-9]+$' <<<"$(bench_cpu_ticks "$PID")"
check "bench_fds: fewer fds than kept-open counter files" [ "$(bench_fds "$PID")" -gt "$files" ]
check "bench_anon: anonymous kB '$(bench_anon "$PID")'" positive "$(bench_anon "$PID")"
printf 'h_bucket{le="0.05"} 0\nh_bucket{le="0.1"} 0\nh_bucket{le="+Inf"} 0\n' >"$TMP/h0"
printf 'h_bucket{le="0.05"} 0\nh_bucket{le="0.1"} 10\nh_bucket{le="+Inf"} 10\n' >"$TMP/h1"
check "bench_hist_median: $(bench_hist_median h "$TMP/h0" "$TMP/h1"), expected 0.075" \
	[ "$(bench_hist_median h "$TMP/h0" "$TMP/h1")" = 0.075 ]
check "bench_hist_median: no observations" [ "$(bench_hist_median h "$TMP/h0" "$TMP/h0")" = - ]
# one labelled series of two: the other's buckets are not counted
sed 's/{/{s="a",/' "$TMP/h0" >"$TMP/hl0"
{ sed 's/{/{s="a",/' "$TMP/h1"; sed 's/{/{s="b",/; s/ 10$/ 90/' "$TMP/h1"; } >"$TMP/hl1"
check "bench_hist_median with labels: $(bench_hist_median h "$TMP/hl0" "$TMP/hl1" 's="a",')" \
	[ "$(bench_hist_median h "$TMP/hl0" "$TMP/hl1" 's="a",')" = 0.075 ]

echo "bench-smoke: $pass passed, $failed failed"
[ "$failed" = 0 ]
