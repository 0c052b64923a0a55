// SPDX-License-Identifier: Apache-2.0
/*
 * Reads the pingmesh targets file, JSON or YAML (YAML is a superset of JSON:
 * one parser reads both), with libyaml's event parser from the memory
 * buffer: the file_sd shape is walked as the events come, so the limits
 * (depth, counts, lengths) stop a hostile file before it is built. What a
 * target and a label may be, and the list, are probe_targets.c's.
 */
#include "probe_targets.h"
#include "probe_targets_build.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/chars.h"

/* Strings from the file are quoted in messages, cut after this many bytes. */
#define QUOTE_MAX 64

/* The parse state: libyaml, its current event, the list being built. */
struct yp {
	yaml_parser_t parser;
	yaml_event_t ev; /* the current event, owned when have_ev */
	bool have_ev;
	bool dead;	  /* libyaml failed or the depth limit hit: no more events */
	unsigned depth;	  /* sequences and mappings open */
	size_t line_base; /* lines skipped before what libyaml reads */
	size_t col_base;  /* columns skipped on the first line libyaml reads */
	char *err;
	size_t errlen;
	struct probe_targets_builder b;
	size_t n_strings;   /* target strings seen, duplicates included */
	size_t label_bytes; /* names and values of the current group's labels kept */
	size_t byte_base;   /* bytes skipped before what libyaml reads */
	char what[64];
	char name[PROBE_TARGETS_MAX_LABEL_NAME + 1];
};

/* Where a message points: a syntax error's line and column, or a content
 * error's path and line. */
struct where {
	size_t line, col; /* from 1; line 0: no position */
	const char *path; /* NULL: a syntax error */
};

static struct where at_mark(const struct yp *p, const yaml_mark_t *m, const char *path)
{
	struct where w = {m->line + 1 + p->line_base, m->column + 1, path};

	if (!m->line)
		w.col += p->col_base;
	return w;
}

static struct where at_event(const struct yp *p, const char *path)
{
	return at_mark(p, &p->ev.start_mark, path);
}

static const struct where nowhere;

/* Writes the one-line message and returns rc. */
__attribute__((format(printf, 4, 5))) static int fail(struct yp *p, int rc, struct where w,
						      const char *fmt, ...)
{
	int n = 0;
	va_list ap;

	if (!p->errlen)
		return rc;
	if (w.line && w.path)
		n = snprintf(p->err, p->errlen, "%s (line %zu): ", w.path, w.line);
	else if (w.line)
		n = snprintf(p->err, p->errlen, "line %zu, column %zu: ", w.line, w.col);
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

/* libyaml's own message, with its position: the reader's in bytes, the
 * scanner's and parser's in lines and columns (counted in characters). */
static int syntax_error(struct yp *p)
{
	const yaml_parser_t *y = &p->parser;
	const char *problem = y->problem ? y->problem : "invalid YAML";
	struct where w = at_mark(p, &y->problem_mark, NULL);

	if (y->error == YAML_MEMORY_ERROR)
		return fail(p, -ENOMEM, nowhere, "out of memory");
	if (y->error == YAML_READER_ERROR && y->problem_value != -1)
		return fail(p, -EINVAL, nowhere, "byte %zu: %s (0x%x; the file must be UTF-8 text)",
			    y->problem_offset + p->byte_base, problem, (unsigned)y->problem_value);
	if (y->error == YAML_READER_ERROR)
		return fail(p, -EINVAL, nowhere, "byte %zu: %s", y->problem_offset + p->byte_base,
			    problem);
	/* At the stream's end libyaml's mark is a line past the last: say so. */
	if (y->eof && y->problem_mark.index == y->mark.index)
		w = nowhere;
	if (y->context) {
		struct where c = at_mark(p, &y->context_mark, NULL);

		return fail(p, -EINVAL, w, "%s%s (%s started at line %zu, column %zu)",
			    w.line ? "" : "end of file: ", problem, y->context, c.line, c.col);
	}
	return fail(p, -EINVAL, w, "%s%s", w.line ? "" : "end of file: ", problem);
}

/* The next event into p->ev, the one before freed; depth kept and bounded. */
static int next(struct yp *p)
{
	if (p->have_ev)
		yaml_event_delete(&p->ev);
	p->have_ev = false;
	if (p->dead)
		return -EINVAL;
	if (!yaml_parser_parse(&p->parser, &p->ev)) {
		p->dead = true;
		return syntax_error(p);
	}
	p->have_ev = true;
	switch (p->ev.type) {
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++p->depth <= PROBE_TARGETS_MAX_DEPTH)
			break;
		p->dead = true;
		return fail(p, -E2BIG, at_event(p, NULL),
			    "nested deeper than %d levels (the limit)", PROBE_TARGETS_MAX_DEPTH);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		p->depth--;
		break;
	default:
		break;
	}
	return 0;
}

