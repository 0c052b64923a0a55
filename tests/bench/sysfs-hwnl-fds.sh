#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmark (prints figures, asserts nothing): the file descriptors of the sysfs
# collector on the synthetic big host (lib.sh bench_tree), with its hw counters
# read from the files and served over RDMA netlink.
#
# 1. The daemon, sysfs collector only: `ls /proc/PID/fd | wc -l` and its own
#    process_open_fds. On a tree that is not /sys it never asks netlink, so this
#    is the files-only figure.
# 2. sysfs-hwnl-fds (sysfs_hwnl_fds.c): the collector with a scripted netlink
#    transport that serves every port's hw counters, then fails, then serves
#    again after a reload, then none (the files).
#
#   tests/bench/sysfs-hwnl-fds.sh build/rdma_exporter build/tests/bench/sysfs-hwnl-fds [DEVICES] [PORTS]
set -euo pipefail
BIN=$(readlink -f "${1:?usage: sysfs-hwnl-fds.sh EXPORTER HARNESS [DEVICES] [PORTS]}")
HARNESS=$(readlink -f "${2:?usage: sysfs-hwnl-fds.sh EXPORTER HARNESS [DEVICES] [PORTS]}")
DEVICES=${3:-16}
PORTS=${4:-2}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
TMP=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT

bench_tree "$TMP" "$DEVICES" "$PORTS"
echo "synthetic host: $DEVICES devices x $PORTS ports, $(bench_counter_files "$TMP") counter files," \
	"$(find "$TMP/sys" -path '*/ports/*/hw_counters/*' -type f | wc -l) of them in ports' hw_counters/"

port=$(bench_free_port)
"$BIN" --web.listen-address="127.0.0.1:$port" --path.sysfs="$TMP/sys" --poll.interval=1h \
	--collector.disable-defaults --collector.sysfs --log.level=error &
PID=$!
bench_wait_http "http://127.0.0.1:$port/metrics"
curl -fsS "http://127.0.0.1:$port/metrics" >"$TMP/m"
echo "daemon (files): ls /proc/PID/fd: $(bench_fds "$PID"), process_open_fds: $(bench_metric process_open_fds "$TMP/m")"
kill "$PID"
wait "$PID" || true
PID=

"$HARNESS" "$TMP/sys"
