// SPDX-License-Identifier: Apache-2.0
/*
 * Policy layer of the sysfs collector: decides when to scan, turns file
 * contents into samples, counts skipped values and logs each failing file
 * once at warn (later at debug), so a broken counter does not flood the log
 * every poll.
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
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "sysfs_hwnl.h"
#include "sysfs_parse.h"
#include "sysfs_pcie.h"
#include "sysfs_pool.h"
#include "sysfs_scan.h"

/* Per-poll values are short ("18446744073709551615\n", "100 Gb/sec (4X EDR)\n"),
 * but for the AER files: a line per error type, a page at most. */
#define VALUE_BUF 4096

#define FAM_DEVICE_INFO	   "rdma_device_info"
#define FAM_PORT_INFO	   "rdma_port_info"
#define FAM_PORT_NETDEV	   "rdma_port_netdev_info"
#define FAM_PORT_STATE	   "rdma_port_state"
#define FAM_PORT_PHYS	   "rdma_port_phys_state"
#define FAM_PORT_RATE	   "rdma_port_rate_bytes_per_second"
#define FAM_PORT_LID	   "rdma_port_lid"
#define FAM_PORT_SM_LID	   "rdma_port_sm_lid"
#define FAM_PORT_SM_SL	   "rdma_port_sm_sl"
#define FAM_PORT_COUNTER   "rdma_port_statistic_total"
#define FAM_DEVICE_COUNTER "rdma_device_statistic_total"

static const char help_device_info[] =
	"RDMA device attributes from sysfs (node_type CA, RNIC, unspecified, ...; driver is "
	"the kernel driver of the parent device, empty for software devices); always 1.";
static const char help_port_info[] =
	"RDMA port link layer (InfiniBand, Ethernet for RoCE, ...); always 1.";
static const char help_port_netdev[] =
	"Network device bound to the RDMA port, from gid_attrs/ndevs (RoCE, iWARP); always 1.";
static const char help_port_state[] =
	"Logical port state (IB PortState): 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, "
	"5 ACTIVE_DEFER.";
static const char help_port_phys[] =
	"Physical port state (IB PortPhysicalState): 0 no state change, 1 Sleep, 2 Polling, "
	"3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, 7 Phy Test.";
static const char help_port_rate[] =
	"Port data rate in bytes per second (sysfs rate in Gb/s * 10^9 / 8; width x lane speed).";
static const char help_port_lid[] = "Local identifier (LID) of the port; InfiniBand only.";
static const char help_port_sm_lid[] =
	"LID of the subnet manager the port reports to; InfiniBand only.";
/* drivers/infiniband/core/sysfs.c, sm_sl_show() (Linux 6.x): "%u\n" of ib_port_attr.sm_sl. */
static const char help_port_sm_sl[] =
	"Service level (SL) the port uses to reach its subnet manager; InfiniBand only.";
static const char help_port_counter[] =
	"Port counter file without a well-known name (or shadowed by a wider one), raw value "
	"as read; source is the directory: counters, counters_ext or hw_counters.";
static const char help_device_counter[] =
	"Device-level hw_counters file without a well-known name, raw value as read.";

typedef int (*value_parser)(const char *s, size_t len, uint64_t *out);

/* Named after the generic family rdma_port_statistic_total{counter}: issue
 * 32's name had "_counter_" in it, which promtool check metrics' lint refuses
 * (a type in the name), and users run that lint on our output in their CI
 * (issue 40 renamed it; CHANGELOG.md has the old name). */
#define FAM_SATURATED "rdma_port_statistic_saturated"

static const char help_saturated[] =
	"1 while an IB PMA counter of counters/ is at the maximum of its width (it saturates: "
	"stops there and rate() reads 0 while errors go on; 8, 16 or 32 bits, or 4 for "
	"local_link_integrity_errors and excessive_buffer_overrun_errors); no series while "
	"it is below. Only for narrow counters exported under their named family; a 64 bit "
	"source (counters_ext/, PortCountersExtended) has none.";

/* clang-format off */
/* The PCIe link families: one per link attribute file. */
struct pcie_family {
	const char *family, *help;
	value_parser parse;
};

