// SPDX-License-Identifier: Apache-2.0
/* The flaps check's state file: its parser and serializer (check_state.h). Pure. */
#include "check/check_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/chars.h"
#include "base/strparse.h"

#define HEADER "rdma_exporter check state 1"

static const char *const cause_names[] = {
	[CHECK_FLAP_NONE] = "none",
	[CHECK_FLAP_ROSE] = "rose",
	[CHECK_FLAP_BACK] = "back",
	[CHECK_FLAP_STATE] = "state",
};

#define N_CAUSES (sizeof(cause_names) / sizeof(cause_names[0]))

void check_state_free(struct check_state *s)
{
	if (!s)
		return;
	free(s->v);
	*s = (struct check_state){0};
}

const struct check_state_entry *check_state_find(const struct check_state *s, char kind,
						 const char *name)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->v[i].kind == kind && strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

/* Bytes kept as they are in a name; the rest are written %XX. */
static bool name_plain(unsigned char c)
{
	return ascii_is_alnum((char)c) || (c != 0 && strchr("_.:/@+-", c) != NULL);
}

/* The name token p[0..len) decoded into out: 0 or -EINVAL (empty, too long,
 * a bad escape, a NUL, a byte that should have been escaped). */
static int name_decode(const char *p, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		int hi, lo;
		unsigned char c = (unsigned char)p[i];

		if (c == '%') {
			if (i + 2 >= len)
				return -EINVAL;
			hi = ascii_hex_value(p[i + 1]);
			lo = ascii_hex_value(p[i + 2]);
			if (hi < 0 || lo < 0 || (hi | lo) == 0)
				return -EINVAL;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		} else if (!name_plain(c)) {
			return -EINVAL;
		}
		if (n + 1 >= CHECK_STATE_NAME_MAX)
			return -EINVAL;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return n ? 0 : -EINVAL;
}

static int parse_cause(const char *v, size_t len, enum check_flap_cause *out)
{
	for (size_t i = 0; i < N_CAUSES; i++)
		if (strlen(cause_names[i]) == len && memcmp(cause_names[i], v, len) == 0) {
			*out = (enum check_flap_cause)i;
			return 0;
		}
	return -EINVAL;
}

/* One key=value field into e: 0 (an unknown key is skipped) or -EINVAL. */
static int parse_field(struct check_state_entry *e, const char *p, size_t len)
{
	static const struct {
		const char *key;
		size_t off;
	} nums[] = {
		{"seen", offsetof(struct check_state_entry, seen)},
		{"counter", offsetof(struct check_state_entry, counter)},
		{"state", offsetof(struct check_state_entry, state)},
		{"flap_at", offsetof(struct check_state_entry, flap_at)},
		{"hold_until", offsetof(struct check_state_entry, hold_until)},
		{"from", offsetof(struct check_state_entry, from)},
		{"to", offsetof(struct check_state_entry, to)},
	};
	const char *eq = memchr(p, '=', len);
	size_t klen = eq ? (size_t)(eq - p) : 0, vlen = eq ? len - klen - 1 : 0;

	if (!eq || klen == 0 || vlen == 0)
		return -EINVAL;
	if (klen == 5 && memcmp(p, "cause", 5) == 0)
		return parse_cause(eq + 1, vlen, &e->cause);
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strlen(nums[i].key) != klen || memcmp(nums[i].key, p, klen) != 0)
			continue;
		if (parse_u64_dec(eq + 1, vlen, (uint64_t *)((char *)e + nums[i].off)) < 0)
			return -EINVAL;
		if (nums[i].off == offsetof(struct check_state_entry, counter))
			e->has_counter = true;
		if (nums[i].off == offsetof(struct check_state_entry, state))
			e->has_state = true;
		return 0;
	}
	return 0;
}

