/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Policy of the transceiver (module EEPROM) part of the ethtool collector:
 * when to read a netdev's module (at most every --collector.ethtool.module-
 * interval; never again until the next full scan on a netdev without module
 * access), what is cached between reads, what becomes a sample, what is
 * logged once and what is counted as a read error.
 */
#ifndef RDMA_EXPORTER_MODULE_COLLECT_H
#define RDMA_EXPORTER_MODULE_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "collector.h"
#include "module_read.h"

#define MODULE_INTERVAL_DEFAULT_MS 60000

struct module_state;

/* What the collector shares between its netdevs. */
struct module_policy {
	uint64_t interval_ms; /* 0: module reads off */
	module_page_fn read_page;
	void *io;
	bool logged_unsupported;   /* the first netdev without module access is logged at info */
	bool logged_not_permitted; /* the missing CAP_NET_ADMIN is logged once at info */
};

struct module_state *module_state_new(void);
void module_state_free(struct module_state *s);
/* A full scan: a netdev without module access (or permission) is asked again
 * at its next poll. */
void module_state_rescan(struct module_state *s);

/*
 * The module samples of one netdev at now_ms: read when due (or never read),
 * else the cached decode. 0 or -ENOMEM. A real read failure adds one to
 * stats->read_errors per failed read (not per poll).
 */
int module_poll(struct module_state *s, struct module_policy *pol, const char *netdev,
		uint64_t now_ms, struct metric_sink *sink, struct collector_stats *stats);

#endif
