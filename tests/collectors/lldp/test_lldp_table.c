// SPDX-License-Identifier: Apache-2.0
/*
 * The pure neighbour table (collectors/lldp/lldp_table.c) on a fake clock
 * (issue 42): a flood of fake neighbours does not evict an established
 * one, neighbours are keyed by their raw IDs (distinct IDs that print alike
 * stay distinct), newcomers churn among themselves, a full table of
 * established neighbours refuses newcomers, TTLs and TTL 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lldp_table.h"

static struct lldp_neighbor nb(uint8_t chassis_subtype, const char *chassis, const char *port,
			       uint16_t ttl)
{
	struct lldp_neighbor n;

	memset(&n, 0, sizeof(n));
	n.chassis_subtype = chassis_subtype;
	n.port_subtype = 5;
	n.ttl_s = ttl;
	n.chassis_raw_len = (uint8_t)strlen(chassis);
	memcpy(n.chassis_raw, chassis, n.chassis_raw_len);
	n.port_raw_len = (uint8_t)strlen(port);
	memcpy(n.port_raw, port, n.port_raw_len);
	snprintf(n.chassis_id, sizeof(n.chassis_id), "%s", chassis);
	snprintf(n.port_id, sizeof(n.port_id), "%s", port);
	return n;
}

static int has(const struct lldp_table *t, const struct lldp_neighbor *n)
{
	for (size_t i = 0; i < t->n; i++)
		if (lldp_same_msap(&t->e[i].n, n))
			return 1;
	return 0;
}

static void test_fakes_do_not_evict_switch(void **unused)
{
	struct lldp_table t = {0};
	struct lldp_neighbor sw = nb(7, "leaf-sw-1", "Ethernet1/7", 120);
	double now = 1000;
	char port[16];

	(void)unused;
	assert_int_equal(lldp_table_update(&t, &sw, now), LLDP_TABLE_STORED);
	now += 30;
	assert_int_equal(lldp_table_update(&t, &sw, now), LLDP_TABLE_STORED);
	/* 100 fakes, TTL 65535, 50 a second, round-robin for 60 s */
	for (int k = 0; k < 3000; k++) {
		struct lldp_neighbor fake;

		snprintf(port, sizeof(port), "fake%d", k % 100);
		fake = nb(7, "evil", port, 65535);
		now += 0.02;
		assert_int_equal(lldp_table_update(&t, &fake, now), LLDP_TABLE_STORED);
		assert_true(has(&t, &sw));
		assert_true(t.n <= LLDP_MAX_NEIGHBORS);
		if (k % 1500 == 1499) /* the switch every 30 s */
			assert_int_equal(lldp_table_update(&t, &sw, now), LLDP_TABLE_STORED);
	}
	/* no fake settled: each was pushed out before it was heard again */
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.e[i].established == lldp_same_msap(&t.e[i].n, &sw));
	now += 121;
	lldp_table_expire(&t, now);
	assert_false(has(&t, &sw)); /* its TTL is honoured all the same */
}

static void test_full_of_established_refuses(void **unused)
{
	struct lldp_table t = {0};
	struct lldp_neighbor n, late = nb(7, "late", "p", 120);
	char port[16];

	(void)unused;
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < LLDP_MAX_NEIGHBORS; i++) {
			snprintf(port, sizeof(port), "p%d", i);
			n = nb(7, "sw", port, 120);
			assert_int_equal(lldp_table_update(&t, &n, 1000 + 2 * round),
					 LLDP_TABLE_STORED);
		}
	assert_int_equal(t.n, LLDP_MAX_NEIGHBORS);
	assert_int_equal(lldp_table_update(&t, &late, 1003), LLDP_TABLE_REFUSED);
	assert_false(has(&t, &late));
	/* once their TTLs ran out there is room */
	assert_int_equal(lldp_table_update(&t, &late, 1200), LLDP_TABLE_STORED);
	assert_int_equal(t.n, 1);
}

static void test_newcomers_churn_least_recent(void **unused)
{
	struct lldp_table t = {0};
	struct lldp_neighbor n, first = nb(7, "sw", "p0", 120);
	char port[16];

	(void)unused;
	for (int i = 0; i < LLDP_MAX_NEIGHBORS; i++) {
		snprintf(port, sizeof(port), "p%d", i);
		n = nb(7, "sw", port, 120);
		assert_int_equal(lldp_table_update(&t, &n, 1000 + 0.01 * i), LLDP_TABLE_STORED);
	}
	n = nb(7, "sw", "new", 10);
	assert_int_equal(lldp_table_update(&t, &n, 1001), LLDP_TABLE_STORED);
	assert_true(has(&t, &n));
	assert_false(has(&t, &first)); /* heard least recently, not shortest TTL */
	assert_int_equal(t.n, LLDP_MAX_NEIGHBORS);
}

static void test_raw_ids_not_labels(void **unused)
{
	struct lldp_table t = {0};
	struct lldp_neighbor a = nb(4, "same", "p", 120), b = nb(7, "same", "p", 120);
	struct lldp_neighbor c = nb(7, "same", "p", 120), d = nb(7, "same", "p", 120);

	(void)unused;
	/* same bytes, other subtype; same printed label, other bytes */
	d.chassis_raw[0] = 'S';
	assert_int_equal(lldp_table_update(&t, &a, 1000), LLDP_TABLE_STORED);
	assert_int_equal(lldp_table_update(&t, &b, 1000), LLDP_TABLE_STORED);
	assert_int_equal(lldp_table_update(&t, &d, 1000), LLDP_TABLE_STORED);
	assert_int_equal(t.n, 3);
	assert_int_equal(lldp_table_update(&t, &c, 1001), LLDP_TABLE_STORED); /* b again */
	assert_int_equal(t.n, 3);
	c.ttl_s = 0;
	assert_int_equal(lldp_table_update(&t, &c, 1002), LLDP_TABLE_REMOVED);
	assert_int_equal(t.n, 2);
	assert_true(has(&t, &a));
	assert_true(has(&t, &d));
	assert_false(has(&t, &b));
}

static void test_ttl(void **unused)
{
	struct lldp_table t = {0};
	struct lldp_neighbor a = nb(7, "sw", "p", 120);

	(void)unused;
	assert_int_equal(lldp_table_update(&t, &a, 1000), LLDP_TABLE_STORED);
	lldp_table_expire(&t, 1119.5);
	assert_int_equal(t.n, 1);
	lldp_table_expire(&t, 1120);
	assert_int_equal(t.n, 0);
	a.ttl_s = 0; /* shutdown of an unknown neighbour */
	assert_int_equal(lldp_table_update(&t, &a, 1121), LLDP_TABLE_REMOVED);
	assert_int_equal(t.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fakes_do_not_evict_switch),
		cmocka_unit_test(test_full_of_established_refuses),
		cmocka_unit_test(test_newcomers_churn_least_recent),
		cmocka_unit_test(test_raw_ids_not_labels),
		cmocka_unit_test(test_ttl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
