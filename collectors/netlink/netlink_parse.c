// SPDX-License-Identifier: Apache-2.0
/* The netlink collector's resource dump parsers and their folding by process
 * and workload: see netlink_parse.h. */
#include "netlink_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include "rdmanl/nldev_compat.h"

/* ---- resource summary ----------------------------------------------------------------- */

static int summary_entry(const struct nlattr *entry, void *data)
{
	struct nl_res_summary *s = data;
	nl_attr_table tb;

	if (nl_parse_attrs(mnl_attr_get_payload(entry), mnl_attr_get_payload_len(entry), tb) < 0 ||
	    !tb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR])
		return -EBADMSG;
	if (s->n == NL_SUMMARY_MAX)
		return -E2BIG;
	nl_copy_str(s->e[s->n].name, sizeof(s->e[s->n].name),
		    tb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME]);
	s->e[s->n].curr = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR]);
	s->n++;
	return 0;
}

struct summary_walk {
	struct nl_res_summary *s;
	uint64_t bad;
};

static int summary_entry_counted(const struct nlattr *entry, void *data)
{
	struct summary_walk *w = data;

	if (summary_entry(entry, w->s) < 0)
		w->bad++;
	return 0;
}

int nl_on_summary_msg(const struct nlmsghdr *nlh, void *data)
{
	struct nl_summary_list *l = data;
	struct summary_walk w = {0};
	struct nl_res_summary *s;
	nl_attr_table tb;

	if (nl_parse_msg(nlh, tb) < 0 || !tb[RDMA_NLDEV_ATTR_DEV_INDEX] ||
	    !tb[RDMA_NLDEV_ATTR_DEV_NAME] || !tb[RDMA_NLDEV_ATTR_RES_SUMMARY]) {
		l->bad_objects++;
		return -EBADMSG;
	}
	if (nl_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
		return -ENOMEM;
	s = &l->v[l->n++];
	memset(s, 0, sizeof(*s));
	s->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	nl_copy_str(s->name, sizeof(s->name), tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	w.s = s;
	if (nl_for_each_entry(tb[RDMA_NLDEV_ATTR_RES_SUMMARY], RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY,
			      summary_entry_counted, &w) < 0)
		w.bad++;
	l->bad_objects += w.bad;
	return 0;
}

void nl_summary_list_free(struct nl_summary_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- per-device resource aggregate ---------------------------------------------------- */

static uint64_t owner_hash(uint32_t pid, const char *kern)
{
	uint64_t h = 1469598103934665603ull ^ pid;

	h *= 1099511628211ull;
	/* As stored: at most NL_NAME_MAX - 1 bytes, so a rehash finds it. */
	for (size_t n = 0; *kern && n < NL_NAME_MAX - 1; kern++, n++) {
		h ^= (unsigned char)*kern;
		h *= 1099511628211ull;
	}
	return h;
}

static int owners_grow(struct nl_dev_agg *a)
{
	struct nl_owner *old = a->owners, *n;
	size_t old_cap = a->cap_owners, ncap;

	if (a->n_owners * 2 < a->cap_owners)
		return 0;
	ncap = old_cap ? old_cap * 2 : 64;
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		j = owner_hash(old[i].pid, old[i].kern) & (ncap - 1);
		while (n[j].used)
			j = (j + 1) & (ncap - 1);
		n[j] = old[i];
	}
	free(old);
	a->owners = n;
	a->cap_owners = ncap;
	return 0;
}

/* The owner of an entry (RES_PID or RES_KERN_NAME), created on first sight. */
static struct nl_owner *owner_of(struct nl_dev_agg *a, nl_attr_table tb)
{
	const char *kern = "";
	uint32_t pid = 0;
	size_t i;

	/* Names are compared only for kernel owners (pid 0): user processes,
	 * nearly all of them, are found by pid alone. */
	if (tb[RDMA_NLDEV_ATTR_RES_PID])
		pid = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_RES_PID]);
	else if (tb[RDMA_NLDEV_ATTR_RES_KERN_NAME])
		kern = mnl_attr_get_str(tb[RDMA_NLDEV_ATTR_RES_KERN_NAME]);
	if (owners_grow(a) < 0)
		return NULL;
	for (i = owner_hash(pid, pid ? "" : kern) & (a->cap_owners - 1); a->owners[i].used;
	     i = (i + 1) & (a->cap_owners - 1)) {
		const struct nl_owner *o = &a->owners[i];

		if (o->pid == pid && (pid || strncmp(o->kern, kern, sizeof(o->kern) - 1) == 0))
			return &a->owners[i];
	}
	a->owners[i].used = true;
	a->owners[i].pid = pid;
	a->owners[i].kern[0] = '\0';
	if (!pid)
		snprintf(a->owners[i].kern, sizeof(a->owners[i].kern), "%s", kern);
	a->n_owners++;
	return &a->owners[i];
}

