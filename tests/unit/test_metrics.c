// SPDX-License-Identifier: Apache-2.0
/* Exposition writer: escaping, grouping, exact integers, validation. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"

static char *render(struct metric_sink *s)
{
	struct buf b = BUF_INIT;

	assert_int_equal(metric_sink_render(s, &b), 0);
	if (!b.data)
		buf_puts(&b, "");
	return buf_steal(&b, NULL);
}

static void test_u64_exact(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* 2^64-1 and 2^53+1 are not representable as doubles */
	assert_int_equal(metric_sink_add_u64(s, "x_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"a", "1"}), UINT64_MAX),
			 0);
	assert_int_equal(metric_sink_add_u64(s, "x_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"a", "2"}), 9007199254740993ULL),
			 0);
	out = render(s);
	assert_string_equal(out, "# HELP x_total h\n"
				 "# TYPE x_total counter\n"
				 "x_total{a=\"1\"} 18446744073709551615\n"
				 "x_total{a=\"2\"} 9007199254740993\n");
	free(out);
	metric_sink_free(s);
}

static void test_label_escaping(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	assert_int_equal(metric_sink_add_u64(s, "m", "help with \\ and\nnewline", METRIC_GAUGE,
					     METRIC_LABELS({"v", "a\\b\"c\nd"}), 1),
			 0);
	out = render(s);
	assert_string_equal(out, "# HELP m help with \\\\ and\\nnewline\n"
				 "# TYPE m gauge\n"
				 "m{v=\"a\\\\b\\\"c\\nd\"} 1\n");
	free(out);
	metric_sink_free(s);
}

static void test_invalid_utf8_replaced(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* a lone continuation byte, a truncated sequence, an overlong '/' and valid "é" */
	assert_int_equal(metric_sink_add_u64(s, "m", "h", METRIC_GAUGE,
					     METRIC_LABELS({"v", "\x80x\xc3\xc0\xaf\xc3\xa9"}), 1),
			 0);
	out = render(s);
	assert_non_null(strstr(
		out, "m{v=\"\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\"} 1\n"));
	free(out);
	metric_sink_free(s);
}

static void test_grouping_and_order(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* interleaved adds come out as contiguous families sorted by name */
	metric_sink_add_u64(s, "b_total", "B", METRIC_COUNTER, METRIC_LABELS({"d", "1"}), 1);
	metric_sink_add_u64(s, "a", "A", METRIC_GAUGE, METRIC_NO_LABELS, 5);
	metric_sink_add_u64(s, "b_total", "B", METRIC_COUNTER, METRIC_LABELS({"d", "2"}), 2);
	out = render(s);
	assert_string_equal(out, "# HELP a A\n# TYPE a gauge\na 5\n"
				 "# HELP b_total B\n# TYPE b_total counter\n"
				 "b_total{d=\"1\"} 1\nb_total{d=\"2\"} 2\n");
	assert_int_equal(metric_sink_samples(s), 3);
	free(out);
	metric_sink_free(s);
}

static void test_rejects(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	assert_int_equal(metric_sink_add_u64(s, "9bad", "h", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "bad-name", "h", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "", "h", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE,
					     METRIC_LABELS({"__reserved", "x"}), 1),
			 -EINVAL);
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE, METRIC_LABELS({"a-b", "x"}), 1),
		-EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE,
					     METRIC_LABELS({"a", "x"}, {"a", "y"}), 1),
			 -EINVAL);
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE, METRIC_LABELS({"a", "x"}), 1), 0);
	/* same series twice */
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE, METRIC_LABELS({"a", "x"}), 2),
		-EEXIST);
	/* same family, other type */
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_COUNTER, METRIC_LABELS({"a", "y"}), 2),
		-EPROTO);
	assert_int_equal(metric_sink_errors(s), 8);
	out = render(s);
	assert_string_equal(out, "# HELP ok h\n# TYPE ok gauge\nok{a=\"x\"} 1\n");
	free(out);
	metric_sink_free(s);
}

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

static void test_empty_and_no_labels(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out = render(s);

	assert_string_equal(out, "");
	free(out);
	metric_sink_add_double(s, "t_seconds", "", METRIC_GAUGE, METRIC_NO_LABELS, 0.25);
	metric_sink_add_u64(s, "u", "x", METRIC_UNTYPED, METRIC_LABELS({"l", ""}), 0);
	out = render(s);
	assert_string_equal(out, "# HELP t_seconds \n# TYPE t_seconds gauge\nt_seconds 0.25\n"
				 "# HELP u x\n# TYPE u untyped\nu{l=\"\"} 0\n");
	free(out);
	metric_sink_free(s);
	metric_sink_free(NULL);
}

static void test_many_series(void **state)
{
	/* exercises index growth and the arena across chunks */
	struct metric_sink *s = metric_sink_new();
	char name[32], val[32];
	struct buf b = BUF_INIT;

	for (unsigned i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fam_%u_total", i % 97);
		snprintf(val, sizeof(val), "%u", i);
		assert_int_equal(metric_sink_add_u64(s, name, "h", METRIC_COUNTER,
						     METRIC_LABELS({"i", val}), i),
				 0);
	}
	assert_int_equal(metric_sink_add_u64(s, "fam_5_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"i", "5"}), 1),
			 -EEXIST);
	assert_int_equal(metric_sink_samples(s), 20000);
	assert_int_equal(metric_sink_render(s, &b), 0);
	assert_non_null(strstr(b.data, "fam_5_total{i=\"19987\"} 19987\n"));
	buf_free(&b);
	metric_sink_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_exact),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_invalid_utf8_replaced),
		cmocka_unit_test(test_grouping_and_order),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_empty_and_no_labels),
		cmocka_unit_test(test_many_series),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
