// SPDX-License-Identifier: Apache-2.0
/*
 * Policy and engine of the probe collector (see probe.h). The engine thread
 * owns every verbs object; the collector thread only reads the numbers, under
 * st->lock. The engine logs port changes once; probe failures are data
 * (rdma_probe_errors_total, rdma_probe_timeouts_total), never a log line per
 * probe.
 */
#include "probe.h"
#include "clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "histogram.h"
#include "log.h"
#include "probe_port.h"

#define MAX_SLOTS      64
#define SYNC_PERIOD_MS 1000

enum reason { R_OPEN, R_SEND, R_COMPLETION, R_POLL, R_REASONS };
static const char *const reason_names[R_REASONS] = {"qp", "send", "completion", "poll"};

struct slot {
	bool used, open;
	char device[64];
	uint8_t port;
	char port_str[4];
	struct probe_port p;
	struct histogram rtt;
	uint64_t sent, replies, timeouts, errors[R_REASONS];
	uint64_t responder_requests, responder_dropped;
	double last_rtt;
	bool have_last;
	uint64_t seq;
	uint64_t retry_at_ms; /* open failed: not before this */
	bool logged_fail;
	bool probe_now; /* just opened: probed at once, not an interval later */
};

struct probe_state {
	const struct device_filter *filter;
	uint64_t interval_ms, count, timeout_ms;

	pthread_mutex_t lock; /* slots' numbers and used/open flags */
	pthread_cond_t cond;
	bool stop;
	pthread_t thread;
	bool started;
	struct slot slots[MAX_SLOTS];
};

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

		if (s->used)
			continue;
		memset(s, 0, sizeof(*s));
		if (histogram_init(&s->rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0)
			return NULL;
		s->used = true;
		snprintf(s->device, sizeof(s->device), "%s", dev);
		s->port = port;
		snprintf(s->port_str, sizeof(s->port_str), "%u", port);
		return s;
	}
	return NULL;
}

/* Engine thread only: closes the verbs objects, keeps the numbers. */
static void close_slot(struct probe_state *st, struct slot *s)
{
	struct probe_port p;

	pthread_mutex_lock(&st->lock);
	p = s->p;
	s->open = false;
	memset(&s->p, 0, sizeof(s->p));
	pthread_mutex_unlock(&st->lock);
	probe_port_close(&p);
}

static void drop_slot(struct probe_state *st, struct slot *s)
{
	if (s->open)
		close_slot(st, s);
	pthread_mutex_lock(&st->lock);
	histogram_free(&s->rtt);
	s->used = false;
	pthread_mutex_unlock(&st->lock);
}

static void open_port(struct probe_state *st, struct ibv_device *dev, uint8_t port)
{
	const char *name = ibv_get_device_name(dev), *what = "";
	struct slot *s = find_slot(st, name, port);
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
	r = probe_port_open(&p, dev, port, &what);
	pthread_mutex_lock(&st->lock);
	if (r < 0) {
		s->errors[R_OPEN]++;
		s->retry_at_ms = clock_mono_ms() + st->interval_ms;
	} else {
		s->p = p;
		s->open = true;
		s->probe_now = true;
	}
	pthread_mutex_unlock(&st->lock);
	if (r < 0 && !s->logged_fail)
		log_warn(
			"probe: device=%s port=%u: cannot set up the probe QP (%s): %s; counted in "
			"rdma_probe_errors_total{reason=\"qp\"}, retried every interval",
			name, port, what, strerror(-r));
	else if (r == 0)
		log_info("probe: device=%s port=%u: loopback probe ready (UD QP %u)", name, port,
			 p.qp->qp_num);
	s->logged_fail = r < 0;
}

/*
 * Brings the ports in line with the verbs device list: a device that left it
 * (rdma link delete, hot unplug) is closed at once; a new device's ACTIVE
 * ports are opened.
 */
static void sync_ports(struct probe_state *st)
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
			log_info("probe: device=%s port=%u is gone; its probe QP is closed",
				 s->device, s->port);
			drop_slot(st, s);
		}
	}
	for (int j = 0; list && j < n; j++) {
		const char *name = ibv_get_device_name(list[j]);
		struct ibv_device_attr da;
		struct ibv_context *ctx;
		bool all_open = true;

		if (st->filter && !device_filter_match(st->filter, name))
			continue;
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
	if (list)
		ibv_free_device_list(list);
}

