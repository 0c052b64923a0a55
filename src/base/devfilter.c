// SPDX-License-Identifier: Apache-2.0
#include "base/devfilter.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct device_filter {
	bool has_include, has_exclude;
	regex_t include, exclude;
};

/* Anchors the user's pattern: "mlx5_1" must not match "mlx5_10". */
const char *regex_cost_problem(const char *pattern)
{
	size_t n = strlen(pattern), reps = 0;
	bool prev_rep = false;

	if (n > REGEX_MAX_LEN)
		return "longer than 1024 bytes";
	/* glibc's regcomp doubles its memory with each stacked repetition
	 * ("a++++..." takes gigabytes); in POSIX ERE a repetition of a
	 * repetition means nothing anyway. Escapes and bracket expressions
	 * ("[*+]") hold no operators. */
	for (size_t i = 0; i < n; i++) {
		char c = pattern[i];
		bool rep = c == '*' || c == '+' || c == '?' || c == '{';

		if (c == '\\') {
			i++;
		} else if (c == '[') {
			i++;
			if (i < n && pattern[i] == '^')
				i++;
			if (i < n && pattern[i] == ']')
				i++;
			while (i < n && pattern[i] != ']')
				i++;
		} else if (rep && prev_rep) {
			return "a repetition operator follows another (\"++\", \"*+\", \"}*\", "
			       "...)";
		} else if (c == '{') {
			while (i < n && pattern[i] != '}')
				i++;
		}
		if (rep && ++reps > REGEX_MAX_REPS)
			return "more than 32 repetition operators";
		prev_rep = rep;
	}
	return NULL;
}

static int compile_anchored(regex_t *re, const char *pattern, const char *what, char *err,
			    size_t errlen)
{
	size_t n = strlen(pattern) + 5;
	const char *why = regex_cost_problem(pattern);
	char *anchored;
	int r;

	if (why) {
		snprintf(err, errlen, "invalid %s regex \"%.64s\": %s", what, pattern, why);
		return -1;
	}
	anchored = malloc(n);
	if (!anchored) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(anchored, n, "^(%s)$", pattern);
	r = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
	free(anchored);
	if (r != 0) {
		char msg[128];

		regerror(r, re, msg, sizeof(msg));
		snprintf(err, errlen, "invalid %s regex \"%s\": %s", what, pattern, msg);
		return -1;
	}
	return 0;
}

struct device_filter *device_filter_new(const char *include, const char *exclude, char *err,
					size_t errlen)
{
	struct device_filter *f = calloc(1, sizeof(*f));

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (include) {
		if (compile_anchored(&f->include, include, "--collector.device-include", err,
				     errlen) < 0)
			goto fail;
		f->has_include = true;
	}
	if (exclude) {
		if (compile_anchored(&f->exclude, exclude, "--collector.device-exclude", err,
				     errlen) < 0)
			goto fail;
		f->has_exclude = true;
	}
	return f;
fail:
	device_filter_free(f);
	return NULL;
}

void device_filter_free(struct device_filter *f)
{
	if (!f)
		return;
	if (f->has_include)
		regfree(&f->include);
	if (f->has_exclude)
		regfree(&f->exclude);
	free(f);
}

enum device_filter_verdict device_filter_check(const struct device_filter *f, const char *name)
{
	if (!f)
		return DEVICE_FILTER_KEEP;
	if (f->has_include && regexec(&f->include, name, 0, NULL, 0) != 0)
		return DEVICE_FILTER_NOT_INCLUDED;
	if (f->has_exclude && regexec(&f->exclude, name, 0, NULL, 0) == 0)
		return DEVICE_FILTER_EXCLUDED;
	return DEVICE_FILTER_KEEP;
}

bool device_filter_match(const struct device_filter *f, const char *name)
{
	return device_filter_check(f, name) == DEVICE_FILTER_KEEP;
}
