// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the RDMA netlink reply parsers (netlink_parse.c). The first
 * byte picks the message handler (device, summary, QP, CQ, MR, CM_ID, SRQ,
 * STAT) and so the command the reply answers; the rest is one datagram fed to
 * nl_reply_feed, as the transport would. The seeds are the kernel replies
 * recorded in the Soft-RoCE VM (tests/fixtures/netlink/).
 *
 * Invariants: the result is 1, 0 or a -errno the kernel could send (-4095 to
 * -1); the aggregates agree with themselves (strings terminated, counts add up
 * across QP buckets, CM buckets and owners) and folding them per process keeps
 * every QP and MR.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rdma/rdma_netlink.h>

#include "fuzz.h"
#include "netlink_parse.h"

enum { H_DEV, H_SUMMARY, H_QP, H_CQ, H_MR, H_CM_ID, H_SRQ, H_STAT, N_HANDLERS };

static int (*const handlers[N_HANDLERS])(const struct nlmsghdr *, void *) = {
	[H_DEV] = nl_on_dev_msg, [H_SUMMARY] = nl_on_summary_msg, [H_QP] = nl_on_qp_msg,
	[H_CQ] = nl_on_cq_msg,	 [H_MR] = nl_on_mr_msg,		  [H_CM_ID] = nl_on_cm_id_msg,
	[H_SRQ] = nl_on_srq_msg, [H_STAT] = nl_on_stat_msg,
};

static const uint16_t handler_cmd[N_HANDLERS] = {
	[H_DEV] = RDMA_NLDEV_CMD_GET,	      [H_SUMMARY] = RDMA_NLDEV_CMD_RES_GET,
	[H_QP] = RDMA_NLDEV_CMD_RES_QP_GET,   [H_CQ] = RDMA_NLDEV_CMD_RES_CQ_GET,
	[H_MR] = RDMA_NLDEV_CMD_RES_MR_GET,   [H_CM_ID] = RDMA_NLDEV_CMD_RES_CM_ID_GET,
	[H_SRQ] = RDMA_NLDEV_CMD_RES_SRQ_GET, [H_STAT] = RDMA_NLDEV_CMD_STAT_GET,
};

struct aggs {
	struct nl_dev_list dev;
	struct nl_summary_list sum;
	struct nl_dev_agg agg;
	struct nl_stat_list stat;
};

static int comm_of(uint32_t pid, char *comm, size_t size, void *data)
{
	if (pid % 3 == 0)
		return -ESRCH;
	snprintf(comm, size, "p%u", pid % 5);
	return 0;
}

/* Workloads by pid: none for some, a few shared job IDs for the others. */
static int ident_of(uint32_t pid, struct cg_ident *id, void *data)
{
	(void)data;
	memset(id, 0, sizeof(*id));
	if (pid % 4 == 0)
		return -ESRCH;
	if (pid % 4 == 1)
		return 0;
	snprintf(id->slurm_job_id, sizeof(id->slurm_job_id), "%u", pid % 3);
	return 0;
}

/* Folding by workload keeps every QP, MR, CQ and PD owned, in at most
 * top + 1 rows, the one without identity last. */
static void check_workloads(const struct nl_dev_agg *g, uint64_t qps)
{
	uint64_t q = 0, m = 0, c = 0, p = 0, oc = 0, op = 0;
	struct nl_workload_row *rows;
	size_t n;

	for (size_t i = 0; i < g->cap_owners; i++)
		if (g->owners[i].used) {
			oc += g->owners[i].cqs;
			op += g->owners[i].pds;
		}
	FUZZ_CHECK(oc == g->cqs);
	FUZZ_CHECK(op == g->pds);
	FUZZ_CHECK(nl_fold_workloads(g, 2, ident_of, NULL, &rows, &n) == 0);
	FUZZ_CHECK(n <= 3);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(!cg_ident_empty(&rows[i].id) || i == n - 1);
		q += rows[i].qps;
		m += rows[i].mrs;
		c += rows[i].cqs;
		p += rows[i].pds;
	}
	FUZZ_CHECK(q == qps && m == g->mrs && c == g->cqs && p == g->pds);
	free(rows);
}