static bool is_digits(const char *s, const char *digits)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(digits, *s))
			return false;
	return true;
}

/* A plain scalar YAML 1.2's core schema reads as a number: decimal,
 * 0o octal, 0x hex, a float, .inf or .nan. */
static bool is_number(const char *s)
{
	static const char *const special[] = {".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"};
	size_t digits = 0;

	if (s[0] == '0' && (s[1] == 'o' || s[1] == 'x'))
		return is_digits(s + 2, s[1] == 'o' ? "01234567" : "0123456789abcdefABCDEF");
	if (*s == '-' || *s == '+')
		s++;
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		if (!strcmp(s, special[i]))
			return true;
	for (; ascii_is_digit(*s); s++)
		digits++;
	if (*s == '.')
		for (s++; ascii_is_digit(*s); s++)
			digits++;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		return is_digits(s, "0123456789");
	}
	return !*s;
}

enum kind { K_STRING, K_NULL, K_BOOL, K_NUMBER };

/* What a scalar is: its tag's type, else, when plain, the core schema's. */
static enum kind scalar_kind(const yaml_event_t *e)
{
	static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
	static const char *const bools[] = {"true", "True", "TRUE", "false", "False", "FALSE"};
	const char *tag = (const char *)e->data.scalar.tag;
	const char *v = (const char *)e->data.scalar.value;

	if (tag && !strcmp(tag, YAML_NULL_TAG))
		return K_NULL;
	if (tag && !strcmp(tag, YAML_BOOL_TAG))
		return K_BOOL;
	if (tag && (!strcmp(tag, YAML_INT_TAG) || !strcmp(tag, YAML_FLOAT_TAG)))
		return K_NUMBER;
	if (tag)
		return K_STRING;
	if (e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return K_STRING;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp(v, nulls[i]))
			return K_NULL;
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
		if (!strcmp(v, bools[i]))
			return K_BOOL;
	return is_number(v) ? K_NUMBER : K_STRING;
}

/* What the current event is, for "expected X, got Y". */
static const char *what(struct yp *p)
{
	static const char *const kinds[] = {"a string", "null", "a boolean", "a number"};

	switch (p->ev.type) {
	case YAML_SCALAR_EVENT:
		return kinds[scalar_kind(&p->ev)];
	case YAML_SEQUENCE_START_EVENT:
		return "an array";
	case YAML_MAPPING_START_EVENT:
		return "an object";
	case YAML_ALIAS_EVENT:
		snprintf(p->what, sizeof(p->what), "the alias *%.24s (not supported)",
			 (const char *)p->ev.data.alias.anchor);
		return p->what;
	default:
		return "end of file";
	}
}

/* The current event's scalar, when it is one of kind string (or, with
 * any_kind, not null) and without NUL: a string for the file's content. */
static bool is_string(const struct yp *p, bool any_kind)
{
	enum kind k;

	if (p->ev.type != YAML_SCALAR_EVENT)
		return false;
	k = scalar_kind(&p->ev);
	return any_kind ? k != K_NULL : k == K_STRING;
}

/* The current scalar's text and length; -E2BIG past max bytes, -EINVAL
 * when it holds a NUL, either with the message (what names the string). */
