// SPDX-License-Identifier: Apache-2.0
/*
 * Policy layer of the netlink collector: one NETLINK_RDMA socket for the
 * daemon's life (reopened after an error), per poll a device dump, a
 * resource summary dump, and per device the QP, CQ, MR, CM_ID and SRQ dumps
 * and one STAT_GET per port, all under one deadline. A device whose dumps
 * fail keeps serving its last good numbers and the failure is counted; a
 * device that vanished mid-poll is dropped without an error. Logs each
 * failing (device, dump) once at warn, later at debug. The samples are
 * netlink_emit.c's, the /proc reads of the process attribution
 * netlink_procs.c's; the state they share is netlink_internal.h.
 */
#include "netlink.h"
#include "netlink_internal.h"
#include "base/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdmanl/nldev_compat.h"

#include "base/log.h"
#include "netlink_procs.h"

/* A dump that NLM_F_DUMP_INTR interrupted is tried this many times. */
#define DUMP_ATTEMPTS 3

enum dump_kind { DUMP_QP, DUMP_CQ, DUMP_MR, DUMP_CM_ID, DUMP_SRQ, DUMP_PD, DUMP_STAT, DUMP_KINDS };

static const struct {
	const char *name;
	uint16_t cmd;
	int (*on_msg)(const struct nlmsghdr *, void *);
} dumps[DUMP_KINDS] = {
	[DUMP_QP] = {"qp", RDMA_NLDEV_CMD_RES_QP_GET, nl_on_qp_msg},
	[DUMP_CQ] = {"cq", RDMA_NLDEV_CMD_RES_CQ_GET, nl_on_cq_msg},
	[DUMP_MR] = {"mr", RDMA_NLDEV_CMD_RES_MR_GET, nl_on_mr_msg},
	[DUMP_CM_ID] = {"cm_id", RDMA_NLDEV_CMD_RES_CM_ID_GET, nl_on_cm_id_msg},
	[DUMP_SRQ] = {"srq", RDMA_NLDEV_CMD_RES_SRQ_GET, nl_on_srq_msg},
	/* Only for rdma_workload_pds (rdma_pds comes from the summary). */
	[DUMP_PD] = {"pd", RDMA_NLDEV_CMD_RES_PD_GET, nl_on_pd_msg},
	[DUMP_STAT] = {"stat", RDMA_NLDEV_CMD_STAT_GET, nl_on_stat_msg},
};

/* ---- devices ----------------------------------------------------------------------------- */

static void device_free(struct nl_device *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->n_ports; i++) {
		nl_stat_list_free(&d->ports[i].stats);
		free(d->ports[i].seen);
	}
	free(d->ports);
	nl_dev_agg_free(&d->cur);
	nl_dev_agg_free(&d->scratch);
	free(d);
}

static struct nl_device *device_new(const struct nl_dev_info *info)
{
	struct nl_device *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->index = info->index;
	memcpy(d->name, info->name, sizeof(d->name));
	/* Port numbers are 1-based; a switch's port 0 is not counted here. */
	if (info->ports) {
		d->ports = calloc(info->ports, sizeof(*d->ports));
		if (!d->ports) {
			free(d);
			return NULL;
		}
		d->n_ports = info->ports;
		for (uint32_t i = 0; i < info->ports; i++) {
			d->ports[i].num = i + 1;
			snprintf(d->ports[i].num_str, sizeof(d->ports[i].num_str), "%u", i + 1);
		}
	}
	return d;
}

static struct nl_device *find_device(struct netlink_state *st, const char *name)
{
	for (size_t i = 0; i < st->n_devs; i++)
		if (st->devs[i] && strcmp(st->devs[i]->name, name) == 0)
			return st->devs[i];
	return NULL;
}

static void drop_devices(struct netlink_state *st)
{
	for (size_t i = 0; i < st->n_devs; i++)
		device_free(st->devs[i]);
	free(st->devs);
	st->devs = NULL;
	st->n_devs = 0;
}

