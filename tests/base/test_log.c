// SPDX-License-Identifier: Apache-2.0
/*
 * logfmt records: quoting and escaping of every kind of value, the field
 * format's conversions, truncation that still parses, the journal prefix and
 * level filtering. Records are formatted into buffers (log_format) or written
 * to a memory stream (log_set_output); each one is read back with the strict
 * reader in tests/include/logfmt_parse.h. The same for --log.format=json
 * (log_format_json), read back with the strict JSON reader of
 * tests/include/json_parse.h.
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

#include "base/log.h"
#include "json_parse.h"
#include "logfmt_parse.h"

/* 2001-09-09T01:46:40.123Z */
static const struct timespec fixed_ts = {.tv_sec = 1000000000, .tv_nsec = 123456789};

static struct logfmt_record rec;

/* Parses the n bytes at s strictly into rec, failing the test on error. */
static void parse_line(const char *s, size_t n)
{
	if (logfmt_parse(s, n, &rec) != 0)
		fail_msg("not strict logfmt: %.*s", (int)n, s);
}

/* The same for a whole buffer that log_format returned n for. */
static void parse_ok(const char *buf, size_t n)
{
	assert_int_equal(n, strlen(buf));
	parse_line(buf, n);
}

/* The field named key of rec; fails the test when there is none. */
static const struct logfmt_field *field(const char *key)
{
	const struct logfmt_field *f = logfmt_get(&rec, key);

	if (!f) {
		fail_msg("no field %s", key);
		abort();
	}
	return f;
}

/* One record "msg=m v=<value>" and the check that v reads back as value. */
static void roundtrip(const char *value, size_t len, const char *want_written)
{
	char buf[LOG_LINE_MAX], want[512];
	const struct logfmt_field *f;
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "v=%.*s", (int)len,
		       value);
	parse_ok(buf, n);
	f = field("v");
	assert_int_equal(f->value_len, len);
	assert_memory_equal(f->value, value, len);
	snprintf(want, sizeof(want), "ts=2001-09-09T01:46:40.123Z level=info msg=m v=%s\n",
		 want_written);
	assert_string_equal(buf, want);
}

static void test_plain_record(void **state)
{
	char buf[LOG_LINE_MAX];
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_WARNING, false, &fixed_ts, "collector failed",
		       "collector=%s err=%s", "sysfs", "No such file or directory");
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=warn msg=\"collector failed\" "
				 "collector=sysfs err=\"No such file or directory\"\n");
	parse_ok(buf, n);
	assert_int_equal(rec.n, 5);
	assert_string_equal(field("level")->value, "warn");
}

static void test_escaping(void **state)
{
	char buf[LOG_LINE_MAX];

	roundtrip("plain", 5, "plain");
	roundtrip("with space", 10, "\"with space\"");
	roundtrip("a\"b", 3, "\"a\\\"b\"");
	/* a backslash alone needs no quotes (as in go-logfmt), but is escaped in them */
	roundtrip("C:\\dir", 6, "C:\\dir");
	roundtrip("a\\ b", 4, "\"a\\\\ b\"");
	roundtrip("line1\nline2", 11, "\"line1\\nline2\"");
	roundtrip("cr\r", 3, "\"cr\\r\"");
	roundtrip("a\tb", 3, "\"a\\tb\"");
	roundtrip("k=v", 3, "\"k=v\"");
	roundtrip("", 0, "\"\"");
	roundtrip("bell\a", 5, "\"bell\\u0007\"");
	roundtrip("del\x7f", 4, "\"del\\u007f\"");
	/* a NUL byte (only %c can carry one) */
	log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "v=nul%cx", '\0');
	assert_string_equal(buf,
			    "ts=2001-09-09T01:46:40.123Z level=info msg=m v=\"nul\\u0000x\"\n");
	/* printable UTF-8 passes through as it is, bare when nothing else needs quotes */
	roundtrip("caf\xc3\xa9", 5, "caf\xc3\xa9");
	roundtrip("\xe6\x97\xa5\xe6\x9c\xac \xe2\x82\xac", 10,
		  "\"\xe6\x97\xa5\xe6\x9c\xac \xe2\x82\xac\"");
	/* C1 controls and U+2028 are not printable */
	roundtrip("\xc2\x85", 2, "\"\\u0085\"");
	roundtrip("\xe2\x80\xa8", 3, "\"\\u2028\"");
}

