/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The --help text, wrapped at 80 columns: the core flags with their ranges,
 * then each collector and its own flags. Writes to the FILE it is given
 * only; any thread.
 */
#ifndef RDMA_EXPORTER_CONFIG_USAGE_H
#define RDMA_EXPORTER_CONFIG_USAGE_H

#include <stdio.h>

#include "daemon/config_types.h"

/* Writes --help text. */
void config_usage(FILE *out, const char *argv0, const struct config_collector *collectors,
		  unsigned n_collectors);

#endif
