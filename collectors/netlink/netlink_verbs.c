// SPDX-License-Identifier: Apache-2.0
#include "netlink_verbs.h"

#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

int nl_verbs_query_limits(const char *device, struct nl_limits *out, void *unused)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr attr;
	int n = 0, r = -ENODEV;

	memset(out, 0, sizeof(*out));
	list = ibv_get_device_list(&n);
	if (!list)
		return errno ? -errno : -ENODEV;
	for (int i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), device) != 0)
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			r = errno ? -errno : -EIO;
			break;
		}
		r = ibv_query_device(ctx, &attr);
		r = r > 0 ? -r : r;
		/* Closed at once: see the header. */
		ibv_close_device(ctx);
		if (r == 0) {
			out->max[NL_LIMIT_QP] = attr.max_qp > 0 ? (uint64_t)attr.max_qp : 0;
			out->max[NL_LIMIT_CQ] = attr.max_cq > 0 ? (uint64_t)attr.max_cq : 0;
			out->max[NL_LIMIT_MR] = attr.max_mr > 0 ? (uint64_t)attr.max_mr : 0;
			out->max[NL_LIMIT_PD] = attr.max_pd > 0 ? (uint64_t)attr.max_pd : 0;
			out->max[NL_LIMIT_SRQ] = attr.max_srq > 0 ? (uint64_t)attr.max_srq : 0;
			out->valid = true;
		}
		break;
	}
	ibv_free_device_list(list);
	return r;
}
