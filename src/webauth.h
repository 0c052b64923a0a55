/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP basic authentication against the bcrypt hashes of a web
 * configuration (webconfig.h). bcrypt is slow on purpose (about 70 ms at
 * cost 10), so results, good and bad, are kept for WEBAUTH_CACHE_TTL_MS in a
 * table of WEBAUTH_CACHE_SLOTS entries keyed by an HMAC-SHA256 (key random
 * per process) of user, hash and password: a scrape costs one bcrypt a
 * minute, the table never grows, and no password is kept.
 */
#ifndef RDMA_EXPORTER_WEBAUTH_H
#define RDMA_EXPORTER_WEBAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "webconfig.h"

#define WEBAUTH_CACHE_SLOTS  128
#define WEBAUTH_CACHE_TTL_MS 60000
#define WEBAUTH_REALM	     "rdma_exporter"

/*
 * Pure: splits an Authorization header value "Basic <base64(user:pass)>"
 * (scheme case-insensitive) into user and pass, NUL-terminated. Returns 0,
 * or -EINVAL when it is not basic auth, not base64, has no ':' or does not
 * fit (user and pass are cleared then).
 */
int webauth_parse_basic(const char *header, char *user, size_t userlen, char *pass, size_t passlen);

struct webauth;

/* NULL when out of memory or without a random key. */
struct webauth *webauth_new(void);
void webauth_free(struct webauth *wa);
/* Forgets every cached result (a new configuration is in force). */
void webauth_clear(struct webauth *wa);

/*
 * True when user and pass match one of wc's users. Thread safe. now_ms is
 * a monotonic clock; *cached (may be NULL) tells whether bcrypt was skipped.
 */
bool webauth_check(struct webauth *wa, const struct webconfig *wc, const char *user,
		   const char *pass, uint64_t now_ms, bool *cached);

/* Pure: bcrypt of pass against hash with crypt(3), compared in constant time. */
bool webauth_bcrypt_matches(const char *hash, const char *pass);

#endif
