// SPDX-License-Identifier: Apache-2.0
#include "probe_targets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHAPE_ERROR "is not host, host:port, [ipv6] or [ipv6]:port"

/* Strings from the file are quoted in messages, cut after this many bytes. */
#define QUOTE_MAX 64

/* The parse state: the input, the list being built, the duplicate index. */
struct jp {
	const unsigned char *buf;
	size_t len, pos;
	char *err;
	size_t errlen;
	struct probe_target_list *out;
	size_t n_strings; /* target strings seen, duplicates included */
	size_t *index;	  /* open addressing over targets: 0 empty, else index + 1 */
	size_t index_cap; /* a power of 2, at least twice the targets */
	char what[32];
	/* The longest string kept: keys, targets and label values all fit. */
	char str[PROBE_TARGETS_MAX_KEY + 1];
	char name[PROBE_TARGETS_MAX_LABEL_NAME + 1];
};

_Static_assert(PROBE_TARGETS_MAX_LABEL_VALUE <= PROBE_TARGETS_MAX_KEY, "scratch too small");
_Static_assert(PROBE_TARGETS_MAX_TARGET <= PROBE_TARGETS_MAX_KEY, "scratch too small");

/* Line and column (from 1) of byte pos: computed only when there is an error. */
static void line_of(const struct jp *p, size_t pos, size_t *line, size_t *col)
{
	size_t l = 1, bol = 0;

	for (size_t i = 0; i < pos && i < p->len; i++) {
		if (p->buf[i] == '\n') {
			l++;
			bol = i + 1;
		}
	}
	*line = l;
	*col = pos - bol + 1;
}

/*
 * Writes the one-line message and returns rc. pos SIZE_MAX: no position;
 * path NULL: a syntax error, located by line, column and byte; otherwise a
 * content error, located by its JSON path and line.
 */
