/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ethtool collector's reads under the sysfs root (a directory fd, -1:
 * none): the netdevs of RDMA ports, for when the sysfs collector does not
 * publish them, and each netdev's carrier-down count. No logging; the
 * collector's thread.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_SYSFS_H
#define RDMA_EXPORTER_ETHTOOL_SYSFS_H

#include <stdint.h>

#include "base/netdevs.h"

/* Netdevs of RDMA ports (class/infiniband/DEV/ports/PORT/gid_attrs/ndevs/N)
 * into out, begun afresh: 0 (none without a sysfs root or class/infiniband),
 * -ENOMEM, or another -errno when class/infiniband cannot be read. */
int ethtool_scan_rdma_netdevs(int sysfs_fd, struct netdev_set *out);

/*
 * class/net/NETDEV/carrier_down_count under the sysfs root: 0 with *out, -ENOENT
 * where there is none (no sysfs root, a kernel before 4.16, a netdev sysfs does
 * not show), another -errno when it cannot be read or parsed. The kernel counts
 * every carrier loss of the netdev, so RoCE link flaps show on drivers whose
 * ethtool statistics have no link-down counter.
 */
int ethtool_read_carrier_downs(int sysfs_fd, const char *netdev, uint64_t *out);

#endif
