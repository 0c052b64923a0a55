#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# vm-mesh.sh BINARY [INJECT_BINARY] - two-VM pingmesh test of rdma_exporter's probe
# collector: boots two Soft-RoCE VMs (rxe-vm.sh PEER mode, eth0s cabled) with BINARY
# baked in as /usr/local/bin/rdma_exporter (and INJECT_BINARY, tests/tools/probe_inject,
# as /usr/local/bin/probe_inject); VM A (10.0.2.15) runs guest-mesh-a.sh, VM B
# (10.0.2.16) guest-mesh-b.sh, each with guest-mesh-lib.sh prepended. Without
# INJECT_BINARY the checks that need it are skipped. Every scrape of both VMs must pass
# promtool check metrics without a warning.
#
# Exit status: 0 all checks passed; 77 skipped (no QEMU/apt on this host and
# RDMA_EXPORTER_VM_REQUIRED is not 1); anything else is a failure (124: VM timeout).
#
# Environment:
#   RDMA_EXPORTER_VM_REQUIRED=1  a host that cannot run the VM is a failure, not a skip (CI)
#   VM_OUT_DIR                   also keep the guests' output (A's in the dir, B's in peer/:
#                                scrape-*.txt, exporter*.log, guest.log, console.log)
#   RXEVM_WORK, RXEVM_TIMEOUT, ... see rxe-vm.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/host-lib.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 path/to/rdma_exporter [path/to/probe_inject]" >&2
    exit 2
fi
BIN=$(readlink -f "$1")
[ -x "$BIN" ] || { echo "vm-mesh: $1 is not an executable" >&2; exit 2; }
INJECT=""
if [ $# = 2 ]; then
    INJECT=$(readlink -f "$2")
    [ -x "$INJECT" ] || { echo "vm-mesh: $2 is not an executable" >&2; exit 2; }
fi

vm_host_check vm-mesh

# rxe-vm.sh names baked-in binaries after their basename: stage them under the right
# names. Each guest gets one script: the helpers, then its own part.
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/vm-mesh.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
ln -s "$BIN" "$STAGE/rdma_exporter"        # copy_with_libs dereferences it (cp -L)
bins="$STAGE/rdma_exporter"
if [ -n "$INJECT" ]; then
    ln -s "$INJECT" "$STAGE/probe_inject"
    bins="$bins $STAGE/probe_inject"
fi
for side in a b; do
    cat "$HERE/guest-lib.sh" "$HERE/guest-mesh-lib.sh" "$HERE/guest-mesh-$side.sh" \
        > "$STAGE/guest-mesh-$side.sh"
done

# Under TCG a run takes about 1.5 minutes (B's stop and restart, A's backoff); ctest's
# TIMEOUT is 900 s.
export RXEVM_TIMEOUT=${RXEVM_TIMEOUT:-780}
if [ -n "${VM_OUT_DIR:-}" ]; then
    mkdir -p "$VM_OUT_DIR"
    RXEVM_OUT=$(readlink -f "$VM_OUT_DIR")
else
    RXEVM_OUT=$STAGE/out        # still kept for the promtool check below
fi
export RXEVM_OUT
set +e
PEER="$STAGE/guest-mesh-b.sh" EXTRA_BINS="$bins" "$HERE/rxe-vm.sh" "$STAGE/guest-mesh-a.sh"
rc=$?
set -e
# Every scrape either guest took must pass promtool without a single warning: the
# probe series with file_sd labels, B's exporter before and after its restart, A's
# after hostile input and reloads.
if [ $rc = 0 ]; then
    if ! command -v promtool >/dev/null; then
        echo "vm-mesh: FAIL: promtool not found (scripts/install-deps.sh --test installs it)" >&2
        rc=1
    fi
    n=0
    for f in "$RXEVM_OUT"/scrape*.txt "$RXEVM_OUT"/peer/scrape*.txt; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        if ! out=$(promtool_clean "$f" 2>&1); then
            echo "not ok - promtool check metrics ${f#"$RXEVM_OUT"/}: $out"
            rc=1
        fi
    done
    echo "vm-mesh: promtool check metrics clean on $n guest scrapes"
    [ $n -gt 0 ] || rc=1
fi
# rc 77 from a guest would read as "skipped" to ctest: never let that happen.
[ $rc != $SKIP ] || rc=1
exit $rc
