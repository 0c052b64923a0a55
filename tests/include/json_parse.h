/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A strict JSON reader for the tests of --log.format=json (test_log, the log
 * fuzz target): one record, an optional "<N>" journal prefix, then one JSON
 * object (RFC 8259: whitespace between tokens allowed, no trailing comma, no
 * duplicate key, strings of valid UTF-8 with no raw control byte, escapes
 * \" \\ \/ \b \f \n \r \t and \uXXXX with surrogate pairs, numbers by the
 * grammar) whose values are strings, numbers, true, false or null, and
 * exactly one newline, at the end. Nested objects and arrays are refused: a
 * log record has none. Values are decoded into the same struct as the logfmt
 * reader's, NUL-terminated (scalars other than strings as their text). Written apart from
 * src/base/log.c so that a bug there is not mirrored here.
 */
#ifndef RDMA_EXPORTER_TESTS_JSON_PARSE_H
#define RDMA_EXPORTER_TESTS_JSON_PARSE_H

#include "logfmt_parse.h"

struct json_cursor {
	const char *s;
	size_t n, i;
};

static inline void json_ws(struct json_cursor *c)
{
	while (c->i < c->n && strchr(" \t\r\n", c->s[c->i]) && c->s[c->i])
		c->i++;
}

static inline int json_hex4(struct json_cursor *c, uint32_t *v)
{
	*v = 0;
	if (c->n - c->i < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		char h = c->s[c->i++];
		int d = h >= '0' && h <= '9'   ? h - '0'
			: h >= 'a' && h <= 'f' ? h - 'a' + 10
			: h >= 'A' && h <= 'F' ? h - 'A' + 10
					       : -1;

		if (d < 0)
			return -1;
		*v = *v << 4 | (uint32_t)d;
	}
	return 0;
}

/* Appends the UTF-8 of cp to out (room: cap); -1 when it does not fit. */
static inline int json_put_utf8(char *out, size_t *len, size_t cap, uint32_t cp)
{
	unsigned char b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		k = 4;
	}
	if (*len + k > cap)
		return -1;
	memcpy(out + *len, b, k);
	*len += k;
	return 0;
}

