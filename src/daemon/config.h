/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Command-line flags, Prometheus style (--web.listen-address=:9879 or
 * --web.listen-address :9879). Pure: argv in, struct out, errors as text.
 */
#ifndef RDMA_EXPORTER_CONFIG_H
#define RDMA_EXPORTER_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/config_types.h"

/*
 * Parses argv (argv[0] skipped). String fields point into argv. Returns 0,
 * or -EINVAL with a one-line reason in err.
 */
int config_parse(struct exporter_config *cfg, int argc, char *const argv[],
		 const struct config_collector *collectors, unsigned n_collectors, char *err,
		 size_t errlen);

/*
 * The default of --poll.collector-timeout for a --poll.interval: half of it,
 * at least 1s and at most 10s, and never more than 9/10 of the interval.
 */
uint64_t config_collector_timeout_ms(uint64_t poll_interval_ms);

/*
 * Whether addr (addr_len bytes: an in_addr or in6_addr, NULL when unknown)
 * is one of --poll.follow-address's; an IPv4 address matches its IPv4-mapped
 * IPv6 form either way.
 */
bool config_follow_address(const struct exporter_config *cfg, const void *addr, size_t addr_len);

#endif
