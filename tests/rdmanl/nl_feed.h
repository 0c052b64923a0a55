/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the RDMA netlink parser tests (tests/rdmanl/ and the netlink
 * collector's): feeding a reply from an exactly sized heap copy (so ASan sees
 * overreads), one built datagram at a time, and the raw pieces a test plants
 * (sequence and port ids, attributes with corrupt headers). Static inline,
 * single-threaded tests only. Include after <cmocka.h>.
 */
#ifndef RDMA_EXPORTER_TESTS_NL_FEED_H
#define RDMA_EXPORTER_TESTS_NL_FEED_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "nl_build.h"
#include "rdmanl/nldev_parse.h"

/* Feeds a heap copy of exactly len bytes, so that ASan sees any overread. */
static inline int feed(struct nl_reply *r, const void *p, size_t len)
{
	void *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	if (len)
		memcpy(copy, p, len);
	ret = nl_reply_feed(r, copy, len);
	free(copy);
	return ret;
}

/* Feeds the datagram built so far and starts a new one. */
static inline int feed_dg(struct nl_reply *r, struct dg *d)
{
	int ret = feed(r, d->buf, dg_len(d));

	dg_reset(d);
	return ret;
}

static inline void mark(struct nlmsghdr *nlh, uint32_t seq, uint32_t pid)
{
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = pid;
}

/* Raw attribute bytes at the tail of nlh; returns it so that a test can
 * corrupt its header. */
static inline struct nlattr *put_raw(struct nlmsghdr *nlh, uint16_t type, size_t len,
				     const void *data)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(nlh);

	mnl_attr_put(nlh, type, len, data);
	return a;
}

#endif
