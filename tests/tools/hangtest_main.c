// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_exporter_hangtest: the daemon of rdma_exporter (the same objects)
 * plus a definition of daemon_test_hook() that hangs the shutdown stage
 * named by RDMA_EXPORTER_TEST_HANG ("http_stop", "poller_stop", "release"),
 * so that tests/e2e/shutdown-watchdog.sh can check that the shutdown
 * watchdog ends the process anyway, or the web config reload
 * ("web_reload"), so that tests/e2e/reload-limits.sh can check that SIGTERM
 * is still taken while a reload hangs. And the refill rate of the
 * per-client limit of failed logins from RDMA_EXPORTER_TEST_AUTHLIMIT_PER_S
 * (tokens a second, negative: none), so that tests/e2e/bruteforce.sh counts
 * its 429s however slowly the machine runs. Built only with the tests;
 * never installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon.h"
#include "http/http.h"

int http_test_authlimit_per_s(void)
{
	const char *v = getenv("RDMA_EXPORTER_TEST_AUTHLIMIT_PER_S");

	return v ? atoi(v) : 0;
}

void daemon_test_hook(const char *stage)
{
	const char *hang = getenv("RDMA_EXPORTER_TEST_HANG");

	if (!hang || strcmp(hang, stage) != 0)
		return;
	/* The test looks for this line: the hang was reached, not skipped. */
	fprintf(stderr, "hangtest: hanging at stage %s\n", stage);
	fflush(stderr);
	/* Stop signals stay blocked in this thread (daemon.c): only the
	 * watchdog's _exit(), or the process exit, ends this. */
	for (;;)
		pause();
}

int main(int argc, char *argv[])
{
	return daemon_main(argc, argv, NULL);
}
