// SPDX-License-Identifier: Apache-2.0
#include "daemon/poller.h"
#include "base/clock.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "daemon/pollsched.h"
#include "daemon/sdnotify.h"
#include "daemon/selfstats.h"
#include "daemon/worker.h"
#include "exposition/expo_proto.h"
#include "exposition/histogram.h"

struct instance {
	const struct collector_ops *ops;
	struct collector_ctx ctx; /* the shared one, with this collector's flags */
	void *state;
	bool enabled;
	bool init_ok;
	/* Its own thread; NULL: none could start, it runs on the polling thread. */
	struct worker *worker;
	/* The rest is the polling thread's. */
	uint64_t read_errors_total; /* cumulative, for a counter (without a worker) */
	bool last_ok;		    /* for logging state changes once */
	/* Left behind: no fresh samples since stale_since_ms (clock_mono_ms()). */
	bool stale;
	uint64_t stale_since_ms;
	uint64_t timeouts_total; /* runs that missed their deadline */
};

/* A collector's self metrics for one poll. */
struct run_report {
	bool ok, stale;
	bool have_last;	  /* a run completed: duration and devices are known */
	double took_s;	  /* of the last completed run */
	uint64_t devices; /* of the last completed run */
	uint64_t read_errors_total, timeouts_total;
	double stale_s;
};

struct poller {
	struct poller_config cfg;
	struct snapshot_slot *slot;
	struct instance *inst;
	uint64_t polls_total;
	uint64_t metric_errors_total;
	uint64_t self_errors_total;
	size_t last_size; /* rendering size of the previous poll, to pre-size the buffer */
	size_t trim_high; /* the biggest poll's text + protobuf bytes, for poller_trim_due() */
	/* For systemd's STATUS= line, counted during a poll */
	uint64_t poll_devices;
	unsigned poll_failed;
	/* --poll.collector-timeout: how long a poll waits for each collector */
	uint64_t collector_timeout_ms;
	/* While a poll waits for a collector: when it pings the watchdog next. */
	uint64_t run_ping_ms;
	/* poller_stop() began: polls in progress stop waiting (atomic). */
	bool stopping;
	/* cfg.stuck() said so at the last ping, which was not sent */
	bool ping_withheld;

	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop, reload;
	/* under lock: the schedule, and what the scrapes were served */
	struct pollsched sched;
	/* rdma_exporter_data_age_seconds of the scraper followed, and of every other request */
	struct histogram data_age_followed, data_age_other;
	bool untracked_logged;		/* the first scraper the schedule could not track */
	uint64_t last_start_ms;		/* when the last poll started (CLOCK_MONOTONIC) */
	uint64_t last_end_ms;		/* when the last poll ended */
	uint64_t poll_cost_ms;		/* how long polls take, smoothed */
	uint64_t fixed_next_ms;		/* fixed mode: when the next poll is due */
	uint64_t next_due_ms;		/* what the waiting thread aims at */
	uint64_t ping_ms;		/* when the waiting thread pings the watchdog next */
	struct pollsched_target target; /* what the schedule followed last, for logs */
	/* When a request last asked for protobuf, for plain (not gzip) text; 0: none yet. */
	uint64_t proto_asked_ms, plain_asked_ms;
};

