#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# End-to-end test of --web.config.file: TLS, client certificates and basic
# auth against the real binary on 127.0.0.1, with certificates made here by
# openssl (a CA, a server, a client of that CA, a client of another CA) and
# bcrypt hashes made by htpasswd (apache2-utils) or mkpasswd (whois); then
# invalid files at start and at reload (SIGHUP).
#
#   webconfig.sh BINARY     (FIXTURES dir from env)
set -u
BIN=${1:?usage: webconfig.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools openssl curl
bcrypt() { # bcrypt PASSWORD: a cost-10 hash, as the toolkit's docs make them
	if command -v htpasswd >/dev/null; then
		htpasswd -nbBC 10 "" "$1" | tr -d ':\n'
	elif command -v mkpasswd >/dev/null; then
		mkpasswd -m bcrypt -R 10 "$1"
	else
		return 1
	fi
}
if ! bcrypt x >/dev/null; then
	echo "not ok - htpasswd or mkpasswd is installed (scripts/install-deps.sh --test)"
	exit 1
fi

# --- certificates: the config lives in conf/ and names them relative to it
CONF=$TMP/conf
mkdir -p "$CONF"
(
	cd "$CONF" || exit 1
	key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
	ca() { # ca NAME
		key "$1.key" && openssl req -x509 -new -key "$1.key" -out "$1.crt" -days 2 -subj "/CN=$1" 2>/dev/null
	}
	cert() { # cert CA NAME EXTENSIONS
		key "$2.key" &&
			openssl req -new -key "$2.key" -out "$2.csr" -subj "/CN=$2" 2>/dev/null &&
			printf '%s\n' "$3" >"$2.ext" &&
			openssl x509 -req -in "$2.csr" -CA "$1.crt" -CAkey "$1.key" -CAcreateserial \
				-out "$2.crt" -days 2 -extfile "$2.ext" 2>/dev/null
	}
	ca ca && ca other-ca &&
		cert ca server "subjectAltName=DNS:localhost,IP:127.0.0.1" &&
		cert other-ca server2 "subjectAltName=DNS:localhost,IP:127.0.0.1" &&
		cert ca client "extendedKeyUsage=clientAuth" &&
		cert other-ca rogue "extendedKeyUsage=clientAuth"
) || { echo "not ok - openssl makes the test certificates"; exit 1; }
ok "openssl made two CAs, a server certificate of each, a client and a client of the other CA"

ALICE=$(bcrypt secret)
BOB=$(bcrypt hunter2)

# debug: the log tells when a bcrypt ran
COMMON=(--path.sysfs="$FIXTURES/sysfs/rxe" --poll.interval=1s --no-collector.netlink
	--no-collector.ethtool --no-collector.probe --log.level=debug)

# start_exporter CONFIG: on a free loopback port; ready when it logs "listening on"
webconfig_launch() {
	# from another directory: paths in the config are relative to the config
	(cd / && exec "$BIN" --web.listen-address="127.0.0.1:$PORT" "${COMMON[@]}" \
		--web.config.file="$START_CONFIG") >"$TMP/log" 2>&1 &
	PID=$!
}
listening() { grep -q " msg=listening " "$TMP/log"; }
start_exporter() {
	START_CONFIG=$1
	start_on_free_port webconfig_launch listening
}

# hup: SIGHUP, then wait until the reload has logged its outcome (one line each)
hup() {
	local before
	before=$(grep -cE 'web config ((not )?reloaded|reload refused)' "$TMP/log")
	kill -HUP "$PID"
	for _ in $(seq 1 200); do
		[ "$(grep -cE 'web config ((not )?reloaded|reload refused)' "$TMP/log")" -gt "$before" ] && return 0
		sleep 0.05
	done
	echo "  no reload logged after SIGHUP" >&2
}

# code [CURL ARGS...] URL: the HTTP status, 000 when no HTTP answer came
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 15 "$@"; }
tls() { code --cacert "$CONF/ca.crt" "$@"; }
# hup_keeps_auth WHAT PATTERN URL CURL_ARGS...: SIGHUP (the file already spoiled),
# PATTERN logged once more, and /metrics still wants alice (401 without, 200 with)
hup_keeps_auth() {
	local what=$1 pattern=$2 url=$3 before
	shift 3
	before=$(grep -c -- "$pattern" "$TMP/log")
	hup
	check "$what: refused and logged" test "$(grep -c -- "$pattern" "$TMP/log")" -gt "$before"
	check "$what: /metrics without credentials still 401" expect 401 "$(code "$@" "$url/metrics")"
	check "$what: /metrics with credentials still 200" expect 200 \
		"$(code "$@" -u alice:secret "$url/metrics")"
}
# no_auth_loss FILE URL CURL_ARGS...: with alice in force, a reload never turns
# auth off (docs/security.md): not with FILE emptied (an in-place rewrite caught
# half-way), reduced to a bare "basic_auth_users:", or a symlink to
# /proc/self/mem (st_size 0, reads fail); FILE is put back after
no_auth_loss() {
	local file=$1 refused='level=error msg="web config reload refused; keeping the previous config" .*reason="it would remove every basic auth user'
	shift
	cp "$file" "$file.keep"
	: >"$file"
	hup_keeps_auth "empty file at reload" "$refused" "$@"
	printf 'basic_auth_users:\n' >"$file"
	hup_keeps_auth "bare basic_auth_users: at reload" "$refused" "$@"
	rm -f "$file" && ln -s /proc/self/mem "$file"
	hup_keeps_auth "symlink to /proc/self/mem at reload" \
		'level=error msg="web config not reloaded, the previous one stays in force" .*cannot read' "$@"
	rm -f "$file" && mv "$file.keep" "$file"
}
expect() { # expect WANT ACTUAL
	[ "$1" = "$2" ] && return 0
	echo "  want $1, got $2" >&2
	return 1
}

