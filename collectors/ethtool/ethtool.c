// SPDX-License-Identifier: Apache-2.0
/*
 * Policy layer of the ethtool collector: which netdevs to watch, when to read
 * a driver's statistic names again, what becomes a sample, what is logged
 * once. A netdev whose reads fail is skipped for that poll and counted; the
 * other netdevs keep serving. A source a netdev lacks (no DCB, no pause
 * statistics: veth, virtio) is remembered until the next re-scan and never
 * logged per poll.
 */
#include "ethtool.h"
#include "base/clock.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/devfilter.h"
#include "base/log.h"
#include "ethtool_names.h"
#include "ethtool_real.h"
#include "ethtool_sysfs.h"
#include "module_collect.h"

struct eth_netdev {
	char name[IF_NAMESIZE];
	bool rdma; /* bound to an RDMA port */
	struct eth_drvinfo info;
	bool have_info;
	char *names; /* n_names entries of ETH_NAME_LEN */
	uint32_t n_names;
	struct eth_stat_map *maps; /* family ETH_FAM_NONE: not mapped */
	bool *raw;		   /* matches --collector.ethtool.stat-include */
	uint64_t *vals;
	bool strings_stale;
	bool no_stats, no_pause, no_pfc, no_info;
	bool no_fec; /* no FEC over netlink (issue 32) */
	bool warned;
	/* ENODEV: not in this network namespace (gone, renamed, or an RDMA
	 * port's netdev in another namespace). Skipped until the next full
	 * scan; logged and counted once, not at every scan. */
	bool absent, absent_logged;
	struct module_state *module; /* transceiver: module_collect.c */
};

struct ethtool_state {
	struct ethtool_seams seams;
	int sysfs_fd;
	double rescan_interval_s;
	bool sysfs_enabled;
	struct netdev_set *rdma_netdevs;
	struct device_filter *include, *exclude, *stat_include;

	struct eth_netdev **devs;
	size_t n_devs;
	bool scanned;
	double last_scan;
	int reload_requested;
	struct netdev_set last_rdma; /* RDMA netdevs at the last scan */
	bool logged_no_dcb, logged_no_pause, logged_no_netdevs;
	bool logged_no_fec;
	struct module_policy module;
};

/* ---- netdevs ------------------------------------------------------------------------- */

static void netdev_free(struct eth_netdev *d)
{
	if (!d)
		return;
	free(d->names);
	free(d->maps);
	free(d->raw);
	free(d->vals);
	module_state_free(d->module);
	free(d);
}

static void drop_netdevs(struct ethtool_state *st)
{
	for (size_t i = 0; i < st->n_devs; i++)
		netdev_free(st->devs[i]);
	free(st->devs);
	st->devs = NULL;
	st->n_devs = 0;
}

static int cmp_netdev(const void *a, const void *b)
{
	return strcmp((*(struct eth_netdev *const *)a)->name,
		      (*(struct eth_netdev *const *)b)->name);
}

static struct eth_netdev *take_netdev(struct ethtool_state *st, const char *name)
{
	for (size_t i = 0; i < st->n_devs; i++)
		if (st->devs[i] && strcmp(st->devs[i]->name, name) == 0) {
			struct eth_netdev *d = st->devs[i];

			st->devs[i] = NULL;
			return d;
		}
	return NULL;
}

static int add_watched(struct ethtool_state *st, struct eth_netdev ***next, size_t *n,
		       const char *name, bool rdma, bool full)
{
	struct eth_netdev *d;

	if (st->exclude && device_filter_match(st->exclude, name))
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*next)[i]->name, name) == 0) {
			(*next)[i]->rdma |= rdma;
			return 0;
		}
	d = take_netdev(st, name);
	if (d && full) {
		/* A re-scan reads identity and names again, and forgets
		 * which sources the netdev lacks. */
		d->have_info = false;
		d->no_stats = d->no_pause = d->no_pfc = d->no_info = false;
		d->no_fec = false;
		d->absent = false;
		module_state_rescan(d->module);
	}
	if (!d) {
		d = calloc(1, sizeof(*d));
		if (!d)
			return -ENOMEM;
		d->module = module_state_new();
		if (!d->module) {
			free(d);
			return -ENOMEM;
		}
		snprintf(d->name, sizeof(d->name), "%s", name);
	}
	d->rdma = rdma;
	(*next)[(*n)++] = d;
	return 0;
}

