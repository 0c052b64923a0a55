/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Assertions on rendered exposition text, shared by the collector tests.
 * Include after <cmocka.h>.
 */
#ifndef RDMA_EXPORTER_TESTS_EXPOSITION_ASSERT_H
#define RDMA_EXPORTER_TESTS_EXPOSITION_ASSERT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* A whole sample line (or HELP/TYPE line) of the exposition. */
static inline bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* assert_line(text, printf-format, ...): that whole line is in text. */
#define assert_line(text, ...)                                                                     \
	do {                                                                                       \
		char line_[1024];                                                                  \
		snprintf(line_, sizeof(line_), __VA_ARGS__);                                       \
		if (!has_line((text), line_))                                                      \
			fail_msg("missing line: %s\n--- output ---\n%s", line_, (text));           \
	} while (0)

#define assert_no_line(text, ...)                                                                  \
	do {                                                                                       \
		char line_[1024];                                                                  \
		snprintf(line_, sizeof(line_), __VA_ARGS__);                                       \
		if (has_line((text), line_))                                                       \
			fail_msg("unexpected line: %s", line_);                                    \
	} while (0)

/* Writes text to path followed by suffix (a bench's copy of a rendered
 * exposition, tests/bench/series-per-node.sh). */
static inline void write_exposition(const char *path, const char *suffix, const char *text)
{
	char name[4096];
	FILE *f;

	snprintf(name, sizeof(name), "%s%s", path, suffix);
	f = fopen(name, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

#endif
