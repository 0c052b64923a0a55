// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the exposition writer (metrics.c). Three parts on one input:
 *
 *  - the label value escaping on the whole input (as a C string): the output
 *    is valid UTF-8 with no raw newline or unescaped quote, only the escapes
 *    \\ \" \n, and unescapes to the input when the input was valid UTF-8;
 *  - metric_format_double on the first 8 bytes as a double: it reads back as
 *    the same double;
 *  - a metric sink filled from the input (records split at NUL bytes, fields
 *    at 0x1f: type byte and family, HELP, then label name/value pairs), then
 *    rendered: every line is HELP, TYPE or a sample line that parses, each
 *    family is one contiguous block, families are sorted, and the number of
 *    series is what the sink accepted.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/buf.h"
#include "exposition/metrics.h"
#include "fuzz.h"

#define MAX_RECORDS 24
#define MAX_FIELDS  (2 + 2 * 6)

/* Length of the strict UTF-8 sequence at p (at most n bytes), 0 when invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static bool utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0, l; i < n; i += l)
		if (!(l = utf8_len((const unsigned char *)s + i, n - i)))
			return false;
	return true;
}

/*
 * Unescapes a label value at *p (after the opening quote) up to its closing
 * quote, into out (may be NULL); *p is left after the closing quote. False when
 * a raw newline, a bad escape or no closing quote is found.
 */
static bool unescape_value(const char **p, const char *end, struct buf *out)
{
	const char *s = *p;

	while (s < end && *s != '"') {
		if (*s == '\n')
			return false;
		if (*s == '\\') {
			if (s + 1 >= end)
				return false;
			if (s[1] == 'n') {
				if (out)
					buf_putc(out, '\n');
			} else if (s[1] == '\\' || s[1] == '"') {
				if (out)
					buf_putc(out, s[1]);
			} else {
				return false;
			}
			s += 2;
			continue;
		}
		if (out)
			buf_putc(out, *s);
		s++;
	}
	if (s >= end)
		return false;
	*p = s + 1;
	return true;
}

static void check_escape(const char *value)
{
	struct buf esc = BUF_INIT, back = BUF_INIT;
	const char *p;
	size_t n = strlen(value);

	FUZZ_CHECK(metric_escape_label_value(&esc, value) == 0);
	if (!esc.data) {
		FUZZ_CHECK(n == 0);
		return;
	}
	FUZZ_CHECK(strlen(esc.data) == esc.len);
	FUZZ_CHECK(!memchr(esc.data, '\n', esc.len));
	FUZZ_CHECK(utf8_valid(esc.data, esc.len));
	/* the escaped text followed by a quote is exactly one quoted value */
	buf_putc(&esc, '"');
	p = esc.data;
	FUZZ_CHECK(unescape_value(&p, esc.data + esc.len, &back));
	FUZZ_CHECK(p == esc.data + esc.len);
	if (utf8_valid(value, n))
		FUZZ_CHECK(back.len == n && memcmp(back.data, value, n) == 0);
	buf_free(&esc);
	buf_free(&back);
}

