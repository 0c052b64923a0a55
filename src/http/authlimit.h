/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How many bcrypt checks one client may cost: a token bucket per client
 * group (clientgroup.h: an IPv4 address, or an IPv6 /64) in a fixed table. Only checks that miss
 * the auth cache spend a token, and a check that succeeds gives it back: a scraper with the right
 * password never runs out, while one guessing passwords gets
 * AUTHLIMIT_BURST at once and then AUTHLIMIT_PER_S a second. Not thread
 * safe: the HTTP thread owns it.
 */
#ifndef RDMA_EXPORTER_AUTHLIMIT_H
#define RDMA_EXPORTER_AUTHLIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http/clientgroup.h"

#define AUTHLIMIT_SLOTS 256
#define AUTHLIMIT_BURST 10
#define AUTHLIMIT_PER_S 2

struct authlimit_entry {
	struct client_group key;
	bool used;
	uint64_t tokens_mt; /* milli-tokens */
	uint64_t at_ms;	    /* when tokens_mt was last brought up to date */
	bool granted;	    /* a right password came from it, last at granted_ms */
	uint64_t granted_ms;
};

struct authlimit {
	struct authlimit_entry slot[AUTHLIMIT_SLOTS];
	/*
	 * Tokens back a second: AUTHLIMIT_PER_S while 0 (a zeroed table), none
	 * while negative. Only tests change it (http_test_authlimit_per_s), so
	 * that what they see of the limit does not hang on how fast they run.
	 */
	int per_s;
};

/*
 * Spends one check for the client at addr at now_ms (monotonic). False
 * when it has none left: answer without a bcrypt. A full table evicts the
 * client idle longest (a full bucket again after AUTHLIMIT_BURST /
 * AUTHLIMIT_PER_S seconds, so evicting it loses nothing unless the table
 * is flooded from more than AUTHLIMIT_SLOTS addresses), but never one
 * granted within WEBAUTH_CACHE_TTL_MS while another is there to go: a
 * flood from many addresses does not make the server forget its scrapers
 * (the connections reserved for them, http_conn.c). Clients that are not
 * IP (a UNIX socket) are not limited.
 */
bool authlimit_take(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms);

/* Gives back the token of a check that succeeded (a full bucket stays full). */
void authlimit_refund(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms);

/*
 * Notes that the client at addr was granted access at now_ms: a right
 * password (cached or not) or, without basic auth, a /metrics served.
 */
void authlimit_granted(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms);

/* Whether the client at addr was granted access less than window_ms before now_ms. */
bool authlimit_recent(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms,
		      uint64_t window_ms);

#endif