/* Probes every open port, or with only_new those opened since the last round. */
static void probe_all(struct probe_state *st, bool only_new)
{
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		bool failed = false;

		if (!s->used || !s->open || (only_new && !s->probe_now))
			continue;
		s->probe_now = false;
		for (uint64_t k = 0; k < st->count && !failed; k++) {
			const char *what = "";
			uint64_t rtt = 0;
			int r = probe_port_ping(&s->p, ++s->seq, (int)st->timeout_ms, &rtt, &what);

			pthread_mutex_lock(&st->lock);
			s->sent++;
			if (r == 0) {
				s->replies++;
				s->last_rtt = (double)rtt / 1e9;
				s->have_last = true;
				histogram_observe(&s->rtt, s->last_rtt);
			} else if (r == -ETIMEDOUT) {
				s->timeouts++;
			} else {
				s->errors[strcmp(what, "send") == 0	    ? R_SEND
					  : strcmp(what, "completion") == 0 ? R_COMPLETION
									    : R_POLL]++;
				failed = true;
			}
			s->responder_requests = s->p.responder_requests;
			s->responder_dropped = s->p.responder_dropped;
			pthread_mutex_unlock(&st->lock);
		}
		/* A QP in error is rebuilt at the next sync. */
		if (failed)
			close_slot(st, s);
	}
}

static void *engine(void *arg)
{
	struct probe_state *st = arg;
	uint64_t next_probe = clock_mono_ms(), next_sync = 0;

	for (;;) {
		uint64_t now = clock_mono_ms(), wake;
		struct timespec ts;

		if (now >= next_sync) {
			sync_ports(st);
			next_sync = now + SYNC_PERIOD_MS;
			probe_all(st, true);
		}
		if (now >= next_probe) {
			probe_all(st, false);
			next_probe += st->interval_ms;
			if (next_probe < now)
				next_probe = now + st->interval_ms;
		}
		wake = next_sync < next_probe ? next_sync : next_probe;
		pthread_mutex_lock(&st->lock);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = clock_mono_ms();
		if (wake > now) {
			uint64_t d = wake - now;

			ts.tv_sec += (time_t)(d / 1000);
			ts.tv_nsec += (long)(d % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			while (!st->stop && pthread_cond_timedwait(&st->cond, &st->lock, &ts) == 0)
				;
		}
		if (st->stop) {
			pthread_mutex_unlock(&st->lock);
			break;
		}
		pthread_mutex_unlock(&st->lock);
	}
	for (int i = 0; i < MAX_SLOTS; i++)
		if (st->slots[i].used)
			drop_slot(st, &st->slots[i]);
	return NULL;
}

/* ---- collector ----------------------------------------------------------------------- */

static int emit_slot(struct metric_sink *sink, const struct slot *s)
{
	const struct metric_label l[] = {
		{"device", s->device}, {"port", s->port_str}, {"target", "loopback"}};
	const size_t nl = sizeof(l) / sizeof(l[0]);
	int r;

	r = collector_sink_result(metric_sink_add_histogram_from(
		sink, "rdma_probe_rtt_seconds",
		"Round-trip time of probe messages over a UD queue pair (software timestamps: "
		"CLOCK_MONOTONIC around post and reply); target \"loopback\" is the port's own "
		"responder.",
		l, nl, &s->rtt));
	if (r == 0)
		r = collector_sink_result(metric_sink_add_u64(sink, "rdma_probe_sent_total",
							      "Probe messages sent.",
							      METRIC_COUNTER, l, nl, s->sent));
	if (r == 0)
		r = collector_sink_result(metric_sink_add_u64(sink, "rdma_probe_replies_total",
							      "Probe replies received in time.",
							      METRIC_COUNTER, l, nl, s->replies));
	if (r == 0)
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_probe_timeouts_total",
			"Probes without a reply within --collector.probe.timeout.", METRIC_COUNTER,
			l, nl, s->timeouts));
	for (int i = 0; i < R_REASONS && r == 0; i++) {
		const struct metric_label le[] = {{"device", s->device},
						  {"port", s->port_str},
						  {"target", "loopback"},
						  {"reason", reason_names[i]}};

		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_probe_errors_total",
			"Probe failures by reason: qp (the UD QP could not be set up), send (post "
			"failed), completion (a work completion in error), poll (CQ poll failed).",
			METRIC_COUNTER, le, 4, s->errors[i]));
	}
	if (r == 0 && s->have_last)
		r = collector_sink_result(
			metric_sink_add_double(sink, "rdma_probe_last_rtt_seconds",
					       "Round-trip time of the last probe reply.",
					       METRIC_GAUGE, l, nl, s->last_rtt));
	if (r == 0)
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_probe_timestamp_info",
			"Where probe timestamps come from: hardware (NIC clock) or software "
			"(CLOCK_MONOTONIC); always 1.",
			METRIC_GAUGE,
			METRIC_LABELS({"device", s->device}, {"port", s->port_str},
				      {"source", "software"}),
			1));
	if (r == 0)
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_probe_responder_requests_total",
			"Probe requests the port's responder answered.", METRIC_COUNTER,
			METRIC_LABELS({"device", s->device}, {"port", s->port_str}),
			s->responder_requests));
	if (r == 0)
		r = collector_sink_result(metric_sink_add_u64(
			sink, "rdma_probe_responder_dropped_total",
			"Messages the responder dropped: malformed (no magic, wrong version or "
			"length) or unanswerable.",
			METRIC_COUNTER,
			METRIC_LABELS({"device", s->device}, {"port", s->port_str},
				      {"reason", "malformed"}),
			s->responder_dropped));
	return r;
}