/* Invalid UTF-8 is quoted and each bad byte becomes \ufffd: the record stays UTF-8. */
static void test_invalid_utf8(void **state)
{
	char buf[LOG_LINE_MAX];
	const struct logfmt_field *f;
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "v=%s",
		       "a\xff"
		       "b\xc3"
		       "\xed\xa0\x80"); /* stray byte, cut sequence, surrogate */
	parse_ok(buf, n);
	assert_non_null(strstr(buf, " v=\"a\\ufffdb\\ufffd\\ufffd\\ufffd\\ufffd\"\n"));
	f = field("v");
	assert_memory_equal(f->value,
			    "a\xef\xbf\xbd"
			    "b",
			    5);
	/* overlong "/" (0xc0 0xaf) is not a slash */
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "v=%s", "\xc0\xaf");
	parse_ok(buf, n);
	assert_non_null(strstr(buf, "v=\"\\ufffd\\ufffd\""));
}

static void test_msg_quoting(void **state)
{
	char buf[LOG_LINE_MAX];
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "listening", " ");
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=info msg=listening\n");
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "say \"hi\"\n", " ");
	assert_string_equal(buf,
			    "ts=2001-09-09T01:46:40.123Z level=info msg=\"say \\\"hi\\\"\\n\"\n");
	parse_ok(buf, n);
	assert_string_equal(field("msg")->value, "say \"hi\"\n");
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "", " ");
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=info msg=\"\"\n");
}

/* Every conversion the code uses, with flags, width, precision and length. */
static void test_conversions(void **state)
{
	char buf[LOG_LINE_MAX];
	int x = 0;
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_DEBUG, false, &fixed_ts, "m",
		       "d=%d i=%i u=%u ld=%ld lu=%lu lld=%lld llu=%llu zu=%zu zd=%zd x=%x X=%#X "
		       "c=%c g=%g f=%f f2=%.2f w=%5d l=%-3s| s=%.3s star=%*d pstar=%.*s pct=100%% "
		       "ms=%llums hh=%hhu j=%jd",
		       -1, 2, 3u, -4L, 5UL, -6LL, 18446744073709551615ULL, (size_t)7, (ssize_t)-8,
		       0xbeefu, 0xabu, 'q', 0.5, 1.25, 3.14159, 42, "ab", "abcdef", 4, 9, 2, "xyz",
		       1500ULL, 300, (intmax_t)-9);
	parse_ok(buf, n);
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=debug msg=m d=-1 i=2 u=3 "
				 "ld=-4 lu=5 lld=-6 llu=18446744073709551615 zu=7 zd=-8 x=beef "
				 "X=0XAB c=q g=0.5 f=1.250000 f2=3.14 w=\"   42\" l=\"ab |\" s=abc "
				 "star=\"   9\" pstar=xy pct=100% ms=1500ms hh=44 j=-9\n");
	n = log_format(buf, sizeof(buf), LOG_DEBUG, false, &fixed_ts, "m", "p=%p null=%s", &x,
		       (char *)NULL);
	parse_ok(buf, n);
	assert_true(strncmp(field("p")->value, "0x", 2) == 0);
	assert_string_equal(field("null")->value, "(null)");
	/* %m is the errno at the call, and the call leaves errno as it was */
	errno = ENOENT;
	n = log_format(buf, sizeof(buf), LOG_DEBUG, false, &fixed_ts, "m", "err=%m");
	assert_int_equal(errno, ENOENT);
	parse_ok(buf, n);
	assert_string_equal(field("err")->value, "No such file or directory");
}

/* The length modifiers the other test leaves out, flags, and a negative '*'
 * precision, which counts as none. */
