// SPDX-License-Identifier: Apache-2.0
/*
 * Policy layer of the sysfs collector, its entry: one poll (which devices are
 * read, by when, and what a device that does not answer in time gives), the
 * reader threads' own figures, set-up and flags. When to scan is
 * sysfs_refresh.c's; what a file becomes as a sample, and each failing file
 * logged once at warn (later at debug), sysfs_walk.c's.
 *
 * Each device is read by a job on the reader threads (sysfs_pool.h); the
 * collector thread waits for the jobs until the device deadline and turns
 * the values of those done into samples, in device order. A device
 * whose job misses the deadline is unresponsive (rdma_device_responsive 0):
 * its values are left out (what its scan found stays), and it gets no new
 * job while that one still runs, so a hung device holds one thread and
 * never the poll.
 */
#include "sysfs.h"
#include "base/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sysfs_hwnl.h"
#include "sysfs_internal.h"
#include "sysfs_pool.h"
#include "sysfs_scan.h"

#define FAM_RESPONSIVE "rdma_device_responsive"
#define FAM_READERS    "rdma_exporter_sysfs_readers"
#define FAM_BLOCKED    "rdma_exporter_sysfs_blocked_readers"
#define FAM_SKIPPED    "rdma_exporter_sysfs_devices_skipped_total"

static const char help_responsive[] =
	"1 if the device's reads of the last poll finished within "
	"--collector.sysfs.device-timeout, 0 if they did not (a read blocks: hung firmware?); "
	"while 0 its values are left out (rdma_device_info and rdma_port_info stay).";
static const char help_readers[] =
	"Reader threads of the sysfs collector free to read devices (--collector.sysfs.readers, "
	"fewer while more than 8 are blocked).";
static const char help_blocked[] =
	"Reader threads of the sysfs collector blocked in a read of an unresponsive device.";
static const char help_skipped[] =
	"Device reads the sysfs collector skipped because no reader thread was free before "
	"the device deadline (more blocked readers than it replaces).";

/* --- one poll ---------------------------------------------------------------- */

/*
 * This poll's jobs: every device but those whose read still blocks, in two
 * batches. The first, run to the device deadline: the devices that answered
 * last time, then those that did not but whose late read returned within
 * that deadline (slow, not hung). One reader takes the queue in order: a hung
 * device met first would hold it while the rest waited for the other
 * readers, woken cold a quarter of the way to the deadline (a fifth more of
 * the readers' CPU a minute with one hung device, docs/performance.md); met
 * last, it holds that reader alone. The second batch (*n_retry, after the
 * first in st->batch), run to the shorter retry deadline: the devices whose
 * late read took longer than the deadline (hung), tried again now that it
 * returned.
 */
static size_t jobs_to_run(struct sysfs_state *st, size_t *n_retry)
{
	size_t n = 0, first = 0;

	/* first: a job still running writes run_ms, read below only once its
	 * thread is done with it (the pool's lock orders the two) */
	for (size_t i = 0; i < st->n_jobs; i++)
		st->jobs[i]->blocked = sysfs_pool_busy(st->pool, &st->jobs[i]->task);
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 2)
			first = n;
		for (size_t i = 0; i < st->n_jobs; i++) {
			struct sysfs_job *job = st->jobs[i];
			int want;

			if (job->blocked)
				continue;
			want = !job->unresponsive ? 0 : job->run_ms < st->device_timeout_ms ? 1 : 2;
			if (want != pass)
				continue;
			job->stats = (struct collector_stats){0};
			job->rc = 0;
			st->batch[n++] = &job->task;
		}
	}
	*n_retry = n - first;
	return first;
}

static void device_late(struct sysfs_state *st, struct sysfs_job *job)
{
	if (job->unresponsive)
		return;
	job->unresponsive = true;
	job->unresponsive_ms = clock_mono_ms();
	log_warn("device does not answer: its reads block; its values are left out and it is "
		 "not read again until the blocked read returns",
		 "collector=sysfs device=%s timeout_ms=%llu", job->dev->name,
		 (unsigned long long)st->device_timeout_ms);
}

static void device_answered(struct sysfs_job *job)
{
	if (!job->unresponsive)
		return;
	job->unresponsive = false;
	log_info("device answers again", "collector=sysfs device=%s unresponsive_ms=%llu",
		 job->dev->name, (unsigned long long)(clock_mono_ms() - job->unresponsive_ms));
}

