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
#include "check/check_expect.h"
#include "check/check_table.h"

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

/* A counter that must not rise more than max_increase within the window. */
struct check_counter {
	const char *name;   /* short name for flags and output: "symbol_errors" */
	const char *family; /* "rdma_port_symbol_errors_total" */
	double max_increase;
	bool on;
};

#define CHECK_N_COUNTERS 14

struct check_config {
	double window_s; /* between the readings; 0: counters and pauses not compared */
	bool ports;
	unsigned ports_min;		   /* at least this many ports; 0: any */
	const struct check_expect *expect; /* NULL: every port found is expected */
	double rate_min_gbps;		   /* 0: none */
	bool counters;
	struct check_counter counter[CHECK_N_COUNTERS];
	bool pfc;
	double pause_max_ratio;	   /* paused time / window, per priority and direction */
	double storm_max_increase; /* pause storm events */
	bool resources;
	double resource_max_ratio; /* in use / device limit */
	bool probe;
	bool peers;
	unsigned probe_max_lost; /* lost probes per port or peer before FAIL */
	/* PCIe links: each device's at its own maximum speed and width, or
	 * at least what expect_pcie says for it. */
	bool pcie;
	const struct check_expect_pcie *expect_pcie; /* NULL: the default rule only */
	/* Transceivers: every reading within the module's own alarm thresholds. */
	bool modules;
	/* Flaps since the last run (check_state.h), held FAIL this long. */
	bool flaps;
	uint64_t flap_hold_s;
	/* Devlink health reporters: none in its error state. */
	bool devlink;
};

/* The defaults documented in docs/check.md. */
void check_config_defaults(struct check_config *c);
/* The counter named name (short name), or NULL. */
struct check_counter *check_config_counter(struct check_config *c, const char *name);

/* Evaluates every enabled check on the two readings (r1 before r2). 0 or -ENOMEM. */
int check_evaluate(const struct check_config *c, const struct check_table *r1,
		   const struct check_table *r2, struct check_results *out);
void check_results_free(struct check_results *r);
/* Appends one result (object and reason cut to their arrays). 0 or -ENOMEM. */
int check_result_add(struct check_results *r, enum check_status st, const char *check,
		     const char *object, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* FAIL if any failed, else UNKNOWN if any is unknown or there are none, else OK. */
enum check_status check_overall(const struct check_results *r);

/* The first line (under 80 characters, for node-problem-detector), then one
 * line per result. 0 or -ENOMEM. */
int check_render_text(const struct check_results *r, struct buf *out);
/* {"status":..,"summary":..,"checks":[{"status","check","object","reason"}]} */
int check_render_json(const struct check_results *r, struct buf *out);

#endif
