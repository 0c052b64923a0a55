/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The devlink collector: the devices' health reporters (mlx5's fw,
 * fw_fatal, tx, rx, ...) from one generic netlink dump per poll
 * (DEVLINK_CMD_HEALTH_REPORTER_GET), mapped to RDMA devices through the PCI
 * address (class/infiniband/<dev>/device under --path.sysfs).
 *
 * Families: rdma_devlink_health_errors_total, rdma_devlink_health_recoveries_total,
 * rdma_devlink_health_state (labels device, reporter). Reporters of devlink
 * handles that no RDMA device sits on are skipped (a debug line says how many).
 */
#ifndef RDMA_EXPORTER_DEVLINK_H
#define RDMA_EXPORTER_DEVLINK_H

#include "collector.h"
#include "devlink_parse.h"
#include "rdmanl/netlink_sock.h"

extern const struct collector_ops devlink_collector_ops;

/* The most RDMA devices looked at for the PCI map; more are counted as
 * read errors and logged once. */
#define DEVLINK_RDMA_DEVICES_MAX 1024

/* Every outside input of the collector, replaceable in tests: the generic
 * netlink transport (NULL: none, the collector reports no reporters). The
 * sysfs root is ctx->sysfs_fd. */
struct devlink_seams {
	nl_transport_open_fn open_transport;
	void *open_data;
};

int devlink_collector_init_with(const struct collector_ctx *ctx, const struct devlink_seams *seams,
				void **state);

#endif
