// SPDX-License-Identifier: Apache-2.0
/*
 * The scrape-aligned schedule on a fake clock: a simulated poller (each poll
 * takes POLL_COST ms and publishes when it ends) and simulated scrapers (a
 * period, an offset, a jitter), events taken in time order. What a scrape
 * gets is the age of the last published poll at its arrival.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/pollsched.h"

#define POLL_COST 20
#define MAX_SIM	  24

struct sim_scraper {
	uint64_t key;
	bool auth;			 /* its requests authenticated */
	bool named;			 /* from an address the operator named */
	bool fresh_keys;		 /* a new User-Agent every request: key + k */
	uint64_t period, offset, jitter; /* ms; jitter: arrivals +- up to this */
	/* where set: the jitter is jitter_busy for busy_for arrivals of every
	 * busy_every (a scraper on a machine loaded now and then) */
	uint64_t jitter_busy, busy_every, busy_for;
	uint64_t start, stop; /* active in [start, stop) */
	uint64_t next;	      /* next arrival */
	uint64_t k;	      /* arrivals so far */
	uint64_t scrapes_in_window, fresh_in_window;
	uint64_t aligned_in_window; /* scrapes that got a poll aimed at them (FRESH) */
	uint64_t age_max_in_window;
};

struct sim {
	struct pollsched ps;
	struct sim_scraper sc[MAX_SIM];
	unsigned n;
	uint64_t now, last_start, last_end, published;
	uint64_t window_start; /* statistics from here on */
	uint64_t polls_in_window;
	uint64_t gap_max_in_window;	  /* longest end of a poll to start of the next */
	uint64_t start_gap_min_in_window; /* shortest start of a poll to start of the next */
	uint32_t rng;
};

static uint32_t lcg(struct sim *s)
{
	s->rng = s->rng * 1103515245u + 12345u;
	return (s->rng >> 8) & 0xffff;
}

static void sim_init(struct sim *s, uint64_t floor_ms, uint64_t max_ms)
{
	struct pollsched_params p = {.min_interval_ms = floor_ms, .max_interval_ms = max_ms};

	memset(s, 0, sizeof(*s));
	pollsched_init(&s->ps, &p);
	s->rng = 42;
	s->now = 1000000; /* the monotonic clock does not start at 0 */
	s->last_start = s->now;
	s->last_end = s->now;
	s->start_gap_min_in_window = UINT64_MAX;
	s->published = s->now;
}

static struct sim_scraper *sim_add(struct sim *s, uint64_t key, uint64_t period, uint64_t offset,
				   uint64_t jitter)
{
	struct sim_scraper *c = &s->sc[s->n++];

	c->key = key;
	c->period = period;
	c->offset = offset;
	c->jitter = jitter;
	c->start = s->now;
	c->stop = UINT64_MAX;
	return c;
}

static void schedule_arrival(struct sim *s, struct sim_scraper *c)
{
	uint64_t grid = c->start + c->offset + c->k * c->period;
	uint64_t jitter =
		c->busy_every && c->k % c->busy_every < c->busy_for ? c->jitter_busy : c->jitter;
	int64_t j = 0;

	if (jitter)
		j = (int64_t)(lcg(s) % (2 * jitter + 1)) - (int64_t)jitter;
	c->next = (uint64_t)((int64_t)grid + j);
}

static void arrive(struct sim *s, struct sim_scraper *c)
{
	uint64_t age = s->now - s->published;

	pollsched_arrival_from(&s->ps, c->fresh_keys ? c->key + c->k : c->key,
			       (c->auth ? POLLSCHED_AUTHENTICATED : 0u) |
				       (c->named ? POLLSCHED_NAMED : 0u),
			       s->now);
	if (s->now >= s->window_start) {
		c->scrapes_in_window++;
		c->fresh_in_window += age <= 1000;
		c->aligned_in_window += age <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS;
		if (age > c->age_max_in_window)
			c->age_max_in_window = age;
	}
	c->k++;
	schedule_arrival(s, c);
}

/* Runs until the fake clock reaches until. */
static void sim_run(struct sim *s, uint64_t until)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->sc[i].k == 0)
			schedule_arrival(s, &s->sc[i]);
	for (;;) {
		uint64_t poll_at =
			pollsched_next(&s->ps, s->now, s->last_start, s->last_end, POLL_COST, NULL);
		struct sim_scraper *first = NULL;

		assert_true(poll_at >= s->now);
		for (unsigned i = 0; i < s->n; i++) {
			struct sim_scraper *c = &s->sc[i];

			if (c->next >= c->stop)
				continue;
			if (!first || c->next < first->next)
				first = c;
		}
		if (first && first->next < poll_at) {
			if (first->next >= until)
				break;
			/* one that came during a poll is served when it ends */
			if (first->next > s->now)
				s->now = first->next;
			arrive(s, first);
			continue;
		}
		if (poll_at >= until)
			break;
		/* the floor holds between any two polls */
		assert_true(poll_at >= s->last_end + s->ps.params.min_interval_ms ||
			    poll_at == s->now);
		/* the hard bound: never longer than --poll.interval after a poll
		 * (unless the test stepped the clock past it) */
		assert_true(poll_at <= s->last_end + s->ps.params.max_interval_ms ||
			    poll_at == s->now);
		if (poll_at >= s->window_start) {
			s->polls_in_window++;
			if (poll_at - s->last_end > s->gap_max_in_window)
				s->gap_max_in_window = poll_at - s->last_end;
			if (poll_at - s->last_start < s->start_gap_min_in_window)
				s->start_gap_min_in_window = poll_at - s->last_start;
		}
		s->last_start = poll_at;
		s->now = poll_at + POLL_COST;
		s->last_end = s->now;
		s->published = s->now;
	}
	s->now = until;
}

