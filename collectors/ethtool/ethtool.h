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
#include "ethtool_ioctl.h"
#include "ethtool_fec.h"
#include "ethtool_nl.h"
#include "module_eeprom.h"

extern const struct collector_ops ethtool_collector_ops;

enum {
	ETHTOOL_FLAG_NETDEV_INCLUDE,
	ETHTOOL_FLAG_NETDEV_EXCLUDE,
	ETHTOOL_FLAG_STAT_INCLUDE,
	ETHTOOL_FLAG_MODULE_INTERVAL,
	ETHTOOL_FLAG_COUNT,
};

/* Every outside input of the collector, replaceable in tests. Functions
 * return 0 or -errno like their real counterparts. */
struct ethtool_seams {
	void *io;
	/* Names of all netdevs of this network namespace; *names NULL-terminated,
	 * freed by the caller with free() on each and on the array. */
	int (*list_netdevs)(void *io, char ***names, size_t *n);
	int (*drvinfo)(void *io, const char *ifname, struct eth_drvinfo *out);
	int (*stats_count)(void *io, const char *ifname, uint32_t *n);
	int (*strings)(void *io, const char *ifname, uint32_t expect, char **names, uint32_t *n);
	int (*stats)(void *io, const char *ifname, uint64_t *vals, uint32_t cap, uint32_t *n);
	int (*pause)(void *io, const char *ifname, struct eth_pause_stats *out);
	int (*pfc)(void *io, const char *ifname, struct eth_pfc *out);
	/* ETHTOOL_MSG_FEC_GET with statistics; NULL: no FEC source. */
	int (*fec)(void *io, const char *ifname, struct eth_fec *out);
	/* One 128-byte module EEPROM page (module_read.h); NULL: no module reads. */
	int (*module_page)(void *io, const char *ifname, const struct module_page_addr *a,
			   uint8_t *buf);
	void (*free_io)(void *io);
};

int ethtool_collector_init_with(const struct collector_ctx *ctx, const struct ethtool_seams *seams,
				void **state);

#endif
