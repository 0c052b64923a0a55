// SPDX-License-Identifier: Apache-2.0
/*
 * The client groups every per-client limit counts by: an IPv4 address, an
 * IPv6 /64, an IPv4-mapped address as its IPv4 client; nothing else.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/un.h>

#include <cmocka.h>

#include "http/clientgroup.h"

/* The group of an IPv4 or IPv6 address in text. */
static struct client_group group(const char *ip)
{
	struct sockaddr_in a4 = {.sin_family = AF_INET};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6};
	struct client_group g;

	if (inet_pton(AF_INET, ip, &a4.sin_addr) == 1) {
		assert_true(client_group_of((const struct sockaddr *)&a4, &g));
	} else {
		assert_int_equal(inet_pton(AF_INET6, ip, &a6.sin6_addr), 1);
		assert_true(client_group_of((const struct sockaddr *)&a6, &g));
	}
	return g;
}

static bool same(const char *a, const char *b)
{
	struct client_group ga = group(a), gb = group(b);

	return client_group_equal(&ga, &gb);
}

static void test_ipv4(void **state)
{
	(void)state;
	assert_true(same("192.0.2.1", "192.0.2.1"));
	assert_false(same("192.0.2.1", "192.0.2.2"));
	assert_false(same("10.0.0.1", "11.0.0.1"));
}

/* One /64 is one client: a host picks addresses in its /64 at will. */
static void test_ipv6_64(void **state)
{
	(void)state;
	assert_true(same("2001:db8:1:2::1", "2001:db8:1:2::2"));
	assert_true(same("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"));
	assert_false(same("2001:db8:1:2::1", "2001:db8:1:3::1"));
	assert_false(same("2001:db8:1:2::1", "2001:db9:1:2::1"));
	assert_true(same("::1", "::2"));
}

/* A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d: the same client. */
static void test_v4_mapped(void **state)
{
	(void)state;
	assert_true(same("::ffff:192.0.2.7", "192.0.2.7"));
	assert_false(same("::ffff:192.0.2.7", "::ffff:192.0.2.8"));
	assert_false(same("::ffff:192.0.2.7", "192.0.2.8"));
	/* not the IPv6 /64 ::ffff:0:0/64 either: 192.0.2.7 and .8 stay two clients */
	assert_false(same("::ffff:192.0.2.7", "::"));
	/* an IPv4 address and an IPv6 one with the same leading bytes differ */
	assert_false(same("192.0.2.7", "c000:207::"));
}

static void test_not_ip(void **state)
{
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	struct client_group g;

	(void)state;
	assert_false(client_group_of((const struct sockaddr *)&un, &g));
	assert_false(client_group_of(NULL, &g));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv6_64),
		cmocka_unit_test(test_v4_mapped),
		cmocka_unit_test(test_not_ip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
