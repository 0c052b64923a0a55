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
#define MAX_SIM	  8

struct sim_scraper {
	uint64_t key;
	uint64_t period, offset, jitter; /* ms; jitter: arrivals +- up to this */
	uint64_t start, stop;		 /* active in [start, stop) */
	uint64_t next;			 /* next arrival */
	uint64_t k;			 /* arrivals so far */
	uint64_t scrapes_in_window, fresh_in_window;
	uint64_t age_max_in_window;
};

struct sim {
	struct pollsched ps;
	struct sim_scraper sc[MAX_SIM];
	unsigned n;
	uint64_t now, last_end, published;
	uint64_t window_start; /* statistics from here on */
	uint64_t polls_in_window;
	uint64_t gap_max_in_window; /* longest end of a poll to start of the next */
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
	s->last_end = s->now;
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
	int64_t j = 0;

	if (c->jitter)
		j = (int64_t)(lcg(s) % (2 * c->jitter + 1)) - (int64_t)c->jitter;
	c->next = (uint64_t)((int64_t)grid + j);
}

static void arrive(struct sim *s, struct sim_scraper *c)
{
	uint64_t age = s->now - s->published;

	pollsched_arrival(&s->ps, c->key, s->now);
	if (s->now >= s->window_start) {
		c->scrapes_in_window++;
		c->fresh_in_window += age <= 1000;
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
		uint64_t poll_at = pollsched_next(&s->ps, s->now, s->last_end, POLL_COST, NULL);
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
		if (poll_at >= s->window_start) {
			s->polls_in_window++;
			if (poll_at - s->last_end > s->gap_max_in_window)
				s->gap_max_in_window = poll_at - s->last_end;
		}
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
	for (unsigned i = 0; i < s->n; i++) {
		s->sc[i].scrapes_in_window = 0;
		s->sc[i].fresh_in_window = 0;
		s->sc[i].age_max_in_window = 0;
	}
}

static void assert_near(uint64_t v, uint64_t want, uint64_t slack)
{
	assert_true(v + slack >= want);
	assert_true(v <= want + slack);
}

static void test_regular_scraper(void **state)
{
	struct sim s;
	struct sim_scraper *c;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 5000);
	c = sim_add(&s, 1, 15000, 3210, 0);
	sim_run(&s, s.now + 120000); /* learn */
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	/* one poll per scrape (40 in 10 min), not one per 5 s (120) */
	assert_near(s.polls_in_window, 40, 1);
	assert_near(c->scrapes_in_window, 40, 1);
	/* every scrape gets a poll that ended a margin before it */
	assert_true(c->age_max_in_window <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS);
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
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
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
	assert_false(t.aligned);
}

static void test_two_scrapers_follows_the_faster(void **state)
{
	struct sim s;
	struct sim_scraper *fast, *slow;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 5000);
	slow = sim_add(&s, 7, 60000, 7000, 0);
	fast = sim_add(&s, 9, 10000, 1500, 0);
	sim_run(&s, s.now + 300000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_near(s.polls_in_window, 60, 1);
	assert_true(fast->age_max_in_window <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS);
	assert_near(slow->scrapes_in_window, 10, 1);
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 9);
}

static void test_ha_pair_follows_the_first_seen(void **state)
{
	struct sim s;
	struct sim_scraper *a, *b;
	struct pollsched_target t;

	(void)state;
	sim_init(&s, 1000, 5000);
	a = sim_add(&s, 100, 15000, 2000, 0);
	b = sim_add(&s, 200, 15000, 9000, 0);
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	/* one poll per period, aimed at the first scraper */
	assert_near(s.polls_in_window, 40, 1);
	assert_true(a->age_max_in_window <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS);
	/* the other gets data half a period old, never older than a period */
	assert_true(b->age_max_in_window <= 15000);
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
	assert_int_equal(t.key, 100);
}

static void test_small_jitter_stays_aligned(void **state)
{
	struct sim s;
	struct sim_scraper *c;

	(void)state;
	sim_init(&s, 1000, 5000);
	c = sim_add(&s, 1, 15000, 500, 300); /* +-2% */
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 600000);
	assert_near(s.polls_in_window, 40, 2);
	/* most scrapes get data under a second old */
	assert_true(c->fresh_in_window * 10 >= c->scrapes_in_window * 9);
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
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
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
	sim_init(&s, 1000, 5000);
	c = sim_add(&s, 1, 30000, 0, 0);
	sim_run(&s, s.now + 300000);
	c->stop = s.now;
	/* past two missed scrapes: polls every interval again */
	sim_run(&s, s.now + 80000);
	sim_window(&s);
	sim_run(&s, s.now + 60000);
	assert_near(s.polls_in_window, 12, 1);
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
	assert_false(t.aligned);
}

static void test_manual_burst_bounded_by_floor(void **state)
{
	struct sim s;
	struct sim_scraper *prom, *curl;

	(void)state;
	sim_init(&s, 1000, 5000);
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
	assert_true(prom->age_max_in_window <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS);
}

