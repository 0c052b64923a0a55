# SPDX-License-Identifier: Apache-2.0
# post scriptlet: the expansion of systemd_post rdma_exporter.service rdma_exporter.socket
# on RHEL 9 and 10 (systemd's macros.systemd), and on RHEL 8 (systemd 239, no
# systemd-update-helper) the expansion there. Both apply the presets on first
# installation only: RHEL's default preset disables every unit not listed, so nothing
# is enabled or started unless a preset file says so (docs/install.md). systemd's own
# file triggers run daemon-reload after the transaction.
if [ $1 -eq 1 ] && [ -x "/usr/lib/systemd/systemd-update-helper" ]; then
    # Initial installation
    /usr/lib/systemd/systemd-update-helper install-system-units rdma_exporter.service rdma_exporter.socket || :
elif [ $1 -eq 1 ]; then
    # Initial installation (RHEL 8)
    systemctl --no-reload preset rdma_exporter.service rdma_exporter.socket >/dev/null 2>&1 || :
fi