static void sim_window(struct sim *s)
{
	s->window_start = s->now;
	s->polls_in_window = 0;
	s->gap_max_in_window = 0;
	s->start_gap_min_in_window = UINT64_MAX;
	for (unsigned i = 0; i < s->n; i++) {
		s->sc[i].scrapes_in_window = 0;
		s->sc[i].fresh_in_window = 0;
		s->sc[i].aligned_in_window = 0;
		s->sc[i].age_max_in_window = 0;
	}
}

static void assert_near(uint64_t v, uint64_t want, uint64_t slack)
{
	assert_true(v + slack >= want);
	assert_true(v <= want + slack);
}

/* A scrape that got a poll aimed at it: ended the margin before it. */
#define FRESH (2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS)

static void test_regular_scraper(void **state)
{
	struct sim s;
	struct sim_scraper *c;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 15000, 3210, 0);
	sim_run(&s, s.now + 120000); /* learn */
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	/* one poll per scrape (40 in 10 min) */
	assert_near(s.polls_in_window, 40, 1);
	assert_near(c->scrapes_in_window, 40, 1);
	/* every scrape gets a poll that ended a margin before it */
	assert_true(c->age_max_in_window <= FRESH);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(t.key, 1);
	assert_int_equal(t.period_ms, 15000);
}

static void test_no_scraper_polls_every_interval(void **state)
{
	struct sim s;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 5000);
	sim_run(&s, s.now + 60000);
	assert_near(s.polls_in_window, 12, 1);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_false(t.aligned);
}

/*
 * Issue 29: of two regular scrapers the one seen first is followed, not the
 * faster one (a newcomer a little faster took the schedule over). The other
 * one gets data at most --poll.interval and a poll old.
 */
static void test_two_scrapers_follows_the_first_seen(void **state)
{
	struct sim s;
	struct sim_scraper *fast, *slow;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 15000);
	slow = sim_add(&s, 7, 60000, 1500, 0);
	fast = sim_add(&s, 9, 10000, 7000, 0);
	sim_run(&s, s.now + 300000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	/* one poll every --poll.interval, the fourth aimed at the slow scrape */
	assert_near(s.polls_in_window, 40, 1);
	assert_true(slow->age_max_in_window <= FRESH);
	assert_near(fast->scrapes_in_window, 60, 1);
	assert_true(fast->age_max_in_window <= 15000 + POLL_COST);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 7);
}

static void test_ha_pair_follows_the_first_seen(void **state)
{
	struct sim s;
	struct sim_scraper *a, *b;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 15000);
	a = sim_add(&s, 100, 15000, 2000, 0);
	b = sim_add(&s, 200, 15000, 9000, 0);
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	/* one poll per period, aimed at the first scraper */
	assert_near(s.polls_in_window, 40, 1);
	assert_true(a->age_max_in_window <= FRESH);
	/* the other gets data half a period old, never older than a period */
	assert_true(b->age_max_in_window <= 15000);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 100);
}

static void test_small_jitter_stays_aligned(void **state)
{
	struct sim s;
	struct sim_scraper *c;

	(void)state;
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 15000, 500, 300); /* +-2% */
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_near(s.polls_in_window, 40, 2);
	/* most scrapes get data under a second old */
	assert_true(c->fresh_in_window * 10 >= c->scrapes_in_window * 9);
}

/*
 * A scraper whose arrivals are jittered more for a while (a loaded machine)
 * and then less: the margin grows, then shrinks, and the aimed poll moves
 * later by a few hundred ms. It moves there poll by poll, not with an extra
 * poll placed before it (one in 9 polls more, in the exporter's own bench).
 */
static void test_jitter_bursts_add_no_polls(void **state)
{
	struct sim s;
	struct sim_scraper *c;

	(void)state;
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 15000, 2000, 5);
	c->jitter_busy = 150;
	c->busy_every = 24;
	c->busy_for = 10;
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 3600000);
	assert_near(c->scrapes_in_window, 240, 1);
	/* one poll per scrape */
	assert_near(s.polls_in_window, 240, 1);
	/* most scrapes get data under a second old (one that comes early in
	 * a burst, before the margin grew, gets the poll before), none older
	 * than the interval and a poll */
	assert_true(c->fresh_in_window * 20 >= c->scrapes_in_window * 19);
	assert_true(c->age_max_in_window <= 15000 + POLL_COST);
}

static void test_large_jitter_falls_back(void **state)
{
	struct sim s;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 5000);
	sim_add(&s, 1, 15000, 500, 6000); /* +-40%: irregular */
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_false(t.aligned);
	/* every --poll.interval, as without scrapers */
	assert_near(s.polls_in_window, 120, 2);
}

static void test_scraper_that_stops(void **state)
{
	struct sim s;
	struct sim_scraper *c;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 30000, 0, 0);
	sim_run(&s, s.now + 300000);
	c->stop = s.now;
	/* past two missed scrapes: polls every interval again */
	sim_run(&s, s.now + 80000);
	sim_window(&s);
	sim_run(&s, s.now + 60000);
	assert_near(s.polls_in_window, 4, 1);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_false(t.aligned);
}

static void test_manual_burst_bounded_by_floor(void **state)
{
	struct sim s;
	struct sim_scraper *prom, *curl;

	(void)state;
	sim_init(&s, 1000, 15000);
	prom = sim_add(&s, 1, 15000, 100, 0);
	sim_run(&s, s.now + 120000);
	/* a curl loop: a request every 10 ms for 20 s */
	curl = sim_add(&s, 2, 10, 0, 0);
	curl->stop = s.now + 20000;
	sim_window(&s);
	sim_run(&s, s.now + 20000);
	assert_true(curl->scrapes_in_window >= 1999);
	assert_true(s.polls_in_window <= 20000 / 1000 + 1);
	/* afterwards, back to the scraper's period */
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 300000);
	assert_near(s.polls_in_window, 20, 1);
	assert_true(prom->age_max_in_window <= FRESH);
}

