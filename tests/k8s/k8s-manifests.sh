#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# deploy/kubernetes/: `kubectl kustomize` renders the base and every overlay,
# every object is validated against the Kubernetes and prometheus-operator
# schemas (validate.mjs), and the security settings are asserted
# (assert-security.py).
#   k8s-manifests.sh SOURCE_DIR
# Exit 77 (skipped) where kubectl is missing: Debian 12 has none with kustomize
# built in (docs/kubernetes.md). Also where node or the npm packages are
# missing (scripts/install-deps.sh --test installs node and runs npm ci in
# tests/k8s), unless RDMA_EXPORTER_K8S_REQUIRED=1 (CI).
set -uo pipefail
SRC=$(cd "$1" && pwd)
HERE=$SRC/tests/k8s
. "$SRC/tests/include/tap.sh"

skip() {
	if [ "${RDMA_EXPORTER_K8S_REQUIRED:-0}" = 1 ]; then
		echo "not ok - $* (RDMA_EXPORTER_K8S_REQUIRED=1)"
		exit 1
	fi
	echo "# SKIP: $*"
	exit 77
}
if ! command -v kubectl >/dev/null; then
	echo "# SKIP: kubectl is not installed (not in Debian 12: docs/kubernetes.md)"
	exit 77
fi
command -v node >/dev/null || skip "node is not installed (scripts/install-deps.sh --test)"
[ -d "$HERE/node_modules/kubernetes-models" ] ||
	skip "no tests/k8s/node_modules (scripts/install-deps.sh --test runs npm ci there)"

K8S=$SRC/deploy/kubernetes
overlays=(base)
for d in "$K8S"/overlays/*/; do
	overlays+=("$(basename "$d")")
done
for o in "${overlays[@]}"; do
	dir=$K8S/overlays/$o
	[ "$o" = base ] && dir=$K8S/base
	echo "# $o"
	if ! kubectl kustomize "$dir" >"$TMP/$o.yaml" 2>"$TMP/err"; then
		cat "$TMP/err"
		not_ok "kubectl kustomize renders $o"
		continue
	fi
	ok "kubectl kustomize renders $o ($(grep -c '^kind:' "$TMP/$o.yaml") objects)"
	python3 -c 'import sys, yaml, json; json.dump([d for d in yaml.safe_load_all(sys.stdin) if d], sys.stdout)' \
		<"$TMP/$o.yaml" >"$TMP/$o.json"
	out=$(cd "$HERE" && node validate.mjs <"$TMP/$o.json")
	rc=$?
	echo "$out" | sed 's/^/#   /'
	check "$o: every object is valid against its schema ($(echo "$out" | grep -c '^ok'))" [ "$rc" = 0 ]
	out=$(python3 "$HERE/assert-security.py" "$o" <"$TMP/$o.yaml")
	rc=$?
	echo "$out" | sed 's/^/#   /'
	check "$o: the security settings ($(echo "$out" | grep -c '^ok') checks)" [ "$rc" = 0 ]
done
check "the overlays the checks know are all of them" [ "${#overlays[@]}" = 5 ]

echo "# $pass passed, $fail failed"
[ "$fail" = 0 ]
