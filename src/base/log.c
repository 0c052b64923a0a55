// SPDX-License-Identifier: Apache-2.0
/*
 * logfmt as node_exporter writes it (go-kit log, slog's text handler): a value
 * goes bare unless it is empty or holds a space, '=', '"', a control byte or
 * something that is not printable UTF-8; then it is quoted, with \\ \" \n \r \t
 * and \u00XX inside. Invalid UTF-8 becomes \ufffd, so every record is valid
 * UTF-8 and parses back to its fields.
 *
 * --log.format=json writes the same record as one JSON object per line:
 * {"ts":"...","level":"...","msg":"...","key":"value"...}, the same keys in
 * the same order, every value a string with the same escapes (all of them
 * valid JSON escapes), a cut record ending in ,"truncated":true}.
 */
#include "base/log.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <wchar.h>

#include "base/chars.h"

static int log_level = LOG_INFO;
static FILE *log_out;
static int log_journal = -1;
static int log_json;

static const struct {
	const char *name;
	int level;
} levels[] = {
	{"debug", LOG_DEBUG},
	{"info", LOG_INFO},
	{"warn", LOG_WARNING},
	{"error", LOG_ERR},
};

int log_level_parse(const char *s, int *level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (strcmp(s, levels[i].name) == 0) {
			*level = levels[i].level;
			return 0;
		}
	}
	return -EINVAL;
}

