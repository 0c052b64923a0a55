/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the netlink parser tests: looking numbers up in an aggregate
 * (feeding a reply: nl_feed.h).
 * Include after <cmocka.h>.
 */
#ifndef RDMA_EXPORTER_TESTS_NL_AGG_QUERY_H
#define RDMA_EXPORTER_TESTS_NL_AGG_QUERY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netlink_parse.h"
#include "nl_feed.h"

static inline const struct nl_qp_bucket *find_qp(const struct nl_dev_agg *a, uint32_t port,
						 uint8_t type)
{
	for (size_t i = 0; i < a->n_qp; i++)
		if (a->qp[i].port == port && a->qp[i].type == type)
			return &a->qp[i];
	return NULL;
}

/* The count of one (port, type, state); the bucket must exist. */
static inline uint64_t qp_n(const struct nl_dev_agg *a, uint32_t port, uint8_t type, uint8_t state)
{
	const struct nl_qp_bucket *b = find_qp(a, port, type);

	if (!b) {
		fail_msg("no QP bucket port=%u type=%u", port, type);
		return UINT64_MAX;
	}
	return b->n[state];
}

static inline uint64_t qp_total(const struct nl_dev_agg *a)
{
	uint64_t n = 0;

	for (size_t i = 0; i < a->n_qp; i++)
		for (int s = 0; s < NL_QP_STATES; s++)
			n += a->qp[i].n[s];
	return n;
}

static inline const struct nl_cm_bucket *find_cm(const struct nl_dev_agg *a, uint32_t port,
						 uint32_t ps, uint8_t state)
{
	for (size_t i = 0; i < a->n_cm; i++)
		if (a->cm[i].port == port && a->cm[i].ps == ps && a->cm[i].state == state)
			return &a->cm[i];
	return NULL;
}

static inline uint64_t cm_n(const struct nl_dev_agg *a, uint32_t port, uint32_t ps, uint8_t state)
{
	const struct nl_cm_bucket *b = find_cm(a, port, ps, state);

	if (!b) {
		fail_msg("no CM bucket port=%u ps=%#x state=%u", port, ps, state);
		return UINT64_MAX;
	}
	return b->n;
}

static inline const struct nl_owner *find_owner(const struct nl_dev_agg *a, uint32_t pid,
						const char *kern)
{
	for (size_t i = 0; i < a->cap_owners; i++)
		if (a->owners[i].used && a->owners[i].pid == pid &&
		    strcmp(a->owners[i].kern, kern) == 0)
			return &a->owners[i];
	return NULL;
}

/* The owner; it must exist. */
static inline const struct nl_owner *owner(const struct nl_dev_agg *a, uint32_t pid,
					   const char *kern)
{
	static const struct nl_owner none;
	const struct nl_owner *o = find_owner(a, pid, kern);

	if (!o) {
		fail_msg("no owner pid=%u kern=%s", pid, kern);
		return &none;
	}
	return o;
}

static inline size_t owners_used(const struct nl_dev_agg *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->cap_owners; i++)
		n += a->owners[i].used;
	return n;
}

#endif
