// SPDX-License-Identifier: Apache-2.0
/*
 * module_read.c: which pages are read for each standard and in what order,
 * what each answer to the lower page means (no module access, an empty cage,
 * a real failure), later pages that cannot be read, and where each page lies
 * in the flat image of the ETHTOOL_GMODULEEEPROM ioctl fallback.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <linux/ethtool.h>

#include "module_fake.h"
#include "module_read.h"

static void test_reads_qsfp28(void **unused)
{
	struct fake_module m;
	struct module_info info;
	unsigned failed = 99;

	(void)unused;
	fm_qsfp28(&m);
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(failed, 0);
	/* lower page, upper page 00h, page 03h: nothing else */
	assert_int_equal(m.n_reads, 3);
	assert_int_equal(fm_page_index(&m.reads[0]), -1);
	assert_int_equal(fm_page_index(&m.reads[1]), MODULE_PG_UPPER00);
	assert_int_equal(fm_page_index(&m.reads[2]), MODULE_PG_03);
	assert_string_equal(info.vendor, "Mellanox");
	assert_true(info.temperature.have);
	assert_true(info.temperature.v == 40.0);
	assert_true(info.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].have);

	/* flat memory: no page 03h asked for */
	fm_qsfp28(&m);
	fm_put8(m.lower, 2, 0x04);
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(m.n_reads, 2);
}

static void test_reads_sfp_and_cmis(void **unused)
{
	struct fake_module m;
	struct module_info info;
	unsigned failed;

	(void)unused;
	memset(&m, 0, sizeof(m));
	fm_put8(m.lower, 0, 0x03);
	fm_put8(m.lower, 92, 0x60);
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(m.n_reads, 2);
	assert_int_equal(fm_page_index(&m.reads[1]), MODULE_PG_A2);
	assert_int_equal(m.reads[1].i2c, 0x51);

	memset(&m, 0, sizeof(m));
	fm_put8(m.lower, 0, 0x18);
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(m.n_reads, 5);
	assert_int_equal(fm_page_index(&m.reads[1]), MODULE_PG_UPPER00);
	assert_int_equal(fm_page_index(&m.reads[2]), MODULE_PG_01);
	assert_int_equal(fm_page_index(&m.reads[3]), MODULE_PG_02);
	assert_int_equal(fm_page_index(&m.reads[4]), MODULE_PG_11);
	assert_int_equal(m.reads[4].page, 0x11);
	assert_int_equal(m.reads[4].bank, 0);
	assert_int_equal(m.reads[4].offset, 128);
}

static void test_lower_page_errors(void **unused)
{
	static const struct {
		int err, want;
	} cases[] = {
		{-EOPNOTSUPP, -EOPNOTSUPP}, {-ENODEV, -ENODATA},    {-ENXIO, -ENODATA},
		{-EIO, -ENODATA},	    {-EREMOTEIO, -ENODATA}, {-EINVAL, -ENODATA},
		{-ENODATA, -ENODATA},	    {-EAGAIN, -ENODATA},    {-EBUSY, -ENODATA},
		{-ETIMEDOUT, -ETIMEDOUT},   {-EBADMSG, -EBADMSG},   {-ENOBUFS, -ENOBUFS},
		{-EPERM, -EPERM},	    {-EACCES, -EPERM},	    {-EMSGSIZE, -EMSGSIZE},
	};
	struct fake_module m;
	struct module_info info;
	unsigned failed;

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fm_qsfp28(&m);
		m.lower_err = cases[i].err;
		assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed),
				 cases[i].want);
		/* nothing beyond the lower page is asked of an empty or failing cage */
		assert_int_equal(m.n_reads, 1);
		assert_int_equal(failed, 0);
	}
	/* an empty identifier (an unprogrammed or absent EEPROM answering zeros) */
	memset(&m, 0, sizeof(m));
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), -ENODATA);
	assert_int_equal(m.n_reads, 1);
	memset(m.lower, 0xff, sizeof(m.lower));
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), -ENODATA);
}

static void test_later_page_errors(void **unused)
{
	struct fake_module m;
	struct module_info info;
	unsigned failed;

	(void)unused;
	/* the driver's image ends before page 03h: not a failure, no thresholds */
	fm_qsfp28(&m);
	m.page_err[MODULE_PG_03] = -EINVAL;
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(failed, 0);
	assert_false(info.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].have);
	assert_true(info.temperature.have);
	m.page_err[MODULE_PG_03] = -EOPNOTSUPP;
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(failed, 0);
	/* a real failure on a page: counted, the rest decoded */
	m.page_err[MODULE_PG_03] = -EIO;
	m.page_err[MODULE_PG_UPPER00] = -ETIMEDOUT;
	assert_int_equal(module_read(fm_read_page, &m, "eth0", &info, &failed), 0);
	assert_int_equal(failed, 2);
	assert_string_equal(info.vendor, "");
	assert_string_equal(info.identifier, "QSFP28");
}

static void test_flat_offsets(void **unused)
{
	static const struct {
		uint32_t type, len;
		int pg;	  /* -1: lower page */
		int want; /* offset, or -1: not in the image */
	} cases[] = {
		{ETH_MODULE_SFF_8079, 256, -1, 0},
		{ETH_MODULE_SFF_8079, 256, MODULE_PG_A2, -1},
		{ETH_MODULE_SFF_8472, 512, -1, 0},
		{ETH_MODULE_SFF_8472, 512, MODULE_PG_UPPER00, 128},
		{ETH_MODULE_SFF_8472, 512, MODULE_PG_A2, 256},
		{ETH_MODULE_SFF_8472, 512, MODULE_PG_03, -1},
		{ETH_MODULE_SFF_8636, 256, -1, 0},
		{ETH_MODULE_SFF_8636, 256, MODULE_PG_UPPER00, 128},
		{ETH_MODULE_SFF_8636, 256, MODULE_PG_03, -1},
		{ETH_MODULE_SFF_8636, 640, MODULE_PG_01, 256},
		{ETH_MODULE_SFF_8636, 640, MODULE_PG_02, 384},
		{ETH_MODULE_SFF_8636, 640, MODULE_PG_03, 512},
		{ETH_MODULE_SFF_8636, 640, MODULE_PG_11, -1},
		{ETH_MODULE_SFF_8636, 640, MODULE_PG_A2, -1},
		{ETH_MODULE_SFF_8436, 256, MODULE_PG_UPPER00, 128},
		{0x99, 4096, -1, -1},
	};
	static const struct module_page_addr lower = {0x50, 0, 0, 0};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct module_page_addr *a =
			cases[i].pg < 0 ? &lower : &module_page_addrs[cases[i].pg];
		uint32_t off = 12345;
		int r = module_flat_offset(cases[i].type, cases[i].len, a, &off);

		if (cases[i].want < 0) {
			assert_int_equal(r, -EOPNOTSUPP);
			assert_int_equal(off, 12345);
		} else {
			assert_int_equal(r, 0);
			assert_int_equal(off, (uint32_t)cases[i].want);
		}
	}
	/* a bank other than 0 never is */
	{
		struct module_page_addr b = module_page_addrs[MODULE_PG_UPPER00];
		uint32_t off;

		b.bank = 1;
		assert_int_equal(module_flat_offset(ETH_MODULE_SFF_8636, 640, &b, &off),
				 -EOPNOTSUPP);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_qsfp28),	  cmocka_unit_test(test_reads_sfp_and_cmis),
		cmocka_unit_test(test_lower_page_errors), cmocka_unit_test(test_later_page_errors),
		cmocka_unit_test(test_flat_offsets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