static void test_conversion_lengths(void **state)
{
	char buf[LOG_LINE_MAX];
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_DEBUG, false, &fixed_ts, "m",
		       "h=%hd t=%td L=%.1Lf neg=%.*s plus=%+d zero=%05.1f hash=%#o", (short)-3,
		       (ptrdiff_t)-12, (long double)2.25, -1, "whole", 7, 2.5, 8u);
	parse_ok(buf, n);
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=debug msg=m h=-3 t=-12 L=2.2 "
				 "neg=whole plus=+7 zero=002.5 hash=010\n");
	/* q (BSD's ll) is one character: the conversion after it is read, and
	 * a format ending in %q does not read past its end */
	n = log_format(buf, sizeof(buf), LOG_DEBUG, false, &fixed_ts, "m", "q=%qd a=%d",
		       (long long)-5, 6);
	parse_ok(buf, n);
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=debug msg=m q=-5 a=6\n");
}

/* A token without key= keeps its text, and its arguments stay in step. */
static void test_bad_key(void **state)
{
	char buf[LOG_LINE_MAX];
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "%s bare a=%d", "x y", 7);
	parse_ok(buf, n);
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=info msg=m !BADKEY=\"x y\" "
				 "!BADKEY=bare a=7\n");
	/* extra spaces between tokens are skipped */
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "   a=1   b=2 ");
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=info msg=m a=1 b=2\n");
	/* an empty literal value */
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "a= b=%s", "");
	assert_string_equal(buf, "ts=2001-09-09T01:46:40.123Z level=info msg=m a=\"\" b=\"\"\n");
}

static void check_truncated(const char *buf, size_t n, size_t size)
{
	assert_true(n < size);
	assert_true(n < LOG_LINE_MAX);
	parse_ok(buf, n);
	assert_string_equal(field("truncated")->value, "true");
}

/* Longer than the line: cut at a character, quote closed, marked, after fields dropped. */
static void test_truncation(void **state)
{
	static char big[3 * LOG_LINE_MAX], buf[LOG_LINE_MAX];
	const struct logfmt_field *f;
	size_t n;

	memset(big, 'a', sizeof(big) - 1);
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "v=%s after=1", big);
	check_truncated(buf, n, sizeof(buf));
	assert_null(logfmt_get(&rec, "after"));
	f = field("v");
	assert_true(f->value_len > LOG_LINE_MAX / 2);

	/* every byte needs an escape: never a half escape before the closing quote */
	memset(big, '"', sizeof(big) - 1);
	n = log_format(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m", "v=%s", big);
	check_truncated(buf, n, sizeof(buf));
	assert_true(strstr(buf, "\\\"\" truncated=true\n") != NULL);

	/* multi-byte characters are not split */
	for (size_t i = 0; i + 3 < sizeof(big); i += 3)
		memcpy(big + i, "\xe2\x82\xac", 3);
	big[sizeof(big) - 1 - (sizeof(big) - 1) % 3] = '\0';
	for (size_t size = 1; size < 200; size++) {
		n = log_format(buf, size, LOG_INFO, false, &fixed_ts, "m", "v=%s", big);
		if (n == 0)
			assert_string_equal(buf, ""); /* not even ts= and level= fit */
		else
			check_truncated(buf, n, size);
	}
	/* the same through a small buffer: a short value still whole, the rest marked */
	n = log_format(buf, 80, LOG_INFO, false, &fixed_ts, "m", "a=%s b=%s", "short", big);
	check_truncated(buf, n, 80);
	assert_string_equal(field("a")->value, "short");
	/* too small for even the prefix: an empty string */
	n = log_format(buf, 20, LOG_INFO, false, &fixed_ts, "m", "a=1");
	assert_int_equal(n, 0);
	assert_string_equal(buf, "");
	n = log_format(buf, 0, LOG_INFO, false, &fixed_ts, "m", "a=1");
	assert_int_equal(n, 0);
}

