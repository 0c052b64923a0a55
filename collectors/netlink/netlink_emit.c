// SPDX-License-Identifier: Apache-2.0
/*
 * The netlink collector's samples: the resource families of each device, the
 * per-process and per-workload rows (names and workloads from
 * netlink_procs.c), the hw counters that sysfs does not export already, and
 * the collector's own metrics. Policy only: what the polls of netlink.c left
 * in the state becomes samples; nothing is read here but sysfs's presence
 * of a counter file, and nothing logs.
 */
#include "netlink_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdmanl/sysfs_names.h"

static const char *const reason_names[ERR_REASONS] = {"timeout", "interrupted", "malformed",
						      "kernel"};

/* ---- emission ---------------------------------------------------------------------------- */

/* Adds one sample; returns from the caller on ENOMEM. Labels last, none allowed. */
#define ADD(sink, fam, help, type, value, ...)                                                     \
	do {                                                                                       \
		const struct metric_label l_[] = {__VA_ARGS__};                                    \
		int r_ = collector_sink_result(metric_sink_add_u64(                                \
			sink, fam, help, type, l_, sizeof(l_) / sizeof(l_[0]), value));            \
		if (r_ < 0)                                                                        \
			return r_;                                                                 \
	} while (0)

static const char help_resources[] =
	"Resources the kernel tracks on the device by type (qp, cq, mr, pd, cm_id, ctx, srq, "
	"...), from the RDMA netlink resource summary (rdma res).";
static const char help_limit[] =
	"Device maximum of the resource type from ibv_query_device (max_qp, max_cq, max_mr, "
	"max_pd, max_srq), read when the device is first seen and at re-scans.";
static const char help_qps[] =
	"Queue pairs by port (0: not bound to a port yet), type and state, from the RDMA "
	"netlink QP dump (rdma res show qp); for each port and type seen, the states that "
	"hold a QP and ERR (0 included), every state with --collector.netlink.qp-states=all.";
static const char help_cqs[] = "Completion queues, from the RDMA netlink CQ dump.";
static const char help_cqes[] =
	"Sum of the capacity (CQE) of all completion queues, from the RDMA netlink CQ dump.";
static const char help_mrs[] = "Memory regions, from the RDMA netlink MR dump.";
static const char help_mr_bytes[] =
	"Sum of the lengths of all memory regions in bytes, from the RDMA netlink MR dump.";
static const char help_pds[] = "Protection domains, from the RDMA netlink resource summary.";
static const char help_cm_ids[] =
	"RDMA CM identifiers by port (0: not bound), port space and CM state, from the RDMA "
	"netlink CM_ID dump (rdma res show cm_id).";
static const char help_srqs[] = "Shared receive queues, from the RDMA netlink SRQ dump.";
static const char help_proc_qps[] =
	"Queue pairs by owning process name (kernel owners by module name); only the largest "
	"processes by QP count get a series, the rest add up under comm=\"other\". Labelled "
	"with the process's workload (pod_uid, container_id, slurm_job_id, systemd_unit) where "
	"one applies.";
static const char help_proc_mrs[] =
	"Memory regions by owning process name; same processes as rdma_process_qps.";
static const char help_proc_mr_bytes[] =
	"Bytes of memory regions by owning process name; same processes as rdma_process_qps.";
static const char help_wl_qps[] =
	"Queue pairs by owning workload (Kubernetes pod and container, Slurm job or systemd "
	"service, from the owners' /proc/<pid>/cgroup); the largest workloads by QP count, the "
	"rest and resources outside any workload under empty identity labels.";
static const char help_wl_mrs[] = "Memory regions by owning workload; same workloads as "
				  "rdma_workload_qps.";
static const char help_wl_mr_bytes[] =
	"Bytes of memory regions by owning workload; same workloads as rdma_workload_qps.";
static const char help_wl_cqs[] =
	"Completion queues by owning workload; same workloads as rdma_workload_qps.";
static const char help_wl_pds[] =
	"Protection domains by owning workload (RDMA netlink PD dump); same workloads as "
	"rdma_workload_qps.";
static const char help_nl_counter[] =
	"Port hw counter that only RDMA netlink shows (optional counters enabled with rdma "
	"statistic set ... optional-counters, or counters absent from sysfs), raw value.";

