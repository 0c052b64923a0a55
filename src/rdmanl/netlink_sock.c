// SPDX-License-Identifier: Apache-2.0
#include "rdmanl/netlink_sock.h"

#include "base/clock.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

/* Room for the largest dump datagram the kernel builds (32 KiB, more on
 * 64 KiB-page machines); doubled on MSG_TRUNC up to NL_BUF_MAX. */
#define NL_BUF_INITIAL (64 * 1024)
#define NL_BUF_MAX     (4 * 1024 * 1024)
/* Kernel receive buffer asked for; the kernel caps it at net.core.rmem_max. */
#define NL_RCVBUF (1024 * 1024)

/* ---- the real NETLINK_RDMA socket ---------------------------------------------------- */

struct nl_sock {
	struct nl_transport t;
	struct mnl_socket *nl;
	int rcvbuf;
};

static int sock_send(struct nl_transport *t, const void *buf, size_t len)
{
	struct nl_sock *s = (struct nl_sock *)t;

	return mnl_socket_sendto(s->nl, buf, len) < 0 ? -errno : 0;
}

static ssize_t sock_recv(struct nl_transport *t, void *buf, size_t len, int timeout_ms)
{
	struct nl_sock *s = (struct nl_sock *)t;
	int fd = mnl_socket_get_fd(s->nl);

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		struct sockaddr_nl addr;
		struct iovec iov = {.iov_base = buf, .iov_len = len};
		struct msghdr msg = {
			.msg_name = &addr,
			.msg_namelen = sizeof(addr),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r == 0)
			return -ETIMEDOUT;
		if (r < 0)
			return errno == EINTR ? -ETIMEDOUT : -errno;
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		if (msg.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		/* Only the kernel (port id 0) answers requests. */
		if (addr.nl_pid != 0)
			continue;
		return n;
	}
}

