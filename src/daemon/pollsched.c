// SPDX-License-Identifier: Apache-2.0
#include "daemon/pollsched.h"

#include <stdlib.h>
#include <string.h>

void pollsched_init(struct pollsched *ps, const struct pollsched_params *params)
{
	memset(ps, 0, sizeof(*ps));
	ps->params = *params;
	if (ps->params.max_interval_ms == 0)
		ps->params.max_interval_ms = 1;
	if (ps->params.min_interval_ms > ps->params.max_interval_ms)
		ps->params.min_interval_ms = ps->params.max_interval_ms;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t pollsched_key(const void *addr, size_t addr_len, const char *user_agent)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ull, addr, addr_len);

	h = fnv1a(h, (const unsigned char *)"\n", 1);
	if (user_agent)
		h = fnv1a(h, (const unsigned char *)user_agent, strlen(user_agent));
	return h;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (n > 0), reordering v. */
static uint32_t median(uint32_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n % 2 ? v[n / 2] : (uint32_t)(((uint64_t)v[n / 2 - 1] + v[n / 2]) / 2);
}

/*
 * Whether a gap lies on the grid of period: near a whole number (>= 1) of
 * periods. A gap off it (a manual request before the scraper began, a
 * restart of the scraper on a new phase) separates arrivals on different grids.
 */
static bool on_grid(uint64_t gap, uint64_t period)
{
	uint64_t k = (gap + period / 2) / period;

	if (k == 0)
		return false;
	return (gap > k * period ? gap - k * period : k * period - gap) <= period / 4;
}

/*
 * The next expected arrival of a regular scraper: a least-squares line
 * through its remembered arrivals, each placed on the grid of its period (a
 * missed scrape leaves a hole, not an outlier), so that one arrival's jitter
 * moves the prediction by a fraction of itself. Only the latest arrivals on
 * one grid count: the walk back stops at the first gap off it, so that one
 * odd gap (a curl 3 s before the scrapes began) cannot tilt the line. The
 * result is never later than the plain guess (last arrival + period): a
 * prediction that runs late, even by the margin, moves the poll after the
 * scrape, every scrape, for as long as the cause stays in the window.
 */
static uint64_t expected_arrival(const struct pollsched_scraper *s, uint64_t period)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, a, b, d;
	uint64_t back = 0;

	for (unsigned k = 0; k <= s->n_gaps; k++) {
		/* x: periods back (rounded), y: ms back, both <= 0 */
		double x, y;

		if (k > 0) {
			uint32_t gap = s->gaps[(s->next_gap + POLLSCHED_GAPS - k) % POLLSCHED_GAPS];

			if (!on_grid(gap, period))
				break;
			back += gap;
		}
		x = -(double)((back + period / 2) / period);
		y = -(double)back;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	d = n * sxx - sx * sx;
	if (d <= 0)
		return s->last_ms + period;
	b = (n * sxy - sx * sy) / d;
	a = (sy - b * sx) / n;
	/* at x = 1; early by at most half a period, never late */
	d = a + b - (double)period;
	if (d < -(double)period / 2)
		return s->last_ms + period;
	if (d > 0)
		d = 0;
	return (uint64_t)((int64_t)s->last_ms + (int64_t)period + (int64_t)d);
}

/* The period of a regular scraper, 0 when it is not (yet) regular. */
static uint64_t scraper_period_jitter(const struct pollsched_scraper *s, uint64_t *jitter)
{
	uint32_t g[POLLSCHED_GAPS], dev[POLLSCHED_GAPS];
	uint32_t m, mad;

	if (s->n_gaps < POLLSCHED_MIN_GAPS)
		return 0;
	memcpy(g, s->gaps, s->n_gaps * sizeof(g[0]));
	m = median(g, s->n_gaps);
	for (unsigned i = 0; i < s->n_gaps; i++)
		dev[i] = g[i] > m ? g[i] - m : m - g[i];
	/* jitter (median absolute deviation) within 10% of the period */
	mad = median(dev, s->n_gaps);
	if (m == 0 || (uint64_t)mad * 10 > m)
		return 0;
	*jitter = mad;
	return m;
}

static uint64_t scraper_period(const struct pollsched_scraper *s)
{
	uint64_t jitter;

	return scraper_period_jitter(s, &jitter);
}

/* Active: it has not missed two expected scrapes in a row. */
static bool scraper_active(const struct pollsched_scraper *s, uint64_t period, uint64_t now_ms)
{
	return now_ms >= s->last_ms && now_ms - s->last_ms <= 2 * period + period / 2;
}

/* Forgets what was learnt; history (first_ms, established) only when keep. */
static void scraper_reset(struct pollsched_scraper *s, uint64_t key, bool authenticated,
			  uint64_t now_ms, bool keep)
{
	uint64_t first = keep ? s->first_ms : now_ms;
	bool established = keep && s->established, named = s->named;

	memset(s, 0, sizeof(*s));
	s->used = true;
	s->key = key;
	s->authenticated = authenticated;
	s->first_ms = first;
	s->established = established;
	s->named = named; /* the caller sets it for a new scraper */
	s->last_ms = now_ms;
}