__attribute__((format(printf, 5, 6))) static int fail(struct jp *p, int rc, size_t pos,
						      const char *path, const char *fmt, ...)
{
	size_t line, col;
	int n = 0;
	va_list ap;

	if (!p->errlen)
		return rc;
	if (pos != SIZE_MAX) {
		line_of(p, pos, &line, &col);
		if (path)
			n = snprintf(p->err, p->errlen, "%s (line %zu): ", path, line);
		else
			n = snprintf(p->err, p->errlen, "line %zu, column %zu (byte %zu): ", line,
				     col, pos);
	}
	if (n < 0 || (size_t)n >= p->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

/* s[0..n) in double quotes, control bytes, '"' and '\' escaped, cut at a
 * character boundary after QUOTE_MAX bytes, so a message stays one line. */
static const char *quote(char *dst, size_t size, const char *s, size_t n)
{
	size_t o = 0, cut = n;

	if (cut > QUOTE_MAX) {
		cut = QUOTE_MAX;
		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
	}
	dst[o++] = '"';
	for (size_t i = 0; i < cut && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(dst + o, size - o, "\\x%02x", c);
		else if (c == '"' || c == '\\')
			o += (size_t)snprintf(dst + o, size - o, "\\%c", c);
		else
			dst[o++] = (char)c;
	}
	dst[o++] = '"';
	dst[o] = 0;
	if (cut < n && o + 4 < size)
		memcpy(dst + o, "...", 4);
	return dst;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool starts_with(const struct jp *p, const char *word)
{
	size_t n = strlen(word);

	return p->len - p->pos >= n && !memcmp(p->buf + p->pos, word, n);
}

/* What is at the current position, for "expected X, got Y". */
static const char *what_at(struct jp *p)
{
	unsigned char c;

	if (p->pos >= p->len)
		return "end of file";
	c = p->buf[p->pos];
	switch (c) {
	case '"':
		return "a string";
	case '[':
		return "an array";
	case '{':
		return "an object";
	case 't':
	case 'f':
	case 'n':
		if (starts_with(p, "true") || starts_with(p, "false"))
			return "a boolean";
		if (starts_with(p, "null"))
			return "null";
		break;
	default:
		break;
	}
	if (c == '-' || is_digit(c))
		return "a number";
	if (c > 0x20 && c < 0x7f)
		snprintf(p->what, sizeof(p->what), "'%c'", c);
	else
		snprintf(p->what, sizeof(p->what), "byte 0x%02x", c);
	return p->what;
}

static void skip_ws(struct jp *p)
{
	while (p->pos < p->len) {
		unsigned char c = p->buf[p->pos];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		p->pos++;
	}
}

static bool at(struct jp *p, char c)
{
	return p->pos < p->len && p->buf[p->pos] == (unsigned char)c;
}

static int expect(struct jp *p, char c, const char *after)
{
	skip_ws(p);
	if (!at(p, c))
		return fail(p, -EINVAL, p->pos, NULL, "expected '%c' %s, got %s", c, after,
			    what_at(p));
	p->pos++;
	return 0;
}

/* After an element: 1 when ',' (another follows), 0 at close, or an error. */
static int next(struct jp *p, char close, const char *after)
{
	skip_ws(p);
	if (at(p, ',')) {
		p->pos++;
		return 1;
	}
	if (at(p, close)) {
		p->pos++;
		return 0;
	}
	return fail(p, -EINVAL, p->pos, NULL, "expected ',' or '%c' after %s, got %s", close, after,
		    what_at(p));
}

/* Length of the valid UTF-8 sequence at s (n > 0 bytes left), 0 if invalid:
 * no overlong forms, no UTF-16 surrogates, nothing past U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t need;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (!need || n < need)
		return 0;
	for (size_t i = 1; i < need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return need;
}

static int hex4(struct jp *p, size_t pos, unsigned *v)
{
	unsigned r = 0;

	if (p->len - pos < 4)
		return fail(p, -EINVAL, pos, NULL, "truncated \\u escape");
	for (size_t i = 0; i < 4; i++) {
		unsigned char c = p->buf[pos + i];

		r <<= 4;
		if (c >= '0' && c <= '9')
			r |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			r |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			r |= (unsigned)(c - 'A' + 10);
		else
			return fail(p, -EINVAL, pos - 2, NULL, "invalid \\u escape (4 hex digits)");
	}
	*v = r;
	return 0;
}

static size_t utf8_put(unsigned cp, unsigned char *o)
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The escape at the current '\': its UTF-8 bytes into o (4 bytes room). */
static int escape(struct jp *p, unsigned char *o, size_t *n)
{
	size_t bs = p->pos;
	unsigned cp, lo;
	int rc;

	if (p->len - bs < 2)
		return fail(p, -EINVAL, bs, NULL, "unterminated string");
	p->pos = bs + 2;
	switch (p->buf[bs + 1]) {
	case '"':
	case '\\':
	case '/':
		o[0] = p->buf[bs + 1];
		break;
	case 'b':
		o[0] = '\b';
		break;
	case 'f':
		o[0] = '\f';
		break;
	case 'n':
		o[0] = '\n';
		break;
	case 'r':
		o[0] = '\r';
		break;
	case 't':
		o[0] = '\t';
		break;
	case 'u':
		rc = hex4(p, bs + 2, &cp);
		if (rc)
			return rc;
		p->pos = bs + 6;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return fail(p, -EINVAL, bs, NULL, "lone low surrogate \\u%04x", cp);
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (p->len - p->pos < 2 || p->buf[p->pos] != '\\' ||
			    p->buf[p->pos + 1] != 'u')
				return fail(p, -EINVAL, bs, NULL,
					    "high surrogate \\u%04x not followed by a low one", cp);
			rc = hex4(p, p->pos + 2, &lo);
			if (rc)
				return rc;
			if (lo < 0xdc00 || lo > 0xdfff)
				return fail(p, -EINVAL, bs, NULL,
					    "high surrogate \\u%04x not followed by a low one", cp);
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			p->pos += 6;
		}
		if (!cp)
			return fail(p, -EINVAL, bs, NULL, "\\u0000 is not allowed in a string");
		*n = utf8_put(cp, o);
		return 0;
	default:
		return fail(p, -EINVAL, bs, NULL, "invalid escape: byte 0x%02x after '\\'",
			    p->buf[bs + 1]);
	}
	*n = 1;
	return 0;
}

/*
 * The string at the current '"', decoded into out (room for max bytes and
 * a NUL) when out is set, only checked when not. Returns -E2BIG past max
 * without a message: the caller names the limit and the place.
 */
static int string(struct jp *p, char *out, size_t max, size_t *len)
{
	size_t start = p->pos, n = 0;

	p->pos++;
	for (;;) {
		unsigned char tmp[4], c;
		size_t tl = 1;
		int rc;

		if (p->pos >= p->len)
			return fail(p, -EINVAL, start, NULL, "unterminated string");
		c = p->buf[p->pos];
		if (c == '"')
			break;
		if (c < 0x20)
			return fail(p, -EINVAL, p->pos, NULL,
				    "control byte 0x%02x in a string (write it as \\u%04x)", c, c);
		if (c == '\\') {
			rc = escape(p, tmp, &tl);
			if (rc)
				return rc;
		} else {
			tl = utf8_len(p->buf + p->pos, p->len - p->pos);
			if (!tl)
				return fail(p, -EINVAL, p->pos, NULL, "invalid UTF-8 in a string");
			memcpy(tmp, p->buf + p->pos, tl);
			p->pos += tl;
		}
		if (tl > max - n)
			return -E2BIG;
		if (out)
			memcpy(out + n, tmp, tl);
		n += tl;
	}
	p->pos++;
	if (out)
		out[n] = 0;
	if (len)
		*len = n;
	return 0;
}

static void digits(struct jp *p)
{
	while (p->pos < p->len && is_digit(p->buf[p->pos]))
		p->pos++;
}

/* RFC 8259 number, only ever skipped. */
static int number(struct jp *p)
{
	size_t start = p->pos;

	if (at(p, '-'))
		p->pos++;
	if (at(p, '0'))
		p->pos++;
	else if (p->pos < p->len && is_digit(p->buf[p->pos]))
		digits(p);
	else
		return fail(p, -EINVAL, start, NULL, "invalid number");
	if (at(p, '.')) {
		p->pos++;
		if (p->pos >= p->len || !is_digit(p->buf[p->pos]))
			return fail(p, -EINVAL, start, NULL, "invalid number");
		digits(p);
	}
	if (at(p, 'e') || at(p, 'E')) {
		p->pos++;
		if (at(p, '+') || at(p, '-'))
			p->pos++;
		if (p->pos >= p->len || !is_digit(p->buf[p->pos]))
			return fail(p, -EINVAL, start, NULL, "invalid number");
		digits(p);
	}
	return 0;
}

static int literal(struct jp *p, const char *word)
{
	if (!starts_with(p, word))
		return fail(p, -EINVAL, p->pos, NULL, "invalid literal (true, false or null?)");
	p->pos += strlen(word);
	return 0;
}

static int skip_value(struct jp *p, unsigned depth);

/* The array or object at the current position, at nesting level depth. */
static int skip_container(struct jp *p, unsigned depth)
{
	bool object = at(p, '{');
	char close = object ? '}' : ']';
	int rc;

	if (depth > PROBE_TARGETS_MAX_DEPTH)
		return fail(p, -E2BIG, p->pos, NULL, "nested deeper than %d levels (the limit)",
			    PROBE_TARGETS_MAX_DEPTH);
	p->pos++;
	skip_ws(p);
	if (at(p, close)) {
		p->pos++;
		return 0;
	}
	do {
		if (object) {
			skip_ws(p);
			if (!at(p, '"'))
				return fail(p, -EINVAL, p->pos, NULL,
					    "expected a string key, got %s", what_at(p));
			rc = string(p, NULL, SIZE_MAX, NULL);
			if (rc)
				return rc;
			rc = expect(p, ':', "after a key");
			if (rc)
				return rc;
		}
		rc = skip_value(p, depth);
		if (rc)
			return rc;
		rc = next(p, close, object ? "an object member" : "an array element");
	} while (rc == 1);
	return rc;
}

/* Any value, inside a container at level depth. */
static int skip_value(struct jp *p, unsigned depth)
{
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, -EINVAL, p->pos, NULL, "expected a value, got end of file");
	switch (p->buf[p->pos]) {
	case '"':
		return string(p, NULL, SIZE_MAX, NULL);
	case '[':
	case '{':
		return skip_container(p, depth + 1);
	case 't':
		return literal(p, "true");
	case 'f':
		return literal(p, "false");
	case 'n':
		return literal(p, "null");
	default:
		if (at(p, '-') || is_digit(p->buf[p->pos]))
			return number(p);
		return fail(p, -EINVAL, p->pos, NULL, "expected a value, got %s", what_at(p));
	}
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

/* A bracketed host: an IPv6 address, with an optional "%zone". */
static const char *check_ipv6(const char *h, size_t n)
{
	char addr[INET6_ADDRSTRLEN];
	struct in6_addr a;
	const char *pct = memchr(h, '%', n);
	size_t alen = pct ? (size_t)(pct - h) : n;

	if (!n)
		return "has an empty host";
	if (alen >= sizeof(addr))
		return "has an invalid IPv6 address in brackets";
	memcpy(addr, h, alen);
	addr[alen] = 0;
	if (inet_pton(AF_INET6, addr, &a) != 1)
		return "has an invalid IPv6 address in brackets";
	if (pct) {
		if (alen + 1 == n)
			return "has an empty IPv6 zone after '%'";
		for (size_t i = alen + 1; i < n; i++) {
			unsigned char c = (unsigned char)h[i];

			if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '_' && c != '.')
				return "has an invalid IPv6 zone (letters, digits, '-', '_', '.')";
		}
	}
	return NULL;
}

/* A host without brackets: a DNS name, or an IPv4 address when only digits
 * and dots. reason has room for a short message naming a bad character. */
static const char *check_name(const char *h, size_t n, char *reason, size_t size)
{
	bool numeric = true;
	size_t label = 0;
	char v4[16];
	struct in_addr a;

	if (!n)
		return "has an empty host";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];

		if (c == '.') {
			if (!label)
				return "has an empty label in the host name";
			label = 0;
			continue;
		}
		if (c == ' ')
			return "has a space in the host";
		if (c < 0x20 || c == 0x7f)
			return "has a control character in the host";
		if (c >= 0x80)
			return "has a non-ASCII byte in the host (write IDNs in punycode)";
		if (!is_alpha(c) && !is_digit(c) && c != '-' && c != '_') {
			snprintf(reason, size,
				 "has '%c' in the host (letters, digits, '-', '_', '.')", c);
			return reason;
		}
		if (!is_digit(c))
			numeric = false;
		if (++label > 63)
			return "has a host name label longer than 63 bytes";
	}
	if (numeric) {
		if (n >= sizeof(v4))
			return "has a host of digits and dots that is not an IPv4 address";
		memcpy(v4, h, n);
		v4[n] = 0;
		if (inet_pton(AF_INET, v4, &a) != 1)
			return "has a host of digits and dots that is not an IPv4 address";
	}
	return NULL;
}

