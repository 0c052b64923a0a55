// SPDX-License-Identifier: Apache-2.0
/*
 * The PCIe side of the sysfs collector (sysfs_pcie_scan.c, and its samples
 * in sysfs_walk.c) run end to end on the pcie fixture (sysfs_run.h): link
 * speed and width of the device and the bridges above it, AER errors, a VF
 * left out, and files that change, break or vanish between polls.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "sysfs.h"
#include "rdmanl/sysfs_names.h"
#include "sysfs_run.h"

/* PCIe: a Gen5 x16 device trained at Gen4 x8 behind a switch, a Gen4 x16 one
 * with AER errors and counters at their widths' maxima, a VF left out. */
static void test_pcie(void **state)
{
	struct run r;

	run_once(&r, "pcie", NULL, NULL);
	assert_int_equal(r.stats.devices, 3);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(
		r.text,
		"rdma_device_pcie_link_speed_transfers_per_second{device=\"mlx5_0\"} 16000000000");
	assert_line(r.text,
		    "rdma_device_pcie_link_max_speed_transfers_per_second{device=\"mlx5_0\"} "
		    "32000000000");
	assert_line(r.text, "rdma_device_pcie_link_width{device=\"mlx5_0\"} 8");
	assert_line(r.text, "rdma_device_pcie_link_max_width{device=\"mlx5_0\"} 16");
	/* behind a switch: the maxima of its downstream port (the other end of its
	 * own link, whose current figures are the device's) and the switch's
	 * upstream link */
	assert_null(strstr(r.text, "rdma_device_pcie_upstream_link_width{device=\"mlx5_0\",bridge="
				   "\"parent\"}"));
	assert_line(
		r.text,
		"rdma_device_pcie_upstream_link_max_width{device=\"mlx5_0\",bridge=\"parent\"} 16");
	assert_line(r.text, "rdma_device_pcie_upstream_link_max_speed_transfers_per_second{device="
			    "\"mlx5_0\",bridge=\"parent\"} 32000000000");
	assert_line(r.text, "rdma_device_pcie_upstream_link_speed_transfers_per_second{device="
			    "\"mlx5_0\",bridge=\"switch_upstream\"} 32000000000");
	assert_line(r.text, "rdma_device_pcie_upstream_link_width{device=\"mlx5_0\",bridge="
			    "\"switch_upstream\"} 16");
	/* on a root port: no switch upstream port */
	assert_line(r.text, "rdma_device_pcie_upstream_link_max_speed_transfers_per_second{device="
			    "\"mlx5_1\",bridge=\"parent\"} 16000000000");
	assert_null(strstr(r.text, "device=\"mlx5_1\",bridge=\"switch_upstream\""));
	/* AER: each type with its severity, no TOTAL line */
	assert_line(r.text,
		    "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"correctable\","
		    "type=\"RxErr\"} 12");
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"nonfatal\","
			    "type=\"CmpltTO\"} 2");
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"fatal\","
			    "type=\"DLP\"} 1");
	/* a type appears from its first error on: 6 of mlx5_1's 44, none of mlx5_0's */
	assert_int_equal(count_lines(r.text, "rdma_device_pcie_errors_total{", "device=\"mlx5_1\""),
			 6);
	assert_null(strstr(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_0\""));
	assert_null(strstr(r.text, "TOTAL_"));
	/* the VF (device/physfn) has no PCIe series */
	assert_null(strstr(r.text, "rdma_device_pcie_link_width{device=\"mlx5_2\""));
	assert_null(strstr(r.text, "device=\"mlx5_2\",severity="));

	/* saturated at 8, 16, 32 and 4 bits; no series at max - 1 */
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"link_downed\"} 1");
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"port_xmit_discards\"} 1");
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"port_xmit_wait\"} 1");
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"local_link_integrity_errors\"} 1");
	assert_null(strstr(r.text, "counter=\"excessive_buffer_overrun_errors\""));
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"port_rcv_data\"} 1");
	assert_null(strstr(r.text, "counter=\"port_xmit_data\""));
	assert_int_equal(count_lines(r.text, "rdma_port_statistic_saturated{", "device=\"mlx5_1\""),
			 8);
	/* mlx5_0 has PortCountersExtended: its port_rcv_packets at 2^32 - 1 is a
	 * 64 bit value on its way up */
	assert_null(strstr(r.text, "rdma_port_statistic_saturated{device=\"mlx5_0\""));
	run_stop(&r);
}

/* PCIe files that change, break or vanish between polls. */
static void test_pcie_changes(void **state)
{
	const char *f0 = "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
	const char *f1 = "devices/pci0000:00/0000:00:02.0/0000:04:00.0";
	char tmp[64], path[256];
	struct run r;

	copy_fixture("pcie", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);

	/* retrained: the new speed and width show */
	snprintf(path, sizeof(path), "%s/current_link_speed", f0);
	write_file(tmp, path, "32.0 GT/s PCIe\n");
	snprintf(path, sizeof(path), "%s/current_link_width", f0);
	write_file(tmp, path, "16\n");
	/* link down */
	snprintf(path, sizeof(path), "%s/current_link_speed", f1);
	write_file(tmp, path, "Unknown\n");
	/* AER: a new count; a broken file costs one read error and its values */
	snprintf(path, sizeof(path), "%s/aer_dev_correctable", f0);
	write_file(tmp, path,
		   "RxErr 5\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\n"
		   "NonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 5\n");
	snprintf(path, sizeof(path), "%s/aer_dev_nonfatal", f1);
	write_file(tmp, path, "garbage\n");
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 1);
	assert_line(
		r.text,
		"rdma_device_pcie_link_speed_transfers_per_second{device=\"mlx5_0\"} 32000000000");
	assert_line(r.text, "rdma_device_pcie_link_width{device=\"mlx5_0\"} 16");
	assert_line(r.text,
		    "rdma_device_pcie_link_speed_transfers_per_second{device=\"mlx5_1\"} 0");
	assert_line(r.text,
		    "rdma_device_pcie_errors_total{device=\"mlx5_0\",severity=\"correctable\","
		    "type=\"RxErr\"} 5");
	assert_null(strstr(r.text, "device=\"mlx5_1\",severity=\"nonfatal\""));
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"fatal\","
			    "type=\"DLP\"} 1");

	/* a type the kernel stops listing has no value; the others stay */
	write_file(tmp, path, "DLP 3\nTOTAL_ERR_NONFATAL 3\n");
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"nonfatal\","
			    "type=\"DLP\"} 3");
	assert_null(strstr(r.text, "device=\"mlx5_1\",severity=\"nonfatal\",type=\"CmpltTO\""));
	run_stop(&r);
	rm_rf(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_pcie_changes),
	};

	/* the tests provoke failures on purpose: keep the log quiet */
	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
