// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "exposition/snapshot.h"

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
	/* nothing until the poller compresses it */
	assert_null(snapshot_gzip(s, &gzlen));
	assert_int_equal(gzlen, 0);
	assert_int_equal(snapshot_compress(s), 0);
	gz = snapshot_gzip(s, &gzlen);
	assert_non_null(gz);
	/* gzip magic */
	assert_int_equal((unsigned char)gz[0], 0x1f);
	assert_int_equal((unsigned char)gz[1], 0x8b);
	/* made once: the same bytes for every request */
	assert_ptr_equal(snapshot_gzip(s, &len), gz);
	back = gunzip(gz, gzlen, &len);
	assert_int_equal(len, plain_len);
	assert_memory_equal(back, plain, len);
	free(back);
	snapshot_unref(s);
}

/* The protobuf copy: owned, served as is, compressed once with the text. */
static void test_proto_copy(void **state)
{
	const char pb[] = "\x03\x0a\x01\x61";
	struct snapshot *s = snapshot_new(strdup("a 1\n"), 4);
	size_t len, gzlen;
	const char *gz;
	char *back;

	assert_null(snapshot_proto(s, &len));
	assert_int_equal(len, 0);
	snapshot_set_proto(s, memcpy(malloc(4), pb, 4), 4);
	assert_memory_equal(snapshot_proto(s, &len), pb, 4);
	assert_int_equal(len, 4);
	assert_null(snapshot_proto_gzip(s, &gzlen));
	assert_int_equal(snapshot_compress(s), 0);
	gz = snapshot_proto_gzip(s, &gzlen);
	assert_non_null(gz);
	assert_ptr_equal(snapshot_proto_gzip(s, &len), gz);
	back = gunzip(gz, gzlen, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(back, pb, 4);
	free(back);
	/* replacing drops the old copy and its gzip */
	snapshot_set_proto(s, NULL, 0);
	assert_null(snapshot_proto(s, &len));
	assert_null(snapshot_proto_gzip(s, &len));
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

/* A big rendering (many series, like a 16-device host) survives the round trip. */
static void test_gzip_big(void **state)
{
	size_t cap = 4 << 20, n = 0, gzlen, len;
	char *text = malloc(cap), *back;
	struct snapshot *s;
	const char *gz;

	assert_non_null(text);
	for (unsigned i = 0; n + 128 < cap; i++)
		n += (size_t)snprintf(text + n, cap - n,
				      "rdma_port_counter_total{device=\"mlx5_%u\",port=\"1\"} %u\n",
				      i % 16, i * 2654435761u);
	s = snapshot_new(text, n);
	assert_int_equal(snapshot_compress(s), 0);
	gz = snapshot_gzip(s, &gzlen);
	assert_true(gzlen < n / 4);
	z_stream zs = {0};
	back = malloc(n + 1);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)gz;
	zs.avail_in = (uInt)gzlen;
	zs.next_out = (Bytef *)back;
	zs.avail_out = (uInt)(n + 1);
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	len = zs.total_out;
	inflateEnd(&zs);
	assert_int_equal(len, n);
	assert_memory_equal(back, snapshot_text(s, &len), n);
	free(back);
	snapshot_unref(s);
}

/* The text dropped after compression: the copy comes from the gzip bytes. */
static void test_drop_text(void **state)
{
	const char *text = "# TYPE a counter\na_total 1\nb 2\n";
	size_t n = strlen(text), len;
	struct snapshot *s = snapshot_new(strdup(text), n);
	char *copy, small[8];
	const char *gz;
	size_t gzlen;

	(void)state;
	/* without a gzip copy, the text stays */
	snapshot_drop_text(s);
	assert_non_null(snapshot_text(s, &len));
	assert_int_equal(snapshot_compress(s), 0);
	snapshot_drop_text(s);
	assert_null(snapshot_text(s, &len));
	assert_int_equal(len, n);
	copy = snapshot_text_copy(s, &len);
	assert_non_null(copy);
	assert_int_equal(len, n);
	assert_memory_equal(copy, text, n);
	free(copy);
	/* gzip_decompress takes exactly the length it is told */
	gz = snapshot_gzip(s, &gzlen);
	assert_int_equal(gzip_decompress(gz, gzlen, small, sizeof(small)), -EINVAL);
	copy = malloc(n + 1);
	assert_non_null(copy);
	assert_int_equal(gzip_decompress(gz, gzlen, copy, n + 1), -EINVAL);
	assert_int_equal(gzip_decompress(gz, gzlen - 1, copy, n), -EINVAL);
	assert_int_equal(gzip_decompress(text, n, copy, n), -EINVAL);
	assert_int_equal(gzip_decompress(gz, gzlen, copy, n), 0);
	assert_memory_equal(copy, text, n);
	free(copy);
	snapshot_unref(s);
}

/*
 * Reference counting as the HTTP server uses it: each response holds a
 * reference to the snapshot whose bytes it sends and drops it in MHD's free
 * callback, which may come long after newer polls were published. The
 * bytes stay valid (ASan would flag a use after free) until the last one.
 */
static void test_refcount_outlives_publish(void **state)
{
	struct snapshot_slot slot;
	struct snapshot *s, *responses[3];
	const char *body, *gz;
	size_t len, gzlen;

	snapshot_slot_init(&slot);
	s = snapshot_new(strdup("old poll\n"), 9);
	assert_int_equal(snapshot_compress(s), 0);
	snapshot_slot_publish(&slot, s);
	for (int i = 0; i < 3; i++)
		responses[i] = snapshot_slot_get(&slot);
	body = snapshot_text(responses[0], &len);
	gz = snapshot_gzip(responses[1], &gzlen);
	/* two newer polls replace it in the slot */
	snapshot_slot_publish(&slot, snapshot_new(strdup("new poll\n"), 9));
	snapshot_slot_publish(&slot, snapshot_new(strdup("newer\n"), 6));
	snapshot_unref(responses[2]);
	assert_memory_equal(body, "old poll\n", 9);
	snapshot_unref(responses[0]);
	/* the gzip body is still readable by the last response */
	assert_int_equal((unsigned char)gz[0], 0x1f);
	assert_true(gzlen > 0);
	snapshot_unref(responses[1]);
	/* snapshot_ref of NULL is NULL, unref of NULL a no-op */
	assert_null(snapshot_ref(NULL));
	snapshot_unref(NULL);
	snapshot_slot_destroy(&slot);
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
		cmocka_unit_test(test_proto_copy),
		cmocka_unit_test(test_empty_gzip),
		cmocka_unit_test(test_gzip_big),
		cmocka_unit_test(test_refcount_outlives_publish),
		cmocka_unit_test(test_drop_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