static void test_burst_same_key_does_not_unlearn(void **state)
{
	struct sim s;
	struct pollsched_target t;
	uint64_t polls;

	(void)state;
	sim_init(&s, 1000, 5000);
	sim_add(&s, 1, 15000, 100, 0);
	sim_run(&s, s.now + 120000);
	/* 50 requests 5 ms apart from the same client: one scrape */
	for (int i = 0; i < 50; i++)
		pollsched_arrival(&s.ps, 1, s.now + 5 * (uint64_t)i);
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
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
	sim_init(&s, 1000, 5000);
	c = sim_add(&s, 1, 15000, 0, 0);
	sim_run(&s, s.now + 120000);
	/* a suspend: the clock jumps an hour, the scraper resumes on a new grid */
	s.now += 3600000;
	c->start = s.now;
	c->offset = 4000;
	c->k = 0;
	pollsched_next(&s.ps, s.now, s.last_end, POLL_COST, &t);
	assert_false(t.aligned); /* the old grid is stale */
	sim_run(&s, s.now + 120000);
	sim_window(&s);
	sim_run(&s, s.now + 300000);
	assert_near(s.polls_in_window, 20, 1);
	assert_true(c->age_max_in_window <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS);
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
		pollsched_arrival(&ps, 1, 100000 + i * 15000);
	/* time goes back before everything seen */
	pollsched_arrival(&ps, 1, 50000);
	next = pollsched_next(&ps, 50000, 190000, POLL_COST, &t);
	assert_false(t.aligned);
	assert_true(next >= 50000 && next <= 50000 + 5000);
}

static void test_table_is_bounded_and_keeps_regular(void **state)
{
	struct pollsched ps;
	struct pollsched_params p = {.min_interval_ms = 1000, .max_interval_ms = 5000};
	struct pollsched_target t;
	uint64_t now = 100000;

	(void)state;
	pollsched_init(&ps, &p);
	for (int i = 0; i < 6; i++)
		pollsched_arrival(&ps, 1, now + (uint64_t)i * 10000);
	now += 50000;
	/* 100 one-off clients, after the scraper's last arrival */
	for (uint64_t k = 2; k < 102; k++)
		pollsched_arrival(&ps, k, now + k);
	pollsched_next(&ps, now + 200, now, POLL_COST, &t);
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
	pollsched_init(&ps, &p);
	/* a scraper every 1 s: aligned, but never more often than the floor */
	for (uint64_t i = 0; i < 8; i++)
		pollsched_arrival(&ps, 1, 10000 + i * 1000);
	next = pollsched_next(&ps, 17000, 16990, POLL_COST, &t);
	assert_true(t.aligned);
	assert_true(next >= 16990 + 3000);
	/* a scraper every 5 min: at least one poll every 2 min */
	pollsched_init(&ps, &p);
	for (uint64_t i = 0; i < 5; i++)
		pollsched_arrival(&ps, 1, i * 300000);
	next = pollsched_next(&ps, 1200000, 1200000, POLL_COST, &t);
	assert_true(t.aligned);
	assert_int_equal(next, 1200000 + POLLSCHED_ALIGNED_MAX_GAP_MS);
	/* a floor above the interval is capped to it */
	p.min_interval_ms = 60000;
	pollsched_init(&ps, &p);
	assert_int_equal(ps.params.min_interval_ms, 5000);
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
	pollsched_arrival(&s->ps, 1, s->now);  /* the curl */
	c = sim_add(s, 1, 15000, 3000, 0);     /* the scraper, 3 s later */
	sim_run(s, s->now + 3000 + 3 * 15000); /* 3 gaps: learnt */
	sim_window(s);
	sim_run(s, s->now + 600000);
	assert_near(c->scrapes_in_window, 40, 1);
	/* every scrape gets a poll that ended a margin before it */
	assert_true(c->age_max_in_window <= 2 * POLL_COST + POLLSCHED_MIN_MARGIN_MS);
	/* a poll per scrape, never the 2 min stall */
	assert_near(s->polls_in_window, 40, 1);
	assert_true(s->gap_max_in_window <= 15000 + POLLSCHED_MIN_MARGIN_MS);
}

