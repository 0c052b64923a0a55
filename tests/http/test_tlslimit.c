// SPDX-License-Identifier: Apache-2.0
/*
 * The per-client bound on TLS handshakes, on a fake clock: burst and
 * refill, one bucket per IPv4 address or IPv6 /64, a bounded table.
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

#include "http/tlslimit.h"

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

/* How many handshakes the client at addr gets at now_ms before a refusal. */
static unsigned drain(struct tlslimit *tl, const struct sockaddr *addr, uint64_t now_ms)
{
	unsigned n = 0;

	while (n < 1000 && tlslimit_take(tl, addr, now_ms))
		n++;
	return n;
}

/* Issue 29: a replayed ClientHello flood from one client ran unbounded. */
static void test_burst_and_refill(void **state)
{
	struct tlslimit *tl = calloc(1, sizeof(*tl));
	struct sockaddr_in a = v4("192.0.2.1"), b = v4("192.0.2.2");

	(void)state;
	assert_int_equal(drain(tl, SA(a), 1000), TLSLIMIT_BURST);
	/* another client has its own bucket */
	assert_int_equal(drain(tl, SA(b), 1000), TLSLIMIT_BURST);
	/* TLSLIMIT_PER_S a second come back, never more than the burst */
	assert_int_equal(drain(tl, SA(a), 2000), TLSLIMIT_PER_S);
	assert_int_equal(drain(tl, SA(a), 2000 + 1000 / TLSLIMIT_PER_S - 1), 0);
	assert_int_equal(drain(tl, SA(a), 2000 + 1000 / TLSLIMIT_PER_S), 1);
	assert_int_equal(drain(tl, SA(a), 1000000), TLSLIMIT_BURST);
	/* a minute of a flood gets the burst and the rate, no more */
	{
		unsigned n = 0;

		for (uint64_t t = 2000000; t < 2060000; t += 10)
			n += tlslimit_take(tl, SA(b), t);
		assert_int_equal(n, TLSLIMIT_BURST + 60 * TLSLIMIT_PER_S - 1);
	}
	free(tl);
}

static void test_groups(void **state)
{
	struct tlslimit *tl = calloc(1, sizeof(*tl));
	struct sockaddr_in6 a = v6("2001:db8:1:2::1"), same64 = v6("2001:db8:1:2:ffff::9"),
			    other64 = v6("2001:db8:1:3::1"), mapped = v6("::ffff:192.0.2.7");
	struct sockaddr_in plain = v4("192.0.2.7");
	struct sockaddr_un un = {.sun_family = AF_UNIX};

	(void)state;
	/* a new address in the same /64 gets no new bucket */
	assert_int_equal(drain(tl, SA(a), 1000), TLSLIMIT_BURST);
	assert_int_equal(drain(tl, SA(same64), 1000), 0);
	assert_int_equal(drain(tl, SA(other64), 1000), TLSLIMIT_BURST);
	assert_int_equal(drain(tl, SA(mapped), 1000), TLSLIMIT_BURST);
	assert_int_equal(drain(tl, SA(plain), 1000), 0);
	/* not an IP client: not limited */
	assert_int_equal(drain(tl, SA(un), 1000), 1000);
	free(tl);
}

/* More clients than slots: the table keeps its size, the idlest client goes. */
static void test_bounded(void **state)
{
	struct tlslimit *tl = calloc(1, sizeof(*tl));
	struct sockaddr_in a = v4("10.0.0.1"), b = v4("10.0.0.2");

	(void)state;
	assert_int_equal(drain(tl, SA(a), 1000), TLSLIMIT_BURST);
	assert_int_equal(drain(tl, SA(b), 1000), TLSLIMIT_BURST);
	for (unsigned i = 0; i < TLSLIMIT_SLOTS - 1; i++) {
		struct sockaddr_in x = {.sin_family = AF_INET,
					.sin_addr.s_addr = htonl(0x0b000000 + i)};

		assert_true(tlslimit_take(tl, SA(x), 1001 + i));
	}
	/* a was the idlest: evicted, it starts full again; b was kept (with
	 * what came back since: 257 ms at TLSLIMIT_PER_S) */
	assert_int_equal(drain(tl, SA(b), 1001 + TLSLIMIT_SLOTS),
			 (1 + TLSLIMIT_SLOTS) * TLSLIMIT_PER_S / 1000);
	assert_int_equal(drain(tl, SA(a), 1001 + TLSLIMIT_SLOTS), TLSLIMIT_BURST);
	free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_and_refill),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
