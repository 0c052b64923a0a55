/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the netlink collector's files share (netlink.c: devices, requests and
 * the collect/init ops; netlink_emit.c: the samples): its state, one per
 * collector instance, owned by netlink.c (netlink_collector_init_with()
 * creates it, netlink_free() frees it) and used from the poll thread only,
 * except reload_requested (atomic, set from the SIGHUP path). Not for other
 * collectors or rooms.
 */
#ifndef RDMA_EXPORTER_NETLINK_INTERNAL_H
#define RDMA_EXPORTER_NETLINK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"
#include "exposition/metrics.h"
#include "netlink_procs.h"
#include "netlink_seams.h"

/* Reasons of rdma_exporter_netlink_errors_total. */
enum err_reason { ERR_TIMEOUT, ERR_INTERRUPTED, ERR_MALFORMED, ERR_KERNEL, ERR_REASONS };

struct nl_counter_seen {
	char name[NL_NAME_MAX];
	bool in_sysfs; /* the sysfs collector exports it from hw_counters/ */
	/* the sysfs collector exports its named family for the port from
	 * another file (counters/port_rcv_packets for hw rx_pkts, say) */
	bool family_in_sysfs;
};

struct nl_port {
	uint32_t num;
	char num_str[11];
	struct nl_stat_list stats;
	bool have_stats;
	struct nl_counter_seen *seen; /* sorted by name */
	size_t n_seen, cap_seen;
};

struct nl_device {
	uint32_t index;
	char name[NL_NAME_MAX];
	struct nl_port *ports;
	uint32_t n_ports;
	struct nl_limits limits;
	bool limits_queried;
	struct nl_res_summary summary;
	bool have_summary;
	struct nl_dev_agg cur, scratch;
	bool have_agg;
	bool no_srq;	 /* kernel without SRQ dumps */
	bool no_pd;	 /* PD dump refused: no rdma_workload_pds */
	bool no_stat;	 /* STAT_GET unsupported */
	unsigned warned; /* bit per dump_kind: failure logged at warn */
	bool present;	 /* in this poll's device dump */
};

struct netlink_state {
	struct netlink_seams seams;
	int sysfs_fd;
	const struct device_filter *filter;
	double rescan_interval_s;
	uint64_t timeout_ms;
	unsigned top;
	bool attribution;   /* workload labels and rdma_workload_* */
	unsigned top_wl;    /* workloads with their own rdma_workload_* series */
	bool all_qp_states; /* --collector.netlink.qp-states=all: zero rdma_qps rows too */
	bool sysfs_enabled;

	struct nl_conn *conn;
	bool unavailable; /* socket() failed: tried again at re-scan or SIGHUP */
	int unavailable_err;
	double unavailable_since;
	double last_full_scan;
	bool scanned;
	int reload_requested;

	struct nl_device **devs;
	size_t n_devs;
	bool logged_no_devices;
	bool warned_summary, warned_devlist;

	uint64_t errors_total[ERR_REASONS];
	uint64_t retries_total;

	struct nl_procs procs; /* pid -> comm and workload, one /proc read per process */
};

/* The samples of one device: resources, processes, workloads, hw counters.
 * 0, or -ENOMEM (the sink's other errors are counted, not returned). */
int netlink_emit_device(struct netlink_state *st, struct metric_sink *sink, struct nl_device *d);
/* The collector's own rdma_exporter_netlink_* samples. */
int netlink_emit_self(struct netlink_state *st, struct metric_sink *sink);

#endif
