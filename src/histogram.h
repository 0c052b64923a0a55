/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fixed-bucket histogram accumulator in the Prometheus sense: bucket i
 * counts observations v with bounds[i-1] < v <= bounds[i] (upper bounds are
 * inclusive, "le"), the last bucket counts everything above the last bound
 * (+Inf). Counts are per bucket, not cumulative; the exposition writer
 * (metric_sink_add_histogram_from()) makes them cumulative.
 *
 * histogram_init() allocates the counts once; observe and reset never
 * allocate, log or fail for valid input, so they are safe on a probe's hot
 * path. Not thread-safe: one owner updates it.
 */
#ifndef RDMA_EXPORTER_HISTOGRAM_H
#define RDMA_EXPORTER_HISTOGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct histogram {
	const double *bounds; /* borrowed: finite, strictly increasing; outlives the histogram */
	size_t n_bounds;
	uint64_t *counts; /* n_bounds + 1 buckets, counts[n_bounds] is the +Inf bucket */
	uint64_t count;	  /* all observations, == sum of counts[] (wraps after 2^64) */
	double sum;	  /* sum of observed values, in the caller's unit */
};

/*
 * Round-trip-time bucket layout in seconds, 1 µs .. 1 s, dense below 100 µs
 * where RDMA verbs RTTs live (a few µs within a rack, tens of µs across a
 * fabric): 1 µs steps to 8 µs, then 10 12 15 20 25 30 40 50 60 70 80 90 100 µs,
 * then 150 200 300 500 750 µs, 1 2 5 10 20 50 100 200 500 ms and 1 s.
 * 36 bounds: 37 buckets with +Inf, 39 series per label set once rendered.
 * Every bound is written as a decimal literal, so it prints back as that
 * decimal ("1e-06", "0.00015", ...) rather than as a product's rounding error.
 */
#define HISTOGRAM_RTT_N_BOUNDS 36
extern const double histogram_rtt_bounds[HISTOGRAM_RTT_N_BOUNDS];

/* Whether bounds[0..n) are all finite and strictly increasing (n == 0 is valid). */
bool histogram_bounds_valid(const double *bounds, size_t n_bounds);

/*
 * Sets h up for bounds[0..n_bounds), which are borrowed, not copied.
 * 0, -EINVAL (bounds not finite and strictly increasing) or -ENOMEM.
 * On error h is left empty (histogram_free() on it is a no-op).
 */
int histogram_init(struct histogram *h, const double *bounds, size_t n_bounds);

/*
 * Counts one observation. Histograms here measure non-negative quantities
 * (latencies), so the sum stays monotonic for rate(): a NaN, negative or
 * infinite value is ignored and returns -EINVAL. -0.0 counts as 0. 0 otherwise.
 */
int histogram_observe(struct histogram *h, double v);

/* Zeroes all counts and the sum; keeps the bounds. */
void histogram_reset(struct histogram *h);

/* Releases the counts; h itself is the caller's. NULL is a no-op. */
void histogram_free(struct histogram *h);

#endif
