// SPDX-License-Identifier: Apache-2.0
/*
 * Basic auth: the Authorization header parser (with arbitrary bytes), bcrypt
 * through crypt(3), and the bounded cache of results.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <gnutls/gnutls.h>

#include "http/webauth.h"
#include "http/webconfig.h"

/* htpasswd -nbBC 4: cost 4 keeps the test fast */
#define HASH_ALICE "$2y$04$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG" /* secret */
#define HASH_BOB   "$2y$04$TwwAO8bPYXNbrsZd3rYgFeazo85Ocx6EGAwXbMVyS.J0mEUxQtSci" /* pa:ss w0rd */

static void test_parse_basic(void **state)
{
	char user[64], pass[64];

	/* base64("alice:secret") */
	assert_int_equal(webauth_parse_basic("Basic YWxpY2U6c2VjcmV0", user, sizeof(user), pass,
					     sizeof(pass)),
			 0);
	assert_string_equal(user, "alice");
	assert_string_equal(pass, "secret");
	/* scheme case-insensitive, extra blanks; the password keeps its ':' */
	assert_int_equal(webauth_parse_basic("bAsIc   Ym9iOnBhOnNzIHcwcmQ=  ", user, sizeof(user),
					     pass, sizeof(pass)),
			 0);
	assert_string_equal(user, "bob");
	assert_string_equal(pass, "pa:ss w0rd");
	/* empty user and password are still basic auth */
	assert_int_equal(webauth_parse_basic("Basic Og==", user, sizeof(user), pass, sizeof(pass)),
			 0);
	assert_string_equal(user, "");
	assert_string_equal(pass, "");

	const char *const bad[] = {
		NULL,
		"",
		"Basic",
		"Bearer YWxpY2U6c2VjcmV0",
		"BasicYWxpY2U6c2VjcmV0",
		"Basic YWxpY2U",	   /* "alice": no ':' */
		"Basic YWxpY2U6c2VjcmV0!", /* not base64 */
		"Basic Y",		   /* 6 bits */
		"Basic YQBiOmM=",	   /* "a\0b:c" */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strcpy(user, "x");
		assert_int_equal(
			webauth_parse_basic(bad[i], user, sizeof(user), pass, sizeof(pass)),
			-EINVAL);
		assert_string_equal(user, "");
	}
	/* too long for the buffers: refused, never truncated */
	assert_int_equal(webauth_parse_basic("Basic YWxpY2U6c2VjcmV0", user, 5, pass, sizeof(pass)),
			 -EINVAL);
	assert_int_equal(webauth_parse_basic("Basic YWxpY2U6c2VjcmV0", user, 6, pass, 6), -EINVAL);
}

static void test_parse_basic_arbitrary(void **state)
{
	char in[128], user[32], pass[32];
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				       "0123456789+/= \t:";

	srand(8);
	for (int iter = 0; iter < 20000; iter++) {
		size_t n = (size_t)(rand() % 100);

		memcpy(in, "Basic ", 6);
		for (size_t i = 6; i < n + 6; i++)
			in[i] = rand() % 8 ? alphabet[rand() % (int)(sizeof(alphabet) - 1)]
					   : (char)(rand() % 255 + 1);
		in[n + 6] = '\0';
		if (webauth_parse_basic(rand() % 4 ? in : in + 6, user, sizeof(user), pass,
					sizeof(pass)) == 0) {
			assert_true(strlen(user) < sizeof(user));
			assert_true(strlen(pass) < sizeof(pass));
			assert_null(strchr(user, ':'));
		} else {
			assert_string_equal(user, "");
			assert_string_equal(pass, "");
		}
	}
}

/*
 * The token as clients write it and nothing else: padding optional (and
 * extra '=' at the end ignored); a blank, a '-' or an '=' inside it, all of
 * which GnuTLS's PEM-minded decoder would pass over, refused.
 */
