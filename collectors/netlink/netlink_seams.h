/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The netlink collector's seams: every outside input (the RDMA netlink
 * transport, libibverbs' device limits, /proc's process names), replaceable
 * in tests through netlink_collector_init_with() (netlink.h). The collector
 * copies the struct at init; the data pointers stay the caller's and are
 * used from the poll thread only.
 */
#ifndef RDMA_EXPORTER_NETLINK_SEAMS_H
#define RDMA_EXPORTER_NETLINK_SEAMS_H

#include "netlink_parse.h"
#include "netlink_verbs.h"
#include "rdmanl/netlink_sock.h"

/* Every outside input of the collector, replaceable in tests. */
struct netlink_seams {
	nl_transport_open_fn open_transport;
	void *open_data;
	nl_limits_fn query_limits;
	void *limits_data;
	nl_comm_fn comm_of; /* NULL: read <proc_root>/<pid>/comm */
	/* The workload of a pid is always read from <proc_root>/<pid>/cgroup
	 * and .../stat: tests point proc_root at a tree of their own. */
	void *comm_data;
};

#endif
