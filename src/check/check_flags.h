/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flags of `rdma_exporter check` (--check.*, --no-check.*), taken out of
 * the command line before the rest goes to the exporter's own flag parser
 * (config.h). Pure: argv in, options out, errors as text.
 */
#ifndef RDMA_EXPORTER_CHECK_FLAGS_H
#define RDMA_EXPORTER_CHECK_FLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "check/check.h"

#define CHECK_DEFAULT_WINDOW_MS 5000
#define CHECK_MAX_WINDOW_MS	(10 * 60 * 1000)
/* --check.flap-hold: 10m like gpud; at most a week (CHECK_STATE_FORGET_S). */
#define CHECK_DEFAULT_FLAP_HOLD_MS (10 * 60 * 1000)
#define CHECK_MAX_FLAP_HOLD_MS	   (7ull * 24 * 3600 * 1000)

struct check_options {
	struct check_config cfg; /* window_s, thresholds, switches; expect is NULL */
	uint64_t window_ms;
	bool json;
	const char *expect;	 /* --check.expect=SPEC, into argv; NULL: not given */
	const char *expect_file; /* --check.expect-file=PATH, into argv */
	const char *expect_pcie; /* --check.expect-pcie=SPEC, into argv; NULL: not given */
	const char *state_file;	 /* --check.state-file=PATH, into argv; NULL: the default */
};

/*
 * Takes the --check.* flags out of argv[1..argc): they go to o, every other
 * argument (and the value after a flag that takes one) to rest, in order,
 * after rest[0] = argv[0]; *n_rest is set. rest must have room for argc
 * entries. Returns 0 or -EINVAL with a one-line reason in err.
 */
int check_flags_parse(struct check_options *o, int argc, char *const argv[], char **rest,
		      int *n_rest, char *err, size_t errlen);

/* The check flags' part of --help. */
void check_flags_usage(FILE *out);

#endif
