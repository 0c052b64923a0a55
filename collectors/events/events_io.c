// SPDX-License-Identifier: Apache-2.0
/*
 * The events collector's listener thread: one rtnetlink socket subscribed to
 * RTNLGRP_LINK and one verbs context per RDMA device, all in one poll().
 *
 * A held verbs context must never block device removal: rxe (and every
 * driver without disassociate_ucontext) makes `rdma link delete` wait until
 * the last uverbs context is closed. So a context is closed at once on
 * IBV_EVENT_DEVICE_FATAL and when its device leaves the verbs device list
 * (checked every second, as the probe collector's probe_sync_ports() does
 * for its ports), and is not reopened for EV_REOPEN_HOLD_S after a fatal
 * event, so that a device being removed is not caught again. With no verbs
 * device at all the list is looked at every EV_IDLE_SYNC_S only, as the probe
 * engine does (IDLE_PORTS_PERIOD_MS): a list costs a netlink socket and a
 * sysfs walk in libibverbs, and a wake-up a second for it was a fifth of an
 * idle exporter's CPU (docs/performance.md); a new RDMA netdev published by
 * the sysfs collector brings the next look forward.
 */
#include "events_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "base/clock.h"
#include "base/log.h"

#define EV_SYNC_S	   1.0	/* device list and port states read again */
#define EV_IDLE_SYNC_S	   10.0 /* the same while the list holds no device */
#define EV_REOPEN_HOLD_S   10.0 /* after IBV_EVENT_DEVICE_FATAL */
#define EV_RETRY_S	   30.0 /* after a failed open */
#define EV_NL_RCVBUF	   (1 << 20)
#define EV_MAX_EVENTS_WAKE 64 /* async events read per context per wake-up */

void events_wake(struct events_state *st)
{
	uint64_t one = 1;

	if (write(st->stop_fd, &one, sizeof(one)) < 0)
		return; /* the counter is already non-zero */
}

/* ---- rtnetlink ---- */

static void rtnl_open(struct events_state *st)
{
	int sz = EV_NL_RCVBUF;

	st->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!st->nl || mnl_socket_bind(st->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID) < 0) {
		int e = errno;

		if (st->nl)
			mnl_socket_close(st->nl);
		st->nl = NULL;
		log_warn("rtnetlink link notifications unavailable; no carrier changes counted",
			 "collector=events err=\"%s\"", strerror(e));
		return;
	}
	/* A burst of notifications (many links at once) must not overflow;
	 * an overflow (ENOBUFS) is recovered by a dump anyway. */
	setsockopt(mnl_socket_get_fd(st->nl), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

/* Wakes a collect() waiting for a dump's baselines. */
static void dump_done(struct events_state *st)
{
	pthread_mutex_lock(&st->lock);
	st->dumps_done++;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
}

static void rtnl_dump(struct events_state *st)
{
	char buf[256];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nlh->nlmsg_seq = ++st->seq;
	st->dump_seq = st->seq;
	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	if (mnl_socket_sendto(st->nl, nlh, nlh->nlmsg_len) < 0) {
		dump_done(st); /* nothing to wait for; the next poll asks again */
	}
}

/* Every message of one datagram; the framing is checked here, the content
 * by ev_parse_link(). */
static void rtnl_datagram(struct events_state *st, const char *buf, size_t len)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	size_t left = len;

	while (left >= sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) && nlh->nlmsg_len <= left) {
		struct ev_link l;

		if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR) {
			if (nlh->nlmsg_seq == st->dump_seq)
				dump_done(st);
		} else if (ev_parse_link(nlh, &l) == 0) {
			pthread_mutex_lock(&st->lock);
			ev_netdev_observe(&st->table, &l);
			pthread_mutex_unlock(&st->lock);
		}
		if (NLMSG_ALIGN(nlh->nlmsg_len) >= left)
			break;
		left -= NLMSG_ALIGN(nlh->nlmsg_len);
		nlh = (const struct nlmsghdr *)((const char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
	}
}

static void rtnl_drain(struct events_state *st)
{
	ssize_t n;

	for (;;) {
		n = mnl_socket_recvfrom(st->nl, st->nl_buf, sizeof(st->nl_buf));
		if (n > 0) {
			rtnl_datagram(st, st->nl_buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == ENOBUFS) {
			/* Notifications lost: the dump's kernel counters
			 * carry the transitions that were in them. */
			rtnl_dump(st);
			continue;
		}
		return; /* EAGAIN: drained */
	}
}

/* ---- verbs ---- */

static int query_state(struct ibv_context *ctx, unsigned port)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(ctx, (uint8_t)port, &pa) != 0)
		return -1;
	return (int)pa.state;
}

