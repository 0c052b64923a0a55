// SPDX-License-Identifier: Apache-2.0
/* The shared set of RDMA netdevs: sorted, distinct, emptied per publication. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
	netdev_set_commit(&s, 7);
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

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_set)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
