/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `rdma_exporter check`: a node health check for schedulers (Slurm's
 * HealthCheckProgram, node-problem-detector). The evaluator here is pure:
 * two readings (the samples of two polls a window apart, check_table.h) and
 * the check configuration in, one result per check and object out. The
 * subcommand that takes the readings is check_main.c; docs/check.md says
 * what each check reads.
 */
#ifndef RDMA_EXPORTER_CHECK_H
#define RDMA_EXPORTER_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "check/check_config.h"
#include "check/check_results.h"
#include "check/check_table.h"

/* Evaluates every enabled check on the two readings (r1 before r2). 0 or -ENOMEM. */
int check_evaluate(const struct check_config *c, const struct check_table *r1,
		   const struct check_table *r2, struct check_results *out);

/* FAIL if any failed, else UNKNOWN if any is unknown or there are none, else OK. */
enum check_status check_overall(const struct check_results *r);

/* The first line (under 80 characters, for node-problem-detector), then one
 * line per result. 0 or -ENOMEM. */
int check_render_text(const struct check_results *r, struct buf *out);
/* {"status":..,"summary":..,"checks":[{"status","check","object","reason"}]} */
int check_render_json(const struct check_results *r, struct buf *out);

#endif
