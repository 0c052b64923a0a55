// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the module EEPROM decoder (module_eeprom.c). The first
 * byte says which further pages are present (bit i: enum module_page i); the
 * lower page and then each present page take the next 128 bytes of the input
 * (zeros where the input runs out).
 *
 * Invariants: the result is 0 or -ENODATA, and -ENODATA exactly when no module
 * is present; the pages wanted come from the lower page alone and only for a
 * present module; lanes within MODULE_MAX_LANES and no reading beyond them;
 * every reading finite; strings NUL-terminated printable ASCII; identifier and
 * media static names.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "module_eeprom.h"

static void check_str(const char *s)
{
	size_t n = strnlen(s, MODULE_STR_LEN);

	FUZZ_CHECK(n < MODULE_STR_LEN);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(s[i] >= 0x20 && s[i] < 0x7f);
}

static void check_value(const struct module_value *v)
{
	FUZZ_CHECK(!v->have || isfinite(v->v));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t pages[1 + MODULE_PG_COUNT][MODULE_PAGE_LEN];
	struct module_pages p = {0};
	struct module_info m;
	unsigned mask, wanted;
	size_t off = 1;
	int r;

	if (size < 1)
		return 0;
	mask = data[0];
	memset(pages, 0, sizeof(pages));
	for (int i = 0; i <= MODULE_PG_COUNT; i++) {
		if (i > 0 && !(mask & 1u << (i - 1)))
			continue;
		if (off < size) {
			size_t n = size - off < MODULE_PAGE_LEN ? size - off : MODULE_PAGE_LEN;

			memcpy(pages[i], data + off, n);
			off += n;
		}
		if (i == 0)
			p.lower = pages[0];
		else
			p.page[i - 1] = pages[i];
	}

	wanted = module_pages_wanted(p.lower);
	FUZZ_CHECK(wanted < 1u << MODULE_PG_COUNT);
	FUZZ_CHECK(module_present(p.lower) || wanted == 0);
	r = module_parse(&p, &m);
	FUZZ_CHECK(r == 0 || r == -ENODATA);
	FUZZ_CHECK((r == -ENODATA) == !module_present(p.lower));
	if (r < 0)
		return 0;
	FUZZ_CHECK(m.id == p.lower[0]);
	FUZZ_CHECK(m.identifier && m.media);
	FUZZ_CHECK(!strcmp(m.media, "optical") || !strcmp(m.media, "copper") ||
		   !strcmp(m.media, "unknown"));
	check_str(m.vendor);
	check_str(m.part_number);
	check_str(m.serial);
	check_str(m.revision);
	check_value(&m.temperature);
	check_value(&m.voltage);
	FUZZ_CHECK(m.n_lanes <= MODULE_MAX_LANES);
	for (unsigned i = 0; i < MODULE_MAX_LANES; i++) {
		check_value(&m.rx_power[i]);
		check_value(&m.tx_power[i]);
		check_value(&m.tx_bias[i]);
		if (i >= m.n_lanes)
			FUZZ_CHECK(!m.rx_power[i].have && !m.tx_power[i].have &&
				   !m.tx_bias[i].have);
	}
	for (int q = 0; q < MODULE_Q_COUNT; q++)
		for (int l = 0; l < MODULE_L_COUNT; l++)
			check_value(&m.threshold[q][l]);
	return 0;
}
