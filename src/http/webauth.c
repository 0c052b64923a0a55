// SPDX-License-Identifier: Apache-2.0
#include "http/webauth.h"

#include <crypt.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "base/chars.h"

/*
 * Checked for a user that does not exist, so that a wrong name takes as
 * long as a wrong password: the hash of a random string, its cost ("NN")
 * replaced by the highest cost among the configured users (crypt(3) spends
 * the cost the hash names; htpasswd -B writes cost 5, the toolkit's docs
 * 10, so no fixed cost fits).
 */
#define DUMMY_HASH "$2y$NN$I2fjOV3.j25l2ULunTTauOugKNA4xNVGHe9fRFWztxCfECOz4EJBe"

struct cache_entry {
	uint8_t key[32];
	uint8_t owner[32]; /* whose: the HMAC of user and hash (webauth_retain) */
	bool used, ok;
	uint64_t expires_ms;
};

struct webauth {
	pthread_mutex_t lock;
	uint8_t secret[32];
	struct cache_entry cache[WEBAUTH_CACHE_SLOTS];
};

/* The most bytes a basic auth token may decode to: user, ':' and password. */
#define BASIC_MAX 1024

/*
 * Decodes the standard base64 token [in, in+inlen), padding optional, with
 * GnuTLS into *out (gnutls_free() it, wiped first); 0 or -EINVAL. GnuTLS's
 * decoder reads PEM: it skips blanks, stops at a '-' and wants the padding.
 * So the token must be the alphabet alone, then any '=' (dropped and written
 * again as GnuTLS wants), with no lone last character (6 bits, no byte).
 */
static int b64_decode(const char *in, size_t inlen, gnutls_datum_t *out)
{
	char padded[(BASIC_MAX + 2) / 3 * 4];
	size_t n;
	int r;

	while (inlen && in[inlen - 1] == '=')
		inlen--;
	n = (inlen + 3) / 4 * 4;
	if (inlen % 4 == 1 || n > sizeof(padded))
		return -EINVAL;
	for (size_t i = 0; i < inlen; i++)
		if (!ascii_is_alnum(in[i]) && in[i] != '+' && in[i] != '/')
			return -EINVAL;
	memcpy(padded, in, inlen);
	memset(padded + inlen, '=', n - inlen);
	r = gnutls_base64_decode2(&(gnutls_datum_t){(unsigned char *)padded, (unsigned)n}, out);
	explicit_bzero(padded, n);
	if (r < 0)
		return -EINVAL;
	if (out->size <= BASIC_MAX)
		return 0;
	explicit_bzero(out->data, out->size);
	gnutls_free(out->data);
	return -EINVAL;
}

int webauth_parse_basic(const char *header, char *user, size_t userlen, char *pass, size_t passlen)
{
	gnutls_datum_t d;
	const char *p, *end, *colon, *decoded;
	size_t n, ul, pl;
	int r = -EINVAL;

	if (userlen)
		user[0] = '\0';
	if (passlen)
		pass[0] = '\0';
	if (!header || strncasecmp(header, "Basic", 5) != 0 || !ascii_is_blank(header[5]))
		return -EINVAL;
	p = header + 5;
	while (ascii_is_blank(*p))
		p++;
	end = p + strlen(p);
	while (end > p && ascii_is_blank(end[-1]))
		end--;
	if (b64_decode(p, (size_t)(end - p), &d) < 0)
		return -EINVAL;
	decoded = (const char *)d.data;
	n = d.size;
	colon = memchr(decoded, ':', n);
	if (!colon)
		goto out;
	ul = (size_t)(colon - decoded);
	pl = n - ul - 1;
	if (ul >= userlen || pl >= passlen || memchr(decoded, '\0', n))
		goto out;
	memcpy(user, decoded, ul);
	user[ul] = '\0';
	memcpy(pass, colon + 1, pl);
	pass[pl] = '\0';
	r = 0;
out:
	explicit_bzero(d.data, d.size);
	gnutls_free(d.data);
	return r;
}

