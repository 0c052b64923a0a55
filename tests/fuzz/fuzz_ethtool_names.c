// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the ethtool statistic name tables (ethtool_names.c). The
 * first byte picks the driver (mlx5_core, ice, bnxt_en, i40e, or one without a
 * table); the rest, up to a NUL, is the statistic name the driver reports.
 *
 * Invariants: a known name maps to a real family with a valid metric name and
 * HELP, to a priority 0..7 exactly when the family has the priority label (and
 * that digit is in the name), to a direction exactly when the family has the
 * direction label, to a reason or level exactly when the family has that label,
 * and to a positive finite scale; a driver without a table maps nothing.
 */
#include <math.h>
#include <string.h>

#include "ethtool_names.h"
#include "exposition/metrics.h"
#include "fuzz.h"

static const char *const drivers[] = {"mlx5_core", "ice", "bnxt_en", "i40e", "veth"};
#define N_DRIVERS (sizeof(drivers) / sizeof(drivers[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *driver;
	struct eth_stat_map m;
	const char *extra;
	char *name;

	if (size < 1)
		return 0;
	driver = drivers[data[0] % N_DRIVERS];
	name = fuzz_strdup(data + 1, size - 1);
	if (!name)
		return 0;
	FUZZ_CHECK(eth_driver_known(driver) == (data[0] % N_DRIVERS < N_DRIVERS - 1));
	FUZZ_CHECK(!eth_driver_known(name) || strcmp(name, driver) == 0 ||
		   strcmp(name, "mlx5_core") == 0 || strcmp(name, "ice") == 0 ||
		   strcmp(name, "bnxt_en") == 0 || strcmp(name, "i40e") == 0);
	if (!eth_stat_lookup(driver, name, &m)) {
		free(name);
		return 0;
	}
	FUZZ_CHECK(eth_driver_known(driver));
	FUZZ_CHECK(m.family > ETH_FAM_NONE && m.family < ETH_FAM_COUNT);
	FUZZ_CHECK(metric_name_valid(eth_family_name(m.family)));
	FUZZ_CHECK(eth_family_help(m.family) && eth_family_help(m.family)[0]);
	if (eth_family_has_priority(m.family)) {
		FUZZ_CHECK(m.priority >= 0 && m.priority <= 7);
		FUZZ_CHECK(strchr(name, '0' + m.priority));
	} else {
		FUZZ_CHECK(m.priority == -1);
	}
	if (eth_family_has_direction(m.family))
		FUZZ_CHECK(m.direction == ETH_DIR_RX || m.direction == ETH_DIR_TX);
	else
		FUZZ_CHECK(m.direction == ETH_DIR_NONE);
	extra = eth_family_extra_label(m.family);
	FUZZ_CHECK(extra ? m.label && m.label[0] : !m.label);
	FUZZ_CHECK(!extra || metric_label_name_valid(extra));
	FUZZ_CHECK(isfinite(m.scale) && m.scale > 0);
	/* the same answer without an output, and none for a driver without a table */
	FUZZ_CHECK(eth_stat_lookup(driver, name, NULL));
	FUZZ_CHECK(!eth_stat_lookup("veth", name, NULL));
	free(name);
	return 0;
}