/* A job done in time: the samples of its values. 0 or -ENOMEM. */
static int emit_values(struct metric_sink *sink, struct sysfs_job *job,
		       struct collector_stats *stats)
{
	int r;

	device_answered(job);
	job->emitting = true;
	job->sink = sink;
	r = sysfs_walk_device(job);
	job->emitting = false;
	job->sink = NULL;
	stats->read_errors += job->stats.read_errors;
	return r < 0 ? r : job->rc == -ENOMEM ? -ENOMEM : 0;
}

/*
 * One device's outcome: its samples, and rdma_device_responsive (none for a
 * device that was skipped: whether it answers is not known). A device not
 * read in time keeps its scan-time samples. 0 or -ENOMEM.
 */
static int device_outcome(struct sysfs_state *st, struct metric_sink *sink, struct sysfs_job *job,
			  size_t *skipped, struct collector_stats *stats)
{
	enum sysfs_task_outcome outcome = job->blocked ? SYSFS_TASK_LATE : job->task.outcome;
	int r;

	stats->devices++;
	if (outcome == SYSFS_TASK_DONE) {
		r = emit_values(sink, job, stats);
	} else {
		if (outcome == SYSFS_TASK_LATE)
			device_late(st, job);
		else
			(*skipped)++;
		r = sysfs_emit_scanned(sink, job->dev);
		if (outcome == SYSFS_TASK_SKIPPED || r < 0)
			return r;
	}
	if (collector_sink_result(metric_sink_add_u64(
		    sink, FAM_RESPONSIVE, help_responsive, METRIC_GAUGE,
		    METRIC_LABELS({"device", job->dev->name}), outcome == SYSFS_TASK_DONE)) < 0)
		return -ENOMEM;
	return r;
}

/* The pool's own figures, and its limits said once per episode. */
static int emit_pool(struct sysfs_state *st, struct metric_sink *sink, size_t skipped)
{
	struct sysfs_pool_stats ps;
	int r;

	sysfs_pool_stats(st->pool, &ps);
	st->blocked_seen = ps.blocked > 0;
	if (ps.unreplaced > st->unreplaced_seen)
		log_warn("reader threads blocked at the limit: no more are started; devices are "
			 "read by fewer threads",
			 "collector=sysfs blocked_readers=%u limit=%u readers=%u", ps.blocked,
			 SYSFS_BLOCKED_READERS_MAX, ps.readers);
	st->unreplaced_seen = ps.unreplaced;
	st->skipped_total += skipped;
	if (skipped && !st->skip_logged)
		log_warn("devices skipped: no reader thread was free before the device deadline",
			 "collector=sysfs devices=%zu blocked_readers=%u readers=%u", skipped,
			 ps.blocked, ps.readers);
	st->skip_logged = skipped > 0;
	r = metric_sink_add_u64(sink, FAM_READERS, help_readers, METRIC_GAUGE, METRIC_NO_LABELS,
				ps.readers);
	if (collector_sink_result(r) == 0)
		r = metric_sink_add_u64(sink, FAM_BLOCKED, help_blocked, METRIC_GAUGE,
					METRIC_NO_LABELS, ps.blocked);
	if (collector_sink_result(r) == 0)
		r = metric_sink_add_u64(sink, FAM_SKIPPED, help_skipped, METRIC_COUNTER,
					METRIC_NO_LABELS, st->skipped_total);
	return collector_sink_result(r);
}

static int sysfs_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct sysfs_state *st = state;
	size_t skipped = 0, n_first, n_retry;
	int r;

	r = sysfs_refresh(st, stats);
	if (r < 0)
		return r;
	r = sysfs_publish_netdevs(st);
	if (r < 0)
		return r;
	if (!st->n_jobs)
		sysfs_log_no_devices(st);
	else
		st->no_devices = NO_DEVICES_NONE;
	n_first = jobs_to_run(st, &n_retry);
	sysfs_pool_run(st->pool, st->batch, n_first, clock_mono_ms() + st->device_timeout_ms);
	if (n_retry)
		sysfs_pool_run(st->pool, st->batch + n_first, n_retry,
			       clock_mono_ms() + st->retry_timeout_ms);
	for (size_t i = 0; i < st->n_jobs; i++) {
		int e = device_outcome(st, sink, st->jobs[i], &skipped, stats);

		if (e < 0 && r == 0)
			r = e;
	}
	/* no device, no reader blocked: nothing to say (an empty exposition) */
	if (r == 0 && (st->n_jobs || st->blocked_seen))
		r = emit_pool(st, sink, skipped);
	return r;
}