static struct nl_qp_bucket *qp_bucket(struct nl_dev_agg *a, uint32_t port, uint8_t type)
{
	struct nl_qp_bucket *b;

	for (size_t i = 0; i < a->n_qp; i++)
		if (a->qp[i].port == port && a->qp[i].type == type)
			return &a->qp[i];
	if (nl_grow((void **)&a->qp, &a->cap_qp, a->n_qp, sizeof(*a->qp)) < 0)
		return NULL;
	b = &a->qp[a->n_qp++];
	memset(b, 0, sizeof(*b));
	b->port = port;
	b->type = type;
	return b;
}

static struct nl_cm_bucket *cm_bucket(struct nl_dev_agg *a, uint32_t port, uint32_t ps,
				      uint8_t state)
{
	struct nl_cm_bucket *b;

	for (size_t i = 0; i < a->n_cm; i++)
		if (a->cm[i].port == port && a->cm[i].ps == ps && a->cm[i].state == state)
			return &a->cm[i];
	if (nl_grow((void **)&a->cm, &a->cap_cm, a->n_cm, sizeof(*a->cm)) < 0)
		return NULL;
	b = &a->cm[a->n_cm++];
	memset(b, 0, sizeof(*b));
	b->port = port;
	b->ps = ps;
	b->state = state;
	return b;
}

/* Entry handlers: 0, -ENOMEM, or -EBADMSG for an object skipped. */

/* The attributes of an entry counted per owner, and that owner (*o). */
static int owned_entry(const struct nlattr *entry, struct nl_dev_agg *a, nl_attr_table tb,
		       struct nl_owner **o)
{
	if (nl_parse_entry(entry, tb) < 0)
		return -EBADMSG;
	*o = owner_of(a, tb);
	return *o ? 0 : -ENOMEM;
}

static int qp_entry(const struct nlattr *entry, struct nl_dev_agg *a)
{
	struct nl_qp_bucket *b;
	struct nl_owner *o;
	uint8_t state;
	nl_attr_table tb;

	if (nl_parse_entry(entry, tb) < 0 || !tb[RDMA_NLDEV_ATTR_RES_TYPE] ||
	    !tb[RDMA_NLDEV_ATTR_RES_STATE])
		return -EBADMSG;
	state = mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_RES_STATE]);
	if (state >= NL_QP_STATES)
		return -EBADMSG;
	b = qp_bucket(a, nl_port_of(tb), mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_RES_TYPE]));
	o = owner_of(a, tb);
	if (!b || !o)
		return -ENOMEM;
	b->n[state]++;
	o->qps++;
	return 0;
}

static int cq_entry(const struct nlattr *entry, struct nl_dev_agg *a)
{
	struct nl_owner *o;
	nl_attr_table tb;
	int r = owned_entry(entry, a, tb, &o);

	if (r < 0)
		return r;
	o->cqs++;
	a->cqs++;
	if (tb[RDMA_NLDEV_ATTR_RES_CQE])
		a->cqes += mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_RES_CQE]);
	return 0;
}

static int mr_entry(const struct nlattr *entry, struct nl_dev_agg *a)
{
	struct nl_owner *o;
	nl_attr_table tb;
	int r = owned_entry(entry, a, tb, &o);

	if (r < 0)
		return r;
	a->mrs++;
	o->mrs++;
	if (tb[RDMA_NLDEV_ATTR_RES_MRLEN]) {
		uint64_t len = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_RES_MRLEN]);

		/* Sums saturate: a u64 of bytes does not wrap in practice, but
		 * a hostile reply must not make the total go backwards. */
		a->mr_bytes = a->mr_bytes + len < a->mr_bytes ? UINT64_MAX : a->mr_bytes + len;
		o->mr_bytes = o->mr_bytes + len < o->mr_bytes ? UINT64_MAX : o->mr_bytes + len;
		a->mrs_with_len++;
	}
	return 0;
}

