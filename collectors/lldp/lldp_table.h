/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LLDP collector's bounded neighbour table of one netdev (issue 42):
 * pure (no I/O, no clock: the caller passes monotonic seconds), owned by
 * the collector's thread.
 *
 * A neighbour is keyed by its chassis ID and port ID, subtype and bytes as
 * sent (802.1AB's MSAP identifier), never by the printed labels. A frame
 * from a known neighbour refreshes it; a neighbour heard again at least
 * LLDP_ESTABLISHED_AFTER_S after it was first heard is established. When
 * the table is full, a newcomer takes the place of the newcomer (not yet
 * established) heard least recently; an established neighbour leaves only
 * when its TTL runs out or it sends TTL 0. So a flood of new IDs on the
 * segment (each heard once, or round-robin faster than they can settle)
 * churns among themselves and never evicts the switch that was heard
 * before the flood began; with the table full of established neighbours a
 * newcomer is refused.
 */
#ifndef RDMA_EXPORTER_LLDP_TABLE_H
#define RDMA_EXPORTER_LLDP_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "lldp_parse.h"

#define LLDP_MAX_NEIGHBORS	 8   /* neighbours kept per netdev */
#define LLDP_ESTABLISHED_AFTER_S 1.0 /* a second frame this much later: established */

struct lldp_entry {
	struct lldp_neighbor n;
	double expires;			/* monotonic seconds */
	double first_heard, last_heard; /* monotonic seconds */
	int established;
};

struct lldp_table {
	struct lldp_entry e[LLDP_MAX_NEIGHBORS];
	size_t n;
};

enum lldp_table_result {
	LLDP_TABLE_STORED = 0,	/* added or refreshed */
	LLDP_TABLE_REMOVED = 1, /* TTL 0: gone (or was not there) */
	LLDP_TABLE_REFUSED = 2, /* a newcomer, and every entry is established */
};

/* A frame from n arrived at now: one of enum lldp_table_result. */
int lldp_table_update(struct lldp_table *t, const struct lldp_neighbor *n, double now);

/* Forgets the neighbours whose TTL ran out by now. */
void lldp_table_expire(struct lldp_table *t, double now);

#endif