void log_set_level(int level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

int log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

void log_set_output(FILE *f)
{
	log_out = f;
}

void log_set_journal(int mode)
{
	__atomic_store_n(&log_journal, mode < 0 ? -1 : mode > 0, __ATOMIC_RELAXED);
}

void log_set_json(bool json)
{
	__atomic_store_n(&log_json, json, __ATOMIC_RELAXED);
}

int log_format_parse(const char *s, bool *json)
{
	if (strcmp(s, "logfmt") == 0 || strcmp(s, "json") == 0) {
		*json = s[0] == 'j';
		return 0;
	}
	return -EINVAL;
}

/* Under systemd, stderr is the journal: it timestamps lines itself and
 * takes the priority from a leading <N>. */
static bool to_journal(void)
{
	int mode = __atomic_load_n(&log_journal, __ATOMIC_RELAXED);

	if (mode < 0) {
		mode = getenv("JOURNAL_STREAM") != NULL;
		__atomic_store_n(&log_journal, mode, __ATOMIC_RELAXED);
	}
	return mode;
}

/* The four names; the syslog levels between them round to the nearest. */
static const char *level_name(int level)
{
	if (level <= LOG_ERR)
		return "error";
	if (level == LOG_WARNING)
		return "warn";
	if (level <= LOG_INFO)
		return "info";
	return "debug";
}

/* --- the record being built ------------------------------------------- */

#define TRUNCATED " truncated=true"
/* JSON: the closing brace is part of it, and written alone when not truncated. */
#define TRUNCATED_JSON ",\"truncated\":true}"

struct line {
	char *buf;
	size_t len;
	/* Content ends here: the rest holds TRUNCATED, '\n' and the NUL. */
	size_t limit;
	bool truncated;
	bool json; /* ,"key":"value" with every value quoted */
};

/* All of s or nothing. */
static bool put(struct line *l, const char *s, size_t n)
{
	if (l->len + n > l->limit) {
		l->truncated = true;
		return false;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	return true;
}

/* Length of the valid UTF-8 sequence at s and its code point; 0 when the
 * bytes are not one (overlong, surrogate, beyond U+10FFFF, cut short). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
		min = 0x80;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* C0 and C1 controls, DEL, and the two Unicode line breaks that some log
 * viewers split records at. */
static bool unprintable(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029;
}

/*
 * One unit of the value at s: sets *step (bytes consumed) and returns what to
 * write for it inside quotes (in esc, or s itself) with its length in *out_len.
 */
static const char *escape_unit(const char *s, size_t n, size_t *step, char esc[8], size_t *out_len)
{
	uint32_t cp;
	size_t len = utf8_decode((const unsigned char *)s, n, &cp);

	if (!len) {
		*step = 1;
		*out_len = 6;
		return "\\ufffd";
	}
	*step = len;
	switch (cp) {
	case '\\':
		*out_len = 2;
		return "\\\\";
	case '"':
		*out_len = 2;
		return "\\\"";
	case '\n':
		*out_len = 2;
		return "\\n";
	case '\r':
		*out_len = 2;
		return "\\r";
	case '\t':
		*out_len = 2;
		return "\\t";
	}
	if (unprintable(cp)) {
		snprintf(esc, 8, "\\u%04x", (unsigned)cp);
		*out_len = 6;
		return esc;
	}
	*out_len = len;
	return s;
}

static bool needs_quote(const char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i += len) {
		len = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (!len || cp <= ' ' || cp == '=' || cp == '"' || unprintable(cp))
			return true;
	}
	return false;
}

/* Writes s as a value; returns how many bytes of s made it. */
static size_t put_value(struct line *l, const char *s, size_t n)
{
	bool quote = l->json || needs_quote(s, n);
	size_t i = 0, step, out_len;
	const char *out;
	char esc[8];

	if (quote) {
		/* both quotes, or nothing */
		if (l->len + 2 > l->limit) {
			l->truncated = true;
			return 0;
		}
		l->buf[l->len++] = '"';
	}
	while (i < n) {
		out = escape_unit(s + i, n - i, &step, esc, &out_len);
		if (!quote) {
			/* bare: only printable UTF-8 with no escape but backslash's */
			out = s + i;
			out_len = step;
		}
		if (l->len + out_len + quote > l->limit) {
			l->truncated = true;
			break;
		}
		memcpy(l->buf + l->len, out, out_len);
		l->len += out_len;
		i += step;
	}
	if (quote)
		l->buf[l->len++] = '"';
	return i;
}

/* Keys come from the source; still, never let one break the record. */
static void put_key(struct line *l, const char *key, size_t n)
{
	for (size_t i = 0; i < n && l->len < l->limit; i++) {
		unsigned char c = (unsigned char)key[i];
		bool bad = c <= ' ' || c == '=' || c == '"' || c >= 0x7f || (l->json && c == '\\');

		l->buf[l->len++] = bad ? '_' : (char)c;
	}
}

/*
 * " key=value" (JSON: ,"key":"value"); dropped whole when not even one byte
 * of a non-empty value fits.
 */
static void put_field(struct line *l, const char *key, size_t key_len, const char *v, size_t n)
{
	size_t start = l->len;

	if (l->len + key_len + (l->json ? 4 : 2) > l->limit) {
		l->truncated = true;
		return;
	}
	if (l->json) {
		memcpy(l->buf + l->len, ",\"", 2);
		l->len += 2;
	} else {
		l->buf[l->len++] = ' ';
	}
	put_key(l, key, key_len);
	if (l->json) {
		memcpy(l->buf + l->len, "\":", 2);
		l->len += 2;
	} else {
		l->buf[l->len++] = '=';
	}
	if (put_value(l, v, n) == 0 && (n > 0 || l->truncated))
		l->len = start;
}

/* --- the field format ------------------------------------------------- */

struct value {
	char buf[LOG_LINE_MAX];
	size_t len;
	bool truncated;
};

static void value_add(struct value *v, const char *s, size_t n)
{
	size_t room = sizeof(v->buf) - v->len;

	if (n > room) {
		n = room;
		v->truncated = true;
	}
	memcpy(v->buf + v->len, s, n);
	v->len += n;
}

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_J, LEN_Z, LEN_T, LEN_BIG_L };

struct spec {
	char fmt[64]; /* "%" flags width precision length conversion */
	size_t n;
	enum length len;
	char conv;
};

static void spec_add(struct spec *s, const char *t, size_t n)
{
	if (s->n + n >= sizeof(s->fmt) - 2) /* room for the conversion and NUL */
		n = sizeof(s->fmt) - 2 - s->n;
	memcpy(s->fmt + s->n, t, n);
	s->n += n;
	s->fmt[s->n] = '\0';
}

static void spec_add_int(struct spec *s, int v)
{
	char t[16];

	spec_add(s, t, (size_t)snprintf(t, sizeof(t), "%d", v));
}

/* The digits at p, copied into the spec; the end of them. */
static const char *spec_digits(const char *p, struct spec *s)
{
	while (ascii_is_digit(*p))
		spec_add(s, p++, 1);
	return p;
}

