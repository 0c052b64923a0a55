// SPDX-License-Identifier: Apache-2.0
#include "http/authlimit.h"

#include <netinet/in.h>
#include <string.h>

#define FULL_MT ((uint64_t)AUTHLIMIT_BURST * 1000)
#define KEY_LEN 17

/* The client's key; false when it is not an IP client. */
static bool client_key(const struct sockaddr *addr, uint8_t key[17])
{
	memset(key, 0, 17);
	key[0] = (uint8_t)addr->sa_family;
	if (addr->sa_family == AF_INET) {
		memcpy(key + 1, &((const struct sockaddr_in *)addr)->sin_addr, 4);
		return true;
	}
	if (addr->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;

		/* an IPv4-mapped address is that IPv4 client */
		if (IN6_IS_ADDR_V4MAPPED(a)) {
			key[0] = AF_INET;
			memcpy(key + 1, a->s6_addr + 12, 4);
		} else {
			memcpy(key + 1, a->s6_addr, 8); /* the /64 */
		}
		return true;
	}
	return false;
}

static void refill(struct authlimit_entry *e, uint64_t now_ms)
{
	if (now_ms > e->at_ms) {
		uint64_t add = (now_ms - e->at_ms) * AUTHLIMIT_PER_S;

		e->tokens_mt = e->tokens_mt + add > FULL_MT ? FULL_MT : e->tokens_mt + add;
	}
	e->at_ms = now_ms;
}

/* The client's entry; a new one (full) when create, else NULL when absent. */
static struct authlimit_entry *entry(struct authlimit *al, const uint8_t key[17], uint64_t now_ms,
				     bool create)
{
	struct authlimit_entry *e = NULL, *oldest = NULL;

	for (unsigned i = 0; i < AUTHLIMIT_SLOTS && !e; i++) {
		struct authlimit_entry *s = &al->slot[i];

		if (s->used && memcmp(s->key, key, KEY_LEN) == 0)
			e = s;
		else if (!oldest || !s->used || (oldest->used && s->at_ms < oldest->at_ms))
			oldest = s;
	}
	if (!e && create) {
		e = oldest;
		memcpy(e->key, key, KEY_LEN);
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
	uint8_t key[17];

	if (!client_key(addr, key))
		return true;
	e = entry(al, key, now_ms, true);
	refill(e, now_ms);
	if (e->tokens_mt < 1000)
		return false;
	e->tokens_mt -= 1000;
	return true;
}

void authlimit_refund(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms)
{
	struct authlimit_entry *e;
	uint8_t key[17];

	if (!client_key(addr, key))
		return;
	e = entry(al, key, now_ms, false);
	if (!e)
		return;
	refill(e, now_ms);
	e->tokens_mt = e->tokens_mt + 1000 > FULL_MT ? FULL_MT : e->tokens_mt + 1000;
}

void authlimit_granted(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms)
{
	struct authlimit_entry *e;
	uint8_t key[17];

	if (!client_key(addr, key))
		return;
	e = entry(al, key, now_ms, true);
	refill(e, now_ms);
	e->granted = true;
	e->granted_ms = now_ms;
}

bool authlimit_recent(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms,
		      uint64_t window_ms)
{
	struct authlimit_entry *e;
	uint8_t key[17];

	if (!client_key(addr, key))
		return false;
	e = entry(al, key, now_ms, false);
	return e && e->granted && now_ms - e->granted_ms < window_ms;
}
