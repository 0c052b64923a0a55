/* SPDX-License-Identifier: Apache-2.0 */
#ifndef RDMA_EXPORTER_DAEMON_H
#define RDMA_EXPORTER_DAEMON_H

/* The whole program; returns the exit status (0, 1 runtime error, 2 bad flags). */
int daemon_main(int argc, char *argv[]);

/*
 * Test seam, never defined in rdma_exporter: daemon_main calls it, when a
 * test binary links a definition, at the start of each shutdown stage
 * ("http_stop", "poller_stop", "release") and of each web config reload on
 * the reload thread ("web_reload") so that a test can make that stage hang
 * (tests/tools/hangtest_main.c).
 */
void daemon_test_hook(const char *stage);

#endif
