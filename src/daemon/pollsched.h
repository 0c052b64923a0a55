/* SPDX-License-Identifier: Apache-2.0 */
/*
 * When to poll next: the scrape-aligned schedule (docs/configuration.md,
 * "Polling"). Pure: arrival times and "now" come from the caller, in
 * milliseconds of one monotonic clock, so tests drive it with a fake clock.
 *
 * It learns each scraper (a key: the client address and User-Agent, hashed
 * with pollsched_key(), and whether the request authenticated) from the
 * arrival times of its /metrics requests. A scraper is regular when the
 * median absolute deviation of its last POLLSCHED_GAPS inter-arrival gaps is
 * at most a tenth of their median (the period), with at least
 * POLLSCHED_MIN_GAPS gaps seen; it is active while it has not missed two of
 * its expected scrapes. Of the active regular scrapers it follows one: an
 * authenticated one first, then one from an address the operator named
 * (--poll.follow-address: a client elsewhere that was there first cannot
 * take the schedule from Prometheus), then the one with the longest history
 * (seen first), so that a newcomer scraping a little faster cannot take the
 * schedule over. The poll is aimed to end a margin (twice the poll's cost or
 * thrice the arrivals' jitter, the larger, at least POLLSCHED_MIN_MARGIN_MS)
 * before the next expected arrival of that scraper that the floor allows.
 *
 * The bounds, whatever the requests:
 * - never later than max_interval_ms after the previous poll ended (without
 *   a scraper to follow, exactly then): the data served is never older than
 *   max_interval_ms plus one poll;
 * - never sooner than min_interval_ms after the previous poll ended;
 * - while the followed scraper is not authenticated, never sooner than
 *   pollsched_floor_ms() (POLLSCHED_UNAUTH_FLOOR_FACTOR * min_interval_ms,
 *   capped at max_interval_ms) after the previous poll started: no mix of
 *   clients without credentials makes more than 60 s / that polls a minute.
 *
 * Not thread-safe: the caller locks.
 */
#ifndef RDMA_EXPORTER_POLLSCHED_H
#define RDMA_EXPORTER_POLLSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define POLLSCHED_MAX_SCRAPERS	16
#define POLLSCHED_GAPS		8
#define POLLSCHED_MIN_GAPS	3
#define POLLSCHED_MIN_MARGIN_MS 50
/* An aimed poll later than the interval allows by more than this (or twice
 * the margin, the larger) gets an extra poll before it, to come back in step
 * at once; by less, the polls at the interval reach it little by little. */
#define POLLSCHED_REALIGN_MS 1000
/*
 * An unauthenticated followed scraper cannot bring poll starts closer than
 * this many --poll.min-interval (5 s, 12 polls a minute, at the default 1 s).
 */
#define POLLSCHED_UNAUTH_FLOOR_FACTOR 5
/* An established scraper silent this long may be replaced by a newcomer. */
#define POLLSCHED_EXPIRE_MS (10 * 60 * 1000)
/* --poll.min-interval's default */
#define POLLSCHED_DEFAULT_MIN_INTERVAL_MS 1000

struct pollsched_params {
	uint64_t min_interval_ms; /* the floor; capped at max_interval_ms */
	uint64_t max_interval_ms; /* --poll.interval */
};

struct pollsched_scraper {
	uint64_t key;
	/* when first seen: its history, kept while it pauses and relearns */
	uint64_t first_ms;
	uint64_t last_ms;	       /* the last arrival counted */
	uint32_t gaps[POLLSCHED_GAPS]; /* ring of inter-arrival gaps, ms */
	unsigned n_gaps, next_gap;
	bool used;
	bool authenticated; /* part of the key: its requests authenticated */
	bool named;	    /* its address is one the operator named (--poll.follow-address) */
	/* it has been regular: no newcomer replaces it until POLLSCHED_EXPIRE_MS of silence */
	bool established;
};

struct pollsched {
	struct pollsched_params params;
	struct pollsched_scraper s[POLLSCHED_MAX_SCRAPERS];
	/* requests of new scrapers not tracked: the table held none to replace */
	uint64_t untracked;
};

/* What the schedule is following, for tests, logs and rdma_exporter_data_age_seconds. */
struct pollsched_target {
	bool aligned;	    /* false: every max_interval_ms (no regular active scraper) */
	uint64_t key;	    /* the scraper followed, when aligned */
	bool authenticated; /* and whether its requests authenticated */
	bool named;	    /* and whether the operator named its address */
	uint64_t period_ms; /* its period, when aligned */
};

void pollsched_init(struct pollsched *ps, const struct pollsched_params *params);

/* A key for a scraper: FNV-1a of the address bytes and the User-Agent (may be NULL). */
uint64_t pollsched_key(const void *addr, size_t addr_len, const char *user_agent);

/*
 * Records a /metrics request of scraper key at now_ms; authenticated: it
 * passed basic auth or showed a verified client certificate (the same key
 * without is another scraper). Requests less than the floor (min_interval_ms,
 * at most 1 s) after the scraper's last counted one are the same scrape (a
 * retry, a burst of manual requests): not counted.
 *
 * The table keeps POLLSCHED_MAX_SCRAPERS scrapers. A new one takes a free
 * place, else replaces the least recently seen one that is neither
 * established (regular once, seen within POLLSCHED_EXPIRE_MS) nor keeping
 * the rhythm of its own gaps; an authenticated newcomer may also replace an
 * unauthenticated one. Else it is not tracked (counted in ps->untracked): a
 * stream of new User-Agents never pushes out the scrapers already learnt.
 */
void pollsched_arrival(struct pollsched *ps, uint64_t key, bool authenticated, uint64_t now_ms);

/* What pollsched_arrival_from() knows of a request besides its key. */
#define POLLSCHED_AUTHENTICATED 1u /* it authenticated (part of the key) */
#define POLLSCHED_NAMED		2u /* it came from an address the operator named */

/*
 * pollsched_arrival() with what is known of the request (POLLSCHED_*). A
 * named scraper is followed before every other unauthenticated one, whenever
 * it was first seen, and may take the place of an unauthenticated one as an
 * authenticated newcomer may; the unauthenticated floor still holds for it.
 */
void pollsched_arrival_from(struct pollsched *ps, uint64_t key, unsigned from, uint64_t now_ms);

/*
 * When the next poll should start (ms, >= now_ms): last_start_ms and
 * last_end_ms are when the previous poll started and ended, poll_cost_ms how
 * long polls take. t, when not NULL, says what the schedule follows.
 */
uint64_t pollsched_next(const struct pollsched *ps, uint64_t now_ms, uint64_t last_start_ms,
			uint64_t last_end_ms, uint64_t poll_cost_ms, struct pollsched_target *t);

/*
 * The shortest time from one poll's start to the next one's while an
 * unauthenticated scraper (or none) is followed: POLLSCHED_UNAUTH_FLOOR_FACTOR
 * times min_interval_ms, at most max_interval_ms.
 */
uint64_t pollsched_unauth_floor_ms(const struct pollsched_params *params);

#endif
