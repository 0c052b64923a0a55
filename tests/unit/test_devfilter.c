// SPDX-License-Identifier: Apache-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "devfilter.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_include_exclude),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_alternation),
		cmocka_unit_test(test_bad_regex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
