// SPDX-License-Identifier: Apache-2.0
#include "daemon.h"

int main(int argc, char *argv[])
{
	return daemon_main(argc, argv);
}
