/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sysfs collector's own structures, shared by its files and by no one
 * else: struct sysfs_shared (the inputs and the log-once table, shared by
 * the jobs and the collector thread under its lock), struct sysfs_job (one
 * device and its read job: the fields each side writes are said at each
 * field) and struct sysfs_state (the collector thread's alone, but for
 * reload_requested).
 *
 * Who calls what, from the bottom up: sysfs_shared.c (the shared inputs and
 * the log-once table), sysfs_walk.c (one device's walk: values read on a
 * reader thread, samples emitted on the collector thread), sysfs_job.c (the
 * job that runs the walk on a reader thread), sysfs_refresh.c (the device
 * list, on the collector thread), sysfs.c (the collector: one poll, set-up).
 */
#ifndef RDMA_EXPORTER_SYSFS_INTERNAL_H
#define RDMA_EXPORTER_SYSFS_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"
#include "sysfs_pool.h"
#include "sysfs_scan.h"

/* Per-poll values are short ("18446744073709551615\n", "100 Gb/sec (4X EDR)\n"),
 * but for the AER files: a line per error type, a page at most. */
#define VALUE_BUF 4096

/* The read of a value file: sysfs_read_fn of sysfs.h, which this header
 * cannot include (sysfs.c, which sysfs.h is of, includes this one). */
typedef int (*sysfs_shared_read_fn)(void *data, int root, const char *dir, struct sysfs_file *f,
				    char *buf, size_t size);

/* Why there is no device to report; logged once per change. */
enum no_devices {
	NO_DEVICES_NONE,      /* there are devices, or nothing to say */
	NO_DEVICES_NO_DIR,    /* class/infiniband missing: no RDMA driver loaded */
	NO_DEVICES_FILTERED,  /* all dropped by the device filter */
	NO_DEVICES_EMPTY_DIR, /* class/infiniband there, empty */
};

/*
 * What the jobs share with the collector thread: the inputs, fixed at init,
 * and the table of paths logged once. Counted references: a job blocked in
 * a read may outlive the collector.
 */
struct sysfs_shared {
	unsigned refs; /* atomic */
	int root;      /* borrowed */
	sysfs_shared_read_fn read;
	void *read_data;
	pthread_mutex_t lock; /* the fields below */
	/* Paths whose failure was already logged at warn; sorted. */
	char **warned;
	size_t n_warned, cap_warned;
	bool warned_emfile;
};

/*
 * One device and its read job. A device is walked twice per poll in the
 * same order: the job (on a reader thread) reads every value into vals, then
 * the collector thread, once the job is done in time, turns them into
 * samples. All sink work stays on the collector thread, as without readers:
 * a sink per job and a merge cost a few percent more CPU per poll.
 */
struct sysfs_job {
	struct sysfs_task task; /* first: the pool hands it back */
	struct sysfs_shared *sh;
	struct sysfs_device *dev;
	/* The walk: reading (the job) or emitting into sink (the collector). */
	bool emitting;
	struct metric_sink *sink; /* while emitting */
	size_t pos;		  /* next value of the walk */
	/* The values of the last run, in walk order; ok[i]: vals[i] was read. */
	uint64_t *vals;
	bool *ok;
	size_t n_vals, cap_vals;
	struct sysfs_hwnl *hwnl; /* while the job runs: its reader thread's */
	struct collector_stats stats;
	int rc;
	uint64_t run_ms; /* how long the last run took, start to return */
	/* Set by the collector, done by the job (netlink may block too): map
	 * the ports' hw counters to netlink, all or those on the files. */
	bool attach_all, attach_files;
	char buf[VALUE_BUF];
	/* The collector thread's alone: */
	bool unresponsive;	  /* said so in the log; rdma_device_responsive 0 */
	bool rescan;		  /* SIGHUP: scan it again once it is not running */
	bool blocked;		  /* this poll: its previous job still runs */
	uint64_t unresponsive_ms; /* since when */
	double checked_s;	  /* last scanned or re-checked, clock_mono_s() */
};

struct sysfs_state {
	const struct device_filter *filter;
	double rescan_interval_s;
	double netdev_recheck_s; /* keep_device(): a fifth of it, at most SYSFS_NETDEV_RECHECK_S */
	struct netdev_set *netdevs; /* published every poll; may be NULL */
	unsigned fd_reserve;	    /* collector_ctx.fd_reserve */
	uint64_t polls;

