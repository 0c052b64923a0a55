// SPDX-License-Identifier: Apache-2.0
/* The evaluator's checks of the hardware beyond the ports (check_hw.c): PCIe, modules, devlink. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"
#include "eval_harness.h"

#define MODULE_THRESHOLDS(nd, q, la, lw, hw, ha)                                                   \
	"rdma_netdev_module_threshold{netdev=\"" nd "\",quantity=\"" q                             \
	"\",level=\"low_alarm\"} " #la "\n"                                                        \
	"rdma_netdev_module_threshold{netdev=\"" nd "\",quantity=\"" q                             \
	"\",level=\"low_warning\"} " #lw "\n"                                                      \
	"rdma_netdev_module_threshold{netdev=\"" nd "\",quantity=\"" q                             \
	"\",level=\"high_warning\"} " #hw "\n"                                                     \
	"rdma_netdev_module_threshold{netdev=\"" nd "\",quantity=\"" q                             \
	"\",level=\"high_alarm\"} " #ha "\n"

/* An optical module on eth0 (thresholds as an SFF-8636 QSFP28 declares
 * them), its readings given by the arguments; a passive copper cable on eth1
 * (no diagnostics). */
#define MODULES(temp, volts, rx1, rx2, tx1, bias1)                                                 \
	HEALTHY SUCCESS(                                                                           \
		"ethtool",                                                                         \
		1) "rdma_netdev_module_info{netdev=\"eth0\",media=\"optical\"} 1\n"                \
		   "rdma_netdev_module_info{netdev=\"eth1\",media=\"copper\"} 1\n"                 \
		   "rdma_netdev_module_temperature_celsius{netdev=\"eth0\"} " #temp "\n"           \
		   "rdma_netdev_module_supply_voltage_volts{netdev=\"eth0\"} " #volts "\n"         \
		   "rdma_netdev_module_lane_rx_power_watts{netdev=\"eth0\",lane=\"1\"} " #rx1 "\n" \
		   "rdma_netdev_module_lane_rx_power_watts{netdev=\"eth0\",lane=\"2\"} " #rx2 "\n" \
		   "rdma_netdev_module_lane_tx_power_watts{netdev=\"eth0\",lane=\"1\"} " #tx1 "\n" \
		   "rdma_netdev_module_lane_tx_bias_current_amperes{netdev=\"eth0\",lane=\"1\"}"   \
		   " " #bias1 "\n" MODULE_THRESHOLDS("eth0", "temperature_celsius", -5, 0, 70, 75) \
			   MODULE_THRESHOLDS("eth0", "supply_voltage_volts", 3.135, 3.2, 3.4,      \
					     3.465) MODULE_THRESHOLDS("eth0", "rx_power_watts",    \
								      0.0001, 0.0002, 0.002,       \
								      0.0025)                      \
				   MODULE_THRESHOLDS("eth0", "tx_power_watts", 0.0001, 0.0002,     \
						     0.002, 0.0025)                                \
					   MODULE_THRESHOLDS("eth0", "tx_bias_current_amperes", 0, \
							     0.002, 0.009, 0.010)

#define DEVLINK(fw_fatal_state)                                                                    \
	"rdma_devlink_health_errors_total{device=\"mlx5_0\",reporter=\"fw\"} 0\n"                  \
	"rdma_devlink_health_errors_total{device=\"mlx5_0\",reporter=\"fw_fatal\"} 3\n"            \
	"rdma_devlink_health_state{device=\"mlx5_0\",reporter=\"fw\"} 0\n"                         \
	"rdma_devlink_health_state{device=\"mlx5_0\",reporter=\"fw_fatal\"} " #fw_fatal_state "\n" \
	"rdma_devlink_health_state{device=\"mlx5_1\",reporter=\"fw\"} 0\n"

static void test_eval_devlink(void **state)
{
	const char *ok = HEALTHY SUCCESS("devlink", 1) DEVLINK(0);
	const char *bad = HEALTHY SUCCESS("devlink", 1) DEVLINK(1);
	/* a kernel without devlink: the collector fails, nothing is judged */
	const char *none = HEALTHY SUCCESS("devlink", 0);
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, ok, ok), CHECK_OK);
	has_line(&e, "OK      devlink node: 3 devlink health reporters healthy\n");
	done(&e);

	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, bad, bad), CHECK_FAIL);
	has_line(&e,
		 "FAIL    devlink mlx5_0: devlink health reporter fw_fatal in error (3 errors)\n");
	assert_null(strstr(e.text.data, "reporters healthy"));
	done(&e);

	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, none, none), CHECK_OK);
	assert_null(strstr(e.text.data, "devlink"));
	done(&e);

	/* --no-check.devlink */
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	e.cfg.devlink = false;
	assert_int_equal(run(&e, bad, bad), CHECK_OK);
	assert_null(strstr(e.text.data, "devlink"));
	done(&e);
}

