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

static void scraper_reset(struct pollsched_scraper *s, uint64_t key, uint64_t now_ms)
{
	memset(s, 0, sizeof(*s));
	s->used = true;
	s->key = key;
	s->first_ms = now_ms;
	s->last_ms = now_ms;
}

/* The scraper's slot, or a free or evicted one (reset for key). */
static struct pollsched_scraper *find_slot(struct pollsched *ps, uint64_t key, uint64_t now_ms)
{
	struct pollsched_scraper *victim = NULL;
	bool victim_regular = true;

	for (unsigned i = 0; i < POLLSCHED_MAX_SCRAPERS; i++) {
		struct pollsched_scraper *s = &ps->s[i];
		bool regular;

		if (s->used && s->key == key)
			return s;
		if (!s->used) {
			if (!victim || victim->used)
				victim = s;
			continue;
		}
		if (victim && !victim->used)
			continue;
		/* least recently seen, irregular ones first */
		regular = scraper_period(s) > 0;
		if (!victim || (victim_regular && !regular) ||
		    (victim_regular == regular && s->last_ms < victim->last_ms)) {
			victim = s;
			victim_regular = regular;
		}
	}
	scraper_reset(victim, key, now_ms);
	return NULL;
}

void pollsched_arrival(struct pollsched *ps, uint64_t key, uint64_t now_ms)
{
	struct pollsched_scraper *s = find_slot(ps, key, now_ms);
	uint64_t merge = ps->params.min_interval_ms < 1000 ? ps->params.min_interval_ms : 1000;
	uint64_t period, gap;

	if (!s)
		return; /* new: its first arrival */
	if (now_ms < s->last_ms) {
		/* the clock went back: what was learnt is meaningless */
		scraper_reset(s, key, now_ms);
		return;
	}
	gap = now_ms - s->last_ms;
	if (gap < merge)
		return;
	period = scraper_period(s);
	/* back after a pause, or a new period: learn it afresh */
	if ((period && !scraper_active(s, period, now_ms)) || gap > UINT32_MAX) {
		scraper_reset(s, key, now_ms);
		return;
	}
	s->gaps[s->next_gap] = (uint32_t)gap;
	s->next_gap = (s->next_gap + 1) % POLLSCHED_GAPS;
	if (s->n_gaps < POLLSCHED_GAPS)
		s->n_gaps++;
	s->last_ms = now_ms;
}

/* The active regular scraper with the shortest period, or NULL. */
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
		/* within 1% counts as the same period: keep the one seen first */
		if (best && period * 100 >= best_period * 99 && best_period * 100 >= period * 99) {
			if (s->first_ms >= best->first_ms)
				continue;
		} else if (best && period > best_period) {
			continue;
		}
		best = s;
		best_period = period;
		best_jitter = jitter;
	}
	*period_out = best_period;
	*jitter_out = best_jitter;
	return best;
}

uint64_t pollsched_next(const struct pollsched *ps, uint64_t now_ms, uint64_t last_end_ms,
			uint64_t poll_cost_ms, struct pollsched_target *t)
{
	const struct pollsched_params *pp = &ps->params;
	const struct pollsched_scraper *s;
	uint64_t period, jitter, margin, lead, arrival, next, latest, cap;

	if (last_end_ms > now_ms)
		last_end_ms = now_ms; /* the clock went back */
	s = followed(ps, now_ms, &period, &jitter);
	if (t)
		*t = (struct pollsched_target){
			.aligned = s != NULL, .key = s ? s->key : 0, .period_ms = period};
	if (!s) {
		next = last_end_ms + pp->max_interval_ms;
		return next > now_ms ? next : now_ms;
	}
	/* end before the arrival by twice the poll's cost or thrice the arrivals' jitter */
	margin = 2 * poll_cost_ms > 3 * jitter ? 2 * poll_cost_ms : 3 * jitter;
	if (margin < POLLSCHED_MIN_MARGIN_MS)
		margin = POLLSCHED_MIN_MARGIN_MS;
	lead = poll_cost_ms + margin;
	/* the first expected arrival whose poll would start after the last one ended */
	arrival = expected_arrival(s, period);
	if (arrival < lead + last_end_ms + 1)
		arrival += (lead + last_end_ms + 1 - arrival + period - 1) / period * period;
	next = arrival - lead;
	if (next < last_end_ms + pp->min_interval_ms)
		next = last_end_ms + pp->min_interval_ms;
	cap = pp->max_interval_ms > POLLSCHED_ALIGNED_MAX_GAP_MS ? pp->max_interval_ms
								 : POLLSCHED_ALIGNED_MAX_GAP_MS;
	latest = last_end_ms + cap;
	if (next > latest)
		next = latest;
	return next > now_ms ? next : now_ms;
}
