#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# vm-e2e.sh BINARY - end-to-end test of rdma_exporter against a real kernel RDMA stack:
# boots the Soft-RoCE VM (rxe-vm.sh) with BINARY baked in as /usr/local/bin/rdma_exporter
# and runs guest-e2e.sh (after guest-lib.sh, its helpers) inside it.
#
# Exit status: 0 all checks passed; 77 skipped (no QEMU/apt on this host and
# RDMA_EXPORTER_VM_REQUIRED is not 1); anything else is a failure (124: VM timeout).
#
# Environment:
#   RDMA_EXPORTER_VM_REQUIRED=1  a host that cannot run the VM is a failure, not a skip (CI)
#   VM_OUT_DIR                   also keep the guest's output (scrape.txt, exporter.log,
#                                rdma-*.json fixtures, guest.log, console.log) in this dir
#   RXEVM_WORK, RXEVM_TIMEOUT, ... see rxe-vm.sh
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/host-lib.sh"

if [ $# -ne 1 ]; then
    echo "usage: $0 path/to/rdma_exporter" >&2
    exit 2
fi
BIN=$(readlink -f "$1")
[ -x "$BIN" ] || { echo "vm-e2e: $1 is not an executable" >&2; exit 2; }

vm_host_check vm-e2e

# rxe-vm.sh names baked-in binaries after their basename: stage BINARY under the right name.
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/vm-e2e.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
ln -s "$BIN" "$STAGE/rdma_exporter"        # copy_with_libs dereferences it (cp -L)

# Under TCG a whole run takes about a minute; the first one also downloads the kernel.
export RXEVM_TIMEOUT=${RXEVM_TIMEOUT:-600}
if [ -n "${VM_OUT_DIR:-}" ]; then
    mkdir -p "$VM_OUT_DIR"
    RXEVM_OUT=$(readlink -f "$VM_OUT_DIR")
else
    RXEVM_OUT=$STAGE/out        # still kept for the promtool check below
fi
export RXEVM_OUT
unset PEER
set +e
# A guest gets one script: the shared helpers (guest-lib.sh), then guest-e2e.sh.
cat "$HERE/guest-lib.sh" "$HERE/guest-e2e.sh" > "$STAGE/guest-e2e.sh"
EXTRA_BINS="$STAGE/rdma_exporter" "$HERE/rxe-vm.sh" "$STAGE/guest-e2e.sh"
rc=$?
set -e
# Every scrape the guest took (sysfs and netlink families, root and nobody, device
# removed and re-added) must pass promtool without a single warning.
if [ $rc = 0 ]; then
    if ! command -v promtool >/dev/null; then
        echo "vm-e2e: FAIL: promtool not found (scripts/install-deps.sh --test installs it)" >&2
        rc=1
    fi
    n=0
    for f in "$RXEVM_OUT"/scrape*.txt; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        if ! out=$(promtool_clean "$f" 2>&1); then
            echo "not ok - promtool check metrics ${f##*/}: $out"
            rc=1
        fi
    done
    echo "vm-e2e: promtool check metrics clean on $n guest scrapes"
    [ $n -gt 0 ] || rc=1
fi
# Native histograms from the real RDMA stack: the guest's two protobuf scrapes of its
# fast-probing exporter, served to the host's Prometheus 2.42 with native histograms
# and the shipped recording rules (tests/vm/native-replay.py).
if [ $rc = 0 ]; then
    if [ -s "$RXEVM_OUT/protobuf-probe-1.bin" ] && [ -s "$RXEVM_OUT/protobuf-probe-2.bin" ]; then
        python3 "$HERE/native-replay.py" "$RXEVM_OUT/protobuf-probe-1.bin" \
            "$RXEVM_OUT/protobuf-probe-2.bin" "$HERE/../../alerts/rdma-recording.rules.yml" || rc=1
    else
        echo "not ok - the guest's protobuf scrapes (protobuf-probe-{1,2}.bin) are missing"
        rc=1
    fi
fi
# rc 77 from the guest would read as "skipped" to ctest: never let that happen.
[ $rc != $SKIP ] || rc=1
exit $rc
