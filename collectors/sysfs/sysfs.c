// SPDX-License-Identifier: Apache-2.0
/*
 * Policy layer of the sysfs collector: decides when to scan, turns file
 * contents into samples, counts skipped values and logs each failing file
 * once at warn (later at debug), so a broken counter does not flood the log
 * every poll.
 */
#include "sysfs.h"
#include "base/clock.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "sysfs_hwnl.h"
#include "sysfs_parse.h"
#include "sysfs_scan.h"

/* Per-poll values are short ("18446744073709551615\n", "100 Gb/sec (4X EDR)\n"). */
#define VALUE_BUF 256

#define FAM_DEVICE_INFO	   "rdma_device_info"
#define FAM_PORT_INFO	   "rdma_port_info"
#define FAM_PORT_NETDEV	   "rdma_port_netdev_info"
#define FAM_PORT_STATE	   "rdma_port_state"
#define FAM_PORT_PHYS	   "rdma_port_phys_state"
#define FAM_PORT_RATE	   "rdma_port_rate_bytes_per_second"
#define FAM_PORT_LID	   "rdma_port_lid"
#define FAM_PORT_SM_LID	   "rdma_port_sm_lid"
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
static const char help_port_counter[] =
	"Port counter file without a well-known name (or shadowed by a wider one), raw value "
	"as read; source is the directory: counters, counters_ext or hw_counters.";
static const char help_device_counter[] =
	"Device-level hw_counters file without a well-known name, raw value as read.";

/* Why there is no device to report; logged once per change. */
enum no_devices {
	NO_DEVICES_NONE,      /* there are devices, or nothing to say */
	NO_DEVICES_NO_DIR,    /* class/infiniband missing: no RDMA driver loaded */
	NO_DEVICES_FILTERED,  /* all dropped by the device filter */
	NO_DEVICES_EMPTY_DIR, /* class/infiniband there, empty */
};

struct sysfs_state {
	int root; /* borrowed */
	const struct device_filter *filter;
	double rescan_interval_s;
	struct netdev_set *netdevs; /* published every poll; may be NULL */
	unsigned fd_reserve;	    /* collector_ctx.fd_reserve */
	uint64_t polls;

	struct sysfs_device **devs; /* sorted with sysfs_name_cmp() */
	size_t n_devs;
	bool scanned;
	double last_scan;
	int reload_requested; /* set by reload(), any thread */

	/* <sysfs>/class/infiniband in full, for the no-device log */
	char class_dir[PATH_MAX];
	struct sysfs_listing listing; /* of the last refresh */
	enum no_devices no_devices;   /* the case last logged */
	bool warned_emfile;
	/* Paths whose failure was already logged at warn; sorted. */
	char **warned;
	size_t n_warned, cap_warned;

	struct sysfs_hwnl *hwnl; /* hw counters over netlink; never NULL after init */
	/* hwnl has a transport: scans defer the ports' hw_counters files, kept
	 * open only for the ports netlink does not serve */
	bool hwnl_path;

	char buf[VALUE_BUF];
};

typedef int (*value_parser)(const char *s, size_t len, uint64_t *out);

