// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the pingmesh target file reader (probe_targets_parse.c,
 * file_sd in JSON or YAML, read with libyaml) and the rendezvous-hash sampler.
 *
 * Invariants: an error is -EINVAL or -E2BIG with a one-line message and an
 * empty list; a parsed list has unique, printable targets inside their groups
 * and valid label names, none of them dropped ones ("__*", job, instance),
 * the dropped ones counted with the first's name; written back as file_sd
 * JSON, and as file_sd YAML in block style, it parses to the same targets and
 * labels; a sample of it has distinct indexes inside the list.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "fuzz.h"
#include "probe_targets.h"

static bool label_name_ok(const char *s)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9') || (s[0] == '_' && s[1] == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void check_list(const struct probe_target_list *l)
{
	FUZZ_CHECK(l->n_targets <= PROBE_TARGETS_MAX_TARGETS);
	for (size_t i = 0; i < l->n_targets; i++) {
		const struct probe_target *t = &l->targets[i];

		FUZZ_CHECK(t->host && t->raw && t->host[0]);
		FUZZ_CHECK(strlen(t->host) <= PROBE_TARGETS_MAX_HOST);
		FUZZ_CHECK(strlen(t->raw) <= PROBE_TARGETS_MAX_TARGET);
		FUZZ_CHECK(strstr(t->raw, t->host));
		FUZZ_CHECK(t->group < l->n_groups);
		for (const char *c = t->host; *c; c++)
			FUZZ_CHECK(*c > ' ' && *c < 0x7f);
		for (size_t j = 0; l->n_targets < 64 && j < i; j++)
			FUZZ_CHECK(l->targets[j].port != t->port ||
				   strcasecmp(l->targets[j].host, t->host) != 0);
	}
	FUZZ_CHECK(
		!l->dropped_labels ||
		(l->dropped_label[0] && strlen(l->dropped_label) <= PROBE_TARGETS_MAX_LABEL_NAME));
	for (size_t g = 0; g < l->n_groups; g++) {
		FUZZ_CHECK(l->groups[g].n_labels <= PROBE_TARGETS_MAX_LABELS);
		for (size_t i = 0; i < l->groups[g].n_labels; i++) {
			FUZZ_CHECK(label_name_ok(l->groups[g].labels[i].name));
			FUZZ_CHECK(strcmp(l->groups[g].labels[i].name, "job") != 0 &&
				   strcmp(l->groups[g].labels[i].name, "instance") != 0);
			FUZZ_CHECK(strlen(l->groups[g].labels[i].value) <=
				   PROBE_TARGETS_MAX_LABEL_VALUE);
		}
	}
}

/* One UTF-8 character at p (the parser checked the UTF-8): its code point
 * and length. */
static unsigned utf8_next(const unsigned char *p, size_t *len)
{
	if (*p < 0x80) {
		*len = 1;
		return *p;
	}
	if (*p < 0xe0) {
		*len = 2;
		return (unsigned)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
	}
	if (*p < 0xf0) {
		*len = 3;
		return (unsigned)(p[0] & 0x0f) << 12 | (unsigned)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
	}
	*len = 4;
	return (unsigned)(p[0] & 0x07) << 18 | (unsigned)(p[1] & 0x3f) << 12 |
	       (unsigned)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
}

/* A double-quoted string of s, JSON and YAML alike: every byte outside
 * printable ASCII escaped (libyaml refuses control characters raw). */
static void quoted(struct buf *out, const char *s)
{
	buf_putc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n;
		unsigned cp = utf8_next(p, &n);

		if (cp == '"' || cp == '\\')
			buf_printf(out, "\\%c", cp);
		else if (cp >= 0x20 && cp < 0x7f)
			buf_putc(out, (char)cp);
		else if (cp < 0x10000)
			buf_printf(out, "\\u%04x", cp);
		else
			buf_printf(out, "\\U%08x", cp);
		p += n;
	}
	buf_putc(out, '"');
}

/* The list written back as a file_sd file, JSON or YAML's block style:
 * every group, its unique targets, its labels. */
