// SPDX-License-Identifier: Apache-2.0
/* Each collector's own flags (--collector.C.F=V, --[no-]collector.C.F): found, checked, applied. */
#include "daemon/config_collflags.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/devfilter.h"
#include "base/strparse.h"
#include "daemon/config_duration.h"

/* 0 when s compiles as an anchored POSIX extended regex (as devfilter does). */
static int check_regex(const char *s)
{
	size_t len = strlen(s) + 5;
	char *anchored;
	regex_t re;
	int r;

	if (regex_cost_problem(s))
		return REG_BADRPT;
	anchored = malloc(len);
	if (!anchored)
		return REG_ESPACE;
	snprintf(anchored, len, "^(%s)$", s);
	r = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
	if (r == 0)
		regfree(&re);
	free(anchored);
	return r;
}

/*
 * A flag's value taken from the next argument must not be the next flag:
 * "--collector.probe.targets-file --web.listen-address=:1" is a missing
 * value, not a file named "--web.listen-address=:1". A value that does
 * start with "--" can still be given as --FLAG=VALUE.
 */
int config_check_next_value(const char *flag, size_t nlen, const char *v, char *err, size_t errlen)
{
	if (strncmp(v, "--", 2) != 0)
		return 0;
	return parse_fail(err, errlen,
			  "--%.*s needs a value, but the next argument \"%s\" is a flag (write "
			  "--%.*s=VALUE for a value that starts with --)",
			  (int)nlen, flag, v, (int)nlen, flag);
}

/* The value of a flag kept as text (REGEX, TEXT, PATH), checked: 0 or -EINVAL. */
static int check_text_flag(const struct collector_flag *cf, const char *name, size_t nlen,
			   const char *v, char *err, size_t errlen)
{
	char why[160] = "";

	if (cf->kind == COLLECTOR_FLAG_REGEX && check_regex(v))
		return parse_fail(err, errlen, "invalid --%.*s regex \"%s\" (POSIX extended)",
				  (int)nlen, name, v);
	if (cf->kind == COLLECTOR_FLAG_TEXT && cf->check && cf->check(v, why, sizeof(why)) < 0)
		return parse_fail(err, errlen, "--%.*s: %s", (int)nlen, name, why);
	if (cf->kind == COLLECTOR_FLAG_PATH && !*v)
		return parse_fail(err, errlen, "--%.*s: empty path", (int)nlen, name);
	return 0;
}

/* An ENUM flag's word as its index in cf->values: 0 or -EINVAL, with the words
 * it takes in err. */
static int parse_enum_flag(const struct collector_flag *cf, const char *name, size_t nlen,
			   const char *v, uint64_t *x, char *err, size_t errlen)
{
	char words[160] = "";
	size_t used = 0;

	for (uint64_t i = 0; cf->values[i]; i++) {
		if (strcmp(cf->values[i], v) == 0) {
			*x = i;
			return 0;
		}
		if (used < sizeof(words))
			used += (size_t)snprintf(words + used, sizeof(words) - used, "%s%s",
						 i ? ", " : "", cf->values[i]);
	}
	return parse_fail(err, errlen, "--%.*s: \"%s\" is not one of %s", (int)nlen, name, v,
			  words);
}

/*
 * The flag of one of the n collectors that name ("collector.C.F", nlen
 * bytes) names, the first that matches: its collector's index in *ci and its
 * own in *fi. NULL when none.
 */
static const struct collector_flag *find_collector_flag(const struct config_collector *collectors,
							unsigned n, const char *name, size_t nlen,
							unsigned *ci, unsigned *fi)
{
	for (unsigned i = 0; i < n; i++) {
		size_t cl = strlen(collectors[i].name), flen;
		const char *fname;

		if (nlen <= 10 + cl + 1 || strncmp(name + 10, collectors[i].name, cl) != 0 ||
		    name[10 + cl] != '.')
			continue;
		fname = name + 10 + cl + 1;
		flen = nlen - (10 + cl + 1);
		for (unsigned f = 0; f < collectors[i].n_flags; f++) {
			const struct collector_flag *cf = &collectors[i].flags[f];

			if (strlen(cf->name) == flen && strncmp(cf->name, fname, flen) == 0) {
				*ci = i;
				*fi = f;
				return cf;
			}
		}
	}
	return NULL;
}