	struct sysfs_job **jobs; /* sorted by device name with sysfs_name_cmp() */
	size_t n_jobs;
	struct sysfs_task **batch; /* this poll's tasks, n_jobs at most */
	bool scanned;
	double last_scan;
	int reload_requested; /* set by reload(), any thread */

	/* <sysfs>/class/infiniband in full, for the no-device log */
	char class_dir[PATH_MAX];
	struct sysfs_listing listing; /* of the last refresh */
	enum no_devices no_devices;   /* the case last logged */

	struct sysfs_shared *sh;
	struct sysfs_pool *pool;
	uint64_t device_timeout_ms;
	uint64_t retry_timeout_ms; /* of a hung device: sysfs_retry_timeout_ms() */
	uint64_t skipped_total;
	uint64_t unreplaced_seen; /* sysfs_pool_stats.unreplaced last logged */
	bool skip_logged;	  /* this run of polls that skip devices */
	bool blocked_seen;	  /* the last poll saw a reader blocked */
	/* hw counters over netlink: scans defer the ports' hw_counters files,
	 * kept open only for the ports netlink does not serve */
	bool hwnl_path;
};

/* --- sysfs_shared.c: the shared inputs and the log-once table ----------- */

/* read is never NULL. NULL without memory. */
struct sysfs_shared *sysfs_shared_new(int root, sysfs_shared_read_fn read, void *read_data);
struct sysfs_shared *sysfs_shared_ref(struct sysfs_shared *sh);
/* NULL is a no-op. */
void sysfs_shared_unref(struct sysfs_shared *sh);
/* SIGHUP: forgets the paths logged, and the fd limit said. */
void sysfs_shared_forget(struct sysfs_shared *sh);
/* The level of a failure's line: warn the first time a path fails, later
 * debug. Any thread. */
int sysfs_failure_level(struct sysfs_shared *sh, const char *path);
/* Files of dev that fell back to an open per read: said once, at warn. Any
 * thread. */
void sysfs_warn_fd_limit(struct sysfs_shared *sh, const struct sysfs_device *dev);

/* --- sysfs_walk.c: one device's walk ------------------------------------- */

/* The job's deadline passed: nothing it does now is used, so it stops at the
 * next file (each read of a hung device would block again). */
static inline bool sysfs_job_cancelled(const struct sysfs_job *job)
{
	return sysfs_task_cancelled(&job->task);
}

/*
 * One pass over the device: the job's (reads every value, emitting nothing;
 * on its reader thread) or the collector's (job->emitting: emits the samples
 * of the values read into job->sink), in one order. 0 or a negative errno.
 */
int sysfs_walk_device(struct sysfs_job *job);
/* The samples of a device whose reads did not finish: its scan-time
 * attributes and ports. Collector thread. */
int sysfs_emit_scanned(struct metric_sink *sink, const struct sysfs_device *dev);
/* The port's hw counters come from the files again: open them. Job. */
void sysfs_hw_files_open(struct sysfs_job *job, struct sysfs_port *p);

/* --- sysfs_job.c: the read job of one device ---------------------------- */

/* A job for dev (owned by the job from now on); NULL without memory. */
struct sysfs_job *sysfs_job_new(struct sysfs_state *st, struct sysfs_device *dev);
/* Frees a job that no thread runs. NULL is a no-op. */
void sysfs_job_free(struct sysfs_job *job);
/* Frees the job now, or, while its thread is blocked in it, when it returns.
 * NULL is a no-op. */
void sysfs_job_drop(struct sysfs_state *st, struct sysfs_job *job);

/* --- sysfs_refresh.c: the device list, on the collector thread ---------- */

/*
 * Brings the cached devices in line with class/infiniband: new names are
 * scanned, vanished ones freed, flagged ones re-scanned. 0 or a negative
 * errno.
 */
int sysfs_refresh(struct sysfs_state *st, struct collector_stats *stats);
/* The netdevs of every RDMA port, for the collectors after this one. */
int sysfs_publish_netdevs(struct sysfs_state *st);
/* No device to report: says why, once per change of reason. */
void sysfs_log_no_devices(struct sysfs_state *st);

#endif
