/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The program's entry: `rdma_exporter check ...` (the node health check,
 * check.h), `rdma_exporter once ...` or `rdma_exporter --once ...` (one
 * exposition to stdout or a file), else the daemon (daemon.h).
 */
#ifndef RDMA_EXPORTER_CHECK_MAIN_H
#define RDMA_EXPORTER_CHECK_MAIN_H

#include <stdio.h>

int exporter_main(int argc, char *argv[]);
int check_main(int argc, char *argv[]);
int once_main(int argc, char *argv[]);

/* The subcommands' lines of the daemon's --help. */
void check_main_usage_summary(FILE *out);

/*
 * Test seam, never defined in rdma_exporter: check_main calls it, when a
 * test binary links a definition, between the two readings ("between"), so
 * that a test can change a fixture file there (tests/tools/checkseam_main.c).
 */
void check_test_hook(const char *stage);

#endif