#define ADD_L(sink, fam, help, value, labels, n)                                                   \
	do {                                                                                       \
		int r_ = collector_sink_result(                                                    \
			metric_sink_add_u64(sink, fam, help, METRIC_GAUGE, labels, n, value));     \
		if (r_ < 0)                                                                        \
			return r_;                                                                 \
	} while (0)

static int emit_resources(struct netlink_state *st, struct metric_sink *sink,
			  const struct nl_device *d)
{
	const struct nl_dev_agg *a = &d->cur;

	if (d->have_summary)
		for (unsigned i = 0; i < d->summary.n; i++) {
			ADD(sink, "rdma_resources", help_resources, METRIC_GAUGE,
			    d->summary.e[i].curr, {"device", d->name},
			    {"resource", d->summary.e[i].name});
			if (strcmp(d->summary.e[i].name, "pd") == 0)
				ADD(sink, "rdma_pds", help_pds, METRIC_GAUGE, d->summary.e[i].curr,
				    {"device", d->name});
		}
	if (d->limits.valid)
		for (int k = 0; k < NL_LIMIT_COUNT; k++)
			if (d->limits.max[k])
				ADD(sink, "rdma_resource_limit", help_limit, METRIC_GAUGE,
				    d->limits.max[k], {"device", d->name},
				    {"resource", nl_limit_name((enum nl_limit_kind)k)});
	if (!d->have_agg)
		return 0;
	for (size_t i = 0; i < a->n_qp; i++) {
		char port[11];

		snprintf(port, sizeof(port), "%u", a->qp[i].port);
		for (uint8_t s = 0; s < NL_QP_STATES; s++) {
			/* ERR from 0, so that rdma_qps{state="ERR"} > 0 and its
			 * ratios work from the first scrape; no other zero row
			 * (issue 40: 5 of 7 states are 0 on a healthy port) */
			if (!a->qp[i].n[s] && s != NL_QP_STATE_ERR && !st->all_qp_states)
				continue;
			ADD(sink, "rdma_qps", help_qps, METRIC_GAUGE, a->qp[i].n[s],
			    {"device", d->name}, {"port", port},
			    {"type", nl_qp_type_name(a->qp[i].type)},
			    {"state", nl_qp_state_name(s)});
		}
	}
	ADD(sink, "rdma_cqs", help_cqs, METRIC_GAUGE, a->cqs, {"device", d->name});
	ADD(sink, "rdma_cq_entries", help_cqes, METRIC_GAUGE, a->cqes, {"device", d->name});
	ADD(sink, "rdma_mrs", help_mrs, METRIC_GAUGE, a->mrs, {"device", d->name});
	/* Lengths the kernel did not show are not summed as 0. */
	if (a->mrs_with_len == a->mrs)
		ADD(sink, "rdma_mr_registered_bytes", help_mr_bytes, METRIC_GAUGE, a->mr_bytes,
		    {"device", d->name});
	for (size_t i = 0; i < a->n_cm; i++) {
		char port[11];

		snprintf(port, sizeof(port), "%u", a->cm[i].port);
		ADD(sink, "rdma_cm_ids", help_cm_ids, METRIC_GAUGE, a->cm[i].n, {"device", d->name},
		    {"port", port}, {"ps", nl_cm_ps_name(a->cm[i].ps)},
		    {"state", nl_cm_state_name(a->cm[i].state)});
	}
	if (!d->no_srq)
		ADD(sink, "rdma_srqs", help_srqs, METRIC_GAUGE, a->srqs, {"device", d->name});
	return 0;
}

/* device and comm (when given), then the workload's labels that apply. */
static size_t row_labels(const char *device, const char *comm, const struct cg_ident *id,
			 struct metric_label *l)
{
	size_t n = 0;

	l[n++] = (struct metric_label){"device", device};
	if (comm)
		l[n++] = (struct metric_label){"comm", comm};
	if (id->pod_uid[0])
		l[n++] = (struct metric_label){"pod_uid", id->pod_uid};
	if (id->container_id[0])
		l[n++] = (struct metric_label){"container_id", id->container_id};
	if (id->slurm_job_id[0])
		l[n++] = (struct metric_label){"slurm_job_id", id->slurm_job_id};
	if (id->systemd_unit[0])
		l[n++] = (struct metric_label){"systemd_unit", id->systemd_unit};
	return n;
}