static void test_parse_basic_token(void **state)
{
	static const char *const bad[] = {
		"Basic YWxp Y2U6c2VjcmV0",
		"Basic YWxpY2U6\tc2VjcmV0",
		"Basic YWxpY2U6-c2VjcmV0",
		"Basic YWxpY2U6c2VjcmV0-",
		"Basic YW=xpY2U6c2VjcmV0",
		"Basic =Og==",
		"Basic Og=A",
	};
	char user[64], pass[64];

	(void)state;
	assert_int_equal(webauth_parse_basic("Basic Og", user, sizeof(user), pass, sizeof(pass)),
			 0);
	assert_string_equal(user, "");
	assert_int_equal(webauth_parse_basic("Basic Ym9iOnBhOnNzIHcwcmQ", user, sizeof(user), pass,
					     sizeof(pass)),
			 0);
	assert_string_equal(pass, "pa:ss w0rd");
	assert_int_equal(webauth_parse_basic("Basic YWxpY2U6c2VjcmV0===", user, sizeof(user), pass,
					     sizeof(pass)),
			 0);
	assert_string_equal(user, "alice");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (webauth_parse_basic(bad[i], user, sizeof(user), pass, sizeof(pass)) != -EINVAL)
			fail_msg("\"%s\" was taken", bad[i]);
}

/* "Basic " and the base64 (GnuTLS's encoder) of "a:" and pass_len 'b's, in out. */
static void basic_of(size_t pass_len, char *out, size_t outlen)
{
	unsigned char in[2048] = "a:";
	gnutls_datum_t b64;

	memset(in + 2, 'b', pass_len);
	assert_int_equal(gnutls_base64_encode2(&(gnutls_datum_t){in, (unsigned)pass_len + 2}, &b64),
			 0);
	assert_true(snprintf(out, outlen, "Basic %.*s", (int)b64.size, b64.data) < (int)outlen);
	gnutls_free(b64.data);
}

/* At most 1024 bytes decoded, whatever the buffers could take; padded or not. */
static void test_parse_basic_longest(void **state)
{
	static char header[4096], pass[2048];
	char user[8], *eq;

	(void)state;
	for (size_t len = 1019; len <= 1026; len++) {
		int want = len + 2 <= 1024 ? 0 : -EINVAL;

		basic_of(len, header, sizeof(header));
		assert_int_equal(
			webauth_parse_basic(header, user, sizeof(user), pass, sizeof(pass)), want);
		if (want == 0)
			assert_int_equal(strlen(pass), len);
		eq = strchr(header, '=');
		if (eq)
			*eq = '\0';
		assert_int_equal(
			webauth_parse_basic(header, user, sizeof(user), pass, sizeof(pass)), want);
	}
}

static void test_bcrypt(void **state)
{
	assert_true(webauth_bcrypt_matches(HASH_ALICE, "secret"));
	assert_false(webauth_bcrypt_matches(HASH_ALICE, "Secret"));
	assert_false(webauth_bcrypt_matches(HASH_ALICE, ""));
	assert_true(webauth_bcrypt_matches(HASH_BOB, "pa:ss w0rd"));
	/* $2b$ and $2a$ read the same for such passwords */
	assert_true(webauth_bcrypt_matches(
		"$2b$04$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG", "secret"));
	assert_false(webauth_bcrypt_matches("*0", "secret"));
	assert_false(webauth_bcrypt_matches("", ""));
}

static struct webconfig *users(void)
{
	static const char yaml[] = "basic_auth_users:\n"
				   "  alice: " HASH_ALICE "\n"
				   "  bob: " HASH_BOB "\n";
	char err[256];
	struct webconfig *wc = webconfig_parse(yaml, strlen(yaml), NULL, err, sizeof(err));

	assert_non_null(wc);
	return wc;
}

