/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device include/exclude filter: POSIX extended regular expressions,
 * anchored at both ends, matched against RDMA device names (mlx5_0, rxe0).
 */
#ifndef RDMA_EXPORTER_DEVFILTER_H
#define RDMA_EXPORTER_DEVFILTER_H

#include <stdbool.h>
#include <stddef.h>

struct device_filter;

/*
 * include/exclude may be NULL (no restriction). Returns NULL on failure and
 * writes the reason into err.
 */
struct device_filter *device_filter_new(const char *include, const char *exclude, char *err,
					size_t errlen);
void device_filter_free(struct device_filter *f);
/* A NULL filter matches everything. */
bool device_filter_match(const struct device_filter *f, const char *name);

/* Why a name is dropped: the include pattern misses it, or the exclude one
 * matches it (include is checked first). For logs that name the flag. */
enum device_filter_verdict {
	DEVICE_FILTER_KEEP,
	DEVICE_FILTER_NOT_INCLUDED,
	DEVICE_FILTER_EXCLUDED,
};
enum device_filter_verdict device_filter_check(const struct device_filter *f, const char *name);

#define REGEX_MAX_LEN  1024
#define REGEX_MAX_REPS 32
/*
 * NULL, or why pattern may not be compiled: longer than REGEX_MAX_LEN, more
 * than REGEX_MAX_REPS repetition operators, or one stacked on another
 * ("a++", "a*{2}"), for which glibc's regcomp takes memory doubling with
 * each operator (nested groups, "((a+)+)+...", the same). Every regex flag is
 * checked with it before regcomp.
 */
const char *regex_cost_problem(const char *pattern);

#endif