/* One object line (without its newline) into e: 0 or -EINVAL. */
static int parse_line(struct check_state_entry *e, const char *p, size_t len)
{
	const char *end = p + len, *tok;

	*e = (struct check_state_entry){0};
	if (len < 3 || (p[0] != CHECK_STATE_PORT && p[0] != CHECK_STATE_NETDEV) || p[1] != ' ')
		return -EINVAL;
	e->kind = p[0];
	p += 2;
	tok = memchr(p, ' ', (size_t)(end - p));
	if (name_decode(p, tok ? (size_t)(tok - p) : (size_t)(end - p), e->name) < 0)
		return -EINVAL;
	while (tok) {
		p = tok + 1;
		tok = memchr(p, ' ', (size_t)(end - p));
		if (parse_field(e, p, tok ? (size_t)(tok - p) : (size_t)(end - p)) < 0)
			return -EINVAL;
	}
	if (e->cause == CHECK_FLAP_ROSE && e->from > e->to)
		return -EINVAL;
	if (e->cause == CHECK_FLAP_NONE)
		e->flap_at = e->hold_until = e->from = e->to = 0;
	return 0;
}

int check_state_add(struct check_state *s, const struct check_state_entry *e)
{
	if (s->n >= CHECK_STATE_MAX_ENTRIES)
		return -E2BIG;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct check_state_entry *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *e;
	return 0;
}

/* One line after the header: 0, or -errno with the line refused. */
static int parse_entry(struct check_state *s, const char *p, size_t len)
{
	struct check_state_entry e;

	if (parse_line(&e, p, len) < 0 || check_state_find(s, e.kind, e.name))
		return -EINVAL;
	return check_state_add(s, &e);
}

int check_state_parse(struct check_state *s, const char *text, size_t len, size_t *bad_line)
{
	const char *p = text, *end = text + len;
	size_t line = 0;
	int r = 0;

	*s = (struct check_state){0};
	*bad_line = 0;
	if (len > CHECK_STATE_MAX_BYTES)
		return -EFBIG;
	while (p < end && r == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : 0;

		line++;
		if (!nl)
			r = -EINVAL; /* cut short */
		else if (line == 1)
			r = n == strlen(HEADER) && memcmp(p, HEADER, n) == 0 ? 0 : -EINVAL;
		else
			r = parse_entry(s, p, n);
		p = nl ? nl + 1 : end;
	}
	if (r == 0 && line == 0) {
		r = -EINVAL; /* empty: not even the header */
		line = 1;
	}
	if (r < 0) {
		*bad_line = line;
		check_state_free(s);
	}
	return r;
}

static void format_name(struct buf *out, const char *name)
{
	for (const char *c = name; *c; c++) {
		if (name_plain((unsigned char)*c))
			buf_putc(out, *c);
		else
			buf_printf(out, "%%%02X", (unsigned char)*c);
	}
}

int check_state_format(const struct check_state *s, struct buf *out)
{
	buf_puts(out, HEADER "\n");
	for (size_t i = 0; i < s->n && i < CHECK_STATE_MAX_ENTRIES; i++) {
		const struct check_state_entry *e = &s->v[i];

		buf_putc(out, e->kind);
		buf_putc(out, ' ');
		format_name(out, e->name);
		buf_printf(out, " seen=%llu", (unsigned long long)e->seen);
		if (e->has_counter)
			buf_printf(out, " counter=%llu", (unsigned long long)e->counter);
		if (e->has_state)
			buf_printf(out, " state=%llu", (unsigned long long)e->state);
		if (e->cause != CHECK_FLAP_NONE && (size_t)e->cause < N_CAUSES)
			buf_printf(out, " flap_at=%llu hold_until=%llu cause=%s from=%llu to=%llu",
				   (unsigned long long)e->flap_at,
				   (unsigned long long)e->hold_until, cause_names[e->cause],
				   (unsigned long long)e->from, (unsigned long long)e->to);
		buf_putc(out, '\n');
	}
	return buf_failed(out) ? -ENOMEM : 0;
}
