/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Durations as the flags take them ("500ms", "1m30s"): parsed, formatted
 * back for --help and error messages, and checked against a flag's range.
 * Pure: no I/O, no globals, no logging; any thread.
 */
#ifndef RDMA_EXPORTER_CONFIG_DURATION_H
#define RDMA_EXPORTER_CONFIG_DURATION_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parses a Prometheus-style duration: one or more NUMBER UNIT groups, units
 * y (365d), w, d, h, m, s, ms, each at most once and largest first ("500ms",
 * "1m30s", "1h30m"), or "0". Beyond Prometheus, a group may have decimals
 * ("1.5s", "0.5h") as long as the total is a whole number of milliseconds.
 * Returns 0, -EINVAL (not a duration) or -ERANGE (over 64 bits of ms).
 */
int config_parse_duration_ms(const char *s, uint64_t *ms);

/* "100ms", "1s", "90s", "24h": ms in the largest unit (up to hours) that
 * divides it, written into buf (size bytes). */
void config_format_duration_ms(uint64_t ms, char *buf, size_t size);

/*
 * A duration flag's value within [min, max] ms: "not a duration" when it
 * does not parse, "out of range (MIN to MAX)" when it is outside, however
 * large (one that overflows 64 bits of milliseconds included). flag may be
 * cut at nlen (--collector.C.F=V names point into the argument). 0, or
 * -EINVAL with the reason in err.
 */
int config_parse_duration_flag(const char *flag, size_t nlen, const char *v, uint64_t min,
			       uint64_t max, uint64_t *out, char *err, size_t errlen);

#endif
