// SPDX-License-Identifier: Apache-2.0
/*
 * The shared set of RDMA netdevs: sorted, distinct, emptied per publication;
 * its publication read from another thread while the owner publishes again
 * (a left-behind sysfs run against a later poll's ethtool run: run under
 * ThreadSanitizer).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/netdevs.h"

static void test_set(void **state)
{
	struct netdev_set s = {0};

	assert_false(s.published);
	assert_false(netdev_set_contains(&s, "eth0"));
	netdev_set_begin(&s);
	assert_int_equal(netdev_set_add(&s, "ens1f1"), 0);
	assert_int_equal(netdev_set_add(&s, "ens1f0"), 0);
	assert_int_equal(netdev_set_add(&s, "ens1f1"), 0);
	assert_int_equal(netdev_set_add(&s, "bond0"), 0);
	assert_int_equal(netdev_set_commit(&s, 7), 0);
	assert_true(s.published);
	assert_int_equal(s.published_gen, 7);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.names[0], "bond0");
	assert_string_equal(s.names[1], "ens1f0");
	assert_string_equal(s.names[2], "ens1f1");
	assert_true(netdev_set_contains(&s, "ens1f0"));
	assert_false(netdev_set_contains(&s, "ens1f"));
	netdev_set_begin(&s);
	assert_int_equal(s.n, 0);
	assert_true(s.published);
	for (int i = 0; i < 100; i++) {
		char n[16];

		snprintf(n, sizeof(n), "eth%d", 99 - i);
		assert_int_equal(netdev_set_add(&s, n), 0);
	}
	assert_int_equal(s.n, 100);
	assert_string_equal(s.names[0], "eth0");
	netdev_set_free(&s);
	assert_int_equal(s.n, 0);
	netdev_set_free(&s);
}

/* Readers see whole publications only, never the owner building the next one. */
static void test_published_copy(void **state)
{
	struct netdev_set s, out = {0};

	(void)state;
	memset(&s, 0, sizeof(s));
	netdev_set_init(&s);
	assert_int_equal(netdev_set_get_published(&s, &out), 0);
	assert_int_equal(out.n, 0);
	netdev_set_begin(&s);
	assert_int_equal(netdev_set_add(&s, "eth1"), 0);
	assert_int_equal(netdev_set_add(&s, "eth0"), 0);
	assert_int_equal(netdev_set_commit(&s, 1), 0);
	/* the next publication, half built: readers still get the last one */
	netdev_set_begin(&s);
	assert_int_equal(netdev_set_add(&s, "ib0"), 0);
	assert_int_equal(netdev_set_get_published(&s, &out), 1);
	assert_int_equal(out.n, 2);
	assert_string_equal(out.names[0], "eth0");
	assert_string_equal(out.names[1], "eth1");
	assert_int_equal(netdev_set_commit(&s, 2), 0);
	assert_int_equal(netdev_set_get_published(&s, &out), 1);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.names[0], "ib0");
	/* an empty publication is still one */
	netdev_set_begin(&s);
	assert_int_equal(netdev_set_commit(&s, 3), 0);
	assert_int_equal(netdev_set_get_published(&s, &out), 1);
	assert_int_equal(out.n, 0);
	netdev_set_free(&out);
	netdev_set_free(&s);
}

/* A zero-filled set is ready (netdevs.h): the default mutex is all zero bits here. */
static void test_zero_filled_is_ready(void **state)
{
	static const pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
	static const unsigned char zero[sizeof(pthread_mutex_t)];

	(void)state;
	assert_memory_equal(&init, zero, sizeof(init));
}

#define ROUNDS 2000

static void *publisher(void *arg)
{
	struct netdev_set *s = arg;

	for (int i = 0; i < ROUNDS; i++) {
		char n[16];

		netdev_set_begin(s);
		/* one to four names, each round's "ethR" among them */
		for (int k = 0; k <= i % 4; k++) {
			snprintf(n, sizeof(n), "eth%d", i + k);
			if (netdev_set_add(s, n) < 0)
				return NULL;
		}
		if (netdev_set_commit(s, (uint64_t)i + 1) < 0)
			return NULL;
	}
	return s;
}

/* A publisher on one thread, a reader on this one: every copy is one whole round. */
static void test_publish_while_read(void **state)
{
	struct netdev_set s, out = {0};
	pthread_t t;
	void *ret;

	(void)state;
	memset(&s, 0, sizeof(s));
	netdev_set_init(&s);
	assert_int_equal(pthread_create(&t, NULL, publisher, &s), 0);
	for (int i = 0; i < ROUNDS; i++) {
		int r = netdev_set_get_published(&s, &out);
		unsigned lo = UINT32_MAX, hi = 0;

		assert_true(r >= 0);
		if (r == 0)
			continue;
		/* the names of one round R: ethR .. ethR+k, with k = R % 4 */
		for (size_t j = 0; j < out.n; j++) {
			unsigned v;

			assert_int_equal(sscanf(out.names[j], "eth%u", &v), 1);
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
		assert_int_equal(out.n, lo % 4 + 1);
		assert_int_equal(hi - lo, out.n - 1);
	}
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_ptr_equal(ret, &s);
	assert_int_equal(netdev_set_get_published(&s, &out), 1);
	assert_int_equal(out.n, (ROUNDS - 1) % 4 + 1);
	netdev_set_free(&out);
	netdev_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_published_copy),
		cmocka_unit_test(test_zero_filled_is_ready),
		cmocka_unit_test(test_publish_while_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