/* The watched list: RDMA netdevs plus include matches, minus excludes. */
static int sync_netdevs(struct ethtool_state *st, const struct netdev_set *rdma, bool full)
{
	char **all = NULL;
	size_t n_all = 0, n = 0;
	struct eth_netdev **next;
	int r = 0;

	if (st->include && full) {
		r = st->seams.list_netdevs(st->seams.io, &all, &n_all);
		if (r < 0) {
			log_warn("cannot list netdevs", "collector=ethtool err=%s", strerror(-r));
			all = NULL;
			n_all = 0;
		}
	}
	next = calloc(rdma->n + n_all + st->n_devs + 1, sizeof(*next));
	if (!next) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rdma->n && r == 0; i++)
		r = add_watched(st, &next, &n, rdma->names[i], true, full);
	for (size_t i = 0; i < n_all && r == 0; i++)
		if (device_filter_match(st->include, all[i]))
			r = add_watched(st, &next, &n, all[i], false, full);
	/* Between full scans, keep include matches found at the last one. */
	for (size_t i = 0; i < st->n_devs && r == 0 && !full; i++)
		if (st->devs[i] && !st->devs[i]->rdma &&
		    device_filter_match(st->include, st->devs[i]->name))
			r = add_watched(st, &next, &n, st->devs[i]->name, false, full);
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			netdev_free(next[i]);
		free(next);
		goto out;
	}
	for (size_t i = 0; i < st->n_devs; i++)
		if (st->devs[i]) {
			log_info("netdev no longer watched", "collector=ethtool netdev=%s",
				 st->devs[i]->name);
			netdev_free(st->devs[i]);
		}
	free(st->devs);
	qsort(next, n, sizeof(*next), cmp_netdev);
	st->devs = next;
	st->n_devs = n;
out:
	for (size_t i = 0; i < n_all; i++)
		free(all[i]);
	free(all);
	return r;
}

/* ---- reads ----------------------------------------------------------------------------- */

static void forget_strings(struct eth_netdev *d)
{
	free(d->names);
	free(d->maps);
	free(d->raw);
	free(d->vals);
	d->names = NULL;
	d->maps = NULL;
	d->raw = NULL;
	d->vals = NULL;
	d->n_names = 0;
}

static int read_strings(struct ethtool_state *st, struct eth_netdev *d)
{
	uint32_t count = 0, n = 0;
	char *names = NULL;
	int r;

	forget_strings(d);
	d->strings_stale = false;
	r = st->seams.stats_count(st->seams.io, d->name, &count);
	if (r == 0 && count)
		r = st->seams.strings(st->seams.io, d->name, count, &names, &n);
	if (r < 0)
		return r;
	if (!n) {
		free(names);
		return 0;
	}
	d->maps = calloc(n, sizeof(*d->maps));
	d->raw = calloc(n, sizeof(*d->raw));
	d->vals = calloc(ETH_IOCTL_SLACK(n), sizeof(*d->vals));
	if (!d->maps || !d->raw || !d->vals) {
		free(names);
		forget_strings(d);
		return -ENOMEM;
	}
	d->names = names;
	d->n_names = n;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = names + (size_t)i * ETH_NAME_LEN;

		if (!eth_stat_lookup(d->info.driver, name, &d->maps[i]))
			d->maps[i].family = ETH_FAM_NONE;
		d->raw[i] = st->stat_include && device_filter_match(st->stat_include, name);
	}
	return 0;
}

static void warn_once(struct eth_netdev *d, const char *what, int r)
{
	char eb[128];

	log_msg(d->warned ? LOG_DEBUG : LOG_WARNING, "ethtool request failed",
		"collector=ethtool netdev=%s op=%s err=%s errno=%d", d->name, what,
		log_strerror(r, eb, sizeof(eb)), -r);
	d->warned = true;
}

static bool unsupported(int r)
{
	return r == -EOPNOTSUPP || r == -ENOTSUP || r == -EINVAL || r == -ENODATA;
}

/* ---- emission --------------------------------------------------------------------------- */

