// SPDX-License-Identifier: Apache-2.0
#include "check_main.h"

int main(int argc, char *argv[])
{
	return exporter_main(argc, argv);
}