static bool parse_number(const char *s, size_t n, double *v)
{
	char tmp[64], *end;

	if (n == 0 || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (strcmp(tmp, "NaN") == 0 || strcmp(tmp, "+Inf") == 0 || strcmp(tmp, "-Inf") == 0) {
		*v = tmp[0] == 'N' ? NAN : tmp[0] == '+' ? INFINITY : -INFINITY;
		return true;
	}
	if (strspn(tmp, "0123456789.e+-") != n)
		return false;
	*v = strtod(tmp, &end);
	return *end == '\0';
}

static void check_double(const uint8_t *data, size_t size)
{
	struct buf out = BUF_INIT;
	double v, w;

	if (size < sizeof(v))
		return;
	memcpy(&v, data, sizeof(v));
	FUZZ_CHECK(metric_format_double(&out, v) == 0);
	FUZZ_CHECK(out.data && strlen(out.data) == out.len);
	FUZZ_CHECK(parse_number(out.data, out.len, &w));
	FUZZ_CHECK((isnan(v) && isnan(w)) || (v == w && signbit(v) == signbit(w)));
	buf_free(&out);
}

/* ---- the sink and its rendering --------------------------------------------------------- */

struct fam_seen {
	char *names[MAX_RECORDS];
	size_t n;
};

/* Whether the n bytes at s are a name that valid() accepts. */
static bool valid_span(const char *s, size_t n, bool (*valid)(const char *))
{
	char *c = strndup(s, n);
	bool ok = c && valid(c);

	free(c);
	return ok;
}

/* A sample line: NAME[{labels}] VALUE; returns its name length (0: malformed). */
static size_t check_sample_line(const char *line, size_t len)
{
	const char *p = line, *end = line + len, *sp;
	size_t name_len = strcspn(line, "{ ");
	double v;

	if (name_len == 0 || name_len >= len)
		return 0;
	FUZZ_CHECK(valid_span(line, name_len, metric_name_valid));
	p += name_len;
	if (*p == '{') {
		p++;
		while (p < end && *p != '}') {
			size_t ln = strcspn(p, "=");

			FUZZ_CHECK(ln > 0 && p + ln + 1 < end);
			FUZZ_CHECK(valid_span(p, ln, metric_label_name_valid));
			p += ln + 1;
			FUZZ_CHECK(*p == '"');
			p++;
			FUZZ_CHECK(unescape_value(&p, end, NULL));
			FUZZ_CHECK(utf8_valid(line, (size_t)(p - line)));
			FUZZ_CHECK(p < end && (*p == ',' || *p == '}'));
			if (*p == ',')
				p++;
		}
		FUZZ_CHECK(p < end && *p == '}');
		p++;
	}
	FUZZ_CHECK(p < end && *p == ' ');
	sp = p + 1;
	FUZZ_CHECK(parse_number(sp, (size_t)(end - sp), &v));
	return name_len;
}

static bool has_suffix_of(const char *name, size_t n, const char *fam, const char *suffix)
{
	size_t fl = strlen(fam), sl = strlen(suffix);

	return n == fl + sl && memcmp(name, fam, fl) == 0 && memcmp(name + fl, suffix, sl) == 0;
}

/* Returns the number of series lines (a histogram's lines count once, at _count). */
static size_t check_exposition(const char *text, size_t len)
{
	struct fam_seen seen = {.n = 0};
	const char *line = text, *end = text + len;
	const char *fam = "";
	char type[16] = "";
	size_t series = 0;

	FUZZ_CHECK(strlen(text) == len);
	FUZZ_CHECK(len == 0 || text[len - 1] == '\n');
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t ll = (size_t)(nl - line);

		if (ll > 7 && memcmp(line, "# HELP ", 7) == 0) {
			size_t fl = strcspn(line + 7, " \n");

			char *f = strndup(line + 7, fl);

			FUZZ_CHECK(fl > 0 && f && metric_name_valid(f));
			/* sorted, and never seen before: one contiguous block */
			FUZZ_CHECK(seen.n == 0 || strcmp(seen.names[seen.n - 1], f) < 0);
			for (size_t i = 0; i < seen.n; i++)
				FUZZ_CHECK(strcmp(seen.names[i], f) != 0);
			FUZZ_CHECK(seen.n < MAX_RECORDS);
			seen.names[seen.n++] = f;
			fam = f;
			/* HELP escapes only backslash and newline */
			for (const char *h = line + 7 + fl + 1; h < nl; h++) {
				if (*h == '\\') {
					FUZZ_CHECK(h + 1 < nl && (h[1] == '\\' || h[1] == 'n'));
					h++;
				}
			}
			type[0] = '\0';
		} else if (ll > 7 && memcmp(line, "# TYPE ", 7) == 0) {
			size_t fl = strlen(fam);

			FUZZ_CHECK(fl && type[0] == '\0');
			FUZZ_CHECK(ll > 7 + fl + 1 && memcmp(line + 7, fam, fl) == 0 &&
				   line[7 + fl] == ' ');
			FUZZ_CHECK(ll - 8 - fl < sizeof(type));
			memcpy(type, line + 8 + fl, ll - 8 - fl);
			type[ll - 8 - fl] = '\0';
			FUZZ_CHECK(strcmp(type, "counter") == 0 || strcmp(type, "gauge") == 0 ||
				   strcmp(type, "untyped") == 0 || strcmp(type, "histogram") == 0);
		} else {
			size_t nlen = check_sample_line(line, ll);

			FUZZ_CHECK(nlen > 0 && type[0] != '\0');
			if (strcmp(type, "histogram") == 0) {
				FUZZ_CHECK(has_suffix_of(line, nlen, fam, "_bucket") ||
					   has_suffix_of(line, nlen, fam, "_sum") ||
					   has_suffix_of(line, nlen, fam, "_count"));
				series += has_suffix_of(line, nlen, fam, "_count");
			} else {
				FUZZ_CHECK(nlen == strlen(fam) && memcmp(line, fam, nlen) == 0);
				series++;
			}
		}
		line = nl + 1;
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.names[i]);
	return series;
}