static int cm_id_entry(const struct nlattr *entry, struct nl_dev_agg *a)
{
	struct nl_cm_bucket *b;
	nl_attr_table tb;

	if (nl_parse_entry(entry, tb) < 0 || !tb[RDMA_NLDEV_ATTR_RES_STATE] ||
	    !tb[RDMA_NLDEV_ATTR_RES_PS])
		return -EBADMSG;
	b = cm_bucket(a, nl_port_of(tb), mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_RES_PS]),
		      mnl_attr_get_u8(tb[RDMA_NLDEV_ATTR_RES_STATE]));
	if (!b)
		return -ENOMEM;
	b->n++;
	a->cm_ids++;
	return 0;
}

static int srq_entry(const struct nlattr *entry, struct nl_dev_agg *a)
{
	nl_attr_table tb;

	if (nl_parse_entry(entry, tb) < 0)
		return -EBADMSG;
	a->srqs++;
	return 0;
}

static int pd_entry(const struct nlattr *entry, struct nl_dev_agg *a)
{
	struct nl_owner *o;
	nl_attr_table tb;
	int r = owned_entry(entry, a, tb, &o);

	if (r < 0)
		return r;
	o->pds++;
	a->pds++;
	return 0;
}

struct res_walk {
	struct nl_dev_agg *a;
	int (*entry)(const struct nlattr *entry, struct nl_dev_agg *a);
};

static int res_walk_entry(const struct nlattr *entry, void *data)
{
	struct res_walk *w = data;
	int r = w->entry(entry, w->a);

	if (r == -EBADMSG)
		w->a->bad_objects++;
	return r;
}

static int on_res_msg(const struct nlmsghdr *nlh, struct nl_dev_agg *a, uint16_t table,
		      uint16_t entry_type, int (*entry)(const struct nlattr *, struct nl_dev_agg *))
{
	struct res_walk w = {a, entry};
	nl_attr_table tb;
	int r;

	if (nl_parse_msg(nlh, tb) < 0) {
		a->bad_objects++;
		return -EBADMSG;
	}
	/* A message without the table: the device has none of them. */
	if (!tb[table])
		return 0;
	r = nl_for_each_entry(tb[table], entry_type, res_walk_entry, &w);
	if (r == -EBADMSG)
		a->bad_objects++;
	return r;
}

int nl_on_qp_msg(const struct nlmsghdr *nlh, void *data)
{
	return on_res_msg(nlh, data, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY,
			  qp_entry);
}

int nl_on_cq_msg(const struct nlmsghdr *nlh, void *data)
{
	return on_res_msg(nlh, data, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY,
			  cq_entry);
}

int nl_on_mr_msg(const struct nlmsghdr *nlh, void *data)
{
	return on_res_msg(nlh, data, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY,
			  mr_entry);
}

int nl_on_cm_id_msg(const struct nlmsghdr *nlh, void *data)
{
	return on_res_msg(nlh, data, RDMA_NLDEV_ATTR_RES_CM_ID, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY,
			  cm_id_entry);
}

int nl_on_srq_msg(const struct nlmsghdr *nlh, void *data)
{
	return on_res_msg(nlh, data, RDMA_NLDEV_ATTR_RES_SRQ, RDMA_NLDEV_ATTR_RES_SRQ_ENTRY,
			  srq_entry);
}

int nl_on_pd_msg(const struct nlmsghdr *nlh, void *data)
{
	return on_res_msg(nlh, data, RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY,
			  pd_entry);
}

void nl_dev_agg_reset(struct nl_dev_agg *a)
{
	for (size_t i = 0; i < a->n_qp; i++)
		memset(a->qp[i].n, 0, sizeof(a->qp[i].n));
	for (size_t i = 0; i < a->n_cm; i++)
		a->cm[i].n = 0;
	if (a->owners)
		memset(a->owners, 0, a->cap_owners * sizeof(*a->owners));
	a->n_owners = 0;
	a->cqs = a->cqes = a->mrs = a->mr_bytes = a->mrs_with_len = a->srqs = a->cm_ids = 0;
	a->pds = 0;
	a->bad_objects = 0;
}

