/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sysfs collector's reader threads: a small fixed pool that runs one task
 * per device, so that a device whose reads block (hung firmware: a read of
 * its counters waits for the command timeout, tens of seconds on mlx5, or
 * for ever) holds one thread and not the poll.
 *
 * The collector thread submits a batch of tasks and waits for them until a
 * deadline. A task still running then is late: the thread running it is
 * blocked, and the pool starts another in its place, while fewer than
 * blocked_max threads are blocked; past that the pool shrinks instead (never
 * more than readers + blocked_max threads). A late task cannot be submitted
 * again until it returns (sysfs_pool_busy). When it returns, its thread
 * becomes a free reader again, or exits when the pool is full. A task not
 * started by the deadline is taken back from the queue: skipped.
 *
 * Threads never depend on the caller's memory once the pool is freed: a
 * task given up while running (sysfs_pool_abandon) is released by its
 * thread when it returns, and the last thread out frees the pool. Nothing
 * here logs: the counts are in sysfs_pool_stats().
 */
#ifndef RDMA_EXPORTER_SYSFS_POOL_H
#define RDMA_EXPORTER_SYSFS_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sysfs_pool;

/* What became of a submitted task by the deadline (sysfs_task.outcome). */
enum sysfs_task_outcome {
	SYSFS_TASK_DONE,    /* finished in time */
	SYSFS_TASK_LATE,    /* still running: its thread is blocked */
	SYSFS_TASK_SKIPPED, /* never started: no reader was free */
};

/* Embedded in the caller's object; zeroed before first use. */
struct sysfs_task {
	/* Runs on a reader thread; reader is that thread's own data
	 * (sysfs_pool_cfg.reader_new). It may stop early once
	 * sysfs_task_cancelled() says so. */
	void (*run)(struct sysfs_task *t, void *reader);
	/* Frees the task's owner; called by the thread of a task that was
	 * abandoned while it ran, when it returns. */
	void (*release)(struct sysfs_task *t);
	enum sysfs_task_outcome outcome; /* set by sysfs_pool_wait() */
	/* the pool's, under its lock */
	unsigned state;
	bool late, abandoned;
	struct sysfs_task *next;
};

struct sysfs_pool_cfg {
	unsigned readers;     /* threads that read when none is blocked, >= 1 */
	unsigned blocked_max; /* blocked threads that are replaced, at most */
	/* Per-thread data, made on the thread when it starts (NULL is fine)
	 * and freed there when it exits. arg is the pool's own copy. */
	void *(*reader_new)(const void *arg);
	void (*reader_free)(void *reader);
	const void *arg; /* copied: arg_size bytes */
	size_t arg_size;
};

struct sysfs_pool_stats {
	unsigned readers;      /* threads free to read (not blocked) */
	unsigned blocked;      /* threads blocked in a late task */
	uint64_t unreplaced;   /* late tasks whose thread was not replaced (the limit) */
	uint64_t start_errors; /* threads that could not be started */
};

/* Starts cfg->readers threads; NULL when none could be started. */
struct sysfs_pool *sysfs_pool_new(const struct sysfs_pool_cfg *cfg);
/*
 * Stops the free threads and waits for them; blocked threads finish their
 * task (released if abandoned), then exit, the last one freeing the pool.
 * NULL is a no-op. Every task must be idle or abandoned.
 */
void sysfs_pool_free(struct sysfs_pool *p);

/* Whether t is still running after a deadline it missed: it cannot be
 * submitted again yet. */
bool sysfs_pool_busy(struct sysfs_pool *p, const struct sysfs_task *t);

/*
 * Queues n tasks (none busy) and waits until they are all done or the
 * monotonic clock reaches deadline_ms; sets each one's outcome.
 */
void sysfs_pool_run(struct sysfs_pool *p, struct sysfs_task *const *tasks, size_t n,
		    uint64_t deadline_ms);

/*
 * Gives t up: released now (t->release) when it is not running, else by its
 * thread when it returns.
 */
void sysfs_pool_abandon(struct sysfs_pool *p, struct sysfs_task *t);

/* For a running task: whether its deadline passed (its results are not
 * wanted any more). */
bool sysfs_task_cancelled(const struct sysfs_task *t);

void sysfs_pool_stats(struct sysfs_pool *p, struct sysfs_pool_stats *out);

#endif