static void test_journal_prefix(void **state)
{
	char buf[LOG_LINE_MAX];
	size_t n;

	n = log_format(buf, sizeof(buf), LOG_WARNING, true, NULL, "collector failed",
		       "collector=%s", "sysfs");
	assert_string_equal(buf, "<4>level=warn msg=\"collector failed\" collector=sysfs\n");
	parse_ok(buf, n);
	assert_int_equal(rec.priority, LOG_WARNING);
	n = log_format(buf, sizeof(buf), LOG_ERR, true, NULL, "out of memory", " ");
	assert_string_equal(buf, "<3>level=error msg=\"out of memory\"\n");
	n = log_format(buf, sizeof(buf), LOG_DEBUG, true, NULL, "m", " ");
	assert_string_equal(buf, "<7>level=debug msg=m\n");
	n = log_format(buf, sizeof(buf), LOG_INFO, true, NULL, "m", " ");
	assert_string_equal(buf, "<6>level=info msg=m\n");
}

/* The real sink: level filter, the macros, one record per call, errno kept. */
static void test_emit_and_levels(void **state)
{
	char *text = NULL;
	size_t size = 0, lines = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	log_set_output(f);
	log_set_journal(0);
	log_set_level(LOG_WARNING);
	log_debug("hidden debug");
	log_info("hidden info", "a=%d", 1);
	errno = EIO;
	log_warn("shown warn", "path=%s", "/a b");
	assert_int_equal(errno, EIO);
	log_error("shown error");
	log_msg(LOG_INFO, "hidden too", "x=%u", 2u);
	log_set_level(LOG_DEBUG);
	log_debug("shown debug", "n=%zu", (size_t)3);
	log_set_output(NULL);
	log_set_journal(-1);
	log_set_level(LOG_INFO);
	fclose(f);

	assert_null(strstr(text, "hidden"));
	for (char *line = text, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end);
		parse_line(line, (size_t)(end + 1 - line));
		lines++;
	}
	assert_int_equal(lines, 3);
	assert_non_null(strstr(text, " level=warn msg=\"shown warn\" path=\"/a b\"\n"));
	assert_non_null(strstr(text, " level=error msg=\"shown error\"\n"));
	assert_non_null(strstr(text, " level=debug msg=\"shown debug\" n=3\n"));
	assert_true(strncmp(text, "ts=", 3) == 0);
	free(text);
}

static void test_level_parse(void **state)
{
	int level;

	assert_int_equal(log_level_parse("debug", &level), 0);
	assert_int_equal(level, LOG_DEBUG);
	assert_int_equal(log_level_parse("warn", &level), 0);
	assert_int_equal(level, LOG_WARNING);
	assert_int_equal(log_level_parse("loud", &level), -EINVAL);
}

/* --- --log.format=json ------------------------------------------------- */

static void parse_json_ok(const char *buf, size_t n)
{
	assert_int_equal(n, strlen(buf));
	if (json_record_parse(buf, n, &rec) != 0)
		fail_msg("not strict JSON: %.*s", (int)n, buf);
}

static void test_json_record(void **state)
{
	char buf[LOG_LINE_MAX];
	size_t n;

	n = log_format_json(buf, sizeof(buf), LOG_WARNING, false, &fixed_ts, "collector failed",
			    "collector=%s err=%s n=%d", "sysfs", "No such file or directory", 3);
	assert_string_equal(buf, "{\"ts\":\"2001-09-09T01:46:40.123Z\",\"level\":\"warn\","
				 "\"msg\":\"collector failed\",\"collector\":\"sysfs\","
				 "\"err\":\"No such file or directory\",\"n\":\"3\"}\n");
	parse_json_ok(buf, n);
	/* the same fields, in the same order, as the logfmt record */
	assert_int_equal(rec.n, 6);
	assert_string_equal(rec.f[0].key, "ts");
	assert_string_equal(rec.f[1].key, "level");
	assert_string_equal(rec.f[2].key, "msg");
	assert_string_equal(field("err")->value, "No such file or directory");
	/* no fields */
	n = log_format_json(buf, sizeof(buf), LOG_ERR, false, &fixed_ts, "out of memory", " ");
	assert_string_equal(buf, "{\"ts\":\"2001-09-09T01:46:40.123Z\",\"level\":\"error\","
				 "\"msg\":\"out of memory\"}\n");
	parse_json_ok(buf, n);
	/* journal mode: <N>, then the object without ts */
	n = log_format_json(buf, sizeof(buf), LOG_INFO, true, NULL, "m", "a=%s", "b");
	assert_string_equal(buf, "<6>{\"level\":\"info\",\"msg\":\"m\",\"a\":\"b\"}\n");
	parse_json_ok(buf, n);
	assert_int_equal(rec.priority, LOG_INFO);
}