/* The width and the precision at p, a '*' taken from ap; the end of them. */
static const char *spec_width_precision(const char *p, struct spec *s, va_list *ap)
{
	int prec;

	if (*p == '*') {
		spec_add_int(s, va_arg(*ap, int));
		p++;
	} else {
		p = spec_digits(p, s);
	}
	if (*p != '.')
		return p;
	p++;
	if (*p != '*') {
		spec_add(s, ".", 1);
		return spec_digits(p, s);
	}
	prec = va_arg(*ap, int);
	/* a negative precision is taken as if it were omitted */
	if (prec >= 0) {
		spec_add(s, ".", 1);
		spec_add_int(s, prec);
	}
	return p + 1;
}

/* The length modifier at p, with the characters it takes in *n: two for
 * hh and ll, one for the others (q is taken as ll), none without one. */
static enum length spec_length(const char *p, size_t *n)
{
	static const struct {
		char c;
		enum length len;
	} one[] = {
		{'h', LEN_H}, {'l', LEN_L}, {'q', LEN_LL}, {'L', LEN_BIG_L},
		{'j', LEN_J}, {'z', LEN_Z}, {'Z', LEN_Z},  {'t', LEN_T},
	};

	*n = 2;
	if (p[0] == 'h' && p[1] == 'h')
		return LEN_HH;
	if (p[0] == 'l' && p[1] == 'l')
		return LEN_LL;
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		if (*p == one[i].c) {
			*n = 1;
			return one[i].len;
		}
	*n = 0;
	return LEN_NONE;
}

/*
 * Parses the conversion after a '%' (p points past it), taking '*' width and
 * precision from ap. Returns the end of the spec.
 */
static const char *spec_parse(const char *p, struct spec *s, va_list *ap)
{
	size_t n;

	s->n = 0;
	spec_add(s, "%", 1);
	while (*p && strchr("-+ #0'I", *p))
		spec_add(s, p++, 1);
	p = spec_width_precision(p, s, ap);
	s->len = spec_length(p, &n);
	spec_add(s, p, n);
	p += n;
	s->conv = *p;
	if (*p) {
		s->fmt[s->n++] = *p++;
		s->fmt[s->n] = '\0';
	}
	return p;
}

/* The spec was built from the caller's literal format, which the compiler
 * checked against the arguments (log.h), and each argument is taken here with
 * the type its conversion names. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int spec_format_signed(char *dst, size_t room, const struct spec *s, va_list *ap)
{
	switch (s->len) {
	case LEN_L:
		return snprintf(dst, room, s->fmt, va_arg(*ap, long));
	case LEN_LL:
	case LEN_BIG_L:
		return snprintf(dst, room, s->fmt, va_arg(*ap, long long));
	case LEN_J:
		return snprintf(dst, room, s->fmt, va_arg(*ap, intmax_t));
	case LEN_Z:
		return snprintf(dst, room, s->fmt, va_arg(*ap, ssize_t));
	case LEN_T:
		return snprintf(dst, room, s->fmt, va_arg(*ap, ptrdiff_t));
	default:
		return snprintf(dst, room, s->fmt, va_arg(*ap, int));
	}
}

static int spec_format_unsigned(char *dst, size_t room, const struct spec *s, va_list *ap)
{
	switch (s->len) {
	case LEN_L:
		return snprintf(dst, room, s->fmt, va_arg(*ap, unsigned long));
	case LEN_LL:
	case LEN_BIG_L:
		return snprintf(dst, room, s->fmt, va_arg(*ap, unsigned long long));
	case LEN_J:
		return snprintf(dst, room, s->fmt, va_arg(*ap, uintmax_t));
	case LEN_Z:
		return snprintf(dst, room, s->fmt, va_arg(*ap, size_t));
	case LEN_T:
		return snprintf(dst, room, s->fmt, va_arg(*ap, ptrdiff_t));
	default:
		return snprintf(dst, room, s->fmt, va_arg(*ap, unsigned int));
	}
}

/* c, s, p, m, n and what is not a conversion. */
static int spec_format_other(char *dst, size_t room, const struct spec *s, va_list *ap,
			     int saved_errno)
{
	const char *str;
	char eb[128];

	switch (s->conv) {
	case 'c':
		if (s->len == LEN_L)
			return snprintf(dst, room, s->fmt, va_arg(*ap, wint_t));
		return snprintf(dst, room, s->fmt, va_arg(*ap, int));
	case 's':
		if (s->len == LEN_L)
			return snprintf(dst, room, s->fmt, va_arg(*ap, const wchar_t *));
		str = va_arg(*ap, const char *);
		return snprintf(dst, room, s->fmt, str ? str : "(null)");
	case 'p':
		return snprintf(dst, room, s->fmt, va_arg(*ap, void *));
	case 'm':
		return snprintf(dst, room, "%s", strerror_r(saved_errno, eb, sizeof(eb)));
	case 'n':
		(void)va_arg(*ap, void *); /* never written through */
		return 0;
	default:
		/* not a conversion: the text as it stands, no argument taken */
		return snprintf(dst, room, "%s", s->fmt);
	}
}

