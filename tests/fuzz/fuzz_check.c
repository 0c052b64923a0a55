// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the check subcommand's parsers. The first byte picks
 * check_table_parse (exposition text read back, on the raw bytes) or
 * check_expect_parse (the expected fabric spec, on the rest as a C string).
 *
 * Invariants: the table is sorted by name and every sample has a valid metric
 * name and valid, distinct-pointer label names; an error is -EINVAL with a
 * line inside the text (or -ENOMEM) and an empty table. A spec expands to 1..
 * CHECK_EXPECT_MAX_PORTS distinct ports with non-empty names of name
 * characters, ports 1..CHECK_EXPECT_MAX_PORT and a rate that is 0 or positive;
 * an error leaves one line and no ports.
 */
#include <errno.h>
#include <string.h>

#include "check/check_expect.h"
#include "check/check_table.h"
#include "fuzz.h"

static void check_table(const uint8_t *data, size_t size)
{
	struct check_table t;
	size_t bad = 0, lines = 1;
	int r = check_table_parse(&t, (const char *)data, size, &bad);

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r) {
		FUZZ_CHECK(t.n == 0 && t.v == NULL);
		FUZZ_CHECK(r == -ENOMEM || (bad >= 1 && bad <= lines));
		return;
	}
	for (size_t i = 0; i < t.n; i++) {
		FUZZ_CHECK(metric_name_valid(t.v[i].name));
		FUZZ_CHECK(t.v[i].n_labels <= METRIC_MAX_LABELS);
		for (size_t l = 0; l < t.v[i].n_labels; l++)
			FUZZ_CHECK(metric_label_name_valid(t.v[i].labels[l].name) ||
				   strchr(t.v[i].labels[l].name, ':'));
		if (i)
			FUZZ_CHECK(strcmp(t.v[i - 1].name, t.v[i].name) <= 0);
		FUZZ_CHECK(check_table_same(&t, &t.v[i]) != NULL);
	}
	check_table_free(&t);
}

static void check_expect(const char *s)
{
	struct check_expect e;
	char why[160] = "";
	int r = check_expect_parse(s, &e, why, sizeof(why));

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r) {
		FUZZ_CHECK(e.n == 0 && e.v == NULL);
		FUZZ_CHECK(r == -ENOMEM || (why[0] && !strchr(why, '\n')));
		return;
	}
	FUZZ_CHECK(e.n >= 1 && e.n <= CHECK_EXPECT_MAX_PORTS);
	for (size_t i = 0; i < e.n; i++) {
		const struct check_expect_port *p = &e.v[i];

		FUZZ_CHECK(p->device[0] != '\0');
		FUZZ_CHECK(strspn(p->device, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789_.-") == strlen(p->device));
		FUZZ_CHECK(p->port >= 1 && p->port <= CHECK_EXPECT_MAX_PORT);
		FUZZ_CHECK(p->rate_gbps >= 0);
		for (size_t j = 0; j < i && e.n <= 256; j++)
			FUZZ_CHECK(p->port != e.v[j].port || strcmp(p->device, e.v[j].device));
	}
	check_expect_free(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size == 0)
		return 0;
	if (data[0] & 1) {
		check_table(data + 1, size - 1);
		return 0;
	}
	s = fuzz_strdup(data + 1, size - 1);
	if (!s)
		return 0;
	check_expect(s);
	free(s);
	return 0;
}