/* Every kind of byte in a value and in msg: a JSON string that reads back as it was
 * written, invalid UTF-8 as U+FFFD. */
static void test_json_escaping(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *written, *read;
		size_t read_len;
	} cases[] = {
		{"plain", 5, "\"plain\"", "plain", 5},
		{"", 0, "\"\"", "", 0},
		{"a\"b\\c", 5, "\"a\\\"b\\\\c\"", "a\"b\\c", 5},
		{"l1\nl2\r\t", 7, "\"l1\\nl2\\r\\t\"", "l1\nl2\r\t", 7},
		{"bell\a\x1b", 6, "\"bell\\u0007\\u001b\"", "bell\a\x1b", 6},
		{"del\x7f", 4, "\"del\\u007f\"", "del\x7f", 4},
		{"k=v /", 5, "\"k=v /\"", "k=v /", 5},
		{"caf\xc3\xa9", 5, "\"caf\xc3\xa9\"", "caf\xc3\xa9", 5},
		{"\xe2\x80\xa8", 3, "\"\\u2028\"", "\xe2\x80\xa8", 3},
		{"\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"", "\xf0\x9f\x98\x80", 4},
		/* invalid UTF-8: a lone continuation, an overlong '/', a surrogate, cut short */
		{"a\x80"
		 "b",
		 3, "\"a\\ufffdb\"",
		 "a\xef\xbf\xbd"
		 "b",
		 5},
		{"\xc0\xaf", 2, "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd", 6},
		{"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"",
		 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 9},
		{"\xe2\x82", 2, "\"\\ufffd\\ufffd\"", "\xef\xbf\xbd\xef\xbf\xbd", 6},
	};
	char buf[LOG_LINE_MAX], want[256];
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = log_format_json(buf, sizeof(buf), LOG_INFO, true, NULL, "m", "v=%.*s",
				    (int)cases[i].len, cases[i].in);
		snprintf(want, sizeof(want), "<6>{\"level\":\"info\",\"msg\":\"m\",\"v\":%s}\n",
			 cases[i].written);
		assert_string_equal(buf, want);
		parse_json_ok(buf, n);
		assert_int_equal(field("v")->value_len, cases[i].read_len);
		assert_memory_equal(field("v")->value, cases[i].read, cases[i].read_len);
		/* msg goes through the same writer */
		memcpy(want, cases[i].in, cases[i].len);
		want[cases[i].len] = '\0';
		n = log_format_json(buf, sizeof(buf), LOG_INFO, true, NULL, want, " ");
		parse_json_ok(buf, n);
		assert_memory_equal(field("msg")->value, cases[i].read, cases[i].read_len);
	}
	/* a NUL byte (only %c can carry one) */
	n = log_format_json(buf, sizeof(buf), LOG_INFO, true, NULL, "m", "v=nul%cx", '\0');
	assert_string_equal(buf, "<6>{\"level\":\"info\",\"msg\":\"m\",\"v\":\"nul\\u0000x\"}\n");
	parse_json_ok(buf, n);
	assert_memory_equal(field("v")->value, "nul\0x", 5);
	/* a key that would break the object is made safe */
	n = log_format_json(buf, sizeof(buf), LOG_INFO, true, NULL, "m", "a\\\"b=1");
	parse_json_ok(buf, n);
	assert_string_equal(rec.f[2].key, "a__b");
}