static int spec_format(char *dst, size_t room, const struct spec *s, va_list *ap, int saved_errno)
{
	if (strchr("di", s->conv) && s->conv)
		return spec_format_signed(dst, room, s, ap);
	if (strchr("ouxX", s->conv) && s->conv)
		return spec_format_unsigned(dst, room, s, ap);
	if (strchr("fFeEgGaA", s->conv) && s->conv) {
		if (s->len == LEN_BIG_L)
			return snprintf(dst, room, s->fmt, va_arg(*ap, long double));
		return snprintf(dst, room, s->fmt, va_arg(*ap, double));
	}
	return spec_format_other(dst, room, s, ap, saved_errno);
}
#pragma GCC diagnostic pop

static void value_add_spec(struct value *v, const struct spec *s, va_list *ap, int saved_errno)
{
	size_t room = sizeof(v->buf) - v->len;
	int r;

	if (room == 0) {
		/* the argument is still taken, so later fields stay in step */
		char scratch[1];

		spec_format(scratch, sizeof(scratch), s, ap, saved_errno);
		v->truncated = true;
		return;
	}
	r = spec_format(v->buf + v->len, room, s, ap, saved_errno);
	if (r < 0)
		return; /* e.g. %lc of a character the C locale cannot encode */
	if ((size_t)r >= room) {
		/* snprintf kept room - 1 bytes and a NUL */
		v->len += room - 1;
		v->truncated = true;
		return;
	}
	v->len += (size_t)r;
}

/*
 * Walks "key=VALUE key=VALUE": each token runs to the next space outside a
 * conversion. A token with no '=' before its first '%' is a programming error;
 * its whole text is kept under !BADKEY (as slog does), and its conversions
 * still take their arguments.
 */
static void put_fields(struct line *l, const char *f, va_list *ap, int saved_errno)
{
	static const char badkey[] = "!BADKEY";
	struct value v;
	struct spec s;

	while (*f) {
		const char *key = f, *p = f;
		size_t key_len;

		if (*f == ' ') {
			f++;
			continue;
		}
		while (*p && *p != ' ' && *p != '=' && *p != '%')
			p++;
		if (*p == '=' && p > f) {
			key_len = (size_t)(p - f);
			p++;
		} else {
			key = badkey;
			key_len = sizeof(badkey) - 1;
			p = f;
		}
		v.len = 0;
		v.truncated = false;
		while (*p && *p != ' ') {
			const char *lit = p;

			if (*p != '%') {
				while (*p && *p != ' ' && *p != '%')
					p++;
				value_add(&v, lit, (size_t)(p - lit));
				continue;
			}
			if (p[1] == '%') {
				value_add(&v, "%", 1);
				p += 2;
				continue;
			}
			p = spec_parse(p + 1, &s, ap);
			value_add_spec(&v, &s, ap, saved_errno);
		}
		f = p;
		if (l->truncated)
			break; /* the record is full: nothing more is written */
		put_field(l, key, key_len, v.buf, v.len);
		if (v.truncated)
			l->truncated = true;
	}
}

/*
 * "ts=... level=..." or {"ts":"...","level":"..."; in journal mode "<N>" and
 * no ts. Its length, or -1 when it does not fit prefix.
 */
