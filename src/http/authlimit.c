// SPDX-License-Identifier: Apache-2.0
#include "http/authlimit.h"

#include <string.h>

#include "http/webauth.h"

#define FULL_MT ((uint64_t)AUTHLIMIT_BURST * 1000)

static uint64_t per_s(const struct authlimit *al)
{
	if (al->per_s < 0)
		return 0;
	return al->per_s ? (uint64_t)al->per_s : AUTHLIMIT_PER_S;
}

static void refill(const struct authlimit *al, struct authlimit_entry *e, uint64_t now_ms)
{
	if (now_ms > e->at_ms) {
		uint64_t add = (now_ms - e->at_ms) * per_s(al);

		e->tokens_mt = e->tokens_mt + add > FULL_MT ? FULL_MT : e->tokens_mt + add;
	}
	e->at_ms = now_ms;
}

/* Granted within the window of the auth cache: kept while others can go. */
static bool keep(const struct authlimit_entry *e, uint64_t now_ms)
{
	return e->granted && now_ms - e->granted_ms < WEBAUTH_CACHE_TTL_MS;
}

/* Which of two used entries should rather go: not kept first, then the idlest. */
static bool rather_evict(const struct authlimit_entry *s, const struct authlimit_entry *than,
			 uint64_t now_ms)
{
	if (keep(s, now_ms) != keep(than, now_ms))
		return !keep(s, now_ms);
	return s->at_ms < than->at_ms;
}

/* The client's entry; a new one (full) when create, else NULL when absent. */
static struct authlimit_entry *entry(struct authlimit *al, const struct client_group *key,
				     uint64_t now_ms, bool create)
{
	struct authlimit_entry *e = NULL, *victim = NULL;

	for (unsigned i = 0; i < AUTHLIMIT_SLOTS && !e; i++) {
		struct authlimit_entry *s = &al->slot[i];

		if (s->used && client_group_equal(&s->key, key))
			e = s;
		else if (!victim || !s->used || (victim->used && rather_evict(s, victim, now_ms)))
			victim = s;
	}
	if (!e && create) {
		e = victim;
		e->key = *key;
		e->used = true;
		e->tokens_mt = FULL_MT;
		e->at_ms = now_ms;
		e->granted = false;
	}
	return e;
}

bool authlimit_take(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms)
{
	struct authlimit_entry *e;
	struct client_group key;

	if (!client_group_of(addr, &key))
		return true;
	e = entry(al, &key, now_ms, true);
	refill(al, e, now_ms);
	if (e->tokens_mt < 1000)
		return false;
	e->tokens_mt -= 1000;
	return true;
}

void authlimit_refund(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms)
{
	struct authlimit_entry *e;
	struct client_group key;

	if (!client_group_of(addr, &key))
		return;
	e = entry(al, &key, now_ms, false);
	if (!e)
		return;
	refill(al, e, now_ms);
	e->tokens_mt = e->tokens_mt + 1000 > FULL_MT ? FULL_MT : e->tokens_mt + 1000;
}

void authlimit_granted(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms)
{
	struct authlimit_entry *e;
	struct client_group key;

	if (!client_group_of(addr, &key))
		return;
	e = entry(al, &key, now_ms, true);
	refill(al, e, now_ms);
	e->granted = true;
	e->granted_ms = now_ms;
}

bool authlimit_recent(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms,
		      uint64_t window_ms)
{
	struct authlimit_entry *e;
	struct client_group key;

	if (!client_group_of(addr, &key))
		return false;
	e = entry(al, &key, now_ms, false);
	return e && e->granted && now_ms - e->granted_ms < window_ms;
}