bool webauth_bcrypt_matches(const char *hash, const char *pass)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	size_t len = strlen(hash);
	unsigned char diff = 0;
	bool ok = false;

	if (!cd)
		return false;
	out = crypt_rn(pass, hash, cd, sizeof(*cd));
	/* crypt_rn fails with NULL or a string starting with '*' */
	if (out && out[0] != '*' && strlen(out) == len) {
		for (size_t i = 0; i < len; i++)
			diff |= (unsigned char)(out[i] ^ hash[i]);
		ok = diff == 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

struct webauth *webauth_new(void)
{
	struct webauth *wa = calloc(1, sizeof(*wa));

	if (!wa)
		return NULL;
	if (getrandom(wa->secret, sizeof(wa->secret), 0) != (ssize_t)sizeof(wa->secret)) {
		free(wa);
		return NULL;
	}
	pthread_mutex_init(&wa->lock, NULL);
	return wa;
}

void webauth_free(struct webauth *wa)
{
	if (!wa)
		return;
	pthread_mutex_destroy(&wa->lock);
	explicit_bzero(wa, sizeof(*wa));
	free(wa);
}

void webauth_clear(struct webauth *wa)
{
	pthread_mutex_lock(&wa->lock);
	memset(wa->cache, 0, sizeof(wa->cache));
	pthread_mutex_unlock(&wa->lock);
}

/*
 * The HMAC of user, hash and pass: the cache key; with pass NULL, of user
 * and hash alone: the owner of an entry. One NUL separator fewer keeps the
 * two apart (no user, hash or password contains one).
 */
static int cache_key(const struct webauth *wa, const char *user, const char *hash, const char *pass,
		     uint8_t key[32])
{
	size_t ul = strlen(user), hl = strlen(hash), pl = pass ? strlen(pass) : 0;
	size_t len = ul + hl + 1 + (pass ? pl + 1 : 0);
	char *msg = malloc(len);
	int r;

	if (!msg)
		return -ENOMEM;
	/* NUL separators: no user, hash or password contains one */
	memcpy(msg, user, ul + 1);
	memcpy(msg + ul + 1, hash, hl);
	if (pass) {
		msg[ul + 1 + hl] = '\0';
		memcpy(msg + ul + hl + 2, pass, pl);
	}
	r = gnutls_hmac_fast(GNUTLS_MAC_SHA256, wa->secret, sizeof(wa->secret), msg, len, key);
	explicit_bzero(msg, len);
	free(msg);
	return r < 0 ? -EIO : 0;
}

static bool owner_listed(const uint8_t owner[32], const uint8_t (*owners)[32], unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (gnutls_memcmp(owners[i], owner, 32) == 0)
			return true;
	return false;
}

void webauth_retain(struct webauth *wa, const struct webconfig *wc)
{
	unsigned n = wc ? wc->n_users : 0;
	uint8_t(*owners)[32] = n ? calloc(n, sizeof(*owners)) : NULL;

	if (n && !owners) {
		webauth_clear(wa);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		if (cache_key(wa, wc->users[i].name, wc->users[i].value, NULL, owners[i]) < 0) {
			free(owners);
			webauth_clear(wa);
			return;
		}
	}
	pthread_mutex_lock(&wa->lock);
	for (unsigned i = 0; i < WEBAUTH_CACHE_SLOTS; i++) {
		struct cache_entry *e = &wa->cache[i];

		if (e->used && !owner_listed(e->owner, owners, n))
			memset(e, 0, sizeof(*e));
	}
	pthread_mutex_unlock(&wa->lock);
	free(owners);
}

static struct cache_entry *cache_find(struct webauth *wa, const uint8_t key[32], uint64_t now_ms)
{
	for (unsigned i = 0; i < WEBAUTH_CACHE_SLOTS; i++) {
		struct cache_entry *e = &wa->cache[i];

		if (e->used && e->expires_ms > now_ms && gnutls_memcmp(e->key, key, 32) == 0)
			return e;
	}
	return NULL;
}

/*
 * A free or expired slot, else the one closest to expiry; for a denial
 * only among denials (NULL when every slot holds a live grant).
 */
static struct cache_entry *cache_victim(struct webauth *wa, uint64_t now_ms, bool ok)
{
	struct cache_entry *victim = NULL;

	for (unsigned i = 0; i < WEBAUTH_CACHE_SLOTS; i++) {
		struct cache_entry *e = &wa->cache[i];

		if (!e->used || e->expires_ms <= now_ms)
			return e;
		if (!ok && e->ok)
			continue;
		if (!victim || e->expires_ms < victim->expires_ms)
			victim = e;
	}
	return victim;
}

int webauth_job_init(struct webauth *wa, const struct webconfig *wc, const char *user,
		     const char *pass, struct webauth_job *job)
{
	const char *hash = NULL;
	int cost = 4;

	memset(job, 0, sizeof(*job));
	if (strlen(pass) >= sizeof(job->pass))
		return -EINVAL;
	for (unsigned i = 0; i < wc->n_users; i++) {
		int c = webconfig_bcrypt_cost(wc->users[i].value);

		if (c > cost)
			cost = c;
		if (strcmp(wc->users[i].name, user) == 0)
			hash = wc->users[i].value;
	}
	if (hash) {
		snprintf(job->hash, sizeof(job->hash), "%s", hash);
		job->known = true;
	} else {
		snprintf(job->hash, sizeof(job->hash), "%s", DUMMY_HASH);
		job->hash[4] = (char)('0' + cost / 10);
		job->hash[5] = (char)('0' + cost % 10);
	}
	strcpy(job->pass, pass);
	job->have_key = cache_key(wa, user, job->hash, pass, job->key) == 0 &&
			cache_key(wa, user, job->hash, NULL, job->owner) == 0;
	return 0;
}

void webauth_job_wipe(struct webauth_job *job)
{
	explicit_bzero(job, sizeof(*job));
}

enum webauth_verdict webauth_cached(struct webauth *wa, const struct webauth_job *job,
				    uint64_t now_ms)
{
	enum webauth_verdict v = WEBAUTH_UNCACHED;
	struct cache_entry *e;

	if (!job->have_key)
		return v;
	pthread_mutex_lock(&wa->lock);
	e = cache_find(wa, job->key, now_ms);
	if (e) {
		v = e->ok ? WEBAUTH_GRANTED : WEBAUTH_DENIED;
		if (e->ok)
			e->expires_ms = now_ms + WEBAUTH_CACHE_TTL_MS;
	}
	pthread_mutex_unlock(&wa->lock);
	return v;
}

bool webauth_job_run(struct webauth *wa, const struct webauth_job *job, uint64_t now_ms)
{
	bool ok = webauth_bcrypt_matches(job->hash, job->pass) && job->known;
	struct cache_entry *e;

	if (!job->have_key)
		return ok;
	pthread_mutex_lock(&wa->lock);
	e = cache_victim(wa, now_ms, ok);
	if (e) {
		memcpy(e->key, job->key, sizeof(job->key));
		memcpy(e->owner, job->owner, sizeof(job->owner));
		e->used = true;
		e->ok = ok;
		e->expires_ms = now_ms + (ok ? WEBAUTH_CACHE_TTL_MS : WEBAUTH_DENIAL_TTL_MS);
	}
	pthread_mutex_unlock(&wa->lock);
	return ok;
}

bool webauth_check(struct webauth *wa, const struct webconfig *wc, const char *user,
		   const char *pass, uint64_t now_ms, bool *cached)
{
	struct webauth_job job;
	enum webauth_verdict v;
	bool ok = false;

	if (cached)
		*cached = false;
	if (webauth_job_init(wa, wc, user, pass, &job) < 0)
		return false;
	v = webauth_cached(wa, &job, now_ms);
	if (v != WEBAUTH_UNCACHED) {
		ok = v == WEBAUTH_GRANTED;
		if (cached)
			*cached = true;
	} else {
		ok = webauth_job_run(wa, &job, now_ms);
	}
	webauth_job_wipe(&job);
	return ok;
}