# --- TLS and basic auth
cat >"$CONF/web.yml" <<EOF
# exporter-toolkit format, relative paths
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  min_version: TLS13
http_server_config:
  headers:
    X-Content-Type-Options: nosniff
basic_auth_users:
  alice: $ALICE
EOF
if start_exporter "$CONF/web.yml"; then
	url=https://localhost:$PORT
	check "TLS: right credentials: 200" expect 200 "$(tls -u alice:secret "$url/metrics")"
	check "TLS: the body is the exposition text" bash -c \
		"curl -s --cacert '$CONF/ca.crt' -u alice:secret '$url/metrics' | grep -q '^rdma_exporter_build_info{'"
	check "TLS: wrong password: 401" expect 401 "$(tls -u alice:nope "$url/metrics")"
	check "TLS: unknown user: 401" expect 401 "$(tls -u mallory:secret "$url/metrics")"
	check "TLS: no credentials: 401" expect 401 "$(tls "$url/metrics")"
	check "401 carries WWW-Authenticate: Basic realm" bash -c \
		"curl -s -D - -o /dev/null --cacert '$CONF/ca.crt' '$url/metrics' | grep -qi '^WWW-Authenticate: Basic realm=\"'"
	check "/healthz without credentials: 200 (the kubelet's probes carry none)" expect 200 "$(tls "$url/healthz")"
	check "/ without credentials: 401" expect 401 "$(tls "$url/")"
	check "/healthz with credentials: 200" expect 200 "$(tls -u alice:secret "$url/healthz")"
	check "configured header is sent" bash -c \
		"curl -s -D - -o /dev/null --cacert '$CONF/ca.crt' -u alice:secret '$url/metrics' | grep -qi '^X-Content-Type-Options: nosniff'"
	bcrypts=$(grep -c 'checked with bcrypt' "$TMP/log")
	for _ in 1 2 3 4 5 6 7 8 9 10; do tls -u alice:secret "$url/metrics" >/dev/null; done
	check "10 more scrapes cost no bcrypt (results cached)" expect "$bcrypts" \
		"$(grep -c 'checked with bcrypt' "$TMP/log")"
	check "a wrong password costs one bcrypt, then is cached too" bash -c "
		for i in 1 2 3; do curl -s -o /dev/null --cacert '$CONF/ca.crt' -u alice:guess '$url/metrics'; done
		test \$(grep -c 'checked with bcrypt\" ok=0' '$TMP/log') -eq \$(( $(grep -c 'checked with bcrypt" ok=0' "$TMP/log") + 1 ))"
	check "TLS: keep-alive, two requests in one curl take one connection and one handshake" bash -c \
		"test \$(curl -s -o /dev/null -o /dev/null -w '%{num_connects}\\n' --cacert '$CONF/ca.crt' -u alice:secret '$url/metrics' '$url/healthz' | paste -sd+ | bc) -eq 1"
	check "plain HTTP to the TLS port is refused" bash -c \
		"! curl -s -o /dev/null --max-time 5 -u alice:secret 'http://127.0.0.1:$PORT/metrics'"
	check "TLS 1.2 is refused (min_version TLS13)" bash -c \
		"! curl -s -o /dev/null --max-time 5 --cacert '$CONF/ca.crt' --tls-max 1.2 -u alice:secret '$url/metrics'"

	# --- reload: a bad file keeps the old one, a good one applies
	cp "$CONF/web.yml" "$CONF/web.yml.good"
	printf 'basic_auth_users:\n  alice: not-a-hash\n' >"$CONF/web.yml"
	hup
	check "bad file at reload: one error logged" bash -c \
		"test \$(grep -c 'level=error.*web config not reloaded.*not a bcrypt hash' '$TMP/log') -eq 1"
	check "bad file at reload: the old credentials still work" expect 200 \
		"$(tls -u alice:secret "$url/metrics")"
	check "bad file at reload: still refused without them" expect 401 "$(tls "$url/metrics")"
	no_auth_loss "$CONF/web.yml" "$url" --cacert "$CONF/ca.crt"
	# a reload that keeps alice's hash keeps her cached grant (issue 29: a
	# reload dropped it, and her next scrape queued with the guessers)
	tls -u alice:secret "$url/metrics" >/dev/null
	sed 's|^    X-Content-Type-Options: nosniff|&\n    X-Frame-Options: deny|' \
		"$CONF/web.yml.good" >"$CONF/web.yml"
	reloads=$(grep -c 'msg="web config reloaded"' "$TMP/log")
	bcrypts=$(grep -c 'checked with bcrypt' "$TMP/log")
	hup
	check "reload keeping alice's hash: applied" bash -c \
		"curl -s -D - -o /dev/null --cacert '$CONF/ca.crt' -u alice:secret '$url/metrics' | grep -qi '^X-Frame-Options: deny'"
	check "reload keeping alice's hash: her scrapes cost no bcrypt" expect \
		"$((reloads + 1)) $bcrypts" "$(grep -c 'msg="web config reloaded"' "$TMP/log") $(grep -c 'checked with bcrypt' "$TMP/log")"
	sed "s|^  alice: .*|  bob: $BOB|" "$CONF/web.yml.good" >"$CONF/web.yml"
	hup
	check "good file at reload: logged" grep -q 'web config reloaded' "$TMP/log"
	check "good file at reload: the new user is let in" expect 200 \
		"$(tls -u bob:hunter2 "$url/metrics")"
	check "good file at reload: the removed user is not" expect 401 \
		"$(tls -u alice:secret "$url/metrics")"
	# TLS settings reload for new connections: a certificate of another CA
	# (rotation), TLS 1.2 allowed, client certificates required
	sed -e "s|min_version: TLS13|min_version: TLS12|" -e "s|server.crt|server2.crt|" \
		-e "s|server.key|server2.key|" \
		-e "s|^  min_version|  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  min_version|" \
		"$CONF/web.yml" >"$CONF/web.yml.tls"
	mv "$CONF/web.yml.tls" "$CONF/web.yml"
	hup
	check "TLS change at reload: logged as applied to new connections" \
		grep -q 'msg="web config reloaded" .* tls=on$' "$TMP/log"
	mtls=(--cert "$CONF/client.crt" --key "$CONF/client.key" -u bob:hunter2)
	check "TLS change at reload: the new certificate is served" expect 200 \
		"$(code --cacert "$CONF/other-ca.crt" "${mtls[@]}" "$url/metrics")"
	check "TLS change at reload: the old one is not" expect 000 \
		"$(tls "${mtls[@]}" "$url/metrics")"
	check "TLS change at reload: TLS 1.2 now allowed" expect 200 \
		"$(code --cacert "$CONF/other-ca.crt" --tls-max 1.2 "${mtls[@]}" "$url/metrics")"
	check "TLS change at reload: a client certificate now required" expect 000 \
		"$(code --cacert "$CONF/other-ca.crt" -u bob:hunter2 "$url/metrics")"
	printf 'basic_auth_users:\n  bob: %s\n' "$BOB" >"$CONF/web.yml"
	hup
	# turning TLS off (and with it the client certificates) takes a restart (issue 42:
	# before, the TLS of the start served, without client certificates)
	check "reload without TLS: refused and logged" \
		grep -q 'level=error msg="web config reload refused; keeping the previous config" .*reason="it would turn TLS off' "$TMP/log"
	check "reload without TLS: the port still speaks TLS only" bash -c \
		"! curl -s -o /dev/null --max-time 5 -u bob:hunter2 'http://127.0.0.1:$PORT/metrics'"
	check "reload without TLS: a client certificate still required" expect 000 \
		"$(code --cacert "$CONF/other-ca.crt" -u bob:hunter2 "$url/metrics")"
	check "reload without TLS: the settings in force still serve" expect 200 \
		"$(code --cacert "$CONF/other-ca.crt" "${mtls[@]}" "$url/metrics")"
	check "TLS: exits 0 on SIGTERM" stop_exporter
