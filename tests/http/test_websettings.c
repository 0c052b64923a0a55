// SPDX-License-Identifier: Apache-2.0
/*
 * web_settings_load reads files by reading them (st_size is not trusted:
 * procfs says 0), says what a non-regular file is, and
 * web_settings_reload_refusal never lets a reload turn basic auth off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "http/websettings.h"

/* a bcrypt hash (cost 4) */
#define HASH "$2y$04$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG"

struct fixture {
	char dir[64], path[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/websettings-test-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/web.yml", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void write_conf(const struct fixture *f, const char *text)
{
	FILE *fp;

	unlink(f->path);
	fp = fopen(f->path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static struct web_settings *load(const struct fixture *f, char *err, size_t errlen)
{
	err[0] = '\0';
	return web_settings_load(f->path, err, errlen);
}

/* With users in force, every way of losing them all is refused. */
static void test_reload_never_drops_every_user(void **state)
{
	static const char *const none[] = {
		"",
		"\n",
		"# rewritten half-way\n",
		"basic_auth_users:\n",
		"basic_auth_users: {}\n",
		"http_server_config:\n  headers:\n    X-Frame-Options: deny\n",
	};
	struct fixture *f = *state;
	struct web_settings *cur, *next;
	char err[512];

	write_conf(f, "basic_auth_users:\n  alice: " HASH "\n");
	cur = load(f, err, sizeof(err));
	assert_non_null(cur);
	assert_int_equal(cur->wc->n_users, 1);
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		write_conf(f, none[i]);
		next = load(f, err, sizeof(err));
		assert_non_null(next);
		assert_int_equal(next->wc->n_users, 0);
		assert_non_null(web_settings_reload_refusal(cur, next));
		assert_non_null(strstr(web_settings_reload_refusal(cur, next),
				       "remove every basic auth user"));
		web_settings_unref(next);
	}
	/* other users: allowed */
	write_conf(f, "basic_auth_users:\n  bob: " HASH "\n");
	next = load(f, err, sizeof(err));
	assert_non_null(next);
	assert_null(web_settings_reload_refusal(cur, next));
	/* turning auth on, or no auth before and after: allowed */
	assert_null(web_settings_reload_refusal(NULL, next));
	web_settings_unref(cur);
	write_conf(f, "");
	cur = load(f, err, sizeof(err));
	assert_non_null(cur);
	assert_null(web_settings_reload_refusal(cur, next));
	assert_null(web_settings_reload_refusal(cur, cur));
	web_settings_unref(next);
	web_settings_unref(cur);
}

/* /proc/self/mem says st_size 0 and fails to read: an error, not an empty config. */
static void test_procfs_size_zero_is_read(void **state)
{
	struct fixture *f = *state;
	struct web_settings *ws;
	char err[512];

	assert_int_equal(symlink("/proc/self/mem", f->path), 0);
	ws = load(f, err, sizeof(err));
	assert_null(ws);
	assert_non_null(strstr(err, "cannot read"));
	unlink(f->path);

	/* a size-0 procfs file that reads text: parsed as what it holds */
	assert_int_equal(symlink("/proc/self/status", f->path), 0);
	ws = load(f, err, sizeof(err));
	assert_null(ws);
}

/* A file larger than st_size claims, and past the buffer's first size, is read whole. */
static void test_long_file_read_whole(void **state)
{
	struct fixture *f = *state;
	struct web_settings *ws;
	char err[512], *text;
	size_t n = 0, cap = 1 << 16;

	text = malloc(cap);
	assert_non_null(text);
	n += (size_t)snprintf(text, cap, "basic_auth_users:\n");
	for (int i = 0; n + 128 < cap; i++)
		n += (size_t)snprintf(text + n, cap - n, "  user%05d: " HASH "\n", i);
	write_conf(f, text);
	free(text);
	ws = load(f, err, sizeof(err));
	assert_non_null(ws);
	assert_true(ws->wc->n_users > 500);
	web_settings_unref(ws);
}

/* A directory or a FIFO says what it is, never "Invalid argument". */
static void test_not_regular_says_what(void **state)
{
	struct fixture *f = *state;
	char err[512];

	assert_int_equal(mkdir(f->path, 0700), 0);
	assert_null(load(f, err, sizeof(err)));
	assert_non_null(strstr(err, "is a directory"));
	rmdir(f->path);
	assert_int_equal(mkfifo(f->path, 0600), 0);
	assert_null(load(f, err, sizeof(err)));
	assert_non_null(strstr(err, "not a regular file"));
	assert_null(strstr(err, "Invalid argument"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reload_never_drops_every_user, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_procfs_size_zero_is_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_file_read_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular_says_what, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
