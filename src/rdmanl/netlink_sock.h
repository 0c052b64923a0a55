/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The netlink transport seam and the request engine on top of it.
 *
 * A transport sends one request and returns reply datagrams: the real one is
 * a NETLINK_RDMA socket (libmnl), tests use scripted replies. nl_conn runs
 * one request at a time over it: sequence numbers, receive buffer growth on
 * truncation (MSG_TRUNC) and socket overruns (ENOBUFS), a deadline, and the
 * rule that a transport that was left mid-reply (timeout, error) is closed
 * and reopened before the next request. Nothing here logs.
 *
 * Room rdmanl (src/rdmanl/, nldev_parse.h): the sysfs, netlink and devlink
 * collectors each own their nl_conn (nl_conn_new/nl_conn_free) and the
 * transport it opens; one nl_conn is used by one thread at a time. Reply
 * messages handed to on_msg are borrowed for the call only.
 */
#ifndef RDMA_EXPORTER_NETLINK_SOCK_H
#define RDMA_EXPORTER_NETLINK_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rdmanl/nldev_parse.h"

struct nl_transport;

struct nl_transport_ops {
	/* 0 or -errno */
	int (*send)(struct nl_transport *t, const void *buf, size_t len);
	/*
	 * Waits at most timeout_ms for one datagram. Returns its length,
	 * -ETIMEDOUT, -EMSGSIZE when it did not fit in len (it is consumed),
	 * -ENOBUFS when the socket overran, or another -errno.
	 */
	ssize_t (*recv)(struct nl_transport *t, void *buf, size_t len, int timeout_ms);
	/* Larger kernel receive buffer after an overrun; may be NULL. */
	void (*grow_rcvbuf)(struct nl_transport *t);
	uint32_t (*portid)(struct nl_transport *t);
	void (*free)(struct nl_transport *t);
};

struct nl_transport {
	const struct nl_transport_ops *ops;
};

/* Opens a transport, or returns NULL with -errno in *err. */
typedef struct nl_transport *(*nl_transport_open_fn)(void *data, int *err);

/*
 * The real transport: socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
 * NETLINK_RDMA), extended and capped ACKs on, a receive buffer sized for
 * dumps. *err is -EPROTONOSUPPORT on a kernel without RDMA netlink.
 */
struct nl_transport *nl_socket_open(void *unused, int *err);

/* The same transport over generic netlink (NETLINK_GENERIC), for the
 * collectors that speak it (devlink). */
struct nl_transport *nl_socket_open_genl(void *unused, int *err);

struct nl_conn;

struct nl_conn *nl_conn_new(nl_transport_open_fn open, void *open_data);
void nl_conn_free(struct nl_conn *c);
/* Closes the transport; the next request opens it again. */
void nl_conn_close(struct nl_conn *c);
/* Opens the transport now if closed: 0 or the open's -errno. */
int nl_conn_open(struct nl_conn *c);

/* Statistics for the collector's self metrics. */
struct nl_conn_stats {
	uint64_t requests, datagrams, bytes, reopens, buffer_grows;
};
const struct nl_conn_stats *nl_conn_stats(const struct nl_conn *c);

/*
 * Sends one request (cmd with flags, NLM_F_DUMP for dumps; dev_index unless
 * NL_NO_DEVICE, port unless 0) and feeds every reply datagram to on_msg until
 * the reply is complete or deadline_ms (clock_mono_ms(), clock.h) passes.
 * Returns 0, or -errno: the kernel's error, -EINTR for an interrupted dump
 * (the caller retries it from scratch), -ETIMEDOUT, -ENOMEM, or a transport
 * error. After -EMSGSIZE / -ENOBUFS the request is retried here (with a
 * larger buffer) once per cause before giving up; the handlers must then
 * accept a second pass, so on_reset (may be NULL) is called before it.
 */
int nl_conn_request(struct nl_conn *c, uint16_t cmd, uint16_t flags, uint32_t dev_index,
		    uint32_t port, int (*on_msg)(const struct nlmsghdr *, void *), void *data,
		    void (*on_reset)(void *), uint64_t deadline_ms, uint64_t *bad_messages);

/*
 * The same engine for a request of any netlink protocol: build() writes the
 * request numbered seq into buf (at most size bytes) and returns its length
 * or -errno; replies of nlmsg_type reply_type go to on_msg.
 */
struct nl_msg_request {
	int (*build)(void *buf, size_t size, uint32_t seq, const void *arg);
	const void *arg;
	uint16_t reply_type;
	int (*on_msg)(const struct nlmsghdr *nlh, void *data);
	void *data;
	void (*on_reset)(void *data); /* may be NULL */
};
int nl_conn_request_msg(struct nl_conn *c, const struct nl_msg_request *rq, uint64_t deadline_ms,
			uint64_t *bad_messages);

#endif