/* --- set-up ------------------------------------------------------------------ */

uint64_t sysfs_device_timeout_ms(uint64_t flag_ms, uint64_t collector_timeout_ms,
				 uint64_t poll_interval_ms)
{
	/* The collector thread scans and merges besides waiting: half of its
	 * own deadline, or of half the interval (where the poller has none). */
	uint64_t half = collector_timeout_ms / 2;
	uint64_t ms = (collector_timeout_ms ? collector_timeout_ms : poll_interval_ms / 2) / 2;
	uint64_t min = SYSFS_DEVICE_TIMEOUT_MIN_MS;

	if (collector_timeout_ms && half < min)
		min = half ? half : 1;
	if (flag_ms)
		ms = flag_ms;
	else
		ms = ms < min				? min
		     : ms > SYSFS_DEVICE_TIMEOUT_MAX_MS ? SYSFS_DEVICE_TIMEOUT_MAX_MS
							: ms;
	/* the collector as a whole must return within its own deadline */
	if (collector_timeout_ms && ms >= collector_timeout_ms)
		ms = half ? half : 1;
	return ms;
}

uint64_t sysfs_retry_timeout_ms(uint64_t device_timeout_ms)
{
	uint64_t ms = device_timeout_ms / 8;

	if (ms < SYSFS_RETRY_TIMEOUT_MIN_MS)
		ms = SYSFS_RETRY_TIMEOUT_MIN_MS;
	return ms < device_timeout_ms ? ms : device_timeout_ms;
}

/* What each reader thread is given: how to open its netlink socket. */
struct reader_arg {
	nl_transport_open_fn open;
	void *open_data;
	int timeout_ms;
};

static void *reader_new(const void *arg)
{
	const struct reader_arg *a = arg;

	/* NULL (no memory) reads the files: sysfs_hwnl_attach() says no */
	return sysfs_hwnl_new(a->open, a->open_data, a->timeout_ms);
}

static void reader_free(void *reader)
{
	sysfs_hwnl_free(reader);
}

static int default_read(void *data, int root, const char *dir, struct sysfs_file *f, char *buf,
			size_t size)
{
	(void)data;
	return sysfs_file_read(root, dir, f, buf, size);
}

static void set_class_dir(struct sysfs_state *st, const char *root)
{
	if (root) {
		size_t n = strlen(root);

		snprintf(st->class_dir, sizeof(st->class_dir), "%s%s%s", root,
			 n && root[n - 1] == '/' ? "" : "/", SYSFS_IB_CLASS_DIR);
	} else {
		snprintf(st->class_dir, sizeof(st->class_dir), "%s", SYSFS_IB_CLASS_DIR);
	}
}

static void sysfs_free(void *state);

int sysfs_collector_init_with(const struct collector_ctx *ctx, const struct sysfs_seams *seams,
			      void **state)
{
	const uint64_t *flags = ctx->flags;
	const struct reader_arg ra = {
		.open = seams->open_transport,
		.open_data = seams->open_data,
		.timeout_ms = ctx->poll_interval_ms ? (int)(ctx->poll_interval_ms / 2) : 0,
	};
	struct sysfs_pool_cfg pc = {
		.readers = flags ? (unsigned)flags[SYSFS_FLAG_READERS] : SYSFS_READERS_DEFAULT,
		.blocked_max = SYSFS_BLOCKED_READERS_MAX,
		.reader_new = reader_new,
		.reader_free = reader_free,
		.arg = &ra,
		.arg_size = sizeof(ra),
	};
	struct sysfs_state *st;

	/* Nothing is read here: no hardware is not an error, the first
	 * collect() scans. */
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->filter = ctx->filter;
	set_class_dir(st, ctx->sysfs_path);
	st->rescan_interval_s = ctx->rescan_interval_s;
	st->netdev_recheck_s = ctx->rescan_interval_s / 5 < SYSFS_NETDEV_RECHECK_S
				       ? ctx->rescan_interval_s / 5
				       : SYSFS_NETDEV_RECHECK_S;
	st->netdevs = ctx->rdma_netdevs;
	st->fd_reserve = ctx->fd_reserve;
	st->hwnl_path = seams->open_transport != NULL;
	st->device_timeout_ms =
		sysfs_device_timeout_ms(flags ? flags[SYSFS_FLAG_DEVICE_TIMEOUT] : 0,
					ctx->collector_timeout_ms, ctx->poll_interval_ms);
	st->retry_timeout_ms = sysfs_retry_timeout_ms(st->device_timeout_ms);
	st->sh = sysfs_shared_new(ctx->sysfs_fd, seams->read ? seams->read : default_read,
				  seams->read_data);
	st->pool = st->sh ? sysfs_pool_new(&pc) : NULL;
	if (!st->pool) {
		sysfs_free(st);
		return -ENOMEM;
	}
	if (flags && flags[SYSFS_FLAG_DEVICE_TIMEOUT] &&
	    st->device_timeout_ms != flags[SYSFS_FLAG_DEVICE_TIMEOUT])
		log_warn("--collector.sysfs.device-timeout is not below the collector's own "
			 "deadline: using half of that",
			 "collector=sysfs device_timeout_ms=%llu collector_timeout_ms=%llu",
			 (unsigned long long)st->device_timeout_ms,
			 (unsigned long long)ctx->collector_timeout_ms);
	*state = st;
	return 0;
}

