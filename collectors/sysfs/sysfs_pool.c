// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's reader threads (sysfs_pool.h). Every thread is
 * detached: a blocked one cannot be joined, and the others are waited for
 * through the counts, under the one lock.
 */
#include "sysfs_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"

enum {
	TASK_IDLE,
	TASK_QUEUED,
	TASK_RUNNING,
};

/*
 * A reader waiting for a task, on the pool's stack of idle readers: the one
 * idle most recently is on top and is woken first, alone. A condition
 * variable shared by all woke them in turn: each poll's reads ran on a
 * thread idle for the last three polls, its stack and the kernel's side of it
 * cold, for a fifth more CPU on the readers a minute (docs/performance.md).
 */
struct idle_reader {
	pthread_cond_t cv;
	struct idle_reader *below;
	bool woken; /* taken off the stack by idle_wake() */
};

struct sysfs_pool {
	pthread_mutex_t lock;
	struct idle_reader *idle; /* readers waiting for a task or stop, a stack */
	pthread_cond_t done;	  /* the caller: the batch is done, or a reader exited */
	struct sysfs_task *head, *tail;
	unsigned readers, blocked_max;
	unsigned n_active;  /* threads free or running a task of the current batch */
	unsigned n_blocked; /* threads in a late task */
	unsigned n_threads; /* both */
	unsigned n_idle;    /* threads waiting for a task */
	size_t waiting;	    /* tasks of the current batch not done */
	bool stop;	    /* the owner is freeing the pool */
	bool owner_gone;    /* ... and no longer waits: the last thread frees it */
	uint64_t unreplaced, start_errors;
	void *(*reader_new)(const void *arg);
	void (*reader_free)(void *reader);
	size_t arg_size;
	unsigned char arg[]; /* the pool's copy of cfg->arg */
};

static void pool_destroy(struct sysfs_pool *p)
{
	pthread_cond_destroy(&p->done);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* Under the lock: wakes the reader idle most recently; false when none is. */
static bool idle_wake(struct sysfs_pool *p)
{
	struct idle_reader *r = p->idle;

	if (!r)
		return false;
	p->idle = r->below;
	p->n_idle--;
	r->woken = true;
	pthread_cond_signal(&r->cv);
	return true;
}

/* Under the lock: waits on the idle stack until idle_wake() takes me off. */
static void idle_wait(struct sysfs_pool *p, struct idle_reader *me)
{
	me->woken = false;
	me->below = p->idle;
	p->idle = me;
	p->n_idle++;
	while (!me->woken)
		pthread_cond_wait(&me->cv, &p->lock);
}

static struct sysfs_task *pop(struct sysfs_pool *p)
{
	struct sysfs_task *t = p->head;

	p->head = t->next;
	if (!p->head)
		p->tail = NULL;
	t->next = NULL;
	return t;
}

/* Takes t out of the queue (it was not started). */
static void unqueue(struct sysfs_pool *p, struct sysfs_task *t)
{
	struct sysfs_task **pp = &p->head, *prev = NULL;

	while (*pp && *pp != t) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (!*pp)
		return;
	*pp = t->next;
	if (p->tail == t)
		p->tail = prev;
	t->next = NULL;
}

/*
 * The task t ran on this thread: under the lock, its end. Returns true when
 * the thread goes on reading, false when it exits (it was blocked, and the
 * pool is full or stopping). Abandoned tasks are released without the lock.
 */
static bool task_ended(struct sysfs_pool *p, struct sysfs_task *t)
{
	bool late = t->late, abandoned = t->abandoned;

	t->state = TASK_IDLE;
	if (!late) {
		if (--p->waiting == 0)
			pthread_cond_broadcast(&p->done);
		return true;
	}
	/* t was given up at its deadline: this thread was counted blocked,
	 * and t's owner no longer touches it unless it sees it idle. */
	p->n_blocked--;
	if (abandoned) {
		pthread_mutex_unlock(&p->lock);
		t->release(t);
		pthread_mutex_lock(&p->lock);
	}
	if (p->stop || p->n_active >= p->readers)
		return false;
	p->n_active++;
	return true;
}

static void *reader_main(void *arg)
{
	struct sysfs_pool *p = arg;
	void (*reader_free)(void *) = p->reader_free;
	void *reader = p->reader_new ? p->reader_new(p->arg) : NULL;
	struct idle_reader me = {.woken = false};
	bool active = true, last;

	pthread_cond_init(&me.cv, NULL);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct sysfs_task *t;

		while (!p->stop && !p->head)
			idle_wait(p, &me);
		if (p->stop)
			break;
		t = pop(p);
		t->state = TASK_RUNNING;
		pthread_mutex_unlock(&p->lock);
		t->run(t, reader);
		pthread_mutex_lock(&p->lock);
		if (!task_ended(p, t)) {
			active = false;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	/* off the stack by now: only idle_wait() puts it there, until woken */
	pthread_cond_destroy(&me.cv);
	if (reader_free)
		reader_free(reader);
	pthread_mutex_lock(&p->lock);
	if (active)
		p->n_active--;
	p->n_threads--;
	last = p->owner_gone && p->n_threads == 0;
	pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->lock);
	if (last)
		pool_destroy(p);
	return NULL;
}

/* Under the lock: one more reader thread; counted only when it starts. */
static void start_reader(struct sysfs_pool *p)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;

	if (pthread_attr_init(&attr) != 0) {
		p->start_errors++;
		return;
	}
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, reader_main, p);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		p->start_errors++;
		return;
	}
	/* named here, before it runs anything: the thread cannot exit before
	 * it takes the lock this caller holds */
	pthread_setname_np(t, "rdma-sysfs-read");
	p->n_active++;
	p->n_threads++;
}

