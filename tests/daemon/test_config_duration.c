// SPDX-License-Identifier: Apache-2.0
/* Durations as flags take them: parsed, formatted back (config_duration.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/config_duration.h"

static void test_durations(void **state)
{
	struct {
		const char *in;
		int rc;
		uint64_t ms;
	} cases[] = {
		{"500ms", 0, 500},
		{"1s", 0, 1000},
		{"1m", 0, 60000},
		{"5s", 0, 5000},
		{"1h", 0, 3600000},
		{"1d", 0, 86400000},
		{"1m30s", 0, 90000},
		{"1h1m1s1ms", 0, 3661001},
		{"0", 0, 0},
		{"", -EINVAL, 0},
		{"5", -EINVAL, 0},
		{"s", -EINVAL, 0},
		/* what Prometheus users type */
		{"1.5s", 0, 1500},
		{"1h30m", 0, 5400000},
		{"2w", 0, 14 * 86400000ULL},
		{"1y", 0, 365 * 86400000ULL},
		{"1y2w3d4h5m6s7ms", 0, 365 * 86400000ULL + 17 * 86400000ULL + 14706007},
		{"0.5h", 0, 1800000},
		{"1.25m", 0, 75000},
		{"0s", 0, 0},
		{"0.001s", 0, 1},
		{"1.500000000000s", 0, 1500},
		{"1m0.5s", 0, 60500},
		/* and what they should not */
		{"1.0005s", -EINVAL, 0},
		{"0.5ms", -EINVAL, 0},
		{"1.s", -EINVAL, 0},
		{".5s", -EINVAL, 0},
		{"1..5s", -EINVAL, 0},
		{"1.5", -EINVAL, 0},
		{"1,5s", -EINVAL, 0},
		{"30s1m", -EINVAL, 0},
		{"1s1s", -EINVAL, 0},
		{"1m1m", -EINVAL, 0},
		{"1ms1s", -EINVAL, 0},
		{"1S", -EINVAL, 0},
		{"+1s", -EINVAL, 0},
		{"1 s", -EINVAL, 0},
		{"1e3ms", -EINVAL, 0},
		{"1.0000000001s", -EINVAL, 0},
		{"99999999999999999999s1x", -EINVAL, 0},
		{"-1s", -EINVAL, 0},
		{"1x", -EINVAL, 0},
		{"1s ", -EINVAL, 0},
		{"10us", -EINVAL, 0},
		{"99999999999999999999ms", -ERANGE, 0},
		{"999999999999999999d", -ERANGE, 0},
		{"600000000y", -ERANGE, 0},
		{"584942417y19w", -ERANGE, 0}, /* the sum overflows */
		{"584942417y18w", 0, 584942417ULL * 365 * 86400000 + 126 * 86400000ULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t ms = 12345;
		int rc = config_parse_duration_ms(cases[i].in, &ms);

		if (rc != cases[i].rc)
			fail_msg("\"%s\": rc %d, want %d", cases[i].in, rc, cases[i].rc);
		if (rc == 0 && ms != cases[i].ms)
			fail_msg("\"%s\": %llu ms, want %llu", cases[i].in, (unsigned long long)ms,
				 (unsigned long long)cases[i].ms);
	}
}

/* --help and the error messages write ranges in the largest unit that divides them. */
static void test_format(void **state)
{
	struct {
		uint64_t ms;
		const char *out;
	} cases[] = {
		{0, "0ms"},	{1, "1ms"},    {100, "100ms"},	{1000, "1s"},	   {1500, "1500ms"},
		{90000, "90s"}, {60000, "1m"}, {3600000, "1h"}, {86400000, "24h"}, {5400000, "90m"},
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_format_duration_ms(cases[i].ms, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].out);
	}
}

/* A flag's value: "not a duration", or "out of range" with the range it takes. */
static void test_flag(void **state)
{
	char err[512];
	uint64_t ms = 0;

	assert_int_equal(config_parse_duration_flag("x.timeout", 9, "2s", 1000, 60000, &ms, err,
						    sizeof(err)),
			 0);
	assert_int_equal(ms, 2000);
	assert_int_equal(config_parse_duration_flag("x.timeout=5", 9, "5", 1000, 60000, &ms, err,
						    sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--x.timeout: \"5\" is not a duration"));
	assert_non_null(strstr(err, "from 1s to 1m"));
	assert_int_equal(config_parse_duration_flag("x.timeout", 9, "2m", 1000, 60000, &ms, err,
						    sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--x.timeout: 2m is out of range (1s to 1m)");
	assert_int_equal(config_parse_duration_flag("x.timeout", 9, "600000000y", 1000, 60000, &ms,
						    err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--x.timeout: 600000000y is out of range (1s to 1m)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
