#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# deploy/kubernetes/: `kubectl kustomize` renders the base and every overlay,
# every object is validated against the Kubernetes and prometheus-operator
# schemas (validate.mjs), and the security settings are asserted
# (assert-security.py).
#   k8s-manifests.sh SOURCE_DIR
# Exit 77 (skipped) where kubectl is missing or has no kustomize v4 or later
# built in (Debian 12's kubernetes-client 1.20 has kustomize v2, which cannot
# read these kustomizations: docs/kubernetes.md), or where node or the npm
# packages are missing (scripts/install-deps.sh --test installs node and runs
# npm ci in tests/k8s); exit 1 (failed) instead with
# RDMA_EXPORTER_K8S_REQUIRED=1 (CI).
set -uo pipefail
SRC=$(cd "$1" && pwd)
HERE=$SRC/tests/k8s
. "$SRC/tests/include/tap.sh"
. "$SRC/tests/include/skip.sh"

need=RDMA_EXPORTER_K8S_REQUIRED
command -v kubectl >/dev/null ||
	skip $need "kubectl is not installed (kubectl 1.27 or later, not Debian 12's: docs/kubernetes.md)"
# kubectl prints its kustomize version since 1.24; 1.20's built-in kustomize
# v2 fails on these kustomizations with "json: unknown field" errors.
kubectl version --client 2>/dev/null | grep -q '^Kustomize Version: v[4-9]' ||
	skip $need "$(command -v kubectl) has no kustomize v4 or later built in (Debian 12's" \
		"kubernetes-client 1.20 has v2; install kubectl 1.27 or later: docs/kubernetes.md)"
command -v node >/dev/null || skip $need "node is not installed (scripts/install-deps.sh --test)"
[ -d "$HERE/node_modules/kubernetes-models" ] ||
	skip $need "no tests/k8s/node_modules (scripts/install-deps.sh --test runs npm ci there)"

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
check "the overlays the checks know are all of them" [ "${#overlays[@]}" = 6 ]

echo "# $pass passed, $fail failed"
[ "$fail" = 0 ]
