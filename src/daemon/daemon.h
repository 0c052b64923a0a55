/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Room daemon (src/daemon/): the running exporter. Flags (config.h), the
 * collector registry (collectors.c), the poller thread and its schedule
 * (poller.h, pollsched.h), self metrics, sd_notify, and this: setup,
 * serving, shutdown, and the one-shot runs of the subcommands. Uses http,
 * the collectors' main headers, exposition and base; never check/ or main.c.
 */
#ifndef RDMA_EXPORTER_DAEMON_H
#define RDMA_EXPORTER_DAEMON_H

#include <stddef.h>
#include <stdio.h>

/*
 * The daemon; returns the exit status (0, 1 runtime error, 2 bad flags).
 * more_usage, when not NULL, writes what --help shows after the flags (the
 * subcommands, which live above the daemon: src/main.c passes them).
 */
int daemon_main(int argc, char *argv[], void (*more_usage)(FILE *out));

/*
 * Test seam, never defined in rdma_exporter: daemon_main calls it, when a
 * test binary links a definition, at the start of each shutdown stage
 * ("http_stop", "poller_stop", "release") and of each web config reload on
 * the reload thread ("web_reload") so that a test can make that stage hang
 * (tests/tools/hangtest_main.c).
 */
void daemon_test_hook(const char *stage);

/*
 * One-shot runs for the subcommands (check/check_main.c): the exporter's flags,
 * collectors and polls without the web server. After the first poll and
 * after each next one, reading() gets the rendering of that poll (n from 0);
 * it returns 1 for one more poll (it waits in between itself), 0 when done,
 * or -errno. Returns 2 on bad flags, 1 on a runtime error, else *status as
 * reading() left it.
 */
struct exporter_config;
struct daemon_oneshot {
	/* --help of the subcommand */
	void (*usage)(void *arg);
	/* After the flags are parsed, before the collectors start; may be NULL. */
	void (*configure)(void *arg, struct exporter_config *cfg);
	int (*reading)(void *arg, unsigned n, const char *text, size_t len);
	void *arg;
	int *status;
};
int daemon_oneshot(int argc, char *argv[], const struct daemon_oneshot *ops);

#endif