static int scalar(struct yp *p, const char *path, const char *what, size_t max, const char **s,
		  size_t *n)
{
	*s = (const char *)p->ev.data.scalar.value;
	*n = p->ev.data.scalar.length;
	if (*n > max)
		return fail(p, -E2BIG, at_event(p, path), "%s longer than %zu bytes (the limit)",
			    what, max);
	if (strlen(*s) != *n)
		return fail(p, -EINVAL, at_event(p, path), "\\u0000 is not allowed in a string");
	return 0;
}

/* Skips the value at the current event, whatever it is. */
static int skip_value(struct yp *p)
{
	unsigned depth = p->depth;
	int rc;

	if (p->ev.type != YAML_SEQUENCE_START_EVENT && p->ev.type != YAML_MAPPING_START_EVENT)
		return 0;
	while (p->depth >= depth) {
		rc = next(p);
		if (rc)
			return rc;
	}
	return 0;
}

/* Element i of group g's "targets", at the current event. */
static int target(struct yp *p, size_t g, size_t i)
{
	char path[64], reason[PROBE_TARGETS_REASON], q[QUOTE_MAX * 4 + 8];
	const char *s, *why;
	size_t n;
	int rc;

	snprintf(path, sizeof(path), "[%zu].targets[%zu]", g, i);
	if (!is_string(p, false))
		return fail(p, -EINVAL, at_event(p, path),
			    "expected a string \"host[:port]\", got %s", what(p));
	if (p->n_strings++ >= PROBE_TARGETS_MAX_TARGETS)
		return fail(p, -E2BIG, at_event(p, path),
			    "more than %d targets in the file (the limit)",
			    PROBE_TARGETS_MAX_TARGETS);
	rc = scalar(p, path, "target", PROBE_TARGETS_MAX_TARGET, &s, &n);
	if (rc)
		return rc;
	rc = probe_targets_add_target(&p->b, s, n, &why, reason);
	if (rc == -EINVAL)
		return fail(p, rc, at_event(p, path), "%s %s", quote(q, sizeof(q), s, n), why);
	if (rc)
		return fail(p, rc, nowhere, "out of memory");
	return 0;
}

/* The "targets" value of group g: an array of strings. */
static int targets(struct yp *p, size_t g)
{
	char path[32];
	int rc;

	snprintf(path, sizeof(path), "[%zu].targets", g);
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(p, -EINVAL, at_event(p, path), "expected an array of strings, got %s",
			    what(p));
	for (size_t i = 0;; i++) {
		rc = next(p);
		if (rc || p->ev.type == YAML_SEQUENCE_END_EVENT)
			return rc;
		rc = target(p, g, i);
		if (rc)
			return rc;
	}
}

/* A label's name, at the current event, into p->name: checked, *drop when
 * it is one to drop. */
static int label_name(struct yp *p, const struct probe_group *grp, const char *path, bool *drop)
{
	char q[QUOTE_MAX * 4 + 8];
	const char *s, *why;
	size_t n;
	int rc;

	if (p->ev.type != YAML_SCALAR_EVENT)
		return fail(p, -EINVAL, at_event(p, path),
			    "expected a string key (a label name), got %s", what(p));
	rc = scalar(p, path, "label name", PROBE_TARGETS_MAX_LABEL_NAME, &s, &n);
	if (rc)
		return rc;
	memcpy(p->name, s, n + 1);
	why = probe_targets_label_problem(p->name, n);
	if (why)
		return fail(p, -EINVAL, at_event(p, path), "%s %s", quote(q, sizeof(q), s, n), why);
	*drop = probe_targets_label_dropped(p->name, n);
	if (*drop)
		return 0;
	for (size_t i = 0; i < grp->n_labels; i++)
		if (!strcmp(grp->labels[i].name, p->name))
			return fail(p, -EINVAL, at_event(p, path), "duplicate label \"%s\"",
				    p->name);
	if (grp->n_labels >= PROBE_TARGETS_MAX_LABELS)
		return fail(p, -E2BIG, at_event(p, path),
			    "more than %d labels in one group (the limit)",
			    PROBE_TARGETS_MAX_LABELS);
	return 0;
}

