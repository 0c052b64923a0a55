/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The results of `rdma_exporter check`: one status and reason per check and
 * object, appended in order by the checks, owned by the list (one caller at
 * a time; check_results_free() empties it).
 */
#ifndef RDMA_EXPORTER_CHECK_RESULTS_H
#define RDMA_EXPORTER_CHECK_RESULTS_H

#include <stddef.h>

/* Exit codes of node-problem-detector's custom plugins. */
enum check_status {
	CHECK_OK = 0,
	CHECK_FAIL = 1,
	CHECK_UNKNOWN = 2,
};

struct check_result {
	enum check_status status;
	const char *check; /* "ports", "counters", ... (static) */
	char object[128];  /* "mlx5_0/1", "eth2", "mlx5_0", "node" */
	char reason[320];
};

struct check_results {
	struct check_result *v;
	size_t n, cap;
};

void check_results_free(struct check_results *r);
/* Appends one result (object and reason cut to their arrays). 0 or -ENOMEM. */
int check_result_add(struct check_results *r, enum check_status st, const char *check,
		     const char *object, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
