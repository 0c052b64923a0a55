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

extern const struct collector_ops sysfs_collector_ops;

#endif