static void test_burst_same_key_does_not_unlearn(void **state)
{
	struct sim s;
	struct pollsched_target t;
	uint64_t polls;

	(void)state;
	sim_init(&s, 1000, 15000);
	sim_add(&s, 1, 15000, 100, 0);
	sim_run(&s, s.now + 120000);
	/* 50 requests 5 ms apart from the same client: one scrape */
	for (int i = 0; i < 50; i++)
		pollsched_arrival(&s.ps, 1, false, s.now + 5 * (uint64_t)i);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(t.period_ms, 15000);
	polls = s.polls_in_window;
	sim_run(&s, s.now + 60000);
	assert_true(s.polls_in_window - polls <= 6);
}

static void test_clock_step_forward(void **state)
{
	struct sim s;
	struct sim_scraper *c;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 15000, 0, 0);
	sim_run(&s, s.now + 120000);
	/* a suspend: the clock jumps an hour, the scraper resumes on a new grid */
	s.now += 3600000;
	c->start = s.now;
	c->offset = 4000;
	c->k = 0;
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_false(t.aligned); /* the old grid is stale */
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 300000);
	assert_near(s.polls_in_window, 20, 1);
	assert_true(c->age_max_in_window <= FRESH);
}

static void test_clock_step_back(void **state)
{
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 1000, .max_interval_ms = 5000};
	struct pollsched_target t;
	uint64_t next;

	(void)state;
	pollsched_init(&ps, &p);
	for (uint64_t i = 0; i < 6; i++)
		pollsched_arrival(&ps, 1, false, 100000 + i * 15000);
	/* time goes back before everything seen */
	pollsched_arrival(&ps, 1, false, 50000);
	next = pollsched_next(&ps, 50000, 190000, 190000, POLL_COST, &t);
	assert_false(t.aligned);
	assert_true(next >= 50000 && next <= 50000 + 5000);
}

static void test_table_is_bounded_and_keeps_regular(void **state)
{
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 1000, .max_interval_ms = 15000};
	struct pollsched_target t;
	uint64_t now = 100000;

	(void)state;
	pollsched_init(&ps, &p);
	for (int i = 0; i < 6; i++)
		pollsched_arrival(&ps, 1, false, now + (uint64_t)i * 10000);
	now += 50000;
	/* 100 one-off clients, after the scraper's last arrival */
	for (uint64_t k = 2; k < 102; k++)
		pollsched_arrival(&ps, k, false, now + k);
	pollsched_next(&ps, now + 200, now, now, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(t.key, 1);
}

static void test_floor_and_cap(void **state)
{
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 3000, .max_interval_ms = 5000};
	struct pollsched_target t;
	uint64_t next;

	(void)state;
	/* an authenticated scraper every 1 s: aligned, never more often than the floor */
	pollsched_init(&ps, &p);
	for (uint64_t i = 0; i < 8; i++)
		pollsched_arrival(&ps, 1, true, 10000 + i * 1000);
	next = pollsched_next(&ps, 17000, 16970, 16990, POLL_COST, &t);
	assert_true(t.aligned);
	assert_true(t.authenticated);
	assert_true(next >= 16990 + 3000);
	/* without credentials: 5 floors (capped at the interval) from start to start */
	pollsched_init(&ps, &p);
	for (uint64_t i = 0; i < 8; i++)
		pollsched_arrival(&ps, 1, false, 10000 + i * 1000);
	next = pollsched_next(&ps, 17000, 16970, 16990, POLL_COST, &t);
	assert_true(t.aligned);
	assert_false(t.authenticated);
	assert_true(next >= 16970 + 5000);
	assert_int_equal(pollsched_unauth_floor_ms(&ps.params), 5000);
	/* Issue 29: a scraper every 5 min gets a poll every --poll.interval, not every 2 min */
	pollsched_init(&ps, &p);
	for (uint64_t i = 0; i < 5; i++)
		pollsched_arrival(&ps, 1, false, i * 300000);
	next = pollsched_next(&ps, 1200000, 1199980, 1200000, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(next, 1200000 + 5000);
	/* a floor above the interval is capped to it */
	p.min_interval_ms = 60000;
	pollsched_init(&ps, &p);
	assert_int_equal(ps.params.min_interval_ms, 5000);
	p.min_interval_ms = 1000;
	p.max_interval_ms = 15000;
	pollsched_init(&ps, &p);
	assert_int_equal(pollsched_unauth_floor_ms(&ps.params), 5000);
}

/*
 * Issue 29: a manual request 3 s before a 15 s scraper began, from the same
 * client and User-Agent, left one 3 s gap among its 8. The fit tilted by it
 * predicted every arrival late, so each scrape came before the poll aimed
 * at it and moved it on by a period: no poll for two minutes (the aligned
 * cap), until the odd gap left the window.
 */
static void one_odd_gap(struct sim *s, uint64_t max_ms)
{
	struct sim_scraper *c;

	sim_init(s, 1000, max_ms);
	pollsched_arrival(&s->ps, 1, false, s->now); /* the curl */
	c = sim_add(s, 1, 15000, 3000, 0);	     /* the scraper, 3 s later */
	sim_run(s, s->now + 3000 + 3 * 15000);	     /* 3 gaps: learnt */
	sim_window(s);
	sim_run(s, s->now + 600000);
	assert_near(c->scrapes_in_window, 40, 1);
	/* every scrape gets a poll that ended a margin before it */
	assert_true(c->age_max_in_window <= FRESH);
	/* a poll per scrape, never the 2 min stall */
	assert_near(s->polls_in_window, 40, 1);
	assert_true(s->gap_max_in_window <= 15000 + POLLSCHED_MIN_MARGIN_MS);
}