/*
 * The value of label p->name of group g, at the current event: any scalar
 * but null, as written (a YAML `rack: 12` is "12", as Prometheus reads it).
 */
static int label_value(struct yp *p, struct probe_group *grp, size_t g, bool drop)
{
	char path[PROBE_TARGETS_MAX_LABEL_NAME + 48];
	size_t n, nlen = strlen(p->name);
	const char *s;
	int rc;

	snprintf(path, sizeof(path), "[%zu].labels.%s", g, p->name);
	if (!is_string(p, true))
		return fail(p, -EINVAL, at_event(p, path), "expected a string value, got %s",
			    what(p));
	rc = scalar(p, path, "label value", PROBE_TARGETS_MAX_LABEL_VALUE, &s, &n);
	if (rc)
		return rc;
	if (drop) {
		probe_targets_note_dropped(p->b.out, p->name);
		return 0;
	}
	p->label_bytes += nlen + n;
	if (p->label_bytes > PROBE_TARGETS_MAX_LABEL_BYTES)
		return fail(p, -E2BIG, at_event(p, path),
			    "labels longer than %d bytes in all, names and values (the "
			    "limit on the label bytes a target carries)",
			    PROBE_TARGETS_MAX_LABEL_BYTES);
	if (probe_targets_add_label(grp, p->name, nlen, s, n))
		return fail(p, -ENOMEM, nowhere, "out of memory");
	return 0;
}

/* The "labels" value of group g: an object of string values. */
static int labels(struct yp *p, size_t g)
{
	struct probe_group *grp = &p->b.out->groups[g];
	char path[32];
	bool drop = false;
	int rc;

	snprintf(path, sizeof(path), "[%zu].labels", g);
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail(p, -EINVAL, at_event(p, path), "expected an object of strings, got %s",
			    what(p));
	p->label_bytes = 0;
	for (;;) {
		rc = next(p);
		if (rc || p->ev.type == YAML_MAPPING_END_EVENT)
			return rc;
		rc = label_name(p, grp, path, &drop);
		if (!rc)
			rc = next(p);
		if (!rc)
			rc = label_value(p, grp, g, drop);
		if (rc)
			return rc;
	}
}

/* One key of group g, at the current event, and its value. seen: bit 0
 * "targets", bit 1 "labels". */
static int group_member(struct yp *p, size_t g, const char *path, unsigned *seen)
{
	const char *s;
	unsigned bit;
	size_t n;
	int rc;

	if (p->ev.type != YAML_SCALAR_EVENT)
		return fail(p, -EINVAL, at_event(p, path), "expected a string key, got %s",
			    what(p));
	rc = scalar(p, path, "key", PROBE_TARGETS_MAX_KEY, &s, &n);
	if (rc)
		return rc;
	if (!strcmp(s, "<<"))
		return fail(p, -EINVAL, at_event(p, path),
			    "merge keys (<<) are not supported: write the keys out");
	bit = !strcmp(s, "targets") ? 1 : !strcmp(s, "labels") ? 2 : 0;
	if (bit & *seen)
		return fail(p, -EINVAL, at_event(p, path), "duplicate key \"%s\"", s);
	*seen |= bit;
	rc = next(p);
	if (rc)
		return rc;
	return bit == 1 ? targets(p, g) : bit == 2 ? labels(p, g) : skip_value(p);
}

/* Group g, at the current event. */
static int group(struct yp *p, size_t g)
{
	struct where start;
	unsigned seen = 0;
	char path[32];
	int rc;

	snprintf(path, sizeof(path), "[%zu]", g);
	start = at_event(p, path);
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail(p, -EINVAL, start,
			    "expected a group object {\"targets\": [...]}, got %s", what(p));
	if (g >= PROBE_TARGETS_MAX_GROUPS)
		return fail(p, -E2BIG, start, "more than %d groups (the limit)",
			    PROBE_TARGETS_MAX_GROUPS);
	if (probe_targets_add_group(&p->b))
		return fail(p, -ENOMEM, nowhere, "out of memory");
	for (;;) {
		rc = next(p);
		if (rc)
			return rc;
		if (p->ev.type == YAML_MAPPING_END_EVENT)
			break;
		rc = group_member(p, g, path, &seen);
		if (rc)
			return rc;
	}
	if (!(seen & 1))
		return fail(p, -EINVAL, start, "group without \"targets\"");
	return 0;
}