/* Whether a flag of this kind is kept as text (collector_flag_strs). */
static bool is_text_kind(enum collector_flag_kind kind)
{
	return kind == COLLECTOR_FLAG_REGEX || kind == COLLECTOR_FLAG_TEXT ||
	       kind == COLLECTOR_FLAG_PATH;
}

/* The value of a flag kept as a number (ENUM, UINT, DURATION) in *x: 0 or -EINVAL. */
static int parse_number_flag(const struct collector_flag *cf, const char *name, size_t nlen,
			     const char *v, uint64_t *x, char *err, size_t errlen)
{
	if (cf->kind == COLLECTOR_FLAG_ENUM)
		return parse_enum_flag(cf, name, nlen, v, x, err, errlen);
	if (cf->kind != COLLECTOR_FLAG_UINT)
		return config_parse_duration_flag(name, nlen, v, cf->min, cf->max, x, err, errlen);
	if (parse_u64_dec(v, strlen(v), x) < 0 || *x < cf->min || *x > cf->max)
		return parse_fail(err, errlen,
				  "--%.*s: \"%s\" is not a whole number from %llu to %llu",
				  (int)nlen, name, v, (unsigned long long)cf->min,
				  (unsigned long long)cf->max);
	return 0;
}

/* A flag that takes a value given with --no-, or without one: 0 when neither, else -EINVAL. */
static int check_value_given(const char *name, size_t nlen, bool negated, bool has_eq,
			     const char *v, char *err, size_t errlen)
{
	if (negated)
		return parse_fail(err, errlen, "unknown flag --no-%.*s (it takes a value)",
				  (int)nlen, name);
	if (!v)
		return parse_fail(err, errlen, "--%.*s needs a value", (int)nlen, name);
	if (!has_eq)
		return config_check_next_value(name, nlen, v, err, errlen);
	return 0;
}

int config_apply_collector_flag(struct exporter_config *cfg,
				const struct config_collector *collectors, unsigned n,
				const char *name, size_t nlen, bool negated, bool has_eq,
				const char *v, bool *used, char *err, size_t errlen)
{
	const struct collector_flag *cf;
	unsigned i = 0, f = 0;
	uint64_t x;

	*used = false;
	cf = find_collector_flag(collectors, n, name, nlen, &i, &f);
	if (!cf)
		return 0;
	if (cf->kind == COLLECTOR_FLAG_BOOL) {
		if (has_eq)
			return parse_fail(err, errlen,
					  "--%s%.*s takes no value (use --%.*s or --no-%.*s)",
					  negated ? "no-" : "", (int)nlen, name, (int)nlen, name,
					  (int)nlen, name);
		cfg->collector_flags[i][f] = !negated;
		return 1;
	}
	if (check_value_given(name, nlen, negated, has_eq, v, err, errlen) < 0)
		return -EINVAL;
	if (is_text_kind(cf->kind)) {
		if (check_text_flag(cf, name, nlen, v, err, errlen) < 0)
			return -EINVAL;
		cfg->collector_flag_strs[i][f] = v;
	} else {
		if (parse_number_flag(cf, name, nlen, v, &x, err, errlen) < 0)
			return -EINVAL;
		cfg->collector_flags[i][f] = x;
	}
	*used = !has_eq;
	return 1;
}

int config_check_collector_table(const struct config_collector *collectors, unsigned n, char *err,
				 size_t errlen)
{
	if (n > CONFIG_MAX_COLLECTORS)
		return parse_fail(err, errlen, "internal error: too many collectors");
	for (unsigned j = 0; j < n; j++) {
		if (collectors[j].n_flags > CONFIG_MAX_COLLECTOR_FLAGS)
			return parse_fail(err, errlen, "internal error: too many flags for %s",
					  collectors[j].name);
		for (unsigned f = 0; f < collectors[j].n_flags; f++)
			if (collectors[j].flags[f].kind == COLLECTOR_FLAG_ENUM &&
			    !collectors[j].flags[f].values)
				return parse_fail(err, errlen,
						  "internal error: --collector.%s.%s "
						  "has no values",
						  collectors[j].name, collectors[j].flags[f].name);
	}
	return 0;
}