/* Decimal 1..65535 without sign or leading zero. */
static const char *parse_port(const char *s, size_t n, uint16_t *port)
{
	unsigned v = 0;

	if (!n || n > 5 || s[0] == '0')
		return "has a port that is not 1..65535 (decimal, no leading zero)";
	for (size_t i = 0; i < n; i++) {
		if (!is_digit((unsigned char)s[i]))
			return "has a port that is not 1..65535 (decimal, no leading zero)";
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535)
		return "has a port that is not 1..65535 (decimal, no leading zero)";
	*port = (uint16_t)v;
	return NULL;
}

/* Splits a target into host (offset and length in raw) and port; NULL, or
 * why it is not a target, worded to follow the quoted string. */
static const char *split_target(const char *raw, size_t n, size_t *hoff, size_t *hlen,
				uint16_t *port, char *reason, size_t size)
{
	const char *why, *colon;

	*port = 0;
	if (!n)
		return "is empty";
	if (raw[0] == '[') {
		const char *close = memchr(raw, ']', n);
		size_t rest;

		if (!close)
			return SHAPE_ERROR;
		*hoff = 1;
		*hlen = (size_t)(close - raw) - 1;
		rest = n - (size_t)(close - raw) - 1;
		if (rest && close[1] != ':')
			return SHAPE_ERROR;
		why = rest ? parse_port(close + 2, rest - 1, port) : NULL;
		if (why)
			return why;
		if (*hlen > PROBE_TARGETS_MAX_HOST)
			return "has a host longer than 255 bytes (the limit)";
		return check_ipv6(raw + 1, *hlen);
	}
	*hoff = 0;
	*hlen = n;
	colon = memchr(raw, ':', n);
	if (colon) {
		*hlen = (size_t)(colon - raw);
		if (memchr(colon + 1, ':', n - *hlen - 1) || memchr(raw, ']', n))
			return SHAPE_ERROR;
		why = parse_port(colon + 1, n - *hlen - 1, port);
		if (why)
			return why;
	}
	if (*hlen > PROBE_TARGETS_MAX_HOST)
		return "has a host longer than 255 bytes (the limit)";
	return check_name(raw, *hlen, reason, size);
}

