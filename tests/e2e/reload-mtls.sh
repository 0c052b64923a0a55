#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A SIGHUP never turns client-certificate auth off (issue 42, docs/security.md).
# The exporter runs with RequireAndVerifyClientCert; then files that would weaken
# it are each refused whole, counted in rdma_exporter_web_config_reloads_total
# {result="refused"} and logged as refused, while /metrics still wants a client
# certificate of the CA: a file cut after key_file, RequireAnyClientCert,
# VerifyClientCertIfGiven, no TLS at all. Then the in-place rewrite race, RACES
# times: truncate, write part of the file, SIGHUP, write the rest, wait for the
# reload's outcome, and curl without a certificate must fail every time (before
# the fix, a cut after key_file was applied and /metrics answered 200 until the
# next reload). Every probe without a certificate comes from an address of its own
# (127.N.0.1), so that the TLS handshake limit never answers in its place.
# Verdicts on outcomes only; every wait is bounded.
#
#   reload-mtls.sh BINARY     (FIXTURES dir from env; RACES, default 100)
set -u
BIN=${1:?usage: reload-mtls.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools openssl curl
RACES=${RACES:-100}

CONF=$TMP/conf
mkdir -p "$CONF"
(
	cd "$CONF" || exit 1
	key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
	ca() { key "$1.key" && openssl req -x509 -new -key "$1.key" -out "$1.crt" -days 2 -subj "/CN=$1" 2>/dev/null; }
	cert() { # cert CA NAME EXTENSIONS
		key "$2.key" &&
			openssl req -new -key "$2.key" -out "$2.csr" -subj "/CN=$2" 2>/dev/null &&
			printf '%s\n' "$3" >"$2.ext" &&
			openssl x509 -req -in "$2.csr" -CA "$1.crt" -CAkey "$1.key" -CAcreateserial \
				-out "$2.crt" -days 2 -extfile "$2.ext" 2>/dev/null
	}
	ca ca && ca other-ca &&
		cert ca server "subjectAltName=DNS:localhost,IP:127.0.0.1" &&
		cert ca client "extendedKeyUsage=clientAuth" &&
		cert other-ca rogue "extendedKeyUsage=clientAuth"
) || { echo "not ok - openssl makes the test certificates"; exit 1; }

WEB=$CONF/web.yml
GOOD='tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
'
# the file cut after key_file: valid, TLS without client certificates
CUT=$(printf '%s' "$GOOD" | sed -n '1,3p')
printf '%s' "$GOOD" >"$WEB"

COMMON=(--path.sysfs="$FIXTURES/sysfs/rxe" --poll.interval=1s --no-collector.netlink
	--no-collector.ethtool --no-collector.probe)
launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" "${COMMON[@]}" \
		--web.config.file="$WEB" >"$TMP/log" 2>&1 &
	PID=$!
}
listening() { grep -q " msg=listening " "$TMP/log"; }
OUTCOME='web config ((not )?reloaded|reload refused)'
# hup: SIGHUP, then wait until the reload has logged its outcome (one line each)
hup() {
	local before
	before=$(grep -cE "$OUTCOME" "$TMP/log")
	kill -HUP "$PID"
	for _ in $(seq 1 200); do
		[ "$(grep -cE "$OUTCOME" "$TMP/log")" -gt "$before" ] && return 0
		sleep 0.05
	done
	echo "  no reload logged after SIGHUP" >&2
	return 1
}
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 --cacert "$CONF/ca.crt" "$@"; }
N=0
# nocert: /metrics without a client certificate, from an address of its own
nocert() {
	N=$((N + 1))
	code --interface "127.$((N % 250 + 1)).$((N / 250)).1" "https://127.0.0.1:$PORT/metrics"
}
good() { code --cert "$CONF/client.crt" --key "$CONF/client.key" "$@"; }
rogue() { code --cert "$CONF/rogue.crt" --key "$CONF/rogue.key" "$@"; }
expect() { # expect WANT ACTUAL
	[ "$1" = "$2" ] && return 0
	echo "  want $1, got $2" >&2
	return 1
}
refusals() { grep -c 'msg="web config reload refused; keeping the previous config"' "$TMP/log"; }
counter() { # counter RESULT: rdma_exporter_web_config_reloads_total{result=RESULT}
	curl -s --max-time 10 --cacert "$CONF/ca.crt" --cert "$CONF/client.crt" \
		--key "$CONF/client.key" "https://127.0.0.1:$PORT/metrics" |
		awk -v s="rdma_exporter_web_config_reloads_total{result=\"$1\"}" \
			'index($0, s " ") == 1 { v = $2 } END { print (v == "" ? "missing" : v) }'
}
# counters WANT RESULT...: the counters of each RESULT, space separated, once they read
# WANT (each scrape serves the last poll's values: a reload shows at the next poll)
counters() {
	local want=$1 got r
	shift
	for _ in $(seq 1 100); do
		got=
		for r in "$@"; do got="$got${got:+ }$(counter "$r")"; done
		[ "$got" = "$want" ] && break
		sleep 0.1
	done
	echo "$got"
}
# weaker NAME WANT_REASON: $WEB already holds the weaker file; SIGHUP refuses it
weaker() {
	local before
	before=$(refusals)
	hup
	check "$1: refused and logged as refused" expect "$((before + 1))" "$(refusals)"
	check "$1: the reason says \"$2\"" grep -q "reload refused.*reason=\"$2" "$TMP/log"
	check "$1: /metrics without a certificate still refused" expect 000 "$(nocert)"
	check "$1: /metrics with a certificate of another CA still refused" expect 000 \
		"$(rogue "https://127.0.0.1:$PORT/metrics")"
	check "$1: /metrics with the client certificate: 200" expect 200 \
		"$(good "https://127.0.0.1:$PORT/metrics")"
}