/* The reader above is strict, or the JSON tests would prove nothing. */
static void test_json_reader_is_strict(void **state)
{
	static const char *const bad[] = {
		"{\"a\":\"b\"}",	 "{\"a\":\"b\",}\n",  "{\"a\":\"\x01\"}\n",
		"{\"a\":\"\\ud800\"}\n", "{\"a\":\"\\x\"}\n", "{\"a\":1,\"a\":2}\n",
		"{\"a\":01}\n",		 "{\"a\":1.}\n",      "{\"a\":\"\xc0\xaf\"}\n",
		"{\"a\":\"b\"}\n\n",	 "{\"a\":[1]}\n",     "{'a':1}\n",
		"{\"a\":tru}\n",	 "{\"a\":\"b\"}x\n",  "{\"a\"\"b\"}\n",
	};
	static const char good[] =
		"<4> { \"a\" : 1.5e3 , \"b\":null,\"c\":\"\\ud83d\\ude00\\/\"}\n";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (json_record_parse(bad[i], strlen(bad[i]), &rec) == 0)
			fail_msg("accepted: %s", bad[i]);
	assert_int_equal(json_record_parse(good, strlen(good), &rec), 0);
	assert_int_equal(rec.priority, 4);
	assert_string_equal(field("a")->value, "1.5e3");
	assert_string_equal(field("b")->value, "null");
	assert_string_equal(field("c")->value, "\xf0\x9f\x98\x80/");
}

/* Cut records stay one JSON object, marked "truncated":true, at every size. */
static void test_json_truncation(void **state)
{
	static char big[3 * LOG_LINE_MAX], buf[LOG_LINE_MAX];
	size_t n;

	for (int pass = 0; pass < 3; pass++) {
		if (pass == 0)
			memset(big, 'a', sizeof(big) - 1);
		else if (pass == 1)
			memset(big, '"', sizeof(big) - 1);
		else
			for (size_t i = 0; i + 3 < sizeof(big); i += 3)
				memcpy(big + i, "\xe2\x82\xac", 3);
		big[sizeof(big) - 1 - (sizeof(big) - 1) % 3] = '\0';
		n = log_format_json(buf, sizeof(buf), LOG_INFO, false, &fixed_ts, "m",
				    "v=%s after=1", big);
		parse_json_ok(buf, n);
		assert_string_equal(field("truncated")->value, "true");
		assert_null(logfmt_get(&rec, "after"));
		for (size_t size = 1; size < 200; size++) {
			n = log_format_json(buf, size, LOG_INFO, false, &fixed_ts, "m", "a=%s b=%s",
					    "x", big);
			if (n == 0) {
				assert_string_equal(buf, "");
				continue;
			}
			assert_true(n < size);
			parse_json_ok(buf, n);
			assert_string_equal(field("truncated")->value, "true");
		}
	}
}

/* The real sink in JSON, then back to logfmt. */
static void test_json_emit(void **state)
{
	char *text = NULL, *end;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	bool json = false;

	assert_int_equal(log_format_parse("json", &json), 0);
	assert_true(json);
	assert_int_equal(log_format_parse("logfmt", &json), 0);
	assert_false(json);
	assert_int_equal(log_format_parse("JSON", &json), -EINVAL);
	assert_int_equal(log_format_parse("", &json), -EINVAL);

	assert_non_null(f);
	log_set_output(f);
	log_set_journal(0);
	log_set_json(true);
	log_warn("shown warn", "path=%s", "/a b");
	log_set_json(false);
	log_warn("logfmt again");
	log_set_output(NULL);
	log_set_journal(-1);
	fclose(f);

	end = strchr(text, '\n');
	assert_non_null(end);
	if (json_record_parse(text, (size_t)(end + 1 - text), &rec) != 0)
		fail_msg("not strict JSON: %s", text);
	assert_string_equal(field("path")->value, "/a b");
	parse_line(end + 1, strlen(end + 1));
	assert_string_equal(field("msg")->value, "logfmt again");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_record),
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_json_truncation),
		cmocka_unit_test(test_json_emit),
		cmocka_unit_test(test_json_reader_is_strict),
		cmocka_unit_test(test_plain_record),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_msg_quoting),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_conversion_lengths),
		cmocka_unit_test(test_bad_key),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_journal_prefix),
		cmocka_unit_test(test_emit_and_levels),
		cmocka_unit_test(test_level_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
