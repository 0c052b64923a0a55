// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's local ports (slots): kept in line with the verbs
 * device list every second, each with its probe QP (probe_port.h) and its
 * loopback peer. Port changes are logged once here.
 */
#include "base/clock.h"
#include "base/fileio.h"
#include "probe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "base/devfilter.h"
#include "base/log.h"
#include "probe_packet.h"

static struct slot *find_slot(struct probe_state *st, const char *dev, uint8_t port)
{
	for (int i = 0; i < MAX_SLOTS; i++)
		if (st->slots[i].used && st->slots[i].port == port &&
		    strcmp(st->slots[i].device, dev) == 0)
			return &st->slots[i];
	return NULL;
}

static struct slot *new_slot(struct probe_state *st, const char *dev, uint8_t port)
{
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		struct peer *lp;

		if (s->used)
			continue;
		memset(s, 0, sizeof(*s));
		if (histogram_init(&s->port_rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) <
			    0 ||
		    histogram_init(&s->port_net_rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) <
			    0 ||
		    !(lp = probe_peer_new(st))) {
			probe_slot_free_numbers(s);
			return NULL;
		}
		s->used = true;
		snprintf(s->device, sizeof(s->device), "%s", dev);
		s->port = port;
		snprintf(s->port_str, sizeof(s->port_str), "%u", port);
		lp->loopback = true;
		lp->rs = RS_WAIT;
		lp->retry_at_ms = UINT64_MAX;
		probe_peer_set_slot(st, lp, i);
		s->loop = (int)(lp - st->peers);
		return s;
	}
	return NULL;
}

/* Under lock: forgets the verbs objects of s and of every peer using it;
 * returns the port for the caller to close outside the lock. */
static struct probe_port detach_slot(struct probe_state *st, struct slot *s)
{
	struct probe_port p = s->p;
	int idx = (int)(s - st->slots);

	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (!pe->used || pe->slot != idx)
			continue;
		probe_peer_unresolve(st, pe);
		if (pe->loopback)
			pe->rs = RS_WAIT;
	}
	s->open = false;
	memset(&s->p, 0, sizeof(s->p));
	return p;
}

void probe_slot_close(struct probe_state *st, struct slot *s)
{
	struct probe_loop *lr;
	struct probe_port p;

	pthread_mutex_lock(&st->lock);
	lr = s->lr;
	s->lr = NULL;
	p = detach_slot(st, s);
	pthread_mutex_unlock(&st->lock);
	/* its QP lives in the port's context: first */
	probe_loop_free(lr);
	probe_port_close(&p);
}

/*
 * The loopback responder thread of the port just opened, with
 * --collector.probe.loopback-thread when this process may run on two CPUs
 * or more; NULL otherwise, or when it cannot be made
 * (the engine answers loopback itself, as before).
 */
static struct probe_loop *open_loop(const struct probe_state *st, const struct slot *s,
				    const struct probe_port *p)
{
	const char *what = "";
	struct probe_loop *lr;
	int err = 0;

	if (!st->loopback_thread || probe_loop_cpus() < 2)
		return NULL;
	lr = probe_loop_new(p, &what, &err);
	if (!lr)
		log_debug("cannot start the loopback responder; the engine answers loopback",
			  "collector=probe device=%s port=%u step=%s err=%s", s->device, s->port,
			  what, strerror(-err));
	return lr;
}

void probe_slot_drop(struct probe_state *st, struct slot *s)
{
	int idx = (int)(s - st->slots);

	probe_slot_close(st, s);
	pthread_mutex_lock(&st->lock);
	probe_peer_free(st, &st->peers[s->loop]);
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used && st->peers[i].slot == idx)
			st->peers[i].slot = -1; /* labels keep the last port */
	probe_slot_free_numbers(s);
	s->used = false;
	pthread_mutex_unlock(&st->lock);
}

/* The slot's per-port histograms; a slot never set up or freed already is a no-op. */
void probe_slot_free_numbers(struct slot *s)
{
	histogram_free(&s->port_rtt);
	histogram_free(&s->port_net_rtt);
}

/*
 * Under lock: the open slot that has gid (when not NULL) as a RoCE GID, with
 * that GID's index in *gid_index; else an InfiniBand port, else the first
 * open one, with *gid_index -1. Returns the slot's index, -1 when none is open.
 */
int probe_slot_pick(struct probe_state *st, const uint8_t *gid, uint64_t now_ns, int *gid_index)
{
	int first = -1, ib = -1;

	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];

		if (!s->used || !s->open)
			continue;
		if (first < 0)
			first = i;
		if (!s->p.ethernet && ib < 0)
			ib = i;
		if (gid && s->p.ethernet) {
			int gi = probe_port_find_gid(&s->p, gid, now_ns, GID_MAX_AGE_NS);

			if (gi >= 0) {
				*gid_index = gi;
				return i;
			}
		}
	}
	*gid_index = -1;
	return ib >= 0 ? ib : first;
}