struct sysfs_pool *sysfs_pool_new(const struct sysfs_pool_cfg *cfg)
{
	struct sysfs_pool *p = calloc(1, sizeof(*p) + cfg->arg_size);
	pthread_condattr_t ca;
	bool none;

	if (!p)
		return NULL;
	p->readers = cfg->readers ? cfg->readers : 1;
	p->blocked_max = cfg->blocked_max;
	p->reader_new = cfg->reader_new;
	p->reader_free = cfg->reader_free;
	p->arg_size = cfg->arg_size;
	if (cfg->arg_size)
		memcpy(p->arg, cfg->arg, cfg->arg_size);
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->done, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->readers; i++)
		start_reader(p);
	none = p->n_threads == 0;
	pthread_mutex_unlock(&p->lock);
	if (none) {
		pool_destroy(p);
		return NULL;
	}
	return p;
}

void sysfs_pool_free(struct sysfs_pool *p)
{
	bool last;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	while (p->head)
		pop(p)->state = TASK_IDLE;
	while (idle_wake(p))
		;
	/* The free threads exit at once; the blocked ones when their read
	 * returns, the last of them freeing the pool. */
	while (p->n_active > 0)
		pthread_cond_wait(&p->done, &p->lock);
	p->owner_gone = true;
	last = p->n_threads == 0;
	pthread_mutex_unlock(&p->lock);
	if (last)
		pool_destroy(p);
}

bool sysfs_pool_busy(struct sysfs_pool *p, const struct sysfs_task *t)
{
	bool busy;

	pthread_mutex_lock(&p->lock);
	busy = t->state != TASK_IDLE;
	pthread_mutex_unlock(&p->lock);
	return busy;
}

/* Under the lock: the thread running a task that missed its deadline is
 * blocked; another takes its place while fewer than blocked_max are. */
static void reader_blocked(struct sysfs_pool *p)
{
	p->n_active--;
	p->n_blocked++;
	if (p->n_blocked <= p->blocked_max)
		start_reader(p);
	else
		p->unreplaced++;
}

/* Under the lock: what became of t by the deadline. */
static void task_deadline(struct sysfs_pool *p, struct sysfs_task *t)
{
	switch (t->state) {
	case TASK_IDLE:
		t->outcome = SYSFS_TASK_DONE;
		return;
	case TASK_QUEUED:
		unqueue(p, t);
		t->state = TASK_IDLE;
		t->outcome = SYSFS_TASK_SKIPPED;
		break;
	default:
		__atomic_store_n(&t->late, true, __ATOMIC_RELEASE);
		t->outcome = SYSFS_TASK_LATE;
		reader_blocked(p);
		break;
	}
	p->waiting--;
}

static struct timespec ms_to_ts(uint64_t ms)
{
	return (struct timespec){.tv_sec = (time_t)(ms / 1000),
				 .tv_nsec = (long)(ms % 1000) * 1000000};
}

/* Under the lock: every free reader to the queue (up to one per task left). */
static void wake_readers(struct sysfs_pool *p)
{
	size_t queued = 0;

	for (const struct sysfs_task *t = p->head; t && queued < p->n_idle; t = t->next)
		queued++;
	for (size_t i = 0; i < queued; i++)
		idle_wake(p);
}

void sysfs_pool_run(struct sysfs_pool *p, struct sysfs_task *const *tasks, size_t n,
		    uint64_t deadline_ms)
{
	uint64_t now = clock_mono_ms(), check;

	if (!n)
		return;
	pthread_mutex_lock(&p->lock);
	for (size_t i = 0; i < n; i++) {
		struct sysfs_task *t = tasks[i];

		__atomic_store_n(&t->late, false, __ATOMIC_RELAXED);
		t->abandoned = false;
		t->state = TASK_QUEUED;
		t->next = NULL;
		if (p->tail)
			p->tail->next = t;
		else
			p->head = t;
		p->tail = t;
	}
	p->waiting = n;
	/*
	 * One reader takes the tasks one after the other: devices answer in
	 * microseconds, and every thread woken costs context switches and
	 * cache traffic (a quarter more CPU per poll with four). Should the
	 * queue still hold tasks a quarter of the way to the deadline, a
	 * device is slow or blocks it: the other readers join in.
	 */
	idle_wake(p);
	check = now + (deadline_ms > now ? (deadline_ms - now) / 4 : 0);
	while (p->waiting > 0 && (now = clock_mono_ms()) < deadline_ms) {
		struct timespec ts;

		if (now >= check) {
			if (p->head)
				wake_readers(p);
			check = now + (deadline_ms - now) / 4;
		}
		ts = ms_to_ts(check < deadline_ms ? check : deadline_ms);
		pthread_cond_timedwait(&p->done, &p->lock, &ts);
	}
	for (size_t i = 0; i < n; i++)
		task_deadline(p, tasks[i]);
	pthread_mutex_unlock(&p->lock);
}

void sysfs_pool_abandon(struct sysfs_pool *p, struct sysfs_task *t)
{
	bool running;

	pthread_mutex_lock(&p->lock);
	running = t->state == TASK_RUNNING;
	if (running)
		t->abandoned = true;
	pthread_mutex_unlock(&p->lock);
	if (!running)
		t->release(t);
}

bool sysfs_task_cancelled(const struct sysfs_task *t)
{
	return __atomic_load_n(&t->late, __ATOMIC_ACQUIRE);
}

void sysfs_pool_stats(struct sysfs_pool *p, struct sysfs_pool_stats *out)
{
	pthread_mutex_lock(&p->lock);
	out->readers = p->n_active;
	out->blocked = p->n_blocked;
	out->unreplaced = p->unreplaced;
	out->start_errors = p->start_errors;
	pthread_mutex_unlock(&p->lock);
}
