// SPDX-License-Identifier: Apache-2.0
#include "sysfs_pcie_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/chars.h"
#include "base/strparse.h"
#include "sysfs_parse.h"

#define SPEED_UNIT "GT/s"
#define GIGA	   1000000000ull

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

int sysfs_parse_pcie_speed(const char *s, size_t len, uint64_t *transfers_per_second)
{
	uint64_t whole, billionths, v;
	int r;

	str_trim(&s, &len);
	/* PCI_SPEED_UNKNOWN: "Unknown" (6.x), "Unknown speed" (older kernels) */
	if (starts_with(s, len, "Unknown") && (len == 7 || ascii_is_blank(s[7]))) {
		*transfers_per_second = 0;
		return 0;
	}
	r = sysfs_parse_decimal_unit(s, len, SPEED_UNIT, &whole, &billionths);
	if (r < 0)
		return r;
	if (__builtin_mul_overflow(whole, GIGA, &v) || __builtin_add_overflow(v, billionths, &v))
		return -ERANGE;
	*transfers_per_second = v;
	return 0;
}

int sysfs_parse_pcie_width(const char *s, size_t len, uint64_t *lanes)
{
	str_trim(&s, &len);
	if (len && (s[0] == 'x' || s[0] == 'X')) {
		s++;
		len--;
	}
	if (!len || ascii_count_digits(s, len) != len)
		return -EINVAL;
	return parse_u64_dec(s, len, lanes);
}

static bool name_char(char c)
{
	return ascii_is_alnum(c) || c == '_' || c == '-';
}

/* One non-empty line, trimmed: "NAME COUNT". */
static int parse_aer_line(const char *s, size_t len, struct sysfs_aer_entry *e)
{
	size_t n = 0, i;

	while (n < len && name_char(s[n]))
		n++;
	if (!n || n > SYSFS_AER_NAME_MAX || n == len || !ascii_is_blank(s[n]))
		return -EINVAL;
	i = n;
	while (i < len && ascii_is_blank(s[i]))
		i++;
	if (i == len || ascii_count_digits(s + i, len - i) != len - i)
		return -EINVAL;
	e->name = s;
	e->name_len = n;
	return parse_u64_dec(s + i, len - i, &e->count);
}

int sysfs_parse_aer(const char *s, size_t len, struct sysfs_aer_entry *out, size_t max, size_t *n)
{
	size_t pos = 0, k = 0;

	*n = 0;
	while (pos < len) {
		const char *nl = memchr(s + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - s) : len;
		const char *line = s + pos;
		size_t line_len = end - pos;
		struct sysfs_aer_entry e;
		int r;

		pos = end + 1;
		str_trim(&line, &line_len);
		if (!line_len)
			continue;
		r = parse_aer_line(line, line_len, &e);
		if (r < 0)
			return r;
		/* TOTAL_ERR_COR, TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL: the sum */
		if (starts_with(e.name, e.name_len, "TOTAL_"))
			continue;
		if (k == max)
			return -E2BIG;
		out[k++] = e;
	}
	*n = k;
	return 0;
}

const struct sysfs_aer_entry *sysfs_aer_find(const struct sysfs_aer_entry *e, size_t n, size_t hint,
					     const char *name, size_t len)
{
	for (size_t k = 0; k < n; k++) {
		const struct sysfs_aer_entry *x = &e[(hint + k) % n];

		if (x->name_len == len && memcmp(x->name, name, len) == 0)
			return x;
	}
	return NULL;
}

int sysfs_pcie_fuzz_one(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct sysfs_aer_entry e[SYSFS_AER_MAX_TYPES];
	uint64_t v;
	size_t n;

	/* the shortest speed is "0GT/s", the shortest Unknown "Unknown" */
	if (sysfs_parse_pcie_speed(s, size, &v) == 0 && size < 5)
		abort();
	(void)sysfs_parse_pcie_width(s, size, &v);
	if (sysfs_parse_aer(s, size, e, SYSFS_AER_MAX_TYPES, &n) == 0) {
		if (n > SYSFS_AER_MAX_TYPES)
			abort();
		for (size_t i = 0; i < n; i++) {
			if (e[i].name < s || e[i].name_len == 0 ||
			    e[i].name_len > SYSFS_AER_NAME_MAX ||
			    (size_t)(e[i].name - s) > size - e[i].name_len)
				abort();
			if (starts_with(e[i].name, e[i].name_len, "TOTAL_"))
				abort();
			for (size_t j = 0; j < e[i].name_len; j++)
				if (!name_char(e[i].name[j]))
					abort();
			if (sysfs_aer_find(e, n, i, e[i].name, e[i].name_len) == NULL)
				abort();
		}
	}
	return 0;
}