/* Netlink describes the running kernel: it matches only the kernel's own sysfs. */
static bool live_sysfs(const char *path)
{
	return path && (strcmp(path, "/sys") == 0 || strcmp(path, "/sys/") == 0);
}

static int sysfs_init(const struct collector_ctx *ctx, void **state)
{
	bool nl = ctx->flags ? ctx->flags[SYSFS_FLAG_HW_COUNTERS_NETLINK] != 0 : true;
	const struct sysfs_seams real = {
		.open_transport = nl && live_sysfs(ctx->sysfs_path) ? nl_socket_open : NULL,
	};

	return sysfs_collector_init_with(ctx, &real, state);
}

static void sysfs_reload(void *state)
{
	struct sysfs_state *st = state;

	if (st)
		__atomic_store_n(&st->reload_requested, 1, __ATOMIC_RELEASE);
}

/* A job whose read still blocks is freed by its thread when the read returns;
 * the process may also end first. */
static void sysfs_free(void *state)
{
	struct sysfs_state *st = state;

	if (!st)
		return;
	for (size_t i = 0; i < st->n_jobs; i++)
		if (st->pool)
			sysfs_job_drop(st, st->jobs[i]);
		else
			sysfs_job_free(st->jobs[i]);
	free(st->jobs);
	free(st->batch);
	sysfs_pool_free(st->pool);
	sysfs_shared_unref(st->sh);
	free(st);
}

static const struct collector_flag sysfs_flags[SYSFS_FLAG_COUNT] = {
	[SYSFS_FLAG_HW_COUNTERS_NETLINK] =
		{
			.name = "hw-counters-netlink",
			.help = "Read each port's hw_counters with one RDMA netlink request "
				"(same values) instead of one read per file, where the kernel "
				"offers it and --path.sysfs is /sys; the files otherwise. "
				"Default on.",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 1,
		},
	[SYSFS_FLAG_DEVICE_TIMEOUT] =
		{
			.name = "device-timeout",
			.help = "How long a poll waits for one device's reads; a device that "
				"takes longer (hung firmware) is reported unresponsive, its "
				"values left out, and not read again until its blocked read "
				"returns. Default: half the poll's deadline for the collector "
				"(--poll.collector-timeout), 500ms to 5s and always below it.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 0,
			.min = 10,
			.max = 3600 * 1000,
		},
	[SYSFS_FLAG_READERS] =
		{
			.name = "readers",
			.help = "Threads that read the devices in parallel, however many "
				"there are; one blocked in an unresponsive device is replaced, "
				"up to 8 blocked. Default 4.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = SYSFS_READERS_DEFAULT,
			.min = 1,
			.max = 64,
			.unit = "threads",
		},
};

const struct collector_ops sysfs_collector_ops = {
	.name = "sysfs",
	.help = "Device and port attributes and all counters under /sys/class/infiniband",
	.default_enabled = true,
	.flags = sysfs_flags,
	.n_flags = SYSFS_FLAG_COUNT,
	.init = sysfs_init,
	.collect = sysfs_collect,
	.reload = sysfs_reload,
	.free = sysfs_free,
};
