/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The events collector's shared state: the table (events_parse.h) and the
 * flags under lock, written by the listener thread (events_io.c) and read by
 * collect() (events.c); the rest is the thread's own.
 */
#ifndef RDMA_EXPORTER_EVENTS_INTERNAL_H
#define RDMA_EXPORTER_EVENTS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "collector.h"
#include "events_parse.h"

#define EV_NL_BUF 32768 /* MNL_SOCKET_DUMP_SIZE of newer libmnl */

struct ibv_context;
struct mnl_socket;

/* One verbs context held for asynchronous events (the thread's own). */
struct ev_vctx {
	bool used;
	char name[EV_NAME_MAX];
	struct ibv_context *ctx; /* NULL: closed */
	unsigned nports;
	double retry_at_s; /* monotonic: no (re)open before (failed open, fatal) */
	bool warned;	   /* open failure logged once */
};

struct events_state {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* under lock */
	struct ev_table table;
	bool stop, redump, synced;
	uint64_t dumps_done; /* RTM_GETLINK dumps answered (NLMSG_DONE) */

	/* set in init, read-only afterwards */
	const struct device_filter *filter;
	struct netdev_set *rdma_netdevs;
	int stop_fd; /* eventfd: wakes the thread */
	pthread_t thread;
	bool started;

	/* the thread's own */
	struct mnl_socket *nl;
	unsigned seq, dump_seq;				    /* dump_seq: of the dump in flight */
	char nl_buf[EV_NL_BUF] __attribute__((aligned(4))); /* nlmsghdr alignment */
	struct ev_vctx vctx[EV_MAX_DEVICES];
};

/* The listener thread (events_io.c). */
void *events_thread(void *arg);
/* Wakes it (after setting stop or redump). */
void events_wake(struct events_state *st);

#endif