static void port_event(struct events_state *st, struct ev_vctx *v, unsigned port,
		       enum ev_port_event e)
{
	int q = e == EV_PORT_EVENT_ACTIVE ? -1 : query_state(v->ctx, port);

	pthread_mutex_lock(&st->lock);
	ev_port_event(&st->table, v->name, port, e, q, clock_wall_s());
	pthread_mutex_unlock(&st->lock);
}

static void vctx_close(struct ev_vctx *v)
{
	if (v->ctx)
		ibv_close_device(v->ctx);
	v->ctx = NULL;
}

static int vctx_open(struct events_state *st, struct ev_vctx *v, struct ibv_device *dev)
{
	struct ibv_device_attr da;
	int fl;

	v->ctx = ibv_open_device(dev);
	if (!v->ctx)
		return errno ? -errno : -EIO;
	fl = fcntl(v->ctx->async_fd, F_GETFL);
	if (fl < 0 || fcntl(v->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    ibv_query_device(v->ctx, &da) != 0) {
		int e = errno ? errno : EIO;

		vctx_close(v);
		return -e;
	}
	v->nports = da.phys_port_cnt;
	pthread_mutex_lock(&st->lock);
	ev_device_add(&st->table, v->name);
	pthread_mutex_unlock(&st->lock);
	for (unsigned p = 1; p <= v->nports; p++)
		port_event(st, v, p, EV_PORT_EVENT_QUERY);
	return 0;
}

static bool handle_event(struct events_state *st, struct ev_vctx *v, struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_PORT_ACTIVE:
		port_event(st, v, (unsigned)ev->element.port_num, EV_PORT_EVENT_ACTIVE);
		break;
	case IBV_EVENT_PORT_ERR:
		port_event(st, v, (unsigned)ev->element.port_num, EV_PORT_EVENT_ERR);
		break;
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_GID_CHANGE:
		port_event(st, v, (unsigned)ev->element.port_num, EV_PORT_EVENT_QUERY);
		break;
	case IBV_EVENT_DEVICE_FATAL:
		pthread_mutex_lock(&st->lock);
		ev_device_fatal(&st->table, v->name);
		pthread_mutex_unlock(&st->lock);
		return true;
	default:
		break;
	}
	return false;
}

/* The context's pending events; closes it on IBV_EVENT_DEVICE_FATAL, and when
 * the fd reports an error with no event to read (a disassociated device),
 * so that poll() does not spin on it. */
static void verbs_drain(struct events_state *st, struct ev_vctx *v, short revents)
{
	bool fatal = false;
	int got = 0;

	for (int i = 0; i < EV_MAX_EVENTS_WAKE && v->ctx && !fatal; i++) {
		struct ibv_async_event ev;

		if (ibv_get_async_event(v->ctx, &ev) != 0)
			break; /* EAGAIN: none left */
		fatal = handle_event(st, v, &ev);
		ibv_ack_async_event(&ev);
		got++;
	}
	if (fatal)
		log_warn("device reported a fatal error; its event context is closed",
			 "collector=events device=%s", v->name);
	if (fatal || (!got && (revents & (POLLERR | POLLHUP)))) {
		vctx_close(v);
		v->retry_at_s = clock_mono_s() + EV_REOPEN_HOLD_S;
	}
}

static struct ev_vctx *vctx_slot(struct events_state *st, const char *name)
{
	struct ev_vctx *free_slot = NULL;

	for (int i = 0; i < EV_MAX_DEVICES; i++) {
		if (st->vctx[i].used && strcmp(st->vctx[i].name, name) == 0)
			return &st->vctx[i];
		if (!st->vctx[i].used && !free_slot)
			free_slot = &st->vctx[i];
	}
	if (free_slot && strlen(name) < EV_NAME_MAX) {
		memset(free_slot, 0, sizeof(*free_slot));
		free_slot->used = true;
		strcpy(free_slot->name, name);
		return free_slot;
	}
	return NULL;
}

static bool listed(struct ibv_device **list, int n, const char *name)
{
	for (int j = 0; list && j < n; j++)
		if (strcmp(ibv_get_device_name(list[j]), name) == 0)
			return true;
	return false;
}

static void sync_open(struct events_state *st, struct ibv_device *dev, double now)
{
	const char *name = ibv_get_device_name(dev);
	struct ev_vctx *v;
	int r;

	if (st->filter && !device_filter_match(st->filter, name))
		return;
	v = vctx_slot(st, name);
	if (!v || v->ctx || now < v->retry_at_s)
		return;
	r = vctx_open(st, v, dev);
	if (r == 0) {
		v->warned = false;
		return;
	}
	v->retry_at_s = now + EV_RETRY_S;
	if (!v->warned)
		log_warn("cannot open the device for asynchronous events; its port state "
			 "changes are not counted",
			 "collector=events device=%s err=\"%s\"", name, strerror(-r));
	v->warned = true;
}

