/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A strict logfmt reader for the tests (test_log, the logfmt fuzz target):
 * one record, "key=value" fields separated by single spaces, an optional
 * "<N>" journal prefix, and exactly one newline, at the end. Quoted values
 * take \\ \" \n \r \t and \uXXXX; bare values may not hold a space, '=', '"'
 * or a control byte. Written apart from src/base/log.c so that a bug there is not
 * mirrored here.
 */
#ifndef RDMA_EXPORTER_TESTS_LOGFMT_PARSE_H
#define RDMA_EXPORTER_TESTS_LOGFMT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LOGFMT_MAX_FIELDS 64

struct logfmt_field {
	char key[64];
	char value[8192]; /* decoded; may hold NUL bytes */
	size_t value_len;
};

struct logfmt_record {
	int priority; /* from "<N>", -1 when there is none */
	size_t n;
	struct logfmt_field f[LOGFMT_MAX_FIELDS];
};

/* Length of the valid UTF-8 sequence at s, 0 when it is not one. */
static inline size_t logfmt_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	c = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

static inline bool logfmt_valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0, len; i < n; i += len) {
		len = logfmt_utf8_len((const unsigned char *)s + i, n - i);
		if (!len)
			return false;
	}
	return true;
}

static inline size_t logfmt_put_utf8(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	out[0] = (char)(0xe0 | (c >> 12));
	out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[2] = (char)(0x80 | (c & 0x3f));
	return 3;
}

static inline int logfmt_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The optional "<N>" journal prefix at s[0]; *i moves past it. 0 or -1. */
static inline int logfmt_parse_priority(const char *s, size_t n, size_t *i, struct logfmt_record *r)
{
	if (s[0] != '<')
		return 0;
	r->priority = 0;
	for (*i = 1; *i < n && s[*i] >= '0' && s[*i] <= '9'; (*i)++)
		r->priority = r->priority * 10 + (s[*i] - '0');
	if (*i == 1 || *i >= n || s[*i] != '>')
		return -1;
	(*i)++;
	return 0;
}

/* "key=" at s[*i], into f->key; *i moves past the '='. 0 or -1. */
static inline int logfmt_parse_key(const char *s, size_t n, size_t *i, struct logfmt_field *f)
{
	size_t k = 0;

	while (*i < n && s[*i] != '=' && s[*i] != ' ' && s[*i] != '"' &&
	       (unsigned char)s[*i] > ' ') {
		if (k + 1 >= sizeof(f->key))
			return -1;
		f->key[k++] = s[(*i)++];
	}
	f->key[k] = '\0';
	if (k == 0 || *i >= n || s[*i] != '=')
		return -1;
	(*i)++;
	return 0;
}

/* The escape whose backslash is at s[*i]; *i ends on its last byte. 0 or -1. */
static inline int logfmt_parse_escape(const char *s, size_t n, size_t *i, struct logfmt_field *f)
{
	uint32_t cp = 0;

	if (++*i >= n)
		return -1;
	switch (s[*i]) {
	case '\\':
	case '"':
		f->value[f->value_len++] = s[*i];
		return 0;
	case 'n':
		f->value[f->value_len++] = '\n';
		return 0;
	case 'r':
		f->value[f->value_len++] = '\r';
		return 0;
	case 't':
		f->value[f->value_len++] = '\t';
		return 0;
	case 'u':
		for (int d = 1; d <= 4; d++) {
			int h = *i + d < n ? logfmt_hex(s[*i + d]) : -1;

			if (h < 0)
				return -1;
			cp = cp * 16 + (uint32_t)h;
		}
		*i += 4;
		f->value_len += logfmt_put_utf8(f->value + f->value_len, cp);
		return 0;
	default:
		return -1;
	}
}

/* A quoted value whose opening quote is at s[*i]; *i moves past the closing one. */
static inline int logfmt_parse_quoted(const char *s, size_t n, size_t *i, struct logfmt_field *f)
{
	for ((*i)++;; (*i)++) {
		char c;

		if (*i >= n)
			return -1; /* no closing quote */
		c = s[*i];
		if (c == '"')
			break;
		if ((unsigned char)c < ' ' || c == 0x7f)
			return -1; /* raw control byte inside quotes */
		if (f->value_len + 5 > sizeof(f->value))
			return -1;
		if (c != '\\')
			f->value[f->value_len++] = c;
		else if (logfmt_parse_escape(s, n, i, f) < 0)
			return -1;
	}
	f->value[f->value_len] = '\0';
	(*i)++; /* the closing quote */
	if (*i < n && s[*i] != ' ')
		return -1;
	return 0;
}

/* A bare value at s[*i], up to the next space. 0 or -1. */
static inline int logfmt_parse_bare(const char *s, size_t n, size_t *i, struct logfmt_field *f)
{
	while (*i < n && s[*i] != ' ') {
		unsigned char c = (unsigned char)s[*i];

		if (c <= ' ' || c == '=' || c == '"' || c == 0x7f)
			return -1;
		if (f->value_len + 2 > sizeof(f->value))
			return -1;
		f->value[f->value_len++] = s[(*i)++];
	}
	if (f->value_len == 0)
		return -1; /* an empty value is written "" */
	f->value[f->value_len] = '\0';
	return 0;
}

/* Parses the record in s[0..n); 0, or -1 when it is not strict logfmt. */
static inline int logfmt_parse(const char *s, size_t n, struct logfmt_record *r)
{
	size_t i = 0;

	r->priority = -1;
	r->n = 0;
	if (n == 0 || s[n - 1] != '\n' || memchr(s, '\n', n - 1) || !logfmt_valid_utf8(s, n))
		return -1;
	n--; /* the newline */
	if (logfmt_parse_priority(s, n, &i, r) < 0)
		return -1;
	while (i < n) {
		struct logfmt_field *f;
		int rc;

		if (r->n == LOGFMT_MAX_FIELDS)
			return -1;
		f = &r->f[r->n++];
		if (r->n > 1) {
			if (s[i] != ' ')
				return -1;
			i++;
		}
		if (logfmt_parse_key(s, n, &i, f) < 0)
			return -1;
		f->value_len = 0;
		if (i < n && s[i] == '"')
			rc = logfmt_parse_quoted(s, n, &i, f);
		else
			rc = logfmt_parse_bare(s, n, &i, f);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The field named key, or NULL. */
static inline const struct logfmt_field *logfmt_get(const struct logfmt_record *r, const char *key)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->f[i].key, key) == 0)
			return &r->f[i];
	return NULL;
}

#endif
