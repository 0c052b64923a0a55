/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device limits from libibverbs (ibv_query_device: max_qp, max_cq, max_mr,
 * max_pd, max_srq), queried once when a device is first seen or re-scanned,
 * never per poll. The verbs context is closed before returning: a driver
 * without context disassociation (rxe, among others) cannot remove a device
 * while any process holds one open.
 */
#ifndef RDMA_EXPORTER_NETLINK_VERBS_H
#define RDMA_EXPORTER_NETLINK_VERBS_H

#include <stdbool.h>
#include <stdint.h>

#include "netlink_names.h"

struct nl_limits {
	bool valid;
	uint64_t max[NL_LIMIT_COUNT]; /* indexed by enum nl_limit_kind */
};

/* The seam: returns 0 and fills out, or -errno (-ENODEV: no verbs device of that name). */
typedef int (*nl_limits_fn)(const char *device, struct nl_limits *out, void *data);

/* The real one: ibv_get_device_list, ibv_open_device, ibv_query_device, close. */
int nl_verbs_query_limits(const char *device, struct nl_limits *out, void *unused);

#endif