static void check_lists(const struct aggs *a)
{
	FUZZ_CHECK(a->dev.n <= a->dev.cap);
	for (size_t i = 0; i < a->dev.n; i++)
		FUZZ_CHECK(strnlen(a->dev.v[i].name, NL_NAME_MAX) < NL_NAME_MAX);
	FUZZ_CHECK(a->sum.n <= a->sum.cap);
	for (size_t i = 0; i < a->sum.n; i++) {
		FUZZ_CHECK(a->sum.v[i].n <= NL_SUMMARY_MAX);
		FUZZ_CHECK(strnlen(a->sum.v[i].name, NL_NAME_MAX) < NL_NAME_MAX);
		for (unsigned j = 0; j < a->sum.v[i].n; j++)
			FUZZ_CHECK(strnlen(a->sum.v[i].e[j].name, 16) < 16);
	}
	FUZZ_CHECK(a->stat.n <= a->stat.cap);
	for (size_t i = 0; i < a->stat.n; i++)
		FUZZ_CHECK(strnlen(a->stat.v[i].name, NL_NAME_MAX) < NL_NAME_MAX);
}

static void check_agg(const struct nl_dev_agg *g)
{
	uint64_t qps = 0, owner_qps = 0, owner_mrs = 0, cms = 0, used = 0;
	bool saturated = g->mr_bytes == UINT64_MAX;
	struct nl_proc_row *rows;
	size_t n_rows;

	FUZZ_CHECK(g->n_qp <= g->cap_qp && g->n_cm <= g->cap_cm);
	for (size_t i = 0; i < g->n_qp; i++)
		for (int s = 0; s < NL_QP_STATES; s++)
			qps += g->qp[i].n[s];
	for (size_t i = 0; i < g->n_cm; i++)
		cms += g->cm[i].n;
	FUZZ_CHECK(cms == g->cm_ids);
	for (size_t i = 0; i < g->cap_owners; i++) {
		const struct nl_owner *o = &g->owners[i];

		if (!o->used)
			continue;
		used++;
		owner_qps += o->qps;
		owner_mrs += o->mrs;
		FUZZ_CHECK(strnlen(o->kern, NL_NAME_MAX) < NL_NAME_MAX);
		FUZZ_CHECK(o->pid == 0 || o->kern[0] == '\0');
		saturated |= o->mr_bytes == UINT64_MAX;
	}
	FUZZ_CHECK(used == g->n_owners);
	FUZZ_CHECK(g->cap_owners == 0 || g->n_owners * 2 <= g->cap_owners);
	FUZZ_CHECK(owner_qps == qps);
	FUZZ_CHECK(owner_mrs == g->mrs);
	FUZZ_CHECK(g->mrs_with_len <= g->mrs);

	/* folding keeps every QP and MR, in at most top + 1 rows */
	FUZZ_CHECK(nl_fold_processes(g, 2, comm_of, NULL, &rows, &n_rows) == 0);
	FUZZ_CHECK(n_rows <= 3);
	if (g->n_owners) {
		uint64_t rq = 0, rm = 0, rb = 0;

		for (size_t i = 0; i < n_rows; i++) {
			FUZZ_CHECK(strnlen(rows[i].comm, NL_NAME_MAX) < NL_NAME_MAX);
			rq += rows[i].qps;
			rm += rows[i].mrs;
			rb = rb + rows[i].mr_bytes < rb ? UINT64_MAX : rb + rows[i].mr_bytes;
		}
		FUZZ_CHECK(rq == qps);
		FUZZ_CHECK(rm == g->mrs);
		if (!saturated)
			FUZZ_CHECK(rb == g->mr_bytes);
	}
	free(rows);
	check_workloads(g, qps);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aggs a;
	struct nl_reply r = {.seq = 7, .portid = 9};
	uint8_t *dg;
	size_t len;
	int h, ret;

	if (size < 1)
		return 0;
	h = data[0] % N_HANDLERS;
	len = size - 1;
	/* an exact-size, suitably aligned copy: the transport's buffer is malloc'd */
	dg = malloc(len ? len : 1);
	if (!dg)
		return 0;
	memcpy(dg, data + 1, len);
	memset(&a, 0, sizeof(a));
	r.cmd = handler_cmd[h];
	r.on_msg = handlers[h];
	r.data = h == H_DEV	  ? (void *)&a.dev
		 : h == H_SUMMARY ? (void *)&a.sum
		 : h == H_STAT	  ? (void *)&a.stat
				  : (void *)&a.agg;
	ret = nl_reply_feed(&r, dg, len);
	FUZZ_CHECK(ret == 0 || ret == 1 || (ret < 0 && ret >= -4095));
	check_lists(&a);
	check_agg(&a.agg);
	nl_dev_list_free(&a.dev);
	nl_summary_list_free(&a.sum);
	nl_dev_agg_free(&a.agg);
	nl_stat_list_free(&a.stat);
	free(dg);
	return 0;
}