static void test_eval_modules(void **state)
{
	const char *ok = MODULES(47.5, 3.29, 0.0008, 0.0008, 0.0009, 0.006);
	const char *warm = MODULES(72, 3.29, 0.0008, 0.00015, 0.0009, 0.006);
	const char *bad = MODULES(80, 3.5, 0.0008, 0.00005, 0.003, 0.012);
	/* a module that declares no thresholds (all 0): not judged against them */
	const char *none = HEALTHY SUCCESS(
		"ethtool",
		1) "rdma_netdev_module_info{netdev=\"eth0\",media=\"optical\"} 1\n"
		   "rdma_netdev_module_temperature_celsius{netdev=\"eth0\"} 90\n" MODULE_THRESHOLDS(
			   "eth0", "temperature_celsius", 0, 0, 0, 0);
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, ok, ok), CHECK_OK);
	has_line(&e, "OK      modules eth0: module within its thresholds (6 readings)\n");
	assert_null(strstr(e.text.data, "modules eth1"));
	done(&e);

	/* beyond warning thresholds only: OK, naming the first */
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, warm, warm), CHECK_OK);
	has_line(&e, "OK      modules eth0: module within its alarm thresholds; 2 beyond a "
		     "warning threshold: temperature 72 C, above its high warning threshold 70 "
		     "C\n");
	done(&e);

	/* beyond alarm thresholds: one FAIL line each, with netdev, lane, value
	 * and threshold */
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, bad, bad), CHECK_FAIL);
	has_line(&e, "FAIL    modules eth0: module temperature 80 C, above its high alarm "
		     "threshold 75 C\n");
	has_line(&e, "FAIL    modules eth0: module supply voltage 3.5 V, above its high alarm "
		     "threshold 3.465 V\n");
	has_line(&e, "FAIL    modules eth0: module rx power lane 2 0.05 mW, below its low alarm "
		     "threshold 0.1 mW\n");
	has_line(&e, "FAIL    modules eth0: module tx power lane 1 3 mW, above its high alarm "
		     "threshold 2.5 mW\n");
	has_line(&e, "FAIL    modules eth0: module tx bias lane 1 12 mA, above its high alarm "
		     "threshold 10 mA\n");
	assert_null(strstr(e.text.data, "rx power lane 1"));
	done(&e);

	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, none, none), CHECK_OK);
	has_line(&e, "OK      modules eth0: module within its thresholds (1 readings)\n");
	done(&e);

	/* --no-check.modules */
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	e.cfg.modules = false;
	assert_int_equal(run(&e, bad, bad), CHECK_OK);
	assert_null(strstr(e.text.data, "modules"));
	done(&e);
}

#define PCIE(dev, speed, max_speed, width, max_width)                                              \
	"rdma_device_pcie_link_speed_transfers_per_second{device=\"" dev "\"} " #speed "\n"        \
	"rdma_device_pcie_link_max_speed_transfers_per_second{device=\"" dev "\"} " #max_speed     \
	"\n"                                                                                       \
	"rdma_device_pcie_link_width{device=\"" dev "\"} " #width "\n"                             \
	"rdma_device_pcie_link_max_width{device=\"" dev "\"} " #max_width "\n"

/* mlx5_0 a Gen5 x16 device trained at Gen4 x8, mlx5_1 at its Gen4 x16 max. */
#define PCIE_DEGRADED                                                                              \
	HEALTHY PCIE("mlx5_0", 16000000000, 32000000000, 8, 16)                                    \
		PCIE("mlx5_1", 16000000000, 16000000000, 16, 16)

