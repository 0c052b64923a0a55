// SPDX-License-Identifier: Apache-2.0
/*
 * A port's loopback responder thread (probe_loop.h). Nothing here logs: the
 * owner (probe_slots.c) says when one cannot be made, and what it answered
 * goes into the port's numbers through probe_loop_qpn.
 */
#include "probe_loop.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/clock.h"
#include "probe_pace.h"
#include "probe_packet.h"

/* Empty polls of the CQ between two looks at the clock (a clock read traps
 * in a VM whose clocksource is hpet: microseconds). */
#define LOOP_PASSES 16
/* sched_getaffinity's set when the kernel has more CPUs than cpu_set_t holds */
#define MAX_CPUS 16384

struct probe_loop {
	struct probe_port p; /* the sibling QP: the thread's while it runs */
	uint32_t qpn;	     /* p's QP number */
	uint32_t prober_qpn; /* the parent's QP: the only sender answered */
	int stop_fd;	     /* eventfd: wakes the thread to stop */
	pthread_t thread;
	atomic_bool stop, failed;
	/* since the owner last took them (probe_loop_qpn) */
	atomic_uint_fast64_t answered, send_fail, unexpected;
	struct probe_loop_window w; /* the thread's */
};

int probe_loop_cpus(void)
{
	cpu_set_t set;
	cpu_set_t *big;
	size_t size = CPU_ALLOC_SIZE(MAX_CPUS);
	int n = 1;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
	if (errno != EINVAL)
		return 1;
	/* more CPUs than cpu_set_t holds */
	big = CPU_ALLOC(MAX_CPUS);
	if (big && sched_getaffinity(0, size, big) == 0 && CPU_COUNT_S(size, big) > 0)
		n = CPU_COUNT_S(size, big);
	CPU_FREE(big);
	return n;
}

/* The source of rx is the parent's probe QP on this port. */
static bool from_prober(const struct probe_loop *l, const struct probe_rx *rx)
{
	if (rx->src_qp != l->prober_qpn)
		return false;
	if (l->p.ethernet)
		return rx->has_grh && memcmp(rx->sgid, l->p.gid, 16) == 0;
	return rx->slid == l->p.lid;
}

/* Answers as probe_answer_request does: the readings are CLOCK_MONOTONIC
 * at the poll that returned the request and just before the reply's post. */
static void loop_recv(void *arg, struct probe_port *p, const struct probe_rx *rx)
{
	struct probe_loop *l = arg;
	unsigned char pkt[PROBE_PACKET_LEN];
	struct probe_packet got;
	uint64_t tx_ns;

	if (!from_prober(l, rx) || probe_packet_decode(rx->data, rx->len, &got) < 0 ||
	    got.type != PROBE_PACKET_REQUEST) {
		atomic_fetch_add_explicit(&l->unexpected, 1, memory_order_relaxed);
		return;
	}
	memcpy(pkt, rx->data, sizeof(pkt));
	tx_ns = clock_mono_ns();
	if (probe_packet_make_reply(pkt, sizeof(pkt), p->qp->qp_num, rx->poll_ns, tx_ns, 0) < 0 ||
	    probe_port_send(p, p->self_ah, rx->src_qp, pkt, PROBE_WR_REPLY, NULL) < 0)
		atomic_fetch_add_explicit(&l->send_fail, 1, memory_order_relaxed);
	else
		atomic_fetch_add_explicit(&l->answered, 1, memory_order_relaxed);
	probe_loop_window_answered(&l->w, (got.flags & PROBE_PACKET_F_WAKEUP) != 0, got.spin_us,
				   tx_ns);
}

static void loop_send_error(void *arg, struct probe_port *p, uint64_t wr_id)
{
	struct probe_loop *l = arg;

	(void)p;
	(void)wr_id;
	atomic_fetch_add_explicit(&l->send_fail, 1, memory_order_relaxed);
}

/* Drains the CQ, again and again while the window is open (a stop ends
 * it). Returns the completions of the last drain, or -EIO when the QP or
 * CQ failed. */
static int serve(struct probe_loop *l, const struct probe_port_handler *h)
{
	for (;;) {
		const char *what = "";
		int n = 0;

		for (int i = 0; i < LOOP_PASSES && n == 0; i++)
			n = probe_port_drain(&l->p, h, &what);
		if (n < 0)
			return n;
		if (atomic_load_explicit(&l->stop, memory_order_relaxed) ||
		    !probe_loop_window_open(&l->w, clock_mono_ns()))
			return n;
	}
}

/* Sleeps until a completion event or a stop. */
static void sleep_events(struct probe_loop *l)
{
	struct pollfd fds[2] = {
		{.fd = probe_port_fd(&l->p), .events = POLLIN},
		{.fd = l->stop_fd, .events = POLLIN},
	};

	if (poll(fds, 2, -1) > 0 && (fds[0].revents & POLLIN))
		probe_port_take_events(&l->p);
}

static void *loop_main(void *arg)
{
	struct probe_loop *l = arg;
	const struct probe_port_handler h = {loop_recv, loop_send_error, NULL, l};
	const char *what = "";
	int n;

	pthread_setname_np(pthread_self(), "rdma-probe-loop");
	while (!atomic_load(&l->stop)) {
		if (serve(l, &h) < 0 || probe_port_arm(&l->p) < 0)
			break;
		/* Armed, then drained again: a completion may have come in between. */
		n = probe_port_drain(&l->p, &h, &what);
		if (n < 0)
			break;
		if (n == 0 && !atomic_load(&l->stop))
			sleep_events(l);
	}
	if (!atomic_load(&l->stop))
		atomic_store(&l->failed, true); /* the owner answers loopback itself */
	return NULL;
}

struct probe_loop *probe_loop_new(const struct probe_port *parent, const char **what, int *err)
{
	struct probe_loop *l = calloc(1, sizeof(*l));
	int r;

	*what = "alloc";
	if (!l) {
		*err = -ENOMEM;
		return NULL;
	}
	l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->stop_fd < 0) {
		r = -errno;
		goto fail;
	}
	r = probe_port_open_sibling(&l->p, parent, what);
	if (r < 0)
		goto fail_fd;
	l->qpn = l->p.qp->qp_num;
	l->prober_qpn = parent->qp->qp_num;
	*what = "thread";
	r = -pthread_create(&l->thread, NULL, loop_main, l);
	if (r == 0)
		return l;
	probe_port_close(&l->p);
fail_fd:
	close(l->stop_fd);
fail:
	free(l);
	*err = r;
	return NULL;
}

void probe_loop_free(struct probe_loop *l)
{
	uint64_t one = 1;

	if (!l)
		return;
	atomic_store(&l->stop, true);
	if (write(l->stop_fd, &one, sizeof(one)) < 0) {
		/* cannot fail on an eventfd below its maximum; the flag stops a spin */
	}
	pthread_join(l->thread, NULL);
	close(l->stop_fd);
	probe_port_close(&l->p);
	free(l);
}

uint32_t probe_loop_qpn(struct probe_loop *l, struct probe_loop_counts *c)
{
	c->answered = atomic_exchange_explicit(&l->answered, 0, memory_order_relaxed);
	c->send_fail = atomic_exchange_explicit(&l->send_fail, 0, memory_order_relaxed);
	c->unexpected = atomic_exchange_explicit(&l->unexpected, 0, memory_order_relaxed);
	return atomic_load(&l->failed) ? 0 : l->qpn;
}
