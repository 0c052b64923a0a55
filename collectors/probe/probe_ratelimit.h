/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-source rate limit of the probe responder and the discovery sideband:
 * a token bucket per source key (a GID + QPN for UD probes, an address for
 * UDP queries) in a fixed table, so a flood from any number of sources costs
 * bounded memory and bounded replies. Pure: time is the caller's (ns of
 * CLOCK_MONOTONIC), no I/O, no locking (one thread owns a limiter).
 *
 * Each source may send `burst` messages at once and `rate` a second after
 * that. The table holds `slots` sources (open addressing on a hash of the
 * key, a short probe sequence). A new source takes a free slot, or else the
 * slot of the idlest source seen in its probe sequence whose bucket has
 * refilled (forgetting it changes nothing: it would start full anyway). When
 * every slot in the sequence belongs to a source still spending tokens, the
 * new source shares one overflow bucket (same rate and burst) with all other
 * such sources: under a flood of many sources, new ones are limited together,
 * sources already known keep their own budget.
 */
#ifndef RDMA_EXPORTER_PROBE_RATELIMIT_H
#define RDMA_EXPORTER_PROBE_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_RL_KEY_MAX 20 /* bytes of a key: GID (16) + QPN (4) */

struct probe_rl_slot {
	uint8_t key[PROBE_RL_KEY_MAX];
	uint8_t key_len; /* 0: free */
	double tokens;
	uint64_t last_ns;
};

struct probe_ratelimit {
	struct probe_rl_slot *slots;
	size_t n_slots;
	double rate, burst;
	struct probe_rl_slot overflow;
	uint64_t overflowed; /* decisions taken on the shared overflow bucket */
};

/* slots >= 1, rate > 0 (messages a second), burst >= 1. Returns 0, -EINVAL
 * or -ENOMEM. */
int probe_ratelimit_init(struct probe_ratelimit *rl, size_t slots, double rate, double burst);
void probe_ratelimit_free(struct probe_ratelimit *rl);

/* Whether one more message from key (1..PROBE_RL_KEY_MAX bytes) may be
 * answered at now_ns; takes a token when it may. A longer key is cut to
 * PROBE_RL_KEY_MAX bytes. now_ns going backwards is treated as no time
 * passed. */
bool probe_ratelimit_allow(struct probe_ratelimit *rl, const void *key, size_t key_len,
			   uint64_t now_ns);

#endif
