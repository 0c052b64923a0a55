/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The netlink collector: RDMA resources (QP, CQ, MR, PD, CM_ID, CTX, SRQ) per
 * device from RDMA netlink dumps (what `rdma res show` prints), aggregated
 * by label set while parsing; device limits from libibverbs; and the hw
 * counters that only netlink shows (optional counters), in the sysfs
 * collector's families.
 *
 * Families: rdma_resources, rdma_resource_limit, rdma_qps, rdma_cqs,
 * rdma_cq_entries, rdma_mrs, rdma_mr_registered_bytes, rdma_pds,
 * rdma_cm_ids, rdma_srqs, rdma_process_qps, rdma_process_mrs,
 * rdma_process_mr_registered_bytes (labelled with the workload: pod_uid,
 * container_id, slurm_job_id, systemd_unit from /proc/<pid>/cgroup),
 * rdma_workload_{qps,mrs,mr_registered_bytes,cqs,pds},
 * rdma_port_statistic_total{source="netlink"}
 * (or a curated counter family), and rdma_exporter_netlink_* self metrics.
 */
#ifndef RDMA_EXPORTER_NETLINK_H
#define RDMA_EXPORTER_NETLINK_H

#include "collector.h"
#include "netlink_seams.h"
#include "netlink_parse.h"
#include "rdmanl/netlink_sock.h"
#include "netlink_verbs.h"

extern const struct collector_ops netlink_collector_ops;

/* Indexes of the collector's own flags in collector_ctx.flags. */
enum {
	NETLINK_FLAG_TOP_PROCESSES, /* --collector.netlink.top-processes */
	NETLINK_FLAG_TIMEOUT,	    /* --collector.netlink.timeout, ms, 0: half the poll interval */
	NETLINK_FLAG_ATTRIBUTION,   /* --collector.netlink.attribution, bool */
	NETLINK_FLAG_TOP_WORKLOADS, /* --collector.netlink.top-workloads */
	NETLINK_FLAG_QP_STATES,	    /* --collector.netlink.qp-states, enum netlink_qp_states */
	NETLINK_FLAG_COUNT,
};

/* --collector.netlink.qp-states: the rdma_qps rows of each (device, port, type) seen. */
enum netlink_qp_states {
	NETLINK_QP_STATES_ACTIVE, /* the states holding a QP, and ERR always */
	NETLINK_QP_STATES_ALL,	  /* every state, 0 included (before issue 40) */
};

/* init() with the given seams instead of the real socket, verbs and /proc. */
int netlink_collector_init_with(const struct collector_ctx *ctx, const struct netlink_seams *seams,
				void **state);

#endif
