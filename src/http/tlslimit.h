/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How many TLS handshakes one client group (clientgroup.h) may cost the
 * HTTP thread: a token bucket per group in a fixed table, taken at accept,
 * before the handshake runs. A group gets TLSLIMIT_BURST connections at
 * once, then TLSLIMIT_PER_S a second. Prometheus needs one handshake per
 * scrape at most (none on a kept-alive connection), so only floods and
 * scripts meet the limit; the caller exempts clients that authenticated
 * recently. Not thread safe: the HTTP thread owns it.
 */
#ifndef RDMA_EXPORTER_TLSLIMIT_H
#define RDMA_EXPORTER_TLSLIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http/clientgroup.h"

#define TLSLIMIT_SLOTS 256
#define TLSLIMIT_BURST 16
#define TLSLIMIT_PER_S 4

struct tlslimit_entry {
	struct client_group key;
	bool used;
	uint64_t tokens_mt; /* milli-tokens */
	uint64_t at_ms;	    /* when tokens_mt was last brought up to date */
};

struct tlslimit {
	struct tlslimit_entry slot[TLSLIMIT_SLOTS];
};

/*
 * Spends one handshake for the client at addr at now_ms (monotonic); false
 * when its group has none left: refuse the connection. A full table
 * evicts the group idle longest (it starts full again, as it would be
 * after TLSLIMIT_BURST / TLSLIMIT_PER_S idle seconds: only a flood from
 * more than TLSLIMIT_SLOTS groups at once gets more). Clients that are not
 * IP are not limited.
 */
bool tlslimit_take(struct tlslimit *tl, const struct sockaddr *addr, uint64_t now_ms);

#endif