static void query_limits(struct netlink_state *st, struct nl_device *d)
{
	char eb[128];
	int r;

	d->limits_queried = true;
	r = st->seams.query_limits(d->name, &d->limits, st->seams.limits_data);
	if (r < 0)
		log_info("no device limits from libibverbs; rdma_resource_limit is not exported "
			 "for it",
			 "collector=netlink device=%s err=%s errno=%d", d->name,
			 log_strerror(r, eb, sizeof(eb)), -r);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct nl_device *x = *(struct nl_device *const *)a;
	const struct nl_device *y = *(struct nl_device *const *)b;

	return strcmp(x->name, y->name);
}

/*
 * Brings the device cache in line with a device dump: new (or re-created:
 * same name, new index) devices are added and their limits queried, vanished
 * ones dropped. full: also query every device's limits again.
 */
static int sync_devices(struct netlink_state *st, const struct nl_dev_list *l, bool full)
{
	struct nl_device **next;
	size_t n = 0;

	next = calloc(l->n + 1, sizeof(*next));
	if (!next)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		const struct nl_dev_info *info = &l->v[i];
		struct nl_device *d;

		if (!device_filter_match(st->filter, info->name))
			continue;
		d = find_device(st, info->name);
		if (d && (d->index != info->index || d->n_ports != info->ports)) {
			log_info("device was re-created",
				 "collector=netlink device=%s old_index=%u index=%u", d->name,
				 d->index, info->index);
			d = NULL; /* the old one is freed below */
		}
		if (d) {
			/* Taken over: unlink from the old list. */
			for (size_t j = 0; j < st->n_devs; j++)
				if (st->devs[j] == d)
					st->devs[j] = NULL;
			if (full)
				d->limits_queried = false;
		} else {
			d = device_new(info);
			if (!d) {
				/* Out of memory: start over with no devices (the old
				 * list has holes where devices were taken over). */
				for (size_t j = 0; j < n; j++)
					device_free(next[j]);
				free(next);
				drop_devices(st);
				return -ENOMEM;
			}
			log_info("found device", "collector=netlink device=%s index=%u ports=%u",
				 d->name, d->index, d->n_ports);
		}
		if (!d->limits_queried)
			query_limits(st, d);
		next[n++] = d;
	}
	for (size_t j = 0; j < st->n_devs; j++)
		if (st->devs[j]) {
			log_info("device is gone", "collector=netlink device=%s",
				 st->devs[j]->name);
			device_free(st->devs[j]);
		}
	free(st->devs);
	qsort(next, n, sizeof(*next), cmp_dev);
	st->devs = next;
	st->n_devs = n;
	return 0;
}

/* ---- requests ---------------------------------------------------------------------------- */

static void count_error(struct netlink_state *st, int r, struct collector_stats *stats)
{
	enum err_reason why = ERR_KERNEL;

	if (r == -ETIMEDOUT)
		why = ERR_TIMEOUT;
	else if (r == -EINTR)
		why = ERR_INTERRUPTED;
	else if (r == -EBADMSG || r == -EPROTO || r == -ESRCH || r == -EMSGSIZE)
		why = ERR_MALFORMED;
	st->errors_total[why]++;
	stats->read_errors++;
}

static void reset_dev_list(void *data)
{
	nl_dev_list_free(data);
}

static void reset_summary(void *data)
{
	nl_summary_list_free(data);
}

static void reset_qp(void *data)
{
	struct nl_dev_agg *a = data;

	for (size_t i = 0; i < a->n_qp; i++)
		memset(a->qp[i].n, 0, sizeof(a->qp[i].n));
	for (size_t i = 0; i < a->cap_owners; i++)
		a->owners[i].qps = 0;
}

static void reset_cq(void *data)
{
	struct nl_dev_agg *a = data;

	a->cqs = a->cqes = 0;
	for (size_t i = 0; i < a->cap_owners; i++)
		a->owners[i].cqs = 0;
}