static void test_one_odd_gap_then_regular(void **state)
{
	struct sim s;

	(void)state;
	one_odd_gap(&s, 15000); /* the defaults */
	one_odd_gap(&s, 60000); /* a --poll.interval longer than the period */
}

/*
 * Issue 29: "one client scraping a little faster than Prometheus (2.7 s
 * against 3 s) makes the schedule follow it and Prometheus's data median age
 * 1.25 s (0.05 s without it)". The one seen first stays followed.
 */
static void faster_newcomer(struct sim *s, uint64_t floor_ms, struct sim_scraper **prom)
{
	struct pollsched_target t;

	sim_init(s, floor_ms, 15000);
	*prom = sim_add(s, 1, 3000, 100, 0);
	sim_run(s, s->now + 20000); /* learnt */
	sim_add(s, 2, 2700, 0, 0);
	sim_run(s, s->now + 60000);
	sim_window(s);
	sim_run(s, s->now + 600000);
	assert_near((*prom)->scrapes_in_window, 200, 1);
	pollsched_next(&s->ps, s->now, s->last_start, s->last_end, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(t.key, 1);
}

static void test_faster_newcomer_does_not_take_over(void **state)
{
	struct sim s;
	struct sim_scraper *prom;

	(void)state;
	/* --poll.min-interval=500ms: polls may start 2.5 s apart; one per scrape */
	faster_newcomer(&s, 500, &prom);
	assert_true(prom->age_max_in_window <= FRESH);
	assert_near(s.polls_in_window, 200, 1);
	/* the defaults: 5 s apart at least, so a poll aimed at every second scrape */
	faster_newcomer(&s, 1000, &prom);
	assert_true(prom->aligned_in_window * 2 + 1 >= prom->scrapes_in_window);
	assert_true(prom->age_max_in_window <= 3000 + FRESH);
	assert_near(s.polls_in_window, 100, 1);
}

/*
 * Issue 29: "15 regular fake User-Agents then a new one every 0.5 s evict
 * Prometheus from the 16-entry table (at the defaults its data age median
 * 55 s, max 105 s)". Established regular scrapers keep their places; the
 * newcomers are not tracked, and counted.
 */
static void test_newcomers_cannot_evict_established(void **state)
{
	struct sim s;
	struct sim_scraper *prom, *spam;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 15000);
	prom = sim_add(&s, 1, 15000, 100, 0);
	sim_run(&s, s.now + 61000); /* 5 scrapes: learnt */
	for (uint64_t i = 0; i < POLLSCHED_MAX_SCRAPERS - 1; i++)
		sim_add(&s, 100 + i, 15000, 1000 + 100 * i, 0);
	/* the first newcomer just before Prometheus's scrape: the least recently seen */
	sim_run(&s, s.now + 134050);
	spam = sim_add(&s, 1000000, 500, 0, 0);
	spam->fresh_keys = true;
	sim_run(&s, s.now + 60000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_near(spam->scrapes_in_window, 1200, 1);
	assert_true(s.ps.untracked >= spam->scrapes_in_window);
	assert_near(prom->scrapes_in_window, 40, 1);
	assert_true(prom->age_max_in_window <= FRESH);
	assert_near(s.polls_in_window, 40, 1);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 1);
}

/* Issue 29: "one client every 1 s drives 57 polls a minute". */
static void test_fast_client_polls_bounded(void **state)
{
	struct sim s;
	struct sim_scraper *c;

	(void)state;
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 1000, 0, 0);
	sim_run(&s, s.now + 60000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	/* polls start 5 s (5 * --poll.min-interval) apart at least: 12 a minute */
	assert_true(s.start_gap_min_in_window >= 5000);
	assert_true(s.polls_in_window <= 120 + 1);
	/* each aimed at one of its requests */
	assert_true(c->aligned_in_window + 1 >= s.polls_in_window);
	/* the same client with credentials is trusted down to --poll.min-interval */
	sim_init(&s, 1000, 15000);
	c = sim_add(&s, 1, 1000, 0, 0);
	c->auth = true;
	sim_run(&s, s.now + 60000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_true(s.polls_in_window >= 300);
	assert_true(s.polls_in_window <= 600);
}

/*
 * Issue 29: an authenticated scraper is followed before any other, and
 * finds a place in a table full of established unauthenticated ones.
 */
static void test_authenticated_scraper_preferred(void **state)
{
	struct sim s;
	struct sim_scraper *prom;
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 1000, .max_interval_ms = 15000};
	struct pollsched_target t;
	uint64_t now = 1000000;

	(void)state;
	sim_init(&s, 1000, 15000);
	sim_add(&s, 2, 15000, 100, 0); /* seen first, no credentials */
	sim_run(&s, s.now + 120000);
	prom = sim_add(&s, 1, 15000, 7000, 0);
	prom->auth = true;
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_near(s.polls_in_window, 40, 1);
	assert_true(prom->age_max_in_window <= FRESH);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 1);
	assert_true(t.authenticated);

	pollsched_init(&ps, &p);
	for (uint64_t k = 0; k < 5; k++)
		for (uint64_t key = 100; key < 100 + POLLSCHED_MAX_SCRAPERS; key++)
			pollsched_arrival(&ps, key, false, now + k * 15000 + key);
	now += 5 * 15000;
	pollsched_arrival(&ps, 1, false, now); /* without credentials: no place */
	assert_int_equal(ps.untracked, 1);
	for (uint64_t k = 0; k < 5; k++)
		pollsched_arrival(&ps, 1, true, now + 50 + k * 15000);
	assert_int_equal(ps.untracked, 1);
	pollsched_next(&ps, now + 4 * 15000 + 100, now, now, POLL_COST, &t);
	assert_int_equal(t.key, 1);
	assert_true(t.authenticated);
}