static int record_prefix(char *prefix, size_t size, int level, bool journal, bool json,
			 const struct timespec *ts)
{
	struct timespec now;
	char date[40];
	struct tm tm;
	int n;

	if (journal)
		return snprintf(prefix, size, json ? "<%d>{\"level\":\"%s\"" : "<%d>level=%s",
				level, level_name(level));
	if (!ts) {
		clock_gettime(CLOCK_REALTIME, &now);
		ts = &now;
	}
	gmtime_r(&ts->tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	n = snprintf(prefix, size,
		     json ? "{\"ts\":\"%s.%03ldZ\",\"level\":\"%s\"" : "ts=%s.%03ldZ level=%s",
		     date, ts->tv_nsec / 1000000L, level_name(level));
	return n < 0 || (size_t)n >= size ? -1 : n;
}

static size_t format_record(char *buf, size_t size, int level, bool journal, bool json,
			    const struct timespec *ts, const char *msg, const char *kvfmt,
			    va_list *ap, int saved_errno)
{
	struct line l = {.buf = buf, .json = json};
	const char *end = json ? TRUNCATED_JSON : TRUNCATED;
	size_t end_len = strlen(end);
	char prefix[96];
	int n;

	if (size > LOG_LINE_MAX)
		size = LOG_LINE_MAX;
	if (size == 0)
		return 0;
	buf[0] = '\0';
	if (size < end_len + 2)
		return 0;
	l.limit = size - end_len - 2; /* the end, '\n', NUL */

	n = record_prefix(prefix, sizeof(prefix), level, journal, json, ts);
	if (n < 0 || !put(&l, prefix, (size_t)n)) {
		buf[0] = '\0';
		return 0;
	}
	put_field(&l, "msg", 3, msg, strlen(msg));
	put_fields(&l, kvfmt, ap, saved_errno);
	if (l.truncated) {
		memcpy(l.buf + l.len, end, end_len);
		l.len += end_len;
	} else if (json) {
		l.buf[l.len++] = '}';
	}
	l.buf[l.len++] = '\n';
	l.buf[l.len] = '\0';
	return l.len;
}

static size_t vformat(char *buf, size_t size, int level, bool journal, bool json,
		      const struct timespec *ts, const char *msg, const char *kvfmt, va_list ap)
{
	int saved_errno = errno;
	va_list aq;
	size_t n;

	/* a va_list parameter may be an array type: walk a copy through a pointer */
	va_copy(aq, ap);
	n = format_record(buf, size, level, journal, json, ts, msg, kvfmt, &aq, saved_errno);
	va_end(aq);
	errno = saved_errno;
	return n;
}

size_t log_vformat(char *buf, size_t size, int level, bool journal, const struct timespec *ts,
		   const char *msg, const char *kvfmt, va_list ap)
{
	return vformat(buf, size, level, journal, false, ts, msg, kvfmt, ap);
}

size_t log_format_json(char *buf, size_t size, int level, bool journal, const struct timespec *ts,
		       const char *msg, const char *kvfmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, kvfmt);
	n = vformat(buf, size, level, journal, true, ts, msg, kvfmt, ap);
	va_end(ap);
	return n;
}

size_t log_format(char *buf, size_t size, int level, bool journal, const struct timespec *ts,
		  const char *msg, const char *kvfmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, kvfmt);
	n = log_vformat(buf, size, level, journal, ts, msg, kvfmt, ap);
	va_end(ap);
	return n;
}

void log_emit(int level, const char *msg, const char *kvfmt, ...)
{
	char line[LOG_LINE_MAX];
	int saved_errno = errno;
	FILE *out;
	va_list ap;
	size_t n;

	if (level > log_get_level())
		return;
	va_start(ap, kvfmt);
	n = vformat(line, sizeof(line), level, to_journal(),
		    __atomic_load_n(&log_json, __ATOMIC_RELAXED), NULL, msg, kvfmt, ap);
	va_end(ap);
	/* one fwrite: the stream's lock keeps records from threads whole */
	out = log_out ? log_out : stderr;
	fwrite(line, 1, n, out);
	fflush(out);
	errno = saved_errno;
}

const char *log_strerror(int err, char *buf, size_t size)
{
	/* GNU strerror_r (we build with _GNU_SOURCE): thread safe. */
	return strerror_r(err < 0 ? -err : err, buf, size);
}
