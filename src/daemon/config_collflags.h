/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The daemon's private part of the flag parser (config.c) that knows each
 * collector's own flags: --collector.C.F=V and --[no-]collector.C.F, looked
 * up in the collectors' tables, checked by kind and stored in the config.
 * Pure: errors as text, no I/O, no logging; any thread.
 */
#ifndef RDMA_EXPORTER_CONFIG_COLLFLAGS_H
#define RDMA_EXPORTER_CONFIG_COLLFLAGS_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/config_types.h"

/*
 * A flag's value taken from the next argument must not be the next flag:
 * "--collector.probe.targets-file --web.listen-address=:1" is a missing
 * value, not a file named "--web.listen-address=:1". A value that does
 * start with "--" can still be given as --FLAG=VALUE. 0, or -EINVAL with
 * the reason in err.
 */
int config_check_next_value(const char *flag, size_t nlen, const char *v, char *err, size_t errlen);

/*
 * --collector.C.F=V, name (after "--" and "no-") cut at nlen: 1 when it is a
 * flag of one of the n collectors (and applied to cfg), 0 when not, or
 * -EINVAL with the reason in err. v is the value after '=' (has_eq) or the
 * next argument (NULL: none); *used is set when v, the next argument, was
 * taken as the value.
 */
int config_apply_collector_flag(struct exporter_config *cfg,
				const struct config_collector *collectors, unsigned n,
				const char *name, size_t nlen, bool negated, bool has_eq,
				const char *v, bool *used, char *err, size_t errlen);

/* The collectors' flag tables within the limits of struct exporter_config:
 * 0, or -EINVAL with an "internal error" in err. */
int config_check_collector_table(const struct config_collector *collectors, unsigned n, char *err,
				 size_t errlen);

#endif