/* FNV-1a over the lower-cased host and the port. */
static uint64_t target_hash(const char *host, size_t n, uint16_t port)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ lower((unsigned char)host[i])) * 0x100000001b3ULL;
	h = (h ^ (port & 0xff)) * 0x100000001b3ULL;
	h = (h ^ (port >> 8)) * 0x100000001b3ULL;
	return h;
}

static bool same_target(const struct probe_target *t, const char *host, size_t n, uint16_t port)
{
	if (t->port != port || strlen(t->host) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)t->host[i]) != lower((unsigned char)host[i]))
			return false;
	return true;
}

/* Slot of host:port in the index: the entry that matches, or an empty one. */
static size_t *index_slot(struct jp *p, const char *host, size_t n, uint16_t port)
{
	size_t mask = p->index_cap - 1;
	size_t i = (size_t)target_hash(host, n, port) & mask;

	while (p->index[i] && !same_target(&p->out->targets[p->index[i] - 1], host, n, port))
		i = (i + 1) & mask;
	return &p->index[i];
}

static int index_grow(struct jp *p)
{
	size_t cap = p->index_cap ? p->index_cap * 2 : 1024;
	size_t *old = p->index, old_cap = p->index_cap;

	p->index = calloc(cap, sizeof(*p->index));
	if (!p->index) {
		p->index = old;
		return -ENOMEM;
	}
	p->index_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		const struct probe_target *t;

		if (!old[i])
			continue;
		t = &p->out->targets[old[i] - 1];
		*index_slot(p, t->host, strlen(t->host), t->port) = old[i];
	}
	free(old);
	return 0;
}

