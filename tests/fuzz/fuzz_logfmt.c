// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: log_format and log_format_json (src/base/log.c), the record
 * writers of --log.format=logfmt and json.
 *
 * Input: 2 bytes of buffer size (big endian, taken modulo LOG_LINE_MAX + 1),
 * 1 byte of flags (bit 0 journal mode, bits 1-2 the level, bit 3 JSON), 1 byte of message
 * length, the message, then the rest as the value of field a (and, reversed,
 * of field b).
 *
 * Invariants: the record is NUL-terminated at the returned length, shorter
 * than the buffer, and (when not empty) one strict logfmt line (the reader in
 * tests/include/logfmt_parse.h, written apart from log.c) with ts/level/msg
 * first; msg, a and b read back as their input, each invalid UTF-8 byte as
 * U+FFFD, or, once the record is marked truncated=true, as a prefix of it.
 * In JSON mode the same, the line read by the strict JSON reader of
 * tests/include/json_parse.h.
 */
#include <string.h>
#include <syslog.h>

#include "../include/json_parse.h"
#include "../include/logfmt_parse.h"
#include "base/log.h"
#include "fuzz.h"

static const int levels[] = {LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERR};

/* What a reader gets back for s: invalid bytes as U+FFFD, one each. */
static size_t expected(const char *s, size_t n, char *out)
{
	size_t o = 0;

	for (size_t i = 0, len; i < n; i += len) {
		len = logfmt_utf8_len((const unsigned char *)s + i, n - i);
		if (!len) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			len = 1;
			continue;
		}
		memcpy(out + o, s + i, len);
		o += len;
	}
	return o;
}

static void check_field(const struct logfmt_record *r, const char *key, const char *in, size_t n,
			bool truncated)
{
	static char want[3 * LOG_LINE_MAX];
	const struct logfmt_field *f = logfmt_get(r, key);
	size_t wn;

	if (!f) {
		FUZZ_CHECK(truncated);
		return;
	}
	wn = expected(in, n, want);
	if (truncated) {
		FUZZ_CHECK(f->value_len <= wn);
		FUZZ_CHECK(memcmp(f->value, want, f->value_len) == 0);
	} else {
		FUZZ_CHECK(f->value_len == wn);
		FUZZ_CHECK(memcmp(f->value, want, wn) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct timespec ts = {.tv_sec = 1000000000, .tv_nsec = 999999999};
	static struct logfmt_record rec;
	static char buf[LOG_LINE_MAX + 1], rev[LOG_LINE_MAX];
	char msg[256], *a;
	size_t bufsize, msg_len, a_len, n;
	bool journal, json, truncated;
	int level;

	if (size < 4)
		return 0;
	bufsize = ((size_t)data[0] << 8 | data[1]) % (LOG_LINE_MAX + 1);
	journal = data[2] & 1;
	level = levels[(data[2] >> 1) & 3];
	json = data[2] & 8;
	msg_len = data[3];
	data += 4;
	size -= 4;
	if (msg_len > size)
		msg_len = size;
	memcpy(msg, data, msg_len);
	msg[msg_len] = '\0';
	msg_len = strlen(msg);
	a = fuzz_strdup(data + msg_len,
			size - msg_len > LOG_LINE_MAX ? LOG_LINE_MAX : size - msg_len);
	if (!a)
		return 0;
	a_len = strlen(a);
	for (size_t i = 0; i < a_len; i++)
		rev[i] = a[a_len - 1 - i];
	rev[a_len] = '\0';

	memset(buf, 'X', sizeof(buf));
	if (json)
		n = log_format_json(buf, bufsize, level, journal, &ts, msg, "a=%s b=%.*s n=%d", a,
				    (int)a_len, rev, -1);
	else
		n = log_format(buf, bufsize, level, journal, &ts, msg, "a=%s b=%.*s n=%d", a,
			       (int)a_len, rev, -1);
	if (bufsize == 0) {
		FUZZ_CHECK(n == 0 && buf[0] == 'X');
		free(a);
		return 0;
	}
	FUZZ_CHECK(n < bufsize);
	FUZZ_CHECK(buf[n] == '\0' && strlen(buf) == n);
	if (n == 0) {
		free(a);
		return 0;
	}
	if (json)
		FUZZ_CHECK(json_record_parse(buf, n, &rec) == 0);
	else
		FUZZ_CHECK(logfmt_parse(buf, n, &rec) == 0);
	FUZZ_CHECK(rec.n >= 1);
	if (journal) {
		FUZZ_CHECK(rec.priority == level);
		FUZZ_CHECK(strcmp(rec.f[0].key, "level") == 0);
	} else {
		FUZZ_CHECK(rec.priority == -1);
		FUZZ_CHECK(rec.n >= 2 && strcmp(rec.f[0].key, "ts") == 0);
		FUZZ_CHECK(strcmp(rec.f[0].value, "2001-09-09T01:46:40.999Z") == 0);
		FUZZ_CHECK(strcmp(rec.f[1].key, "level") == 0);
	}
	truncated = logfmt_get(&rec, "truncated") != NULL;
	FUZZ_CHECK(!truncated || strcmp(rec.f[rec.n - 1].key, "truncated") == 0);
	check_field(&rec, "msg", msg, msg_len, truncated);
	check_field(&rec, "a", a, a_len, truncated);
	check_field(&rec, "b", rev, a_len, truncated);
	check_field(&rec, "n", "-1", 2, truncated);
	if (!truncated)
		FUZZ_CHECK(rec.n == (journal ? 5u : 6u));
	free(a);
	return 0;
}
