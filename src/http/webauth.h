/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP basic authentication against the bcrypt hashes of a web
 * configuration (webconfig.h). bcrypt is slow on purpose (about 70 ms at
 * cost 10), so results are kept in a table of WEBAUTH_CACHE_SLOTS entries
 * keyed by an HMAC-SHA256 (key random per process) of user, hash and
 * password: a grant for WEBAUTH_CACHE_TTL_MS after its last use, a denial
 * for WEBAUTH_DENIAL_TTL_MS. A scrape that comes back within the TTL costs
 * no bcrypt, the table never grows, and no password is kept.
 * The caller runs the bcrypt where it likes (http_auth.c: on worker threads).
 */
#ifndef RDMA_EXPORTER_WEBAUTH_H
#define RDMA_EXPORTER_WEBAUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/webconfig.h"

#define WEBAUTH_CACHE_SLOTS 128
/*
 * A grant lives 15 minutes after its last use: well above any scrape
 * interval (Prometheus defaults to 1 minute, and intervals above 5 minutes
 * make staleness gaps, so nobody uses them), so a scraper pays one bcrypt
 * and never another. Longer does not weaken anything: the key holds the
 * user's hash, so a changed password or a removed user (after a reload)
 * matches no grant, and the table stays WEBAUTH_CACHE_SLOTS entries.
 */
#define WEBAUTH_CACHE_TTL_MS (15 * 60 * 1000)
/* A denial does not slide and needs no long life: it only spares a bcrypt
 * to a client that repeats a wrong password. */
#define WEBAUTH_DENIAL_TTL_MS 60000
#define WEBAUTH_REALM	      "rdma_exporter"

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
/* Forgets every cached result. */
void webauth_clear(struct webauth *wa);
/*
 * A new configuration wc (NULL: none) is in force: keeps the results of
 * the users it has with the same hash, so that a reload costs their
 * scrapers no bcrypt, and forgets the others (a changed password, a removed
 * user, an unknown one). Forgets everything when it cannot tell (out of
 * memory).
 */
void webauth_retain(struct webauth *wa, const struct webconfig *wc);

/*
 * One check, split so that the bcrypt can run on another thread: what it
 * needs is copied in (the configuration may be swapped meanwhile), the
 * password is wiped by webauth_job_wipe.
 */
struct webauth_job {
	uint8_t key[32];   /* the cache key */
	uint8_t owner[32]; /* the HMAC of user and hash alone */
	bool have_key;
	bool known;    /* the user exists */
	char hash[61]; /* the user's hash, else a dummy of the same cost */
	char pass[256];
};

/*
 * Fills job for user and pass against wc. An unknown user is checked
 * against a dummy hash with the highest cost among wc's users, so that it
 * takes as long as a wrong password (exactly so when all users share one
 * cost). -EINVAL when pass does not fit.
 */
int webauth_job_init(struct webauth *wa, const struct webconfig *wc, const char *user,
		     const char *pass, struct webauth_job *job);
void webauth_job_wipe(struct webauth_job *job);

enum webauth_verdict {
	WEBAUTH_DENIED,
	WEBAUTH_GRANTED,
	WEBAUTH_UNCACHED, /* needs webauth_job_run */
};

/*
 * The cached result of job, if any; fast (no bcrypt). now_ms is a monotonic
 * clock. A granted entry used again lives WEBAUTH_CACHE_TTL_MS from then on,
 * so a regular scraper never needs another bcrypt.
 */
enum webauth_verdict webauth_cached(struct webauth *wa, const struct webauth_job *job,
				    uint64_t now_ms);

/*
 * Runs the bcrypt of job and caches the result: a denial never takes the
 * slot of a granted entry, so a flood of wrong passwords cannot push the
 * right ones out. Thread safe; no lock is held during the bcrypt, so the
 * callers bound how many run at once.
 */
bool webauth_job_run(struct webauth *wa, const struct webauth_job *job, uint64_t now_ms);

/*
 * Both in one call: true when user and pass match one of wc's users.
 * *cached (may be NULL) tells whether bcrypt was skipped.
 */
bool webauth_check(struct webauth *wa, const struct webconfig *wc, const char *user,
		   const char *pass, uint64_t now_ms, bool *cached);

/* Pure: bcrypt of pass against hash with crypt(3), compared in constant time. */
bool webauth_bcrypt_matches(const char *hash, const char *pass);

#endif