static int emit_processes(struct netlink_state *st, struct metric_sink *sink,
			  const struct nl_device *d)
{
	struct nl_proc_row *rows;
	size_t n;
	int r;

	if (!st->top || !d->have_agg)
		return 0;
	r = nl_fold_processes_by(&d->cur, st->top, nl_procs_comm,
				 st->attribution ? nl_procs_ident : NULL, &st->procs, &rows, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct metric_label l[6];
		size_t nl = row_labels(d->name, rows[i].comm, &rows[i].id, l);

		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_process_qps", help_proc_qps, METRIC_GAUGE, l, nl, rows[i].qps));
		if (r == 0)
			r = collector_sink_result(metric_sink_add_u64(sink, "rdma_process_mrs",
								      help_proc_mrs, METRIC_GAUGE,
								      l, nl, rows[i].mrs));
		if (r == 0 && d->cur.mrs_with_len == d->cur.mrs)
			r = collector_sink_result(metric_sink_add_u64(
				sink, "rdma_process_mr_registered_bytes", help_proc_mr_bytes,
				METRIC_GAUGE, l, nl, rows[i].mr_bytes));
	}
	free(rows);
	return r;
}

static int emit_workload_row(struct metric_sink *sink, const struct nl_device *d,
			     const struct nl_workload_row *w)
{
	struct metric_label l[5];
	size_t n = row_labels(d->name, NULL, &w->id, l);

	ADD_L(sink, "rdma_workload_qps", help_wl_qps, w->qps, l, n);
	ADD_L(sink, "rdma_workload_mrs", help_wl_mrs, w->mrs, l, n);
	/* Lengths the kernel did not show are not summed as 0. */
	if (d->cur.mrs_with_len == d->cur.mrs)
		ADD_L(sink, "rdma_workload_mr_registered_bytes", help_wl_mr_bytes, w->mr_bytes, l,
		      n);
	ADD_L(sink, "rdma_workload_cqs", help_wl_cqs, w->cqs, l, n);
	if (!d->no_pd)
		ADD_L(sink, "rdma_workload_pds", help_wl_pds, w->pds, l, n);
	return 0;
}

static int emit_workloads(struct netlink_state *st, struct metric_sink *sink,
			  const struct nl_device *d)
{
	struct nl_workload_row *rows;
	size_t n;
	int r;

	if (!st->attribution || !st->top_wl || !d->have_agg)
		return 0;
	r = nl_fold_workloads(&d->cur, st->top_wl, nl_procs_ident, &st->procs, &rows, &n);
	for (size_t i = 0; i < n && r == 0; i++)
		r = emit_workload_row(sink, d, &rows[i]);
	free(rows);
	return r;
}

static int seen_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct nl_counter_seen *)elem)->name);
}

/* Whether sysfs has class/infiniband/DEV/ports/N/DIR/FILE. */
static bool port_file(struct netlink_state *st, const struct nl_device *d, const struct nl_port *p,
		      const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "class/infiniband/%s/ports/%u/%s/%s", d->name, p->num, dir,
		 file);
	return faccessat(st->sysfs_fd, path, F_OK, 0) == 0;
}

/*
 * Whether the sysfs collector exports metric for the port from some file:
 * one of the table's files of that family in the port's counters/,
 * counters_ext/ or hw_counters/. Each collector writes its own sink, so
 * this cannot be asked of the sink (metric_sink_has sees only netlink's).
 */
static bool family_in_sysfs(struct netlink_state *st, const struct nl_device *d,
			    const struct nl_port *p, const char *metric)
{
	static const struct {
		unsigned src;
		const char *dir;
	} dirs[] = {{SYSFS_SRC_COUNTERS, "counters"},
		    {SYSFS_SRC_COUNTERS_EXT, "counters_ext"},
		    {SYSFS_SRC_HW_COUNTERS, "hw_counters"}};

	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		const struct sysfs_counter_name *n = &sysfs_counter_names[i];

		if (strcmp(n->metric, metric) != 0)
			continue;
		for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++)
			if ((n->sources & dirs[k].src) && port_file(st, d, p, dirs[k].dir, n->file))
				return true;
	}
	return false;
}

/*
 * What sysfs exports of the netlink counter name, decided once per name:
 * the counter itself (ports/N/hw_counters/<name>), or, for a well-known
 * name (known, may be NULL), its family from another file.
 */