/* rdma_exporter_data_age_seconds: a fresh poll (50 ms) to a stuck one (a minute) */
static const double data_age_bounds[] = {0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

static const char *const data_age_help =
	"Age of the poll a /metrics request was served, observed at every request until the "
	"start of this poll; scraper: followed (the scraper the aligned schedule follows) or "
	"other (any other request).";

static const char *const build_labels_help =
	"A metric with a constant '1' value labeled by version, revision (git) and compiler "
	"(name and version) of rdma_exporter.";

#ifdef __clang__
#define COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define COMPILER "gcc " __VERSION__
#else
#define COMPILER __VERSION__
#endif

/* Initializes collector i and starts its thread. */
static void init_collector(struct poller *p, unsigned i)
{
	const struct poller_config *cfg = &p->cfg;
	struct instance *in = &p->inst[i];
	int r;

	in->ops = cfg->collectors[i];
	in->enabled = cfg->enabled[i];
	in->last_ok = true;
	if (!in->enabled)
		return;
	in->ctx = cfg->ctx;
	in->ctx.collector_timeout_ms = p->collector_timeout_ms;
	in->ctx.flags = cfg->flag_values && in->ops->n_flags ? cfg->flag_values[i] : NULL;
	in->ctx.flag_strs = cfg->flag_strs && in->ops->n_flags ? cfg->flag_strs[i] : NULL;
	r = in->ops->init(&in->ctx, &in->state);
	in->init_ok = r == 0;
	if (r < 0) {
		log_error("collector init failed; it reports success 0", "collector=%s err=%s",
			  in->ops->name, strerror(-r));
		return;
	}
	log_info("collector enabled", "collector=%s", in->ops->name);
	in->worker = worker_start(in->ops, in->state);
	if (!in->worker)
		log_warn("cannot start the collector's thread; it runs on the polling thread, "
			 "without a deadline",
			 "collector=%s", in->ops->name);
}

struct poller *poller_new(const struct poller_config *cfg, struct snapshot_slot *slot)
{
	struct poller *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (!p)
		return NULL;
	p->cfg = *cfg;
	p->slot = slot;
	p->inst = calloc(cfg->n_collectors, sizeof(*p->inst));
	if (!p->inst) {
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cond, &ca);
	pthread_condattr_destroy(&ca);
	pollsched_init(&p->sched,
		       &(struct pollsched_params){.min_interval_ms = cfg->min_interval_ms,
						  .max_interval_ms = cfg->interval_ms});
	if (histogram_init(&p->data_age_followed, data_age_bounds,
			   sizeof(data_age_bounds) / sizeof(data_age_bounds[0])) < 0 ||
	    histogram_init(&p->data_age_other, data_age_bounds,
			   sizeof(data_age_bounds) / sizeof(data_age_bounds[0])) < 0) {
		poller_free(p);
		return NULL;
	}

	p->collector_timeout_ms = cfg->ctx.collector_timeout_ms
					  ? cfg->ctx.collector_timeout_ms
					  : config_collector_timeout_ms(cfg->interval_ms);
	for (unsigned i = 0; i < cfg->n_collectors; i++)
		init_collector(p, i);
	return p;
}

static void add_self_metrics(struct poller *p, struct metric_sink *sink, double poll_started)
{
	metric_sink_add_u64(sink, "rdma_exporter_build_info", build_labels_help, METRIC_GAUGE,
			    METRIC_LABELS({"version", RDMA_EXPORTER_VERSION},
					  {"revision", RDMA_EXPORTER_REVISION},
					  {"compiler", COMPILER}),
			    1);
	metric_sink_add_double(sink, "rdma_exporter_last_poll_timestamp_seconds",
			       "Unix time when the last poll started.", METRIC_GAUGE,
			       METRIC_NO_LABELS, poll_started);
	metric_sink_add_u64(sink, "rdma_exporter_polls_total",
			    "Polls run since the exporter started.", METRIC_COUNTER,
			    METRIC_NO_LABELS, p->polls_total);
	metric_sink_add_double(sink, "rdma_exporter_poll_interval_seconds",
			       "Configured time between polls.", METRIC_GAUGE, METRIC_NO_LABELS,
			       (double)p->cfg.interval_ms / 1000.0);
	pthread_mutex_lock(&p->lock);
	metric_sink_add_histogram_from(sink, "rdma_exporter_data_age_seconds", data_age_help,
				       METRIC_LABELS({"scraper", "followed"}),
				       &p->data_age_followed);
	metric_sink_add_histogram_from(sink, "rdma_exporter_data_age_seconds", data_age_help,
				       METRIC_LABELS({"scraper", "other"}), &p->data_age_other);
	metric_sink_add_u64(sink, "rdma_exporter_scrapes_untracked_total",
			    "/metrics requests of new scrapers the aligned poll schedule did not "
			    "learn: its table was full of established scrapers.",
			    METRIC_COUNTER, METRIC_NO_LABELS, p->sched.untracked);
	pthread_mutex_unlock(&p->lock);
	if (p->cfg.self_metrics)
		p->cfg.self_metrics(p->cfg.self_metrics_arg, sink);
	p->self_errors_total += selfstats_collect(p->cfg.proc_root, sink);
	metric_sink_add_u64(sink, "rdma_exporter_self_read_errors_total",
			    "process_* values the exporter could not read about itself.",
			    METRIC_COUNTER, METRIC_NO_LABELS, p->self_errors_total);
}

static void watchdog_ping(struct poller *p)
{
	bool stuck = p->cfg.stuck && p->cfg.stuck(p->cfg.stuck_arg);

	if (stuck != p->ping_withheld) {
		if (stuck)
			log_error("the web server accepts no connection: no more watchdog pings, "
				  "systemd restarts the exporter");
		else
			log_info("the web server accepts connections again: watchdog pings resume");
		p->ping_withheld = stuck;
	}
	if (stuck)
		return;
	if (p->cfg.watchdog_ping)
		p->cfg.watchdog_ping();
	else
		notify_watchdog();
}

static void add_collector_metrics(struct metric_sink *sink, const char *name,
				  const struct run_report *r)
{
	const struct metric_label l[] = {{"collector", name}};

	metric_sink_add_u64(sink, "rdma_exporter_collector_success",
			    "1 if the collector's last run succeeded, 0 if it failed as a whole "
			    "or is left behind (rdma_exporter_collector_stale).",
			    METRIC_GAUGE, l, 1, r->ok ? 1 : 0);
	if (r->have_last)
		metric_sink_add_double(sink, "rdma_exporter_collector_duration_seconds",
				       "Time the collector's last completed run took, in time or "
				       "late.",
				       METRIC_GAUGE, l, 1, r->took_s);
	metric_sink_add_u64(sink, "rdma_exporter_collector_read_errors_total",
			    "Values the collector skipped because they could not be read or "
			    "parsed (unsupported, N/A, not a number, vanished).",
			    METRIC_COUNTER, l, 1, r->read_errors_total);
	if (r->have_last)
		metric_sink_add_u64(
			sink, "rdma_exporter_collector_devices",
			"RDMA devices the collector reported in its last completed run.",
			METRIC_GAUGE, l, 1, r->devices);
	metric_sink_add_u64(sink, "rdma_exporter_collector_stale",
			    "1 while the collector is left behind: a run missed "
			    "--poll.collector-timeout and its samples are missing until a run "
			    "ends in time.",
			    METRIC_GAUGE, l, 1, r->stale ? 1 : 0);
	metric_sink_add_double(sink, "rdma_exporter_collector_stale_seconds",
			       "Time since the collector was left behind (its first missed "
			       "deadline); 0 while its samples are fresh.",
			       METRIC_GAUGE, l, 1, r->stale_s);
	metric_sink_add_u64(sink, "rdma_exporter_collector_timeouts_total",
			    "Runs of the collector that missed --poll.collector-timeout and were "
			    "left behind.",
			    METRIC_COUNTER, l, 1, r->timeouts_total);
}

/* Logs once when a collector's run fails as a whole, once when it recovers. */
static void note_outcome(struct instance *in, bool ok, int r)
{
	if (ok == in->last_ok)
		return;
	if (ok)
		log_info("collector recovered", "collector=%s", in->ops->name);
	else
		log_warn("collector failed", "collector=%s err=%s", in->ops->name, strerror(-r));
	in->last_ok = ok;
}

/* For the STATUS= line: how this collector's run went. */
static void count_run(struct poller *p, const struct instance *in, bool ok, uint64_t devices)
{
	if (!ok)
		p->poll_failed++;
	/* ethtool counts netdevs, not RDMA devices */
	if (strcmp(in->ops->name, "ethtool") != 0 && devices > p->poll_devices)
		p->poll_devices = devices;
}

/* Without a thread of its own (or an init): on the polling thread, no deadline. */
static void run_inline(struct poller *p, struct instance *in, struct metric_sink *sink)
{
	struct collector_stats stats = {0};
	/* Integer ns, divided once: "0.000029957", not a difference of two
	 * large doubles ("2.9957000037938997e-05"). */
	uint64_t t0 = clock_mono_ns();
	struct run_report rep = {.have_last = true};
	int r = -ENODEV;

	if (in->init_ok)
		r = in->ops->collect(in->state, sink, &stats);
	rep.ok = r == 0;
	rep.took_s = (double)(clock_mono_ns() - t0) / 1e9;
	in->read_errors_total += stats.read_errors;
	rep.read_errors_total = in->read_errors_total;
	rep.devices = stats.devices;
	count_run(p, in, rep.ok, stats.devices);
	note_outcome(in, rep.ok, r);
	add_collector_metrics(sink, in->ops->name, &rep);
}

/*
 * Waits for the run until deadline_ms, pinging the watchdog on the way:
 * WORKER_DONE with its result in *res, or WORKER_LEFT (left behind, also
 * when poller_stop() came meanwhile).
 */
static enum worker_wait wait_for_run(struct poller *p, struct instance *in, uint64_t deadline_ms,
				     struct worker_result *res)
{
	uint64_t every = p->cfg.watchdog_ping_ms;

	for (;;) {
		uint64_t now = clock_mono_ms(), until = deadline_ms;
		bool last = now >= deadline_ms || __atomic_load_n(&p->stopping, __ATOMIC_ACQUIRE);
		enum worker_wait w;

		if (every && p->run_ping_ms < until)
			until = p->run_ping_ms;
		w = worker_wait(in->worker, last ? now : until, last, res);
		if (w != WORKER_WAITING)
			return w;
		now = clock_mono_ms();
		if (every && now >= p->run_ping_ms) {
			watchdog_ping(p);
			p->run_ping_ms = now + every;
		}
	}
}

/* Logs once when a collector is left behind, once when it is back. */
static void note_stale(struct poller *p, struct instance *in, bool stale, uint64_t now)
{
	if (stale == in->stale)
		return;
	in->stale = stale;
	if (stale) {
		in->stale_since_ms = now;
		log_warn("collector left behind: its run missed the deadline; its samples are "
			 "missing until a run ends in time",
			 "collector=%s timeout_ms=%llu", in->ops->name,
			 (unsigned long long)p->collector_timeout_ms);
	} else {
		log_info("collector caught up", "collector=%s stale_ms=%llu", in->ops->name,
			 (unsigned long long)(now - in->stale_since_ms));
	}
}

/* A run that ended in time: its samples join the poll's. */
static void take_run(struct poller *p, struct instance *in, struct metric_sink *sink,
		     struct worker_result *res, struct run_report *rep)
{
	int r = res->rc;

	if (res->sink) {
		int a = metric_sink_absorb(sink, res->sink);

		if (a < 0 && r == 0)
			r = a;
		metric_sink_free(res->sink);
	}
	rep->ok = r == 0;
	rep->took_s = (double)res->took_ns / 1e9;
	rep->devices = res->stats.devices;
	count_run(p, in, rep->ok, res->stats.devices);
	note_outcome(in, rep->ok, r);
}

/*
 * On the collector's thread, waiting at most the deadline; one still busy
 * with a run an earlier poll left behind is skipped at once.
 */
static void run_on_worker(struct poller *p, struct instance *in, struct metric_sink *sink)
{
	struct run_report rep = {0};
	struct worker_result res;
	struct worker_history h;
	enum worker_wait w = WORKER_LEFT;
	bool stopping = __atomic_load_n(&p->stopping, __ATOMIC_ACQUIRE);
	bool asked = !stopping && worker_dispatch(in->worker);
	uint64_t now;

	if (asked)
		w = wait_for_run(p, in, clock_mono_ms() + p->collector_timeout_ms, &res);
	now = clock_mono_ms();
	worker_history(in->worker, &h);
	rep.have_last = h.runs > 0;
	rep.took_s = (double)h.last_took_ns / 1e9;
	rep.devices = h.last_devices;
	if (w == WORKER_DONE) {
		take_run(p, in, sink, &res, &rep);
		note_stale(p, in, false, now);
	} else if (!stopping) {
		if (asked)
			in->timeouts_total++;
		note_stale(p, in, true, now);
		count_run(p, in, false, 0);
	}
	rep.stale = in->stale;
	rep.stale_s = in->stale ? (double)(now - in->stale_since_ms) / 1000.0 : 0;
	rep.read_errors_total = h.read_errors_total;
	rep.timeouts_total = in->timeouts_total;
	add_collector_metrics(sink, in->ops->name, &rep);
}

static void run_collector(struct poller *p, struct instance *in, struct metric_sink *sink)
{
	if (in->worker)
		run_on_worker(p, in, sink);
	else
		run_inline(p, in, sink);
}

/* systemctl status shows the last poll: when, how long, what it saw. */
static void notify_poll_status(struct poller *p, double started)
{
	unsigned enabled = 0;
	time_t t = (time_t)started;
	struct tm tm;
	char when[32] = "?";

	for (unsigned i = 0; i < p->cfg.n_collectors; i++)
		enabled += p->inst[i].enabled;
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	notify_status("%llu RDMA devices; last poll %s took %.0fms; %u of %u collectors failing",
		      (unsigned long long)p->poll_devices, when,
		      (clock_wall_s() - started) * 1000.0, p->poll_failed, enabled);
}

/*
 * The protobuf exposition of the same sink, built here once per poll like the
 * gzip copy; without it (no memory) every scraper gets the text.
 */
static void add_proto(struct snapshot *snap, const struct metric_sink *sink)
{
	struct buf pb = BUF_INIT;
	size_t len;
	char *bytes;
	int r = expo_proto_render(sink, &pb);

	if (r < 0) {
		log_warn("cannot encode the protobuf exposition; serving text only", "err=%s",
			 strerror(-r));
		buf_free(&pb);
		return;
	}
	bytes = buf_steal(&pb, &len);
	snapshot_set_proto(snap, bytes, len);
}

/* Under lock: whether a request asked for a form within keep_ms. */
static bool asked_lately(const struct poller *p, uint64_t asked_ms, uint64_t keep_ms)
{
	return p->polls_total == 0 || (asked_ms && clock_mono_ms() - asked_ms < keep_ms);
}

/*
 * Whether this poll encodes the protobuf exposition: the first one (no
 * request seen yet), then only while requests ask for it. Encoding it and
 * its gzip copy was a seventh of a poll's CPU, wasted for text scrapers; a
 * protobuf request that finds none gets the text, and the next poll has it.
 * Likewise the plain text is kept beside its gzip copy only while requests
 * ask for it (Prometheus asks for gzip): 150 kB of the bench tree's 165 kB.
 */
static void forms_wanted(struct poller *p, bool *proto, bool *plain)
{
	pthread_mutex_lock(&p->lock);
	*proto = asked_lately(p, p->proto_asked_ms, POLLER_PROTO_KEEP_MS);
	*plain = asked_lately(p, p->plain_asked_ms, POLLER_PLAIN_KEEP_MS);
	pthread_mutex_unlock(&p->lock);
}

bool poller_trim_due(size_t poll_bytes, size_t *high_bytes)
{
	if (poll_bytes <= *high_bytes)
		return false;
	*high_bytes = poll_bytes;
	return true;
}

/*
 * The poll's sink and the previous snapshot are freed by now. A poll
 * bigger than any before it (the first, more series, a protobuf scraper's
 * encoding) grew the heap to a peak later polls may not reach again: give
 * the free pages back. After a poll like the ones before, trimming only gave
 * back the pages the next poll faulted in again: 148 kB of RssAnon for 10%
 * more CPU a poll (the call, 36 page faults, a colder heap). mallinfo2(),
 * to see the heap grow, costs more than the trim (docs/performance.md).
 */
static void trim_if_bigger(struct poller *p, size_t poll_bytes)
{
	if (poller_trim_due(poll_bytes, &p->trim_high))
		malloc_trim(0);
}

int poller_poll_once(struct poller *p)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;
	struct snapshot *snap;
	double started = clock_wall_s();
	bool proto, plain;
	char *text;
	size_t len, pb_len;

	if (!sink)
		return -ENOMEM;
	forms_wanted(p, &proto, &plain);
	p->poll_devices = 0;
	p->poll_failed = 0;
	p->run_ping_ms = clock_mono_ms() + p->cfg.watchdog_ping_ms;
	for (unsigned i = 0; i < p->cfg.n_collectors; i++)
		if (p->inst[i].enabled)
			run_collector(p, &p->inst[i], sink);
	p->polls_total++;
	add_self_metrics(p, sink, started);
	/* Counted last so that this poll's own rejects are included. */
	p->metric_errors_total += metric_sink_errors(sink);
	metric_sink_add_u64(sink, "rdma_exporter_metric_errors_total",
			    "Samples the exposition writer rejected (invalid name, duplicate "
			    "series); each is a bug worth reporting.",
			    METRIC_COUNTER, METRIC_NO_LABELS, p->metric_errors_total);

	buf_reserve(&out, p->last_size + p->last_size / 8);
	if (metric_sink_render(sink, &out) < 0) {
		metric_sink_free(sink);
		buf_free(&out);
		return -ENOMEM;
	}
	p->last_size = out.len;
	text = buf_steal(&out, &len);
	snap = snapshot_new(text, len);
	if (!snap) {
		metric_sink_free(sink);
		return -ENOMEM;
	}
	if (proto)
		add_proto(snap, sink);
	metric_sink_free(sink);
	/* Compressed here, once per poll, never on the HTTP thread; without
	 * memory for it gzip clients get the plain text of this poll. */
	if (snapshot_compress(snap) < 0)
		log_warn("cannot compress the snapshot; serving it uncompressed", "err=%s",
			 "out of memory");
	else if (!plain)
		snapshot_drop_text(snap);
	snapshot_proto(snap, &pb_len); /* read before the slot owns snap */
	snapshot_slot_publish(p->slot, snap);
	trim_if_bigger(p, p->last_size + pb_len);
	notify_poll_status(p, started);
	return 0;
}

