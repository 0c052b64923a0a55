/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The evaluator's checks of the hardware beyond the ports (check.c runs
 * them): PCIe links, transceiver modules, devlink health reporters. Each
 * reads one reading and appends its results to out; pure, as check.h says.
 * Each returns 0 or -ENOMEM.
 */
#ifndef RDMA_EXPORTER_CHECK_HW_H
#define RDMA_EXPORTER_CHECK_HW_H

#include "check/check_config.h"
#include "check/check_results.h"
#include "check/check_table.h"

/* Each device's PCIe link at its own maximum or at least what
 * --check.expect-pcie says; expected devices without one. */
int check_eval_pcie(const struct check_config *c, const struct check_table *t,
		    struct check_results *out);
/* Each transceiver's readings within the module's own alarm thresholds. */
int check_eval_modules(const struct check_table *t, struct check_results *out);
/* No devlink health reporter of an RDMA device in its error state. */
int check_eval_devlink(const struct check_table *t, struct check_results *out);

#endif