int nl_dev_agg_merge_keys(struct nl_dev_agg *dst, const struct nl_dev_agg *src)
{
	for (size_t i = 0; i < src->n_qp; i++)
		if (!qp_bucket(dst, src->qp[i].port, src->qp[i].type))
			return -ENOMEM;
	for (size_t i = 0; i < src->n_cm; i++)
		if (!cm_bucket(dst, src->cm[i].port, src->cm[i].ps, src->cm[i].state))
			return -ENOMEM;
	return 0;
}

void nl_dev_agg_free(struct nl_dev_agg *a)
{
	if (!a)
		return;
	free(a->qp);
	free(a->cm);
	free(a->owners);
	memset(a, 0, sizeof(*a));
}

/* ---- per-process and per-workload folding --------------------------------------------- */

static int ident_cmp(const struct cg_ident *a, const struct cg_ident *b)
{
	int r = strcmp(a->pod_uid, b->pod_uid);

	if (!r)
		r = strcmp(a->container_id, b->container_id);
	if (!r)
		r = strcmp(a->slurm_job_id, b->slurm_job_id);
	if (!r)
		r = strcmp(a->systemd_unit, b->systemd_unit);
	return r;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int row_name_cmp(const void *pa, const void *pb)
{
	const struct nl_proc_row *a = pa, *b = pb;
	int r = strcmp(a->comm, b->comm);

	return r ? r : ident_cmp(&a->id, &b->id);
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct nl_proc_row *a = pa, *b = pb;

	if (a->qps != b->qps)
		return a->qps > b->qps ? -1 : 1;
	if (a->mr_bytes != b->mr_bytes)
		return a->mr_bytes > b->mr_bytes ? -1 : 1;
	if (a->mrs != b->mrs)
		return a->mrs > b->mrs ? -1 : 1;
	return row_name_cmp(pa, pb);
}

static void row_add(struct nl_proc_row *dst, const struct nl_proc_row *src)
{
	dst->qps += src->qps;
	dst->mrs += src->mrs;
	dst->mr_bytes = add_sat(dst->mr_bytes, src->mr_bytes);
}

/* One row per owner holding QPs or MRs, named and identified; returns the count. */
static size_t proc_rows(const struct nl_dev_agg *a, nl_comm_fn comm_of, nl_ident_fn ident_of,
			void *data, struct nl_proc_row *v)
{
	size_t n = 0;

	for (size_t i = 0; i < a->cap_owners; i++) {
		const struct nl_owner *o = &a->owners[i];
		struct nl_proc_row *r;

		/* An owner whose objects went away in a retried dump has none;
		 * one that holds only CQs or PDs is a workload's, not a row here. */
		if (!o->used || (!o->qps && !o->mrs))
			continue;
		r = &v[n++];
		if (o->pid) {
			if (!comm_of || comm_of(o->pid, r->comm, sizeof(r->comm), data) < 0 ||
			    !r->comm[0])
				snprintf(r->comm, sizeof(r->comm), "unknown");
			if (ident_of && ident_of(o->pid, &r->id, data) < 0)
				memset(&r->id, 0, sizeof(r->id));
		} else {
			snprintf(r->comm, sizeof(r->comm), "%s", o->kern[0] ? o->kern : "unknown");
		}
		r->qps = o->qps;
		r->mrs = o->mrs;
		r->mr_bytes = o->mr_bytes;
	}
	return n;
}

int nl_fold_processes_by(const struct nl_dev_agg *a, unsigned top, nl_comm_fn comm_of,
			 nl_ident_fn ident_of, void *data, struct nl_proc_row **rows,
			 size_t *n_rows)
{
	struct nl_proc_row *v, other = {.comm = "other"};
	size_t n, m = 0;

	*rows = NULL;
	*n_rows = 0;
	if (!a->n_owners)
		return 0;
	v = calloc(a->n_owners + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = proc_rows(a, comm_of, ident_of, data, v);
	/* Fold rows of the same name and workload. */
	qsort(v, n, sizeof(*v), row_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && row_name_cmp(&v[m - 1], &v[i]) == 0)
			row_add(&v[m - 1], &v[i]);
		else
			v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), row_cmp);
	if (m > top) {
		for (size_t i = top; i < m; i++)
			row_add(&other, &v[i]);
		m = top;
		/* A process that is really called "other", outside any
		 * workload, takes the rest in (the same label set). */
		for (size_t i = 0; i < m; i++)
			if (strcmp(v[i].comm, "other") == 0 && cg_ident_empty(&v[i].id)) {
				row_add(&v[i], &other);
				other.qps = other.mrs = other.mr_bytes = 0;
				other.comm[0] = '\0';
			}
		if (other.comm[0])
			v[m++] = other;
	}
	*rows = v;
	*n_rows = m;
	return 0;
}

