/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sysfs collector: device and port attributes and every counter file
 * under <sysfs>/class/infiniband/<dev>/ (ports/N/counters, counters_ext,
 * hw_counters and the device-level hw_counters), whatever the driver.
 *
 * Families: rdma_device_info, rdma_port_info, rdma_port_netdev_info,
 * rdma_port_state, rdma_port_phys_state, rdma_port_rate_bytes_per_second,
 * rdma_port_lid, rdma_port_sm_lid, the well-known counters of sysfs_names.h,
 * and rdma_port_statistic_total / rdma_device_statistic_total for the rest.
 *
 * ctx->rescan_interval_s <= 0 re-scans at every poll. reload() only sets a
 * flag: the next collect() closes every fd and scans again, so reload() may
 * be called from any thread.
 */
#ifndef RDMA_EXPORTER_SYSFS_H
#define RDMA_EXPORTER_SYSFS_H

#include "collector.h"
#include "netlink/netlink_sock.h"

extern const struct collector_ops sysfs_collector_ops;

/* Indexes of the collector's own flags in collector_ctx.flags. */
enum {
	SYSFS_FLAG_HW_COUNTERS_NETLINK, /* --collector.sysfs.hw-counters-netlink, bool */
	SYSFS_FLAG_COUNT,
};

/*
 * Outside inputs besides the sysfs root. open_transport: the RDMA netlink
 * transport for hw counters (NULL: read the files). The real init uses
 * nl_socket_open only when the sysfs path is /sys: netlink describes the
 * running kernel, which a fixture or another root does not.
 */
struct sysfs_seams {
	nl_transport_open_fn open_transport;
	void *open_data;
};

/* init() with the given seams. */
int sysfs_collector_init_with(const struct collector_ctx *ctx, const struct sysfs_seams *seams,
			      void **state);

#endif