/* Room for one more of n elements of size bytes in *v (capacity *cap). */
static void *grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;

	if (n < *cap)
		return v;
	if (c > SIZE_MAX / size)
		return NULL;
	v = realloc(v, c * size);
	if (v)
		*cap = c;
	return v;
}

static int add_target(struct jp *p, size_t g, const char *path, size_t pos, const char *raw,
		      size_t n)
{
	struct probe_target_list *l = p->out;
	char reason[80], q[QUOTE_MAX * 4 + 8];
	const char *why;
	struct probe_target *t;
	size_t hoff = 0, hlen = 0, *slot;
	uint16_t port;
	char *block;

	why = split_target(raw, n, &hoff, &hlen, &port, reason, sizeof(reason));
	if (why)
		return fail(p, -EINVAL, pos, path, "%s %s", quote(q, sizeof(q), raw, n), why);
	if ((l->n_targets + 1) * 2 > p->index_cap && index_grow(p))
		return fail(p, -ENOMEM, SIZE_MAX, NULL, "out of memory");
	slot = index_slot(p, raw + hoff, hlen, port);
	if (*slot) {
		l->duplicates++;
		return 0;
	}
	t = grow(l->targets, &l->cap_targets, l->n_targets, sizeof(*t), 64);
	block = malloc(hlen + 1 + n + 1);
	if (!t || !block) {
		free(block);
		return fail(p, -ENOMEM, SIZE_MAX, NULL, "out of memory");
	}
	l->targets = t;
	memcpy(block, raw + hoff, hlen);
	block[hlen] = 0;
	memcpy(block + hlen + 1, raw, n + 1);
	t = &l->targets[l->n_targets++];
	t->host = block;
	t->raw = block + hlen + 1;
	t->port = port;
	t->group = g;
	t->key = target_hash(t->host, hlen, port);
	*slot = l->n_targets;
	return 0;
}

/* The "targets" value of group g: an array of strings. */
static int targets(struct jp *p, size_t g)
{
	char path[64];
	int rc;

	skip_ws(p);
	if (!at(p, '[')) {
		snprintf(path, sizeof(path), "[%zu].targets", g);
		return fail(p, -EINVAL, p->pos, path, "expected an array of strings, got %s",
			    what_at(p));
	}
	p->pos++;
	skip_ws(p);
	if (at(p, ']')) {
		p->pos++;
		return 0;
	}
	for (size_t i = 0;; i++) {
		size_t n, start;

		snprintf(path, sizeof(path), "[%zu].targets[%zu]", g, i);
		skip_ws(p);
		start = p->pos;
		if (!at(p, '"'))
			return fail(p, -EINVAL, start, path,
				    "expected a string \"host[:port]\", got %s", what_at(p));
		if (p->n_strings >= PROBE_TARGETS_MAX_TARGETS)
			return fail(p, -E2BIG, start, path,
				    "more than %d targets in the file (the limit)",
				    PROBE_TARGETS_MAX_TARGETS);
		p->n_strings++;
		rc = string(p, p->str, PROBE_TARGETS_MAX_TARGET, &n);
		if (rc == -E2BIG)
			return fail(p, rc, start, path, "target longer than %d bytes (the limit)",
				    PROBE_TARGETS_MAX_TARGET);
		if (rc)
			return rc;
		rc = add_target(p, g, path, start, p->str, n);
		if (rc)
			return rc;
		rc = next(p, ']', "a target");
		if (rc != 1)
			return rc;
	}
}