static const char *const prio_str[ETH_PRIORITIES] = {"0", "1", "2", "3", "4", "5", "6", "7"};

static const char *dir_str(enum eth_direction d)
{
	return d == ETH_DIR_RX ? "rx" : "tx";
}

static int emit_mapped(struct metric_sink *sink, const struct eth_netdev *d, uint32_t i)
{
	const struct eth_stat_map *m = &d->maps[i];
	struct metric_label l[4];
	size_t n = 0;
	const char *fam = eth_family_name(m->family), *extra = eth_family_extra_label(m->family);

	l[n++] = (struct metric_label){"netdev", d->name};
	if (eth_family_has_direction(m->family))
		l[n++] = (struct metric_label){"direction", dir_str(m->direction)};
	if (eth_family_has_priority(m->family)) {
		if (m->priority < 0 || m->priority >= ETH_PRIORITIES)
			return 0;
		l[n++] = (struct metric_label){"priority", prio_str[m->priority]};
	}
	if (extra)
		l[n++] = (struct metric_label){extra, m->label ? m->label : ""};
	/* Two driver names for one series (or the netlink pause statistics
	 * first): the first one stands. */
	if (metric_sink_has(sink, fam, l, n))
		return 0;
	if (m->scale != 0 && m->scale != 1.0)
		return collector_sink_result(metric_sink_add_double(
			sink, fam, eth_family_help(m->family), METRIC_COUNTER, l, n,
			(double)d->vals[i] * m->scale));
	return collector_sink_result(metric_sink_add_u64(sink, fam, eth_family_help(m->family),
							 METRIC_COUNTER, l, n, d->vals[i]));
}

static const char help_info[] =
	"Network device watched by the ethtool collector (bound to an RDMA port, or matched by "
	"--collector.ethtool.netdev-include), with its driver identity from ETHTOOL_GDRVINFO; "
	"always 1.";
static const char help_pfc_en[] =
	"1 if PFC is enabled on the priority (DCB IEEE pfc_en bitmap), else 0.";
static const char help_pfc_req[] =
	"PFC pause requests sent for the priority, from DCB struct ieee_pfc requests.";
static const char help_pfc_ind[] =
	"PFC pause indications received for the priority, from DCB struct ieee_pfc indications.";
static const char help_carrier[] =
	"Times the netdev's carrier (link) went down, whatever the driver, from sysfs "
	"class/net/NETDEV/carrier_down_count (Linux 4.16 or later).";
static const char help_raw[] =
	"Raw driver ethtool statistic selected by --collector.ethtool.stat-include, as the "
	"driver reports it (no type or unit known).";

static int emit_netdev(struct ethtool_state *st, struct metric_sink *sink, struct eth_netdev *d,
		       const struct eth_pause_stats *pause, const struct eth_pfc *pfc,
		       bool stats_ok)
{
	int r;

	r = collector_sink_result(
		metric_sink_add_u64(sink, "rdma_netdev_info", help_info, METRIC_GAUGE,
				    METRIC_LABELS({"netdev", d->name}, {"driver", d->info.driver},
						  {"driver_version", d->info.version},
						  {"firmware_version", d->info.fw_version},
						  {"bus_info", d->info.bus_info}),
				    1));
	if (r < 0)
		return r;
	if (pause && pause->have_rx)
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_netdev_pause_frames_total",
			eth_family_help(ETH_FAM_PAUSE_FRAMES), METRIC_COUNTER,
			METRIC_LABELS({"netdev", d->name}, {"direction", "rx"}), pause->rx_frames));
	if (r == 0 && pause && pause->have_tx)
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_netdev_pause_frames_total",
			eth_family_help(ETH_FAM_PAUSE_FRAMES), METRIC_COUNTER,
			METRIC_LABELS({"netdev", d->name}, {"direction", "tx"}), pause->tx_frames));
	for (uint32_t i = 0; i < d->n_names && stats_ok && r == 0; i++) {
		if (d->maps[i].family != ETH_FAM_NONE)
			r = emit_mapped(sink, d, i);
		if (r == 0 && d->raw[i]) {
			const char *name = d->names + (size_t)i * ETH_NAME_LEN;

			/* Drivers repeat names (per queue); the first one stands. */
			if (!metric_sink_has(sink, "rdma_netdev_ethtool_statistic",
					     METRIC_LABELS({"netdev", d->name}, {"name", name})))
				r = collector_sink_result(metric_sink_add_u64(
					sink, "rdma_netdev_ethtool_statistic", help_raw,
					METRIC_UNTYPED,
					METRIC_LABELS({"netdev", d->name}, {"name", name}),
					d->vals[i]));
		}
	}
	for (int p = 0; pfc && p < ETH_PRIORITIES && r == 0; p++) {
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_netdev_pfc_enabled", help_pfc_en, METRIC_GAUGE,
			METRIC_LABELS({"netdev", d->name}, {"priority", prio_str[p]}),
			(pfc->pfc_en >> p) & 1));
		if (r == 0)
			r = collector_sink_result(metric_sink_add_u64(
				sink, "rdma_netdev_pfc_requests_total", help_pfc_req,
				METRIC_COUNTER,
				METRIC_LABELS({"netdev", d->name}, {"priority", prio_str[p]}),
				pfc->requests[p]));
		if (r == 0)
			r = collector_sink_result(metric_sink_add_u64(
				sink, "rdma_netdev_pfc_indications_total", help_pfc_ind,
				METRIC_COUNTER,
				METRIC_LABELS({"netdev", d->name}, {"priority", prio_str[p]}),
				pfc->indications[p]));
	}
	return r;
}