if ! start_on_free_port launch listening; then
	not_ok "starts with RequireAndVerifyClientCert"
	echo "reload-mtls: $fail failed"
	exit 1
fi
url=https://127.0.0.1:$PORT
check "start: no certificate: refused" expect 000 "$(nocert)"
check "start: client certificate: 200" expect 200 "$(good "$url/metrics")"
check "start: reloads counted from 0" expect "0 0 0" "$(counters "0 0 0" ok refused error)"

printf '%s\n' "$CUT" >"$WEB"
weaker "cut after key_file" "its client_auth_type would no longer require a client certificate"
printf '%s' "${GOOD/RequireAndVerifyClientCert/RequireAnyClientCert}" >"$WEB"
weaker "RequireAnyClientCert" "its client_auth_type would no longer verify client certificates"
printf '%s' "${GOOD/RequireAndVerifyClientCert/VerifyClientCertIfGiven}" >"$WEB"
weaker "VerifyClientCertIfGiven" "its client_auth_type would no longer require a client certificate"
: >"$WEB"
weaker "empty file (no TLS)" "it would turn TLS off"
check "four refusals counted" expect 4 "$(counters 4 refused)"

# the same file again, and a stronger or equal one: applied
printf '%s' "$GOOD" >"$WEB"
hup
check "the same file: reloaded" expect "1 4" "$(counters "1 4" ok refused)"

# --- the in-place rewrite race: truncate, part, SIGHUP, the rest. Odd rounds cut
# after key_file and write the rest once the reload is done (the reload surely
# reads the part); even ones cut at a byte spread over the file and write the rest
# at once (the reload reads whatever it finds).
# reload_done BEFORE: wait until the log holds more reload outcomes than BEFORE
reload_done() {
	for _ in $(seq 1 200); do
		[ "$(grep -cE "$OUTCOME" "$TMP/log")" -gt "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
opened=0
len=${#GOOD}
for i in $(seq 1 "$RACES"); do
	before=$(grep -cE "$OUTCOME" "$TMP/log")
	: >"$WEB"
	if [ $((i % 2)) = 1 ]; then
		cut=$((${#CUT} + 1))
		printf '%s' "${GOOD:0:cut}" >>"$WEB"
		kill -HUP "$PID"
		reload_done "$before"
		printf '%s' "${GOOD:cut}" >>"$WEB"
	else
		cut=$((i * 7 % len))
		printf '%s' "${GOOD:0:cut}" >>"$WEB"
		kill -HUP "$PID"
		printf '%s' "${GOOD:cut}" >>"$WEB"
		reload_done "$before"
	fi
	# no more SIGHUP: what the reload left in force is what serves
	[ "$(nocert)" = 000 ] || opened=$((opened + 1))
	# the complete file in force for the next round, whatever this one left
	hup
done
check "rewrite race: /metrics never answered without a client certificate ($opened of $RACES opened)" \
	expect 0 "$opened"
check "rewrite race: the client certificate still gets 200" expect 200 "$(good "$url/metrics")"
check "refusals in the log and in the counter agree" expect "$(refusals)" "$(counters "$(refusals)" refused)"
check "exits 0 on SIGTERM" stop_exporter

echo "reload-mtls: $pass passed, $fail failed"
[ "$fail" = 0 ] || { echo "last log:"; tail -20 "$TMP/log"; }
[ "$fail" = 0 ]
