// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/strparse.h"

static int dec(const char *s, uint64_t *v)
{
	return parse_u64_dec(s, strlen(s), v);
}

static int aut(const char *s, uint64_t *v)
{
	return parse_u64_auto(s, strlen(s), v);
}

static void test_dec(void **state)
{
	uint64_t v = 0;

	assert_int_equal(dec("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(dec("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(dec("18446744073709551616", &v), -ERANGE);
	assert_int_equal(dec("99999999999999999999", &v), -ERANGE);
	assert_int_equal(dec("", &v), -EINVAL);
	assert_int_equal(dec("-1", &v), -EINVAL);
	assert_int_equal(dec("+1", &v), -EINVAL);
	assert_int_equal(dec("12a", &v), -EINVAL);
	assert_int_equal(dec(" 1", &v), -EINVAL);
	assert_int_equal(dec("0x10", &v), -EINVAL);
}

static void test_auto(void **state)
{
	uint64_t v = 0;

	assert_int_equal(aut("0x1", &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(aut("0XfFfF", &v), 0);
	assert_int_equal(v, 0xffff);
	assert_int_equal(aut("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(aut("0x10000000000000000", &v), -ERANGE);
	assert_int_equal(aut("0x", &v), -EINVAL);
	assert_int_equal(aut("0xg", &v), -EINVAL);
	assert_int_equal(aut("42", &v), 0);
	assert_int_equal(v, 42);
}

static void test_trim(void **state)
{
	const char *s = " \t12 \n";
	size_t n = strlen(s);

	str_trim(&s, &n);
	assert_int_equal(n, 2);
	assert_memory_equal(s, "12", 2);
	s = "\n";
	n = 1;
	str_trim(&s, &n);
	assert_int_equal(n, 0);
}

static void test_buf(void **state)
{
	struct buf b = BUF_INIT;
	char *p;
	size_t len;

	for (int i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	assert_false(buf_failed(&b));
	assert_int_equal(strlen(b.data), b.len);
	assert_memory_equal(b.data, "0,1,2,", 6);
	p = buf_steal(&b, &len);
	assert_null(b.data);
	assert_int_equal(strlen(p), len);
	free(p);
	buf_free(&b);
	buf_free(NULL);
}

/* buf_put_u64 prints what "%llu" prints, at the edges too. */
static void test_buf_put_u64(void **state)
{
	static const uint64_t v[] = {0,
				     1,
				     9,
				     10,
				     99,
				     100,
				     4294967295u,
				     4294967296u,
				     9007199254740993ull,
				     UINT64_MAX - 1,
				     UINT64_MAX};
	struct buf a = BUF_INIT, b = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		buf_put_u64(&a, v[i]);
		buf_putc(&a, ' ');
		buf_printf(&b, "%llu ", (unsigned long long)v[i]);
	}
	for (uint64_t x = 1; x < UINT64_MAX / 7; x *= 7) {
		buf_put_u64(&a, x);
		buf_printf(&b, "%llu", (unsigned long long)x);
	}
	assert_false(buf_failed(&a));
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.data, b.data, a.len);
	assert_non_null(strstr(a.data, " 18446744073709551615 "));
	buf_free(&a);
	buf_free(&b);
}

static void test_listen_split(void **state)
{
	char host[64];
	uint16_t port;

	assert_int_equal(parse_listen_address(":9879", host, sizeof(host), &port), 0);
	assert_string_equal(host, "");
	assert_int_equal(port, 9879);
	assert_int_equal(parse_listen_address("0.0.0.0:1", host, sizeof(host), &port), 0);
	assert_string_equal(host, "0.0.0.0");
	assert_int_equal(parse_listen_address("[::1]:65535", host, sizeof(host), &port), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 65535);
	assert_int_equal(parse_listen_address("localhost:80", host, sizeof(host), &port), 0);
	assert_string_equal(host, "localhost");
	assert_int_equal(parse_listen_address("[]:80", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(parse_listen_address("host:", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(parse_listen_address("host:8x", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(parse_listen_address("averyveryveryverylonghostnamethatdoesnotfit:1", host,
					      16, &port),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dec),	    cmocka_unit_test(test_auto),
		cmocka_unit_test(test_trim),	    cmocka_unit_test(test_buf),
		cmocka_unit_test(test_buf_put_u64), cmocka_unit_test(test_listen_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