static void reset_mr(void *data)
{
	struct nl_dev_agg *a = data;

	a->mrs = a->mr_bytes = a->mrs_with_len = 0;
	for (size_t i = 0; i < a->cap_owners; i++)
		a->owners[i].mrs = a->owners[i].mr_bytes = 0;
}

static void reset_cm(void *data)
{
	struct nl_dev_agg *a = data;

	for (size_t i = 0; i < a->n_cm; i++)
		a->cm[i].n = 0;
	a->cm_ids = 0;
}

static void reset_srq(void *data)
{
	((struct nl_dev_agg *)data)->srqs = 0;
}

static void reset_pd(void *data)
{
	struct nl_dev_agg *a = data;

	a->pds = 0;
	for (size_t i = 0; i < a->cap_owners; i++)
		a->owners[i].pds = 0;
}

static void (*const reset_kind[])(void *) = {reset_qp, reset_cq,  reset_mr,
					     reset_cm, reset_srq, reset_pd};

static void reset_stats(void *data)
{
	struct nl_stat_list *l = data;

	l->n = 0;
	l->bad_objects = 0;
}

/* A dump, retried while NLM_F_DUMP_INTR interrupts it. */
static int dump(struct netlink_state *st, uint16_t cmd, uint32_t dev_index, uint32_t port,
		int (*on_msg)(const struct nlmsghdr *, void *), void *data,
		void (*on_reset)(void *), uint64_t deadline, struct collector_stats *stats)
{
	uint64_t bad = 0;
	int r = -EINTR;

	for (int attempt = 0; attempt < DUMP_ATTEMPTS && r == -EINTR; attempt++) {
		if (attempt) {
			st->retries_total++;
			on_reset(data);
		}
		r = nl_conn_request(st->conn, cmd, port ? 0 : NLM_F_DUMP, dev_index, port, on_msg,
				    data, on_reset, deadline, &bad);
	}
	if (bad) {
		st->errors_total[ERR_MALFORMED] += bad;
		stats->read_errors += bad;
	}
	return r;
}

static void log_dump_failure(struct netlink_state *st, struct nl_device *d, enum dump_kind k, int r)
{
	char eb[128];
	int level = (d->warned & (1u << k)) ? LOG_DEBUG : LOG_WARNING;

	d->warned |= 1u << k;
	log_msg(level, "dump failed; serving its previous numbers",
		"collector=netlink device=%s dump=%s err=%s errno=%d", d->name, dumps[k].name,
		log_strerror(r, eb, sizeof(eb)), -r);
}

/* -ENODEV / -EINVAL for a device the device dump just listed: it is gone. */
static bool device_vanished(int r)
{
	return r == -ENODEV || r == -EINVAL || r == -ENOENT;
}

/*
 * All resource dumps of one device into d->scratch; on success it becomes
 * d->cur. Returns 0, -ENOMEM, -ETIMEDOUT (budget spent: stop polling),
 * -ENODEV (device gone), or 1 when this device failed and keeps its old
 * numbers.
 */
static int poll_resources(struct netlink_state *st, struct nl_device *d, uint64_t deadline,
			  struct collector_stats *stats)
{
	struct nl_dev_agg tmp;