/* Driver identity, read once per netdev: 0 or -ENODEV (gone). */
static int read_identity(struct ethtool_state *st, struct eth_netdev *d,
			 struct collector_stats *stats)
{
	int r;

	if (d->have_info)
		return 0;
	r = st->seams.drvinfo(st->seams.io, d->name, &d->info);
	if (r == -ENODEV || r == -ENXIO)
		return -ENODEV;
	if (r < 0) {
		/* No ethtool at all on this netdev: identity stays empty. */
		memset(&d->info, 0, sizeof(d->info));
		if (!unsupported(r)) {
			stats->read_errors++;
			warn_once(d, "ETHTOOL_GDRVINFO", r);
		}
	}
	d->have_info = true;
	d->strings_stale = true;
	return 0;
}

/* Statistic names, when stale: 0, -ENODEV (gone) or -ENOMEM. */
static int refresh_names(struct ethtool_state *st, struct eth_netdev *d,
			 struct collector_stats *stats)
{
	int r;

	if (!d->strings_stale || d->no_stats)
		return 0;
	r = read_strings(st, d);
	if (r == -ENOMEM)
		return r;
	if (r == -ENODEV || r == -ENXIO)
		return -ENODEV;
	if (unsupported(r)) {
		d->no_stats = true;
	} else if (r < 0) {
		stats->read_errors++;
		warn_once(d, "reading statistic names", r);
		d->strings_stale = true;
	}
	return 0;
}

/* Statistic values into d->vals: 0 or -ENODEV (gone); *ok when they match the names. */
static int read_values(struct ethtool_state *st, struct eth_netdev *d,
		       struct collector_stats *stats, bool *ok)
{
	uint32_t n = 0;
	int r;

	*ok = false;
	if (!d->n_names || d->strings_stale)
		return 0;
	r = st->seams.stats(st->seams.io, d->name, d->vals, d->n_names, &n);
	if (r == -ENODEV || r == -ENXIO)
		return -ENODEV;
	if (r == 0 && n == d->n_names) {
		*ok = true;
		return 0;
	}
	/* The driver's statistics changed under us (count or EOVERFLOW): names
	 * are read again next poll, no value is matched to a name it may not
	 * belong to. */
	stats->read_errors++;
	d->strings_stale = true;
	if (r < 0 && r != -EOVERFLOW)
		warn_once(d, "ETHTOOL_GSTATS", r);
	else
		log_info("driver statistics changed; reading the names again",
			 "collector=ethtool netdev=%s names=%u values=%u", d->name, d->n_names, n);
	return 0;
}

/* Standard pause statistics: true when *pause was filled. */
static bool read_pause(struct ethtool_state *st, struct eth_netdev *d,
		       struct collector_stats *stats, struct eth_pause_stats *pause)
{
	int r;