static int warned_find(const struct sysfs_state *st, const char *path, size_t *pos)
{
	size_t lo = 0, hi = st->n_warned;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(st->warned[mid], path);

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

/* True the first time a path is seen (then log at warn, later at debug). */
static bool first_failure(struct sysfs_state *st, const char *path)
{
	size_t pos;
	char *copy;

	if (warned_find(st, path, &pos))
		return false;
	if (st->n_warned == st->cap_warned) {
		size_t ncap = st->cap_warned ? st->cap_warned * 2 : 32;
		char **n = realloc(st->warned, ncap * sizeof(*n));

		if (!n)
			return true;
		st->warned = n;
		st->cap_warned = ncap;
	}
	copy = strdup(path);
	if (!copy)
		return true;
	memmove(&st->warned[pos + 1], &st->warned[pos], (st->n_warned - pos) * sizeof(char *));
	st->warned[pos] = copy;
	st->n_warned++;
	return true;
}

static void warned_clear(struct sysfs_state *st)
{
	for (size_t i = 0; i < st->n_warned; i++)
		free(st->warned[i]);
	free(st->warned);
	st->warned = NULL;
	st->n_warned = st->cap_warned = 0;
}

static void log_skip(struct sysfs_state *st, const char *device, const char *port, const char *path,
		     const char *what, int err)
{
	char eb[128];
	int level = first_failure(st, path) ? LOG_WARNING : LOG_DEBUG;

	log_msg(level, "skipping value",
		"collector=sysfs device=%s port=%s path=%s reason=%s err=%s errno=%d", device,
		port ? port : "-", path, what, log_strerror(-err, eb, sizeof(eb)), -err);
}

/*
 * A file that gave no value: err from parsing its content (read_ok) or from
 * reading it. Counted and logged here, with the path built for the line.
 */
static void value_failed(struct sysfs_state *st, struct sysfs_device *dev, const char *port,
			 const char *dir, const struct sysfs_file *f, int err, bool read_ok,
			 struct collector_stats *stats)
{
	char path[PATH_MAX];

	stats->read_errors++;
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
		log_skip(st, dev->name, port, path, "unparsable content", err);
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
	log_skip(st, dev->name, port, path, "read failed", err);
}

/* Reads and parses file f of directory dir; a failure is counted and logged. */
static int read_value(struct sysfs_state *st, struct sysfs_device *dev, const char *port,
		      const char *dir, struct sysfs_file *f, value_parser parse, uint64_t *out,
		      struct collector_stats *stats)
{
	int n, r;

	n = sysfs_file_read(st->root, dir, f, st->buf, sizeof(st->buf));
	if (n < 0) {
		value_failed(st, dev, port, dir, f, n, false, stats);
		return n;
	}
	r = parse(st->buf, (size_t)n, out);
	if (r < 0)
		value_failed(st, dev, port, dir, f, r, true, stats);
	return r;
}

static int emit_port_value(struct sysfs_state *st, struct metric_sink *sink,
			   struct sysfs_device *dev, struct sysfs_port *p, struct sysfs_file *f,
			   value_parser parse, const char *family, const char *help,
			   struct collector_stats *stats)
{
	uint64_t v;

	if (read_value(st, dev, p->num_str, p->dir, f, parse, &v, stats) < 0)
		return 0;
	return collector_sink_result(
		metric_sink_add_u64(sink, family, help, METRIC_GAUGE,
				    METRIC_LABELS({"device", dev->name}, {"port", p->num_str}), v));
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

/* port NULL: a device-level counter. v is its raw value, from the file or netlink. */
static int emit_counter_value(struct sysfs_state *st, struct metric_sink *sink,
			      struct sysfs_device *dev, struct sysfs_port *p,
			      struct sysfs_counter *c, uint64_t v, struct collector_stats *stats)
{
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

		stats->read_errors++;
		sysfs_file_path(sysfs_counter_dir(dev, p, c), &c->file, path, sizeof(path));
		log_skip(st, dev->name, port, path, "value * multiplier", -ERANGE);
		return 0;
	}
	if (p)
		r = metric_sink_add_u64(sink, c->known->metric, c->known->help, c->known->type,
					METRIC_LABELS({"device", dev->name}, {"port", port}),
					scaled);
	else
		r = metric_sink_add_u64(sink, c->known->metric, c->known->help, c->known->type,
					METRIC_LABELS({"device", dev->name}), scaled);
	return collector_sink_result(r);
}

/* from_nl: a hw_counters file's value comes from the port's STAT_GET reply. */
static int emit_counter(struct sysfs_state *st, struct metric_sink *sink, struct sysfs_device *dev,
			struct sysfs_port *p, struct sysfs_counter *c, bool from_nl,
			struct collector_stats *stats)
{
	uint64_t v;

	if (from_nl && c->source == SYSFS_SRC_HW_COUNTERS)
		v = sysfs_hwnl_value(st->hwnl, c);
	else if (read_value(st, dev, p ? p->num_str : NULL, sysfs_counter_dir(dev, p, c), &c->file,
			    sysfs_parse_counter, &v, stats) < 0)
		return 0;
	return emit_counter_value(st, sink, dev, p, c, v, stats);
}

/* Files that fell back to an open per read: said once, at warn. */
static void warn_fd_limit(struct sysfs_state *st, const struct sysfs_device *dev)
{
	if (!dev->n_reopen_each || st->warned_emfile)
		return;
	st->warned_emfile = true;
	log_warn("file descriptor limit reached: files fall back to open+read+close per "
		 "poll (slower); raise LimitNOFILE",
		 "collector=sysfs device=%s files=%u", dev->name, dev->n_reopen_each);
}

/* The port's hw counters come from the files again: open them (no fd was
 * held while netlink served them). */
static void hw_files_open(struct sysfs_state *st, struct sysfs_device *dev, struct sysfs_port *p)
{
	/* A file left deferred is read with an open per read: nothing lost. */
	(void)sysfs_port_hw_open(st->root, dev, p);
	warn_fd_limit(st, dev);
}

/*
 * The port's hw counters in one netlink request. A failure keeps the poll
 * on the files, and the port on them until the next scan: said once.
 */
static bool poll_hwnl(struct sysfs_state *st, struct sysfs_device *dev, struct sysfs_port *p)
{
	char eb[128];
	int r;

	if (!p->hw_nl)
		return false;
	r = sysfs_hwnl_poll(st->hwnl, dev, p);
	if (r == 0)
		return true;
	p->hw_nl = false;
	log_info("hw_counters netlink request failed: reading the files until the next rescan",
		 "collector=sysfs device=%s port=%s err=%s errno=%d", dev->name, p->num_str,
		 log_strerror(-r, eb, sizeof(eb)), -r);
	hw_files_open(st, dev, p);
	return false;
}

static int emit_port(struct sysfs_state *st, struct metric_sink *sink, struct sysfs_device *dev,
		     struct sysfs_port *p, struct collector_stats *stats)
{
	bool from_nl;
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
	r = emit_port_value(st, sink, dev, p, &p->state, sysfs_parse_port_state, FAM_PORT_STATE,
			    help_port_state, stats);
	if (r < 0)
		return r;
	r = emit_port_value(st, sink, dev, p, &p->phys_state, sysfs_parse_phys_state, FAM_PORT_PHYS,
			    help_port_phys, stats);
	if (r < 0)
		return r;
	r = emit_port_value(st, sink, dev, p, &p->rate, sysfs_parse_rate, FAM_PORT_RATE,
			    help_port_rate, stats);
	if (r < 0)
		return r;
	if (p->lid.name) {
		r = emit_port_value(st, sink, dev, p, &p->lid, sysfs_parse_lid, FAM_PORT_LID,
				    help_port_lid, stats);
		if (r < 0)
			return r;
	}
	if (p->sm_lid.name) {
		r = emit_port_value(st, sink, dev, p, &p->sm_lid, sysfs_parse_lid, FAM_PORT_SM_LID,
				    help_port_sm_lid, stats);
		if (r < 0)
			return r;
	}
	from_nl = poll_hwnl(st, dev, p);
	for (size_t i = 0; i < p->n_counters; i++) {
		r = emit_counter(st, sink, dev, p, &p->counters[i], from_nl, stats);
		if (r < 0)
			return r;
	}
	return 0;
}

static int emit_device(struct sysfs_state *st, struct metric_sink *sink, struct sysfs_device *dev,
		       struct collector_stats *stats)
{
	int r;

	r = metric_sink_add_u64(
		sink, FAM_DEVICE_INFO, help_device_info, METRIC_GAUGE,
		METRIC_LABELS({"device", dev->name}, {"node_type", dev->node_type},
			      {"hca_type", dev->hca_type}, {"board_id", dev->board_id},
			      {"fw_ver", dev->fw_ver}, {"node_guid", dev->node_guid},
			      {"sys_image_guid", dev->sys_image_guid}, {"driver", dev->driver}),
		1);
	if ((r = collector_sink_result(r)) < 0)
		return r;
	for (size_t i = 0; i < dev->n_ports; i++) {
		r = emit_port(st, sink, dev, &dev->ports[i], stats);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < dev->n_counters; i++) {
		r = emit_counter(st, sink, dev, NULL, &dev->counters[i], false, stats);
		if (r < 0)
			return r;
	}
	/* Directories that could not be listed hide values: count them every
	 * poll, as the values they hold would have been. */
	stats->read_errors += dev->scan_errors;
	return 0;
}

static void free_devices(struct sysfs_device **devs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sysfs_device_free(devs[i]);
}

/* Which ports read their hw counters over netlink from now on; said at
 * debug. only_files: just the ports that read the files now. The files of
 * a port netlink serves hold no fd; the others' are open. */
static void attach_hwnl(struct sysfs_state *st, struct sysfs_device *dev, bool only_files)
{
	const char *missing;
	char eb[128];
	int r;

	for (size_t i = 0; i < dev->n_ports; i++) {
		struct sysfs_port *p = &dev->ports[i];

		if (only_files && p->hw_nl)
			continue;
		r = sysfs_hwnl_attach(st->hwnl, dev, p, &missing);
		if (r == 0) {
			sysfs_port_hw_close(dev, p);
			log_debug("hw_counters via netlink", "collector=sysfs device=%s port=%s",
				  dev->name, p->num_str);
			continue;
		}
		hw_files_open(st, dev, p);
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

/*
 * The periodic re-check: true when the device is as scanned (its files stay
 * open, its text was re-read), false when it must be scanned again. Ports
 * whose hw counters fell back to the files try netlink again.
 */
static bool recheck_unchanged(struct sysfs_state *st, struct sysfs_device *dev)
{
	if (sysfs_device_refresh(st->root, dev) != 0)
		return false;
	log_debug("re-checked device: unchanged, its files stay open", "collector=sysfs device=%s",
		  dev->name);
	attach_hwnl(st, dev, true);
	return true;
}

/* Scans one device; logs what the scan could not do. NULL when skipped. */
static int scan_one(struct sysfs_state *st, const char *name, bool known, struct sysfs_device **out,
		    struct collector_stats *stats)
{
	struct sysfs_device *dev;
	char eb[128], path[512];
	size_t n_counters;
	int r;

	*out = NULL;
	r = sysfs_device_scan(st->root, name, st->fd_reserve,
			      st->hwnl_path ? SYSFS_SCAN_PORT_HW_DEFERRED : 0, &dev);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* -ENOENT: removed between the listing and the scan. */
		if (r != -ENOENT) {
			stats->read_errors++;
			snprintf(path, sizeof(path), "%s/%s", SYSFS_IB_CLASS_DIR, name);
			log_msg(first_failure(st, path) ? LOG_WARNING : LOG_DEBUG,
				"cannot scan device", "collector=sysfs device=%s err=%s errno=%d",
				name, log_strerror(-r, eb, sizeof(eb)), -r);
		}
		return 0;
	}
	if (dev->scan_errors && dev->first_scan_error_path)
		log_msg(first_failure(st, dev->first_scan_error_path) ? LOG_WARNING : LOG_DEBUG,
			"cannot list directory",
			"collector=sysfs device=%s path=%s err=%s errno=%d dirs_skipped=%u", name,
			dev->first_scan_error_path,
			log_strerror(-dev->first_scan_error, eb, sizeof(eb)),
			-dev->first_scan_error, dev->scan_errors);
	n_counters = dev->n_counters;
	for (size_t i = 0; i < dev->n_ports; i++)
		n_counters += dev->ports[i].n_counters;
	warn_fd_limit(st, dev);
	log_msg(known ? LOG_DEBUG : LOG_INFO, "scanned device",
		"collector=sysfs device=%s ports=%zu counter_files=%zu driver=%s", name,
		dev->n_ports, n_counters, dev->driver);
	attach_hwnl(st, dev, false);
	*out = dev;
	return 0;
}

/* SIGHUP: close every fd now, forget which files were logged. */
static void apply_reload_request(struct sysfs_state *st)
{
	if (!__atomic_exchange_n(&st->reload_requested, 0, __ATOMIC_ACQ_REL))
		return;
	free_devices(st->devs, st->n_devs);
	st->n_devs = 0;
	warned_clear(st);
	st->warned_emfile = false;
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

	r = sysfs_list_devices(st->root, st->filter, names, n_names, &st->listing);
	if (r < 0 && r != -ENOMEM)
		log_msg(first_failure(st, SYSFS_IB_CLASS_DIR) ? LOG_WARNING : LOG_DEBUG,
			"cannot list the RDMA devices", "collector=sysfs path=%s err=%s errno=%d",
			st->class_dir, log_strerror(-r, eb, sizeof(eb)), -r);
	return r;
}

/* Frees the cached device at st->devs[*j], which the listing no longer has. */
static void drop_gone_device(struct sysfs_state *st, size_t *j)
{
	log_info("device is gone", "collector=sysfs device=%s", st->devs[*j]->name);
	sysfs_device_free(st->devs[*j]);
	st->devs[(*j)++] = NULL;
}

/*
 * The merge step for one listed name: drops cached devices sorted before it,
 * then keeps its cached device or scans it. *out is NULL when it was not
 * scanned (gone, unreadable). 0 or -ENOMEM.
 */
static int merge_one(struct sysfs_state *st, const char *name, bool full, size_t *j,
		     struct sysfs_device **out, struct collector_stats *stats)
{
	struct sysfs_device *dev = NULL;
	bool known = false;

	*out = NULL;
	while (*j < st->n_devs && sysfs_name_cmp(st->devs[*j]->name, name) < 0)
		drop_gone_device(st, j);
	if (*j < st->n_devs && sysfs_name_cmp(st->devs[*j]->name, name) == 0) {
		dev = st->devs[*j];
		st->devs[(*j)++] = NULL;
		known = true;
		if (dev->recheck || (full && !recheck_unchanged(st, dev))) {
			sysfs_device_free(dev);
			dev = NULL;
		}
	}
	if (dev) {
		*out = dev;
		return 0;
	}
	return scan_one(st, name, known, out, stats);
}

/*
 * Brings the cached devices in line with class/infiniband: new names are
 * scanned, vanished ones freed, flagged ones re-scanned. Both lists are
 * sorted with sysfs_name_cmp(), so one merge pass does it.
 */
static int refresh(struct sysfs_state *st, struct collector_stats *stats)
{
	struct sysfs_device **next = NULL;
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
		if (!next) {
			r = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < n_names; i++) {
		r = merge_one(st, names[i], full, &j, &next[n_next], stats);
		if (r < 0)
			goto out;
		if (next[n_next])
			n_next++;
	}
	while (j < st->n_devs)
		drop_gone_device(st, &j);
	r = 0;
out:
	/* On error, keep what was built; free the rest of the old list. */
	for (; j < st->n_devs; j++)
		sysfs_device_free(st->devs[j]);
	free(st->devs);
	st->devs = next;
	st->n_devs = n_next;
	sysfs_names_free(names);
	return r;
}

/* The netdevs of every RDMA port, for the collectors after this one. */
static int publish_netdevs(struct sysfs_state *st)
{
	if (!st->netdevs)
		return 0;
	netdev_set_begin(st->netdevs);
	for (size_t i = 0; i < st->n_devs; i++)
		for (size_t j = 0; j < st->devs[i]->n_ports; j++)
			for (size_t k = 0; k < st->devs[i]->ports[j].n_netdevs; k++)
				if (netdev_set_add(st->netdevs, st->devs[i]->ports[j].netdevs[k]) <
				    0)
					return -ENOMEM;
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

static int sysfs_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct sysfs_state *st = state;
	int r;

	r = refresh(st, stats);
	if (r < 0)
		return r;
	r = publish_netdevs(st);
	if (r < 0)
		return r;
	if (!st->n_devs) {
		log_no_devices(st);
		return 0;
	}
	st->no_devices = NO_DEVICES_NONE;
	for (size_t i = 0; i < st->n_devs; i++) {
		r = emit_device(st, sink, st->devs[i], stats);
		if (r < 0)
			return r;
		stats->devices++;
	}
	return 0;
}

int sysfs_collector_init_with(const struct collector_ctx *ctx, const struct sysfs_seams *seams,
			      void **state)
{
	struct sysfs_state *st;

	/* Nothing is read here: no hardware is not an error, the first
	 * collect() scans. */
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	st->root = ctx->sysfs_fd;
	st->filter = ctx->filter;
	if (ctx->sysfs_path) {
		const char *root = ctx->sysfs_path;
		size_t n = strlen(root);

		snprintf(st->class_dir, sizeof(st->class_dir), "%s%s%s", root,
			 n && root[n - 1] == '/' ? "" : "/", SYSFS_IB_CLASS_DIR);
	} else {
		snprintf(st->class_dir, sizeof(st->class_dir), "%s", SYSFS_IB_CLASS_DIR);
	}
	st->rescan_interval_s = ctx->rescan_interval_s;
	st->netdevs = ctx->rdma_netdevs;
	st->fd_reserve = ctx->fd_reserve;
	st->hwnl = sysfs_hwnl_new(seams->open_transport, seams->open_data,
				  ctx->poll_interval_ms ? (int)(ctx->poll_interval_ms / 2) : 0);
	st->hwnl_path = seams->open_transport != NULL;
	if (!st->hwnl) {
		free(st);
		return -ENOMEM;
	}
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

static void sysfs_free(void *state)
{
	struct sysfs_state *st = state;

	if (!st)
		return;
	free_devices(st->devs, st->n_devs);
	free(st->devs);
	warned_clear(st);
	sysfs_hwnl_free(st->hwnl);
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
