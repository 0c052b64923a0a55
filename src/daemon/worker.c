// SPDX-License-Identifier: Apache-2.0
#include "daemon/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"

struct worker {
	const struct collector_ops *ops;
	void *state;
	pthread_t thread;
	bool joined;

	pthread_mutex_t lock;
	pthread_cond_t wake; /* the worker waits on it for a run or the stop */
	pthread_cond_t done; /* the polling thread waits on it for the result */
	/* under lock */
	bool run;	  /* a run asked for, not yet taken */
	bool busy;	  /* asked for and not yet ended */
	bool left_behind; /* the poll stopped waiting for the current run */
	bool finished;	  /* the current run ended in time: result below */
	bool reload;	  /* reload() before the next collect() */
	bool stop;
	bool interrupted; /* worker_interrupt() since the last wait */
	struct worker_result result;
	struct worker_history hist;
};

/* One run on the worker's thread, without the lock. */
static void run_once(struct worker *w, bool reload, struct worker_result *res)
{
	uint64_t t0;

	if (reload && w->ops->reload)
		w->ops->reload(w->state);
	*res = (struct worker_result){.rc = -ENOMEM};
	res->sink = metric_sink_new();
	t0 = clock_mono_ns();
	if (res->sink)
		res->rc = w->ops->collect(w->state, res->sink, &res->stats);
	res->took_ns = clock_mono_ns() - t0;
}

/* Under lock: a run ended; hands it over, or drops it when left behind. */
static struct metric_sink *run_ended(struct worker *w, struct worker_result *res)
{
	struct metric_sink *drop = NULL;

	w->busy = false;
	w->hist.runs++;
	w->hist.read_errors_total += res->stats.read_errors;
	w->hist.last_took_ns = res->took_ns;
	w->hist.last_devices = res->stats.devices;
	if (w->left_behind) {
		/* Values of unknown age must not read as current: dropped. */
		w->left_behind = false;
		drop = res->sink;
	} else {
		w->result = *res;
		w->finished = true;
		pthread_cond_signal(&w->done);
	}
	return drop;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct worker_result res;
	struct metric_sink *drop;
	char name[16];
	bool reload;

	snprintf(name, sizeof(name), "rdma-c-%s", w->ops->name);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->run && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		w->run = false;
		reload = w->reload;
		w->reload = false;
		pthread_mutex_unlock(&w->lock);

		run_once(w, reload, &res);

		pthread_mutex_lock(&w->lock);
		drop = run_ended(w, &res);
		if (drop) {
			pthread_mutex_unlock(&w->lock);
			metric_sink_free(drop);
			pthread_mutex_lock(&w->lock);
		}
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct worker *worker_start(const struct collector_ops *ops, void *state)
{
	struct worker *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (!w)
		return NULL;
	w->ops = ops;
	w->state = state;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->done, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
		w->joined = true;
		worker_free(w);
		return NULL;
	}
	return w;
}

bool worker_dispatch(struct worker *w)
{
	bool asked = false;

	pthread_mutex_lock(&w->lock);
	if (!w->busy) {
		w->run = true;
		w->busy = true;
		w->finished = false;
		asked = true;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	return asked;
}

static void until_timespec(uint64_t until_ms, struct timespec *ts)
{
	ts->tv_sec = (time_t)(until_ms / 1000);
	ts->tv_nsec = (long)(until_ms % 1000) * 1000000L;
}

enum worker_wait worker_wait(struct worker *w, uint64_t until_ms, bool leave,
			     struct worker_result *res)
{
	enum worker_wait r = WORKER_WAITING;
	struct timespec ts;

	until_timespec(until_ms, &ts);
	pthread_mutex_lock(&w->lock);
	while (!w->finished && !w->interrupted && clock_mono_ms() < until_ms)
		pthread_cond_timedwait(&w->done, &w->lock, &ts);
	w->interrupted = false;
	if (w->finished) {
		*res = w->result;
		w->result.sink = NULL;
		w->finished = false;
		r = WORKER_DONE;
	} else if (leave && w->busy) {
		w->left_behind = true;
		r = WORKER_LEFT;
	}
	pthread_mutex_unlock(&w->lock);
	return r;
}

void worker_interrupt(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->interrupted = true;
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
}

void worker_request_reload(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->reload = true;
	pthread_mutex_unlock(&w->lock);
}

void worker_history(struct worker *w, struct worker_history *h)
{
	pthread_mutex_lock(&w->lock);
	*h = w->hist;
	pthread_mutex_unlock(&w->lock);
}

void worker_request_stop(struct worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

int worker_join(struct worker *w, const struct timespec *deadline)
{
	if (!w || w->joined)
		return 0;
	if (pthread_timedjoin_np(w->thread, NULL, deadline) != 0)
		return -ETIMEDOUT;
	w->joined = true;
	return 0;
}

void worker_free(struct worker *w)
{
	if (!w)
		return;
	/* a result never taken (the poll that asked for it was stopped) */
	metric_sink_free(w->result.sink);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
