# SPDX-License-Identifier: Apache-2.0
# preun scriptlet: the expansion of systemd_preun rdma_exporter.service rdma_exporter.socket
# (RHEL 9 and 10; RHEL 8's in the second branch): on removal, not on upgrade, disable
# both units and stop them.
if [ $1 -eq 0 ] && [ -x "/usr/lib/systemd/systemd-update-helper" ]; then
    # Package removal, not upgrade
    /usr/lib/systemd/systemd-update-helper remove-system-units rdma_exporter.service rdma_exporter.socket || :
elif [ $1 -eq 0 ]; then
    # Package removal, not upgrade (RHEL 8)
    systemctl --no-reload disable --now rdma_exporter.service rdma_exporter.socket >/dev/null 2>&1 || :
fi
