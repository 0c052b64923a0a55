// SPDX-License-Identifier: Apache-2.0
#include "histogram.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Decimal literals on purpose: 3e-06 is the double nearest 3 µs, 3 * 1e-06 is not. */
const double histogram_rtt_bounds[HISTOGRAM_RTT_N_BOUNDS] = {
	/* 1 .. 100 µs */
	1e-06, 2e-06, 3e-06, 4e-06, 5e-06, 6e-06, 7e-06, 8e-06, 10e-06, 12e-06, 15e-06, 20e-06,
	25e-06, 30e-06, 40e-06, 50e-06, 60e-06, 70e-06, 80e-06, 90e-06, 100e-06,
	/* 150 .. 750 µs */
	150e-06, 200e-06, 300e-06, 500e-06, 750e-06,
	/* 1 ms .. 1 s */
	1e-03, 2e-03, 5e-03, 10e-03, 20e-03, 50e-03, 100e-03, 200e-03, 500e-03, 1.0};

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
	if (!h->counts)
		return -ENOMEM;
	h->bounds = bounds;
	h->n_bounds = n_bounds;
	return 0;
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
	h->count++;
	h->sum += v;
	return 0;
}

void histogram_reset(struct histogram *h)
{
	if (h->counts)
		memset(h->counts, 0, (h->n_bounds + 1) * sizeof(*h->counts));
	h->count = 0;
	h->sum = 0;
}

void histogram_free(struct histogram *h)
{
	if (!h)
		return;
	free(h->counts);
	memset(h, 0, sizeof(*h));
}
