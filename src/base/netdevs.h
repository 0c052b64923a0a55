/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The set of network devices bound to RDMA ports, shared between collectors:
 * the sysfs collector, which reads gid_attrs/ndevs anyway, publishes it at
 * every poll; the ethtool collector reads it, so that nothing scans twice.
 * Collectors run one after the other on the poller thread: no locking.
 */
#ifndef RDMA_EXPORTER_NETDEVS_H
#define RDMA_EXPORTER_NETDEVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct netdev_set {
	char **names; /* sorted, distinct, owned */
	size_t n, cap;
	bool published;		/* set at least once (the publisher runs) */
	uint64_t published_gen; /* poll number of the last publication */
};

/* Empties the set for a new publication (keeps published). */
void netdev_set_begin(struct netdev_set *s);
/* Adds a name (ignored when already there). 0 or -ENOMEM. */
int netdev_set_add(struct netdev_set *s, const char *name);
/* Marks the set as published for this poll. */
void netdev_set_commit(struct netdev_set *s, uint64_t gen);
bool netdev_set_contains(const struct netdev_set *s, const char *name);
void netdev_set_free(struct netdev_set *s);

#endif
