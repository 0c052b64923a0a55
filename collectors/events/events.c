// SPDX-License-Identifier: Apache-2.0
/*
 * The events collector's ops (see events.h): init starts the listener thread
 * (events_io.c), free stops it, collect() hands the netdevs to watch to it
 * and copies what it counted.
 */
#include "events.h"
#include "events_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/ib_state.h"
#include "base/log.h"

#define FAM_STATE_CHANGES "rdma_port_state_changes_total"
#define FAM_LAST_CHANGE	  "rdma_port_last_state_change_timestamp_seconds"
#define FAM_FATAL	  "rdma_device_fatal_events_total"
#define FAM_CARRIER	  "rdma_netdev_carrier_changes_total"
#define SYNC_WAIT_MAX_MS  1000

static const char help_state_changes[] =
	"Transitions of the port's logical state into state (the rdma_port_state names), "
	"counted from the verbs asynchronous events IBV_EVENT_PORT_ERR / PORT_ACTIVE and state "
	"reads, so a flap shorter than a poll counts too; since the exporter started.";
static const char help_last_change[] =
	"Wall-clock time of the port's last logical state transition in seconds since the "
	"epoch; 0 when none was seen since the exporter started.";
static const char help_fatal[] =
	"IBV_EVENT_DEVICE_FATAL asynchronous events of the device (firmware or hardware "
	"fatal error, or the device being removed) since the exporter started.";
static const char help_carrier[] =
	"Carrier transitions (up and down) of the netdev since the exporter started, the carrier "
	"as ip and sysfs show it (IFF_LOWER_UP: an administrative down counts too), from "
	"rtnetlink link notifications and the kernel's IFLA_CARRIER_UP_COUNT/DOWN_COUNT in them "
	"(so a lost notification loses no flap). The driver's carrier losses since boot are "
	"rdma_netdev_carrier_down_events_total.";

static void events_free(void *state)
{
	struct events_state *st = state;

	if (!st)
		return;
	if (st->started) {
		pthread_mutex_lock(&st->lock);
		st->stop = true;
		pthread_mutex_unlock(&st->lock);
		events_wake(st);
		pthread_join(st->thread, NULL);
	}
	if (st->stop_fd >= 0)
		close(st->stop_fd);
	pthread_cond_destroy(&st->cond);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static int events_init(const struct collector_ctx *ctx, void **state)
{
	struct events_state *st;
	int r;

	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	st->filter = ctx->filter;
	st->rdma_netdevs = ctx->rdma_netdevs;
	st->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (st->stop_fd < 0) {
		r = -errno;
		events_free(st);
		return r;
	}
	r = pthread_create(&st->thread, NULL, events_thread, st);
	if (r) {
		events_free(st);
		return -r;
	}
	/* its own name, so that its CPU is told apart per thread (the bench) */
	pthread_setname_np(st->thread, "rdma-events");
	st->started = true;
	*state = st;
	return 0;
}

/* How long collect() waits for the thread, at most: on the condvar's clock. */
static struct timespec wait_deadline(void)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += SYNC_WAIT_MAX_MS * 1000000L;
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	return until;
}

/* The first collect() waits (briefly) for the thread's first device scan, so
 * that the series exist from the first poll on. Called under lock. */
static void wait_synced(struct events_state *st)
{
	struct timespec until = wait_deadline();

	while (!st->synced)
		if (pthread_cond_timedwait(&st->cond, &st->lock, &until) != 0)
			break;
}

/* After netdevs were added: waits (briefly) for the dump that gives their
 * baselines, so that they have series from that poll on. Under lock. */
static void wait_dump(struct events_state *st, uint64_t before)
{
	struct timespec until = wait_deadline();

	while (st->dumps_done == before)
		if (pthread_cond_timedwait(&st->cond, &st->lock, &until) != 0)
			break;
}

/* Tracks the published RDMA netdevs; true when one is new (its baseline
 * comes from a dump). Under lock. */
static bool track_netdevs(struct events_state *st, const struct netdev_set *nd)
{
	bool added = false;

	for (size_t i = 0; i < nd->n; i++) {
		if (ev_netdev_find(&st->table, nd->names[i]))
			continue;
		if (ev_netdev_track(&st->table, nd->names[i]) == 0)
			added = true;
	}
	return added;
}

static int emit_port(struct metric_sink *sink, const struct ev_port *p)
{
	char port[16];
	int r;

	snprintf(port, sizeof(port), "%u", p->port);
	for (int s = EV_FIRST_STATE; s < EV_N_STATES; s++) {
		r = metric_sink_add_u64(sink, FAM_STATE_CHANGES, help_state_changes, METRIC_COUNTER,
					METRIC_LABELS({"device", p->device}, {"port", port},
						      {"state", ib_port_state_name((uint64_t)s)}),
					p->changes[s]);
		if (collector_sink_result(r) < 0)
			return r;
	}
	r = metric_sink_add_double(sink, FAM_LAST_CHANGE, help_last_change, METRIC_GAUGE,
				   METRIC_LABELS({"device", p->device}, {"port", port}),
				   p->last_change_s);
	return collector_sink_result(r);
}

static int emit_table(struct metric_sink *sink, const struct ev_table *t)
{
	int r;

	for (size_t i = 0; i < t->n_ports; i++) {
		r = emit_port(sink, &t->ports[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < t->n_devices; i++) {
		r = metric_sink_add_u64(sink, FAM_FATAL, help_fatal, METRIC_COUNTER,
					METRIC_LABELS({"device", t->devices[i].name}),
					t->devices[i].fatal);
		if (collector_sink_result(r) < 0)
			return r;
	}
	for (size_t i = 0; i < t->n_netdevs; i++) {
		if (!t->netdevs[i].seen)
			continue; /* not (yet) on this host */
		r = metric_sink_add_u64(sink, FAM_CARRIER, help_carrier, METRIC_COUNTER,
					METRIC_LABELS({"netdev", t->netdevs[i].name}),
					t->netdevs[i].changes);
		if (collector_sink_result(r) < 0)
			return r;
	}
	return 0;
}

static int events_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct events_state *st = state;
	struct netdev_set nd = {0};
	int r;

	if (st->rdma_netdevs && netdev_set_get_published(st->rdma_netdevs, &nd) < 0)
		stats->read_errors++;
	pthread_mutex_lock(&st->lock);
	wait_synced(st);
	if (track_netdevs(st, &nd)) {
		uint64_t before = st->dumps_done;

		st->redump = true;
		pthread_mutex_unlock(&st->lock);
		events_wake(st);
		pthread_mutex_lock(&st->lock);
		wait_dump(st, before);
	}
	r = emit_table(sink, &st->table);
	stats->devices = st->table.n_devices;
	pthread_mutex_unlock(&st->lock);
	netdev_set_free(&nd);
	return r;
}

const struct collector_ops events_collector_ops = {
	.name = "events",
	.help = "Port state changes, fatal device events and carrier changes between polls "
		"(verbs asynchronous events, rtnetlink link notifications)",
	.default_enabled = true,
	.init = events_init,
	.collect = events_collect,
	.free = events_free,
};