/* The \u escape after "\u": one code point, a surrogate pair taken whole. */
static inline int json_unicode_escape(struct json_cursor *c, uint32_t *cp)
{
	uint32_t lo;

	if (json_hex4(c, cp) < 0)
		return -1;
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return -1; /* a low surrogate alone */
	if (*cp < 0xd800 || *cp > 0xdbff)
		return 0;
	if (c->n - c->i < 2 || c->s[c->i] != '\\' || c->s[c->i + 1] != 'u')
		return -1;
	c->i += 2;
	if (json_hex4(c, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
		return -1;
	*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	return 0;
}

/* A string at c (on its opening quote), decoded into out. */
static inline int json_string(struct json_cursor *c, char *out, size_t cap, size_t *len)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";

	*len = 0;
	if (c->i >= c->n || c->s[c->i] != '"')
		return -1;
	c->i++;
	while (c->i < c->n) {
		unsigned char ch = (unsigned char)c->s[c->i];
		const char *e;
		uint32_t cp;
		size_t u;

		if (ch == '"') {
			c->i++;
			return 0;
		}
		if (ch < 0x20)
			return -1;
		if (ch != '\\') {
			u = logfmt_utf8_len((const unsigned char *)c->s + c->i, c->n - c->i);
			if (!u || *len + u > cap)
				return -1;
			memcpy(out + *len, c->s + c->i, u);
			*len += u;
			c->i += u;
			continue;
		}
		if (++c->i >= c->n)
			return -1;
		if (c->s[c->i] == 'u') {
			c->i++;
			if (json_unicode_escape(c, &cp) < 0 || json_put_utf8(out, len, cap, cp) < 0)
				return -1;
			continue;
		}
		e = c->s[c->i] ? strchr(esc_in, c->s[c->i]) : NULL;
		if (!e || *len + 1 > cap)
			return -1;
		out[(*len)++] = esc_out[e - esc_in];
		c->i++;
	}
	return -1;
}

/* A number by the JSON grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static inline int json_number(struct json_cursor *c)
{
	size_t d;

#define JSON_DIGITS()                                                                              \
	for (d = 0; c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9'; d++)                    \
		c->i++;
	if (c->i < c->n && c->s[c->i] == '-')
		c->i++;
	if (c->i < c->n && c->s[c->i] == '0') {
		c->i++;
	} else {
		JSON_DIGITS();
		if (!d)
			return -1;
	}
	if (c->i < c->n && c->s[c->i] == '.') {
		c->i++;
		JSON_DIGITS();
		if (!d)
			return -1;
	}
	if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		JSON_DIGITS();
		if (!d)
			return -1;
	}
#undef JSON_DIGITS
	return 0;
}

/* A scalar value into f->value: a string decoded, anything else as its text. */
static inline int json_value(struct json_cursor *c, struct logfmt_field *f)
{
	static const char *const words[] = {"true", "false", "null"};
	size_t start = c->i;

	if (c->i >= c->n)
		return -1;
	if (c->s[c->i] == '"') {
		if (json_string(c, f->value, sizeof(f->value) - 1, &f->value_len) < 0)
			return -1;
		f->value[f->value_len] = '\0';
		return 0;
	}
	for (size_t k = 0; k < 3; k++) {
		size_t wl = strlen(words[k]);

		if (c->n - c->i >= wl && memcmp(c->s + c->i, words[k], wl) == 0) {
			c->i += wl;
			goto text;
		}
	}
	if (json_number(c) < 0)
		return -1;
text:
	f->value_len = c->i - start;
	memcpy(f->value, c->s + start, f->value_len);
	f->value[f->value_len] = '\0';
	return 0;
}

/* One "key":value member into r->f[r->n]. */
static inline int json_member(struct json_cursor *c, struct logfmt_record *r)
{
	struct logfmt_field *f;
	size_t klen;

	if (r->n >= LOGFMT_MAX_FIELDS)
		return -1;
	f = &r->f[r->n];
	if (json_string(c, f->key, sizeof(f->key) - 1, &klen) < 0 || memchr(f->key, 0, klen))
		return -1;
	f->key[klen] = '\0';
	for (size_t k = 0; k < r->n; k++)
		if (strcmp(r->f[k].key, f->key) == 0)
			return -1; /* a duplicate key */
	json_ws(c);
	if (c->i >= c->n || c->s[c->i++] != ':')
		return -1;
	json_ws(c);
	if (json_value(c, f) < 0)
		return -1;
	r->n++;
	return 0;
}

/* 0 when the n bytes at s are one strict record (see the top), else -1. */
static inline int json_record_parse(const char *s, size_t n, struct logfmt_record *r)
{
	struct json_cursor c = {.s = s, .n = n};

	r->n = 0;
	r->priority = -1;
	if (n == 0 || s[n - 1] != '\n' || memchr(s, '\n', n) != s + n - 1)
		return -1;
	c.n = n - 1;
	if (c.n >= 3 && s[0] == '<' && s[1] >= '0' && s[1] <= '7' && s[2] == '>') {
		r->priority = s[1] - '0';
		c.i = 3;
	}
	json_ws(&c);
	if (c.i >= c.n || s[c.i++] != '{')
		return -1;
	json_ws(&c);
	if (c.i < c.n && s[c.i] == '}') {
		c.i++;
	} else {
		for (;;) {
			json_ws(&c);
			if (json_member(&c, r) < 0)
				return -1;
			json_ws(&c);
			if (c.i < c.n && s[c.i] == ',') {
				c.i++;
				continue;
			}
			if (c.i >= c.n || s[c.i++] != '}')
				return -1;
			break;
		}
	}
	json_ws(&c);
	return c.i == c.n ? 0 : -1;
}

#endif