/*
 * Whether a newcomer must leave s in place: established and not silent for
 * POLLSCHED_EXPIRE_MS, or keeping the rhythm of its own gaps (the next
 * request due within two and a half of their median), so that a scraper
 * still learning is not pushed out by a stream of one-off requests.
 */
static bool scraper_held(const struct pollsched_scraper *s, uint64_t now_ms)
{
	uint32_t g[POLLSCHED_GAPS];
	uint64_t quiet, m;

	if (now_ms < s->last_ms)
		return false; /* the clock went back: nothing learnt holds */
	quiet = now_ms - s->last_ms;
	if (quiet > POLLSCHED_EXPIRE_MS)
		return false;
	if (s->established)
		return true;
	if (s->n_gaps == 0)
		return false;
	memcpy(g, s->gaps, s->n_gaps * sizeof(g[0]));
	m = median(g, s->n_gaps);
	return quiet <= 2 * m + m / 2;
}

/*
 * What replacing s costs: 0 a free place, 1 one that is not held, 2 a held
 * unauthenticated one (only an authenticated newcomer may take it), 3 never.
 */
static int eviction_rank(const struct pollsched_scraper *s, uint64_t now_ms)
{
	if (!s->used)
		return 0;
	if (!scraper_held(s, now_ms))
		return 1;
	return s->authenticated || s->named ? 3 : 2;
}

/*
 * The scraper's place; NULL when it is new: then it took a free or
 * replaced place (its first arrival), or none (counted untracked).
 */
static struct pollsched_scraper *find_slot(struct pollsched *ps, uint64_t key, unsigned from,
					   uint64_t now_ms)
{
	bool authenticated = from & POLLSCHED_AUTHENTICATED;

	struct pollsched_scraper *victim = NULL;
	int victim_rank = 4;

	for (unsigned i = 0; i < POLLSCHED_MAX_SCRAPERS; i++) {
		struct pollsched_scraper *s = &ps->s[i];

		if (s->used && s->key == key && s->authenticated == authenticated)
			return s;
	}
	for (unsigned i = 0; i < POLLSCHED_MAX_SCRAPERS; i++) {
		struct pollsched_scraper *s = &ps->s[i];
		/* the least recently seen of the cheapest */
		int rank = eviction_rank(s, now_ms);

		if (rank < victim_rank || (rank == victim_rank && s->last_ms < victim->last_ms)) {
			victim = s;
			victim_rank = rank;
		}
	}
	if (victim_rank > (from ? 2 : 1)) {
		ps->untracked++;
		return NULL;
	}
	scraper_reset(victim, key, authenticated, now_ms, false);
	victim->named = from & POLLSCHED_NAMED;
	return NULL;
}

void pollsched_arrival(struct pollsched *ps, uint64_t key, bool authenticated, uint64_t now_ms)
{
	pollsched_arrival_from(ps, key, authenticated ? POLLSCHED_AUTHENTICATED : 0, now_ms);
}

void pollsched_arrival_from(struct pollsched *ps, uint64_t key, unsigned from, uint64_t now_ms)
{
	bool authenticated = from & POLLSCHED_AUTHENTICATED;
	struct pollsched_scraper *s = find_slot(ps, key, from, now_ms);
	uint64_t merge = ps->params.min_interval_ms < 1000 ? ps->params.min_interval_ms : 1000;
	uint64_t period, gap;

	if (!s)
		return; /* new: its first arrival, or not tracked */
	s->named = from & POLLSCHED_NAMED;
	if (now_ms < s->last_ms) {
		/* the clock went back: what was learnt is meaningless */
		scraper_reset(s, key, authenticated, now_ms, false);
		return;
	}
	gap = now_ms - s->last_ms;
	if (gap < merge)
		return;
	period = scraper_period(s);
	/* back after a pause, or a new period: learn it afresh, its history kept */
	if ((period && !scraper_active(s, period, now_ms)) || gap > UINT32_MAX) {
		scraper_reset(s, key, authenticated, now_ms, gap <= POLLSCHED_EXPIRE_MS);
		return;
	}
	s->gaps[s->next_gap] = (uint32_t)gap;
	s->next_gap = (s->next_gap + 1) % POLLSCHED_GAPS;
	if (s->n_gaps < POLLSCHED_GAPS)
		s->n_gaps++;
	s->last_ms = now_ms;
	if (scraper_period(s))
		s->established = true;
}

/*
 * Whether a is followed rather than b (both active and regular): an
 * authenticated one, then one whose address the operator named (a client
 * that was there first, or came first after a restart, is not followed
 * instead of Prometheus), then the one seen first (an established scraper
 * is not displaced by a newcomer a little faster), then the faster one.
 */