static int in_sysfs(struct netlink_state *st, const struct nl_device *d, struct nl_port *p,
		    const char *name, const struct sysfs_counter_name *known,
		    struct nl_counter_seen *out)
{
	struct nl_counter_seen *s =
		p->n_seen ? bsearch(name, p->seen, p->n_seen, sizeof(*p->seen), seen_cmp) : NULL;
	bool look = st->sysfs_enabled && st->sysfs_fd >= 0;
	size_t pos;

	if (s) {
		*out = *s;
		return 0;
	}
	if (p->n_seen == p->cap_seen) {
		size_t ncap = p->cap_seen ? p->cap_seen * 2 : 32;
		struct nl_counter_seen *v = realloc(p->seen, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->seen = v;
		p->cap_seen = ncap;
	}
	for (pos = 0; pos < p->n_seen && strcmp(p->seen[pos].name, name) < 0; pos++)
		;
	memmove(&p->seen[pos + 1], &p->seen[pos], (p->n_seen - pos) * sizeof(*p->seen));
	s = &p->seen[pos];
	p->n_seen++;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->in_sysfs = look && port_file(st, d, p, "hw_counters", name);
	s->family_in_sysfs =
		look && known && !s->in_sysfs && family_in_sysfs(st, d, p, known->metric);
	*out = *s;
	return 0;
}

static int emit_counters(struct netlink_state *st, struct metric_sink *sink, struct nl_device *d)
{
	for (uint32_t i = 0; i < d->n_ports; i++) {
		struct nl_port *p = &d->ports[i];

		if (!p->have_stats)
			continue;
		for (size_t j = 0; j < p->stats.n; j++) {
			const struct nl_stat *c = &p->stats.v[j];
			const struct sysfs_counter_name *known =
				sysfs_counter_lookup(c->name, SYSFS_SRC_HW_COUNTERS);
			struct nl_counter_seen seen;
			uint64_t v = c->value;
			int r;

			r = in_sysfs(st, d, p, c->name, known, &seen);
			if (r < 0)
				return r;
			if (seen.in_sysfs)
				continue;
			/* the family once: sysfs's first, then netlink's own first */
			if (known && !seen.family_in_sysfs &&
			    !__builtin_mul_overflow(
				    v, (uint64_t)(known->multiplier ? known->multiplier : 1), &v) &&
			    !metric_sink_has(
				    sink, known->metric,
				    METRIC_LABELS({"device", d->name}, {"port", p->num_str}))) {
				ADD(sink, known->metric, known->help, known->type, v,
				    {"device", d->name}, {"port", p->num_str});
				continue;
			}
			ADD(sink, "rdma_port_statistic_total", help_nl_counter, METRIC_COUNTER,
			    c->value, {"device", d->name}, {"port", p->num_str},
			    {"source", "netlink"}, {"counter", c->name});
		}
	}
	return 0;
}

int netlink_emit_self(struct netlink_state *st, struct metric_sink *sink)
{
	const struct nl_conn_stats *cs = nl_conn_stats(st->conn);

	for (int i = 0; i < ERR_REASONS; i++)
		ADD(sink, "rdma_exporter_netlink_errors_total",
		    "RDMA netlink requests or objects that failed, by reason: timeout (poll "
		    "budget spent), interrupted (dump changed under us, retries used up), "
		    "malformed (reply or object skipped), kernel (error reply).",
		    METRIC_COUNTER, st->errors_total[i], {"reason", reason_names[i]});
	ADD(sink, "rdma_exporter_netlink_requests_total",
	    "RDMA netlink requests sent (dumps and per-port counter reads).", METRIC_COUNTER,
	    cs->requests);
	ADD(sink, "rdma_exporter_netlink_received_bytes_total",
	    "Bytes of RDMA netlink replies read.", METRIC_COUNTER, cs->bytes);
	ADD(sink, "rdma_exporter_netlink_dump_retries_total",
	    "RDMA netlink dumps started again because NLM_F_DUMP_INTR said the kernel's table "
	    "changed during the dump.",
	    METRIC_COUNTER, st->retries_total);
	return 0;
}

int netlink_emit_device(struct netlink_state *st, struct metric_sink *sink, struct nl_device *d)
{
	int r = emit_resources(st, sink, d);

	if (r == 0)
		r = emit_processes(st, sink, d);
	if (r == 0)
		r = emit_workloads(st, sink, d);
	if (r == 0)
		r = emit_counters(st, sink, d);
	return r;
}
