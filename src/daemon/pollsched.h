/* SPDX-License-Identifier: Apache-2.0 */
/*
 * When to poll next: the scrape-aligned schedule (docs/configuration.md,
 * "Polling"). Pure: arrival times and "now" come from the caller, in
 * milliseconds of one monotonic clock, so tests drive it with a fake clock.
 *
 * It learns each scraper (a key: the client address and User-Agent, hashed
 * with pollsched_key()) from the arrival times of its /metrics requests. A
 * scraper is regular when the median absolute deviation of its last
 * POLLSCHED_GAPS inter-arrival gaps is at most a tenth of their median (the
 * period), with at least POLLSCHED_MIN_GAPS gaps seen; it is active while it
 * has not missed two of its expected scrapes. The poll is aimed to end a
 * margin (twice the poll's cost or thrice the arrivals' jitter, the larger, at
 * least POLLSCHED_MIN_MARGIN_MS) before the
 * next expected arrival of the active regular scraper with the shortest
 * period (the one seen first among equal periods). Without one it polls every
 * max_interval_ms. Never sooner than min_interval_ms after the previous poll
 * ended, never later than max(max_interval_ms, POLLSCHED_ALIGNED_MAX_GAP_MS).
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
/* Longest gap between aligned polls: Prometheus's default scrape interval is 1m. */
#define POLLSCHED_ALIGNED_MAX_GAP_MS 120000
/* --poll.min-interval's default */
#define POLLSCHED_DEFAULT_MIN_INTERVAL_MS 1000

struct pollsched_params {
	uint64_t min_interval_ms; /* the floor; capped at max_interval_ms */
	uint64_t max_interval_ms; /* --poll.interval */
};

struct pollsched_scraper {
	uint64_t key;
	uint64_t first_ms;	       /* when first seen (ties between equal periods) */
	uint64_t last_ms;	       /* the last arrival counted */
	uint32_t gaps[POLLSCHED_GAPS]; /* ring of inter-arrival gaps, ms */
	unsigned n_gaps, next_gap;
	bool used;
};

struct pollsched {
	struct pollsched_params params;
	struct pollsched_scraper s[POLLSCHED_MAX_SCRAPERS];
};

/* What the schedule is following, for tests and logs. */
struct pollsched_target {
	bool aligned;	    /* false: fixed interval (no regular active scraper) */
	uint64_t key;	    /* the scraper followed, when aligned */
	uint64_t period_ms; /* its period, when aligned */
};

void pollsched_init(struct pollsched *ps, const struct pollsched_params *params);

/* A key for a scraper: FNV-1a of the address bytes and the User-Agent (may be NULL). */
uint64_t pollsched_key(const void *addr, size_t addr_len, const char *user_agent);

/*
 * Records a /metrics request of scraper key at now_ms. Requests less than
 * the floor (min_interval_ms, at most 1 s) after the scraper's last counted
 * one are the same scrape (a retry, a burst of manual requests): not counted.
 * The table keeps POLLSCHED_MAX_SCRAPERS scrapers; a new one replaces the
 * least recently seen irregular one, else the least recently seen one.
 */
void pollsched_arrival(struct pollsched *ps, uint64_t key, uint64_t now_ms);

/*
 * When the next poll should start (ms, >= now_ms): last_end_ms is when the
 * previous poll ended, poll_cost_ms how long polls take. t, when not NULL,
 * says what the schedule follows.
 */
uint64_t pollsched_next(const struct pollsched *ps, uint64_t now_ms, uint64_t last_end_ms,
			uint64_t poll_cost_ms, struct pollsched_target *t);

#endif
