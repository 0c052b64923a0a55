// SPDX-License-Identifier: Apache-2.0
#include "check/check_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/chars.h"

static bool name_start(char c)
{
	return ascii_is_alpha(c) || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return name_start(c) || ascii_is_digit(c);
}

static void sample_free(struct check_sample *s)
{
	for (size_t i = 0; i < s->n_labels; i++) {
		free((char *)s->labels[i].name);
		free((char *)s->labels[i].value);
	}
	free(s->labels);
	free(s->name);
}

void check_table_free(struct check_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		sample_free(&t->v[i]);
	free(t->v);
	*t = (struct check_table){0};
}

/* A name at *p, up to end; advances *p. NULL on ENOMEM, "" when none. */
static char *take_name(const char **p, const char *end, int *err)
{
	const char *s = *p;
	char *out;

	if (s < end && name_start(*s))
		while (s < end && name_char(*s))
			s++;
	if (s == *p) {
		*err = -EINVAL;
		return NULL;
	}
	out = strndup(*p, (size_t)(s - *p));
	if (!out)
		*err = -ENOMEM;
	*p = s;
	return out;
}

/* A quoted label value with \\, \" and \n escapes; advances *p past the quote. */
static char *take_value(const char **p, const char *end, int *err)
{
	struct buf b = BUF_INIT;
	const char *s = *p;

	if (s >= end || *s != '"')
		goto invalid;
	for (s++; s < end && *s != '"'; s++) {
		char c = *s;

		if (c == '\n')
			goto invalid;
		if (c == '\\') {
			if (++s >= end)
				goto invalid;
			c = *s == 'n' ? '\n' : *s;
			if (*s != 'n' && *s != '\\' && *s != '"')
				goto invalid;
		}
		buf_putc(&b, c);
	}
	if (s >= end)
		goto invalid;
	buf_putc(&b, '\0');
	if (buf_failed(&b)) {
		buf_free(&b);
		*err = -ENOMEM;
		return NULL;
	}
	*p = s + 1;
	return buf_steal(&b, &(size_t){0});
invalid:
	buf_free(&b);
	*err = -EINVAL;
	return NULL;
}

static int add_label(struct check_sample *s, char *name, char *value)
{
	struct metric_label *l;

	if (s->n_labels >= METRIC_MAX_LABELS || check_sample_label(s, name))
		return -EINVAL; /* a label twice: Prometheus rejects it too */
	l = realloc(s->labels, (s->n_labels + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	s->labels = l;
	l[s->n_labels++] = (struct metric_label){name, value};
	return 0;
}

/* {name="value",...} at *p (already at '{'); a trailing comma is allowed. */
static int take_labels(struct check_sample *s, const char **p, const char *end)
{
	const char *c = *p + 1;
	int err = 0;

	while (c < end && *c != '}') {
		char *name = take_name(&c, end, &err), *value = NULL;

		if (name && (c >= end || *c++ != '='))
			err = -EINVAL;
		if (!err)
			value = take_value(&c, end, &err);
		if (!err)
			err = add_label(s, name, value);
		if (err) {
			free(name);
			free(value);
			return err;
		}
		if (c < end && *c == ',')
			c++;
		else if (c < end && *c != '}')
			return -EINVAL;
	}
	if (c >= end)
		return -EINVAL;
	*p = c + 1;
	return 0;
}

/* The value (and an optional integer timestamp, ignored) up to end. */
static int take_number(const char *p, const char *end, double *v)
{
	char tmp[64], *e;
	const char *s;
	size_t n;

	while (p < end && *p == ' ')
		p++;
	s = p;
	while (p < end && *p != ' ')
		p++;
	n = (size_t)(p - s);
	if (n == 0 || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	*v = strtod(tmp, &e);
	if (*e != '\0')
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	while (p < end && ascii_is_digit(*p))
		p++;
	if (p < end && *p == '-' && p + 1 < end)
		p++;
	while (p < end && ascii_is_digit(*p))
		p++;
	return p == end ? 0 : -EINVAL;
}

static int parse_line(struct check_sample *s, const char *p, const char *end)
{
	int err = 0;

	s->name = take_name(&p, end, &err);
	if (!s->name)
		return err;
	if (p < end && *p == '{') {
		err = take_labels(s, &p, end);
		if (err)
			return err;
	}
	if (p >= end || *p != ' ')
		return -EINVAL;
	return take_number(p, end, &s->value);
}

static int push(struct check_table *t, const struct check_sample *s)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct check_sample *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *s;
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct check_sample *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

int check_table_parse(struct check_table *t, const char *text, size_t len, size_t *bad_line)
{
	const char *p = text, *end = text + len;
	size_t line = 0;
	int r = 0;

	*t = (struct check_table){0};
	while (p < end && r == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct check_sample s = {.line = ++line};

		if (eol > p && *p != '#') {
			r = parse_line(&s, p, eol);
			if (r == 0)
				r = push(t, &s);
			if (r < 0)
				sample_free(&s);
		}
		p = nl ? nl + 1 : end;
	}
	if (r < 0) {
		*bad_line = line;
		check_table_free(t);
		return r;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_sample);
	return 0;
}

const char *check_sample_label(const struct check_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (strcmp(s->labels[i].name, name) == 0)
			return s->labels[i].value;
	return NULL;
}

size_t check_table_family(const struct check_table *t, const char *name, size_t *count)
{
	size_t lo = 0, hi = t->n, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < t->n && strcmp(t->v[lo].name, name) == 0)
		lo++;
	*count = lo - first;
	return first;
}

static bool has_labels(const struct check_sample *s, const struct metric_label *match, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *v = check_sample_label(s, match[i].name);

		if (!v || strcmp(v, match[i].value) != 0)
			return false;
	}
	return true;
}

const struct check_sample *check_table_find(const struct check_table *t, const char *name,
					    const struct metric_label *match, size_t n_match)
{
	size_t n, i = check_table_family(t, name, &n);

	for (; n > 0; i++, n--)
		if (has_labels(&t->v[i], match, n_match))
			return &t->v[i];
	return NULL;
}

const struct check_sample *check_table_same(const struct check_table *t,
					    const struct check_sample *s)
{
	size_t n, i = check_table_family(t, s->name, &n);

	for (; n > 0; i++, n--)
		if (t->v[i].n_labels == s->n_labels && has_labels(&t->v[i], s->labels, s->n_labels))
			return &t->v[i];
	return NULL;
}

int check_table_collector_state(const struct check_table *t, const char *name)
{
	const struct check_sample *s = check_table_find(
		t, "rdma_exporter_collector_success", &(struct metric_label){"collector", name}, 1);

	return s ? s->value == 1 : -1;
}

bool check_table_device_unresponsive(const struct check_table *t, const char *dev)
{
	const struct check_sample *s = check_table_find(t, "rdma_device_responsive",
							&(struct metric_label){"device", dev}, 1);

	return s && s->value == 0;
}