static void test_check_and_cache(void **state)
{
	struct webconfig *wc = users();
	struct webauth *wa = webauth_new();
	uint64_t now = 1000000;
	bool cached;

	assert_non_null(wa);
	assert_true(webauth_check(wa, wc, "alice", "secret", now, &cached));
	assert_false(cached);
	assert_true(webauth_check(wa, wc, "alice", "secret", now + 1000, &cached));
	assert_true(cached);
	/* a failure is cached too, and never answers for the right password */
	assert_false(webauth_check(wa, wc, "alice", "wrong", now, &cached));
	assert_false(cached);
	assert_false(webauth_check(wa, wc, "alice", "wrong", now + 1, &cached));
	assert_true(cached);
	assert_true(webauth_check(wa, wc, "alice", "secret", now + 2, &cached));
	/* the password of another user, an unknown user */
	assert_false(webauth_check(wa, wc, "bob", "secret", now, NULL));
	assert_false(webauth_check(wa, wc, "carol", "secret", now, &cached));
	assert_false(cached);
	assert_false(webauth_check(wa, wc, "carol", "secret", now + 1, &cached));
	assert_true(cached);
	assert_true(webauth_check(wa, wc, "bob", "pa:ss w0rd", now, NULL));
	/* entries expire a TTL after their last use */
	assert_true(
		webauth_check(wa, wc, "alice", "secret", now + 2 * WEBAUTH_CACHE_TTL_MS, &cached));
	assert_false(cached);
	/* cleared on reload */
	webauth_clear(wa);
	assert_true(webauth_check(wa, wc, "alice", "secret", now + 2 * WEBAUTH_CACHE_TTL_MS + 20,
				  &cached));
	assert_false(cached);
	webauth_free(wa);
	webconfig_free(wc);
}

static void test_cache_is_bounded(void **state)
{
	struct webconfig *wc = users();
	struct webauth *wa = webauth_new();
	char pass[32];
	bool cached;

	/* more distinct guesses than slots: the table keeps its size, the
	 * newest results stay */
	for (int i = 0; i < WEBAUTH_CACHE_SLOTS + 20; i++) {
		snprintf(pass, sizeof(pass), "guess%d", i);
		assert_false(webauth_check(wa, wc, "alice", pass, 5000 + (uint64_t)i, NULL));
	}
	snprintf(pass, sizeof(pass), "guess%d", WEBAUTH_CACHE_SLOTS + 19);
	assert_false(webauth_check(wa, wc, "alice", pass, 6000, &cached));
	assert_true(cached);
	assert_false(webauth_check(wa, wc, "alice", "guess0", 6000, &cached));
	assert_false(cached);
	webauth_free(wa);
	webauth_free(NULL);
	webconfig_free(wc);
}

/* A grant used within its TTL lives on: a regular scraper needs one bcrypt. */
static void test_grant_slides(void **state)
{
	struct webconfig *wc = users();
	struct webauth *wa = webauth_new();
	uint64_t now = 1000000;
	bool cached;

	assert_true(webauth_check(wa, wc, "alice", "secret", now, &cached));
	assert_false(cached);
	for (int i = 1; i <= 10; i++) {
		assert_true(webauth_check(wa, wc, "alice", "secret",
					  now + (uint64_t)i * WEBAUTH_CACHE_TTL_MS / 2, &cached));
		assert_true(cached);
	}
	/* a denial does not slide */
	assert_false(webauth_check(wa, wc, "alice", "wrong", now, &cached));
	assert_false(
		webauth_check(wa, wc, "alice", "wrong", now + WEBAUTH_DENIAL_TTL_MS - 1, &cached));
	assert_true(cached);
	assert_false(webauth_check(wa, wc, "alice", "wrong", now + WEBAUTH_DENIAL_TTL_MS, &cached));
	assert_false(cached);
	webauth_free(wa);
	webconfig_free(wc);
}

/* Whether a grant made at 1000 s still answers after ms more, unused meanwhile. */
static bool grant_cached_after(const struct webconfig *wc, uint64_t ms)
{
	struct webauth *wa = webauth_new();
	uint64_t now = 1000000;
	bool cached = false;

	assert_non_null(wa);
	assert_true(webauth_check(wa, wc, "alice", "secret", now, &cached));
	assert_false(cached);
	assert_true(webauth_check(wa, wc, "alice", "secret", now + ms, &cached));
	webauth_free(wa);
	return cached;
}

/*
 * A grant outlives any scrape interval: a scrape every minute (a little
 * late: 61 s) or every 5 minutes costs no bcrypt; unused for the TTL, the
 * grant goes (issue 29: it lapsed at 60 s, half the scrapes paid a bcrypt).
 */