/* The device's own link (<dev>/device/). */
static const struct pcie_family pcie_device_fam[SYSFS_PCIE_LINK_FILES] = {
	[SYSFS_PCIE_SPEED] = {
		"rdma_device_pcie_link_speed_transfers_per_second",
		"Speed of the device's PCIe link in transfers per second (device/current_link_speed; "
		"\"16.0 GT/s PCIe\" is 16e9; 0 when the kernel says Unknown: link down).",
		sysfs_parse_pcie_speed,
	},
	[SYSFS_PCIE_MAX_SPEED] = {
		"rdma_device_pcie_link_max_speed_transfers_per_second",
		"Highest PCIe link speed the device supports in transfers per second "
		"(device/max_link_speed; 0: Unknown).",
		sysfs_parse_pcie_speed,
	},
	[SYSFS_PCIE_WIDTH] = {
		"rdma_device_pcie_link_width",
		"Lanes the device's PCIe link trained at (device/current_link_width; 0: link down).",
		sysfs_parse_pcie_width,
	},
	[SYSFS_PCIE_MAX_WIDTH] = {
		"rdma_device_pcie_link_max_width",
		"Most lanes the device's PCIe link supports (device/max_link_width).",
		sysfs_parse_pcie_width,
	},
};

/* bridge="parent" (device/..: only its maxima, its current link is the
 * device's own) and "switch_upstream" (device/../..): one family per
 * attribute with a bridge label. */
static const struct pcie_family pcie_bridge_fam[SYSFS_PCIE_LINK_FILES] = {
	[SYSFS_PCIE_SPEED] = {
		"rdma_device_pcie_upstream_link_speed_transfers_per_second",
		"Speed of the link of the PCIe switch the device sits behind, towards the host, "
		"in transfers per second (bridge switch_upstream: the switch's upstream port, "
		"current_link_speed).",
		sysfs_parse_pcie_speed,
	},
	[SYSFS_PCIE_MAX_SPEED] = {
		"rdma_device_pcie_upstream_link_max_speed_transfers_per_second",
		"Highest link speed a PCIe bridge port above the device supports in transfers per "
		"second (max_link_speed): bridge parent is the root or switch downstream port the "
		"device hangs off (the other end of the device's own link), switch_upstream the "
		"switch's upstream port.",
		sysfs_parse_pcie_speed,
	},
	[SYSFS_PCIE_WIDTH] = {
		"rdma_device_pcie_upstream_link_width",
		"Lanes the link of the PCIe switch the device sits behind trained at, towards the "
		"host (bridge switch_upstream, current_link_width).",
		sysfs_parse_pcie_width,
	},
	[SYSFS_PCIE_MAX_WIDTH] = {
		"rdma_device_pcie_upstream_link_max_width",
		"Most lanes a PCIe bridge port above the device supports (max_link_width; bridge "
		"parent or switch_upstream, as for the max speed).",
		sysfs_parse_pcie_width,
	},
};

/* clang-format on */

static const char *const pcie_bridge_name[SYSFS_PCIE_LINKS] = {
	[SYSFS_PCIE_PARENT] = "parent",
	[SYSFS_PCIE_SWITCH_UPSTREAM] = "switch_upstream",
};

#define FAM_PCIE_ERRORS "rdma_device_pcie_errors_total"

static const char help_pcie_errors[] =
	"PCIe AER errors the device reported since boot, per severity (correctable, nonfatal, "
	"fatal) and type as the kernel names them (RxErr, BadTLP, CmpltTO, ...), from "
	"device/aer_dev_correctable, aer_dev_nonfatal and aer_dev_fatal; their TOTAL lines "
	"are left out. A type appears from its first error on.";

static const char *const aer_severity[SYSFS_AER_FILES] = {
	[SYSFS_AER_CORRECTABLE] = "correctable",
	[SYSFS_AER_NONFATAL] = "nonfatal",
	[SYSFS_AER_FATAL] = "fatal",
};

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
	sysfs_read_fn read;
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

/* --- the log-once table, shared by the jobs ------------------------------ */

static int warned_find(const struct sysfs_shared *sh, const char *path, size_t *pos)
{
	size_t lo = 0, hi = sh->n_warned;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sh->warned[mid], path);

		if (c == 0) {
			*pos = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return 0;
}

/* Under the lock: true the first time a path is seen. */
static bool first_failure_locked(struct sysfs_shared *sh, const char *path)
{
	size_t pos;
	char *copy;

	if (warned_find(sh, path, &pos))
		return false;
	if (sh->n_warned == sh->cap_warned) {
		size_t ncap = sh->cap_warned ? sh->cap_warned * 2 : 32;
		char **n = realloc(sh->warned, ncap * sizeof(*n));

		if (!n)
			return true;
		sh->warned = n;
		sh->cap_warned = ncap;
	}
	copy = strdup(path);
	if (!copy)
		return true;
	memmove(&sh->warned[pos + 1], &sh->warned[pos], (sh->n_warned - pos) * sizeof(char *));
	sh->warned[pos] = copy;
	sh->n_warned++;
	return true;
}

/* The level of a failure's line: warn the first time a path fails, later debug. */
static int failure_level(struct sysfs_shared *sh, const char *path)
{
	bool first;

	pthread_mutex_lock(&sh->lock);
	first = first_failure_locked(sh, path);
	pthread_mutex_unlock(&sh->lock);
	return first ? LOG_WARNING : LOG_DEBUG;
}