static int probe_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct probe_state *st = state;
	const char *seen[MAX_SLOTS];
	size_t n_seen = 0;
	int r = 0;

	pthread_mutex_lock(&st->lock);
	for (int i = 0; i < MAX_SLOTS && r == 0; i++) {
		const struct slot *s = &st->slots[i];
		bool dup = false;

		if (!s->used)
			continue;
		r = emit_slot(sink, s);
		for (size_t j = 0; j < n_seen; j++)
			dup |= strcmp(seen[j], s->device) == 0;
		if (!dup)
			seen[n_seen++] = s->device;
	}
	pthread_mutex_unlock(&st->lock);
	stats->devices = n_seen;
	return r;
}

static void probe_free(void *state)
{
	struct probe_state *st = state;

	if (!st)
		return;
	if (st->started) {
		pthread_mutex_lock(&st->lock);
		st->stop = true;
		pthread_cond_signal(&st->cond);
		pthread_mutex_unlock(&st->lock);
		pthread_join(st->thread, NULL);
	}
	pthread_cond_destroy(&st->cond);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static int probe_init(const struct collector_ctx *ctx, void **state)
{
	struct probe_state *st = calloc(1, sizeof(*st));
	pthread_condattr_t ca;
	int r;

	if (!st)
		return -ENOMEM;
	st->filter = ctx->filter;
	st->interval_ms = ctx->flags ? ctx->flags[PROBE_FLAG_INTERVAL] : 10000;
	st->count = ctx->flags ? ctx->flags[PROBE_FLAG_COUNT] : 5;
	st->timeout_ms = ctx->flags ? ctx->flags[PROBE_FLAG_TIMEOUT] : 1000;
	pthread_mutex_init(&st->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->cond, &ca);
	pthread_condattr_destroy(&ca);
	r = pthread_create(&st->thread, NULL, engine, st);
	if (r != 0) {
		probe_free(st);
		return -r;
	}
	st->started = true;
	*state = st;
	return 0;
}

static const struct collector_flag probe_flags[PROBE_FLAG_COUNT_] = {
	[PROBE_FLAG_INTERVAL] =
		{
			.name = "interval",
			.help = "Time between probe rounds. Default 10s.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 10000,
			.min = 100,
			.max = 3600 * 1000,
		},
	[PROBE_FLAG_COUNT] =
		{
			.name = "count",
			.help = "Probes per target per round. Default 5.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 5,
			.min = 1,
			.max = 1000,
		},
	[PROBE_FLAG_TIMEOUT] =
		{
			.name = "timeout",
			.help = "Time to wait for one probe's reply. Default 1s.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 1000,
			.min = 1,
			.max = 60 * 1000,
		},
};

const struct collector_ops probe_collector_ops = {
	.name = "probe",
	.help = "Active RDMA latency probes: loopback over a UD QP on every ACTIVE port",
	.default_enabled = true,
	.flags = probe_flags,
	.n_flags = PROBE_FLAG_COUNT_,
	.init = probe_init,
	.collect = probe_collect,
	.free = probe_free,
};
