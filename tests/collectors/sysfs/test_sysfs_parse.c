// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the pure sysfs parsers (sysfs_parse.c) on odd strings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sysfs_parse.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static void test_counter_ok(void **state)
{
	uint64_t v = 7;

	assert_int_equal(sysfs_parse_counter(S("0\n"), &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_parse_counter(S("4631917\n"), &v), 0);
	assert_int_equal(v, 4631917);
	/* no trailing newline */
	assert_int_equal(sysfs_parse_counter(S("42"), &v), 0);
	assert_int_equal(v, 42);
	/* surrounding whitespace */
	assert_int_equal(sysfs_parse_counter(S(" 12 \n"), &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(sysfs_parse_counter(S("18446744073709551615\n"), &v), 0);
	assert_true(v == UINT64_MAX);
	/* not NUL-terminated: only len bytes count */
	assert_int_equal(sysfs_parse_counter("123456", 3, &v), 0);
	assert_int_equal(v, 123);
}

static void test_counter_bad(void **state)
{
	uint64_t v = 99;

	assert_int_equal(sysfs_parse_counter(S("N/A (no PMA)\n"), &v), -ENODATA);
	assert_int_equal(sysfs_parse_counter(S("N/A (no PMA)"), &v), -ENODATA);
	assert_int_equal(sysfs_parse_counter(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("   "), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("abc"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("12abc"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("12 34"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("-1"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("-5\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("+5"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("0x10"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("1.5"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_counter(S("18446744073709551616"), &v), -ERANGE);
	assert_int_equal(sysfs_parse_counter(S("99999999999999999999999"), &v), -ERANGE);
	assert_int_equal(sysfs_parse_counter("1\0002", 3, &v), -EINVAL);
	assert_int_equal(v, 99); /* untouched on error */
}

static void test_port_state(void **state)
{
	uint64_t v = 99;

	assert_int_equal(sysfs_parse_port_state(S("4: ACTIVE\n"), &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(sysfs_parse_port_state(S("1: DOWN"), &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sysfs_parse_port_state(S("5: ACTIVE_DEFER\n"), &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(sysfs_parse_port_state(S("0: NOP\n"), &v), 0);
	assert_int_equal(v, 0);
	/* bare names */
	assert_int_equal(sysfs_parse_port_state(S("ACTIVE"), &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(sysfs_parse_port_state(S("ARMED\n"), &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(sysfs_parse_port_state(S("init"), &v), 0);
	assert_int_equal(v, 2);
	/* bare number, number of an unknown state */
	assert_int_equal(sysfs_parse_port_state(S("2"), &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(sysfs_parse_port_state(S("9: UNKNOWN"), &v), 0);
	assert_int_equal(v, 9);

	v = 99;
	assert_int_equal(sysfs_parse_port_state(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S("\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S("ACTIVATED"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S("4x: ACTIVE"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S("4 : ACTIVE"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S(": ACTIVE"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S("-4: ACTIVE"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_state(S("99999999999999999999: X"), &v), -ERANGE);
	assert_int_equal(v, 99);
}

static void test_phys_state(void **state)
{
	uint64_t v = 99;

	assert_int_equal(sysfs_parse_phys_state(S("5: LinkUp\n"), &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(sysfs_parse_phys_state(S("3: Disabled\n"), &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(sysfs_parse_phys_state(S("7: Phy Test\n"), &v), 0);
	assert_int_equal(v, 7);
	/* procfs fixture quirk: mlx5 phys_state reads like a logical state */
	assert_int_equal(sysfs_parse_phys_state(S("4: ACTIVE\n"), &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(sysfs_parse_phys_state(S("Polling"), &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(sysfs_parse_phys_state(S("Phy Test"), &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(sysfs_parse_phys_state(S("LinkErrorRecovery\n"), &v), 0);
	assert_int_equal(v, 6);

	v = 99;
	assert_int_equal(sysfs_parse_phys_state(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_phys_state(S("ACTIVE"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_phys_state(S("<unknown>"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_phys_state(S("LinkUpX"), &v), -EINVAL);
	assert_int_equal(v, 99);
}

static void test_rate_ok(void **state)
{
	uint64_t v = 0;

	assert_int_equal(sysfs_parse_rate(S("100 Gb/sec (4X EDR)\n"), &v), 0);
	assert_true(v == 12500000000ull);
	assert_int_equal(sysfs_parse_rate(S("2.5 Gb/sec (1X SDR)\n"), &v), 0);
	assert_int_equal(v, 312500000);
	assert_int_equal(sysfs_parse_rate(S("25 Gb/sec (1X EDR)\n"), &v), 0);
	assert_int_equal(v, 3125000000ull);
	assert_int_equal(sysfs_parse_rate(S("40 Gb/sec (4X QDR)"), &v), 0);
	assert_int_equal(v, 5000000000ull);
	assert_int_equal(sysfs_parse_rate(S("10 Gb/sec (4X)\n"), &v), 0); /* iWARP: no speed */
	assert_int_equal(v, 1250000000);
	assert_int_equal(sysfs_parse_rate(S("56 Gb/sec (4X FDR)\n"), &v), 0);
	assert_int_equal(v, 7000000000ull);
	assert_int_equal(sysfs_parse_rate(S("400 Gb/sec (4X NDR)\n"), &v), 0);
	assert_int_equal(v, 50000000000ull);
	assert_int_equal(sysfs_parse_rate(S("0 Gb/sec"), &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_parse_rate(S("0 Gb/sec (1X SDR)\n"), &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_parse_rate(S("13.9375 Gb/sec"), &v), 0); /* exact to 6 digits */
	assert_int_equal(v, 1742187500);
	assert_int_equal(sysfs_parse_rate(S("0.000001 Gb/sec"), &v), 0);
	assert_int_equal(v, 125);
	assert_int_equal(sysfs_parse_rate(S("0.000000001 Gb/sec"), &v), 0); /* 1 bit: floor */
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_parse_rate(S("100Gb/sec"), &v), 0);
	assert_true(v == 12500000000ull);
	/* the largest whole number of Gb/s that fits */
	assert_int_equal(sysfs_parse_rate(S("147573952589 Gb/sec"), &v), 0);
	assert_true(v == 147573952589ull * 125000000ull);
}

static void test_rate_bad(void **state)
{
	uint64_t v = 99;

	assert_int_equal(sysfs_parse_rate(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("garbage"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("garbage\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("100"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("100 Mb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("100 Gb/s"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("100 Gb/secX"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("-1 Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("2. Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S(".5 Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("2.5.5 Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("1e3 Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("0.0000000001 Gb/sec"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("N/A"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_rate(S("147573952590 Gb/sec"), &v), -ERANGE);
	assert_int_equal(sysfs_parse_rate(S("18446744073709551616 Gb/sec"), &v), -ERANGE);
	assert_int_equal(v, 99);
}

static void test_lid(void **state)
{
	uint64_t v = 99;

	assert_int_equal(sysfs_parse_lid(S("0x1\n"), &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sysfs_parse_lid(S("0x0"), &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_parse_lid(S("0xBFFF\n"), &v), 0);
	assert_int_equal(v, 0xbfff);
	assert_int_equal(sysfs_parse_lid(S("0xffffffff\n"), &v), 0); /* OPA: 32-bit LIDs */
	assert_int_equal(v, 0xffffffffu);
	assert_int_equal(sysfs_parse_lid(S("12"), &v), 0);
	assert_int_equal(v, 12);

	v = 99;
	assert_int_equal(sysfs_parse_lid(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_lid(S("0x"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_lid(S("0xzz"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_lid(S("-0x1"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_lid(S("0x10000000000000000"), &v), -ERANGE);
	assert_int_equal(v, 99);
}

/* The call runs first, then its span is compared. */
#define assert_span(call, want)                                                                    \
	do {                                                                                       \
		int r_ = (call);                                                                   \
		assert_int_equal(r_, 0);                                                           \
		assert_int_equal(len, strlen(want));                                               \
		assert_memory_equal(s, (want), len);                                               \
	} while (0)

static void test_node_type(void **state)
{
	const char *s = NULL;
	size_t len = 0;

	assert_span(sysfs_parse_node_type(S("1: CA\n"), &s, &len), "CA");
	assert_span(sysfs_parse_node_type(S("4: RNIC\n"), &s, &len), "RNIC");
	assert_span(sysfs_parse_node_type(S("7: unspecified\n"), &s, &len), "unspecified");
	assert_span(sysfs_parse_node_type(S("6: usNIC UDP\n"), &s, &len), "usNIC UDP");
	assert_span(sysfs_parse_node_type(S("2: switch"), &s, &len), "switch");
	assert_span(sysfs_parse_node_type(S("CA"), &s, &len), "CA");
	assert_span(sysfs_parse_node_type(S("  1:CA  \n"), &s, &len), "CA");
	assert_span(sysfs_parse_node_type(S("garbage\n"), &s, &len), "garbage");

	assert_int_equal(sysfs_parse_node_type(S(""), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_node_type(S("\n"), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_node_type(S("1:"), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_node_type(S("1: \n"), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_node_type(S("1"), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_node_type(S("1x: CA"), &s, &len), -EINVAL);
}

static void test_text(void **state)
{
	const char *s = NULL;
	size_t len = 0;

	assert_span(sysfs_parse_text(S("2.31.5050\n"), &s, &len), "2.31.5050");
	assert_span(sysfs_parse_text(S("0a7f:bc12:45ef:d23b"), &s, &len), "0a7f:bc12:45ef:d23b");
	assert_span(sysfs_parse_text(S("InfiniBand\n\n"), &s, &len), "InfiniBand");
	assert_span(sysfs_parse_text(S("  eth0 \nsecond line\n"), &s, &len), "eth0");
	assert_span(sysfs_parse_text(S("I40IW Board ID\n"), &s, &len), "I40IW Board ID");
	assert_span(sysfs_parse_text("ab\0cd", 5, &s, &len), "ab");

	assert_int_equal(sysfs_parse_text(S(""), &s, &len), -ENODATA);
	assert_int_equal(sysfs_parse_text(S("\n"), &s, &len), -ENODATA);
	assert_int_equal(sysfs_parse_text(S(" \t \n"), &s, &len), -ENODATA);
	assert_int_equal(sysfs_parse_text("\0abc", 4, &s, &len), -ENODATA);
}

static void test_link_basename(void **state)
{
	const char *s = NULL;
	size_t len = 0;

	assert_span(sysfs_parse_link_basename(S("../../../../bus/pci/drivers/mlx5_core"), &s, &len),
		    "mlx5_core");
	assert_span(sysfs_parse_link_basename(S("../../../bus/pci/drivers/efa/"), &s, &len), "efa");
	assert_span(sysfs_parse_link_basename(S("irdma"), &s, &len), "irdma");

	assert_int_equal(sysfs_parse_link_basename(S(""), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_link_basename(S("/"), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_link_basename(S("a/.."), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_link_basename(S("a/."), &s, &len), -EINVAL);
	assert_int_equal(sysfs_parse_link_basename("a/b\0c", 5, &s, &len), -EINVAL);
}

static void test_port_num(void **state)
{
	uint32_t v = 99;

	assert_int_equal(sysfs_parse_port_num(S("1"), &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(sysfs_parse_port_num(S("0"), &v), 0); /* switch management port */
	assert_int_equal(v, 0);
	assert_int_equal(sysfs_parse_port_num(S("254"), &v), 0);
	assert_int_equal(v, 254);
	assert_int_equal(sysfs_parse_port_num(S("4294967295"), &v), 0);
	assert_true(v == UINT32_MAX);

	v = 99;
	assert_int_equal(sysfs_parse_port_num(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_num(S("01"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_num(S("1\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_num(S("a"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_num(S("-1"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_port_num(S("4294967296"), &v), -ERANGE);
	assert_int_equal(sysfs_parse_port_num(S("18446744073709551616"), &v), -ERANGE);
	assert_int_equal(v, 99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_ok), cmocka_unit_test(test_counter_bad),
		cmocka_unit_test(test_port_state), cmocka_unit_test(test_phys_state),
		cmocka_unit_test(test_rate_ok),	   cmocka_unit_test(test_rate_bad),
		cmocka_unit_test(test_lid),	   cmocka_unit_test(test_node_type),
		cmocka_unit_test(test_text),	   cmocka_unit_test(test_link_basename),
		cmocka_unit_test(test_port_num),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
