/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One collector's own thread (docs/architecture.md, "The poller"). The
 * polling thread asks it for a run and waits for the result until the
 * collector's deadline; a run still going then is left behind: the poll goes
 * on without it, and when the run ends its samples are thrown away. Until
 * then the worker is busy and later polls skip it without waiting.
 *
 * Everything a collector's state sees runs on this thread: collect(), and
 * reload(), handed over by the polling thread and run before the next
 * collect(). So a collector is never entered by two threads, even when a run
 * is left behind. Nothing here logs; the poller does.
 */
#ifndef RDMA_EXPORTER_WORKER_H
#define RDMA_EXPORTER_WORKER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "collector.h"

struct worker;

/* What a run that finished in time hands to the poll. */
struct worker_result {
	int rc; /* collect()'s: 0 or -errno (-ENOMEM: no sink for it) */
	struct collector_stats stats;
	uint64_t took_ns;
	/* the run's samples, now the caller's to absorb and free; NULL with -ENOMEM */
	struct metric_sink *sink;
};

/*
 * The last completed run, in time or late: for the self metrics of a
 * collector left behind, whose own run has not ended.
 */
struct worker_history {
	uint64_t runs;		    /* completed runs, in time or not */
	uint64_t read_errors_total; /* all completed runs' */
	uint64_t last_took_ns;
	uint64_t last_devices;
};

/*
 * Starts the thread for ops with its state, named "rdma-c-NAME" (cut to
 * 15 characters). NULL when none can start (no memory, no thread): the
 * caller then runs the collector on its own thread.
 */
struct worker *worker_start(const struct collector_ops *ops, void *state);

/*
 * Asks for a run, with a reload first when one is pending. false: the last
 * run is still going (left behind by an earlier poll), nothing was asked.
 */
bool worker_dispatch(struct worker *w);

/* Whether worker_wait() returned a result, or why not. */
enum worker_wait {
	WORKER_DONE,	/* the run finished: *res holds it */
	WORKER_WAITING, /* not yet at until_ms (or woken by worker_interrupt) */
	WORKER_LEFT,	/* not yet, and now left behind (leave was true) */
};

/*
 * Waits for the run asked for by the last worker_dispatch() until until_ms
 * (clock_mono_ms()). With leave, a run not finished by then is left behind
 * in the same step, so that its result can never be taken half way.
 */
enum worker_wait worker_wait(struct worker *w, uint64_t until_ms, bool leave,
			     struct worker_result *res);

/* Wakes a worker_wait() in progress (it returns WORKER_WAITING): a stop. */
void worker_interrupt(struct worker *w);

/* A SIGHUP: reload() runs on the worker before its next collect(). */
void worker_request_reload(struct worker *w);

void worker_history(struct worker *w, struct worker_history *h);

/* Asks the thread to end once its run, if any, is over. */
void worker_request_stop(struct worker *w);
/*
 * Joins it (after worker_request_stop()) until deadline (CLOCK_REALTIME, for
 * pthread_timedjoin_np). 0, or -ETIMEDOUT: it is still in a run and uses the
 * collector's state; call again later. NULL: 0.
 */
int worker_join(struct worker *w, const struct timespec *deadline);

/* After worker_join() returned 0; NULL is a no-op. */
void worker_free(struct worker *w);

#endif