/* Closes the contexts of devices that left the list, opens the new ones and
 * reads every open port's state (transitions without an event: IB INIT ->
 * ARMED). Returns how many verbs devices the list held. */
static int sync_devices(struct events_state *st)
{
	struct ibv_device **list;
	double now = clock_mono_s();
	int n = 0;

	list = ibv_get_device_list(&n);
	for (int i = 0; i < EV_MAX_DEVICES; i++) {
		struct ev_vctx *v = &st->vctx[i];

		if (!v->ctx || listed(list, n, v->name))
			continue;
		log_info("device is gone; its event context is closed",
			 "collector=events device=%s", v->name);
		vctx_close(v);
	}
	for (int j = 0; list && j < n; j++)
		sync_open(st, list[j], now);
	if (list)
		ibv_free_device_list(list);
	for (int i = 0; i < EV_MAX_DEVICES; i++)
		for (unsigned p = 1; st->vctx[i].ctx && p <= st->vctx[i].nports; p++)
			port_event(st, &st->vctx[i], p, EV_PORT_EVENT_QUERY);
	return n;
}

/* ---- the loop ---- */

/* What to wait for: [0] the wake-up eventfd, [1] rtnetlink (-1 without),
 * then the open contexts; idx[k] is the vctx of fds[k]. */
static int build_fds(struct events_state *st, struct pollfd *fds, int *idx)
{
	int n = 0;

	fds[n++] = (struct pollfd){.fd = st->stop_fd, .events = POLLIN};
	fds[n++] = (struct pollfd){.fd = st->nl ? mnl_socket_get_fd(st->nl) : -1, .events = POLLIN};
	for (int i = 0; i < EV_MAX_DEVICES; i++) {
		if (!st->vctx[i].ctx)
			continue;
		idx[n] = i;
		fds[n++] = (struct pollfd){.fd = st->vctx[i].ctx->async_fd, .events = POLLIN};
	}
	return n;
}

/* Takes the flags set by other threads: false when the thread must stop. */
static bool take_flags(struct events_state *st, bool *redump)
{
	bool stop;

	pthread_mutex_lock(&st->lock);
	stop = st->stop;
	*redump = st->redump;
	st->redump = false;
	pthread_mutex_unlock(&st->lock);
	return !stop;
}

static void mark_synced(struct events_state *st)
{
	pthread_mutex_lock(&st->lock);
	if (!st->synced) {
		st->synced = true;
		pthread_cond_broadcast(&st->cond);
	}
	pthread_mutex_unlock(&st->lock);
}

static void wait_once(struct events_state *st, double *next_sync)
{
	struct pollfd fds[EV_MAX_DEVICES + 2];
	int idx[EV_MAX_DEVICES + 2];
	uint64_t junk;
	double now = clock_mono_s(), wait_s;
	int n;

	if (now >= *next_sync) {
		int listed = sync_devices(st);

		mark_synced(st);
		now = clock_mono_s();
		*next_sync = now + (listed > 0 ? EV_SYNC_S : EV_IDLE_SYNC_S);
	}
	n = build_fds(st, fds, idx);
	wait_s = *next_sync - now;
	if (poll(fds, (nfds_t)n, (int)(wait_s > 0 ? wait_s * 1000 + 1 : 0)) <= 0)
		return;
	if (fds[0].revents & POLLIN && read(st->stop_fd, &junk, sizeof(junk)) < 0)
		junk = 0; /* nothing to read: a spurious wake-up */
	if (fds[1].revents & POLLIN)
		rtnl_drain(st);
	for (int k = 2; k < n; k++)
		if (fds[k].revents & (POLLIN | POLLERR | POLLHUP))
			verbs_drain(st, &st->vctx[idx[k]], fds[k].revents);
}

void *events_thread(void *arg)
{
	struct events_state *st = arg;
	double next_sync = 0;
	bool redump;

	rtnl_open(st);
	while (take_flags(st, &redump)) {
		if (redump && st->nl)
			rtnl_dump(st);
		else if (redump)
			dump_done(st); /* no socket: no baselines to wait for */
		/* A new RDMA netdev: likely a new device; look at the list now. */
		if (redump)
			next_sync = 0;
		wait_once(st, &next_sync);
	}
	for (int i = 0; i < EV_MAX_DEVICES; i++)
		vctx_close(&st->vctx[i]);
	if (st->nl)
		mnl_socket_close(st->nl);
	st->nl = NULL;
	return NULL;
}
