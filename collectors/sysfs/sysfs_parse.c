// SPDX-License-Identifier: Apache-2.0
#include "sysfs_parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/ib_state.h"
#include "base/chars.h"
#include "base/strparse.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

int sysfs_parse_text(const char *s, size_t len, const char **out, size_t *out_len)
{
	size_t i;

	str_trim(&s, &len);
	/* sysfs attributes are one line; a NUL would cut the label anyway. */
	for (i = 0; i < len; i++)
		if (s[i] == '\n' || s[i] == '\0')
			break;
	len = i;
	str_trim(&s, &len);
	if (!len)
		return -ENODATA;
	*out = s;
	*out_len = len;
	return 0;
}

int sysfs_parse_counter(const char *s, size_t len, uint64_t *out)
{
	str_trim(&s, &len);
	if (!len)
		return -EINVAL;
	/* i40iw/irdma and other iWARP drivers without a Performance Management
	 * Agent print "N/A (no PMA)" for every PortCounters file. */
	if (len >= 3 && memcmp(s, "N/A", 3) == 0)
		return -ENODATA;
	return parse_u64_dec(s, len, out);
}

/*
 * "<number>: <name>" as printed by the kernel ("%d: %s\n"), or "<number>",
 * or a bare name looked up in names[] (index = value, NULL = no name).
 */