else
	not_ok "starts with TLS and basic auth"
fi

# --- client certificates: RequireAndVerifyClientCert
cat >"$CONF/mtls.yml" <<EOF
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca.crt
EOF
if start_exporter "$CONF/mtls.yml"; then
	url=https://localhost:$PORT
	check "mTLS: client certificate of the CA: 200" expect 200 \
		"$(tls --cert "$CONF/client.crt" --key "$CONF/client.key" "$url/metrics")"
	check "mTLS: client certificate of another CA: refused" expect 000 \
		"$(tls --cert "$CONF/rogue.crt" --key "$CONF/rogue.key" "$url/metrics")"
	check "mTLS: no client certificate: refused" expect 000 "$(tls "$url/metrics")"
	check "mTLS (TLS 1.2): another CA: refused" expect 000 \
		"$(tls --tls-max 1.2 --cert "$CONF/rogue.crt" --key "$CONF/rogue.key" "$url/metrics")"
	check "mTLS (TLS 1.2): no client certificate: refused" expect 000 \
		"$(tls --tls-max 1.2 "$url/metrics")"
	check "mTLS: exits 0 on SIGTERM" stop_exporter
else
	not_ok "starts with RequireAndVerifyClientCert"
fi

# --- VerifyClientCertIfGiven: none is fine, a bad one is not
sed 's/RequireAndVerifyClientCert/VerifyClientCertIfGiven/' "$CONF/mtls.yml" >"$CONF/ifgiven.yml"
if start_exporter "$CONF/ifgiven.yml"; then
	url=https://localhost:$PORT
	check "VerifyClientCertIfGiven: none: 200" expect 200 "$(tls "$url/metrics")"
	check "VerifyClientCertIfGiven: good: 200" expect 200 \
		"$(tls --cert "$CONF/client.crt" --key "$CONF/client.key" "$url/metrics")"
	check "VerifyClientCertIfGiven: another CA: refused" expect 000 \
		"$(tls --cert "$CONF/rogue.crt" --key "$CONF/rogue.key" "$url/metrics")"
	stop_exporter
