/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The poller: runs every enabled collector once per interval, each on a
 * thread of its own under a deadline (--poll.collector-timeout; one that
 * misses it is left behind: worker.h), adds the exporter's self metrics,
 * renders the exposition text and publishes it as an immutable snapshot.
 */
#ifndef RDMA_EXPORTER_POLLER_H
#define RDMA_EXPORTER_POLLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"
#include "daemon/config.h"
#include "exposition/snapshot.h"

struct poller;

struct poller_config {
	const struct collector_ops *const *collectors; /* table */
	unsigned n_collectors;
	const bool *enabled; /* n_collectors entries */
	/* n_collectors rows: values of each collector's own flags; may be NULL. */
	const uint64_t (*flag_values)[CONFIG_MAX_COLLECTOR_FLAGS];
	/* n_collectors rows of text flag values; may be NULL. */
	const char *const (*flag_strs)[CONFIG_MAX_COLLECTOR_FLAGS];
	/* ctx.collector_timeout_ms is each collector's deadline; 0: the default
	 * for interval_ms (config_collector_timeout_ms()). */
	struct collector_ctx ctx;
	/*
	 * --poll.interval: the time between polls in fixed mode and in aligned
	 * mode while no regular scraper is seen; in aligned mode the longest
	 * time from one poll's end to the next one's start (pollsched.h).
	 */
	uint64_t interval_ms;
	/* --poll.min-interval: the shortest time between polls (aligned mode) */
	uint64_t min_interval_ms;
	/* --poll.mode=fixed: every interval_ms, whatever the scrapes */
	bool fixed_interval;
	const char *proc_root; /* "/proc" */
	/*
	 * Other parts' own metrics (the HTTP server's counters), added to every
	 * poll with the exporter's self metrics; may be NULL. Called on the
	 * polling thread: what it reads must be safe to read from there.
	 */
	void (*self_metrics)(void *arg, struct metric_sink *sink);
	void *self_metrics_arg;
	/*
	 * systemd's watchdog: the thread sends WATCHDOG=1 after every poll and,
	 * while it waits for the next one or for a collector's run (bounded by
	 * the collector's deadline), every watchdog_ping_ms (0: only after
	 * polls). Waiting is proof of life whatever the poll interval; a
	 * collector left behind stops nothing. What sends nothing, so that
	 * systemd kills it: the polling thread stuck itself (rendering, the
	 * self metrics, a collector without a thread of its own), or stuck()
	 * saying another part is.
	 */
	uint64_t watchdog_ping_ms;
	/* Sends one WATCHDOG=1; NULL: notify_watchdog(). A test seam. */
	void (*watchdog_ping)(void);
	/*
	 * Whether another part the watchdog stands for is stuck (the HTTP
	 * server: http_server_stuck()); no ping is sent while it says so.
	 * NULL: none. Called on the polling thread before each ping.
	 */
	bool (*stuck)(void *arg);
	void *stuck_arg;
	/* How long poller_stop() waits for a poll in progress; 0: 5 s. */
	uint64_t stop_timeout_ms;
};

#define POLLER_STOP_TIMEOUT_MS 5000

/* Initializes every enabled collector (a failing init is logged and that
 * collector reports success 0). NULL on ENOMEM. */
struct poller *poller_new(const struct poller_config *cfg, struct snapshot_slot *slot);
/* One poll, on the caller's thread: collect (waiting for each collector at
 * most its deadline), render, publish. 0 or -ENOMEM. */
int poller_poll_once(struct poller *p);
/* Starts the polling thread (first poll after one interval). 0 or -errno. */
int poller_start(struct poller *p);
/*
 * A /metrics request of scraper key (pollsched_key()) served data_age_s old
 * data: counted in rdma_exporter_data_age_seconds (in the next poll's
 * output; scraper="followed" when the schedule follows this scraper, else
 * "other") and, in aligned mode, learnt by the schedule, which the polling
 * thread then follows. from (POLLSCHED_AUTHENTICATED, POLLSCHED_NAMED): the
 * request passed basic auth or showed a verified client certificate, it
 * came from an address of --poll.follow-address (pollsched_arrival_from()). wants
 * (SNAPSHOT_WANTS_*): it asked for the protobuf exposition, or for plain
 * text, which polls keep only for the first poll and while such requests
 * come (within POLLER_PROTO_KEEP_MS and POLLER_PLAIN_KEEP_MS); else they
 * keep the gzip-encoded text alone (a plain request then gets it inflated).
 * Thread-safe; takes the poller's lock briefly.
 */
void poller_note_scrape(struct poller *p, uint64_t key, unsigned from, double data_age_s,
			unsigned wants);
/* The same at now_ms of CLOCK_MONOTONIC: the clock seam for tests. */
void poller_note_scrape_at(struct poller *p, uint64_t now_ms, uint64_t key, unsigned from,
			   double data_age_s, unsigned wants);
#define POLLER_PROTO_KEEP_MS (3600 * 1000)
#define POLLER_PLAIN_KEEP_MS (600 * 1000)
/*
 * Whether the poll that rendered poll_bytes (its text and protobuf
 * exposition) should end with malloc_trim(): only when it is bigger than
 * *high_bytes, the biggest poll before it, which it then raises. A poll no
 * bigger than an earlier one reuses the free pages that one left; trimming
 * them only made it fault them in again.
 */
bool poller_trim_due(size_t poll_bytes, size_t *high_bytes);
/* SIGHUP: collectors reload before the next poll, which runs at once. */
void poller_request_reload(struct poller *p);
/*
 * Stops and joins the polling thread and the collectors' threads, waiting
 * at most stop_timeout_ms in all (a poll in progress stops waiting for
 * collectors at once; a collector stuck in a read must not make the daemon
 * unkillable). 0, or -ETIMEDOUT: a thread still runs and uses the poller,
 * its collectors, what their context points to and the snapshot slot, so
 * none of them may be freed; it may be called again.
 */
int poller_stop(struct poller *p);
/* Stops (as poller_stop) and frees the collectors and the poller; if the
 * thread did not stop, frees nothing and returns -ETIMEDOUT. */
int poller_free(struct poller *p);

#endif
