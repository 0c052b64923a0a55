// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the PCIe attribute parsers of the sysfs collector
 * (sysfs_pcie_parse.c: link speed, link width, AER files), through
 * sysfs_pcie_fuzz_one, which checks that AER names stay inside the input,
 * are of name characters and never a TOTAL line.
 *
 * Invariants here: a speed is the whole GT/s times 10^9 plus its fraction, so
 * it prints back as the digits of the input; a width is the trimmed decimal;
 * an AER file with one line fewer (its last) parses to at most as many types.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/strparse.h"
#include "fuzz.h"
#include "sysfs_pcie_parse.h"

/* "16.0 GT/s" -> "16000000000": the speed's digits without the dot, padded. */
static void check_speed(const char *s, size_t size)
{
	const char *t = s;
	size_t tlen = size, whole = 0, frac = 0;
	char want[64], got[32];
	uint64_t v;
	int r = sysfs_parse_pcie_speed(s, size, &v);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r != 0)
		return;
	str_trim(&t, &tlen);
	if (v == 0 && tlen >= 7 && memcmp(t, "Unknown", 7) == 0)
		return;
	while (whole < tlen && t[whole] >= '0' && t[whole] <= '9')
		whole++;
	if (whole < tlen && t[whole] == '.')
		while (whole + 1 + frac < tlen && t[whole + 1 + frac] >= '0' &&
		       t[whole + 1 + frac] <= '9')
			frac++;
	FUZZ_CHECK(whole > 0 && whole < 24 && frac <= SYSFS_PCIE_SPEED_MAX_FRAC);
	snprintf(want, sizeof(want), "%.*s%.*s%.*s", (int)whole, t, (int)frac, t + whole + 1,
		 (int)(SYSFS_PCIE_SPEED_MAX_FRAC - frac), "000000000");
	snprintf(got, sizeof(got), "%" PRIu64, v);
	/* leading zeros of the input ("08.0") do not print */
	{
		const char *w = want;

		while (w[0] == '0' && w[1])
			w++;
		FUZZ_CHECK(strcmp(w, got) == 0);
	}
}

static void check_width(const char *s, size_t size)
{
	const char *t = s;
	size_t tlen = size;
	uint64_t v, w;

	if (sysfs_parse_pcie_width(s, size, &v) != 0)
		return;
	str_trim(&t, &tlen);
	if (tlen && (t[0] == 'x' || t[0] == 'X')) {
		t++;
		tlen--;
	}
	FUZZ_CHECK(parse_u64_dec(t, tlen, &w) == 0 && w == v);
}

static void check_aer(const char *s, size_t size)
{
	struct sysfs_aer_entry e[SYSFS_AER_MAX_TYPES];
	const char *nl;
	size_t n, m;

	if (sysfs_parse_aer(s, size, e, SYSFS_AER_MAX_TYPES, &n) != 0)
		return;
	nl = size ? memrchr(s, '\n', size - 1) : NULL;
	if (!nl)
		return;
	FUZZ_CHECK(sysfs_parse_aer(s, (size_t)(nl - s) + 1, e, SYSFS_AER_MAX_TYPES, &m) == 0);
	FUZZ_CHECK(m <= n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;

	FUZZ_CHECK(sysfs_pcie_fuzz_one(data, size) == 0);
	check_speed(s, size);
	check_width(s, size);
	check_aer(s, size);
	return 0;
}
