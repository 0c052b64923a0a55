// SPDX-License-Identifier: Apache-2.0
/* The text format's own rules: names checked, label values and HELP escaped, numbers written, label
 * sets read back. */
#include "exposition/metric_text.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/chars.h"

static bool name_char_ok(char c, bool first, bool colon)
{
	if (ascii_is_alpha(c) || c == '_')
		return true;
	if (colon && c == ':')
		return true;
	return !first && ascii_is_digit(c);
}

bool metric_name_valid(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char_ok(*p, p == name, true))
			return false;
	return true;
}

bool metric_label_name_valid(const char *name)
{
	if (!name || !*name)
		return false;
	/* Names starting with __ are reserved for Prometheus itself. */
	if (name[0] == '_' && name[1] == '_')
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char_ok(*p, p == name, false))
			return false;
	return true;
}

/* Length of a valid UTF-8 sequence at p (at most n bytes), or 0 when invalid. */
static size_t utf8_seq_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Whether the n bytes at p are printable ASCII without \ or ": the text as it is. */
static bool plain_ascii(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] > 0x7e || p[i] == '\\' || p[i] == '"')
			return false;
	return true;
}

int metric_escape_label_value(struct buf *out, const char *value)
{
	const unsigned char *p = (const unsigned char *)value;
	size_t n = strlen(value);

	/* Nearly every value (device, port, counter names): one copy, not a
	 * buf_append() per byte. */
	if (n && plain_ascii(p, n)) {
		buf_append(out, p, n);
		return buf_failed(out) ? -ENOMEM : 0;
	}
	while (n) {
		size_t l = utf8_seq_len(p, n);

		if (l == 0) {
			buf_puts(out, "\xef\xbf\xbd"); /* U+FFFD REPLACEMENT CHARACTER */
			l = 1;
		} else if (*p == '\\') {
			buf_puts(out, "\\\\");
		} else if (*p == '"') {
			buf_puts(out, "\\\"");
		} else if (*p == '\n') {
			buf_puts(out, "\\n");
		} else {
			buf_append(out, p, l);
		}
		p += l;
		n -= l;
	}
	return buf_failed(out) ? -ENOMEM : 0;
}

/* HELP text escapes only backslash and newline (format 0.0.4). */
void metric_escape_help(struct buf *out, const char *help)
{
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			buf_puts(out, "\\\\");
		else if (*p == '\n')
			buf_puts(out, "\\n");
		else
			buf_putc(out, *p);
	}
}

int metric_format_double(struct buf *out, double v)
{
	char tmp[64];

	if (isnan(v))
		return buf_puts(out, "NaN");
	if (isinf(v))
		return buf_puts(out, v > 0 ? "+Inf" : "-Inf");
	/* Shortest of %.15g..%.17g that reads back as the same double. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	return buf_puts(out, tmp);
}

/* Reads a quoted, escaped value at *p (just after the opening quote) into value. */
static int read_label_value(const char **p, struct buf *value)
{
	const char *c = *p;

	for (; *c && *c != '"'; c++) {
		if (*c != '\\') {
			buf_putc(value, *c);
			continue;
		}
		c++;
		if (*c == 'n')
			buf_putc(value, '\n');
		else if (*c == '\\' || *c == '"')
			buf_putc(value, *c);
		else
			return -EINVAL;
	}
	if (*c != '"')
		return -EINVAL;
	*p = c + 1;
	return 0;
}

int metric_labels_next(const char **cursor, struct buf *name, struct buf *value)
{
	const char *p = *cursor, *eq;

	buf_reset(name);
	buf_reset(value);
	if (!*p || (p[0] == '}' && !p[1]))
		return 0;
	if (*p != '{' && *p != ',')
		return -EINVAL;
	p++;
	eq = strchr(p, '=');
	if (!eq || eq[1] != '"' || eq == p)
		return -EINVAL;
	buf_append(name, p, (size_t)(eq - p));
	p = eq + 2;
	if (read_label_value(&p, value) < 0)
		return -EINVAL;
	if (*p != ',' && *p != '}')
		return -EINVAL;
	/* "" for an empty value: data is NULL until the first append */
	buf_puts(name, "");
	buf_puts(value, "");
	if (buf_failed(name) || buf_failed(value))
		return -ENOMEM;
	*cursor = p;
	return 1;
}
