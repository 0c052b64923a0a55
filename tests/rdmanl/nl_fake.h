/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A scripted RDMA netlink transport for the tests and benchmarks that run a
 * collector through its open_transport seam: send() hands each request to a
 * reply callback, which queues the answer's datagrams; recv() hands them out
 * in order, and -ETIMEDOUT once none is left (nothing more will come).
 * Two modes leave a request unanswered: silent (recv() waits out its
 * timeout, as poll() on the real socket does) and stuck (recv() blocks
 * whatever its timeout, as a dump hung in the kernel, which runs it inside
 * recvmsg(), would).
 */
#ifndef RDMA_EXPORTER_TEST_NL_FAKE_H
#define RDMA_EXPORTER_TEST_NL_FAKE_H

#include <stdint.h>

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "rdmanl/netlink_sock.h"

struct dg;
struct nl_fake;

/*
 * Answers the request rq (its length already checked against send()'s):
 * queues the replies with nl_fake_push() or nl_fake_push_dg(). Returns 0 or
 * the -errno that send() returns.
 */
typedef int (*nl_fake_reply_fn)(struct nl_fake *f, const struct nlmsghdr *rq, void *data);

/*
 * A transport whose replies come from reply(f, rq, data) and whose port id is
 * portid; NULL when out of memory. The ops' free() releases it and whatever
 * is still queued.
 */
struct nl_transport *nl_fake_new(nl_fake_reply_fn reply, void *data, uint32_t portid);

/*
 * Queues a copy of the message nlh as one datagram, with nlmsg_seq set to
 * seq and nlmsg_pid to the port id: 0 or -ENOMEM.
 */
int nl_fake_push(struct nl_fake *f, const struct nlmsghdr *nlh, uint32_t seq);

/* Each message of d as a datagram of its own (as nl_fake_push): 0 or -ENOMEM. */
int nl_fake_push_dg(struct nl_fake *f, struct dg *d, uint32_t seq);

/*
 * Silent: from now on recv() finds nothing, waits its timeout_ms and returns
 * -ETIMEDOUT (the queue is kept for later).
 */
void nl_fake_silent(struct nl_fake *f);

/*
 * Stuck: from now on recv() blocks until it can read one byte from fd
 * (ignoring its timeout), then returns -ETIMEDOUT; each byte ends one recv().
 */
void nl_fake_stuck(struct nl_fake *f, int fd);

/*
 * tb[type]: the request's top-level attribute of that type, for every type
 * below RDMA_NLDEV_ATTR_MAX (tb starts zeroed). MNL_CB_OK or MNL_CB_ERROR.
 */
int nl_fake_attrs(const struct nlmsghdr *rq, const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX]);

#endif
