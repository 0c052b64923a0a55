// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the PCIe parsers (sysfs_pcie_parse.c: link speed and width, AER
 * files, on the kernel's formats and odd strings) and of the counter widths
 * of the name table (sysfs_counter_max, for rdma_port_statistic_saturated).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rdmanl/sysfs_names.h"
#include "sysfs_pcie_parse.h"

#define S(lit) (lit), (sizeof(lit) - 1)

static void test_speed_kernel_strings(void **state)
{
	/* pci_speed_string() of drivers/pci/probe.c, every PCIe generation */
	static const struct {
		const char *s;
		uint64_t v;
	} cases[] = {
		{"2.5 GT/s PCIe\n", 2500000000ull},
		{"5.0 GT/s PCIe\n", 5000000000ull},
		{"8.0 GT/s PCIe\n", 8000000000ull},
		{"16.0 GT/s PCIe\n", 16000000000ull},
		{"32.0 GT/s PCIe\n", 32000000000ull},
		{"64.0 GT/s PCIe\n", 64000000000ull},
		/* kernels before 4.19 */
		{"8 GT/s\n", 8000000000ull},
		{"2.5 GT/s\n", 2500000000ull},
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = 1;
		assert_int_equal(sysfs_parse_pcie_speed(cases[i].s, strlen(cases[i].s), &v), 0);
		assert_true(v == cases[i].v);
	}
}

static void test_speed_unknown(void **state)
{
	uint64_t v = 7;

	assert_int_equal(sysfs_parse_pcie_speed(S("Unknown\n"), &v), 0);
	assert_true(v == 0);
	v = 7;
	assert_int_equal(sysfs_parse_pcie_speed(S("Unknown speed\n"), &v), 0);
	assert_true(v == 0);
	v = 7;
	assert_int_equal(sysfs_parse_pcie_speed(S("Unknown"), &v), 0);
	assert_true(v == 0);
}

