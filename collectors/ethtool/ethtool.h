/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ethtool collector: for every netdev bound to an RDMA port (published by
 * the sysfs collector) plus --collector.ethtool.netdev-include matches, minus
 * --collector.ethtool.netdev-exclude: driver identity, the driver's ethtool
 * statistics mapped to typed per-priority PFC / pause / drop families
 * (ethtool_names.h), the standard netlink pause statistics, DCB PFC
 * configuration and counters, FEC mode and statistics (ethtool_fec.h), raw
 * statistics matching --collector.ethtool.stat-include, and the pluggable
 * module's identity, diagnostics and thresholds (module_collect.h).
 */
#ifndef RDMA_EXPORTER_ETHTOOL_H
#define RDMA_EXPORTER_ETHTOOL_H

#include <stddef.h>
#include <stdint.h>

#include "collector.h"
#include "ethtool_fec.h"
#include "ethtool_ioctl.h"
#include "ethtool_nl.h"
#include "ethtool_seams.h"
#include "module_eeprom.h"

extern const struct collector_ops ethtool_collector_ops;

enum {
	ETHTOOL_FLAG_NETDEV_INCLUDE,
	ETHTOOL_FLAG_NETDEV_EXCLUDE,
	ETHTOOL_FLAG_STAT_INCLUDE,
	ETHTOOL_FLAG_MODULE_INTERVAL,
	ETHTOOL_FLAG_COUNT,
};

int ethtool_collector_init_with(const struct collector_ctx *ctx, const struct ethtool_seams *seams,
				void **state);

#endif
