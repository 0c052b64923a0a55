// SPDX-License-Identifier: Apache-2.0
#include "exposition/histogram.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decimal literals on purpose: 3e-06 is the double nearest 3 µs, 3 * 1e-06 is not. */
const double histogram_rtt_bounds[HISTOGRAM_RTT_N_BOUNDS] = {
	/* in a rack */
	1e-06, 2e-06, 3e-06, 5e-06,
	/* across a fabric */
	10e-06, 20e-06, 30e-06, 50e-06, 100e-06,
	/* congestion, ms tails */
	200e-06, 500e-06, 1e-03, 2e-03, 5e-03, 10e-03, 100e-03, 1.0};

/*
 * frexp() mantissas in [0.5, 1) of the schema-3 bucket boundaries 2^(k/8) / 2,
 * k = 0..7: the nearest doubles, as in Prometheus's Go client.
 */
static const double native_frac_bounds[8] = {
	0.5,
	0.5452538663326288,
	0.5946035575013605,
	0.6484197773255048,
	0.7071067811865476,
	0.7711054127039704,
	0.8408964152537145,
	0.9170040432046712,
};

int histogram_native_index(double v)
{
	int exp, k = 0;
	double frac = frexp(v, &exp);

	/* first boundary >= frac; 8 (the next power of two) when none */
	while (k < 8 && native_frac_bounds[k] < frac)
		k++;
	return k + (exp - 1) * 8;
}

bool histogram_bounds_valid(const double *bounds, size_t n_bounds)
{
	for (size_t i = 0; i < n_bounds; i++) {
		if (!isfinite(bounds[i]))
			return false;
		if (i && !(bounds[i - 1] < bounds[i]))
			return false;
	}
	return true;
}

int histogram_init(struct histogram *h, const double *bounds, size_t n_bounds)
{
	memset(h, 0, sizeof(*h));
	if (n_bounds && !bounds)
		return -EINVAL;
	if (!histogram_bounds_valid(bounds, n_bounds))
		return -EINVAL;
	h->counts = calloc(n_bounds + 1, sizeof(*h->counts));
	h->native = calloc(HISTOGRAM_NATIVE_N_BUCKETS, sizeof(*h->native));
	if (!h->counts || !h->native) {
		free(h->counts);
		free(h->native);
		memset(h, 0, sizeof(*h));
		return -ENOMEM;
	}
	h->bounds = bounds;
	h->n_bounds = n_bounds;
	return 0;
}

static void observe_native(struct histogram *h, double v)
{
	int i;

	if (v <= HISTOGRAM_NATIVE_ZERO_THRESHOLD) {
		h->zero_count++;
		return;
	}
	i = histogram_native_index(v);
	if (i > HISTOGRAM_NATIVE_MAX_INDEX)
		i = HISTOGRAM_NATIVE_MAX_INDEX;
	h->native[i - HISTOGRAM_NATIVE_MIN_INDEX]++;
}

int histogram_observe(struct histogram *h, double v)
{
	size_t lo = 0, hi = h->n_bounds;

	if (!isfinite(v) || v < 0)
		return -EINVAL;
	/* first bound >= v; n_bounds (the +Inf bucket) when there is none */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->bounds[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	h->counts[lo]++;
	observe_native(h, v);
	h->count++;
	h->sum += v;
	return 0;
}

void histogram_reset(struct histogram *h)
{
	if (h->counts)
		memset(h->counts, 0, (h->n_bounds + 1) * sizeof(*h->counts));
	if (h->native)
		memset(h->native, 0, HISTOGRAM_NATIVE_N_BUCKETS * sizeof(*h->native));
	h->zero_count = 0;
	h->count = 0;
	h->sum = 0;
}

void histogram_free(struct histogram *h)
{
	if (!h)
		return;
	free(h->counts);
	free(h->native);
	memset(h, 0, sizeof(*h));
}