static void test_one_odd_gap_then_regular(void **state)
{
	struct sim s;

	(void)state;
	one_odd_gap(&s, 5000);	/* the defaults */
	one_odd_gap(&s, 60000); /* a --poll.interval longer than the period */
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

/* The longest gap between polls: max(--poll.interval, 2 min). */
static uint64_t fuzz_cap(const struct pollsched *ps)
{
	uint64_t max = ps->params.max_interval_ms;

	return max > POLLSCHED_ALIGNED_MAX_GAP_MS ? max : POLLSCHED_ALIGNED_MAX_GAP_MS;
}

/*
 * Up to three scrapers (keys) with their own periods, jitters and outlier
 * rates, arrivals and polls in time order on a fake clock: whatever the
 * schedule learns, no poll starts later than the cap after the previous one
 * ended, so no scrape gets data older than that.
 */
static void fuzz_mixed(uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	struct pollsched ps;
	struct pollsched_params p;
	uint64_t period[3], jitter[3], next[3], now = 1000000, last_end = now;
	unsigned odd[3], n = 1 + fuzz_rand(&x) % 3;
	uint64_t cost = 1 + fuzz_rand(&x) % 500;

	p.max_interval_ms = 100 + fuzz_rand(&x) % 240000;
	p.min_interval_ms = 100 + fuzz_rand(&x) % 5000;
	pollsched_init(&ps, &p);
	for (unsigned i = 0; i < n; i++) {
		period[i] = 100 + fuzz_rand(&x) % 120000;
		jitter[i] = period[i] * (fuzz_rand(&x) % 20) / 100;
		odd[i] = fuzz_rand(&x) % 40;
		next[i] = now + fuzz_gap(&x, period[i], jitter[i], odd[i]);
	}
	for (unsigned events = 0; events < 600; events++) {
		uint64_t poll_at = pollsched_next(&ps, now, last_end, cost, NULL);
		unsigned first = 0;

		assert_true(poll_at >= now);
		assert_true(poll_at <= last_end + fuzz_cap(&ps));
		for (unsigned i = 1; i < n; i++)
			if (next[i] < next[first])
				first = i;
		if (next[first] < poll_at) {
			/* one that came during a poll is served when it ends */
			if (next[first] > now)
				now = next[first];
			assert_true(now - last_end <= fuzz_cap(&ps));
			pollsched_arrival(&ps, first + 1, now);
			next[first] = now + fuzz_gap(&x, period[first], jitter[first], odd[first]);
			continue;
		}
		now = poll_at + cost;
		last_end = now;
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
	uint64_t next = now, grid = 0;
	unsigned outliers = fuzz_rand(&x) % 12, run = 0;

	p.max_interval_ms = 100 + fuzz_rand(&x) % 240000;
	p.min_interval_ms = 100 + fuzz_rand(&x) % (period / 4);
	pollsched_init(&ps, &p);
	for (unsigned events = 0; events < 400; events++) {
		uint64_t poll_at = pollsched_next(&ps, now, last_end, cost, NULL);

		if (next >= poll_at) {
			now = poll_at + cost;
			last_end = now;
			continue;
		}
		if (next > now)
			now = next;
		/* run: regular gaps so far, the one that ends now included */
		if (run >= POLLSCHED_GAPS / 2 + 3)
			assert_true(now - last_end <= fresh_max(period, cost, jitter));
		pollsched_arrival(&ps, 1, now);
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
	unsigned n_stray = 1 + fuzz_rand(&x) % 2, since = 0, done = 0;

	p.max_interval_ms = 100 + fuzz_rand(&x) % 240000;
	p.min_interval_ms = 100 + fuzz_rand(&x) % (period / 4);
	pollsched_init(&ps, &p);
	stray[0] = now + fuzz_rand(&x) % (start - now);
	stray[1] = start + fuzz_rand(&x) % (20 * period);
	if (n_stray == 1 && fuzz_rand(&x) % 2)
		stray[0] = stray[1];
	while (k < 50) {
		uint64_t poll_at = pollsched_next(&ps, now, last_end, cost, NULL);
		bool is_stray = done < n_stray && stray[done] < next;
		uint64_t at = is_stray ? stray[done] : next;

		if (at >= poll_at) {
			now = poll_at + cost;
			last_end = now;
			continue;
		}
		if (at > now)
			now = at;
		if (is_stray) {
			pollsched_arrival(&ps, 1, now);
			done++;
			since = 0;
			continue;
		}
		if (since >= POLLSCHED_MIN_GAPS + 2)
			assert_true(now - last_end <= fresh_max(period, cost, jitter));
		pollsched_arrival(&ps, 1, now);
		k++;
		since++;
		next = start + k * period - jitter + fuzz_rand(&x) % (2 * jitter + 1);
	}
}

static void test_fuzz_poll_gap_bounded(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 3000; seed++) {
		fuzz_mixed(seed);
		fuzz_regular_after_outliers(seed);
		fuzz_stray_requests(seed);
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
		cmocka_unit_test(test_two_scrapers_follows_the_faster),
		cmocka_unit_test(test_ha_pair_follows_the_first_seen),
		cmocka_unit_test(test_small_jitter_stays_aligned),
		cmocka_unit_test(test_large_jitter_falls_back),
		cmocka_unit_test(test_scraper_that_stops),
		cmocka_unit_test(test_manual_burst_bounded_by_floor),
		cmocka_unit_test(test_burst_same_key_does_not_unlearn),
		cmocka_unit_test(test_clock_step_forward),
		cmocka_unit_test(test_clock_step_back),
		cmocka_unit_test(test_table_is_bounded_and_keeps_regular),
		cmocka_unit_test(test_floor_and_cap),
		cmocka_unit_test(test_one_odd_gap_then_regular),
		cmocka_unit_test(test_fuzz_poll_gap_bounded),
		cmocka_unit_test(test_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
