/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure parsers of the RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV)
 * resource dumps that only the netlink collector reads: bytes in, aggregates
 * out. No I/O, no logging, no globals. A reply is fed one datagram at a time
 * (nl_reply_feed, with the framing, device dump and hw counters, in
 * rdmanl/nldev_parse.h); each data message goes to the
 * handler of its command, which aggregates while parsing so that memory
 * grows with the number of distinct label sets, never with the number of
 * objects (a dump of 100,000 QPs is never held).
 *
 * Malformed objects (an entry whose attributes do not parse or lack a
 * required attribute) are skipped and counted in bad_objects; attribute
 * types newer than this build's rdma_netlink.h are ignored.
 */
#ifndef RDMA_EXPORTER_NETLINK_PARSE_H
#define RDMA_EXPORTER_NETLINK_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "cgroup_ident.h"
#include "netlink_names.h"
#include "rdmanl/nldev_parse.h"

/* RDMA_NLDEV_CMD_RES_GET: per device, the kernel's resource summary. */
#define NL_SUMMARY_MAX 16
struct nl_res_summary {
	uint32_t index;
	char name[NL_NAME_MAX];
	unsigned n;
	struct {
		char name[16]; /* "qp", "cq", "mr", "pd", "cm_id", "ctx", "srq" */
		uint64_t curr;
	} e[NL_SUMMARY_MAX];
};

struct nl_summary_list {
	struct nl_res_summary *v;
	size_t n, cap;
	uint64_t bad_objects;
};
int nl_on_summary_msg(const struct nlmsghdr *nlh, void *summary_list);
void nl_summary_list_free(struct nl_summary_list *l);

/* QP counts of one (port, type); port 0: the QP has no port yet. */
struct nl_qp_bucket {
	uint32_t port;
	uint8_t type;
	uint64_t n[NL_QP_STATES];
};

struct nl_cm_bucket {
	uint32_t port;
	uint32_t ps;
	uint8_t state;
	uint64_t n;
};

/* Who owns a resource: a user process (pid != 0) or a kernel module (kern). */
struct nl_owner {
	uint32_t pid;
	char kern[NL_NAME_MAX]; /* "" for a user process; "" and pid 0: not reported */
	uint64_t qps, mrs, mr_bytes, cqs, pds;
	bool used;
};

/* Everything the resource dumps of one device say, aggregated. */
struct nl_dev_agg {
	struct nl_qp_bucket *qp;
	size_t n_qp, cap_qp;
	struct nl_cm_bucket *cm;
	size_t n_cm, cap_cm;
	uint64_t cqs, cqes;
	uint64_t mrs, mr_bytes, mrs_with_len; /* MR length may be hidden: count those seen */
	uint64_t srqs;
	uint64_t pds; /* from the PD dump (rdma_pds comes from the summary) */
	uint64_t cm_ids;
	struct nl_owner *owners; /* open addressing, cap_owners a power of 2 */
	size_t n_owners, cap_owners;
	uint64_t bad_objects;
};

/* Handlers for RES_QP_GET, RES_CQ_GET, RES_MR_GET, RES_CM_ID_GET, RES_SRQ_GET, RES_PD_GET. */
int nl_on_qp_msg(const struct nlmsghdr *nlh, void *dev_agg);
int nl_on_cq_msg(const struct nlmsghdr *nlh, void *dev_agg);
int nl_on_mr_msg(const struct nlmsghdr *nlh, void *dev_agg);
int nl_on_cm_id_msg(const struct nlmsghdr *nlh, void *dev_agg);
int nl_on_srq_msg(const struct nlmsghdr *nlh, void *dev_agg);
int nl_on_pd_msg(const struct nlmsghdr *nlh, void *dev_agg);

/* Zeroes every count; QP and CM buckets keep their keys (with 0), owners go. */
void nl_dev_agg_reset(struct nl_dev_agg *a);
/* Adds src's QP and CM bucket keys to dst with count 0 (keys seen stay). */
int nl_dev_agg_merge_keys(struct nl_dev_agg *dst, const struct nl_dev_agg *src);
void nl_dev_agg_free(struct nl_dev_agg *a);

/*
 * Per-process rows of one device: owners folded by comm (processes with the
 * same name add up), the `top` largest by QP count (then MR bytes, then
 * name) each in a row, the rest summed in a last row "other". comm_of gives
 * a user process's name by pid (returns 0, or -errno: then "unknown").
 * Kernel owners use their module name; owners with neither, "unknown".
 */
struct nl_proc_row {
	char comm[NL_NAME_MAX];
	struct cg_ident id; /* the process's workload; empty for kernel owners and "other" */
	uint64_t qps, mrs, mr_bytes;
};
typedef int (*nl_comm_fn)(uint32_t pid, char *comm, size_t size, void *data);
int nl_fold_processes(const struct nl_dev_agg *a, unsigned top, nl_comm_fn comm_of, void *data,
		      struct nl_proc_row **rows, size_t *n_rows);

/* The workload identity of a user process by pid (0, or -errno: none). */
typedef int (*nl_ident_fn)(uint32_t pid, struct cg_ident *id, void *data);

/* nl_fold_processes with the rows folded by (comm, workload): processes of
 * one name in two pods are two rows. ident_of NULL: no identities. */
int nl_fold_processes_by(const struct nl_dev_agg *a, unsigned top, nl_comm_fn comm_of,
			 nl_ident_fn ident_of, void *data, struct nl_proc_row **rows,
			 size_t *n_rows);

/*
 * Per-workload rows of one device: owners that hold something folded by
 * workload identity, the `top` largest (by QPs, then MR bytes, MRs, CQs,
 * PDs, then identity) each in a row, the rest and every owner without an
 * identity (kernel owners, processes outside any workload) summed in one
 * last row with an empty identity, present only when it holds something.
 */
struct nl_workload_row {
	struct cg_ident id;
	uint64_t qps, mrs, mr_bytes, cqs, pds;
};
int nl_fold_workloads(const struct nl_dev_agg *a, unsigned top, nl_ident_fn ident_of, void *data,
		      struct nl_workload_row **rows, size_t *n_rows);

#endif