static bool follows_before(const struct pollsched_scraper *a, uint64_t a_period,
			   const struct pollsched_scraper *b, uint64_t b_period)
{
	if (a->authenticated != b->authenticated)
		return a->authenticated;
	if (a->named != b->named)
		return a->named;
	if (a->first_ms != b->first_ms)
		return a->first_ms < b->first_ms;
	return a_period < b_period;
}

/* The active regular scraper to follow (follows_before()), or NULL. */
static const struct pollsched_scraper *followed(const struct pollsched *ps, uint64_t now_ms,
						uint64_t *period_out, uint64_t *jitter_out)
{
	const struct pollsched_scraper *best = NULL;
	uint64_t best_period = 0, best_jitter = 0;

	for (unsigned i = 0; i < POLLSCHED_MAX_SCRAPERS; i++) {
		const struct pollsched_scraper *s = &ps->s[i];
		uint64_t jitter = 0;
		uint64_t period = s->used ? scraper_period_jitter(s, &jitter) : 0;

		if (!period || !scraper_active(s, period, now_ms))
			continue;
		if (best && !follows_before(s, period, best, best_period))
			continue;
		best = s;
		best_period = period;
		best_jitter = jitter;
	}
	*period_out = best_period;
	*jitter_out = best_jitter;
	return best;
}

uint64_t pollsched_unauth_floor_ms(const struct pollsched_params *params)
{
	uint64_t f = POLLSCHED_UNAUTH_FLOOR_FACTOR * params->min_interval_ms;

	return f < params->max_interval_ms ? f : params->max_interval_ms;
}

uint64_t pollsched_next(const struct pollsched *ps, uint64_t now_ms, uint64_t last_start_ms,
			uint64_t last_end_ms, uint64_t poll_cost_ms, struct pollsched_target *t)
{
	const struct pollsched_params *pp = &ps->params;
	const struct pollsched_scraper *s;
	uint64_t period, jitter, margin, lead, arrival, next, floor, earliest, cap;

	if (last_end_ms > now_ms)
		last_end_ms = now_ms; /* the clock went back */
	if (last_start_ms > last_end_ms)
		last_start_ms = last_end_ms;
	s = followed(ps, now_ms, &period, &jitter);
	if (t)
		*t = (struct pollsched_target){.aligned = s != NULL,
					       .key = s ? s->key : 0,
					       .authenticated = s && s->authenticated,
					       .named = s && s->named,
					       .period_ms = period};
	/* the hard bound: the data is never older than the interval and a poll */
	cap = last_end_ms + pp->max_interval_ms;
	if (!s)
		return cap > now_ms ? cap : now_ms;
	floor = last_end_ms + pp->min_interval_ms;
	if (!s->authenticated && last_start_ms + pollsched_unauth_floor_ms(pp) > floor)
		floor = last_start_ms + pollsched_unauth_floor_ms(pp);
	/* end before the arrival by twice the poll's cost or thrice the arrivals' jitter */
	margin = 2 * poll_cost_ms > 3 * jitter ? 2 * poll_cost_ms : 3 * jitter;
	if (margin < POLLSCHED_MIN_MARGIN_MS)
		margin = POLLSCHED_MIN_MARGIN_MS;
	lead = poll_cost_ms + margin;
	/*
	 * The first expected arrival whose poll would start after the last one
	 * ended and, held back to the floor, still end before it: a scraper
	 * faster than the floor gets a poll aimed at every second (or nth)
	 * scrape, not polls at the floor out of step with all of them.
	 */
	earliest = floor > last_end_ms + 1 + margin ? floor - margin : last_end_ms + 1;
	arrival = expected_arrival(s, period);
	if (arrival < lead + earliest)
		arrival += (lead + earliest - arrival + period - 1) / period * period;
	next = arrival - lead;
	if (next < floor)
		next = floor;
	if (next > cap + (2 * margin > POLLSCHED_REALIGN_MS ? 2 * margin : POLLSCHED_REALIGN_MS)) {
		/*
		 * Too far for the interval: a poll before it, at the cap, or
		 * earlier when the floors would keep the aimed poll from
		 * following the cap's (a scraper 3 s out of step with polls at
		 * the interval would stay so, the floor forbidding the poll 3 s
		 * after the cap's and the interval the one 3 s after the next).
		 * Not for less than POLLSCHED_REALIGN_MS: a margin that shrank
		 * (the arrivals' jitter, or the poll's cost, fell) moves the
		 * aimed poll later by a few hundred ms, which the polls at the
		 * cap reach a poll's cost at a time; an extra poll for each
		 * such move was one poll in 20 more (tests/daemon/test_pollsched.c).
		 */
		uint64_t step = poll_cost_ms + pp->min_interval_ms;

		if (!s->authenticated && step < pollsched_unauth_floor_ms(pp))
			step = pollsched_unauth_floor_ms(pp);
		next = next > step && next - step < cap && next - step >= floor ? next - step : cap;
	} else if (next > cap) {
		/* a little late for the interval: the cap's poll still ends before the arrival */
		next = cap;
	}
	return next > now_ms ? next : now_ms;
}
