/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fixed-bucket histogram accumulator in the Prometheus sense: bucket i
 * counts observations v with bounds[i-1] < v <= bounds[i] (upper bounds are
 * inclusive, "le"), the last bucket counts everything above the last bound
 * (+Inf). Counts are per bucket, not cumulative; the exposition writer
 * (metric_sink_add_histogram_from()) makes them cumulative.
 *
 * Next to the fixed buckets it keeps a native (exponential, "sparse")
 * histogram in the sense of Prometheus's native histograms, for the protobuf
 * exposition: schema HISTOGRAM_NATIVE_SCHEMA (3) splits each power of two into
 * 8 buckets, bucket i covering (2^((i-1)/8), 2^(i/8)], a growth factor of
 * 2^(1/8) = 1.0905, so a quantile read from it is within about 4.4% (half a
 * bucket) and never more than 9% off. The index range is fixed and
 * preallocated, HISTOGRAM_NATIVE_MIN_INDEX .. HISTOGRAM_NATIVE_MAX_INDEX, that
 * is (2^-24 s, 2^4 s] = (59.6 ns, 16 s]: a verbs RTT under 60 ns is below any
 * clock's resolution, a probe times out long before 16 s. A value at or below
 * the zero threshold (2^-24 s, the lower edge of the lowest bucket, so the
 * zero bucket and the regular ones do not overlap) counts in the zero bucket,
 * 0 included; a value above 16 s counts in the highest bucket (clamped: its
 * quantile reads as at most 16 s; _sum keeps the true value). 224 buckets of
 * 8 bytes, 1.8 KiB per histogram.
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
	/* native: native[i - HISTOGRAM_NATIVE_MIN_INDEX] counts bucket i */
	uint64_t *native;
	uint64_t zero_count; /* native zero bucket: observations <= HISTOGRAM_NATIVE_ZERO_THRESHOLD
			      */
};

#define HISTOGRAM_NATIVE_SCHEMA	   3
#define HISTOGRAM_NATIVE_MIN_INDEX (-191)
#define HISTOGRAM_NATIVE_MAX_INDEX 32
#define HISTOGRAM_NATIVE_N_BUCKETS (HISTOGRAM_NATIVE_MAX_INDEX - HISTOGRAM_NATIVE_MIN_INDEX + 1)
/* 2^-24, the lower edge of bucket HISTOGRAM_NATIVE_MIN_INDEX */
#define HISTOGRAM_NATIVE_ZERO_THRESHOLD 0x1p-24

/*
 * The schema-3 bucket index of v > 0 (finite): the i with
 * 2^((i-1)/8) < v <= 2^(i/8), not clamped to the preallocated range. The
 * boundaries are the nearest doubles to 2^(k/8), as Prometheus's Go client
 * uses them, so both put a value on a boundary in the same bucket.
 */
int histogram_native_index(double v);

/*
 * Classic round-trip-time bucket layout in seconds, 1 µs .. 1 s, for RDMA
 * verbs RTTs: 1 2 3 5 per decade up to 100 µs (a few µs within a rack, tens
 * across a fabric), then 1 2 5 for congestion and ms tails (200 500 µs,
 * 1 2 5 10 ms), 100 ms and 1 s. 17 bounds: 18 buckets with +Inf, 20 series
 * per label set once rendered (issue 31's series budget: the 20 bounds
 * before, with 7.5, 15 and 75 µs, cost 48 series more on a node of 8 ports).
 * The recording rules' 1-2-5 subset from 10 µs is among them. The native buckets (above) carry the
 * fine resolution; these keep classic queries working at a fleet's series budget. Every bound is
 * written as a decimal literal, so it prints back as that decimal ("1e-06", "0.00015", ...) rather
 * than as a product's rounding error.
 */
#define HISTOGRAM_RTT_N_BOUNDS 17
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

/* Zeroes all counts (native ones too) and the sum; keeps the bounds. */
void histogram_reset(struct histogram *h);

/* Releases the counts; h itself is the caller's. NULL is a no-op. */
void histogram_free(struct histogram *h);

#endif
