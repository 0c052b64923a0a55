// SPDX-License-Identifier: Apache-2.0
/*
 * webconfig_parse on big hostile files, in bounded time: nesting beyond
 * WEBCONFIG_MAX_DEPTH is refused at once (libyaml alone takes time quadratic
 * in the depth), and tens of thousands of basic_auth_users parse in time
 * linear in their number, a repeated name still found with its line. The
 * bounds are generous (a loaded machine, sanitizers); the fixed code takes
 * milliseconds, the quadratic one took 10 to 16 s.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "http/webconfig.h"

/* A cost-10 hash of the right shape: the parser checks the shape, not the password. */
#define HASH "$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"

static char err[512];

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Parses yaml and returns the seconds it took; *out gets the result. */
static double timed_parse(const char *yaml, struct webconfig **out)
{
	double t0 = now_s();

	err[0] = '\0';
	*out = webconfig_parse(yaml, strlen(yaml), "/d", err, sizeof(err));
	return now_s() - t0;
}

/* depth levels of open, then of close, around "x" (open "{a: ", close "}"). */
static char *nested(unsigned depth, const char *open, const char *close)
{
	size_t lo = strlen(open), lc = strlen(close), len = depth * (lo + lc) + 2;
	char *s = malloc(len), *p = s;

	assert_non_null(s);
	for (unsigned i = 0; i < depth; i++, p += lo)
		memcpy(p, open, lo);
	*p++ = 'x';
	for (unsigned i = 0; i < depth; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	return s;
}

static void assert_too_deep(const char *yaml)
{
	struct webconfig *wc;
	char want[64];
	double s = timed_parse(yaml, &wc);

	snprintf(want, sizeof(want), "nested deeper than %d levels", WEBCONFIG_MAX_DEPTH);
	assert_null(wc);
	if (!strstr(err, want))
		fail_msg("error \"%s\" does not name the limit", err);
	if (s > 2.0)
		fail_msg("%.2f s to refuse a deep file", s);
	print_message("refused in %.3f s: %s\n", s, err);
}

static void test_deep_nesting_refused_fast(void **state)
{
	char *yaml;

	(void)state;
	/* 60,000 levels of flow mappings (about 300 KB): took 16 s before */
	yaml = nested(60000, "{a: ", "}");
	assert_too_deep(yaml);
	free(yaml);
	/* flow sequences, under a key of the format */
	yaml = nested(60000, "[", "]");
	assert_too_deep(yaml);
	free(yaml);
}

static void test_depth_limit_exact(void **state)
{
	struct webconfig *wc;
	char *yaml;

	(void)state;
	/* At the limit: refused for its content (an unknown key), not its depth. */
	yaml = nested(WEBCONFIG_MAX_DEPTH, "{a: ", "}");
	timed_parse(yaml, &wc);
	assert_null(wc);
	assert_non_null(strstr(err, "unknown key \"a\""));
	free(yaml);
	/* One more: the depth. */
	yaml = nested(WEBCONFIG_MAX_DEPTH + 1, "{a: ", "}");
	assert_too_deep(yaml);
	free(yaml);
	/* Block style counts the same. */
	wc = webconfig_parse("a:\n b:\n  c: [[x]]\n", 18, NULL, err, sizeof(err));
	assert_null(wc);
	assert_non_null(strstr(err, "unknown key \"a\""));
}

/* n users u0..u(n-1), then extra (a line or ""). */
static char *users_file(unsigned n, const char *extra)
{
	size_t len = 32 + (size_t)n * (16 + sizeof(HASH) + 4) + strlen(extra);
	char *s = malloc(len), *p = s;

	assert_non_null(s);
	p += sprintf(p, "basic_auth_users:\n");
	for (unsigned i = 0; i < n; i++)
		p += sprintf(p, "  u%u: \"%s\"\n", i, HASH);
	strcpy(p, extra);
	return s;
}

static void test_many_users_linear(void **state)
{
	struct webconfig *wc;
	char *yaml;
	double s;

	(void)state;
	/* 55,000 users, about 3.9 MB (under the 4 MiB file cap): took 10 s before */
	yaml = users_file(55000, "");
	assert_true(strlen(yaml) < (4u << 20));
	s = timed_parse(yaml, &wc);
	if (!wc)
		fail_msg("refused: %s", err);
	assert_int_equal(wc->n_users, 55000);
	assert_string_equal(wc->users[54999].name, "u54999");
	webconfig_free(wc);
	free(yaml);
	print_message("55000 users parsed in %.3f s\n", s);
	if (s > 3.0)
		fail_msg("%.2f s to parse 55000 users", s);

	/* The same with u17 again at the end: found, with its line (header + 55,000 + 1). */
	yaml = users_file(55000, "  u17: \"" HASH "\"\n");
	s = timed_parse(yaml, &wc);
	free(yaml);
	assert_null(wc);
	assert_string_equal(err, "line 55002: basic_auth_users: key \"u17\" is given twice");
	if (s > 3.0)
		fail_msg("%.2f s to find the repeated user", s);
}

/* The first repeat is the one reported, where the pair-by-pair check did. */
static void test_first_repeat_reported(void **state)
{
	struct webconfig *wc;

	(void)state;
	timed_parse("basic_auth_users:\n"
		    "  a: \"" HASH "\"\n"
		    "  b: \"" HASH "\"\n"
		    "  b: \"" HASH "\"\n"
		    "  a: \"" HASH "\"\n",
		    &wc);
	assert_null(wc);
	assert_string_equal(err, "line 4: basic_auth_users: key \"b\" is given twice");
	/* a bad value before the repeat is reported first, as before */
	timed_parse("basic_auth_users:\n"
		    "  a: \"" HASH "\"\n"
		    "  b: nohash\n"
		    "  a: \"" HASH "\"\n",
		    &wc);
	assert_null(wc);
	assert_non_null(strstr(err, "line 3: "));
	assert_non_null(strstr(err, "not a bcrypt hash"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep_nesting_refused_fast),
		cmocka_unit_test(test_depth_limit_exact),
		cmocka_unit_test(test_many_users_linear),
		cmocka_unit_test(test_first_repeat_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
