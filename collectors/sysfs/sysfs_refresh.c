// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's device list, on the collector thread: which devices
 * there are (class/infiniband, through the device filter), which are scanned
 * again (new, flagged, SIGHUP, the rescan interval) and which are kept as
 * they are after a cheap re-check; the netdevs published for the other
 * collectors; why there is no device, said once.
 */
#include "sysfs_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"

/*
 * The periodic re-check: true when the device is as scanned (its files stay
 * open, its text was re-read), false when it must be scanned again. Ports
 * whose hw counters fell back to the files try netlink again, in the job.
 */
static bool recheck_unchanged(struct sysfs_state *st, struct sysfs_job *job)
{
	if (sysfs_device_refresh(st->sh->root, job->dev) != 0)
		return false;
	log_debug("re-checked device: unchanged, its files stay open", "collector=sysfs device=%s",
		  job->dev->name);
	job->attach_files = true;
	return true;
}

/* Scans one device; logs what the scan could not do. *out NULL when skipped. */
static int scan_one(struct sysfs_state *st, const char *name, bool known, struct sysfs_device **out,
		    struct collector_stats *stats)
{
	struct sysfs_device *dev;
	char eb[128], path[512];
	size_t n_counters;
	int r;

	*out = NULL;
	r = sysfs_device_scan(st->sh->root, name, st->fd_reserve,
			      st->hwnl_path ? SYSFS_SCAN_PORT_HW_DEFERRED : 0, &dev);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* -ENOENT: removed between the listing and the scan. */
		if (r != -ENOENT) {
			stats->read_errors++;
			snprintf(path, sizeof(path), "%s/%s", SYSFS_IB_CLASS_DIR, name);
			log_msg(sysfs_failure_level(st->sh, path), "cannot scan device",
				"collector=sysfs device=%s err=%s errno=%d", name,
				log_strerror(-r, eb, sizeof(eb)), -r);
		}
		return 0;
	}
	if (dev->scan_errors && dev->first_scan_error_path)
		log_msg(sysfs_failure_level(st->sh, dev->first_scan_error_path),
			"cannot list directory",
			"collector=sysfs device=%s path=%s err=%s errno=%d dirs_skipped=%u", name,
			dev->first_scan_error_path,
			log_strerror(-dev->first_scan_error, eb, sizeof(eb)),
			-dev->first_scan_error, dev->scan_errors);
	n_counters = dev->n_counters;
	for (size_t i = 0; i < dev->n_ports; i++)
		n_counters += dev->ports[i].n_counters;
	sysfs_warn_fd_limit(st->sh, dev);
	log_msg(known ? LOG_DEBUG : LOG_INFO, "scanned device",
		"collector=sysfs device=%s ports=%zu counter_files=%zu driver=%s", name,
		dev->n_ports, n_counters, dev->driver);
	*out = dev;
	return 0;
}

/* SIGHUP: every device is scanned again (those whose read blocks once it
 * returns), and the files logged are forgotten. */
static void apply_reload_request(struct sysfs_state *st)
{
	if (!__atomic_exchange_n(&st->reload_requested, 0, __ATOMIC_ACQ_REL))
		return;
	for (size_t i = 0; i < st->n_jobs; i++)
		st->jobs[i]->rescan = true;
	sysfs_shared_forget(st->sh);
	st->scanned = false;
}

/* Whether this poll re-scans every device (first poll, or the rescan interval passed). */
static bool full_rescan_due(struct sysfs_state *st)
{
	double now = clock_mono_s();

	if (st->scanned && now - st->last_scan < st->rescan_interval_s)
		return false;
	st->scanned = true;
	st->last_scan = now;
	return true;
}

static int list_devices(struct sysfs_state *st, char ***names, size_t *n_names)
{
	char eb[128];
	int r;

	r = sysfs_list_devices(st->sh->root, st->filter, names, n_names, &st->listing);
	if (r < 0 && r != -ENOMEM)
		log_msg(sysfs_failure_level(st->sh, SYSFS_IB_CLASS_DIR),
			"cannot list the RDMA devices", "collector=sysfs path=%s err=%s errno=%d",
			st->class_dir, log_strerror(-r, eb, sizeof(eb)), -r);
	return r;
}

/* Drops the job at st->jobs[*j], whose device the listing no longer has. */
static void drop_gone_device(struct sysfs_state *st, size_t *j)
{
	log_info("device is gone", "collector=sysfs device=%s", st->jobs[*j]->dev->name);
	sysfs_job_drop(st, st->jobs[*j]);
	st->jobs[(*j)++] = NULL;
}

/*
 * Whether a port of dev runs over Ethernet (RoCE) and names no netdev yet:
 * rxe and mlx5 fill the GID table (gid_attrs/ndevs) after the device
 * registers, so a scan made at once finds none.
 */
static bool netdev_pending(const struct sysfs_device *dev)
{
	for (size_t i = 0; i < dev->n_ports; i++)
		if (!dev->ports[i].n_netdevs && dev->ports[i].link_layer &&
		    strcmp(dev->ports[i].link_layer, "Ethernet") == 0)
			return true;
	return false;
}

/*
 * Whether the cached device of a job is kept as it is this poll. full: the
 * re-check interval passed. A device still waiting for its netdevs is
 * re-checked five times as often, at most every SYSFS_NETDEV_RECHECK_S, so
 * that the other collectors get its netdev within a minute at the default
 * interval, as before its default went from 1m to 5m.
 */
static bool keep_device(struct sysfs_state *st, struct sysfs_job *job, bool full)
{
	double now = clock_mono_s();

	/* its read still blocks: the device is the job's until it returns */
	if (sysfs_pool_busy(st->pool, &job->task))
		return true;
	if (job->rescan || job->dev->recheck)
		return false;
	if (!full && !(netdev_pending(job->dev) && now - job->checked_s >= st->netdev_recheck_s))
		return true;
	job->checked_s = now;
	return recheck_unchanged(st, job);
}

