#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# deploy/kubernetes/components/auth against the real exporter: the Secret's
# files made by the recipe docs/kubernetes.md gives ("The files, made once"),
# laid out as a Secret volume lays them out (symlinks into ..data) at the path
# the component's --web.config.file names; then requests as the kubelet and
# the ServiceMonitor make them: /healthz over HTTPS with no password and no
# certificate check (200), /metrics without credentials (401), and /metrics
# with the scrape Secret's username and password, the certificate verified
# against its ca.crt for the ServiceMonitor's serverName (200).
#   auth-recipe.sh SOURCE_DIR BINARY
set -uo pipefail
SRC=$(cd "$1" && pwd)
BIN=$2
HERE=$SRC/tests/k8s
. "$SRC/tests/e2e/lib.sh"
require_tools openssl htpasswd curl

AUTH=$SRC/deploy/kubernetes/components/auth
DOC=$SRC/docs/kubernetes.md
# What the component says: the web config's path, and the name the ServiceMonitor verifies.
conf=$(sed -n 's/.*value: --web.config.file=\(.*\)$/\1/p' "$AUTH/kustomization.yaml")
server=$(sed -n 's/^ *serverName: *\([^ ]*\)$/\1/p' "$AUTH/servicemonitor.yaml")
check "the component names its web config ($conf) and serverName ($server)" \
	[ -n "$conf" ] && [ -n "$server" ]
# The recipe: the indented block after "The files, made once:", unindented.
awk '/^The files, made once:/ { on = 1; next }
	on && /^[^ ]/ { exit }
	on { sub(/^    /, ""); print }' "$DOC" >"$TMP/recipe.sh"
check "docs/kubernetes.md has the recipe ($(grep -c . "$TMP/recipe.sh") lines)" \
	grep -q 'basic_auth_users:' "$TMP/recipe.sh"
mkdir -p "$TMP/files"
(cd "$TMP/files" && bash -e "$TMP/recipe.sh") >"$TMP/recipe.log" 2>&1
check "the recipe runs" [ $? = 0 ]
# The files the documented secretGenerator puts in the Secret rdma-exporter-web.
files=$(sed -n '/name: rdma-exporter-web/{n;s/.*files: \[\(.*\)\].*/\1/p}' "$DOC" | head -n1 | tr -d ,)
check "the secretGenerator's files ($files) include $(basename "$conf")" \
	grep -qw "$(basename "$conf")" <<<"$files"
vol=$TMP/volume$(dirname "$conf")
mkdir -p "$vol/..data"
for f in $files; do
	cp "$TMP/files/$f" "$vol/..data/$f" && ln -s "..data/$f" "$vol/$f"
done

launch() {
	(cd / && exec "$BIN" --web.listen-address="127.0.0.1:$PORT" \
		--path.sysfs="$FIXTURES/sysfs/mlx5-roce" --no-collector.probe \
		--web.config.file="$vol/$(basename "$conf")") >"$TMP/log" 2>&1 &
	PID=$!
}
ready() { grep -q " msg=listening " "$TMP/log"; }
start_on_free_port launch ready || { not_ok "the exporter starts with the recipe's web config"; exit 1; }
ok "the exporter starts with the recipe's web config: $(grep -o 'tls=[a-z]*' "$TMP/log")"

code() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@"; }
verified=(--cacert "$TMP/files/ca.crt" --resolve "$server:$PORT:127.0.0.1")
check "kubelet: /healthz over HTTPS, no password, no certificate check: 200" \
	[ "$(code -k "https://127.0.0.1:$PORT/healthz")" = 200 ]
check "/metrics without credentials: 401" \
	[ "$(code "${verified[@]}" "https://$server:$PORT/metrics")" = 401 ]
user=$(cat "$TMP/files/username")
secret=$(cat "$TMP/files/password")
check "ServiceMonitor: /metrics with the scrape Secret, certificate verified for $server: 200" \
	[ "$(code "${verified[@]}" -u "$user:$secret" "https://$server:$PORT/metrics")" = 200 ]
check "plain HTTP to the port is refused" [ "$(code "http://127.0.0.1:$PORT/healthz")" != 200 ]
stop_exporter
check "exit 0 on SIGTERM" [ $? = 0 ]

echo "# $pass passed, $fail failed"
[ "$fail" = 0 ]