static void test_grant_outlives_scrape_interval(void **state)
{
	struct webconfig *wc = users();

	assert_true(WEBAUTH_CACHE_TTL_MS >= 10 * 60 * 1000);
	assert_true(grant_cached_after(wc, 61 * 1000));
	assert_true(grant_cached_after(wc, 5 * 60 * 1000));
	assert_true(grant_cached_after(wc, WEBAUTH_CACHE_TTL_MS - 1));
	assert_false(grant_cached_after(wc, WEBAUTH_CACHE_TTL_MS));
	assert_false(grant_cached_after(wc, 2 * WEBAUTH_CACHE_TTL_MS));
	webconfig_free(wc);
}

static struct webconfig *parse(const char *yaml)
{
	char err[256];
	struct webconfig *wc = webconfig_parse(yaml, strlen(yaml), NULL, err, sizeof(err));

	assert_non_null(wc);
	return wc;
}

static bool cached_grant(struct webauth *wa, const struct webconfig *wc, const char *user,
			 const char *pass, uint64_t now)
{
	bool cached = false;

	return webauth_check(wa, wc, user, pass, now, &cached) && cached;
}

/*
 * A reload keeps the grants of users it keeps with the same hash (their
 * scrapers pay no bcrypt) and forgets those of users it changed or removed:
 * gone, not only unreachable, since putting the old hash back does not
 * bring them back (issue 29: every reload dropped every grant).
 */
static void test_reload_keeps_unchanged_users(void **state)
{
	struct webconfig *wc = users();
	/* alice kept, bob's password changed (to alice's hash: "secret") */
	struct webconfig *changed = parse("basic_auth_users:\n"
					  "  alice: " HASH_ALICE "\n"
					  "  bob: " HASH_ALICE "\n");
	struct webconfig *alone = parse("basic_auth_users:\n  alice: " HASH_ALICE "\n");
	struct webauth *wa = webauth_new();
	uint64_t now = 1000000;
	bool cached;

	assert_non_null(wa);
	assert_true(webauth_check(wa, wc, "alice", "secret", now, NULL));
	assert_true(webauth_check(wa, wc, "bob", "pa:ss w0rd", now, NULL));
	webauth_retain(wa, changed);
	assert_true(cached_grant(wa, changed, "alice", "secret", now + 1));
	assert_false(webauth_check(wa, changed, "bob", "pa:ss w0rd", now + 1, &cached));
	assert_false(cached);
	assert_true(webauth_check(wa, changed, "bob", "secret", now + 2, &cached));
	assert_false(cached);
	/* bob's old grant is gone: his old hash back does not revive it */
	webauth_retain(wa, wc);
	assert_true(cached_grant(wa, wc, "alice", "secret", now + 3));
	assert_false(cached_grant(wa, wc, "bob", "pa:ss w0rd", now + 4));
	/* removed: gone too */
	webauth_retain(wa, alone);
	webauth_retain(wa, wc);
	assert_true(cached_grant(wa, wc, "alice", "secret", now + 5));
	assert_false(cached_grant(wa, wc, "bob", "pa:ss w0rd", now + 6));
	/* no configuration: nothing kept */
	webauth_retain(wa, NULL);
	assert_false(cached_grant(wa, wc, "alice", "secret", now + 7));
	webauth_free(wa);
	webconfig_free(alone);
	webconfig_free(changed);
	webconfig_free(wc);
}

/* More distinct wrong passwords than slots never push a grant out. */
static void test_denials_keep_grants(void **state)
{
	struct webconfig *wc = users();
	struct webauth *wa = webauth_new();
	char pass[32];
	bool cached;

	assert_true(webauth_check(wa, wc, "alice", "secret", 5000, NULL));
	assert_true(webauth_check(wa, wc, "bob", "pa:ss w0rd", 5000, NULL));
	for (int i = 0; i < 2 * WEBAUTH_CACHE_SLOTS; i++) {
		snprintf(pass, sizeof(pass), "guess%d", i);
		assert_false(webauth_check(wa, wc, i % 2 ? "alice" : "mallory", pass,
					   5001 + (uint64_t)i, NULL));
	}
	assert_true(webauth_check(wa, wc, "alice", "secret", 6000, &cached));
	assert_true(cached);
	assert_true(webauth_check(wa, wc, "bob", "pa:ss w0rd", 6000, &cached));
	assert_true(cached);
	webauth_free(wa);
	webconfig_free(wc);
}

