/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The collector interface, the one wall between collectors/ and the daemon:
 * it uses only exposition and base (docs/architecture.md). Every data source
 * (sysfs counters, RDMA netlink resources, ethtool, probes, ...) is one
 * collector: a static ops table, with its own flags (struct collector_flag),
 * listed in daemon/collectors.c.
 *
 * init() runs on the thread that creates the poller and must not touch
 * hardware (no reads that could hang: the first collect() scans). Then each
 * collector has a thread of its own, which runs its collect() once per poll
 * and its reload() (before the next collect()): its state is only ever used
 * by that thread, never by two at once. A poll runs the collectors one at a
 * time in table order, into a sink of each run's own (so a collector cannot
 * see another's samples: metric_sink_has() sees its own), and waits for each
 * at most ctx->collector_timeout_ms. A run still going then is left behind:
 * the poll goes on without it, its samples are dropped when it ends, and
 * meanwhile the collector runs beside the later collectors of later polls.
 * What collectors share must therefore be read-only or locked
 * (struct netdev_set). A collector with inner deadlines keeps them below
 * collector_timeout_ms, so that a slow source ends its run with partial
 * data rather than being left behind.
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
#include <stddef.h>
#include <stdint.h>

#include "base/devfilter.h"
#include "base/netdevs.h"
#include "exposition/metrics.h"

enum collector_flag_kind {
	COLLECTOR_FLAG_UINT,	 /* whole number from min to max */
	COLLECTOR_FLAG_DURATION, /* Prometheus duration, stored in ms, min..max ms */
	COLLECTOR_FLAG_REGEX,	 /* POSIX extended regex, anchored; checked at parse time;
				    the text is in collector_flag_strs (NULL: not given) */
	COLLECTOR_FLAG_PATH,	 /* a non-empty file path, in collector_flag_strs (NULL: not
				    given); whether it exists is the collector's business */
	COLLECTOR_FLAG_BOOL,	 /* --collector.C.F / --no-collector.C.F, no value; 1 or 0,
				    def is the default */
	COLLECTOR_FLAG_TEXT,	 /* text checked by the flag's check() at parse time, in
				    collector_flag_strs (NULL: not given); metavar is shown in
				    --help */
	COLLECTOR_FLAG_ENUM,	 /* one of the words of values; stored as its index, def is
				    the default's; --help shows them as a|b|c */
};

/*
 * A flag of one collector: --collector.<collector>.<name>=VALUE. Its value
 * reaches the collector as collector_ctx.flags[i], i its index in the
 * collector's table.
 */
struct collector_flag {
	const char *name; /* e.g. "top-processes" */
	const char *help; /* one line for --help, says what the default means */
	enum collector_flag_kind kind;
	uint64_t def, min, max;
	/* COLLECTOR_FLAG_TEXT: 0, or -EINVAL with why set (pure: no I/O). */
	int (*check)(const char *value, char *why, size_t whylen);
	const char *metavar; /* COLLECTOR_FLAG_TEXT: e.g. "ADDR[,ADDR...]" */
	/* COLLECTOR_FLAG_ENUM: the words, NULL-terminated; the value is an index */
	const char *const *values;
	/* COLLECTOR_FLAG_UINT: what is counted, for --help's "Range: 1 to 64 peers."
	 * (NULL: the help says it). Durations carry their unit. */
	const char *unit;
};

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
	/* How long the poller waits for this collector's collect() before it
	 * leaves it behind (--poll.collector-timeout), in ms; 0: not set (a
	 * collector then derives its own limits from poll_interval_ms). A
	 * collector with inner deadlines (per device) keeps them below this. */
	uint64_t collector_timeout_ms;
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
	 * poll (netdev_set_commit), read by later collectors through
	 * netdev_set_get_published() (the publisher may be left behind and
	 * publish from its thread meanwhile); never NULL in the daemon. */
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
	/* Own flags, --collector.NAME.FLAG=VALUE (above); may be NULL. */
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