	if (d->no_pause)
		return false;
	r = st->seams.pause(st->seams.io, d->name, pause);
	if (r == 0)
		return true;
	if (unsupported(r)) {
		d->no_pause = true;
		log_msg(st->logged_no_pause ? LOG_DEBUG : LOG_INFO,
			st->logged_no_pause
				? "netdev has no standard pause statistics"
				: "netdev has no standard pause statistics; others like "
				  "it are logged at debug",
			"collector=ethtool netdev=%s err=%s", d->name, strerror(-r));
		st->logged_no_pause = true;
	} else if (r != -ENODEV) {
		stats->read_errors++;
		warn_once(d, "pause statistics", r);
	}
	return false;
}

/* DCB PFC state and counters: true when *pfc was filled. */
static bool read_pfc(struct ethtool_state *st, struct eth_netdev *d, struct collector_stats *stats,
		     struct eth_pfc *pfc)
{
	int r;

	if (d->no_pfc)
		return false;
	r = st->seams.pfc(st->seams.io, d->name, pfc);
	if (r == 0)
		return true;
	if (unsupported(r)) {
		d->no_pfc = true;
		log_msg(st->logged_no_dcb ? LOG_DEBUG : LOG_INFO,
			st->logged_no_dcb ? "netdev has no DCB PFC"
					  : "netdev has no DCB PFC; others like it are "
					    "logged at debug",
			"collector=ethtool netdev=%s err=%s", d->name, strerror(-r));
		st->logged_no_dcb = true;
	} else if (r != -ENODEV) {
		stats->read_errors++;
		warn_once(d, "DCB PFC", r);
	}
	return false;
}

/* The carrier-down counter of one netdev: 0 (emitted or absent) or -ENOMEM. */
static int emit_carrier(struct ethtool_state *st, struct metric_sink *sink, struct eth_netdev *d,
			struct collector_stats *stats)
{
	uint64_t downs;
	int r = ethtool_read_carrier_downs(st->sysfs_fd, d->name, &downs);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		stats->read_errors++;
		warn_once(d, "class/net carrier_down_count", r);
		return 0;
	}
	return collector_sink_result(
		metric_sink_add_u64(sink, "rdma_netdev_carrier_down_events_total", help_carrier,
				    METRIC_COUNTER, METRIC_LABELS({"netdev", d->name}), downs));
}

/*
 * FEC mode and statistics over ethtool netlink, emitted before the driver's
 * own names so that the standard source stands where both count the same
 * thing (ethtool_names.c maps the drivers' FEC and PHY counters to the same
 * families). 0 (emitted, or nothing to emit) or -ENOMEM.
 */
static int poll_fec(struct ethtool_state *st, struct metric_sink *sink, struct eth_netdev *d,
		    struct collector_stats *stats)
{
	struct eth_fec fec;
	int r;

	if (d->no_fec || !st->seams.fec)
		return 0;
	r = st->seams.fec(st->seams.io, d->name, &fec);
	if (r == 0)
		return eth_fec_emit(sink, d->name, &fec);
	if (unsupported(r)) {
		d->no_fec = true;
		log_msg(st->logged_no_fec ? LOG_DEBUG : LOG_INFO,
			st->logged_no_fec ? "netdev has no FEC over ethtool netlink"
					  : "netdev has no FEC over ethtool netlink; others like "
					    "it are logged at debug",
			"collector=ethtool netdev=%s err=%s", d->name, strerror(-r));
		st->logged_no_fec = true;
	} else if (r != -ENODEV) {
		stats->read_errors++;
		warn_once(d, "FEC statistics", r);
	}
	return 0;
}

/* One netdev: 0 (emitted, maybe partly), -ENODEV (gone: skipped), -ENOMEM. */
static int poll_netdev(struct ethtool_state *st, struct metric_sink *sink, struct eth_netdev *d,
		       struct collector_stats *stats)
{
	struct eth_pause_stats pause = {0};
	struct eth_pfc pfc = {0};
	bool stats_ok, have_pause, have_pfc;
	int r;

