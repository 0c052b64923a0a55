/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the netlink fuzz targets share: the framing a caller of the netlink
 * parsers must check before handing them a message, and an aligned copy of the
 * input to parse.
 */
#ifndef RDMA_EXPORTER_FUZZ_NL_H
#define RDMA_EXPORTER_FUZZ_NL_H

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

/*
 * Whether SIZE bytes at NLH hold one whole netlink message. mnl_nlmsg_ok() alone
 * is not enough: it compares (int)nlmsg_len with the length, so a message
 * claiming 2 GiB or more passes and the parsers would read past the datagram
 * (found by fuzz_ethtool_nl; scan_datagram() in ethtool_nl.c relies on
 * mnl_nlmsg_ok only).
 */
static inline bool fuzz_nlmsg_framed(const struct nlmsghdr *nlh, size_t size)
{
	return size >= sizeof(*nlh) && size <= INT_MAX && mnl_nlmsg_ok(nlh, (int)size) &&
	       nlh->nlmsg_len <= size;
}

/* The input as a netlink message in a malloc'd copy of exactly its bytes
 * (netlink buffers are aligned); NULL when it is not one whole message (or on
 * ENOMEM). The caller frees it. */
static inline struct nlmsghdr *fuzz_nlmsg_copy(const uint8_t *data, size_t size)
{
	void *buf = malloc(size ? size : 1);

	if (!buf)
		return NULL;
	memcpy(buf, data, size);
	if (!fuzz_nlmsg_framed(buf, size)) {
		free(buf);
		return NULL;
	}
	return buf;
}

#endif