/*
 * A followed scraper that pauses (a Prometheus restart) keeps its history:
 * once it has learnt its period again it is followed again, not the client
 * that came after it and took over meanwhile.
 */
static void test_pause_keeps_history(void **state)
{
	struct sim s;
	struct sim_scraper *prom;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 500, 15000);
	prom = sim_add(&s, 1, 3000, 100, 0);
	sim_run(&s, s.now + 20000);
	sim_add(&s, 2, 2700, 0, 0);
	sim_run(&s, s.now + 30000);
	prom->stop = s.now;
	sim_run(&s, s.now + 30000);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 2);
	prom->start = s.now;
	prom->offset = 1234;
	prom->k = 0;
	prom->stop = UINT64_MAX;
	sim_run(&s, s.now + 20000);
	sim_window(&s);
	sim_run(&s, s.now + 60000);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 1);
	assert_true(prom->age_max_in_window <= FRESH);
}

/*
 * Issue 42: a client scraping every 14 s that was there before Prometheus
 * (15 s, no credentials: no web config) was followed as the one seen first;
 * Prometheus's data was 6.15 s old at the median, 13.15 s at worst (50 ms
 * without it). Prometheus's address named (--poll.follow-address), it is
 * followed, whoever came first, and its data is as fresh as without the
 * client, which gets the polls aimed at Prometheus.
 */
static void named_prometheus(struct sim *s, bool attacker_first, struct sim_scraper **prom)
{
	struct pollsched_target t;

	sim_init(s, 1000, 15000);
	if (attacker_first) {
		sim_add(s, 2, 14000, 0, 0);
		sim_run(s, s->now + 120000);
	}
	*prom = sim_add(s, 1, 15000, 100, 0);
	(*prom)->named = true;
	if (!attacker_first) {
		sim_run(s, s->now + 120000);
		sim_add(s, 2, 14000, 0, 0);
	}
	sim_run(s, s->now + 120000);
	sim_window(s);
	sim_run(s, s->now + 3600000);
	assert_near((*prom)->scrapes_in_window, 240, 1);
	/* the no-attacker figures: every scrape fresh, one poll per scrape */
	assert_true((*prom)->fresh_in_window * 100 >= (*prom)->scrapes_in_window * 95);
	assert_true((*prom)->age_max_in_window <= FRESH);
	assert_near(s->polls_in_window, 240, 1);
	pollsched_next(&s->ps, s->now, s->last_start, s->last_end, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(t.key, 1);
	assert_true(t.named);
	assert_false(t.authenticated);
}

static void test_named_scraper_followed_before_first_seen(void **state)
{
	struct sim s;
	struct sim_scraper *prom;

	(void)state;
	named_prometheus(&s, true, &prom);
	named_prometheus(&s, false, &prom);
}

/*
 * A named scraper that pauses (a Prometheus restart) is followed again once
 * it is regular, and finds a place in a table full of established
 * unauthenticated scrapers, as an authenticated one does.
 */
static void test_named_scraper_restart_and_full_table(void **state)
{
	struct sim s;
	struct sim_scraper *prom;
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 1000, .max_interval_ms = 15000};
	struct pollsched_target t;
	uint64_t now = 1000000;

	(void)state;
	named_prometheus(&s, true, &prom);
	prom->stop = s.now;
	sim_run(&s, s.now + 30000);
	prom->start = s.now;
	prom->offset = 1234;
	prom->k = 0;
	prom->stop = UINT64_MAX;
	schedule_arrival(&s, prom);
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_true(prom->age_max_in_window <= FRESH);
	pollsched_next(&s.ps, s.now, s.last_start, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 1);

	pollsched_init(&ps, &p);
	for (uint64_t k = 0; k < 5; k++)
		for (uint64_t key = 100; key < 100 + POLLSCHED_MAX_SCRAPERS; key++)
			pollsched_arrival(&ps, key, false, now + k * 15000 + key);
	now += 5 * 15000;
	for (uint64_t k = 0; k < 5; k++)
		pollsched_arrival_from(&ps, 1, POLLSCHED_NAMED, now + 50 + k * 15000);
	assert_int_equal(ps.untracked, 0);
	pollsched_next(&ps, now + 4 * 15000 + 100, now, now, POLL_COST, &t);
	assert_int_equal(t.key, 1);
	assert_true(t.named);
}

/* An established scraper silent for POLLSCHED_EXPIRE_MS gives its place up. */
static void test_expired_scraper_replaced(void **state)
{
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 1000, .max_interval_ms = 15000};
	uint64_t now = 1000000, rounds = POLLSCHED_EXPIRE_MS / 15000 + 6;

	(void)state;
	pollsched_init(&ps, &p);
	for (uint64_t k = 0; k < rounds; k++) {
		for (uint64_t key = 100; key < 100 + POLLSCHED_MAX_SCRAPERS; key++)
			if (key != 100 || k < 5) /* 100 stops after 5 scrapes */
				pollsched_arrival(&ps, key, false, now + k * 15000 + key);
		if (k == 5) {
			/* every place held: not tracked */
			pollsched_arrival(&ps, 998, false, now + k * 15000 + 500);
			assert_int_equal(ps.untracked, 1);
		}
	}
	pollsched_arrival(&ps, 999, false, now + rounds * 15000);
	assert_int_equal(ps.untracked, 1);
}

