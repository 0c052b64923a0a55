// SPDX-License-Identifier: Apache-2.0
#include "http/tlslimit.h"

#include <stddef.h>

#define FULL_MT ((uint64_t)TLSLIMIT_BURST * 1000)

/* The group's entry, a new one (full) when it has none. */
static struct tlslimit_entry *entry(struct tlslimit *tl, const struct client_group *key,
				    uint64_t now_ms)
{
	struct tlslimit_entry *idlest = NULL;

	for (unsigned i = 0; i < TLSLIMIT_SLOTS; i++) {
		struct tlslimit_entry *s = &tl->slot[i];

		if (s->used && client_group_equal(&s->key, key))
			return s;
		if (!idlest || !s->used || (idlest->used && s->at_ms < idlest->at_ms))
			idlest = s;
		if (!idlest->used)
			break; /* slots are taken in order and never given back: none after it */
	}
	idlest->key = *key;
	idlest->used = true;
	idlest->tokens_mt = FULL_MT;
	idlest->at_ms = now_ms;
	return idlest;
}

bool tlslimit_take(struct tlslimit *tl, const struct sockaddr *addr, uint64_t now_ms)
{
	struct tlslimit_entry *e;
	struct client_group key;

	if (!client_group_of(addr, &key))
		return true;
	e = entry(tl, &key, now_ms);
	if (now_ms > e->at_ms) {
		uint64_t add = (now_ms - e->at_ms) * TLSLIMIT_PER_S;

		e->tokens_mt = e->tokens_mt + add > FULL_MT ? FULL_MT : e->tokens_mt + add;
	}
	e->at_ms = now_ms;
	if (e->tokens_mt < 1000)
		return false;
	e->tokens_mt -= 1000;
	return true;
}
