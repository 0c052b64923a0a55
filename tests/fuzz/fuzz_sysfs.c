// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the sysfs value parsers (sysfs_parse.c, through
 * sysfs_parse_fuzz_one, which checks that returned spans stay inside the input),
 * the checked number parsers under them (strparse.c) and the counter name table
 * (sysfs_names.c). The same bytes are a file's contents and a file's name.
 *
 * Invariants: a parsed number prints back as its digits; a counter is the
 * trimmed decimal number; a port number is canonical; a name the table knows
 * maps back to itself, in a source it was asked for, to a valid family name,
 * and is never also a setting.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "base/strparse.h"
#include "exposition/metrics.h"
#include "fuzz.h"
#include "rdmanl/sysfs_names.h"
#include "sysfs_parse.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Whether s[0, len) is the decimal form of v, leading zeros allowed. */
static bool is_decimal_of(const char *s, size_t len, uint64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);

	while (len > 1 && s[0] == '0') {
		s++;
		len--;
	}
	return n > 0 && (size_t)n == len && memcmp(tmp, s, len) == 0;
}

static void check_numbers(const char *s, size_t size)
{
	const char *t = s;
	size_t tlen = size;
	uint64_t v, w;
	uint32_t port;
	int r;

	r = parse_u64_dec(s, size, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		FUZZ_CHECK(is_decimal_of(s, size, v));
		/* decimal input means the same to the auto-detecting parser */
		FUZZ_CHECK(parse_u64_auto(s, size, &w) == 0 && w == v);
	}
	r = parse_u64_auto(s, size, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0 && size > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		char tmp[24];
		size_t i = 2;

		while (i + 1 < size && s[i] == '0')
			i++;
		snprintf(tmp, sizeof(tmp), "%" PRIx64, v);
		FUZZ_CHECK(strlen(tmp) == size - i && strncasecmp(tmp, s + i, size - i) == 0);
	}

	str_trim(&t, &tlen);
	FUZZ_CHECK(t >= s && t + tlen <= s + size);
	FUZZ_CHECK(!tlen || (!is_space(t[0]) && !is_space(t[tlen - 1])));

	r = sysfs_parse_counter(s, size, &v);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE || r == -ENODATA);
	if (r == 0)
		FUZZ_CHECK(parse_u64_dec(t, tlen, &w) == 0 && w == v);

	if (sysfs_parse_port_num(s, size, &port) == 0) {
		char tmp[16];

		snprintf(tmp, sizeof(tmp), "%" PRIu32, port);
		FUZZ_CHECK(strlen(tmp) == size && memcmp(tmp, s, size) == 0);
	}

	/* the shortest rate is "0Gb/sec"; 10^9/8 bytes per Gb/s */
	if (sysfs_parse_rate(s, size, &v) == 0)
		FUZZ_CHECK(tlen >= 7);
}

static void check_names(const uint8_t *data, size_t size)
{
	static const unsigned sources[] = {
		SYSFS_SRC_COUNTERS,
		SYSFS_SRC_COUNTERS_EXT,
		SYSFS_SRC_HW_COUNTERS,
		SYSFS_SRC_DEV_HW_COUNTERS,
		SYSFS_SRC_COUNTERS | SYSFS_SRC_HW_COUNTERS,
	};
	char *name = fuzz_strdup(data, size);

	if (!name)
		return;
	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		const struct sysfs_counter_name *n = sysfs_counter_lookup(name, sources[i]);
		bool setting = sysfs_counter_is_setting(name, sources[i]);

		if (!n)
			continue;
		FUZZ_CHECK(!setting);
		FUZZ_CHECK(strcmp(n->file, name) == 0);
		FUZZ_CHECK(n->sources & sources[i]);
		FUZZ_CHECK(metric_name_valid(n->metric));
		FUZZ_CHECK(n->help && n->help[0]);
		FUZZ_CHECK(n->multiplier >= 1);
		FUZZ_CHECK(n->type == METRIC_COUNTER || n->type == METRIC_GAUGE);
	}
	free(name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FUZZ_CHECK(sysfs_parse_fuzz_one(data, size) == 0);
	check_numbers((const char *)data, size);
	check_names(data, size);
	return 0;
}