static void sock_grow_rcvbuf(struct nl_transport *t)
{
	struct nl_sock *s = (struct nl_sock *)t;
	int v = s->rcvbuf * 4;

	if (setsockopt(mnl_socket_get_fd(s->nl), SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0)
		s->rcvbuf = v;
}

static uint32_t sock_portid(struct nl_transport *t)
{
	return mnl_socket_get_portid(((struct nl_sock *)t)->nl);
}

static void sock_free(struct nl_transport *t)
{
	struct nl_sock *s = (struct nl_sock *)t;

	if (!s)
		return;
	if (s->nl)
		mnl_socket_close(s->nl);
	free(s);
}

static const struct nl_transport_ops sock_ops = {
	.send = sock_send,
	.recv = sock_recv,
	.grow_rcvbuf = sock_grow_rcvbuf,
	.portid = sock_portid,
	.free = sock_free,
};

static struct nl_transport *socket_open(int proto, int *err)
{
	struct nl_sock *s = calloc(1, sizeof(*s));
	int one = 1, fd;

	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->t.ops = &sock_ops;
	s->nl = mnl_socket_open2(proto, SOCK_CLOEXEC);
	if (!s->nl) {
		*err = -errno;
		free(s);
		return NULL;
	}
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		*err = -errno;
		sock_free(&s->t);
		return NULL;
	}
	fd = mnl_socket_get_fd(s->nl);
	/* Error messages say why (extended ACK) without echoing the request. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	s->rcvbuf = NL_RCVBUF;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &s->rcvbuf, sizeof(s->rcvbuf));
	*err = 0;
	return &s->t;
}

struct nl_transport *nl_socket_open(void *unused, int *err)
{
	(void)unused;
	return socket_open(NETLINK_RDMA, err);
}

struct nl_transport *nl_socket_open_genl(void *unused, int *err)
{
	(void)unused;
	return socket_open(NETLINK_GENERIC, err);
}

/* ---- request engine -------------------------------------------------------------------- */

struct nl_conn {
	nl_transport_open_fn open;
	void *open_data;
	struct nl_transport *t;
	uint32_t seq;
	unsigned char *buf;
	size_t cap;
	struct nl_conn_stats stats;
};

struct nl_conn *nl_conn_new(nl_transport_open_fn open, void *open_data)
{
	struct nl_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->open = open;
	c->open_data = open_data;
	c->buf = malloc(NL_BUF_INITIAL);
	if (!c->buf) {
		free(c);
		return NULL;
	}
	c->cap = NL_BUF_INITIAL;
	/* Distinct from any earlier instance's numbers, as iproute2 does. */
	c->seq = (uint32_t)time(NULL);
	return c;
}

void nl_conn_close(struct nl_conn *c)
{
	if (c && c->t) {
		c->t->ops->free(c->t);
		c->t = NULL;
	}
}

void nl_conn_free(struct nl_conn *c)
{
	if (!c)
		return;
	nl_conn_close(c);
	free(c->buf);
	free(c);
}

int nl_conn_open(struct nl_conn *c)
{
	int err = 0;

	if (c->t)
		return 0;
	c->t = c->open(c->open_data, &err);
	if (!c->t)
		return err < 0 ? err : -EIO;
	c->stats.reopens++;
	return 0;
}

const struct nl_conn_stats *nl_conn_stats(const struct nl_conn *c)
{
	return &c->stats;
}

/* Sequence number of the first message of a datagram, 0 when none. */
static uint32_t first_seq(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;

	return len >= sizeof(*nlh) ? nlh->nlmsg_seq : 0;
}

/* Opens the transport if closed, numbers the request (rep->seq, 0 skipped)
 * and sends it: 0 or -errno (a failed send closes the transport). */
static int send_request(struct nl_conn *c, const struct nl_msg_request *rq, struct nl_reply *rep)
{
	unsigned char req[128] __attribute__((aligned(4)));
	int len, r;

	r = nl_conn_open(c);
	if (r < 0)
		return r;
	rep->seq = ++c->seq ? c->seq : ++c->seq;
	rep->portid = c->t->ops->portid(c->t);
	len = rq->build(req, sizeof(req), rep->seq, rq->arg);
	if (len < 0)
		return len;
	r = c->t->ops->send(c->t, req, (size_t)len);
	if (r < 0) {
		nl_conn_close(c);
		return r;
	}
	c->stats.requests++;
	return 0;
}

/* One datagram into c->buf within the deadline: its length, or -errno
 * (-ETIMEDOUT once the deadline has passed). */
static ssize_t recv_until(struct nl_conn *c, uint64_t deadline_ms)
{
	uint64_t now = clock_mono_ms();

	if (now >= deadline_ms)
		return -ETIMEDOUT;
	return c->t->ops->recv(c->t, c->buf, c->cap,
			       deadline_ms - now > 60000 ? 60000 : (int)(deadline_ms - now));
}

/*
 * A receive that failed with n leaves the transport mid-reply: it is closed.
 * Returns 1 (retry) after a datagram too large for the buffer (which doubles,
 * up to NL_BUF_MAX) or a socket overrun (the reopened socket gets a larger
 * receive buffer), once per cause and request; else -ENOMEM or n.
 */
static int recv_failed(struct nl_conn *c, ssize_t n, bool *grew_buf, bool *grew_rcv)
{
	if (n == -EMSGSIZE && !*grew_buf && c->cap < NL_BUF_MAX) {
		unsigned char *nb = realloc(c->buf, c->cap * 2);

		nl_conn_close(c);
		if (!nb)
			return -ENOMEM;
		c->buf = nb;
		c->cap *= 2;
		c->stats.buffer_grows++;
		*grew_buf = true;
		return 1;
	}
	if (n == -ENOBUFS && !*grew_rcv) {
		nl_conn_close(c);
		*grew_rcv = true;
		if (nl_conn_open(c) == 0 && c->t->ops->grow_rcvbuf)
			c->t->ops->grow_rcvbuf(c->t);
		return 1;
	}
	nl_conn_close(c);
	return (int)n;
}

/* The end of a reply with r: the kernel's own error ends its reply; anything
 * else leaves the socket mid-reply: start clean next time. Returns r. */
static int end_of_reply(struct nl_conn *c, int r)
{
	if (r < 0 && (r == -EINTR || r == -ESRCH || r == -EPROTO || r == -EBADMSG || r == -ENOMEM ||
		      r == -ENOBUFS))
		nl_conn_close(c);
	return r;
}

/* One pass: send, read until complete. 1 asks the caller to retry. */
static int request_once(struct nl_conn *c, const struct nl_msg_request *rq, uint64_t deadline_ms,
			uint64_t *bad_messages, bool *grew_buf, bool *grew_rcv)
{
	struct nl_reply rep = {.type = rq->reply_type, .on_msg = rq->on_msg, .data = rq->data};
	int r = send_request(c, rq, &rep);

	if (r < 0)
		return r;
	for (;;) {
		ssize_t n = recv_until(c, deadline_ms);

		if (n < 0)
			return recv_failed(c, n, grew_buf, grew_rcv);
		c->stats.datagrams++;
		c->stats.bytes += (uint64_t)n;
		/* A late answer to an abandoned request: not ours, skip it. */
		if (first_seq(c->buf, (size_t)n) && first_seq(c->buf, (size_t)n) != rep.seq)
			continue;
		r = nl_reply_feed(&rep, c->buf, (size_t)n);
		if (r == 1)
			continue;
		*bad_messages += rep.bad_messages;
		return end_of_reply(c, r);
	}
}

int nl_conn_request_msg(struct nl_conn *c, const struct nl_msg_request *rq, uint64_t deadline_ms,
			uint64_t *bad_messages)
{
	bool grew_buf = false, grew_rcv = false;
	int r;

	for (;;) {
		r = request_once(c, rq, deadline_ms, bad_messages, &grew_buf, &grew_rcv);
		if (r != 1)
			return r;
		if (rq->on_reset)
			rq->on_reset(rq->data);
	}
}

/* An RDMA netlink request (nl_build_request()'s arguments). */
struct rdma_req {
	uint16_t cmd, flags;
	uint32_t dev_index, port;
};

static int build_rdma(void *buf, size_t size, uint32_t seq, const void *arg)
{
	const struct rdma_req *q = arg;

	return nl_build_request(buf, size, q->cmd, q->flags, seq, q->dev_index, q->port);
}

int nl_conn_request(struct nl_conn *c, uint16_t cmd, uint16_t flags, uint32_t dev_index,
		    uint32_t port, int (*on_msg)(const struct nlmsghdr *, void *), void *data,
		    void (*on_reset)(void *), uint64_t deadline_ms, uint64_t *bad_messages)
{
	const struct rdma_req q = {cmd, flags, dev_index, port};
	const struct nl_msg_request rq = {
		.build = build_rdma,
		.arg = &q,
		.reply_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
		.on_msg = on_msg,
		.data = data,
		.on_reset = on_reset,
	};

	return nl_conn_request_msg(c, &rq, deadline_ms, bad_messages);
}