/* NULL, or why name is not a label name this file may set. */
static const char *label_problem(const char *name, size_t n)
{
	static const char *const own[] = {"device", "port", "target", "reason", "le"};

	if (!n || (!is_alpha((unsigned char)name[0]) && name[0] != '_'))
		return "is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)";
	for (size_t i = 1; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!is_alpha(c) && !is_digit(c) && c != '_')
			return "is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)";
	}
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return "is a label of the probe metrics themselves (device, port, target, "
			       "reason, le)";
	return NULL;
}

/*
 * Whether a label of a file_sd file is dropped rather than kept: "__*"
 * (Prometheus's reserved and __meta_* names, which its own file_sd drops
 * after relabelling) and job and instance (the scrape sets them on every
 * series: copied onto the probe series, the scrape would overwrite them).
 */
static bool label_dropped(const char *name, size_t n)
{
	return (n >= 2 && name[0] == '_' && name[1] == '_') || !strcmp(name, "job") ||
	       !strcmp(name, "instance");
}

static void note_dropped(struct probe_target_list *l, const char *name)
{
	if (!l->dropped_labels++)
		snprintf(l->dropped_label, sizeof(l->dropped_label), "%s", name);
}

/* A label's name (at p->pos) into p->name: checked, *drop when it is one to drop. */
static int label_name(struct jp *p, const struct probe_group *grp, const char *path, size_t *nlen,
		      bool *drop)
{
	char q[QUOTE_MAX * 4 + 8];
	size_t start = p->pos;
	const char *why;
	int rc;

	if (!at(p, '"'))
		return fail(p, -EINVAL, start, NULL, "expected a string key (a label name), got %s",
			    what_at(p));
	rc = string(p, p->name, PROBE_TARGETS_MAX_LABEL_NAME, nlen);
	if (rc == -E2BIG)
		return fail(p, rc, start, path, "label name longer than %d bytes (the limit)",
			    PROBE_TARGETS_MAX_LABEL_NAME);
	if (rc)
		return rc;
	why = label_problem(p->name, *nlen);
	if (why)
		return fail(p, -EINVAL, start, path, "%s %s", quote(q, sizeof(q), p->name, *nlen),
			    why);
	*drop = label_dropped(p->name, *nlen);
	if (*drop)
		return 0;
	for (size_t i = 0; i < grp->n_labels; i++)
		if (!strcmp(grp->labels[i].name, p->name))
			return fail(p, -EINVAL, start, path, "duplicate label \"%s\"", p->name);
	if (grp->n_labels >= PROBE_TARGETS_MAX_LABELS)
		return fail(p, -E2BIG, start, path, "more than %d labels in one group (the limit)",
			    PROBE_TARGETS_MAX_LABELS);
	return 0;
}

static int add_label(struct jp *p, struct probe_group *grp, size_t nlen, size_t vlen)
{
	struct probe_label *v = grow(grp->labels, &grp->cap_labels, grp->n_labels, sizeof(*v), 4);
	char *block = malloc(nlen + 1 + vlen + 1);

	if (!v || !block) {
		free(block);
		return fail(p, -ENOMEM, SIZE_MAX, NULL, "out of memory");
	}
	grp->labels = v;
	memcpy(block, p->name, nlen + 1);
	memcpy(block + nlen + 1, p->str, vlen + 1);
	grp->labels[grp->n_labels].name = block;
	grp->labels[grp->n_labels].value = block + nlen + 1;
	grp->n_labels++;
	return 0;
}

