/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The subcommands' room: `rdma_exporter check ...` (the node health check:
 * check.h evaluates, check_main.c runs it) and `rdma_exporter once ...` or
 * `--once` (one exposition to stdout or a file, check_once.c). Both run the
 * daemon's collectors without its web server (daemon_oneshot()); src/main.c
 * picks them. Uses every room below: base, exposition, the daemon.
 */
#ifndef RDMA_EXPORTER_CHECK_MAIN_H
#define RDMA_EXPORTER_CHECK_MAIN_H

#include <stdint.h>
#include <stdio.h>

int check_main(int argc, char *argv[]);
int once_main(int argc, char *argv[]);

/*
 * PATH.tmp.XXXXXX in the same directory, written, synced, renamed over PATH
 * (once's --once.output, the flaps check's state file); a stop signal
 * meanwhile removes it. 0 or -errno; -EEXIST with *what set when PATH is
 * not a regular file or a new name (check_once.c).
 */
int check_write_atomic(const char *path, const char *text, size_t len, const char **what);

/* The subcommands' lines of the daemon's --help. */
void check_main_usage_summary(FILE *out);

/*
 * Test seam, never defined in rdma_exporter: check_main calls it, when a
 * test binary links a definition, between the two readings ("between"), so
 * that a test can change a fixture file there; check_once calls it once the
 * temporary file is written, before the rename ("once-written"), so that a
 * test can stop the process there (tests/tools/checkseam_main.c).
 */
void check_test_hook(const char *stage);

/*
 * Test seam, never defined in rdma_exporter: the wall clock (Unix seconds)
 * the flaps check uses, when a test binary links a definition that returns
 * other than 0, so that a test can run the check past its hold time.
 */
uint64_t check_test_now(void);

#endif