static void test_speed_bad(void **state)
{
	uint64_t v = 7;

	assert_int_equal(sysfs_parse_pcie_speed(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("16.0"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("16.0 Gb/s"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("16. GT/s"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S(".5 GT/s"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("16.0 GT/sPCIe"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("-8.0 GT/s"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("Unknownx"), &v), -EINVAL);
	/* conventional PCI and PCI-X speeds of pci_speed_string(): not a PCIe link */
	assert_int_equal(sysfs_parse_pcie_speed(S("66 MHz PCI-X\n"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("1.0123456789 GT/s"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_speed(S("18446744073709551615 GT/s"), &v), -ERANGE);
	assert_int_equal(sysfs_parse_pcie_speed(S("99999999999999999999 GT/s"), &v), -ERANGE);
	assert_true(v == 7);
	/* only len bytes count */
	assert_int_equal(sysfs_parse_pcie_speed("8.0 GT/s PCIe", 4, &v), -EINVAL);
}

static void test_width(void **state)
{
	uint64_t v = 7;

	assert_int_equal(sysfs_parse_pcie_width(S("16\n"), &v), 0);
	assert_true(v == 16);
	assert_int_equal(sysfs_parse_pcie_width(S("0\n"), &v), 0);
	assert_true(v == 0);
	assert_int_equal(sysfs_parse_pcie_width(S("x8"), &v), 0);
	assert_true(v == 8);
	v = 7;
	assert_int_equal(sysfs_parse_pcie_width(S(""), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_width(S("x"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_width(S("16 lanes"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_width(S("-1"), &v), -EINVAL);
	assert_int_equal(sysfs_parse_pcie_width(S("99999999999999999999"), &v), -ERANGE);
	assert_true(v == 7);
}

/* aer_dev_correctable as drivers/pci/pcie/aer.c prints it (6.1). */
static const char aer_cor[] = "RxErr 12\n"
			      "BadTLP 3\n"
			      "BadDLLP 1\n"
			      "Rollover 0\n"
			      "Timeout 1\n"
			      "NonFatalErr 0\n"
			      "CorrIntErr 0\n"
			      "HeaderOF 0\n"
			      "TOTAL_ERR_COR 17\n";

static void test_aer_correctable(void **state)
{
	struct sysfs_aer_entry e[SYSFS_AER_MAX_TYPES];
	size_t n = 99;

	assert_int_equal(sysfs_parse_aer(S(aer_cor), e, SYSFS_AER_MAX_TYPES, &n), 0);
	assert_int_equal(n, 8); /* TOTAL_ERR_COR left out */
	assert_int_equal(e[0].name_len, 5);
	assert_memory_equal(e[0].name, "RxErr", 5);
	assert_true(e[0].count == 12);
	assert_memory_equal(e[1].name, "BadTLP", 6);
	assert_true(e[1].count == 3);
	assert_memory_equal(e[7].name, "HeaderOF", 8);
	assert_true(e[7].count == 0);
	/* spans point into the input */
	assert_ptr_equal(e[0].name, aer_cor);
	assert_ptr_equal(sysfs_aer_find(e, n, 0, "Timeout", 7), &e[4]);
	assert_ptr_equal(sysfs_aer_find(e, n, 6, "RxErr", 5), &e[0]);
	assert_null(sysfs_aer_find(e, n, 0, "TOTAL_ERR_COR", 13));
	assert_null(sysfs_aer_find(e, n, 0, "RxEr", 4));
	assert_null(sysfs_aer_find(e, 0, 0, "RxErr", 5));
}

static void test_aer_fatal_and_odd(void **state)
{
	static const char fatal[] = "Undefined 0\nDLP 1\nSDES 0\nCmpltTO 18446744073709551615\n"
				    "TOTAL_ERR_FATAL 2";
	struct sysfs_aer_entry e[SYSFS_AER_MAX_TYPES];
	size_t n = 99;

	assert_int_equal(sysfs_parse_aer(S(fatal), e, SYSFS_AER_MAX_TYPES, &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(e[3].name, "CmpltTO", 7);
	assert_true(e[3].count == UINT64_MAX);
	/* empty file, blank lines, blanks around */
	assert_int_equal(sysfs_parse_aer(S(""), e, SYSFS_AER_MAX_TYPES, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(sysfs_parse_aer(S("\n  RxErr\t4  \n\n"), e, SYSFS_AER_MAX_TYPES, &n), 0);
	assert_int_equal(n, 1);
	assert_true(e[0].count == 4);
	/* only TOTAL */
	assert_int_equal(sysfs_parse_aer(S("TOTAL_ERR_NONFATAL 0\n"), e, 1, &n), 0);
	assert_int_equal(n, 0);
}

static void test_aer_bad(void **state)
{
	struct sysfs_aer_entry e[2];
	size_t n = 99;

	assert_int_equal(sysfs_parse_aer(S("RxErr\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("RxErr x\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("RxErr -1\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("RxErr 1 2\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("Rx Err 1\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("Rx/Err 1\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("7\n"), e, 2, &n), -EINVAL);
	assert_int_equal(sysfs_parse_aer(S("RxErr 18446744073709551616\n"), e, 2, &n), -ERANGE);
	assert_int_equal(sysfs_parse_aer(S("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA 1\n"), e, 2, &n),
			 -EINVAL); /* a name over SYSFS_AER_NAME_MAX */
	/* more lines than room */
	assert_int_equal(sysfs_parse_aer(S("A 1\nB 2\nC 3\n"), e, 2, &n), -E2BIG);
	assert_int_equal(n, 0);
}

static void test_counter_widths(void **state)
{
	static const struct {
		const char *file;
		uint64_t max;
	} pma[] = {
		{"symbol_error", 65535},
		{"link_error_recovery", 255},
		{"link_downed", 255},
		{"port_rcv_errors", 65535},
		{"port_rcv_remote_physical_errors", 65535},
		{"port_rcv_switch_relay_errors", 65535},
		{"port_xmit_discards", 65535},
		{"port_xmit_constraint_errors", 255},
		{"port_rcv_constraint_errors", 255},
		{"local_link_integrity_errors", 15},
		{"excessive_buffer_overrun_errors", 15},
		{"VL15_dropped", 65535},
		{"port_xmit_wait", 4294967295ull},
	};
	static const char *const ext[] = {"port_rcv_data", "port_xmit_data", "port_rcv_packets",
					  "port_xmit_packets"};
	static const char *const wide[] = {"unicast_rcv_packets", "unicast_xmit_packets",
					   "multicast_rcv_packets", "multicast_xmit_packets",
					   "port_rcv_discards"};

	for (size_t i = 0; i < sizeof(pma) / sizeof(pma[0]); i++) {
		const struct sysfs_counter_name *n =
			sysfs_counter_lookup(pma[i].file, SYSFS_SRC_COUNTERS);

		assert_non_null(n);
		/* the same with or without PortCountersExtended */
		assert_true(sysfs_counter_max(n, SYSFS_SRC_COUNTERS, false) == pma[i].max);
		assert_true(sysfs_counter_max(n, SYSFS_SRC_COUNTERS, true) == pma[i].max);
	}
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		const struct sysfs_counter_name *n =
			sysfs_counter_lookup(ext[i], SYSFS_SRC_COUNTERS);

		assert_non_null(n);
		assert_true(sysfs_counter_max(n, SYSFS_SRC_COUNTERS, false) == 4294967295ull);
		assert_true(sysfs_counter_max(n, SYSFS_SRC_COUNTERS, true) == 0);
	}
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		assert_true(sysfs_counter_max(sysfs_counter_lookup(wide[i], SYSFS_SRC_COUNTERS),
					      SYSFS_SRC_COUNTERS, false) == 0);
	/* 64 bit sources never saturate: counters_ext, hw_counters (rxe link_downed) */
	assert_true(
		sysfs_counter_max(sysfs_counter_lookup("port_rcv_data_64", SYSFS_SRC_COUNTERS_EXT),
				  SYSFS_SRC_COUNTERS_EXT, false) == 0);
	assert_true(sysfs_counter_max(sysfs_counter_lookup("link_downed", SYSFS_SRC_HW_COUNTERS),
				      SYSFS_SRC_HW_COUNTERS, false) == 0);
	assert_true(sysfs_counter_max(NULL, SYSFS_SRC_COUNTERS, false) == 0);
	/* every table entry with a width is a counters/ one, below 64 bits */
	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		const struct sysfs_counter_name *n = &sysfs_counter_names[i];

		if (!n->bits)
			continue;
		assert_true(n->sources == SYSFS_SRC_COUNTERS);
		assert_true(n->bits < 64);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_kernel_strings),
		cmocka_unit_test(test_speed_unknown),
		cmocka_unit_test(test_speed_bad),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_aer_correctable),
		cmocka_unit_test(test_aer_fatal_and_odd),
		cmocka_unit_test(test_aer_bad),
		cmocka_unit_test(test_counter_widths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