/* The document: the top-level array of groups, alone in the file. */
static int document(struct yp *p)
{
	int rc = next(p);

	if (!rc && p->ev.type == YAML_STREAM_START_EVENT)
		rc = next(p);
	if (rc)
		return rc;
	if (p->ev.type == YAML_STREAM_END_EVENT)
		return fail(p, -EINVAL, nowhere, "empty file (an empty target list is written [])");
	rc = next(p); /* past the document start */
	if (rc)
		return rc;
	if (p->ev.type != YAML_SEQUENCE_START_EVENT)
		return fail(p, -EINVAL, at_event(p, NULL),
			    "expected the top-level array [{\"targets\": [...]}, ...], got %s",
			    what(p));
	for (size_t g = 0;; g++) {
		rc = next(p);
		if (rc || p->ev.type == YAML_SEQUENCE_END_EVENT)
			break;
		rc = group(p, g);
		if (rc)
			return rc;
	}
	if (!rc)
		rc = next(p); /* the document end */
	if (!rc)
		rc = next(p);
	if (!rc && p->ev.type != YAML_STREAM_END_EVENT)
		return fail(p, -EINVAL, at_event(p, NULL),
			    "a second YAML document after the top-level array");
	return rc;
}

/*
 * Whitespace before a top-level '[' or '{' is skipped, the lines and columns
 * counted: JSON allows tabs there, YAML's block context does not. Anything
 * else starts at the start, its indentation being its structure.
 */
static size_t skip_leading(struct yp *p, const char *buf, size_t len)
{
	size_t i = 0, bol = 0, lines = 0;

	while (i < len && buf[i] && strchr(" \t\r\n", buf[i])) {
		if (buf[i++] == '\n') {
			lines++;
			bol = i;
		}
	}
	if (i < len && buf[i] != '[' && buf[i] != '{')
		return 0;
	p->line_base = lines;
	p->col_base = i - bol;
	return i;
}

static int parse(struct yp *p, const char *buf, size_t len)
{
	size_t skip;

	if (len > PROBE_TARGETS_MAX_FILE)
		return fail(p, -EFBIG, nowhere, "file of %zu bytes, more than %u bytes (the limit)",
			    len, PROBE_TARGETS_MAX_FILE);
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) {
		buf += 3;
		len -= 3;
		p->byte_base = 3;
	}
	skip = skip_leading(p, buf, len);
	p->byte_base += skip;
	if (skip == len)
		return fail(p, -EINVAL, nowhere, "empty file (an empty target list is written [])");
	if (!yaml_parser_initialize(&p->parser))
		return fail(p, -ENOMEM, nowhere, "out of memory");
	yaml_parser_set_input_string(&p->parser, (const unsigned char *)buf + skip, len - skip);
	return 0;
}

/*
 * After an error in the content, the rest of the file is still read: a
 * syntax error anywhere in it (a file cut short while written) is the one
 * to report, not what the half file seemed to say.
 */
static int drain(struct yp *p, int rc)
{
	while (!p->dead && (!p->have_ev || p->ev.type != YAML_STREAM_END_EVENT)) {
		int r = next(p);

		if (r)
			return r;
	}
	return rc;
}

int probe_targets_parse(const char *buf, size_t len, struct probe_target_list *out, char *err,
			size_t errlen)
{
	struct yp *p;
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
	p->err = err;
	p->errlen = err ? errlen : 0;
	p->b.out = out;
	rc = parse(p, buf ? buf : "", len);
	if (!rc) {
		rc = document(p);
		if (rc == -EINVAL || rc == -E2BIG)
			rc = drain(p, rc);
		if (p->have_ev)
			yaml_event_delete(&p->ev);
		yaml_parser_delete(&p->parser);
	}
	probe_targets_builder_done(&p->b);
	free(p);
	if (rc)
		probe_target_list_free(out);
	return rc;
}
