/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The collector interface. Every data source (sysfs counters, RDMA netlink
 * resources, ethtool, probes, ...) is one collector: a static ops table,
 * listed in collectors.c. The poller calls collect() of every enabled
 * collector once per poll interval, from its own thread, one at a time.
 *
 * A collector returns 0 when it produced its metrics (individual values may
 * still have failed: count them in stats->read_errors), or -errno when it
 * failed as a whole; then rdma_exporter_collector_success is 0 and the
 * samples it added are still served.
 */
#ifndef RDMA_EXPORTER_COLLECTOR_H
#define RDMA_EXPORTER_COLLECTOR_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "devfilter.h"
#include "metrics.h"
#include "netdevs.h"

struct collector_ctx {
	/* O_DIRECTORY fd of --path.sysfs; every sysfs access is relative to it. */
	int sysfs_fd;
	/* --path.sysfs made absolute, for log messages only; may be NULL. */
	const char *sysfs_path;
	/* Descriptors below RLIMIT_NOFILE that a collector must never keep
	 * open (the daemon's budget: HTTP connections, sockets, per-read
	 * opens); 0: the collector's own default. */
	unsigned fd_reserve;
	/* --collector.device-include / -exclude; never NULL. */
	const struct device_filter *filter;
	/* Seconds between full re-scans of device and counter lists. */
	double rescan_interval_s;
	/* Time between polls (--poll.interval), in ms. */
	uint64_t poll_interval_ms;
	/* procfs mount point ("/proc"), for pid -> comm look-ups. */
	const char *proc_root;
	/* Whether the sysfs collector runs too: collectors that can see the
	 * same counter another way (netlink) leave those to sysfs. */
	bool sysfs_collector_enabled;
	/* Values of this collector's own flags (collector_ops.flags), in table
	 * order; set by the poller for each collector, NULL when it has none. */
	const uint64_t *flags;
	/* Text values of its COLLECTOR_FLAG_REGEX flags (NULL entries: not
	 * given); NULL when it has no flags. */
	const char *const *flag_strs;
	/* Netdevs bound to RDMA ports: published by the sysfs collector every
	 * poll, read by later collectors; never NULL in the daemon. */
	struct netdev_set *rdma_netdevs;
};

struct collector_stats {
	uint64_t read_errors; /* values skipped in this collect() call */
	uint64_t devices;     /* devices seen in this collect() call */
};

struct collector_ops {
	const char *name; /* [a-z0-9_]+, used in --collector.NAME */
	const char *help; /* one line for --help */
	bool default_enabled;
	/* Own flags, --collector.NAME.FLAG=VALUE (config.h); may be NULL. */
	const struct collector_flag *flags;
	unsigned n_flags;
	/* Allocate state. Must not fail because hardware is missing. */
	int (*init)(const struct collector_ctx *ctx, void **state);
	int (*collect)(void *state, struct metric_sink *sink, struct collector_stats *stats);
	/* SIGHUP: drop caches, reopen files, re-scan. May be NULL. */
	void (*reload)(void *state);
	/* free(NULL) is a no-op. */
	void (*free)(void *state);
};

/* For samples a collector adds: only -ENOMEM fails the collector; other
 * rejects are counted by the sink (rdma_exporter_metric_errors_total). */
static inline int collector_sink_result(int r)
{
	return r == -ENOMEM ? r : 0;
}

/* Static table of all collectors, in collection order (collectors.c). */
extern const struct collector_ops *const collector_table[];
extern const unsigned collector_table_len;

#endif
