// SPDX-License-Identifier: Apache-2.0
/*
 * rdma_exporter_checkseam: rdma_exporter (the same objects) plus a definition
 * of check_test_hook() that runs the shell command in
 * RDMA_EXPORTER_TEST_BETWEEN between the two readings of `check`, so that
 * tests/e2e/check.sh can change a fixture file there (a counter rising, a
 * port going down) without racing a timer. Built only with the tests; never
 * installed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check_main.h"

void check_test_hook(const char *stage)
{
	const char *cmd = getenv("RDMA_EXPORTER_TEST_BETWEEN");

	if (!cmd || strcmp(stage, "between") != 0)
		return;
	if (system(cmd) != 0)
		fprintf(stderr, "checkseam: \"%s\" failed\n", cmd);
}

/* Only the check subcommand: the seam is check_main's. */
int main(int argc, char *argv[])
{
	if (argc < 2 || strcmp(argv[1], "check") != 0) {
		fprintf(stderr, "usage: rdma_exporter_checkseam check [FLAGS]\n");
		return 2;
	}
	return check_main(argc - 1, argv + 1);
}
