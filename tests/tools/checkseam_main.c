// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_exporter_checkseam: rdma_exporter (the same objects) plus a definition
 * of check_test_hook() that runs the shell command in
 * RDMA_EXPORTER_TEST_BETWEEN between the two readings of `check`, so that
 * tests/e2e/check.sh can change a fixture file there (a counter rising, a
 * port going down) without racing a timer; and the command in
 * RDMA_EXPORTER_TEST_ONCE_WRITTEN once `once` has written its temporary file,
 * before the rename, so that tests/e2e/check-once.sh can send a SIGTERM
 * there; and the wall clock of the flaps check from RDMA_EXPORTER_TEST_NOW
 * (Unix seconds), so that tests/e2e/check.sh can run it past its hold time.
 * Built only with the tests; never installed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_main.h"

void check_test_hook(const char *stage)
{
	const char *cmd = NULL;

	if (strcmp(stage, "between") == 0)
		cmd = getenv("RDMA_EXPORTER_TEST_BETWEEN");
	else if (strcmp(stage, "once-written") == 0)
		cmd = getenv("RDMA_EXPORTER_TEST_ONCE_WRITTEN");
	if (!cmd)
		return;
	if (system(cmd) != 0)
		fprintf(stderr, "checkseam: \"%s\" failed\n", cmd);
}

uint64_t check_test_now(void)
{
	const char *v = getenv("RDMA_EXPORTER_TEST_NOW");

	return v ? strtoull(v, NULL, 10) : 0;
}

/* Only the check and once subcommands: the seams are theirs. */
int main(int argc, char *argv[])
{
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return check_main(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "once") == 0)
		return once_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: rdma_exporter_checkseam check|once [FLAGS]\n");
	return 2;
}