static uint32_t fuzz_rand(uint32_t *x)
{
	/* xorshift32: the same sequence on every platform */
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* The next gap of a fuzz case: mostly a period with jitter, else an outlier. */
static uint64_t fuzz_gap(uint32_t *x, uint64_t period, uint64_t jitter, unsigned odd_pct)
{
	uint32_t r = fuzz_rand(x) % 100;

	if (r < odd_pct / 3)
		return fuzz_rand(x) % 50; /* a burst */
	if (r < odd_pct * 2 / 3)
		return fuzz_rand(x) % period; /* early */
	if (r < odd_pct)
		return period + fuzz_rand(x) % (4 * period); /* late, missed */
	return period - jitter + fuzz_rand(x) % (2 * jitter + 1);
}

/*
 * A fuzz case's clock: polls of a fixed cost, when the schedule says; the
 * bounds every poll keeps whatever the requests.
 */
struct fuzz_clock {
	const struct pollsched *ps;
	uint64_t now, last_start, last_end, prev_end, cost;
	bool unauth_only; /* no request authenticated: the unauthenticated floor holds */
};

static void fuzz_clock_init(struct fuzz_clock *c, const struct pollsched *ps, uint64_t cost)
{
	*c = (struct fuzz_clock){.ps = ps, .now = 1000000, .cost = cost, .unauth_only = true};
	c->last_start = c->last_end = c->prev_end = c->now;
}

/* When the next poll starts, checked against the hard bound. */
static uint64_t fuzz_next(const struct fuzz_clock *c)
{
	uint64_t at = pollsched_next(c->ps, c->now, c->last_start, c->last_end, c->cost, NULL);

	assert_true(at >= c->now);
	/* never longer than --poll.interval after a poll ended */
	assert_true(at <= c->last_end + c->ps->params.max_interval_ms);
	return at;
}

/* Runs the poll that starts at at (fuzz_next()), checking its floors. */
static void fuzz_poll(struct fuzz_clock *c, uint64_t at)
{
	const struct pollsched_params *pp = &c->ps->params;

	assert_true(at >= c->last_end + pp->min_interval_ms);
	/* the longest time without a poll start: the interval and a poll */
	assert_true(at - c->last_start <= pp->max_interval_ms + c->cost);
	if (c->unauth_only)
		assert_true(at - c->last_start >= pollsched_unauth_floor_ms(pp));
	c->last_start = at;
	c->prev_end = c->last_end;
	c->now = at + c->cost;
	c->last_end = c->now;
}

/*
 * A request that came at at (during the last poll if at < now, when it is
 * handed to the schedule at the poll's end): the age of the data it is
 * served, the last poll published before it, is never more than the
 * interval and a poll.
 */
static uint64_t fuzz_served_age(struct fuzz_clock *c, uint64_t at)
{
	uint64_t age = at - (at >= c->last_end ? c->last_end : c->prev_end);

	assert_true(age <= c->ps->params.max_interval_ms + c->cost);
	if (at > c->now)
		c->now = at;
	return age;
}

/*
 * Up to four scrapers (keys; the fourth a new User-Agent every request) with
 * their own periods, jitters, outlier rates and credentials, arrivals and
 * polls in time order on a fake clock: whatever the schedule learns, every
 * poll keeps the bounds (fuzz_next(), fuzz_poll()) and no request gets data
 * older than the interval and a poll.
 */
static void fuzz_mixed(uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	struct pollsched ps;
	struct pollsched_params p;
	struct fuzz_clock c;
	uint64_t period[4], jitter[4], next[4], fresh_key = 1000;
	unsigned odd[4], n = 1 + fuzz_rand(&x) % 4;
	bool auth[4];
	uint64_t cost = 1 + fuzz_rand(&x) % 500;

	p.max_interval_ms = 100 + fuzz_rand(&x) % 240000;
	p.min_interval_ms = 100 + fuzz_rand(&x) % 5000;
	pollsched_init(&ps, &p);
	fuzz_clock_init(&c, &ps, cost);
	for (unsigned i = 0; i < n; i++) {
		period[i] = 100 + fuzz_rand(&x) % 120000;
		jitter[i] = period[i] * (fuzz_rand(&x) % 20) / 100;
		odd[i] = fuzz_rand(&x) % 40;
		auth[i] = fuzz_rand(&x) % 4 == 0;
		c.unauth_only &= !auth[i];
		next[i] = c.now + fuzz_gap(&x, period[i], jitter[i], odd[i]);
	}
	for (unsigned events = 0; events < 600; events++) {
		uint64_t poll_at = fuzz_next(&c);
		unsigned first = 0;

		for (unsigned i = 1; i < n; i++)
			if (next[i] < next[first])
				first = i;
		if (next[first] < poll_at) {
			fuzz_served_age(&c, next[first]);
			pollsched_arrival(&ps, first == 3 ? fresh_key++ : first + 1, auth[first],
					  c.now);
			next[first] =
				c.now + fuzz_gap(&x, period[first], jitter[first], odd[first]);
			continue;
		}
		fuzz_poll(&c, poll_at);
	}
}

/*
 * What a scrape may get once the schedule follows its scraper: a poll aimed
 * at it, ended a lead (the poll, a margin of up to thrice the jitter of its
 * gaps) before it, early by at most half a period (a fit tilted early): never
 * the poll before, a period old, or none for several periods.
 */
static uint64_t fresh_max(uint64_t period, uint64_t cost, uint64_t jitter)
{
	return period / 2 + 3 * cost + 6 * jitter + POLLSCHED_MIN_MARGIN_MS;
}

/*
 * The floor of a fuzz case with one scraper of that period: up to a quarter
 * period with credentials; without, 5 floors between poll starts, so up to
 * a twentieth (a period of 2 s or more leaves a poll for every scrape).
 */
static uint64_t fuzz_floor(uint32_t *x, uint64_t period, bool auth)
{
	return 100 + fuzz_rand(x) % (auth ? period / 4 : period / 20);
}

/*
 * One scraper: random outliers (bursts, early, late, missed), then regular
 * (on the grid of its period, +- up to 20 ms). Once a majority of its gaps is
 * regular (the first one, from an outlier, may be off) every scrape gets a
 * poll of its own, outliers still in the window or not.
 */
static void fuzz_regular_after_outliers(uint32_t seed)
{
	uint32_t x = seed * 2246822519u + 7;
	struct pollsched ps;
	struct pollsched_params p;
	uint64_t period = 2000 + fuzz_rand(&x) % 118000, jitter = fuzz_rand(&x) % 21;
	uint64_t cost = 1 + fuzz_rand(&x) % (period / 20), now = 1000000, last_end = now;
	uint64_t last_start = now, next = now, grid = 0;
	unsigned outliers = fuzz_rand(&x) % 12, run = 0;
	bool auth = fuzz_rand(&x) % 2;

	p.max_interval_ms = 100 + fuzz_rand(&x) % 240000;
	p.min_interval_ms = fuzz_floor(&x, period, auth);
	pollsched_init(&ps, &p);
	for (unsigned events = 0; events < 400; events++) {
		uint64_t poll_at = pollsched_next(&ps, now, last_start, last_end, cost, NULL);

		if (next >= poll_at) {
			last_start = poll_at;
			now = poll_at + cost;
			last_end = now;
			continue;
		}
		if (next > now)
			now = next;
		/* run: regular gaps so far, the one that ends now included */
		if (run >= POLLSCHED_GAPS / 2 + 3)
			assert_true(now - last_end <= fresh_max(period, cost, jitter));
		pollsched_arrival(&ps, 1, auth, now);
		if (outliers) {
			outliers--;
			next = now + fuzz_gap(&x, period, 0, 100);
			continue;
		}
		if (run++ == 0)
			grid = now;
		next = grid + run * period - jitter + fuzz_rand(&x) % (2 * jitter + 1);
	}
}

/*
 * Issue 29 at random: a regular scraper (+- up to 20 ms), one or two stray
 * requests from the same client (before its first scrape, between two
 * later ones). From the POLLSCHED_MIN_GAPS + 2nd scrape after the last stray
 * one on, every scrape gets a poll of its own.
 */
static void fuzz_stray_requests(uint32_t seed)
{
	uint32_t x = seed * 3266489917u + 3;
	struct pollsched ps;
	struct pollsched_params p;
	uint64_t period = 2000 + fuzz_rand(&x) % 118000, jitter = fuzz_rand(&x) % 21;
	uint64_t cost = 1 + fuzz_rand(&x) % (period / 20), now = 1000000, last_end = now;
	uint64_t start = now + 1 + fuzz_rand(&x) % period, stray[2], k = 0, next = start;
	uint64_t last_start = now;
	unsigned n_stray = 1 + fuzz_rand(&x) % 2, since = 0, done = 0;
	bool auth = fuzz_rand(&x) % 2;

	p.max_interval_ms = 100 + fuzz_rand(&x) % 240000;
	p.min_interval_ms = fuzz_floor(&x, period, auth);
	pollsched_init(&ps, &p);
	stray[0] = now + fuzz_rand(&x) % (start - now);
	stray[1] = start + fuzz_rand(&x) % (20 * period);
	if (n_stray == 1 && fuzz_rand(&x) % 2)
		stray[0] = stray[1];
	while (k < 50) {
		uint64_t poll_at = pollsched_next(&ps, now, last_start, last_end, cost, NULL);
		bool is_stray = done < n_stray && stray[done] < next;
		uint64_t at = is_stray ? stray[done] : next;

		if (at >= poll_at) {
			last_start = poll_at;
			now = poll_at + cost;
			last_end = now;
			continue;
		}
		if (at > now)
			now = at;
		if (is_stray) {
			pollsched_arrival(&ps, 1, auth, now);
			done++;
			since = 0;
			continue;
		}
		if (since >= POLLSCHED_MIN_GAPS + 2)
			assert_true(now - last_end <= fresh_max(period, cost, jitter));
		pollsched_arrival(&ps, 1, auth, now);
		k++;
		since++;
		next = start + k * period - jitter + fuzz_rand(&x) % (2 * jitter + 1);
	}
}

/*
 * Issue 29 at random: Prometheus (with credentials or not, zero jitter)
 * learnt first, then clients without: up to 15 regular fake User-Agents, a
 * client faster than Prometheus, a new User-Agent every 0.2 to 2 s. Every
 * poll keeps the bounds (without credentials anywhere, no two polls start
 * closer than the unauthenticated floor); Prometheus stays followed, and
 * when its period leaves room for a poll per scrape (at least the floor,
 * at most the interval, itself at least two floors) every one of its
 * scrapes from its 6th on gets a poll of its own:
 * ended the margin before it, or up to twice that earlier where the
 * interval called for a poll a little before the aimed one.
 */
static void fuzz_attack(uint32_t seed)
{
	enum { PROM, FAST, STREAM, FAKE0, N = FAKE0 + POLLSCHED_MAX_SCRAPERS - 1 };
	uint32_t x = seed * 2891336453u + 5;
	struct pollsched ps;
	struct pollsched_params p;
	struct pollsched_target t;
	struct fuzz_clock c;
	uint64_t period[N], next[N], attack, until, fresh_key = 1000, floor, margin;
	unsigned n = FAKE0 + fuzz_rand(&x) % POLLSCHED_MAX_SCRAPERS;
	bool prom_auth = fuzz_rand(&x) % 2, room;

	p.min_interval_ms = 100 + fuzz_rand(&x) % 2000;
	p.max_interval_ms = p.min_interval_ms + fuzz_rand(&x) % 60000;
	pollsched_init(&ps, &p);
	fuzz_clock_init(&c, &ps, 1 + fuzz_rand(&x) % 100);
	c.unauth_only = !prom_auth;
	floor = prom_auth ? ps.params.min_interval_ms : pollsched_unauth_floor_ms(&ps.params);
	margin = 2 * c.cost > POLLSCHED_MIN_MARGIN_MS ? 2 * c.cost : POLLSCHED_MIN_MARGIN_MS;
	period[PROM] = 1000 + fuzz_rand(&x) % 60000;
	/* floor: start to start; an interval of two leaves room to shift the polls' phase */
	if (floor < ps.params.min_interval_ms + c.cost)
		floor = ps.params.min_interval_ms + c.cost;
	room = period[PROM] >= floor && period[PROM] <= ps.params.max_interval_ms &&
	       ps.params.max_interval_ms >= 2 * floor;
	next[PROM] = c.now + 1 + fuzz_rand(&x) % period[PROM];
	/* after Prometheus's 4th scrape: it is learnt */
	attack = next[PROM] + 3 * period[PROM] + 1;
	period[FAST] = period[PROM] * (50 + fuzz_rand(&x) % 50) / 100;
	period[STREAM] = 200 + fuzz_rand(&x) % 1800;
	for (unsigned i = FAKE0; i < n; i++)
		period[i] = 1000 + fuzz_rand(&x) % 60000;
	for (unsigned i = FAST; i < n; i++)
		next[i] = attack + fuzz_rand(&x) % period[i];
	until = attack + 5 * 60000;
	while (c.now < until) {
		uint64_t poll_at = fuzz_next(&c), age, at;
		unsigned first = 0;

		for (unsigned i = 1; i < n; i++)
			if (next[i] < next[first])
				first = i;
		if (next[first] >= poll_at) {
			fuzz_poll(&c, poll_at);
			continue;
		}
		at = next[first];
		age = fuzz_served_age(&c, at);
		/* from its 6th scrape on: learnt, and the polls moved in step */
		if (first == PROM && room && at > attack + 2 * period[PROM])
			assert_true(age <= 3 * margin);
		pollsched_arrival(&ps, first == STREAM ? fresh_key++ : first + 1,
				  first == PROM && prom_auth, c.now);
		next[first] += period[first];
	}
	pollsched_next(&ps, c.now, c.last_start, c.last_end, c.cost, &t);
	assert_true(t.aligned);
	assert_int_equal(t.key, PROM + 1);
	assert_true(t.authenticated == prom_auth);
}

static void test_fuzz_poll_gap_bounded(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 3000; seed++) {
		fuzz_mixed(seed);
		fuzz_regular_after_outliers(seed);
		fuzz_stray_requests(seed);
		if (seed <= 500)
			fuzz_attack(seed);
	}
}