	r = read_identity(st, d, stats);
	if (r == 0)
		r = refresh_names(st, d, stats);
	if (r == 0)
		r = read_values(st, d, stats, &stats_ok);
	if (r < 0)
		return r;
	have_pause = read_pause(st, d, stats, &pause);
	have_pfc = read_pfc(st, d, stats, &pfc);
	r = poll_fec(st, sink, d, stats);
	if (r < 0)
		return r;
	r = emit_netdev(st, sink, d, have_pause ? &pause : NULL, have_pfc ? &pfc : NULL, stats_ok);
	if (r == 0)
		r = emit_carrier(st, sink, d, stats);
	if (r == 0)
		r = module_poll(d->module, &st->module, d->name, clock_mono_ms(), sink, stats);
	return r;
}

/*
 * The RDMA netdevs to watch: the sysfs collector's last publication, copied
 * into own (it may publish again from its own thread meanwhile: netdevs.h);
 * without one, a scan of our own into own at a full scan, else the last
 * one. 0 or -ENOMEM.
 */
static int rdma_netdevs_now(struct ethtool_state *st, bool full, struct netdev_set *own,
			    const struct netdev_set **rdma)
{
	int r = st->sysfs_enabled && st->rdma_netdevs
			? netdev_set_get_published(st->rdma_netdevs, own)
			: 0;

	if (r < 0)
		return r;
	if (r > 0) {
		*rdma = own;
		return 0;
	}
	/* a scan that fails otherwise leaves what it found */
	if (full && ethtool_scan_rdma_netdevs(st->sysfs_fd, own) == -ENOMEM)
		return -ENOMEM;
	*rdma = full ? own : &st->last_rdma;
	return 0;
}

static int ethtool_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct ethtool_state *st = state;
	struct netdev_set own = {0};
	const struct netdev_set *rdma;
	bool full, changed;
	int r;

	if (__atomic_exchange_n(&st->reload_requested, 0, __ATOMIC_ACQ_REL)) {
		drop_netdevs(st);
		st->scanned = false;
	}
	full = !st->scanned || clock_mono_s() - st->last_scan >= st->rescan_interval_s;
	r = rdma_netdevs_now(st, full, &own, &rdma);
	if (r < 0) {
		netdev_set_free(&own);
		return r;
	}
	changed = !netdev_set_equal(rdma, &st->last_rdma);
	if (full || changed) {
		if (full) {
			st->scanned = true;
			st->last_scan = clock_mono_s();
		}
		r = sync_netdevs(st, rdma, full);
		if (r == 0 && changed && rdma != &st->last_rdma) {
			netdev_set_begin(&st->last_rdma);
			for (size_t i = 0; i < rdma->n && r == 0; i++)
				r = netdev_set_add(&st->last_rdma, rdma->names[i]);
		}
		if (r < 0) {
			netdev_set_free(&own);
			return r;
		}
	}
	netdev_set_free(&own);

	for (size_t i = 0; i < st->n_devs; i++) {
		struct eth_netdev *d = st->devs[i];

		if (d->absent)
			continue;
		r = poll_netdev(st, sink, d, stats);
		if (r == -ENOMEM)
			return r;
		if (r == -ENODEV) {
			d->absent = true;
			if (!d->absent_logged) {
				stats->read_errors++;
				log_info("netdev not in this network namespace (gone, renamed or "
					 "elsewhere); looking again at the next scan",
					 "collector=ethtool netdev=%s", d->name);
			}
			d->absent_logged = true;
			/* An included netdev may have been renamed: list again now. RDMA
			 * netdevs come back through the sysfs collector's set. */
			if (!d->rdma)
				st->scanned = false;
			continue;
		}
		d->absent_logged = false;
		stats->devices++;
	}
	if (!st->n_devs && !st->logged_no_netdevs)
		log_info("no netdevs to watch (none bound to an RDMA port, none matching "
			 "--collector.ethtool.netdev-include)",
			 "collector=ethtool");
	st->logged_no_netdevs = st->n_devs == 0;
	return 0;
}

/* ---- life cycle -------------------------------------------------------------------------- */

static void ethtool_free(void *state)
{
	struct ethtool_state *st = state;

	if (!st)
		return;
	drop_netdevs(st);
	netdev_set_free(&st->last_rdma);
	device_filter_free(st->include);
	device_filter_free(st->exclude);
	device_filter_free(st->stat_include);
	if (st->seams.free_io)
		st->seams.free_io(st->seams.io);
	free(st);
}

