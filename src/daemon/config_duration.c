// SPDX-License-Identifier: Apache-2.0
/* Durations as flags give them: parsed, formatted back, checked against a range. */
#include "daemon/config_duration.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/chars.h"
#include "base/strparse.h"

/* Duration units, largest first: each at most once, in this order (Prometheus). */
static const struct {
	const char *unit;
	uint64_t ms;
} duration_units[] = {
	{"y", 365 * 86400000ULL},
	{"w", 7 * 86400000ULL},
	{"d", 86400000},
	{"h", 3600000},
	{"m", 60000},
	{"s", 1000},
	{"ms", 1},
};

#define N_DURATION_UNITS      (sizeof(duration_units) / sizeof(duration_units[0]))
#define DURATION_MAX_DECIMALS 9

/* The unit at *p ("ms" before "m": the longer one wins); its index, or -1. */
static int duration_unit_at(const char **p)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < N_DURATION_UNITS; i++) {
			size_t n = strlen(duration_units[i].unit);

			if (n == (pass ? 1u : 2u) && strncmp(*p, duration_units[i].unit, n) == 0) {
				*p += n;
				return (int)i;
			}
		}
	return -1;
}

/*
 * The decimals [digits, end) times unit_ms, in whole ms: 0, or -EINVAL when
 * there are none, too many, or they leave a fraction of a millisecond
 * ("1.5s" is 1500 ms, "1.0005s" is refused).
 */
static int duration_fraction(const char *digits, const char *end, uint64_t unit_ms, uint64_t *ms)
{
	uint64_t frac = 0, scale = 1;
	unsigned __int128 x;

	if (end == digits)
		return -EINVAL;
	while (end > digits && end[-1] == '0')
		end--;
	if (end - digits > DURATION_MAX_DECIMALS)
		return -EINVAL;
	for (const char *d = digits; d < end; d++) {
		frac = frac * 10 + (uint64_t)(*d - '0');
		scale *= 10;
	}
	x = (unsigned __int128)frac * unit_ms;
	if (x % scale)
		return -EINVAL;
	*ms = (uint64_t)(x / scale);
	return 0;
}

/*
 * One NUMBER[.DECIMALS]UNIT group at *p, whose unit must come after *last:
 * its ms added to *total, or *too_big set when it does not fit 64 bits.
 * 0 or -EINVAL.
 */
static int duration_group(const char **p, int *last, uint64_t *total, bool *too_big)
{
	const char *digits = *p, *frac = NULL, *frac_end;
	uint64_t n, part, frac_ms = 0;
	int u, r;

	*p = ascii_skip_digits(*p);
	r = parse_u64_dec(digits, (size_t)(*p - digits), &n);
	if (r == -EINVAL)
		return r;
	if (**p == '.')
		frac = *p + 1;
	frac_end = frac ? ascii_skip_digits(frac) : *p;
	*p = frac_end;
	u = duration_unit_at(p);
	if (u <= *last)
		return -EINVAL;
	*last = u;
	if (frac && duration_fraction(frac, frac_end, duration_units[u].ms, &frac_ms) < 0)
		return -EINVAL;
	if (r < 0 || __builtin_mul_overflow(n, duration_units[u].ms, &part) ||
	    __builtin_add_overflow(part, frac_ms, &part) ||
	    __builtin_add_overflow(*total, part, total))
		*too_big = true;
	return 0;
}

int config_parse_duration_ms(const char *s, uint64_t *ms)
{
	uint64_t total = 0;
	const char *p = s;
	bool too_big = false;
	int last = -1;

	if (!s || !*s)
		return -EINVAL;
	if (strcmp(s, "0") == 0) {
		*ms = 0;
		return 0;
	}
	/* A syntax error anywhere wins over a value too large. */
	while (*p)
		if (duration_group(&p, &last, &total, &too_big) < 0)
			return -EINVAL;
	if (too_big)
		return -ERANGE;
	*ms = total;
	return 0;
}

/* "100ms", "1s", "90s", "24h": ms in the largest unit (up to hours) that divides it. */
void config_format_duration_ms(uint64_t ms, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {{"h", 3600000}, {"m", 60000}, {"s", 1000}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ms && ms % units[i].ms == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ms / units[i].ms),
				 units[i].unit);
			return;
		}
	snprintf(buf, size, "%llums", (unsigned long long)ms);
}

/*
 * A duration flag's value within [min, max] ms: "not a duration" when it
 * does not parse, "out of range (MIN to MAX)" when it is outside, however
 * large (one that overflows 64 bits of milliseconds included). flag may be
 * cut at nlen (--collector.C.F=V names point into the argument).
 */
int config_parse_duration_flag(const char *flag, size_t nlen, const char *v, uint64_t min,
			       uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	char lo[32], hi[32];
	int r = config_parse_duration_ms(v, out);

	config_format_duration_ms(min, lo, sizeof(lo));
	config_format_duration_ms(max, hi, sizeof(hi));
	if (r == -EINVAL)
		return parse_fail(
			err, errlen,
			"--%.*s: \"%s\" is not a duration: write a number and a unit (ms, s, "
			"m, h, d, w, y), several from the largest unit down, decimals "
			"allowed: 500ms, 1.5s, 1m30s, 1h; from %s to %s",
			(int)nlen, flag, v, lo, hi);
	if (r < 0 || *out < min || *out > max)
		return parse_fail(err, errlen, "--%.*s: %s is out of range (%s to %s)", (int)nlen,
				  flag, v, lo, hi);
	return 0;
}
