// SPDX-License-Identifier: Apache-2.0
/* The text format's rules on their own: names, escaping, doubles, label sets read back. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exposition/metric_text.h"

static void test_names(void **state)
{
	assert_true(metric_name_valid("rdma_port_state"));
	assert_true(metric_name_valid("a:b_c9"));
	assert_true(metric_name_valid("_x"));
	assert_false(metric_name_valid("0x"));
	assert_false(metric_name_valid("a b"));
	assert_false(metric_name_valid(NULL));
	assert_true(metric_label_name_valid("device"));
	assert_false(metric_label_name_valid("a:b"));
	assert_false(metric_label_name_valid("1a"));
	assert_false(metric_label_name_valid("__name__"));
}

static void test_doubles(void **state)
{
	struct {
		double v;
		const char *want;
	} cases[] = {
		{0.0, "0"},
		{0.1, "0.1"},
		{1.5, "1.5"},
		{1e21, "1e+21"},
		{-2.25, "-2.25"},
		{NAN, "NaN"},
		{INFINITY, "+Inf"},
		{-INFINITY, "-Inf"},
		{0.30000000000000004, "0.30000000000000004"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT;

		metric_format_double(&b, cases[i].v);
		assert_string_equal(b.data, cases[i].want);
		buf_free(&b);
	}
}

/* Label values: \\, \" and \n escaped, invalid UTF-8 (a lone continuation byte,
 * a truncated sequence, an overlong '/', a surrogate) replaced, valid UTF-8 kept. */
static void test_escape_label_value(void **state)
{
	struct buf b = BUF_INIT;

	assert_int_equal(metric_escape_label_value(&b, "mlx5_0"), 0);
	buf_puts(&b, "|");
	assert_int_equal(metric_escape_label_value(&b, "a\\b\"c\nd"), 0);
	buf_puts(&b, "|");
	assert_int_equal(metric_escape_label_value(&b, "\x80x\xc3\xc0\xaf\xc3\xa9\xed\xa0\x80"), 0);
	assert_string_equal(b.data, "mlx5_0|a\\\\b\\\"c\\nd|\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd"
				    "\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	buf_free(&b);
}

/* HELP escapes backslash and newline only. */
static void test_escape_help(void **state)
{
	struct buf b = BUF_INIT;

	metric_escape_help(&b, "a \\ \"b\"\nc");
	assert_string_equal(b.data, "a \\\\ \"b\"\\nc");
	buf_free(&b);
}

/* A rendered label set read back pair by pair; text the sink does not write refused. */
static void test_labels_next(void **state)
{
	struct buf name = BUF_INIT, value = BUF_INIT;
	const char *c = "{device=\"mlx5_0\",v=\"a\\\\b\\\"\\n\",e=\"\"}";
	const char *bad[] = {"x", "{a=b}", "{=\"b\"}", "{a=\"b\\x\"}", "{a=\"b", "{a=\"b\"x"};

	assert_int_equal(metric_labels_next(&c, &name, &value), 1);
	assert_string_equal(name.data, "device");
	assert_string_equal(value.data, "mlx5_0");
	assert_int_equal(metric_labels_next(&c, &name, &value), 1);
	assert_string_equal(name.data, "v");
	assert_string_equal(value.data, "a\\b\"\n");
	assert_int_equal(metric_labels_next(&c, &name, &value), 1);
	assert_string_equal(name.data, "e");
	assert_string_equal(value.data, "");
	assert_int_equal(metric_labels_next(&c, &name, &value), 0);
	c = "";
	assert_int_equal(metric_labels_next(&c, &name, &value), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = bad[i];
		if (metric_labels_next(&c, &name, &value) != -EINVAL)
			fail_msg("\"%s\" not refused", bad[i]);
	}
	buf_free(&name);
	buf_free(&value);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_escape_label_value),
		cmocka_unit_test(test_escape_help),
		cmocka_unit_test(test_labels_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
