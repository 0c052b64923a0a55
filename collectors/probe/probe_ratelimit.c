// SPDX-License-Identifier: Apache-2.0
#include "probe_ratelimit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slots looked at for one key, from its hash on (linear probing). Short, so
 * that a flood of new sources costs a bounded scan per message. */
#define PROBE_RL_SEQ 8

#define NS_PER_SEC 1e9

int probe_ratelimit_init(struct probe_ratelimit *rl, size_t slots, double rate, double burst)
{
	if (!rl)
		return -EINVAL;
	memset(rl, 0, sizeof(*rl));
	/* Written so that NaN fails too; an infinite rate or burst would make
	 * the refill arithmetic NaN (inf * 0). */
	if (slots < 1 || !(rate > 0) || !(burst >= 1) || isinf(rate) || isinf(burst))
		return -EINVAL;
	rl->slots = calloc(slots, sizeof(*rl->slots));
	if (!rl->slots)
		return -ENOMEM;
	rl->n_slots = slots;
	rl->rate = rate;
	rl->burst = burst;
	/* Starts full, like every new source's bucket; last_ns 0 is "long ago". */
	rl->overflow.tokens = burst;
	return 0;
}

void probe_ratelimit_free(struct probe_ratelimit *rl)
{
	if (!rl)
		return;
	free(rl->slots);
	rl->slots = NULL;
	rl->n_slots = 0;
}

/* FNV-1a, 64 bits: short keys, no adversary gains much from collisions
 * (they only make colliding sources share the overflow bucket sooner). */
static uint64_t hash_key(const uint8_t *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= key[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* Tokens the bucket holds at now_ns; time going backwards adds nothing. */
static double refilled(const struct probe_ratelimit *rl, const struct probe_rl_slot *s,
		       uint64_t now_ns)
{
	double t = s->tokens;

	if (now_ns > s->last_ns)
		t += (double)(now_ns - s->last_ns) * rl->rate / NS_PER_SEC;
	return t < rl->burst ? t : rl->burst;
}

static bool take(const struct probe_ratelimit *rl, struct probe_rl_slot *s, uint64_t now_ns)
{
	s->tokens = refilled(rl, s, now_ns);
	/* Never moved back: the time between the later and the earlier clock
	 * reading is not counted twice. */
	if (now_ns > s->last_ns)
		s->last_ns = now_ns;
	if (s->tokens < 1)
		return false;
	s->tokens -= 1;
	return true;
}

static bool same_key(const struct probe_rl_slot *s, const uint8_t *key, size_t len)
{
	return s->key_len == len && !memcmp(s->key, key, len);
}

/*
 * The slot of key: its own, else the first free one of its sequence, else
 * the idlest refilled one; NULL when all in the sequence are busy. A slot is
 * never freed once taken, only handed over, so a free slot ends the search:
 * the key was never placed past it.
 */
static struct probe_rl_slot *find_slot(struct probe_ratelimit *rl, const uint8_t *key, size_t len,
				       uint64_t now_ns)
{
	size_t start = (size_t)(hash_key(key, len) % rl->n_slots);
	size_t n = rl->n_slots < PROBE_RL_SEQ ? rl->n_slots : PROBE_RL_SEQ;
	struct probe_rl_slot *free_slot = NULL, *idle = NULL, *s;

	for (size_t i = 0; i < n; i++) {
		s = &rl->slots[(start + i) % rl->n_slots];
		if (same_key(s, key, len))
			return s;
		if (!s->key_len) {
			free_slot = s;
			break;
		}
		if (refilled(rl, s, now_ns) >= rl->burst && (!idle || s->last_ns < idle->last_ns))
			idle = s;
	}
	s = free_slot ? free_slot : idle;
	if (!s)
		return NULL;
	/* A new source: starts full, as the one it replaces would be. */
	memcpy(s->key, key, len);
	s->key_len = (uint8_t)len;
	s->tokens = rl->burst;
	s->last_ns = now_ns;
	return s;
}

bool probe_ratelimit_allow(struct probe_ratelimit *rl, const void *key, size_t key_len,
			   uint64_t now_ns)
{
	struct probe_rl_slot *s;

	/* No key, no answer: a caller bug must not open the gate. */
	if (!rl || !rl->slots || !key || !key_len)
		return false;
	if (key_len > PROBE_RL_KEY_MAX)
		key_len = PROBE_RL_KEY_MAX;
	s = find_slot(rl, key, key_len, now_ns);
	if (!s) {
		rl->overflowed++;
		s = &rl->overflow;
	}
	return take(rl, s, now_ns);
}
