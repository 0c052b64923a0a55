/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `rdma_exporter check` checks and with which limits (struct
 * check_config), filled by check_flags.c, read by the evaluator (check.h).
 * Plain data and its defaults; any thread.
 */
#ifndef RDMA_EXPORTER_CHECK_CONFIG_H
#define RDMA_EXPORTER_CHECK_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "check/check_expect.h"

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

#endif