	nl_dev_agg_reset(&d->scratch);
	for (int k = DUMP_QP; k <= DUMP_PD; k++) {
		int r;

		if ((k == DUMP_SRQ && d->no_srq) ||
		    (k == DUMP_PD && (d->no_pd || !st->attribution || !st->top_wl)))
			continue;
		r = dump(st, dumps[k].cmd, d->index, 0, dumps[k].on_msg, &d->scratch, reset_kind[k],
			 deadline, stats);
		if (r == 0) {
			d->warned &= ~(1u << k);
			continue;
		}
		if (r == -ENOMEM)
			return r;
		/* SRQ dumps came in Linux 5.15 (op unknown: EINVAL / EOPNOTSUPP). */
		if (k == DUMP_SRQ && (r == -EINVAL || r == -EOPNOTSUPP)) {
			log_info("the kernel has no SRQ dump; rdma_srqs is not exported",
				 "collector=netlink device=%s", d->name);
			d->no_srq = true;
			continue;
		}
		if (k == DUMP_PD && (r == -EINVAL || r == -EOPNOTSUPP)) {
			log_info("the kernel refuses PD dumps; rdma_workload_pds is not exported",
				 "collector=netlink device=%s", d->name);
			d->no_pd = true;
			continue;
		}
		if (device_vanished(r))
			return -ENODEV;
		count_error(st, r, stats);
		log_dump_failure(st, d, (enum dump_kind)k, r);
		return r == -ETIMEDOUT ? r : 1;
	}
	if (d->scratch.bad_objects) {
		st->errors_total[ERR_MALFORMED] += d->scratch.bad_objects;
		stats->read_errors += d->scratch.bad_objects;
	}
	if (d->have_agg && nl_dev_agg_merge_keys(&d->scratch, &d->cur) < 0)
		return -ENOMEM;
	tmp = d->cur;
	d->cur = d->scratch;
	d->scratch = tmp;
	d->have_agg = true;
	return 0;
}

static int poll_stats(struct netlink_state *st, struct nl_device *d, uint64_t deadline,
		      struct collector_stats *stats)
{
	for (uint32_t i = 0; i < d->n_ports && !d->no_stat; i++) {
		struct nl_port *p = &d->ports[i];
		int r;

		reset_stats(&p->stats);
		r = dump(st, RDMA_NLDEV_CMD_STAT_GET, d->index, p->num, nl_on_stat_msg, &p->stats,
			 reset_stats, deadline, stats);
		if (r == 0) {
			p->have_stats = true;
			if (p->stats.bad_objects) {
				st->errors_total[ERR_MALFORMED] += p->stats.bad_objects;
				stats->read_errors += p->stats.bad_objects;
			}
			d->warned &= ~(1u << DUMP_STAT);
			continue;
		}
		p->have_stats = false;
		if (r == -ENOMEM || r == -ETIMEDOUT) {
			if (r == -ETIMEDOUT)
				count_error(st, r, stats);
			return r;
		}
		/* No hw counters on this device (EOPNOTSUPP), or a kernel
		 * without STAT_GET. Not an error. */
		if (r == -EOPNOTSUPP || r == -EINVAL) {
			d->no_stat = true;
			log_debug("no hw counters over netlink", "collector=netlink device=%s",
				  d->name);
			return 0;
		}
		if (device_vanished(r))
			return -ENODEV;
		count_error(st, r, stats);
		log_dump_failure(st, d, DUMP_STAT, r);
	}
	return 0;
}

/* ---- collect ----------------------------------------------------------------------------- */

static uint64_t budget_ms(const struct netlink_state *st)
{
	return st->timeout_ms ? st->timeout_ms : 1000;
}

/* Opens the socket when needed. 1: unavailable (exported as no devices). */
static int ensure_socket(struct netlink_state *st)
{
	char eb[128];
	int r;

	if (st->unavailable) {
		if (clock_mono_s() - st->unavailable_since < st->rescan_interval_s)
			return 1;
		st->unavailable = false;
	}
	r = nl_conn_open(st->conn);
	if (r == 0) {
		if (st->unavailable_err)
			log_info("RDMA netlink socket open", "collector=netlink");
		st->unavailable_err = 0;
		return 0;
	}
	if (r == -ENOMEM)
		return r;
	st->unavailable = true;
	st->unavailable_since = clock_mono_s();
	if (r != st->unavailable_err) {
		if (r == -EPROTONOSUPPORT || r == -EAFNOSUPPORT)
			log_info("this kernel has no RDMA netlink: no RDMA resources to report, "
				 "trying again at re-scans and SIGHUP",
				 "collector=netlink err=%s", log_strerror(r, eb, sizeof(eb)));
		else
			log_warn(
				"cannot open the RDMA netlink socket; trying again at re-scans and "
				"SIGHUP",
				"collector=netlink err=%s errno=%d",
				log_strerror(r, eb, sizeof(eb)), -r);
	}
	st->unavailable_err = r;
	return 1;
}