/* Under the lock. */
static void warned_clear(struct sysfs_shared *sh)
{
	for (size_t i = 0; i < sh->n_warned; i++)
		free(sh->warned[i]);
	free(sh->warned);
	sh->warned = NULL;
	sh->n_warned = sh->cap_warned = 0;
}

static void shared_unref(struct sysfs_shared *sh)
{
	if (!sh || __atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	warned_clear(sh);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

static struct sysfs_shared *shared_ref(struct sysfs_shared *sh)
{
	__atomic_add_fetch(&sh->refs, 1, __ATOMIC_RELAXED);
	return sh;
}

/* --- one device: read by its job (a reader thread), emitted by the collector */

/* The job's deadline passed: nothing it does now is used, so it stops at the
 * next file (each read of a hung device would block again). */
static bool cancelled(const struct sysfs_job *job)
{
	return sysfs_task_cancelled(&job->task);
}

static void log_skip(struct sysfs_job *job, const char *port, const char *path, const char *what,
		     int err)
{
	char eb[128];

	log_msg(failure_level(job->sh, path), "skipping value",
		"collector=sysfs device=%s port=%s path=%s reason=%s err=%s errno=%d",
		job->dev->name, port ? port : "-", path, what, log_strerror(-err, eb, sizeof(eb)),
		-err);
}

/*
 * A file that gave no value: err from parsing its content (read_ok) or from
 * reading it. Counted and logged here, with the path built for the line.
 */
static void value_failed(struct sysfs_job *job, const char *port, const char *dir,
			 const struct sysfs_file *f, int err, bool read_ok)
{
	struct sysfs_device *dev = job->dev;
	char path[PATH_MAX];

	job->stats.read_errors++;
	sysfs_file_path(dir, f, path, sizeof(path));
	if (read_ok && err == -ENODATA) {
		/* "N/A (no PMA)": normal for iWARP devices, for every counter
		 * file: said once per device at info, not once per file. */
		if (!dev->no_pma_logged)
			log_info("counters read N/A (no PMA): skipped and counted in "
				 "read_errors_total",
				 "collector=sysfs device=%s reason=%s", dev->name,
				 "no Performance Management Agent, normal for iWARP");
		dev->no_pma_logged = true;
		log_debug("skipping value", "collector=sysfs device=%s port=%s path=%s reason=%s",
			  dev->name, port ? port : "-", path, "N/A");
		return;
	}
	if (read_ok) {
		log_skip(job, port, path, "unparsable content", err);
		return;
	}
	/* ENODEV: the device behind a kept fd is gone (unplugged, or
	 * unregistered and registered again under the same name); ENOENT on a
	 * file that existed at scan time: it went away. Either way, look again
	 * next poll, and say so once rather than once per file. */
	if (err == -ENODEV || (err == -ENOENT && !f->absent)) {
		if (!dev->recheck)
			log_info("device reads fail (removed or re-registered); re-scanning it at "
				 "the next poll",
				 "collector=sysfs device=%s errno=%d", dev->name, -err);
		dev->recheck = true;
		log_debug("skipping value",
			  "collector=sysfs device=%s port=%s path=%s reason=%s errno=%d", dev->name,
			  port ? port : "-", path, "read failed", -err);
		return;
	}
	log_skip(job, port, path, "read failed", err);
}

/*
 * Reads and parses file f of directory dir; a failure is counted and logged.
 * -ECANCELED: the deadline passed during the read (nothing more is read).
 */
static int read_value(struct sysfs_job *job, const char *port, const char *dir,
		      struct sysfs_file *f, value_parser parse, uint64_t *out)
{
	int n, r;

	n = job->sh->read(job->sh->read_data, job->sh->root, dir, f, job->buf, sizeof(job->buf));
	if (cancelled(job))
		return -ECANCELED;
	if (n < 0) {
		value_failed(job, port, dir, f, n, false);
		return n;
	}
	r = parse(job->buf, (size_t)n, out);
	if (r < 0)
		value_failed(job, port, dir, f, r, true);
	return r;
}

/* The job's pass: keeps value v (ok: it was read) at the next position. */
static int keep_value(struct sysfs_job *job, uint64_t v, bool ok)
{
	if (job->n_vals == job->cap_vals) {
		size_t ncap = job->cap_vals ? job->cap_vals * 2 : 64;
		uint64_t *nv = realloc(job->vals, ncap * sizeof(*nv));
		bool *nok;

		if (!nv)
			return -ENOMEM;
		job->vals = nv;
		nok = realloc(job->ok, ncap * sizeof(*nok));
		if (!nok)
			return -ENOMEM;
		job->ok = nok;
		job->cap_vals = ncap;
	}
	job->vals[job->n_vals] = v;
	job->ok[job->n_vals++] = ok;
	return 0;
}

/*
 * The value at the walk's position. The job's pass reads file f of directory
 * dir (a failure is counted and logged there) and keeps it; the collector's
 * pass takes what was kept. 0 with *out, or < 0: no value. -ECANCELED and
 * -ENOMEM end the job's pass.
 */
static int walk_value(struct sysfs_job *job, const char *port, const char *dir,
		      struct sysfs_file *f, value_parser parse, uint64_t *out)
{
	size_t i = job->pos++;
	int r;

	if (job->emitting) {
		if (i >= job->n_vals || !job->ok[i])
			return -ENODATA;
		*out = job->vals[i];
		return 0;
	}
	r = read_value(job, port, dir, f, parse, out);
	if (r == -ECANCELED)
		return r;
	return keep_value(job, r == 0 ? *out : 0, r == 0) < 0 ? -ENOMEM : r;
}

/* After a value that is not there: skipped (0), unless the job's pass must
 * end (the deadline passed, no memory). */
static int value_result(int r)
{
	return r == -ECANCELED || r == -ENOMEM ? r : 0;
}

/*
 * The labels of a port's samples, {device, port} ({device} with p NULL),
 * rendered by the exposition writer at the first sample and kept with the
 * scan: nearly every sample of a poll carries them, and rendering them per
 * sample was a third of this thread's CPU. Collector thread only. NULL
 * without memory: the caller renders them as any other label set.
 */
static const char *port_labels(struct sysfs_device *dev, struct sysfs_port *p)
{
	char **kept = p ? &p->labels : &dev->labels;

	if (*kept)
		return *kept;
	if (p)
		metric_labels_render(METRIC_LABELS({"device", dev->name}, {"port", p->num_str}),
				     kept);
	else
		metric_labels_render(METRIC_LABELS({"device", dev->name}), kept);
	return *kept;
}

/* A sample labelled {device, port} ({device} with p NULL), as port_labels(). */
static int add_port_u64(struct metric_sink *sink, struct sysfs_device *dev, struct sysfs_port *p,
			const char *family, const char *help, enum metric_type type, uint64_t v)
{
	const char *labels = port_labels(dev, p);

	if (labels)
		return metric_sink_add_u64_rendered(sink, family, help, type, labels, v);
	if (p)
		return metric_sink_add_u64(
			sink, family, help, type,
			METRIC_LABELS({"device", dev->name}, {"port", p->num_str}), v);
	return metric_sink_add_u64(sink, family, help, type, METRIC_LABELS({"device", dev->name}),
				   v);
}

static int walk_port_value(struct sysfs_job *job, struct sysfs_port *p, struct sysfs_file *f,
			   value_parser parse, const char *family, const char *help)
{
	uint64_t v;
	int r = walk_value(job, p->num_str, p->dir, f, parse, &v);

	if (r < 0 || !job->emitting)
		return value_result(r);
	return collector_sink_result(
		add_port_u64(job->sink, job->dev, p, family, help, METRIC_GAUGE, v));
}

static const char *source_name(unsigned source)
{
	switch (source) {
	case SYSFS_SRC_COUNTERS:
		return "counters";
	case SYSFS_SRC_COUNTERS_EXT:
		return "counters_ext";
	default:
		return "hw_counters";
	}
}

/* A narrow PMA counter (sysfs_counter_max): whether raw value v is at its maximum. */
static int emit_saturated(struct sysfs_job *job, struct sysfs_port *p, struct sysfs_counter *c,
			  uint64_t v)
{
	uint64_t max = sysfs_counter_max(c->known, c->source, p->pma_ext);

	/* only while saturated: 13 series a port, 0 for life on most, would
	 * cost a node of 8 ports 104 series (issue 31's budget is 1,500) */
	if (!max || v < max)
		return 0;
	return collector_sink_result(
		metric_sink_add_u64(job->sink, FAM_SATURATED, help_saturated, METRIC_GAUGE,
				    METRIC_LABELS({"device", job->dev->name}, {"port", p->num_str},
						  {"counter", c->file.name}),
				    v >= max));
}

/* port NULL: a device-level counter. v is its raw value, from the file or netlink. */
static int emit_counter_value(struct sysfs_job *job, struct sysfs_port *p, struct sysfs_counter *c,
			      uint64_t v)
{
	struct sysfs_device *dev = job->dev;
	struct metric_sink *sink = job->sink;
	const char *port = p ? p->num_str : NULL;
	uint64_t scaled;
	int r;

	if (!c->known) {
		if (p)
			r = metric_sink_add_u64(sink, FAM_PORT_COUNTER, help_port_counter,
						METRIC_COUNTER,
						METRIC_LABELS({"device", dev->name}, {"port", port},
							      {"source", source_name(c->source)},
							      {"counter", c->file.name}),
						v);
		else
			r = metric_sink_add_u64(sink, FAM_DEVICE_COUNTER, help_device_counter,
						METRIC_COUNTER,
						METRIC_LABELS({"device", dev->name},
							      {"source", source_name(c->source)},
							      {"counter", c->file.name}),
						v);
		return collector_sink_result(r);
	}
	/* e.g. PortXmitData counts octets divided by 4 */
	if (__builtin_mul_overflow(v, (uint64_t)(c->known->multiplier ? c->known->multiplier : 1),
				   &scaled)) {
		char path[PATH_MAX];

		job->stats.read_errors++;
		sysfs_file_path(sysfs_counter_dir(dev, p, c), &c->file, path, sizeof(path));
		log_skip(job, port, path, "value * multiplier", -ERANGE);
		return 0;
	}
	r = add_port_u64(sink, dev, p, c->known->metric, c->known->help, c->known->type, scaled);
	if (collector_sink_result(r) < 0 || !p)
		return collector_sink_result(r);
	return emit_saturated(job, p, c, v);
}

/* from_nl (the job's pass): a hw_counters file's value comes from the port's
 * STAT_GET reply. */
static int walk_counter(struct sysfs_job *job, struct sysfs_port *p, struct sysfs_counter *c,
			bool from_nl)
{
	uint64_t v;
	int r;

	if (from_nl && c->source == SYSFS_SRC_HW_COUNTERS && !job->emitting) {
		job->pos++;
		return keep_value(job, sysfs_hwnl_value(job->hwnl, c), true);
	}
	r = walk_value(job, p ? p->num_str : NULL, sysfs_counter_dir(job->dev, p, c), &c->file,
		       sysfs_parse_counter, &v);
	if (r < 0 || !job->emitting)
		return value_result(r);
	return emit_counter_value(job, p, c, v);
}

/* Files that fell back to an open per read: said once, at warn. */
static void warn_fd_limit(struct sysfs_shared *sh, const struct sysfs_device *dev)
{
	bool first;

	if (!dev->n_reopen_each)
		return;
	pthread_mutex_lock(&sh->lock);
	first = !sh->warned_emfile;
	sh->warned_emfile = true;
	pthread_mutex_unlock(&sh->lock);
	if (first)
		log_warn("file descriptor limit reached: files fall back to open+read+close per "
			 "poll (slower); raise LimitNOFILE",
			 "collector=sysfs device=%s files=%u", dev->name, dev->n_reopen_each);
}

/* The port's hw counters come from the files again: open them (no fd was
 * held while netlink served them). */
static void hw_files_open(struct sysfs_job *job, struct sysfs_port *p)
{
	/* A file left deferred is read with an open per read: nothing lost. */
	(void)sysfs_port_hw_open(job->sh->root, job->dev, p);
	warn_fd_limit(job->sh, job->dev);
}

/*
 * The port's hw counters in one netlink request. A failure keeps the poll
 * on the files, and the port on them until the next scan: said once.
 */
static bool poll_hwnl(struct sysfs_job *job, struct sysfs_port *p)
{
	char eb[128];
	int r;

	if (!p->hw_nl)
		return false;
	r = sysfs_hwnl_poll(job->hwnl, job->dev, p);
	if (r == 0 || cancelled(job))
		return r == 0;
	p->hw_nl = false;
	log_info("hw_counters netlink request failed: reading the files until the next rescan",
		 "collector=sysfs device=%s port=%s err=%s errno=%d", job->dev->name, p->num_str,
		 log_strerror(-r, eb, sizeof(eb)), -r);
	hw_files_open(job, p);
	return false;
}

static int walk_port_values(struct sysfs_job *job, struct sysfs_port *p)
{
	int r;

	r = walk_port_value(job, p, &p->state, sysfs_parse_port_state, FAM_PORT_STATE,
			    help_port_state);
	if (r < 0)
		return r;
	r = walk_port_value(job, p, &p->phys_state, sysfs_parse_phys_state, FAM_PORT_PHYS,
			    help_port_phys);
	if (r < 0)
		return r;
	r = walk_port_value(job, p, &p->rate, sysfs_parse_rate, FAM_PORT_RATE, help_port_rate);
	if (r < 0)
		return r;
	if (p->lid.name) {
		r = walk_port_value(job, p, &p->lid, sysfs_parse_lid, FAM_PORT_LID, help_port_lid);
		if (r < 0)
			return r;
	}
	if (p->sm_lid.name) {
		r = walk_port_value(job, p, &p->sm_lid, sysfs_parse_lid, FAM_PORT_SM_LID,
				    help_port_sm_lid);
		if (r < 0)
			return r;
	}
	/* a small decimal number: the LID parser reads it (decimal accepted) */
	if (p->sm_sl.name)
		r = walk_port_value(job, p, &p->sm_sl, sysfs_parse_lid, FAM_PORT_SM_SL,
				    help_port_sm_sl);
	return r;
}

/* The port's scan-time samples: its link layer and netdevs. */
static int emit_port_info(struct metric_sink *sink, const struct sysfs_device *dev,
			  const struct sysfs_port *p)
{
	int r;

	r = metric_sink_add_u64(sink, FAM_PORT_INFO, help_port_info, METRIC_GAUGE,
				METRIC_LABELS({"device", dev->name}, {"port", p->num_str},
					      {"link_layer", p->link_layer}),
				1);
	if ((r = collector_sink_result(r)) < 0)
		return r;
	for (size_t i = 0; i < p->n_netdevs; i++) {
		r = metric_sink_add_u64(sink, FAM_PORT_NETDEV, help_port_netdev, METRIC_GAUGE,
					METRIC_LABELS({"device", dev->name}, {"port", p->num_str},
						      {"netdev", p->netdevs[i]}),
					1);
		if ((r = collector_sink_result(r)) < 0)
			return r;
	}
	return 0;
}

static int walk_port(struct sysfs_job *job, struct sysfs_port *p)
{
	bool from_nl = false;
	int r;

	if (job->emitting && (r = emit_port_info(job->sink, job->dev, p)) < 0)
		return r;
	r = walk_port_values(job, p);
	if (r < 0)
		return r;
	if (!job->emitting) {
		from_nl = poll_hwnl(job, p);
		if (cancelled(job))
			return -ECANCELED;
	}
	for (size_t i = 0; i < p->n_counters; i++) {
		r = walk_counter(job, p, &p->counters[i], from_nl);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The device's attributes, read at scan time. */
static int emit_device_info(struct metric_sink *sink, const struct sysfs_device *dev)
{
	return collector_sink_result(metric_sink_add_u64(
		sink, FAM_DEVICE_INFO, help_device_info, METRIC_GAUGE,
		METRIC_LABELS({"device", dev->name}, {"node_type", dev->node_type},
			      {"hca_type", dev->hca_type}, {"board_id", dev->board_id},
			      {"fw_ver", dev->fw_ver}, {"node_guid", dev->node_guid},
			      {"sys_image_guid", dev->sys_image_guid}, {"driver", dev->driver}),
		1));
}

/*
 * What is known of a device without reading it, for one whose reads did not
 * finish: its attributes and ports as scanned (not read again each poll), so
 * that it stays in the inventory while its values are left out. Called while
 * its job may still run: those fields are never written then.
 */
static int emit_scanned(struct metric_sink *sink, const struct sysfs_device *dev)
{
	int r = emit_device_info(sink, dev);

	for (size_t i = 0; i < dev->n_ports && r == 0; i++)
		r = emit_port_info(sink, dev, &dev->ports[i]);
	return r;
}

/* One link attribute of the device (pos SYSFS_PCIE_DEVICE) or of a bridge above it. */
static int walk_pcie_value(struct sysfs_job *job, struct sysfs_pcie_link *l,
			   enum sysfs_pcie_link_pos pos, size_t k)
{
	const struct pcie_family *f =
		pos == SYSFS_PCIE_DEVICE ? &pcie_device_fam[k] : &pcie_bridge_fam[k];
	uint64_t v;
	int r;

	r = walk_value(job, NULL, l->dir, &l->files[k], f->parse, &v);
	if (r < 0 || !job->emitting)
		return value_result(r);
	if (pos == SYSFS_PCIE_DEVICE)
		r = metric_sink_add_u64(job->sink, f->family, f->help, METRIC_GAUGE,
					METRIC_LABELS({"device", job->dev->name}), v);
	else
		r = metric_sink_add_u64(job->sink, f->family, f->help, METRIC_GAUGE,
					METRIC_LABELS({"device", job->dev->name},
						      {"bridge", pcie_bridge_name[pos]}),
					v);
	return collector_sink_result(r);
}

/*
 * The job's pass over an AER file: one read, then a value per error type the
 * scan found, in its order (a type the file no longer lists has none). A
 * file that cannot be read or parsed is one failure, logged once.
 */
static int read_aer(struct sysfs_job *job, const char *dir, struct sysfs_aer *a)
{
	struct sysfs_aer_entry e[SYSFS_AER_MAX_TYPES];
	size_t n = 0;
	int len, r;

	len = job->sh->read(job->sh->read_data, job->sh->root, dir, &a->file, job->buf,
			    sizeof(job->buf));
	if (cancelled(job))
		return -ECANCELED;
	if (len < 0)
		value_failed(job, NULL, dir, &a->file, len, false);
	r = len < 0 ? len : sysfs_parse_aer(job->buf, (size_t)len, e, SYSFS_AER_MAX_TYPES, &n);
	if (len >= 0 && r < 0)
		value_failed(job, NULL, dir, &a->file, r, true);
	for (size_t i = 0; i < a->n_types; i++) {
		const struct sysfs_aer_entry *x =
			r < 0 ? NULL : sysfs_aer_find(e, n, i, a->types[i], strlen(a->types[i]));

		job->pos++;
		if (keep_value(job, x ? x->count : 0, x != NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int emit_aer(struct sysfs_job *job, struct sysfs_aer *a, enum sysfs_aer_severity sev)
{
	for (size_t i = 0; i < a->n_types; i++) {
		size_t k = job->pos++;
		int r;

		/* a type's series starts at its first error: 44 types a device,
		 * zero for life on a healthy one, would be most of a node's series */
		if (k >= job->n_vals || !job->ok[k] || !job->vals[k])
			continue;
		r = metric_sink_add_u64(
			job->sink, FAM_PCIE_ERRORS, help_pcie_errors, METRIC_COUNTER,
			METRIC_LABELS({"device", job->dev->name}, {"severity", aer_severity[sev]},
				      {"type", a->types[i]}),
			job->vals[k]);
		if (collector_sink_result(r) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The device's PCIe link, the bridges' above it and its AER counters. */
static int walk_pcie(struct sysfs_job *job)
{
	struct sysfs_pcie *pcie = job->dev->pcie;
	char devdir[PATH_MAX];
	int r;

	if (!pcie)
		return 0;
	for (size_t i = 0; i < SYSFS_PCIE_LINKS; i++) {
		struct sysfs_pcie_link *l = &pcie->link[i];

		if (!l->dir)
			continue;
		for (size_t k = 0; k < SYSFS_PCIE_LINK_FILES; k++) {
			if (!l->files[k].name)
				continue;
			r = walk_pcie_value(job, l, (enum sysfs_pcie_link_pos)i, k);
			if (r < 0)
				return r;
		}
	}
	snprintf(devdir, sizeof(devdir), "%s/%s/device", SYSFS_IB_CLASS_DIR, job->dev->name);
	for (size_t i = 0; i < SYSFS_AER_FILES; i++) {
		struct sysfs_aer *a = &pcie->aer[i];

		if (!a->file.name)
			continue;
		r = job->emitting ? emit_aer(job, a, (enum sysfs_aer_severity)i)
				  : read_aer(job, devdir, a);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * One pass over the device: the job's (reads every value, emitting nothing)
 * or the collector's (emits the samples of the values read), in one order.
 */
static int walk_device(struct sysfs_job *job)
{
	struct sysfs_device *dev = job->dev;
	int r;

	job->pos = 0;
	if (job->emitting && (r = emit_device_info(job->sink, dev)) < 0)
		return r;
	for (size_t i = 0; i < dev->n_ports; i++) {
		r = walk_port(job, &dev->ports[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < dev->n_counters; i++) {
		r = walk_counter(job, NULL, &dev->counters[i], false);
		if (r < 0)
			return r;
	}
	r = walk_pcie(job);
	if (r < 0)
		return r;
	/* Directories that could not be listed hide values: count them every
	 * poll, as the values they hold would have been. */
	if (job->emitting)
		job->stats.read_errors += dev->scan_errors;
	return 0;
}

/* Which ports read their hw counters over netlink from now on; said at
 * debug. only_files: just the ports that read the files now. The files of
 * a port netlink serves hold no fd; the others' are open. */
static void attach_hwnl(struct sysfs_job *job, bool only_files)
{
	struct sysfs_device *dev = job->dev;
	const char *missing;
	char eb[128];
	int r;

	for (size_t i = 0; i < dev->n_ports && !cancelled(job); i++) {
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
		hw_files_open(job, p);
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
		if (!cancelled(job))
			job->attach_all = job->attach_files = false;
	}
	job->n_vals = 0;
	job->rc = cancelled(job) ? -ECANCELED : walk_device(job);
	job->hwnl = NULL;
	job->run_ms = clock_mono_ms() - start;
}

static void job_free(struct sysfs_job *job)
{
	if (!job)
		return;
	sysfs_device_free(job->dev);
	free(job->vals);
	free(job->ok);
	shared_unref(job->sh);
	free(job);
}

/* sysfs_task.release: the job was given up while it ran. */
static void job_release(struct sysfs_task *t)
{
	job_free((struct sysfs_job *)t);
}

static struct sysfs_job *job_new(struct sysfs_state *st, struct sysfs_device *dev)
{
	struct sysfs_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->task.run = job_run;
	job->task.release = job_release;
	job->sh = shared_ref(st->sh);
	job->dev = dev;
	return job;
}

/* Frees the job now, or, while its thread is blocked in it, when it returns. */
static void job_drop(struct sysfs_state *st, struct sysfs_job *job)
{
	if (job)
		sysfs_pool_abandon(st->pool, &job->task);
}

/* --- the device list: on the collector thread ------------------------------ */

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
			log_msg(failure_level(st->sh, path), "cannot scan device",
				"collector=sysfs device=%s err=%s errno=%d", name,
				log_strerror(-r, eb, sizeof(eb)), -r);
		}
		return 0;
	}
	if (dev->scan_errors && dev->first_scan_error_path)
		log_msg(failure_level(st->sh, dev->first_scan_error_path), "cannot list directory",
			"collector=sysfs device=%s path=%s err=%s errno=%d dirs_skipped=%u", name,
			dev->first_scan_error_path,
			log_strerror(-dev->first_scan_error, eb, sizeof(eb)),
			-dev->first_scan_error, dev->scan_errors);
	n_counters = dev->n_counters;
	for (size_t i = 0; i < dev->n_ports; i++)
		n_counters += dev->ports[i].n_counters;
	warn_fd_limit(st->sh, dev);
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
	pthread_mutex_lock(&st->sh->lock);
	warned_clear(st->sh);
	st->sh->warned_emfile = false;
	pthread_mutex_unlock(&st->sh->lock);
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
		log_msg(failure_level(st->sh, SYSFS_IB_CLASS_DIR), "cannot list the RDMA devices",
			"collector=sysfs path=%s err=%s errno=%d", st->class_dir,
			log_strerror(-r, eb, sizeof(eb)), -r);
	return r;
}

/* Drops the job at st->jobs[*j], whose device the listing no longer has. */
static void drop_gone_device(struct sysfs_state *st, size_t *j)
{
	log_info("device is gone", "collector=sysfs device=%s", st->jobs[*j]->dev->name);
	job_drop(st, st->jobs[*j]);
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
		job_drop(st, job);
		return r;
	}
	if (!job && !(job = job_new(st, dev))) {
		sysfs_device_free(dev);
		return -ENOMEM;
	}
	job->dev = dev;
	job->attach_all = true;
	job->checked_s = clock_mono_s();
	*out = job;
	return 0;
}

/*
 * Brings the cached devices in line with class/infiniband: new names are
 * scanned, vanished ones freed, flagged ones re-scanned. Both lists are
 * sorted with sysfs_name_cmp(), so one merge pass does it.
 */
static int refresh(struct sysfs_state *st, struct collector_stats *stats)
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
		job_drop(st, st->jobs[j]);
	free(st->jobs);
	free(st->batch);
	st->jobs = next;
	st->batch = batch;
	st->n_jobs = n_next;
	sysfs_names_free(names);
	return r;
}

/* The netdevs of every RDMA port, for the collectors after this one. A device
 * whose read blocks keeps its netdevs: the reads never change them. */
static int publish_netdevs(struct sysfs_state *st)
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

/*
 * No device to report: says why, with the directory in full and what to do,
 * once, and again only when the reason changes (never once per poll).
 */
static void log_no_devices(struct sysfs_state *st)
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

	for (int pass = 0; pass < 3; pass++) {
		if (pass == 2)
			first = n;
		for (size_t i = 0; i < st->n_jobs; i++) {
			struct sysfs_job *job = st->jobs[i];
			int want = !job->unresponsive			 ? 0
				   : job->run_ms < st->device_timeout_ms ? 1
									 : 2;

			if (want != pass)
				continue;
			job->blocked = sysfs_pool_busy(st->pool, &job->task);
			if (job->blocked)
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
	r = walk_device(job);
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
		r = emit_scanned(sink, job->dev);
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

	r = refresh(st, stats);
	if (r < 0)
		return r;
	r = publish_netdevs(st);
	if (r < 0)
		return r;
	if (!st->n_jobs)
		log_no_devices(st);
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

static struct sysfs_shared *shared_new(int root, const struct sysfs_seams *seams)
{
	struct sysfs_shared *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->refs = 1;
	sh->root = root;
	sh->read = seams->read ? seams->read : default_read;
	sh->read_data = seams->read_data;
	pthread_mutex_init(&sh->lock, NULL);
	return sh;
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
	st->sh = shared_new(ctx->sysfs_fd, seams);
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
			job_drop(st, st->jobs[i]);
		else
			job_free(st->jobs[i]);
	free(st->jobs);
	free(st->batch);
	sysfs_pool_free(st->pool);
	shared_unref(st->sh);
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
