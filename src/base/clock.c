// SPDX-License-Identifier: Apache-2.0
#include "base/clock.h"

#include <time.h>

uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t clock_mono_ms(void)
{
	return clock_mono_ns() / 1000000u;
}

double clock_mono_s(void)
{
	return (double)clock_mono_ns() / 1e9;
}

double clock_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
