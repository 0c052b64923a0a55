// SPDX-License-Identifier: Apache-2.0
/*
 * The read job of one device (struct sysfs_job): made and dropped by the
 * collector thread, run by a reader thread of the pool (sysfs_pool.h) each
 * poll: it maps the ports' hw counters to RDMA netlink when the collector
 * asks, then walks the device (sysfs_walk.c), reading every value. A job
 * given up while its read blocks is freed by its thread when it returns.
 */
#include "sysfs_internal.h"

#include <errno.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/log.h"
#include "sysfs_hwnl.h"

/* Which ports read their hw counters over netlink from now on; said at
 * debug. only_files: just the ports that read the files now. The files of
 * a port netlink serves hold no fd; the others' are open. */
static void attach_hwnl(struct sysfs_job *job, bool only_files)
{
	struct sysfs_device *dev = job->dev;
	const char *missing;
	char eb[128];
	int r;

	for (size_t i = 0; i < dev->n_ports && !sysfs_job_cancelled(job); i++) {
		struct sysfs_port *p = &dev->ports[i];

		if (only_files && p->hw_nl)
			continue;
		r = sysfs_hwnl_attach(job->hwnl, dev, p, &missing);
		if (r == 0) {
			sysfs_port_hw_close(dev, p);
			log_debug("hw_counters via netlink", "collector=sysfs device=%s port=%s",
				  dev->name, p->num_str);
			continue;
		}
		sysfs_hw_files_open(job, p);
		if (r == -ENOENT && missing)
			log_debug("hw_counters via sysfs files",
				  "collector=sysfs device=%s port=%s reason=%s counter=%s",
				  dev->name, p->num_str, "no netlink entry of that name", missing);
		else if (r != -EOPNOTSUPP)
			log_debug("hw_counters via sysfs files",
				  "collector=sysfs device=%s port=%s err=%s errno=%d", dev->name,
				  p->num_str, log_strerror(-r, eb, sizeof(eb)), -r);
	}
}

/* The job of one poll, on a reader thread; reader is its sysfs_hwnl. */
static void job_run(struct sysfs_task *t, void *reader)
{
	struct sysfs_job *job = (struct sysfs_job *)t;
	uint64_t start = clock_mono_ms();

	job->hwnl = reader;
	if (job->attach_all || job->attach_files) {
		attach_hwnl(job, !job->attach_all);
		/* cut short: done again by the next job */
		if (!sysfs_job_cancelled(job))
			job->attach_all = job->attach_files = false;
	}
	job->n_vals = 0;
	job->rc = sysfs_job_cancelled(job) ? -ECANCELED : sysfs_walk_device(job);
	job->hwnl = NULL;
	job->run_ms = clock_mono_ms() - start;
}

void sysfs_job_free(struct sysfs_job *job)
{
	if (!job)
		return;
	sysfs_device_free(job->dev);
	free(job->vals);
	free(job->ok);
	sysfs_shared_unref(job->sh);
	free(job);
}

/* sysfs_task.release: the job was given up while it ran. */
static void job_release(struct sysfs_task *t)
{
	sysfs_job_free((struct sysfs_job *)t);
}

struct sysfs_job *sysfs_job_new(struct sysfs_state *st, struct sysfs_device *dev)
{
	struct sysfs_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->task.run = job_run;
	job->task.release = job_release;
	job->sh = sysfs_shared_ref(st->sh);
	job->dev = dev;
	return job;
}

void sysfs_job_drop(struct sysfs_state *st, struct sysfs_job *job)
{
	if (job)
		sysfs_pool_abandon(st->pool, &job->task);
}