/* The cost field of a bcrypt hash ("$2y$NN$..."), or -1. */
static int hash_cost(const char *h)
{
	if (strlen(h) < 7 || h[0] != '$' || h[3] != '$' || h[6] != '$')
		return -1;
	return (h[4] - '0') * 10 + (h[5] - '0');
}

/*
 * Username probing: with hashes of htpasswd -B's default cost (5), an
 * unknown user must take as long as a known one with a wrong password (a
 * fixed cost-10 dummy made it 25 times slower). A bcrypt's work is set by its
 * cost alone, so the check is on what runs, not on a clock: an unknown user's
 * job is a bcrypt against a dummy hash of the highest configured cost, and it
 * is denied. (A clock comparison here failed on a loaded machine: timings
 * belong in benchmarks.)
 */
static void test_unknown_user_same_cost(void **state)
{
	static const char same[] =
		"basic_auth_users:\n"
		/* htpasswd -nbB "" secret */
		"  alice: $2y$05$XkRYAZ9dKDydcEcCLhdgd.Y.K5.LNtVNQ6d81QuWpFOiyWWKyTOb.\n"
		"  bob: $2y$05$Z8AHXnKnqpNIqpttTj09NuDq4zpFYTt50Xr8oMYCPwtW2vNAdlbpi\n";
	static const char mixed[] =
		"basic_auth_users:\n"
		"  alice: $2y$05$XkRYAZ9dKDydcEcCLhdgd.Y.K5.LNtVNQ6d81QuWpFOiyWWKyTOb.\n"
		"  bob: $2y$04$Z8AHXnKnqpNIqpttTj09NuDq4zpFYTt50Xr8oMYCPwtW2vNAdlbpi\n";
	const char *yamls[] = {same, mixed};
	char err[256];
	struct webauth *wa = webauth_new();
	bool cached;

	(void)state;
	assert_non_null(wa);
	for (size_t i = 0; i < 2; i++) {
		struct webconfig *wc =
			webconfig_parse(yamls[i], strlen(yamls[i]), NULL, err, sizeof(err));
		struct webauth_job known, unknown;

		assert_non_null(wc);
		assert_int_equal(webauth_job_init(wa, wc, "alice", "guess", &known), 0);
		assert_int_equal(webauth_job_init(wa, wc, "carol", "guess", &unknown), 0);
		assert_true(known.known);
		assert_false(unknown.known);
		assert_int_equal(hash_cost(known.hash), 5);
		/* the highest cost among the users, whatever the order */
		assert_int_equal(hash_cost(unknown.hash), 5);
		webauth_job_wipe(&known);
		webauth_job_wipe(&unknown);
		/* and the unknown user is denied, by a bcrypt (not from the cache) */
		assert_false(webauth_check(wa, wc, "carol", "guess", 1000, &cached));
		assert_false(cached);
		webauth_clear(wa); /* as a reload does: a new configuration */
		webconfig_free(wc);
	}
	webauth_free(wa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_basic),
		cmocka_unit_test(test_parse_basic_arbitrary),
		cmocka_unit_test(test_parse_basic_token),
		cmocka_unit_test(test_parse_basic_longest),
		cmocka_unit_test(test_bcrypt),
		cmocka_unit_test(test_check_and_cache),
		cmocka_unit_test(test_cache_is_bounded),
		cmocka_unit_test(test_grant_slides),
		cmocka_unit_test(test_grant_outlives_scrape_interval),
		cmocka_unit_test(test_reload_keeps_unchanged_users),
		cmocka_unit_test(test_denials_keep_grants),
		cmocka_unit_test(test_unknown_user_same_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
