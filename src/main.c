// SPDX-License-Identifier: Apache-2.0
/*
 * The program's entry: picks the subcommand and nothing else.
 *   rdma_exporter check ...             the node health check (check/check_main.h)
 *   rdma_exporter once ... / --once     one exposition to stdout or a file
 *   rdma_exporter [FLAGS]               the daemon (daemon/daemon.h)
 */
#include <string.h>

#include "check/check_main.h"
#include "daemon/daemon.h"

int main(int argc, char *argv[])
{
	if (argc > 1 && strcmp(argv[1], "check") == 0)
		return check_main(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "once") == 0)
		return once_main(argc - 1, argv + 1);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--once") == 0 || strncmp(argv[i], "--once.output", 13) == 0)
			return once_main(argc, argv);
	/* The daemon's --help ends with the subcommands' lines. */
	return daemon_main(argc, argv, check_main_usage_summary);
}
