// SPDX-License-Identifier: Apache-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/devfilter.h"

static void test_include_exclude(void **state)
{
	char err[128];
	struct device_filter *f = device_filter_new("mlx5_.*", "mlx5_1", err, sizeof(err));

	assert_non_null(f);
	assert_true(device_filter_match(f, "mlx5_0"));
	assert_false(device_filter_match(f, "mlx5_1"));
	/* anchored: mlx5_1 must not exclude mlx5_10 */
	assert_true(device_filter_match(f, "mlx5_10"));
	assert_false(device_filter_match(f, "rxe0"));
	assert_false(device_filter_match(f, "xmlx5_0"));
	device_filter_free(f);
}

/* The verdict names the flag that dropped a device (the no-device log). */
static void test_verdict(void **state)
{
	char err[128];
	struct device_filter *f = device_filter_new("mlx5_.*", "mlx5_1", err, sizeof(err));

	assert_non_null(f);
	assert_int_equal(device_filter_check(f, "mlx5_0"), DEVICE_FILTER_KEEP);
	assert_int_equal(device_filter_check(f, "mlx5_1"), DEVICE_FILTER_EXCLUDED);
	assert_int_equal(device_filter_check(f, "rxe0"), DEVICE_FILTER_NOT_INCLUDED);
	assert_int_equal(device_filter_check(NULL, "rxe0"), DEVICE_FILTER_KEEP);
	device_filter_free(f);
}

static void test_none(void **state)
{
	char err[128];
	struct device_filter *f = device_filter_new(NULL, NULL, err, sizeof(err));

	assert_true(device_filter_match(f, "anything"));
	assert_true(device_filter_match(NULL, "anything"));
	device_filter_free(f);
	device_filter_free(NULL);
}

static void test_alternation(void **state)
{
	char err[128];
	struct device_filter *f = device_filter_new(NULL, "mlx5_2|mlx5_3", err, sizeof(err));

	assert_true(device_filter_match(f, "mlx5_0"));
	assert_false(device_filter_match(f, "mlx5_2"));
	assert_false(device_filter_match(f, "mlx5_3"));
	device_filter_free(f);
}

static void test_bad_regex(void **state)
{
	char err[128] = "";

	assert_null(device_filter_new("mlx5_(", NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "--collector.device-include"));
	assert_null(device_filter_new(NULL, "[z-a]", err, sizeof(err)));
	assert_non_null(strstr(err, "--collector.device-exclude"));
}

/* Stacked repetitions make glibc's regcomp take gigabytes (found by the
 * config_flags fuzzer): refused before regcomp, and quickly. */
static void test_costly_regex(void **state)
{
	static const char *const bad[] = {"mlx5++",
					  "a*+",
					  "a+*",
					  "a?+",
					  "a{2}+",
					  "a*{2}",
					  "mlx5++++++++++++++++++++++++++++++"};
	static const char *const good[] = {"mlx5_[0-9]+", "[*+]+",  "a\\++", "(a+)+",
					   "a{1,2}",	  "x[]+]*", "[^]*]?"};
	char err[160] = "", big[REGEX_MAX_LEN + 2];
	struct device_filter *f;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_non_null(regex_cost_problem(bad[i]));
		assert_null(device_filter_new(bad[i], NULL, err, sizeof(err)));
		assert_non_null(strstr(err, "repetition operator"));
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (regex_cost_problem(good[i]))
			fail_msg("%s refused: %s", good[i], regex_cost_problem(good[i]));
		f = device_filter_new(good[i], NULL, err, sizeof(err));
		assert_non_null(f);
		device_filter_free(f);
	}
	/* 33 operators, each on its own group */
	assert_non_null(regex_cost_problem("(((((((((((((((((((((((((((((((((a)+)+)+)+)+)+)+)+)+)+)"
					   "+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+)+"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_non_null(regex_cost_problem(big));
	big[REGEX_MAX_LEN] = '\0';
	assert_null(regex_cost_problem(big));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_include_exclude), cmocka_unit_test(test_none),
		cmocka_unit_test(test_alternation),	cmocka_unit_test(test_bad_regex),
		cmocka_unit_test(test_costly_regex),	cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
