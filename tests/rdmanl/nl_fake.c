// SPDX-License-Identifier: Apache-2.0
/*
 * The scripted transport of nl_fake.h: a growing queue of datagrams, each a
 * copy of one reply message, filled by send() through the reply callback and
 * emptied by recv(). Queue and copies are freed with the transport.
 */
#include "nl_fake.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>

#include "nl_build.h"

struct datagram {
	unsigned char *data;
	size_t len;
};

struct nl_fake {
	struct nl_transport t; /* first: the ops cast back to nl_fake */
	nl_fake_reply_fn reply;
	void *data;
	uint32_t portid;
	struct datagram *q;
	size_t head, tail, cap;
	bool silent;
	int stuck_fd; /* -1: not stuck */
};

static int fake_send(struct nl_transport *t, const void *buf, size_t len)
{
	struct nl_fake *f = (struct nl_fake *)t;
	const struct nlmsghdr *rq = buf;

	if (len < sizeof(*rq) || rq->nlmsg_len != len)
		return -EINVAL;
	return f->reply(f, rq, f->data);
}

/* One datagram; as the real socket, -EMSGSIZE consumes one that does not fit. */
static ssize_t fake_recv(struct nl_transport *t, void *buf, size_t len, int timeout_ms)
{
	struct nl_fake *f = (struct nl_fake *)t;
	struct datagram g;

	if (f->stuck_fd >= 0) {
		char c;

		/* a real socket cannot be woken either: only the release */
		while (read(f->stuck_fd, &c, 1) < 0 && errno == EINTR)
			;
		return -ETIMEDOUT;
	}
	if (f->silent) {
		struct timespec ts = {.tv_sec = timeout_ms / 1000,
				      .tv_nsec = (long)(timeout_ms % 1000) * 1000000L};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		return -ETIMEDOUT;
	}
	if (f->head == f->tail)
		return -ETIMEDOUT;
	g = f->q[f->head++];
	if (f->head == f->tail)
		f->head = f->tail = 0;
	if (g.len > len) {
		free(g.data);
		return -EMSGSIZE;
	}
	memcpy(buf, g.data, g.len);
	free(g.data);
	return (ssize_t)g.len;
}

static uint32_t fake_portid(struct nl_transport *t)
{
	return ((struct nl_fake *)t)->portid;
}

static void fake_free(struct nl_transport *t)
{
	struct nl_fake *f = (struct nl_fake *)t;

	if (!f)
		return;
	for (size_t i = f->head; i < f->tail; i++)
		free(f->q[i].data);
	free(f->q);
	free(f);
}

static const struct nl_transport_ops fake_ops = {
	.send = fake_send,
	.recv = fake_recv,
	.portid = fake_portid,
	.free = fake_free,
};

struct nl_transport *nl_fake_new(nl_fake_reply_fn reply, void *data, uint32_t portid)
{
	struct nl_fake *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->t.ops = &fake_ops;
	f->stuck_fd = -1;
	f->reply = reply;
	f->data = data;
	f->portid = portid;
	return &f->t;
}

void nl_fake_silent(struct nl_fake *f)
{
	f->silent = true;
}

void nl_fake_stuck(struct nl_fake *f, int fd)
{
	f->stuck_fd = fd;
}

int nl_fake_push(struct nl_fake *f, const struct nlmsghdr *nlh, uint32_t seq)
{
	struct nlmsghdr *copy;

	if (f->tail == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 64;
		struct datagram *q = realloc(f->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		f->q = q;
		f->cap = cap;
	}
	copy = malloc(nlh->nlmsg_len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, nlh, nlh->nlmsg_len);
	copy->nlmsg_seq = seq;
	copy->nlmsg_pid = f->portid;
	f->q[f->tail].data = (unsigned char *)copy;
	f->q[f->tail++].len = nlh->nlmsg_len;
	return 0;
}

int nl_fake_push_dg(struct nl_fake *f, struct dg *d, uint32_t seq)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)d->buf;
	int rem = (int)dg_len(d);

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		int err = nl_fake_push(f, nlh, seq);

		if (err < 0)
			return err;
	}
	return 0;
}

static int collect_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;

	if (mnl_attr_get_type(a) < RDMA_NLDEV_ATTR_MAX)
		tb[mnl_attr_get_type(a)] = a;
	return MNL_CB_OK;
}

int nl_fake_attrs(const struct nlmsghdr *rq, const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX])
{
	return mnl_attr_parse(rq, 0, collect_attr, tb);
}
