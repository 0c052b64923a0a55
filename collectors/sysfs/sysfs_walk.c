// SPDX-License-Identifier: Apache-2.0
/*
 * One device's walk, and what each of its files becomes. A device is walked
 * twice per poll in the same order: by its job on a reader thread, which
 * reads every value file into job->vals (a failure counted, and logged once
 * per path), and by the collector thread, once the job is done in time,
 * which turns those values into samples: families, help texts and labels.
 * The ports' hw counters may come from one RDMA netlink request instead of
 * their files (sysfs_hwnl.h).
 */
#include "sysfs_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sysfs_hwnl.h"
#include "sysfs_parse.h"
#include "sysfs_pcie_parse.h"

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

static void log_skip(struct sysfs_job *job, const char *port, const char *path, const char *what,
		     int err)
{
	char eb[128];

	log_msg(sysfs_failure_level(job->sh, path), "skipping value",
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
	if (sysfs_job_cancelled(job))
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

/* No fd was held while netlink served them. */
void sysfs_hw_files_open(struct sysfs_job *job, struct sysfs_port *p)
{
	/* A file left deferred is read with an open per read: nothing lost. */
	(void)sysfs_port_hw_open(job->sh->root, job->dev, p);
	sysfs_warn_fd_limit(job->sh, job->dev);
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
	if (r == 0 || sysfs_job_cancelled(job))
		return r == 0;
	p->hw_nl = false;
	log_info("hw_counters netlink request failed: reading the files until the next rescan",
		 "collector=sysfs device=%s port=%s err=%s errno=%d", job->dev->name, p->num_str,
		 log_strerror(-r, eb, sizeof(eb)), -r);
	sysfs_hw_files_open(job, p);
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
		if (sysfs_job_cancelled(job))
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
int sysfs_emit_scanned(struct metric_sink *sink, const struct sysfs_device *dev)
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
	if (sysfs_job_cancelled(job))
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
int sysfs_walk_device(struct sysfs_job *job)
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
