// SPDX-License-Identifier: Apache-2.0
/* The --check.* flags: taken out of argv, the rest kept in order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "check/check_flags.h"

static int parse(struct check_options *o, char **rest, int *n, char *err, int argc, ...)
{
	char *argv[32];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	err[0] = '\0';
	return check_flags_parse(o, argc, argv, rest, n, err, 200);
}

static void test_defaults_and_rest(void **state)
{
	struct check_options o;
	char *rest[32], err[200];
	int n;

	(void)state;
	assert_int_equal(
		parse(&o, rest, &n, err, 4, "check", "--path.sysfs=/x", "--check.window", "2s"), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rest[0], "check");
	assert_string_equal(rest[1], "--path.sysfs=/x");
	assert_int_equal(o.window_ms, 2000);
	assert_true(o.cfg.window_s == 2);
	assert_false(o.json);
	assert_true(o.cfg.ports && o.cfg.counters && o.cfg.pfc && o.cfg.resources && o.cfg.probe &&
		    o.cfg.peers && o.cfg.pcie);
	assert_null(o.expect);
	assert_null(o.expect_pcie);
	assert_true(o.cfg.resource_max_ratio == 0.9);
	assert_true(o.cfg.flaps);
	assert_int_equal(o.cfg.flap_hold_s, 600);
	assert_null(o.state_file);
}

static void test_flaps(void **state)
{
	struct check_options o;
	char *rest[32], err[200];
	int n;

	(void)state;
	assert_int_equal(parse(&o, rest, &n, err, 4, "check", "--check.flap-hold=1h30m",
			       "--check.state-file", "/run/x/state"),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(o.cfg.flap_hold_s, 5400);
	assert_string_equal(o.state_file, "/run/x/state");
	assert_int_equal(parse(&o, rest, &n, err, 3, "check", "--check.flap-hold=1500ms",
			       "--no-check.flaps"),
			 0);
	assert_int_equal(o.cfg.flap_hold_s, 2); /* rounded up to whole seconds */
	assert_false(o.cfg.flaps);
	assert_int_equal(parse(&o, rest, &n, err, 2, "check", "--check.flap-hold=0"), 0);
	assert_int_equal(o.cfg.flap_hold_s, 0);
	assert_int_equal(parse(&o, rest, &n, err, 2, "check", "--check.flap-hold=7d"), 0);
	assert_int_equal(o.cfg.flap_hold_s, 7 * 24 * 3600);
}

static void test_values(void **state)
{
	struct check_options o;
	char *rest[32], err[200];
	int n;

	(void)state;
	assert_int_equal(parse(&o, rest, &n, err, 14, "check", "--check.format=json",
			       "--check.expect=mlx5_[0-7]@400", "--no-check.pfc",
			       "--check.rate-min=200", "--check.ports-min", "8",
			       "--check.counter=symbol_errors:5,link_downed:off",
			       "--check.pause-max-ratio=0.25", "--check.resource-max-ratio=1",
			       "--check.storm-max=3", "--check.probe-max-lost=2",
			       "--no-check.peers", "--collector.probe"),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(rest[1], "--collector.probe");
	assert_true(o.json);
	assert_string_equal(o.expect, "mlx5_[0-7]@400");
	assert_false(o.cfg.pfc);
	assert_false(o.cfg.peers);
	assert_true(o.cfg.rate_min_gbps == 200);
	assert_int_equal(o.cfg.ports_min, 8);
	assert_true(check_config_counter(&o.cfg, "symbol_errors")->max_increase == 5);
	assert_false(check_config_counter(&o.cfg, "link_downed")->on);
	assert_true(o.cfg.pause_max_ratio == 0.25);
	assert_true(o.cfg.resource_max_ratio == 1);
	assert_true(o.cfg.storm_max_increase == 3);
	assert_int_equal(o.cfg.probe_max_lost, 2);
	assert_int_equal(parse(&o, rest, &n, err, 2, "check", "--check.window=0"), 0);
	assert_int_equal(o.window_ms, 0);
	assert_int_equal(parse(&o, rest, &n, err, 4, "check", "--check.expect-pcie",
			       "mlx5_[0-7]@32x16", "--no-check.pcie"),
			 0);
	assert_string_equal(o.expect_pcie, "mlx5_[0-7]@32x16");
	assert_false(o.cfg.pcie);
	assert_int_equal(n, 1);
}

static void test_errors(void **state)
{
	static const char *const bad[] = {
		"--check.format=yaml",
		"--check.window=11m",
		"--check.window=x",
		"--check.nope",
		"--no-check.window",
		"--check.pfc=1",
		"--check.counter=nope:1",
		"--check.counter=symbol_errors",
		"--check.counter=symbol_errors:x",
		"--check.rate-min=-1",
		"--check.pause-max-ratio=2",
		"--check.ports-min=x",
		"--check.expect=",
		"--check.expect-pcie=",
		"--no-check.expect-pcie=x",
		"--check.pcie=1",
		"--check.window",
		"--check.resource-max-ratio=1e3",
		"--check.flap-hold=8d",
		"--check.flap-hold=soon",
		"--check.state-file=",
		"--no-check.state-file=x",
		"--check.flaps=1",
	};
	struct check_options o;
	char *rest[32], err[200];
	int n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&o, rest, &n, err, 2, "check", bad[i]), -EINVAL);
		assert_true(err[0] != '\0' && !strchr(err, '\n'));
	}
	assert_int_equal(parse(&o, rest, &n, err, 3, "check", "--check.window", "--path.sysfs=/"),
			 -EINVAL);
	assert_string_equal(err, "--check.window needs a value");
	assert_int_equal(
		parse(&o, rest, &n, err, 3, "check", "--check.expect=a", "--check.expect-file=b"),
		-EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_rest),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_flaps),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
