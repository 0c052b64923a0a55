// SPDX-License-Identifier: Apache-2.0
/*
 * The per-client limit of uncached basic auth checks: burst, refill,
 * refunds, one bucket per IPv4 address or IPv6 /64, a bounded table that
 * keeps recent grants.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <cmocka.h>

#include "http/authlimit.h"
#include "http/webauth.h"

static struct sockaddr_in v4(const char *ip)
{
	struct sockaddr_in a = {.sin_family = AF_INET};

	assert_int_equal(inet_pton(AF_INET, ip, &a.sin_addr), 1);
	return a;
}

static struct sockaddr_in6 v6(const char *ip)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6};

	assert_int_equal(inet_pton(AF_INET6, ip, &a.sin6_addr), 1);
	return a;
}

#define SA(x) ((const struct sockaddr *)&(x))

/* How many checks the client at addr gets at now_ms before a refusal. */
static unsigned drain(struct authlimit *al, const struct sockaddr *addr, uint64_t now_ms)
{
	unsigned n = 0;

	while (n < 1000 && authlimit_take(al, addr, now_ms))
		n++;
	return n;
}

static void test_burst_and_refill(void **state)
{
	struct authlimit *al = calloc(1, sizeof(*al));
	struct sockaddr_in a = v4("192.0.2.1"), b = v4("192.0.2.2");

	(void)state;
	assert_int_equal(drain(al, SA(a), 1000), AUTHLIMIT_BURST);
	/* another client has its own bucket */
	assert_int_equal(drain(al, SA(b), 1000), AUTHLIMIT_BURST);
	/* AUTHLIMIT_PER_S a second come back, never more than the burst */
	assert_int_equal(drain(al, SA(a), 2000), AUTHLIMIT_PER_S);
	assert_int_equal(drain(al, SA(a), 2000 + 1000 / AUTHLIMIT_PER_S - 1), 0);
	assert_int_equal(drain(al, SA(a), 2000 + 1000 / AUTHLIMIT_PER_S), 1);
	assert_int_equal(drain(al, SA(a), 1000000), AUTHLIMIT_BURST);
	/* a check that succeeded is given back */
	authlimit_refund(al, SA(a), 1000000);
	assert_int_equal(drain(al, SA(a), 1000000), 1);
	/* a refund to an unknown client creates nothing; a full bucket stays full */
	authlimit_refund(al, SA(b), 5000000);
	authlimit_refund(al, SA(b), 5000000);
	assert_int_equal(drain(al, SA(b), 5000000), AUTHLIMIT_BURST);
	free(al);
}

/* The rate a test sets: another, or none, so that what it sees does not hang on its speed. */
static void test_rate_setting(void **state)
{
	struct authlimit *al = calloc(1, sizeof(*al));
	struct sockaddr_in a = v4("192.0.2.1");

	(void)state;
	al->per_s = -1;
	assert_int_equal(drain(al, SA(a), 1000), AUTHLIMIT_BURST);
	assert_int_equal(drain(al, SA(a), 1000000), 0);
	/* a check that succeeded is still given back */
	authlimit_refund(al, SA(a), 1000000);
	assert_int_equal(drain(al, SA(a), 2000000), 1);
	al->per_s = 5;
	assert_int_equal(drain(al, SA(a), 3000000), AUTHLIMIT_BURST);
	assert_int_equal(drain(al, SA(a), 3001000), 5);
	free(al);
}

/* A right password marks its address as recent for a window; others are not. */
static void test_recent_grant(void **state)
{
	struct authlimit *al = calloc(1, sizeof(*al));
	struct sockaddr_in a = v4("192.0.2.1"), b = v4("192.0.2.2");
	struct sockaddr_in6 c = v6("2001:db8::1"), d = v6("2001:db8::2");

	(void)state;
	assert_false(authlimit_recent(al, SA(a), 1000, 60000));
	/* checks alone (wrong passwords) do not make a client recent */
	assert_int_equal(drain(al, SA(b), 1000), AUTHLIMIT_BURST);
	assert_false(authlimit_recent(al, SA(b), 1000, 60000));
	authlimit_granted(al, SA(a), 1000);
	assert_true(authlimit_recent(al, SA(a), 1000, 60000));
	assert_true(authlimit_recent(al, SA(a), 60999, 60000));
	assert_false(authlimit_recent(al, SA(a), 61000, 60000));
	assert_false(authlimit_recent(al, SA(b), 2000, 60000));
	/* by IPv6 /64, like the limit */
	authlimit_granted(al, SA(c), 1000);
	assert_true(authlimit_recent(al, SA(d), 2000, 60000));
	free(al);
}

