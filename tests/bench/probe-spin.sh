#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# probe-spin.sh BINARY [BEFORE_BINARY] - the probe's accuracy against perftest, in one
# boot of two Soft-RoCE VMs (tests/vm/rxe-vm.sh PEER mode; issue 30). Prints, side by
# side, ib_send_lat -c UD's typical and 99% and the probe's median and p99 RTT/2 (from
# its histogram buckets, as histogram_quantile does), as ratios to perftest's typical,
# for loopback on VM A and for A -> B over the link; and the exporter's CPU per probe
# (schedstat), for each setting: --collector.probe.spin-max=0 (no spin, no wake-ups:
# every probe meets sleeping engines), the default (1ms) and 5ms,
# --collector.probe.loopback-thread (loopback answered by a second thread), and
# BEFORE_BINARY (for example the build before issue 30) with its defaults when given.
#
# A benchmark, not a test: it prints figures and exits 0 when the guests ran, whatever
# the figures (TCG-emulated CPUs: compare the lines of one run, never across machines).
# About 5 minutes under TCG. Environment: PS_SECS (seconds per setting, default 12),
# VM_OUT_DIR (keep the guests' output), RXEVM_* (see tests/vm/rxe-vm.sh).
set -euo pipefail

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
HERE=$(cd "$BENCH/../vm" && pwd)        # host-lib.sh's rxe-vm.sh is there
VM=$HERE
. "$VM/host-lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 path/to/rdma_exporter [path/to/rdma_exporter-before]" >&2
    exit 2
fi
vm_host_check probe-spin
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/probe-spin.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
ln -s "$(readlink -f "$1")" "$STAGE/rdma_exporter"
bins="$STAGE/rdma_exporter"
if [ $# = 2 ]; then
    ln -s "$(readlink -f "$2")" "$STAGE/rdma_exporter_before"
    bins="$bins $STAGE/rdma_exporter_before"
fi
for side in a b; do
    { cat "$VM/guest-lib.sh"; echo "PS_SECS=${PS_SECS:-12}"; cat "$BENCH/probe-spin-$side.sh"; } \
        > "$STAGE/probe-spin-$side.sh"
done
export RXEVM_TIMEOUT=${RXEVM_TIMEOUT:-600}
if [ -n "${VM_OUT_DIR:-}" ]; then
    mkdir -p "$VM_OUT_DIR"
    RXEVM_OUT=$(readlink -f "$VM_OUT_DIR")
else
    RXEVM_OUT=$STAGE/out
fi
export RXEVM_OUT
PEER="$STAGE/probe-spin-b.sh" EXTRA_BINS="$bins" "$VM/rxe-vm.sh" "$STAGE/probe-spin-a.sh"