/*
 * The merge step for one listed name: drops cached devices sorted before it,
 * then keeps its cached device or scans it. *out is NULL when it was not
 * scanned (gone, unreadable). 0 or -ENOMEM.
 */
static int merge_one(struct sysfs_state *st, const char *name, bool full, size_t *j,
		     struct sysfs_job **out, struct collector_stats *stats)
{
	struct sysfs_job *job = NULL;
	struct sysfs_device *dev;
	bool known = false;
	int r;

	*out = NULL;
	while (*j < st->n_jobs && sysfs_name_cmp(st->jobs[*j]->dev->name, name) < 0)
		drop_gone_device(st, j);
	if (*j < st->n_jobs && sysfs_name_cmp(st->jobs[*j]->dev->name, name) == 0) {
		job = st->jobs[*j];
		st->jobs[(*j)++] = NULL;
		if (keep_device(st, job, full)) {
			*out = job;
			return 0;
		}
		/* after a SIGHUP, said at info as for a new device */
		known = !job->rescan;
		job->rescan = false;
		sysfs_device_free(job->dev);
		job->dev = NULL;
	}
	r = scan_one(st, name, known, &dev, stats);
	if (r < 0 || !dev) {
		sysfs_job_drop(st, job);
		return r;
	}
	if (!job && !(job = sysfs_job_new(st, dev))) {
		sysfs_device_free(dev);
		return -ENOMEM;
	}
	job->dev = dev;
	job->attach_all = true;
	job->checked_s = clock_mono_s();
	*out = job;
	return 0;
}

/* Both lists are sorted with sysfs_name_cmp(), so one merge pass does it. */
int sysfs_refresh(struct sysfs_state *st, struct collector_stats *stats)
{
	struct sysfs_job **next = NULL;
	struct sysfs_task **batch = NULL;
	size_t n_names = 0, n_next = 0, j = 0;
	char **names = NULL;
	bool full;
	int r;

	apply_reload_request(st);
	full = full_rescan_due(st);
	r = list_devices(st, &names, &n_names);
	if (r < 0)
		return r;
	if (n_names) {
		next = calloc(n_names, sizeof(*next));
		batch = calloc(n_names, sizeof(*batch));
		if (!next || !batch) {
			free(next);
			free(batch);
			sysfs_names_free(names);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < n_names; i++) {
		r = merge_one(st, names[i], full, &j, &next[n_next], stats);
		if (r < 0)
			goto out;
		if (next[n_next])
			n_next++;
	}
	while (j < st->n_jobs)
		drop_gone_device(st, &j);
	r = 0;
out:
	/* On error, keep what was built; drop the rest of the old list. */
	for (; j < st->n_jobs; j++)
		sysfs_job_drop(st, st->jobs[j]);
	free(st->jobs);
	free(st->batch);
	st->jobs = next;
	st->batch = batch;
	st->n_jobs = n_next;
	sysfs_names_free(names);
	return r;
}

/* A device whose read blocks keeps its netdevs: the reads never change them. */
int sysfs_publish_netdevs(struct sysfs_state *st)
{
	if (!st->netdevs)
		return 0;
	netdev_set_begin(st->netdevs);
	for (size_t i = 0; i < st->n_jobs; i++) {
		const struct sysfs_device *dev = st->jobs[i]->dev;

		for (size_t j = 0; j < dev->n_ports; j++)
			for (size_t k = 0; k < dev->ports[j].n_netdevs; k++)
				if (netdev_set_add(st->netdevs, dev->ports[j].netdevs[k]) < 0)
					return -ENOMEM;
	}
	netdev_set_commit(st->netdevs, ++st->polls);
	return 0;
}

/* Which flag dropped every device: the one that dropped them all, else both. */
static const char *filter_flags(const struct sysfs_listing *l)
{
	if (l->n_not_included == l->n_present)
		return "--collector.device-include";
	if (l->n_excluded == l->n_present)
		return "--collector.device-exclude";
	return "--collector.device-include,--collector.device-exclude";
}

/* With the directory in full and what to do; never once per poll. */
void sysfs_log_no_devices(struct sysfs_state *st)
{
	const struct sysfs_listing *l = &st->listing;
	enum no_devices why;

	if (l->no_class_dir)
		why = NO_DEVICES_NO_DIR;
	else if (l->n_present == 0)
		why = NO_DEVICES_EMPTY_DIR;
	else if (l->n_not_included + l->n_excluded == l->n_present)
		why = NO_DEVICES_FILTERED;
	else
		why = NO_DEVICES_NONE; /* listed but not scanned: logged where it failed */
	if (why == st->no_devices)
		return;
	st->no_devices = why;
	switch (why) {
	case NO_DEVICES_NO_DIR:
		log_info("no RDMA devices: the directory does not exist, no RDMA driver is loaded",
			 "collector=sysfs path=%s hint=%s", st->class_dir,
			 "load the driver modules (modprobe mlx5_ib, irdma, ...) or add a "
			 "Soft-RoCE device (rdma link add rxe0 type rxe netdev eth0)");
		break;
	case NO_DEVICES_FILTERED:
		log_warn("no RDMA devices: every device is filtered out",
			 "collector=sysfs path=%s present=%zu flag=%s", st->class_dir, l->n_present,
			 filter_flags(l));
		break;
	case NO_DEVICES_EMPTY_DIR:
		log_info("no RDMA devices: the directory is empty", "collector=sysfs path=%s",
			 st->class_dir);
		break;
	case NO_DEVICES_NONE:
		break;
	}
}
