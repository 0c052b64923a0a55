// SPDX-License-Identifier: Apache-2.0
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "snapshot.h"

static char *gunzip(const char *in, size_t len, size_t *out_len)
{
	z_stream zs = {0};
	size_t cap = 1 << 20;
	char *out = malloc(cap);

	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	inflateEnd(&zs);
	return out;
}

static void test_gzip_roundtrip(void **state)
{
	const char *text = "# HELP a b\n# TYPE a gauge\na 1\n";
	struct snapshot *s = snapshot_new(strdup(text), strlen(text));
	size_t gzlen, plain_len, len;
	const char *gz, *plain;
	char *back;

	plain = snapshot_text(s, &plain_len);
	assert_int_equal(plain_len, strlen(text));
	gz = snapshot_gzip(s, &gzlen);
	assert_non_null(gz);
	/* gzip magic */
	assert_int_equal((unsigned char)gz[0], 0x1f);
	assert_int_equal((unsigned char)gz[1], 0x8b);
	/* made once */
	assert_ptr_equal(snapshot_gzip(s, &len), gz);
	back = gunzip(gz, gzlen, &len);
	assert_int_equal(len, plain_len);
	assert_memory_equal(back, plain, len);
	free(back);
	snapshot_unref(s);
}

static void test_slot(void **state)
{
	struct snapshot_slot slot;
	struct snapshot *a, *b, *got;
	size_t len;

	snapshot_slot_init(&slot);
	assert_null(snapshot_slot_get(&slot));
	a = snapshot_new(strdup("a"), 1);
	snapshot_slot_publish(&slot, a);
	got = snapshot_slot_get(&slot);
	assert_ptr_equal(got, a);
	/* a reader keeps its snapshot alive across a publish */
	b = snapshot_new(strdup("b"), 1);
	snapshot_slot_publish(&slot, b);
	assert_memory_equal(snapshot_text(got, &len), "a", 1);
	assert_true(snapshot_age_ms(got) < 60000);
	snapshot_unref(got);
	got = snapshot_slot_get(&slot);
	assert_memory_equal(snapshot_text(got, &len), "b", 1);
	snapshot_unref(got);
	snapshot_slot_destroy(&slot);
	snapshot_unref(NULL);
}

static void test_empty_gzip(void **state)
{
	size_t len;
	char *gz = gzip_compress("", 0, &len);

	assert_non_null(gz);
	assert_true(len >= 18); /* header + trailer */
	free(gz);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gzip_roundtrip),
		cmocka_unit_test(test_slot),
		cmocka_unit_test(test_empty_gzip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