/* The "labels" value of group g: an object of string values. */
static int labels(struct jp *p, size_t g)
{
	struct probe_group *grp = &p->out->groups[g];
	char path[PROBE_TARGETS_MAX_LABEL_NAME + 48];
	size_t bytes = 0; /* names and values so far, of the labels kept */
	int rc;

	snprintf(path, sizeof(path), "[%zu].labels", g);
	skip_ws(p);
	if (!at(p, '{'))
		return fail(p, -EINVAL, p->pos, path, "expected an object of strings, got %s",
			    what_at(p));
	p->pos++;
	skip_ws(p);
	if (at(p, '}')) {
		p->pos++;
		return 0;
	}
	do {
		size_t start, nlen, vlen;
		bool drop;

		skip_ws(p);
		rc = label_name(p, grp, path, &nlen, &drop);
		if (rc)
			return rc;
		rc = expect(p, ':', "after a key");
		if (rc)
			return rc;
		snprintf(path, sizeof(path), "[%zu].labels.%s", g, p->name);
		skip_ws(p);
		start = p->pos;
		if (!at(p, '"'))
			return fail(p, -EINVAL, start, path, "expected a string value, got %s",
				    what_at(p));
		rc = string(p, p->str, PROBE_TARGETS_MAX_LABEL_VALUE, &vlen);
		if (rc == -E2BIG)
			return fail(p, rc, start, path,
				    "label value longer than %d bytes (the limit)",
				    PROBE_TARGETS_MAX_LABEL_VALUE);
		if (rc)
			return rc;
		if (drop) {
			note_dropped(p->out, p->name);
			snprintf(path, sizeof(path), "[%zu].labels", g);
			rc = next(p, '}', "a label");
			continue;
		}
		bytes += nlen + vlen;
		if (bytes > PROBE_TARGETS_MAX_LABEL_BYTES)
			return fail(p, -E2BIG, start, path,
				    "labels longer than %d bytes in all, names and values (the "
				    "limit on the label bytes a target carries)",
				    PROBE_TARGETS_MAX_LABEL_BYTES);
		rc = add_label(p, grp, nlen, vlen);
		if (rc)
			return rc;
		snprintf(path, sizeof(path), "[%zu].labels", g);
		rc = next(p, '}', "a label");
	} while (rc == 1);
	return rc;
}

/* Group object g, at level 2. */
static int group(struct jp *p, size_t g)
{
	struct probe_target_list *l = p->out;
	bool seen_targets = false, seen_labels = false;
	struct probe_group *v;
	char path[32];
	size_t start;
	int rc;

	snprintf(path, sizeof(path), "[%zu]", g);
	skip_ws(p);
	start = p->pos;
	if (!at(p, '{'))
		return fail(p, -EINVAL, start, path,
			    "expected a group object {\"targets\": [...]}, got %s", what_at(p));
	if (g >= PROBE_TARGETS_MAX_GROUPS)
		return fail(p, -E2BIG, start, path, "more than %d groups (the limit)",
			    PROBE_TARGETS_MAX_GROUPS);
	v = grow(l->groups, &l->cap_groups, l->n_groups, sizeof(*v), 16);
	if (!v)
		return fail(p, -ENOMEM, SIZE_MAX, NULL, "out of memory");
	l->groups = v;
	memset(&l->groups[l->n_groups++], 0, sizeof(*v));
	p->pos++;
	skip_ws(p);
	if (at(p, '}'))
		p->pos++;
	else
		do {
			size_t kpos;

			skip_ws(p);
			kpos = p->pos;
			if (!at(p, '"'))
				return fail(p, -EINVAL, kpos, NULL, "expected a string key, got %s",
					    what_at(p));
			rc = string(p, p->str, PROBE_TARGETS_MAX_KEY, NULL);
			if (rc == -E2BIG)
				return fail(p, rc, kpos, path,
					    "key longer than %d bytes (the limit)",
					    PROBE_TARGETS_MAX_KEY);
			if (rc)
				return rc;
			rc = expect(p, ':', "after a key");
			if (rc)
				return rc;
			if (!strcmp(p->str, "targets")) {
				if (seen_targets)
					return fail(p, -EINVAL, kpos, path,
						    "duplicate key \"targets\"");
				seen_targets = true;
				rc = targets(p, g);
			} else if (!strcmp(p->str, "labels")) {
				if (seen_labels)
					return fail(p, -EINVAL, kpos, path,
						    "duplicate key \"labels\"");
				seen_labels = true;
				rc = labels(p, g);
			} else {
				rc = skip_value(p, 2);
			}
			if (rc)
				return rc;
			rc = next(p, '}', "a group member");
			if (rc < 0)
				return rc;
		} while (rc == 1);
	if (!seen_targets)
		return fail(p, -EINVAL, start, path, "group without \"targets\"");
	return 0;
}

