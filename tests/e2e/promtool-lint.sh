#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `promtool check metrics`, its default lint included, on the exporter's real output
# (issue 40): users run it on our output in their CI, so exit status 0 and not one
# finding, none filtered (tests/include/promtool.sh). For every sysfs root (a
# directory holding class/infiniband) under tests/fixtures/ and ../shared/fixtures/,
# found here rather than listed so that a new tree is covered without a change: the
# text exposition of a scrape and the --once output, with the collectors that read
# this host's kernel or hardware off (netlink, ethtool, probe, events, devlink,
# lldp). Then every default collector at once on a root without RDMA (their own
# families), and a scrape that asks for OpenMetrics: the exporter answers with the
# text format, so the text lint is the one that applies. One line per tree with its
# series counts; a failure prints promtool's findings.
#
#   promtool-lint.sh BINARY          (FIXTURES and SHARED_FIXTURES from env)
set -u
BIN=${1:?usage: promtool-lint.sh BINARY}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
require_tools promtool curl
ROOT=$(cd "$HERE/../.." && pwd)
SHARED_FIXTURES=${SHARED_FIXTURES:-$ROOT/../shared/fixtures}
SHARED_FIXTURES=$(cd "$SHARED_FIXTURES" 2>/dev/null && pwd || echo "$SHARED_FIXTURES")

HW_OFF=(--no-collector.netlink --no-collector.ethtool --no-collector.probe --no-collector.events
	--no-collector.devlink --no-collector.lldp)

e2e_launch() {
	"$BIN" --web.listen-address="127.0.0.1:$PORT" "${START_ARGS[@]}" >"$TMP/log" 2>&1 &
	PID=$!
}
healthz_ready() { curl -fsS -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null; }
series() { grep -cv -e '^#' -e '^$' "$1"; }

# sysfs_roots DIR: every sysfs root under DIR, one a line, sorted.
sysfs_roots() {
	[ -d "$1" ] || return 0
	find "$1/" -type d -path '*/class/infiniband' -prune -printf '%h\n' | sed 's,/class$,,' | sort
}

# lint WHAT FILE: promtool_clean FILE; its findings, when there are any, in $FINDINGS.
FINDINGS=
lint() {
	local out
	out=$(promtool_clean "$2" 2>&1) && return 0
	FINDINGS+="# $1:"$'\n'$(printf '%s\n' "$out" | sed 's/^/#   /')$'\n'
	return 1
}

# lint_tree LABEL ROOT: a scrape's text exposition and --once, hardware collectors off.
lint_tree() {
	local label=$1 root=$2 scrape=$TMP/scrape.prom once=$TMP/once.prom good=1 rc what
	FINDINGS=
	START_ARGS=(--path.sysfs="$root" --poll.interval=1s "${HW_OFF[@]}")
	if start_on_free_port e2e_launch healthz_ready; then
		curl -fsS "http://127.0.0.1:$PORT/metrics" >"$scrape" || good=0
		stop_exporter || good=0
		lint scrape "$scrape" || good=0
	else
		FINDINGS+="# the exporter did not start"$'\n'
		: >"$scrape"
		good=0
	fi
	"$BIN" --once --path.sysfs="$root" "${HW_OFF[@]}" >"$once" 2>"$TMP/stderr"
	rc=$?
	if [ $rc != 0 ]; then
		FINDINGS+="# --once exit $rc: $(head -3 "$TMP/stderr")"$'\n'
		good=0
	fi
	lint --once "$once" || good=0
	what="$label: scrape $(series "$scrape") series, --once $(series "$once") series"
	if [ $good = 1 ]; then
		ok "$what, promtool check metrics clean"
	else
		not_ok "$what"
		printf '%s' "$FINDINGS"
	fi
}

mapfile -t own < <(sysfs_roots "$FIXTURES")
mapfile -t shared < <(sysfs_roots "$SHARED_FIXTURES")
# Never pass on nothing: a moved fixture directory must fail here, not skip.
[ ${#own[@]} -gt 0 ] || not_ok "a sysfs root under $FIXTURES"
[ ${#shared[@]} -gt 0 ] || not_ok "a sysfs root under $SHARED_FIXTURES"
for root in "${own[@]}"; do
	lint_tree "${root#"$ROOT"/}" "$root"
done
for root in "${shared[@]}"; do
	lint_tree "../shared/fixtures/${root#"$SHARED_FIXTURES"/}" "$root"
done

# Every default collector on a root without RDMA: what each one exports of its own.
mkdir -p "$TMP/no-rdma/class"
FINDINGS=
"$BIN" --once --path.sysfs="$TMP/no-rdma" >"$TMP/defaults.prom" 2>"$TMP/stderr"
rc=$?
if [ $rc = 0 ] && lint --once "$TMP/defaults.prom"; then
	ok "no RDMA, default collectors: --once $(series "$TMP/defaults.prom") series, promtool check metrics clean"
else
	not_ok "no RDMA, default collectors: --once exit $rc"
	printf '%s' "$FINDINGS"
fi

# A scraper that asks for OpenMetrics gets the text format (the exporter serves text
# 0.0.4 and protobuf only), so promtool's text lint above is the one that applies.
START_ARGS=(--path.sysfs="${own[0]:-$TMP/no-rdma}" "${HW_OFF[@]}")
if start_on_free_port e2e_launch healthz_ready; then
	FINDINGS=
	curl -fsS -D "$TMP/headers" -H 'Accept: application/openmetrics-text; version=1.0.0' \
		"http://127.0.0.1:$PORT/metrics" >"$TMP/om.prom"
	stop_exporter
	if grep -qi '^Content-Type: text/plain; version=0.0.4' "$TMP/headers" &&
		lint "Accept: OpenMetrics" "$TMP/om.prom"; then
		ok "Accept: application/openmetrics-text: answered in text 0.0.4, promtool check metrics clean"
	else
		not_ok "Accept: application/openmetrics-text: answered in text 0.0.4 and lint-clean"
		grep -i '^Content-Type' "$TMP/headers" | sed 's/^/# /'
		printf '%s' "$FINDINGS"
	fi
else
	not_ok "the exporter starts for the OpenMetrics request"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