static int poll_devices(struct netlink_state *st, uint64_t deadline, bool full,
			struct collector_stats *stats)
{
	struct nl_dev_list l = {0};
	struct nl_summary_list s = {0};
	char eb[128];
	int r;

	r = dump(st, RDMA_NLDEV_CMD_GET, NL_NO_DEVICE, 0, nl_on_dev_msg, &l, reset_dev_list,
		 deadline, stats);
	if (r < 0) {
		if (r != -ENOMEM) {
			count_error(st, r, stats);
			log_msg(st->warned_devlist ? LOG_DEBUG : LOG_WARNING,
				"device dump failed; serving previous numbers",
				"collector=netlink err=%s errno=%d",
				log_strerror(r, eb, sizeof(eb)), -r);
			st->warned_devlist = true;
		}
		nl_dev_list_free(&l);
		return r;
	}
	st->warned_devlist = false;
	if (l.bad_objects) {
		st->errors_total[ERR_MALFORMED] += l.bad_objects;
		stats->read_errors += l.bad_objects;
	}
	r = sync_devices(st, &l, full);
	nl_dev_list_free(&l);
	if (r < 0)
		return r;

	r = dump(st, RDMA_NLDEV_CMD_RES_GET, NL_NO_DEVICE, 0, nl_on_summary_msg, &s, reset_summary,
		 deadline, stats);
	if (r == 0) {
		/* A failed summary dump keeps the previous numbers. */
		for (size_t i = 0; i < st->n_devs; i++)
			st->devs[i]->have_summary = false;
		st->warned_summary = false;
		for (size_t i = 0; i < s.n; i++) {
			struct nl_device *d = find_device(st, s.v[i].name);

			if (d && d->index == s.v[i].index) {
				d->summary = s.v[i];
				d->have_summary = true;
			}
		}
		if (s.bad_objects) {
			st->errors_total[ERR_MALFORMED] += s.bad_objects;
			stats->read_errors += s.bad_objects;
		}
	} else if (r != -ENOMEM) {
		count_error(st, r, stats);
		log_msg(st->warned_summary ? LOG_DEBUG : LOG_WARNING,
			"resource summary dump failed", "collector=netlink err=%s errno=%d",
			log_strerror(r, eb, sizeof(eb)), -r);
		st->warned_summary = true;
	}
	nl_summary_list_free(&s);
	return r == -ENOMEM ? r : 0;
}

static void remove_device(struct netlink_state *st, size_t i)
{
	log_info("device vanished during the poll", "collector=netlink device=%s",
		 st->devs[i]->name);
	device_free(st->devs[i]);
	memmove(&st->devs[i], &st->devs[i + 1], (st->n_devs - i - 1) * sizeof(*st->devs));
	st->n_devs--;
}