static void write_back(const struct probe_target_list *l, bool yaml, struct buf *out)
{
	buf_puts(out, yaml ? (l->n_groups ? "" : "[]\n") : "[");
	for (size_t g = 0; g < l->n_groups; g++) {
		bool first = true;

		buf_puts(out, yaml ? "- targets: [" : g ? ",{\"targets\":[" : "{\"targets\":[");
		for (size_t i = 0; i < l->n_targets; i++) {
			if (l->targets[i].group != g)
				continue;
			if (!first)
				buf_putc(out, ',');
			first = false;
			quoted(out, l->targets[i].raw);
		}
		buf_puts(out, yaml ? "]\n  labels:\n" : "],\"labels\":{");
		for (size_t i = 0; i < l->groups[g].n_labels; i++) {
			if (i && !yaml)
				buf_putc(out, ',');
			buf_puts(out, yaml ? "    " : "");
			quoted(out, l->groups[g].labels[i].name);
			buf_puts(out, yaml ? ": " : ":");
			quoted(out, l->groups[g].labels[i].value);
			buf_puts(out, yaml ? "\n" : "");
		}
		buf_puts(out, yaml ? (l->groups[g].n_labels ? "" : "    {}\n") : "}}");
	}
	buf_puts(out, yaml ? "" : "]");
}

static void check_round_trip(const struct probe_target_list *l, bool yaml)
{
	struct probe_target_list again;
	struct buf text = BUF_INIT;
	char err[256];

	write_back(l, yaml, &text);
	if (buf_failed(&text))
		goto out;
	FUZZ_CHECK(probe_targets_parse(text.data, text.len, &again, err, sizeof(err)) == 0);
	FUZZ_CHECK(again.n_targets == l->n_targets && again.n_groups == l->n_groups);
	FUZZ_CHECK(again.duplicates == 0);
	for (size_t i = 0; i < l->n_targets; i++) {
		FUZZ_CHECK(strcmp(again.targets[i].raw, l->targets[i].raw) == 0);
		FUZZ_CHECK(strcmp(again.targets[i].host, l->targets[i].host) == 0);
		FUZZ_CHECK(again.targets[i].port == l->targets[i].port);
		FUZZ_CHECK(again.targets[i].group == l->targets[i].group);
	}
	for (size_t g = 0; g < l->n_groups; g++) {
		FUZZ_CHECK(again.groups[g].n_labels == l->groups[g].n_labels);
		for (size_t i = 0; i < l->groups[g].n_labels; i++) {
			FUZZ_CHECK(strcmp(again.groups[g].labels[i].name,
					  l->groups[g].labels[i].name) == 0);
			FUZZ_CHECK(strcmp(again.groups[g].labels[i].value,
					  l->groups[g].labels[i].value) == 0);
		}
	}
	probe_target_list_free(&again);
out:
	buf_free(&text);
}

/* A sample: min(n, k) distinct indexes, ascending, inside the list, the
 * same when asked again, and the heaviest: no target left out weighs more
 * than one taken. */
static void check_sample(const struct probe_target_list *l, const uint8_t *data, size_t size)
{
	size_t n = l->n_targets, k = size % 9, idx[8], again[8], got;
	uint64_t node = 0, w[8], lightest = UINT64_MAX;

	for (size_t i = 0; i < size && i < 8; i++)
		node = node << 8 | data[i];
	got = probe_targets_sample(l, k, node, idx, w);
	FUZZ_CHECK(got == (n < k ? n : k));
	FUZZ_CHECK(probe_targets_sample(l, k, node, again, w) == got);
	for (size_t i = 0; i < got; i++) {
		uint64_t wi = probe_targets_weight(node, l->targets[idx[i]].key);

		FUZZ_CHECK(idx[i] < n && again[i] == idx[i]);
		FUZZ_CHECK(i == 0 || idx[i - 1] < idx[i]);
		if (wi < lightest)
			lightest = wi;
	}
	for (size_t t = 0, i = 0; got && t < n && n < 4096; t++) {
		if (i < got && idx[i] == t) {
			i++;
			continue;
		}
		FUZZ_CHECK(probe_targets_weight(node, l->targets[t].key) <= lightest);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1), err[256];
	struct probe_target_list l;
	int rc;

	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	memset(err, 'x', sizeof(err));
	rc = probe_targets_parse(copy, size, &l, err, sizeof(err));
	free(copy);
	if (rc) {
		FUZZ_CHECK(rc == -EINVAL || rc == -E2BIG);
		FUZZ_CHECK(err[0] != '\0' && memchr(err, '\0', sizeof(err)));
		FUZZ_CHECK(!strchr(err, '\n'));
		FUZZ_CHECK(!l.targets && !l.groups && l.n_targets == 0 && l.n_groups == 0);
	} else {
		check_list(&l);
		check_round_trip(&l, false);
		check_round_trip(&l, true);
		check_sample(&l, data, size);
	}
	probe_target_list_free(&l);
	return 0;
}