static void test_keys(void **state)
{
	struct authlimit *al = calloc(1, sizeof(*al));
	struct sockaddr_in6 a = v6("2001:db8:1:2::1"), same64 = v6("2001:db8:1:2:ffff::9"),
			    other64 = v6("2001:db8:1:3::1"), mapped = v6("::ffff:192.0.2.7");
	struct sockaddr_in plain = v4("192.0.2.7");
	struct sockaddr_un un = {.sun_family = AF_UNIX};

	(void)state;
	/* one IPv6 /64 is one client: a host holds a whole /64 */
	assert_int_equal(drain(al, SA(a), 1000), AUTHLIMIT_BURST);
	assert_int_equal(drain(al, SA(same64), 1000), 0);
	assert_int_equal(drain(al, SA(other64), 1000), AUTHLIMIT_BURST);
	/* an IPv4-mapped address is that IPv4 client */
	assert_int_equal(drain(al, SA(mapped), 1000), AUTHLIMIT_BURST);
	assert_int_equal(drain(al, SA(plain), 1000), 0);
	/* not an IP client: not limited */
	assert_int_equal(drain(al, SA(un), 1000), 1000);
	free(al);
}

/* More clients than slots: the table keeps its size, the idlest client goes. */
static void test_bounded(void **state)
{
	struct authlimit *al = calloc(1, sizeof(*al));
	struct sockaddr_in a = v4("10.0.0.1");

	(void)state;
	assert_int_equal(drain(al, SA(a), 1000), AUTHLIMIT_BURST);
	for (unsigned i = 0; i < AUTHLIMIT_SLOTS; i++) {
		struct sockaddr_in x = {.sin_family = AF_INET,
					.sin_addr.s_addr = htonl(0x0b000000 + i)};

		assert_true(authlimit_take(al, SA(x), 1001 + i));
	}
	/* a was the idlest: evicted, it starts full again */
	assert_int_equal(drain(al, SA(a), 1001 + AUTHLIMIT_SLOTS), AUTHLIMIT_BURST);
	free(al);
}

/*
 * A flood of failed logins from more clients than slots does not make the
 * table forget a client granted access within WEBAUTH_CACHE_TTL_MS (the
 * server reserves connections for those); an old grant goes like any entry.
 */
static void test_grant_kept(void **state)
{
	struct authlimit *al = calloc(1, sizeof(*al));
	struct sockaddr_in a = v4("10.0.0.1"), old = v4("10.0.0.2");
	uint64_t t = 1000;

	(void)state;
	authlimit_granted(al, SA(old), 1);
	t += WEBAUTH_CACHE_TTL_MS;
	authlimit_granted(al, SA(a), t);
	for (unsigned i = 0; i < 2 * AUTHLIMIT_SLOTS; i++) {
		struct sockaddr_in x = {.sin_family = AF_INET,
					.sin_addr.s_addr = htonl(0x0b000000 + i)};

		assert_true(authlimit_take(al, SA(x), ++t));
	}
	assert_true(authlimit_recent(al, SA(a), t, WEBAUTH_CACHE_TTL_MS));
	/* the grant older than the window was evicted */
	assert_false(authlimit_recent(al, SA(old), t, UINT64_MAX));
	free(al);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_and_refill), cmocka_unit_test(test_rate_setting),
		cmocka_unit_test(test_recent_grant),	 cmocka_unit_test(test_keys),
		cmocka_unit_test(test_bounded),		 cmocka_unit_test(test_grant_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