static int netlink_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct netlink_state *st = state;
	uint64_t deadline;
	bool full, spent = false;
	int r, failed;

	if (__atomic_exchange_n(&st->reload_requested, 0, __ATOMIC_ACQ_REL)) {
		nl_conn_close(st->conn);
		drop_devices(st);
		st->unavailable = false;
		st->scanned = false;
	}
	r = ensure_socket(st);
	if (r < 0)
		return r;
	if (r > 0) {
		/* No RDMA netlink: nothing to report, and that is not a failure. */
		drop_devices(st);
		return 0;
	}
	full = !st->scanned || clock_mono_s() - st->last_full_scan >= st->rescan_interval_s;
	if (full) {
		st->scanned = true;
		st->last_full_scan = clock_mono_s();
	}
	deadline = clock_mono_ms() + budget_ms(st);
	nl_procs_next_poll(&st->procs);
	r = poll_devices(st, deadline, full, stats);
	if (r == -ENOMEM)
		return r;
	if (r == -ETIMEDOUT)
		spent = true;
	/* Without a device list the collector failed as a whole (success 0);
	 * the devices it knew still serve what they can. */
	failed = r < 0 && r != -ETIMEDOUT ? r : 0;

	for (size_t i = 0; i < st->n_devs;) {
		struct nl_device *d = st->devs[i];

		if (!spent) {
			r = poll_resources(st, d, deadline, stats);
			if (r == 0)
				r = poll_stats(st, d, deadline, stats);
			if (r == -ENOMEM)
				return r;
			if (r == -ENODEV) {
				remove_device(st, i);
				continue;
			}
			if (r == -ETIMEDOUT) {
				spent = true;
				log_debug("poll budget spent",
					  "collector=netlink budget_ms=%llu device=%s",
					  (unsigned long long)budget_ms(st), d->name);
			}
		} else {
			/* Not reached this poll: its previous numbers are served. */
			count_error(st, -ETIMEDOUT, stats);
		}
		r = netlink_emit_device(st, sink, d);
		if (r < 0)
			return r;
		stats->devices++;
		i++;
	}
	if (!st->n_devs && !st->logged_no_devices)
		log_info("no RDMA devices (none present, or none match the device filter)",
			 "collector=netlink");
	st->logged_no_devices = st->n_devs == 0;
	r = netlink_emit_self(st, sink);
	return r < 0 ? r : failed;
}

static void netlink_free(void *state);

/* The initial PID namespace's inode (PROC_PID_INIT_INO, include/linux/proc_ns.h). */
#define PID_NS_INIT_INO 0xEFFFFFFCu

/*
 * RDMA netlink names an object's owner by its pid in the reader's PID
 * namespace: processes outside the exporter's have none there (measured on
 * Linux 6.1: their objects are listed without a pid), and older kernels
 * (rdma_is_visible_in_pid_ns) leave them and kernel-owned objects out. Said
 * once at start; nothing when the link cannot be read (a fixture tree).
 */
static void log_pid_namespace(const struct netlink_state *st)
{
	unsigned long long ino;

	if (nl_procs_pid_ns(&st->procs, &ino) < 0 || ino == PID_NS_INIT_INO)
		return;
	log_info("the exporter runs outside the initial PID namespace: resources of processes "
		 "outside it have no pid here, so they count under comm=\"unknown\" with no "
		 "workload in rdma_process_* and rdma_workload_* (and older kernels leave them "
		 "out of every count); run in the host's PID namespace (Kubernetes: hostPID: "
		 "true, docs/workloads.md)",
		 "collector=netlink pid_ns=%llu", ino);
}

int netlink_collector_init_with(const struct collector_ctx *ctx, const struct netlink_seams *seams,
				void **state)
{
	struct netlink_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->seams = *seams;
	st->sysfs_fd = ctx->sysfs_fd;
	st->filter = ctx->filter;
	st->rescan_interval_s = ctx->rescan_interval_s;
	st->sysfs_enabled = ctx->sysfs_collector_enabled;
	st->top = ctx->flags ? (unsigned)ctx->flags[NETLINK_FLAG_TOP_PROCESSES] : 0;
	st->timeout_ms = ctx->flags ? ctx->flags[NETLINK_FLAG_TIMEOUT] : 0;
	st->attribution = ctx->flags ? ctx->flags[NETLINK_FLAG_ATTRIBUTION] != 0 : true;
	nl_procs_init(&st->procs, ctx->proc_root ? ctx->proc_root : "/proc", seams->comm_of,
		      seams->comm_data, st->attribution);
	st->top_wl = ctx->flags ? (unsigned)ctx->flags[NETLINK_FLAG_TOP_WORKLOADS] : 10;
	st->all_qp_states =
		ctx->flags && ctx->flags[NETLINK_FLAG_QP_STATES] == NETLINK_QP_STATES_ALL;
	/* Default budget: 3/4 of the poller's deadline for the whole run, so
	 * that a slow dump ends here (the previous numbers served) before the
	 * run is left behind, with room for /proc and the samples after it. */
	if (!st->timeout_ms)
		st->timeout_ms = ctx->collector_timeout_ms ? ctx->collector_timeout_ms / 4 * 3
				 : ctx->poll_interval_ms   ? ctx->poll_interval_ms / 2
							   : 2500;
	log_pid_namespace(st);
	st->conn = nl_conn_new(seams->open_transport, seams->open_data);
	if (!st->conn) {
		free(st);
		return -ENOMEM;
	}
	/* Opened now, kept for the daemon's life. A host without RDMA netlink
	 * is not an init failure: it is logged once and reported as no devices. */
	if (ensure_socket(st) < 0) {
		netlink_free(st);
		return -ENOMEM;
	}
	*state = st;
	return 0;
}

