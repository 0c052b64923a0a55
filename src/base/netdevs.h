/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The set of network devices bound to RDMA ports, shared between collectors:
 * the sysfs collector, which reads gid_attrs/ndevs anyway, publishes it at
 * every poll; the ethtool collector reads it, so that nothing scans twice.
 *
 * Each collector runs on a thread of its own, and one left behind by the
 * poller (a hung read) may still publish while a later poll's ethtool run
 * reads. So the set has two sides. names/n/cap are its owner's: the
 * publisher builds there with begin/add (a private set, such as ethtool's
 * own scan, is only ever that side). commit() copies them, under the set's
 * lock, into the published list, which other threads read only through
 * netdev_set_get_published(), a copy under the same lock.
 */
#ifndef RDMA_EXPORTER_NETDEVS_H
#define RDMA_EXPORTER_NETDEVS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct netdev_set {
	/* the owner's side: sorted, distinct, owned; no locking */
	char **names;
	size_t n, cap;
	bool published;		/* set at least once (the publisher runs) */
	uint64_t published_gen; /* poll number of the last publication */

	/* the published side, under lock: one block, pub_names[] then the strings */
	pthread_mutex_t lock;
	char **pub_names;
	size_t pub_n;
	bool pub_done; /* committed at least once */
};

/*
 * Makes the lock ready, for a set that is published to other threads. A
 * zero-filled set (= {0}) works too where, as with glibc and musl,
 * PTHREAD_MUTEX_INITIALIZER is all zero bits; the daemon calls this anyway.
 */
void netdev_set_init(struct netdev_set *s);
/* Empties the owner's side for a new publication (keeps published). */
void netdev_set_begin(struct netdev_set *s);
/* Adds a name to the owner's side (ignored when already there). 0 or -ENOMEM. */
int netdev_set_add(struct netdev_set *s, const char *name);
/*
 * Marks the set as published for poll gen and publishes a copy of the
 * owner's side for other threads. 0, or -ENOMEM: readers keep the previous
 * publication (the owner's side is committed all the same).
 */
int netdev_set_commit(struct netdev_set *s, uint64_t gen);
/*
 * From any thread: copies the last publication into out, a private set
 * (emptied first). 1 when there is one, 0 when nothing was committed yet
 * (out empty), -ENOMEM.
 */
int netdev_set_get_published(struct netdev_set *s, struct netdev_set *out);
/* On the owner's side. */
bool netdev_set_contains(const struct netdev_set *s, const char *name);
/* Whether the owner's sides of a and b hold the same names. */
bool netdev_set_equal(const struct netdev_set *a, const struct netdev_set *b);
/* Frees both sides; no thread may use the set any more. */
void netdev_set_free(struct netdev_set *s);

#endif
