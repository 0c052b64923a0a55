// SPDX-License-Identifier: Apache-2.0
/*
 * Robustness of the core parsers and the writer on arbitrary bytes: flag
 * durations, listen addresses, Accept-Encoding, /proc text, label values.
 * Runs as a plain regression test (fixed seed, plus hand-picked inputs);
 * fuzz_core_one() is the body a libFuzzer entry point will call.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/strparse.h"
#include "daemon/config_duration.h"
#include "daemon/selfstats.h"
#include "exposition/metrics.h"
#include "http/http.h"

static int fuzz_core_one(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), host[64];
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;
	struct proc_stat st;
	uint64_t v;
	uint16_t port;
	size_t lines = 0;

	assert_non_null(s);
	assert_non_null(sink);
	memcpy(s, data, size);
	s[size] = '\0';

	if (config_parse_duration_ms(s, &v) == 0)
		assert_true(strlen(s) > 0);
	if (parse_listen_address(s, host, sizeof(host), &port) == 0)
		assert_true(port > 0);
	(void)http_accepts_gzip(s);
	(void)proc_stat_parse((const char *)data, size, &st);
	(void)proc_btime_parse((const char *)data, size, &v);

	/* Whatever the label value holds, the exposition stays one sample per line. */
	assert_int_equal(
		metric_sink_add_u64(sink, "m", s, METRIC_GAUGE, METRIC_LABELS({"v", s}), 1), 0);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	for (size_t i = 0; i < out.len; i++)
		lines += out.data[i] == '\n';
	assert_int_equal(lines, 3);
	assert_int_equal(strlen(out.data), out.len);
	buf_free(&out);
	metric_sink_free(sink);
	free(s);
	return 0;
}

static void test_corpus(void **state)
{
	static const char *const corpus[] = {
		"",
		"0",
		"1m30s",
		"500ms",
		"ms",
		"9999999999999999999999h",
		"[::1]:9879",
		"[:",
		"]:1",
		":",
		"::::",
		"gzip;q=",
		"gzip;q",
		";;;,,,",
		"*;q=0.0001",
		"a\"b\\c\nd",
		"1 (x) S",
		"1 ()) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
		"btime\nbtime 5",
		"\xff\xfe\xc0\x80\xed\xa0\x80\xf4\x90\x80\x80",
	};

	for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++)
		fuzz_core_one((const uint8_t *)corpus[i], strlen(corpus[i]));
}

static void test_random(void **state)
{
	/* fixed seed: reproducible; bytes skewed towards the syntax that matters */
	static const char alphabet[] = "0123456789msdh:[]();q=,. *gzipbtime\n\\\"\x80\xc3\xff";
	uint8_t buf[96];

	srand(20261123);
	for (int iter = 0; iter < 50000; iter++) {
		size_t n = (size_t)(rand() % (int)sizeof(buf));

		for (size_t i = 0; i < n; i++)
			buf[i] = rand() % 4
					 ? (uint8_t)alphabet[rand() % (int)(sizeof(alphabet) - 1)]
					 : (uint8_t)(rand() % 255 + 1);
		fuzz_core_one(buf, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