static int parse_numbered_enum(const char *s, size_t len, const char *const *names, size_t n_names,
			       uint64_t *out)
{
	size_t n;

	str_trim(&s, &len);
	if (!len)
		return -EINVAL;
	n = ascii_count_digits(s, len);
	if (n) {
		if (n < len && s[n] != ':')
			return -EINVAL;
		return parse_u64_dec(s, n, out);
	}
	for (size_t i = 0; i < n_names; i++) {
		if (names[i] && strlen(names[i]) == len && strncasecmp(names[i], s, len) == 0) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* IB spec PortPhysicalState, spelled as drivers/infiniband/core/sysfs.c does. */
static const char *const phys_state_names[] = {
	NULL,
	"Sleep",
	"Polling",
	"Disabled",
	"PortConfigurationTraining",
	"LinkUp",
	"LinkErrorRecovery",
	"Phy Test",
};

int sysfs_parse_port_state(const char *s, size_t len, uint64_t *out)
{
	return parse_numbered_enum(s, len, ib_port_state_names, IB_PORT_STATES, out);
}

int sysfs_parse_phys_state(const char *s, size_t len, uint64_t *out)
{
	return parse_numbered_enum(s, len, phys_state_names, ARRAY_SIZE(phys_state_names), out);
}

#define DECIMAL_MAX_FRAC 9
#define BYTES_PER_GBIT	 125000000ull /* 10^9 bits / 8 */

int sysfs_parse_decimal_unit(const char *s, size_t len, const char *unit, uint64_t *whole,
			     uint64_t *billionths)
{
	static const uint64_t pow10[DECIMAL_MAX_FRAC + 1] = {
		1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000,
	};
	const size_t unit_len = strlen(unit);
	uint64_t frac = 0;
	size_t i, n, frac_len = 0;
	int r;

	n = ascii_count_digits(s, len);
	if (!n)
		return -EINVAL;
	r = parse_u64_dec(s, n, whole);
	if (r < 0)
		return r;
	i = n;
	if (i < len && s[i] == '.') {
		i++;
		frac_len = ascii_count_digits(s + i, len - i);
		if (!frac_len || frac_len > DECIMAL_MAX_FRAC)
			return -EINVAL;
		r = parse_u64_dec(s + i, frac_len, &frac);
		if (r < 0)
			return r;
		i += frac_len;
	}
	while (i < len && ascii_is_blank(s[i]))
		i++;
	if (len - i < unit_len || memcmp(s + i, unit, unit_len) != 0)
		return -EINVAL;
	i += unit_len;
	if (i < len && !ascii_is_blank(s[i]))
		return -EINVAL;
	/* frac < 10^frac_len: frac * 10^(9 - frac_len) < 10^9, exact */
	*billionths = frac * pow10[DECIMAL_MAX_FRAC - frac_len];
	return 0;
}

int sysfs_parse_rate(const char *s, size_t len, uint64_t *bytes_per_second)
{
	uint64_t whole, billionths, bytes;
	int r;

	str_trim(&s, &len);
	/* What follows the unit is "(4X EDR)", "(4X)" or nothing. */
	r = sysfs_parse_decimal_unit(s, len, "Gb/sec", &whole, &billionths);
	if (r < 0)
		return r;
	if (__builtin_mul_overflow(whole, BYTES_PER_GBIT, &bytes))
		return -ERANGE;
	/* Exact while the fraction has at most 6 digits, because 10^3 is a
	 * multiple of 8; rounded down beyond. */
	if (__builtin_add_overflow(bytes, billionths / 8, &bytes))
		return -ERANGE;
	*bytes_per_second = bytes;
	return 0;
}

int sysfs_parse_lid(const char *s, size_t len, uint64_t *out)
{
	str_trim(&s, &len);
	return parse_u64_auto(s, len, out);
}

int sysfs_parse_node_type(const char *s, size_t len, const char **name, size_t *name_len)
{
	size_t n;
	int r;

	r = sysfs_parse_text(s, len, &s, &len);
	if (r < 0)
		return -EINVAL;
	/* "%d: %s": RDMA_NODE_IB_CA "1: CA", RNIC "4: RNIC", EFA "7: unspecified". */
	n = ascii_count_digits(s, len);
	if (n) {
		if (n == len || s[n] != ':')
			return -EINVAL;
		s += n + 1;
		len -= n + 1;
		str_trim(&s, &len);
		if (!len)
			return -EINVAL;
	}
	*name = s;
	*name_len = len;
	return 0;
}

int sysfs_parse_link_basename(const char *s, size_t len, const char **out, size_t *out_len)
{
	size_t start;

	while (len && s[len - 1] == '/')
		len--;
	start = len;
	while (start && s[start - 1] != '/')
		start--;
	s += start;
	len -= start;
	if (!len || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return -EINVAL;
	if (memchr(s, '\0', len))
		return -EINVAL;
	*out = s;
	*out_len = len;
	return 0;
}

int sysfs_parse_port_num(const char *s, size_t len, uint32_t *out)
{
	uint64_t v;
	int r;

	if (!len || ascii_count_digits(s, len) != len || (len > 1 && s[0] == '0'))
		return -EINVAL;
	r = parse_u64_dec(s, len, &v);
	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

static void check_span(const uint8_t *data, size_t size, const char *p, size_t len)
{
	const char *base = (const char *)data;

	if (p < base || len > size || (size_t)(p - base) > size - len)
		abort();
}

int sysfs_parse_fuzz_one(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *span;
	size_t span_len;
	uint64_t v;
	uint32_t port;

	(void)sysfs_parse_counter(s, size, &v);
	(void)sysfs_parse_port_state(s, size, &v);
	(void)sysfs_parse_phys_state(s, size, &v);
	(void)sysfs_parse_lid(s, size, &v);
	(void)sysfs_parse_port_num(s, size, &port);
	if (sysfs_parse_rate(s, size, &v) == 0 && size < 7)
		abort(); /* the shortest valid rate is "0Gb/sec" */
	if (sysfs_parse_node_type(s, size, &span, &span_len) == 0) {
		check_span(data, size, span, span_len);
		if (!span_len)
			abort();
	}
	if (sysfs_parse_text(s, size, &span, &span_len) == 0) {
		check_span(data, size, span, span_len);
		if (!span_len || memchr(span, '\n', span_len) || memchr(span, '\0', span_len))
			abort();
	}
	if (sysfs_parse_link_basename(s, size, &span, &span_len) == 0) {
		check_span(data, size, span, span_len);
		if (!span_len || memchr(span, '/', span_len))
			abort();
	}
	return 0;
}