static void test_key(void **state)
{
	unsigned char a[4] = {10, 0, 0, 1}, b[4] = {10, 0, 0, 2};

	(void)state;
	assert_true(pollsched_key(a, 4, "Prometheus/2.45") ==
		    pollsched_key(a, 4, "Prometheus/2.45"));
	assert_true(pollsched_key(a, 4, "Prometheus/2.45") !=
		    pollsched_key(b, 4, "Prometheus/2.45"));
	assert_true(pollsched_key(a, 4, "Prometheus/2.45") != pollsched_key(a, 4, "curl/7.88"));
	assert_true(pollsched_key(a, 4, NULL) != pollsched_key(a, 4, "x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular_scraper),
		cmocka_unit_test(test_no_scraper_polls_every_interval),
		cmocka_unit_test(test_two_scrapers_follows_the_first_seen),
		cmocka_unit_test(test_ha_pair_follows_the_first_seen),
		cmocka_unit_test(test_small_jitter_stays_aligned),
		cmocka_unit_test(test_jitter_bursts_add_no_polls),
		cmocka_unit_test(test_large_jitter_falls_back),
		cmocka_unit_test(test_scraper_that_stops),
		cmocka_unit_test(test_manual_burst_bounded_by_floor),
		cmocka_unit_test(test_burst_same_key_does_not_unlearn),
		cmocka_unit_test(test_clock_step_forward),
		cmocka_unit_test(test_clock_step_back),
		cmocka_unit_test(test_table_is_bounded_and_keeps_regular),
		cmocka_unit_test(test_floor_and_cap),
		cmocka_unit_test(test_one_odd_gap_then_regular),
		cmocka_unit_test(test_faster_newcomer_does_not_take_over),
		cmocka_unit_test(test_newcomers_cannot_evict_established),
		cmocka_unit_test(test_fast_client_polls_bounded),
		cmocka_unit_test(test_authenticated_scraper_preferred),
		cmocka_unit_test(test_pause_keeps_history),
		cmocka_unit_test(test_expired_scraper_replaced),
		cmocka_unit_test(test_named_scraper_followed_before_first_seen),
		cmocka_unit_test(test_named_scraper_restart_and_full_table),
		cmocka_unit_test(test_fuzz_poll_gap_bounded),
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
