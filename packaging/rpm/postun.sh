# SPDX-License-Identifier: Apache-2.0
# postun scriptlet: the expansion of systemd_postun_with_restart rdma_exporter.service and
# systemd_postun rdma_exporter.socket (empty). On upgrade the service is marked for
# restart, and systemd's file trigger restarts it at the end of the transaction (RHEL 9
# and 10), or it is restarted here if it runs (RHEL 8). The socket is not restarted:
# the running service holds its port.
if [ $1 -ge 1 ] && [ -x "/usr/lib/systemd/systemd-update-helper" ]; then
    # Package upgrade, not uninstall
    /usr/lib/systemd/systemd-update-helper mark-restart-system-units rdma_exporter.service || :
elif [ $1 -ge 1 ]; then
    # Package upgrade, not uninstall (RHEL 8)
    systemctl try-restart rdma_exporter.service >/dev/null 2>&1 || :
fi