/* Splits s[0, n) at sep into at most max C strings (modifying s); returns the count. */
static size_t split(char *s, size_t n, char sep, char **out, size_t max)
{
	size_t k = 0;
	char *p = s, *e = s + n;

	while (k < max) {
		char *q = memchr(p, sep, (size_t)(e - p));

		out[k++] = p;
		if (!q)
			break;
		*q = '\0';
		p = q + 1;
	}
	return k;
}

static void check_sink(const uint8_t *data, size_t size)
{
	static const double bounds[] = {0.001, 0.5, 1, 10, 1e9};
	char *copy = malloc(size + 1), *records[MAX_RECORDS];
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;
	size_t n_rec, added = 0;

	if (!copy || !sink)
		goto out;
	memcpy(copy, data, size);
	copy[size] = '\0';
	n_rec = split(copy, size, '\0', records, MAX_RECORDS);
	for (size_t r = 0; r < n_rec; r++) {
		char *f[MAX_FIELDS];
		size_t nf = split(records[r], strlen(records[r]), '\x1f', f, MAX_FIELDS);
		struct metric_label labels[(MAX_FIELDS - 2) / 2];
		size_t nl = nf >= 2 ? (nf - 2) / 2 : 0;
		unsigned char op = (unsigned char)f[0][0];
		const char *family = f[0][0] ? f[0] + 1 : f[0];
		const char *help = nf > 1 ? f[1] : "";
		uint64_t counts[5] = {1, 0, 2, 0, 1};
		double v;
		int rc;

		for (size_t i = 0; i < nl; i++) {
			labels[i].name = f[2 + 2 * i];
			labels[i].value = f[3 + 2 * i];
		}
		memset(&v, 0, sizeof(v));
		memcpy(&v, help, strlen(help) < sizeof(v) ? strlen(help) : sizeof(v));
		switch (op % 5) {
		case 0:
			rc = metric_sink_add_u64(sink, family, help, METRIC_COUNTER, labels, nl,
						 UINT64_MAX - r);
			break;
		case 1:
			rc = metric_sink_add_u64(sink, family, help, METRIC_GAUGE, labels, nl, r);
			break;
		case 2:
			rc = metric_sink_add_double(sink, family, help, METRIC_GAUGE, labels, nl,
						    v);
			break;
		case 3:
			rc = metric_sink_add_double(sink, family, help, METRIC_UNTYPED, labels, nl,
						    v);
			break;
		default:
			rc = metric_sink_add_histogram(sink, family, help, labels, nl, bounds,
						       op % 6, counts, 4 + op % 3, v);
			break;
		}
		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EEXIST || rc == -EPROTO);
		if (rc == 0) {
			added++;
			FUZZ_CHECK(metric_sink_has(sink, family, labels, nl));
		}
	}
	FUZZ_CHECK(metric_sink_samples(sink) == added);
	FUZZ_CHECK(metric_sink_errors(sink) == n_rec - added);
	FUZZ_CHECK(metric_sink_render(sink, &out) == 0);
	FUZZ_CHECK(check_exposition(out.data ? out.data : "", out.len) == added);
out:
	buf_free(&out);
	metric_sink_free(sink);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);

	if (!s)
		return 0;
	check_escape(s);
	free(s);
	check_double(data, size);
	check_sink(data, size);
	return 0;
}