static const char *flag_str(const struct collector_ctx *ctx, int i)
{
	return ctx->flag_strs ? ctx->flag_strs[i] : NULL;
}

int ethtool_collector_init_with(const struct collector_ctx *ctx, const struct ethtool_seams *seams,
				void **state)
{
	struct ethtool_state *st = calloc(1, sizeof(*st));
	const char *inc = flag_str(ctx, ETHTOOL_FLAG_NETDEV_INCLUDE);
	const char *exc = flag_str(ctx, ETHTOOL_FLAG_NETDEV_EXCLUDE);
	const char *stat = flag_str(ctx, ETHTOOL_FLAG_STAT_INCLUDE);
	char err[256];

	if (!st) {
		if (seams->free_io)
			seams->free_io(seams->io);
		return -ENOMEM;
	}
	st->seams = *seams;
	st->sysfs_fd = ctx->sysfs_fd;
	st->rescan_interval_s = ctx->rescan_interval_s;
	st->sysfs_enabled = ctx->sysfs_collector_enabled;
	st->rdma_netdevs = ctx->rdma_netdevs;
	st->module.interval_ms =
		ctx->flags ? ctx->flags[ETHTOOL_FLAG_MODULE_INTERVAL] : MODULE_INTERVAL_DEFAULT_MS;
	st->module.read_page = seams->module_page;
	st->module.io = seams->io;
	/* The flags were checked by the flag parser; a failure here is ENOMEM. */
	if ((inc && !(st->include = device_filter_new(inc, NULL, err, sizeof(err)))) ||
	    (exc && !(st->exclude = device_filter_new(exc, NULL, err, sizeof(err)))) ||
	    (stat && !(st->stat_include = device_filter_new(stat, NULL, err, sizeof(err))))) {
		ethtool_free(st);
		return -EINVAL;
	}
	*state = st;
	return 0;
}

static int ethtool_init(const struct collector_ctx *ctx, void **state)
{
	struct ethtool_seams seams;
	int r = ethtool_real_seams(&seams);

	if (r < 0)
		return r;
	return ethtool_collector_init_with(ctx, &seams, state);
}

static void ethtool_reload(void *state)
{
	struct ethtool_state *st = state;

	if (st)
		__atomic_store_n(&st->reload_requested, 1, __ATOMIC_RELEASE);
}

static const struct collector_flag ethtool_flags[ETHTOOL_FLAG_COUNT] = {
	[ETHTOOL_FLAG_NETDEV_INCLUDE] =
		{
			.name = "netdev-include",
			.help = "Also watch netdevs whose name matches RE (bond members, the PF "
				"under a VF, plain Ethernet ports); netdevs of RDMA ports are "
				"always watched.",
			.kind = COLLECTOR_FLAG_REGEX,
		},
	[ETHTOOL_FLAG_NETDEV_EXCLUDE] =
		{
			.name = "netdev-exclude",
			.help = "Never watch netdevs whose name matches RE.",
			.kind = COLLECTOR_FLAG_REGEX,
		},
	[ETHTOOL_FLAG_STAT_INCLUDE] =
		{
			.name = "stat-include",
			.help = "Export raw driver statistics whose name matches RE as "
				"rdma_netdev_ethtool_statistic{netdev,name}. Off by default.",
			.kind = COLLECTOR_FLAG_REGEX,
		},
	[ETHTOOL_FLAG_MODULE_INTERVAL] =
		{
			.name = "module-interval",
			.help = "Time between reads of a netdev's pluggable module EEPROM "
				"(transceiver identity, temperature, optical power, thresholds); "
				"the last read is served in between. 0 turns module reads off. "
				"Default 1m.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = MODULE_INTERVAL_DEFAULT_MS,
			.min = 0,
			.max = 24 * 3600 * 1000,
		},
};

const struct collector_ops ethtool_collector_ops = {
	.name = "ethtool",
	.help = "PFC pause counters per priority, pause storms, NIC drops and DCB PFC of RDMA "
		"netdevs",
	.default_enabled = true,
	.flags = ethtool_flags,
	.n_flags = ETHTOOL_FLAG_COUNT,
	.init = ethtool_init,
	.collect = ethtool_collect,
	.reload = ethtool_reload,
	.free = ethtool_free,
};