fi

# --- basic auth over plain HTTP (no tls_server_config)
printf 'basic_auth_users:\n  alice: %s\n' "$ALICE" >"$CONF/plain.yml"
if start_exporter "$CONF/plain.yml"; then
	url=http://127.0.0.1:$PORT
	check "plain HTTP + basic auth: right credentials: 200" expect 200 \
		"$(code -u alice:secret "$url/metrics")"
	check "plain HTTP + basic auth: none: 401" expect 401 "$(code "$url/metrics")"
	no_auth_loss "$CONF/plain.yml" "$url"
	stop_exporter
fi

# --- invalid files at start: exit 2 and one clear line
bad_start() { # bad_start WANT CONFIG_TEXT
	printf '%s\n' "$2" >"$CONF/bad.yml"
	(cd / && "$BIN" --web.listen-address=127.0.0.1:1 "${COMMON[@]}" \
		--web.config.file="$CONF/bad.yml") >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ] &&
		grep -q "^rdma_exporter: error: --web.config.file: .*$1" "$TMP/err" && return 0
	echo "  rc=$rc stderr: $(cat "$TMP/err")" >&2
	return 1
}
check "start: unknown key: exit 2, one line" bad_start 'unknown key "tls_server_confg"' \
	"tls_server_confg: {}"
check "start: YAML syntax error: exit 2, one line" bad_start "invalid YAML" \
	"basic_auth_users: [alice"
check "start: a password that is not a bcrypt hash: exit 2" bad_start "not a bcrypt hash" \
	"basic_auth_users: {alice: secret}"
# htpasswd -B takes costs up to 17 (about 9 s a check): refused above 14
# shellcheck disable=SC2016 # a bcrypt hash, not an expansion
COST15='$2y$15$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG'
check "start: a hash above bcrypt cost 14: exit 2, one line" bad_start \
	'the password hash of "alice" has bcrypt cost 15, above the maximum 14' \
	"basic_auth_users: {alice: '$COST15'}"
check "start: missing key_file: exit 2" bad_start "missing one of key or key_file" \
	"tls_server_config: {cert_file: server.crt}"
check "start: unreadable cert_file: exit 2" bad_start "cannot read .*nope.crt" \
	"tls_server_config: {cert_file: nope.crt, key_file: server.key}"
check "start: a key that does not match the certificate: exit 2" bad_start \
	"cannot load the certificate and key" \
	"tls_server_config: {cert_file: server.crt, key_file: client.key}"
check "start: invalid client_auth_type: exit 2" bad_start "invalid client_auth_type" \
	"tls_server_config: {cert_file: server.crt, key_file: server.key, client_auth_type: Yes}"
check "start: missing file: exit 2" bash -c \
	"'$BIN' --web.config.file=/nonexistent/web.yml 2>&1 >/dev/null | grep -q 'web.config.file: cannot read'; test \${PIPESTATUS[0]} -eq 2"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