static void test_eval_pcie_default(void **state)
{
	const char *x4 = HEALTHY PCIE("mlx5_0", 32000000000, 32000000000, 4, 16)
		PCIE("mlx5_1", 8000000000, 16000000000, 16, 16);
	const char *down = HEALTHY PCIE("mlx5_0", 0, 32000000000, 0, 16);
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, PCIE_DEGRADED, PCIE_DEGRADED), CHECK_FAIL);
	has_line(&e, "FAIL    pcie mlx5_0: PCIe link 16 GT/s x8, below the device max 32 GT/s "
		     "x16\n");
	has_line(&e, "OK      pcie mlx5_1: PCIe 16 GT/s x16 (device max 16 GT/s x16)\n");
	assert_memory_equal(e.text.data, "FAIL: 1 of 4 failed; pcie mlx5_0: PCIe link", 43);
	done(&e);

	/* width alone, speed alone, link down */
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, x4, x4), CHECK_FAIL);
	has_line(&e, "FAIL    pcie mlx5_0: PCIe link 32 GT/s x4, below the device max 32 GT/s "
		     "x16\n");
	has_line(&e, "FAIL    pcie mlx5_1: PCIe link 8 GT/s x16, below the device max 16 GT/s "
		     "x16\n");
	done(&e);
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, down, down), CHECK_FAIL);
	has_line(&e, "FAIL    pcie mlx5_0: PCIe link 0 GT/s x0, below the device max 32 GT/s "
		     "x16\n");
	done(&e);

	/* --no-check.pcie; and no PCIe series at all: no pcie result */
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	e.cfg.pcie = false;
	assert_int_equal(run(&e, PCIE_DEGRADED, PCIE_DEGRADED), CHECK_OK);
	assert_null(strstr(e.text.data, "pcie"));
	done(&e);
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, HEALTHY, HEALTHY), CHECK_OK);
	assert_null(strstr(e.text.data, "pcie"));
	done(&e);
}

static void test_eval_pcie_expect(void **state)
{
	struct check_expect_pcie x;
	struct eval e = {0};
	char why[100];

	(void)state;
	/* relaxed: x8 is what mlx5_0's slot gives */
	assert_int_equal(check_expect_pcie_parse("mlx5_0@16x8", &x, why, sizeof(why)), 0);
	check_config_defaults(&e.cfg);
	e.cfg.expect_pcie = &x;
	assert_int_equal(run(&e, PCIE_DEGRADED, PCIE_DEGRADED), CHECK_OK);
	has_line(&e, "OK      pcie mlx5_0: PCIe 16 GT/s x8 (want at least 16 GT/s x8)\n");
	done(&e);
	check_expect_pcie_free(&x);

	/* tightened: mlx5_1 must run Gen5; a field left out keeps the default */
	assert_int_equal(check_expect_pcie_parse("mlx5_1@32 mlx5_0@x8", &x, why, sizeof(why)), 0);
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	e.cfg.expect_pcie = &x;
	assert_int_equal(run(&e, PCIE_DEGRADED, PCIE_DEGRADED), CHECK_FAIL);
	has_line(&e, "FAIL    pcie mlx5_1: PCIe link 16 GT/s x16, want at least 32 GT/s x16 "
		     "(--check.expect-pcie); device max 16 GT/s x16\n");
	has_line(&e, "FAIL    pcie mlx5_0: PCIe link 16 GT/s x8, want at least 32 GT/s x8 "
		     "(--check.expect-pcie); device max 32 GT/s x16\n");
	done(&e);
	check_expect_pcie_free(&x);

	/* any; an expected device without PCIe series, and one not there */
	assert_int_equal(
		check_expect_pcie_parse("mlx5_0@any mlx5_1@16 mlx5_9@16", &x, why, sizeof(why)), 0);
	memset(&e, 0, sizeof(e));
	check_config_defaults(&e.cfg);
	e.cfg.expect_pcie = &x;
	assert_int_equal(run(&e, HEALTHY PCIE("mlx5_0", 2500000000, 32000000000, 1, 16),
			     HEALTHY PCIE("mlx5_0", 2500000000, 32000000000, 1, 16)),
			 CHECK_FAIL);
	has_line(&e,
		 "OK      pcie mlx5_0: PCIe 2.5 GT/s x1, not judged (--check.expect-pcie any)\n");
	has_line(&e, "UNKNOWN pcie mlx5_1: no PCIe link attributes (a software device or a VF?)\n");
	has_line(&e, "FAIL    pcie mlx5_9: device mlx5_9 not found\n");
	done(&e);
	check_expect_pcie_free(&x);
}

/* A device whose reads block (rdma_device_responsive 0): its port states are
 * not in the reading (its rdma_port_info is); the device is a FAIL of its own,
 * named, its ports are not UNKNOWN besides, and with --check.expect they say
 * why they cannot be judged. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eval_pcie_default),
		cmocka_unit_test(test_eval_pcie_expect),
		cmocka_unit_test(test_eval_modules),
		cmocka_unit_test(test_eval_devlink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