/* On each collector's own thread, before its next run (a busy one: after it). */
static void reload_collectors(struct poller *p)
{
	for (unsigned i = 0; i < p->cfg.n_collectors; i++) {
		struct instance *in = &p->inst[i];

		if (in->worker)
			worker_request_reload(in->worker);
		else if (in->enabled && in->init_ok && in->ops->reload)
			in->ops->reload(in->state);
	}
}

static void add_ms(struct timespec *ts, uint64_t ms)
{
	ts->tv_sec += (time_t)(ms / 1000);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Logs once when the schedule starts or stops following a scraper, or its period changes. */
static void log_target(struct poller *p, const struct pollsched_target *t)
{
	uint64_t was = p->target.period_ms, is = t->period_ms;

	if (t->aligned == p->target.aligned && t->key == p->target.key &&
	    (is > was ? is - was : was - is) * 20 <= was)
		return;
	if (t->aligned)
		log_info("polls aligned to a scraper", "period_ms=%llu", (unsigned long long)is);
	else if (p->target.aligned)
		log_info("no regular scraper; polling every interval", "interval_ms=%llu",
			 (unsigned long long)p->cfg.interval_ms);
	p->target = *t;
}

/* When the next poll is due, under p->lock. */
static uint64_t next_poll_ms(struct poller *p, uint64_t now)
{
	struct pollsched_target t;
	uint64_t next;

	if (p->cfg.fixed_interval)
		return p->fixed_next_ms > now ? p->fixed_next_ms : now;
	next = pollsched_next(&p->sched, now, p->last_start_ms, p->last_end_ms, p->poll_cost_ms,
			      &t);
	log_target(p, &t);
	return next;
}

/*
 * Sleeps until the next poll is due, or a reload or a stop, pinging the
 * watchdog every watchdog_ping_ms meanwhile. Every wake-up (a scrape that
 * moved the schedule signals the condition) recomputes when the poll is
 * due; the ping deadline is kept across them. Called and returns with
 * p->lock held; the ping itself is sent without it.
 */
static void wait_for_poll(struct poller *p)
{
	uint64_t every = p->cfg.watchdog_ping_ms;

	while (!p->stop && !p->reload) {
		uint64_t now = clock_mono_ms(), until;
		struct timespec ts = {0};

		p->next_due_ms = next_poll_ms(p, now);
		if (p->next_due_ms <= now)
			return; /* the poll is due */
		if (every && p->ping_ms <= now) {
			pthread_mutex_unlock(&p->lock);
			watchdog_ping(p);
			pthread_mutex_lock(&p->lock);
			p->ping_ms = clock_mono_ms() + every;
			continue;
		}
		until = every && p->ping_ms < p->next_due_ms ? p->ping_ms : p->next_due_ms;
		add_ms(&ts, until);
		pthread_cond_timedwait(&p->cond, &p->lock, &ts);
	}
}

/* After a poll, under p->lock: what the schedule needs to know about it. */
static void poll_done(struct poller *p, uint64_t started, bool reloaded)
{
	uint64_t now = clock_mono_ms(), took = now - started;

	p->last_start_ms = started;
	p->last_end_ms = now;
	/* a slower poll counts at once, a faster one little by little */
	p->poll_cost_ms = took > p->poll_cost_ms ? took : (3 * p->poll_cost_ms + took) / 4;
	/* A poll that overran its slot starts the next one a full interval
	 * from now instead of running back to back. */
	if (p->fixed_next_ms < now || reloaded)
		p->fixed_next_ms = now;
	p->fixed_next_ms += p->cfg.interval_ms;
	p->ping_ms = now + p->cfg.watchdog_ping_ms;
}

static void *poller_thread(void *arg)
{
	struct poller *p = arg;
	uint64_t started;
	bool do_reload;

	pthread_setname_np(pthread_self(), "rdma-poller");
	pthread_mutex_lock(&p->lock);
	for (;;) {
		wait_for_poll(p);
		do_reload = p->reload;
		p->reload = false;
		if (p->stop)
			break;
		pthread_mutex_unlock(&p->lock);

		started = clock_mono_ms();
		if (do_reload) {
			notify_reloading();
			log_info("reloading collectors", "signal=SIGHUP");
			reload_collectors(p);
		}
		if (poller_poll_once(p) < 0)
			log_error("poll failed; serving the previous snapshot", "err=%s",
				  "out of memory");
		if (do_reload)
			notify_ready();
		watchdog_ping(p);
		pthread_mutex_lock(&p->lock);
		poll_done(p, started, do_reload);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void poller_note_scrape(struct poller *p, uint64_t key, unsigned from, double data_age_s,
			unsigned wants)
{
	poller_note_scrape_at(p, clock_mono_ms(), key, from, data_age_s, wants);
}

void poller_note_scrape_at(struct poller *p, uint64_t now, uint64_t key, unsigned from,
			   double data_age_s, unsigned wants)
{
	bool authenticated = from & POLLSCHED_AUTHENTICATED;

	struct pollsched_target t = {0};
	uint64_t next, untracked;

	pthread_mutex_lock(&p->lock);
	if (wants & SNAPSHOT_WANTS_PROTO)
		p->proto_asked_ms = now ? now : 1;
	if (wants & SNAPSHOT_WANTS_PLAIN)
		p->plain_asked_ms = now ? now : 1;
	if (!p->cfg.fixed_interval) {
		untracked = p->sched.untracked;
		pollsched_arrival_from(&p->sched, key, from, now);
		next = pollsched_next(&p->sched, now, p->last_start_ms, p->last_end_ms,
				      p->poll_cost_ms, &t);
		/* wake the thread only when the schedule moved */
		if (next != p->next_due_ms)
			pthread_cond_signal(&p->cond);
		if (p->sched.untracked != untracked && !p->untracked_logged) {
			p->untracked_logged = true;
			log_warn("the poll schedule tracks no more scrapers: its table is full "
				 "of established ones; new scrapers are counted in "
				 "rdma_exporter_scrapes_untracked_total",
				 "scrapers=%d", POLLSCHED_MAX_SCRAPERS);
		}
	}
	/* an attacker must not hide the staleness it causes in an average with Prometheus */
	histogram_observe(t.aligned && t.key == key && t.authenticated == authenticated
				  ? &p->data_age_followed
				  : &p->data_age_other,
			  data_age_s);
	pthread_mutex_unlock(&p->lock);
}

int poller_start(struct poller *p)
{
	uint64_t now = clock_mono_ms();
	int r;

	/* the first poll (poller_poll_once(), before the thread) just ended;
	 * the web server may already note scrapes */
	pthread_mutex_lock(&p->lock);
	p->last_start_ms = now;
	p->last_end_ms = now;
	p->fixed_next_ms = now + p->cfg.interval_ms;
	p->ping_ms = now + p->cfg.watchdog_ping_ms;
	pthread_mutex_unlock(&p->lock);
	r = pthread_create(&p->thread, NULL, poller_thread, p);

	if (r != 0)
		return -r;
	p->running = true;
	return 0;
}

void poller_request_reload(struct poller *p)
{
	pthread_mutex_lock(&p->lock);
	p->reload = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* Stops the polling thread, if it runs, by deadline. 0 or -ETIMEDOUT. */
static int stop_thread(struct poller *p, const struct timespec *deadline)
{
	int r;

	if (!p->running)
		return 0;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	r = pthread_timedjoin_np(p->thread, NULL, deadline);
	if (r != 0)
		return -r;
	p->running = false;
	return 0;
}

int poller_stop(struct poller *p)
{
	uint64_t ms = p && p->cfg.stop_timeout_ms ? p->cfg.stop_timeout_ms : POLLER_STOP_TIMEOUT_MS;
	struct timespec deadline;
	int r;

	if (!p)
		return 0;
	/* pthread_timedjoin_np takes a CLOCK_REALTIME deadline */
	clock_gettime(CLOCK_REALTIME, &deadline);
	add_ms(&deadline, ms);
	/* a poll waiting for a collector stops waiting */
	__atomic_store_n(&p->stopping, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < p->cfg.n_collectors; i++)
		if (p->inst[i].worker)
			worker_interrupt(p->inst[i].worker);
	r = stop_thread(p, &deadline);
	if (r < 0)
		return r;
	/* every worker told first, then joined: the idle ones end together */
	for (unsigned i = 0; i < p->cfg.n_collectors; i++)
		worker_request_stop(p->inst[i].worker);
	for (unsigned i = 0; i < p->cfg.n_collectors; i++)
		if (worker_join(p->inst[i].worker, &deadline) < 0)
			r = -ETIMEDOUT;
	return r;
}

int poller_free(struct poller *p)
{
	int r;

	if (!p)
		return 0;
	r = poller_stop(p);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < p->cfg.n_collectors; i++) {
		struct instance *in = &p->inst[i];

		worker_free(in->worker);
		if (in->enabled && in->init_ok)
			in->ops->free(in->state);
	}
	free(p->inst);
	histogram_free(&p->data_age_followed);
	histogram_free(&p->data_age_other);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
	return 0;
}