static int netlink_init(const struct collector_ctx *ctx, void **state)
{
	const struct netlink_seams real = {
		.open_transport = nl_socket_open,
		.query_limits = nl_verbs_query_limits,
	};

	return netlink_collector_init_with(ctx, &real, state);
}

static void netlink_reload(void *state)
{
	struct netlink_state *st = state;

	if (st)
		__atomic_store_n(&st->reload_requested, 1, __ATOMIC_RELEASE);
}

static void netlink_free(void *state)
{
	struct netlink_state *st = state;

	if (!st)
		return;
	drop_devices(st);
	nl_conn_free(st->conn);
	nl_procs_release(&st->procs);
	free(st);
}

static const struct collector_flag netlink_flags[NETLINK_FLAG_COUNT] = {
	[NETLINK_FLAG_TOP_PROCESSES] =
		{
			.name = "top-processes",
			.help = "Processes per device with their own rdma_process_* series (by "
				"QP count); the rest add up under comm=\"other\". Default 0: "
				"these families are off (the per-workload rdma_workload_* are on).",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 0,
			.min = 0,
			.max = 1000,
			.unit = "processes",
		},
	[NETLINK_FLAG_TIMEOUT] =
		{
			.name = "timeout",
			.help = "Time budget of one poll's netlink requests; a dump that runs over "
				"is abandoned and the previous numbers are served. Default: 3/4 "
				"of --poll.collector-timeout.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 0,
			.min = 10,
			.max = 3600 * 1000,
		},
	[NETLINK_FLAG_ATTRIBUTION] =
		{
			.name = "attribution",
			.help = "Label rdma_process_* with the owning workload (pod_uid, "
				"container_id, slurm_job_id, systemd_unit, read from "
				"/proc/<pid>/cgroup) and export rdma_workload_*. Default on.",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 1,
		},
	[NETLINK_FLAG_TOP_WORKLOADS] =
		{
			.name = "top-workloads",
			.help = "Workloads per device with their own rdma_workload_* series (by QP "
				"count); the rest, and resources outside any workload, add up "
				"under empty identity labels. 0 turns these families off. "
				"Default 10.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 10,
			.min = 0,
			.max = 1000,
			.unit = "workloads",
		},
	[NETLINK_FLAG_QP_STATES] =
		{
			.name = "qp-states",
			.help = "The rdma_qps rows of each device, port and QP type seen: "
				"active, the states that hold a QP and ERR (0 included); all, "
				"every state, 0 included. Default active.",
			.kind = COLLECTOR_FLAG_ENUM,
			.def = NETLINK_QP_STATES_ACTIVE,
			/* in the order of enum netlink_qp_states */
			.values = (const char *const[]){"active", "all", NULL},
		},
};

const struct collector_ops netlink_collector_ops = {
	.name = "netlink",
	.help = "RDMA resources (QP, CQ, MR, PD, CM_ID, CTX, SRQ) from RDMA netlink",
	.default_enabled = true,
	.flags = netlink_flags,
	.n_flags = NETLINK_FLAG_COUNT,
	.init = netlink_init,
	.collect = netlink_collect,
	.reload = netlink_reload,
	.free = netlink_free,
};