int nl_fold_processes(const struct nl_dev_agg *a, unsigned top, nl_comm_fn comm_of, void *data,
		      struct nl_proc_row **rows, size_t *n_rows)
{
	return nl_fold_processes_by(a, top, comm_of, NULL, data, rows, n_rows);
}

static int wl_id_cmp(const void *pa, const void *pb)
{
	return ident_cmp(&((const struct nl_workload_row *)pa)->id,
			 &((const struct nl_workload_row *)pb)->id);
}

static int wl_cmp(const void *pa, const void *pb)
{
	const struct nl_workload_row *a = pa, *b = pb;
	const uint64_t ka[] = {a->qps, a->mr_bytes, a->mrs, a->cqs, a->pds};
	const uint64_t kb[] = {b->qps, b->mr_bytes, b->mrs, b->cqs, b->pds};

	for (size_t i = 0; i < sizeof(ka) / sizeof(ka[0]); i++)
		if (ka[i] != kb[i])
			return ka[i] > kb[i] ? -1 : 1;
	return wl_id_cmp(pa, pb);
}

static void wl_add(struct nl_workload_row *dst, const struct nl_workload_row *src)
{
	dst->qps = add_sat(dst->qps, src->qps);
	dst->mrs = add_sat(dst->mrs, src->mrs);
	dst->mr_bytes = add_sat(dst->mr_bytes, src->mr_bytes);
	dst->cqs = add_sat(dst->cqs, src->cqs);
	dst->pds = add_sat(dst->pds, src->pds);
}

/* Rows of owners with an identity into v (returned count), the others into rest. */
static size_t workload_rows(const struct nl_dev_agg *a, nl_ident_fn ident_of, void *data,
			    struct nl_workload_row *v, struct nl_workload_row *rest)
{
	size_t n = 0;

	for (size_t i = 0; i < a->cap_owners; i++) {
		const struct nl_owner *o = &a->owners[i];
		struct nl_workload_row r = {0};

		if (!o->used || (!o->qps && !o->mrs && !o->cqs && !o->pds))
			continue;
		r.qps = o->qps;
		r.mrs = o->mrs;
		r.mr_bytes = o->mr_bytes;
		r.cqs = o->cqs;
		r.pds = o->pds;
		if (o->pid && ident_of && ident_of(o->pid, &r.id, data) == 0 &&
		    !cg_ident_empty(&r.id))
			v[n++] = r;
		else
			wl_add(rest, &r);
	}
	return n;
}

int nl_fold_workloads(const struct nl_dev_agg *a, unsigned top, nl_ident_fn ident_of, void *data,
		      struct nl_workload_row **rows, size_t *n_rows)
{
	struct nl_workload_row *v, rest = {0};
	size_t n, m = 0;

	*rows = NULL;
	*n_rows = 0;
	if (!a->n_owners)
		return 0;
	v = calloc(a->n_owners + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	n = workload_rows(a, ident_of, data, v, &rest);
	qsort(v, n, sizeof(*v), wl_id_cmp);
	for (size_t i = 0; i < n; i++) {
		if (m && wl_id_cmp(&v[m - 1], &v[i]) == 0)
			wl_add(&v[m - 1], &v[i]);
		else
			v[m++] = v[i];
	}
	qsort(v, m, sizeof(*v), wl_cmp);
	for (size_t i = top; i < m; i++)
		wl_add(&rest, &v[i]);
	if (m > top)
		m = top;
	if (rest.qps || rest.mrs || rest.cqs || rest.pds)
		v[m++] = rest;
	if (!m) {
		free(v);
		v = NULL;
	}
	*rows = v;
	*n_rows = m;
	return 0;
}
