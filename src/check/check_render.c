// SPDX-License-Identifier: Apache-2.0
/* Rendering of check results (check.h): text for people and NPD, JSON for tools. */
#include "check/check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* node-problem-detector shows the first line; it must stay short. */
#define SUMMARY_MAX 79

static const char *status_word(enum check_status s)
{
	return s == CHECK_OK ? "OK" : s == CHECK_FAIL ? "FAIL" : "UNKNOWN";
}

enum check_status check_overall(const struct check_results *r)
{
	enum check_status st = r->n ? CHECK_OK : CHECK_UNKNOWN;

	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].status == CHECK_FAIL)
			return CHECK_FAIL;
		if (r->v[i].status == CHECK_UNKNOWN)
			st = CHECK_UNKNOWN;
	}
	return st;
}

static void summary(const struct check_results *r, char *out, size_t size)
{
	enum check_status st = check_overall(r);
	const struct check_result *first = NULL;
	size_t count = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == st) {
			count++;
			if (!first)
				first = &r->v[i];
		}
	if (r->n == 0)
		snprintf(out, size, "UNKNOWN: nothing to check");
	else if (st == CHECK_OK)
		snprintf(out, size, "OK: %zu checks passed", r->n);
	else
		snprintf(out, size, "%s: %zu of %zu %s; %s %s: %s", status_word(st), count, r->n,
			 st == CHECK_FAIL ? "failed" : "unknown", first->check, first->object,
			 first->reason);
	if (strlen(out) > SUMMARY_MAX)
		memcpy(out + SUMMARY_MAX - 3, "...", 4);
}

/* Text output is one line per result: a control character or a byte outside
 * ASCII in a name (names come from sysfs) is shown as '?'. */
static void text_line(struct buf *out, const char *line)
{
	size_t start = out->len;

	buf_printf(out, "%s\n", line);
	if (buf_failed(out))
		return;
	for (size_t i = start; i + 1 < out->len; i++)
		if ((unsigned char)out->data[i] < 0x20 || (unsigned char)out->data[i] >= 0x7f)
			out->data[i] = '?';
}

int check_render_text(const struct check_results *r, struct buf *out)
{
	char line[1024];

	summary(r, line, sizeof(line));
	text_line(out, line);
	for (size_t i = 0; i < r->n; i++) {
		snprintf(line, sizeof(line), "%-7s %s %s: %s", status_word(r->v[i].status),
			 r->v[i].check, r->v[i].object, r->v[i].reason);
		text_line(out, line);
	}
	return buf_failed(out) ? -ENOMEM : 0;
}

/* A JSON string; bytes outside printable ASCII (names come from sysfs) become
 * \u00XX escapes of control characters or '?' for the rest. */
static void json_str(struct buf *out, const char *s)
{
	buf_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			buf_printf(out, "\\%c", c);
		else if (c < 0x20)
			buf_printf(out, "\\u%04x", c);
		else
			buf_putc(out, c < 0x80 ? (char)c : '?');
	}
	buf_putc(out, '"');
}

static void json_lower(struct buf *out, enum check_status st)
{
	json_str(out, st == CHECK_OK ? "ok" : st == CHECK_FAIL ? "fail" : "unknown");
}

int check_render_json(const struct check_results *r, struct buf *out)
{
	char line[1024];

	summary(r, line, sizeof(line));
	buf_puts(out, "{\"status\":");
	json_lower(out, check_overall(r));
	buf_puts(out, ",\"summary\":");
	json_str(out, line);
	buf_puts(out, ",\"checks\":[");
	for (size_t i = 0; i < r->n; i++) {
		buf_puts(out, i ? ",{\"status\":" : "{\"status\":");
		json_lower(out, r->v[i].status);
		buf_puts(out, ",\"check\":");
		json_str(out, r->v[i].check);
		buf_puts(out, ",\"object\":");
		json_str(out, r->v[i].object);
		buf_puts(out, ",\"reason\":");
		json_str(out, r->v[i].reason);
		buf_putc(out, '}');
	}
	buf_puts(out, "]}\n");
	return buf_failed(out) ? -ENOMEM : 0;
}