static int parse(struct jp *p)
{
	int rc;

	if (p->len > PROBE_TARGETS_MAX_FILE)
		return fail(p, -EFBIG, SIZE_MAX, NULL,
			    "file of %zu bytes, more than %u bytes (the limit)", p->len,
			    PROBE_TARGETS_MAX_FILE);
	if (p->len >= 3 && !memcmp(p->buf, "\xef\xbb\xbf", 3))
		p->pos = 3;
	skip_ws(p);
	if (p->pos >= p->len)
		return fail(p, -EINVAL, SIZE_MAX, NULL,
			    "empty file (an empty target list is written [])");
	if (!at(p, '['))
		return fail(p, -EINVAL, p->pos, NULL,
			    "expected the top-level array [{\"targets\": [...]}, ...], got %s",
			    what_at(p));
	p->pos++;
	skip_ws(p);
	if (at(p, ']'))
		p->pos++;
	else
		for (size_t g = 0;; g++) {
			rc = group(p, g);
			if (rc)
				return rc;
			rc = next(p, ']', "a group");
			if (rc < 0)
				return rc;
			if (!rc)
				break;
		}
	skip_ws(p);
	if (p->pos < p->len)
		return fail(p, -EINVAL, p->pos, NULL, "%s after the top-level array", what_at(p));
	return 0;
}

int probe_targets_parse(const char *buf, size_t len, struct probe_target_list *out, char *err,
			size_t errlen)
{
	struct jp *p;
	int rc;

	if (err && errlen)
		err[0] = 0;
	if (!out || (!buf && len))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* About 2 KiB of scratch strings: on the heap, not the caller's stack. */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->buf = (const unsigned char *)buf;
	p->len = len;
	p->err = err;
	p->errlen = err ? errlen : 0;
	p->out = out;
	rc = parse(p);
	free(p->index);
	free(p);
	if (rc)
		probe_target_list_free(out);
	return rc;
}

void probe_target_list_free(struct probe_target_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_targets; i++)
		free(l->targets[i].host);
	free(l->targets);
	for (size_t g = 0; g < l->n_groups; g++) {
		for (size_t i = 0; i < l->groups[g].n_labels; i++)
			free(l->groups[g].labels[i].name);
		free(l->groups[g].labels);
	}
	free(l->groups);
	memset(l, 0, sizeof(*l));
}

/* splitmix64's finalizer: every input bit moves every output bit. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t probe_targets_weight(uint64_t node, uint64_t key)
{
	return mix64(key ^ mix64(node));
}

/* Heap order: the lighter (weight, then index) on top. */
static bool lighter(uint64_t wa, size_t a, uint64_t wb, size_t b)
{
	return wa != wb ? wa < wb : a > b;
}

static void sift_down(size_t *idx, uint64_t *w, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, ti;
		uint64_t tw;

		if (l < n && lighter(w[l], idx[l], w[m], idx[m]))
			m = l;
		if (r < n && lighter(w[r], idx[r], w[m], idx[m]))
			m = r;
		if (m == i)
			return;
		ti = idx[i], idx[i] = idx[m], idx[m] = ti;
		tw = w[i], w[i] = w[m], w[m] = tw;
		i = m;
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

size_t probe_targets_sample(const struct probe_target_list *l, size_t k, uint64_t node,
			    size_t *out_indices, uint64_t *weights)
{
	size_t n = l ? l->n_targets : 0, m = 0;

	if (!n || !k)
		return 0;
	/* A min-heap of the k heaviest so far: O(n log k), no allocation. */
	for (size_t i = 0; i < n; i++) {
		uint64_t w = probe_targets_weight(node, l->targets[i].key);

		if (m < k) {
			out_indices[m] = i;
			weights[m++] = w;
			for (size_t c = m - 1;
			     c > 0 && lighter(weights[c], out_indices[c], weights[(c - 1) / 2],
					      out_indices[(c - 1) / 2]);
			     c = (c - 1) / 2) {
				size_t p = (c - 1) / 2, ti = out_indices[c];
				uint64_t tw = weights[c];

				out_indices[c] = out_indices[p], out_indices[p] = ti;
				weights[c] = weights[p], weights[p] = tw;
			}
		} else if (lighter(weights[0], out_indices[0], w, i)) {
			out_indices[0] = i;
			weights[0] = w;
			sift_down(out_indices, weights, m, 0);
		}
	}
	qsort(out_indices, m, sizeof(*out_indices), cmp_size);
	return m;
}
