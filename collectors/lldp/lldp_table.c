// SPDX-License-Identifier: Apache-2.0
/* The bounded LLDP neighbour table of one netdev (lldp_table.h). */
#include "lldp_table.h"

void lldp_table_expire(struct lldp_table *t, double now)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].expires > now)
			t->e[k++] = t->e[i];
	t->n = k;
}

static size_t find(const struct lldp_table *t, const struct lldp_neighbor *n)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (lldp_same_msap(&t->e[i].n, n))
			break;
	return i;
}

/* The slot for a newcomer: a free one, else the newcomer heard least
 * recently, else (all established) t->n + 1 = none. Expired entries went
 * already (the caller expires before reading). */
static size_t slot_for_newcomer(struct lldp_table *t)
{
	size_t victim = t->n + 1;

	if (t->n < LLDP_MAX_NEIGHBORS)
		return t->n++;
	for (size_t i = 0; i < t->n; i++)
		if (!t->e[i].established &&
		    (victim > t->n || t->e[i].last_heard < t->e[victim].last_heard))
			victim = i;
	return victim;
}

int lldp_table_update(struct lldp_table *t, const struct lldp_neighbor *n, double now)
{
	size_t i;

	lldp_table_expire(t, now);
	i = find(t, n);
	if (n->ttl_s == 0) {
		if (i < t->n)
			t->e[i] = t->e[--t->n];
		return LLDP_TABLE_REMOVED;
	}
	if (i == t->n) {
		i = slot_for_newcomer(t);
		if (i >= t->n)
			return LLDP_TABLE_REFUSED;
		t->e[i].first_heard = now;
		t->e[i].established = 0;
	} else if (now - t->e[i].first_heard >= LLDP_ESTABLISHED_AFTER_S) {
		t->e[i].established = 1;
	}
	t->e[i].n = *n;
	t->e[i].last_heard = now;
	t->e[i].expires = now + n->ttl_s;
	return LLDP_TABLE_STORED;
}