static void open_port(struct probe_state *st, struct ibv_device *dev, uint8_t port)
{
	const char *name = ibv_get_device_name(dev), *what = "";
	struct slot *s = find_slot(st, name, port);
	struct probe_loop *lr;
	struct probe_port p;
	int r;

	if (s && (s->open || clock_mono_ms() < s->retry_at_ms))
		return;
	if (!s) {
		pthread_mutex_lock(&st->lock);
		s = new_slot(st, name, port);
		pthread_mutex_unlock(&st->lock);
		if (!s)
			return;
	}
	r = probe_port_open(&p, dev, port, !s->no_hw_ts, &what);
	lr = r < 0 ? NULL : open_loop(st, s, &p);
	pthread_mutex_lock(&st->lock);
	if (r < 0) {
		st->peers[s->loop].errors[R_OPEN]++;
		s->retry_at_ms = clock_mono_ms() + st->interval_ms;
	} else {
		struct peer *lp = &st->peers[s->loop];

		s->p = p;
		s->lr = lr;
		s->open = true;
		lp->rs = RS_READY;
		lp->qpn = p.qp->qp_num;
		/* Probed at once, not an interval later. */
		probe_pace_round(&st->pace, &lp->pace, clock_mono_ns());
	}
	pthread_mutex_unlock(&st->lock);
	if (r < 0 && !s->logged_fail)
		log_warn("cannot set up the probe QP; counted in rdma_probe_errors_total, retried "
			 "every interval",
			 "collector=probe device=%s port=%u step=%s err=%s", name, port, what,
			 strerror(-r));
	else if (r == 0)
		log_msg(s->failures ? LOG_DEBUG : LOG_INFO, "probe QP ready",
			"collector=probe device=%s port=%u qpn=%u qkey=0x%08x", name, port,
			p.qp->qp_num, PROBE_QKEY);
	s->logged_fail = r < 0;
}

/*
 * The ACTIVE ports of dev from <sysfs>/class/infiniband/<dev>/ports/<n>/state
 * ("4: ACTIVE"), at most max, into ports[]. Returns their number, or -1 when
 * the directory cannot be read (no sysfs root given, another layout): the
 * caller then asks the device.
 */
static int sysfs_active_ports(int sysfs_fd, const char *dev, uint8_t *ports, int max)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int fd, n = 0;

	if (sysfs_fd < 0)
		return -1;
	snprintf(path, sizeof(path), "class/infiniband/%s/ports", dev);
	fd = openat(sysfs_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) && n < max) {
		char state[32] = "";
		unsigned long port;
		char *end;
		int sf;
		ssize_t r;

		port = strtoul(e->d_name, &end, 10);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || *end || port > 255)
			continue;
		snprintf(path, sizeof(path), "%s/state", e->d_name);
		sf = open_regular_at(dirfd(d), path);
		if (sf < 0)
			continue;
		r = read(sf, state, sizeof(state) - 1);
		close(sf);
		if (r > 0 && strncmp(state, "4:", 2) == 0)
			ports[n++] = (uint8_t)port;
	}
	closedir(d);
	return n;
}

/*
 * Brings the ports in line with the verbs device list: a device that left it
 * (rdma link delete, hot unplug) is closed at once; a new device's ACTIVE
 * ports are opened. Returns how many verbs devices the list has.
 */
int probe_sync_ports(struct probe_state *st)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		bool present = false;

		if (!s->used)
			continue;
		for (int j = 0; list && j < n; j++)
			if (strcmp(ibv_get_device_name(list[j]), s->device) == 0)
				present = true;
		if (!present) {
			log_info("port is gone; its probe QP is closed",
				 "collector=probe device=%s port=%u", s->device, s->port);
			probe_slot_drop(st, s);
		}
	}
	for (int j = 0; list && j < n; j++) {
		const char *name = ibv_get_device_name(list[j]);
		struct ibv_device_attr da;
		struct ibv_context *ctx;
		uint8_t active[MAX_SLOTS];
		bool all_open = true;
		int na;

		if (st->filter && !device_filter_match(st->filter, name))
			continue;
		/* The port states from sysfs: no verbs context needed, and a
		 * port we may not open is still tried (and its error counted). */
		na = sysfs_active_ports(st->sysfs_fd, name, active, MAX_SLOTS);
		if (na >= 0) {
			for (int k = 0; k < na; k++)
				open_port(st, list[j], active[k]);
			continue;
		}
		/* Devices whose ports are all open need no query context. */
		for (int i = 0; i < MAX_SLOTS; i++)
			if (st->slots[i].used && strcmp(st->slots[i].device, name) == 0 &&
			    !st->slots[i].open)
				all_open = false;
		if (all_open && find_slot(st, name, 1))
			continue;
		ctx = ibv_open_device(list[j]);
		if (!ctx)
			continue;
		if (ibv_query_device(ctx, &da) == 0) {
			for (uint8_t port = 1; port <= da.phys_port_cnt; port++) {
				struct ibv_port_attr pa;

				if (ibv_query_port(ctx, port, &pa) == 0 &&
				    pa.state == IBV_PORT_ACTIVE)
					open_port(st, list[j], port);
			}
		}
		/* Closed at once: the probe ports hold their own contexts. */
		ibv_close_device(ctx);
	}
	if (!list)
		return 0;
	ibv_free_device_list(list);
	return n;
}
