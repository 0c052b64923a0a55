# SPDX-License-Identifier: Apache-2.0
#
# Sourced by the host side of the VM tests (vm-e2e.sh, vm-mesh.sh); HERE is set.

SKIP=77
. "$HERE/../include/promtool.sh"        # promtool_clean FILE

# vm_host_check NAME: returns if this host can run the rxe VM; otherwise exits 77
# (skip), or 1 when RDMA_EXPORTER_VM_REQUIRED=1 (CI). rxe-vm.sh --check says why on
# stderr; missing packages are fine when it can apt-get install them.
vm_host_check() {
    local name=$1
    "$HERE/rxe-vm.sh" --check && return 0
    if [ "${RDMA_EXPORTER_VM_REQUIRED:-0}" = 1 ]; then
        echo "$name: FAIL: this host cannot run the rxe VM (needs qemu-system-x86_64 and a" \
             "Debian 12 apt, see above) and RDMA_EXPORTER_VM_REQUIRED=1" >&2
        exit 1
    fi
    echo "$name: SKIP: this host cannot run the rxe VM (needs qemu-system-x86_64 and a" \
         "Debian 12 apt, see above and tests/vm/README.md); set RDMA_EXPORTER_VM_REQUIRED=1 to fail instead" >&2
    exit $SKIP
}
