// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz-style regression test of the sysfs parsers: sysfs_parse_fuzz_one()
 * over every file of the fixture trees (the committed corpus), every prefix
 * of each, and random byte strings from a fixed seed. Run under ASan+UBSan
 * this catches out-of-bounds reads and overflows; the function itself
 * aborts when a returned span leaves the input.
 */
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "sysfs_parse.h"

static size_t n_files;

/* Exactly size bytes in a heap buffer of that size, so ASan sees overreads. */
static void fuzz_exact(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);

	assert_non_null(copy);
	if (size)
		memcpy(copy, data, size);
	assert_int_equal(sysfs_parse_fuzz_one(copy, size), 0);
	free(copy);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	uint8_t buf[8192];
	ssize_t n;
	int fd;

	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return 0;
	n_files++;
	for (size_t len = 0; len <= (size_t)n; len++)
		fuzz_exact(buf, len);
	return 0;
}

static void test_fixture_corpus(void **state)
{
	const char *fixtures = getenv("FIXTURES");
	char root[4096];

	if (!fixtures)
		skip();
	snprintf(root, sizeof(root), "%s/sysfs", fixtures);
	n_files = 0;
	/* FTW_PHYS: do not follow the device symlinks twice. */
	assert_int_equal(nftw(root, visit, 16, FTW_PHYS), 0);
	assert_true(n_files > 300);
}

/* xorshift64*: a fixed seed, the same strings on every run. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static void test_random_bytes(void **state)
{
	/* Bytes the parsers look for, so random strings get past the first check. */
	static const char alphabet[] = "0123456789 :.\n\t/xXaAbBfF-NGbsec()ACTIVE\0\xff";
	uint64_t seed = 0x5eed5eed5eedULL;
	uint8_t buf[64];

	for (int i = 0; i < 200000; i++) {
		size_t len = rng_next(&seed) % sizeof(buf);
		bool raw = rng_next(&seed) & 1;

		for (size_t j = 0; j < len; j++) {
			uint64_t r = rng_next(&seed);

			buf[j] = raw ? (uint8_t)r : (uint8_t)alphabet[r % (sizeof(alphabet) - 1)];
		}
		fuzz_exact(buf, len);
	}
}

static void test_known_tricky(void **state)
{
	static const char *const inputs[] = {
		"",
		"\n",
		"N/A (no PMA)\n",
		"18446744073709551616",
		"147573952590 Gb/sec",
		"0.999999999 Gb/sec (1X SDR)",
		"4294967296",
		"1: ",
		"/",
		"//..//",
		"0x",
		"0xffffffffffffffffff",
		"99999999999999999999: LinkUp",
	};

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
		fuzz_exact((const uint8_t *)inputs[i], strlen(inputs[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_tricky),
		cmocka_unit_test(test_fixture_corpus),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
