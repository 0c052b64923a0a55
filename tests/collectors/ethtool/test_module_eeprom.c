// SPDX-License-Identifier: Apache-2.0
/*
 * module_eeprom.c: one test per decoded field of each standard, on EEPROM pages
 * built here from the specifications' field tables (SFF-8472 A0h/A2h, SFF-8636
 * lower page / upper pages 00h and 03h, CMIS lower page / pages 00h, 01h, 02h,
 * 11h; offsets as the standards number them, 128-255 for upper pages), plus the
 * pages a module wants read, absent monitors, and random pages.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "module_eeprom.h"

/* Pages of one module under construction. */
struct eeprom {
	uint8_t lower[MODULE_PAGE_LEN];
	uint8_t page[MODULE_PG_COUNT][MODULE_PAGE_LEN];
	bool have[MODULE_PG_COUNT];
};

static void put8(uint8_t *page, unsigned off, uint8_t v)
{
	page[off & 0x7f] = v;
}

static void put16(uint8_t *page, unsigned off, uint16_t v)
{
	page[off & 0x7f] = (uint8_t)(v >> 8);
	page[(off + 1) & 0x7f] = (uint8_t)v;
}

static void put_str(uint8_t *page, unsigned off, unsigned len, const char *s)
{
	size_t n = strlen(s);

	for (unsigned i = 0; i < len; i++)
		put8(page, off + i, i < n ? (uint8_t)s[i] : ' ');
}

static void put_float(uint8_t *page, unsigned off, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	put16(page, off, (uint16_t)(u >> 16));
	put16(page, off + 2, (uint16_t)u);
}

static int parse(struct eeprom *e, struct module_info *m)
{
	struct module_pages p = {.lower = e->lower};

	for (int i = 0; i < MODULE_PG_COUNT; i++)
		p.page[i] = e->have[i] ? e->page[i] : NULL;
	return module_parse(&p, m);
}

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 + fabs((double)(b)) * 1e-9)

/* ---- SFF-8472 ------------------------------------------------------------------------------- */

/* An SFP with DDM, internally calibrated: 35.5 C, 3.3 V, 6 mA, 0.5 mW Tx, 0.4 mW Rx. */
static void sfp(struct eeprom *e)
{
	uint8_t *a0 = e->lower, *a2 = e->page[MODULE_PG_A2];

	memset(e, 0, sizeof(*e));
	put8(a0, 0, 0x03);
	put8(a0, 2, 0x07); /* LC */
	put_str(a0, 20, 16, "FINISAR CORP.");
	put_str(a0, 40, 16, "FTLX8571D3BCL");
	put_str(a0, 56, 4, "A");
	put_str(a0, 68, 16, "ALC1234");
	put8(a0, 92, 0x60); /* DDM, internally calibrated */
	e->have[MODULE_PG_A2] = true;
	put16(a2, 96, (uint16_t)(35 * 256 + 128));
	put16(a2, 98, 33000);
	put16(a2, 100, 3000);
	put16(a2, 102, 5000);
	put16(a2, 104, 4000);
	/* thresholds: temperature 0-7, Vcc 8-15, bias 16-23, Tx 24-31, Rx 32-39 */
	put16(a2, 0, 75 * 256);
	put16(a2, 2, (uint16_t)(-5 * 256));
	put16(a2, 4, 70 * 256);
	put16(a2, 6, 0);
	put16(a2, 8, 36000);
	put16(a2, 10, 30000);
	put16(a2, 12, 35000);
	put16(a2, 14, 31000);
	put16(a2, 16, 6000);
	put16(a2, 18, 1000);
	put16(a2, 20, 5500);
	put16(a2, 22, 1500);
	put16(a2, 24, 10000);
	put16(a2, 26, 1000);
	put16(a2, 28, 8000);
	put16(a2, 30, 1500);
	put16(a2, 32, 12000);
	put16(a2, 34, 100);
	put16(a2, 36, 10000);
	put16(a2, 38, 200);
}

static void test_sff8472_identity(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	sfp(&e);
	assert_int_equal(parse(&e, &m), 0);
	assert_int_equal(m.std, MODULE_STD_SFF8472);
	assert_string_equal(m.identifier, "SFP");
	assert_string_equal(m.vendor, "FINISAR CORP.");
	assert_string_equal(m.part_number, "FTLX8571D3BCL");
	assert_string_equal(m.revision, "A");
	assert_string_equal(m.serial, "ALC1234");
	assert_string_equal(m.media, "optical");
	assert_int_equal(m.n_lanes, 1);
}

static void test_sff8472_monitors(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	sfp(&e);
	assert_int_equal(parse(&e, &m), 0);
	assert_true(m.temperature.have);
	NEAR(m.temperature.v, 35.5);
	assert_true(m.voltage.have);
	NEAR(m.voltage.v, 3.3);
	assert_true(m.tx_bias[0].have);
	NEAR(m.tx_bias[0].v, 6e-3);
	assert_true(m.tx_power[0].have);
	NEAR(m.tx_power[0].v, 0.5e-3);
	assert_true(m.rx_power[0].have);
	NEAR(m.rx_power[0].v, 0.4e-3);
	assert_false(m.rx_power[1].have);
}

static void test_sff8472_thresholds(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	sfp(&e);
	assert_int_equal(parse(&e, &m), 0);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].v, 75);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_LOW_ALARM].v, -5);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_WARNING].v, 70);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_LOW_WARNING].v, 0);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_ALARM].v, 3.6);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_LOW_ALARM].v, 3.0);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_WARNING].v, 3.5);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_LOW_WARNING].v, 3.1);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_ALARM].v, 12e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_ALARM].v, 2e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_WARNING].v, 11e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_WARNING].v, 3e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_ALARM].v, 1e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_LOW_ALARM].v, 0.1e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_WARNING].v, 0.8e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_LOW_WARNING].v, 0.15e-3);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_ALARM].v, 1.2e-3);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_ALARM].v, 10e-6);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_WARNING].v, 1e-3);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_WARNING].v, 20e-6);
	for (int q = 0; q < MODULE_Q_COUNT; q++)
		for (int l = 0; l < MODULE_L_COUNT; l++)
			assert_true(m.threshold[q][l].have);
}

/* External calibration (SFF-8472 section 9.3): slope 8.8 and offset, Rx polynomial. */
static void test_sff8472_external_calibration(void **unused)
{
	struct eeprom e;
	struct module_info m;
	uint8_t *a2 = e.page[MODULE_PG_A2];

	(void)unused;
	sfp(&e);
	put8(e.lower, 92, 0x50); /* DDM, externally calibrated */
	put16(a2, 76, 2 * 256);	 /* bias slope 2.0, offset +100 (x 2 uA) */
	put16(a2, 78, 100);
	put16(a2, 80, 128); /* Tx power slope 0.5, offset -1000 (x 0.1 uW) */
	put16(a2, 82, (uint16_t)-1000);
	put16(a2, 84, 256); /* temperature slope 1, offset +1 C */
	put16(a2, 86, 256);
	put16(a2, 88, 256 + 128); /* Vcc slope 1.5, offset 0 */
	put16(a2, 90, 0);
	/* Rx = 100 + 0.5 x + 0 x^2 ... (Rx_PWR(0) at 72, Rx_PWR(1) at 68) */
	put_float(a2, 56, 0);
	put_float(a2, 60, 0);
	put_float(a2, 64, 0);
	put_float(a2, 68, 0.5f);
	put_float(a2, 72, 100.0f);
	put16(a2, 98, 22000);
	assert_int_equal(parse(&e, &m), 0);
	NEAR(m.temperature.v, 36.5);
	NEAR(m.voltage.v, 22000 * 1.5 * 100e-6);
	NEAR(m.tx_bias[0].v, (3000 * 2 + 100) * 2e-6);
	NEAR(m.tx_power[0].v, (5000 * 0.5 - 1000) * 0.1e-6);
	NEAR(m.rx_power[0].v, (100 + 0.5 * 4000) * 0.1e-6);
	/* the thresholds are converted the same way */
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].v, 76);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_ALARM].v, (100 + 0.5 * 12000) * 0.1e-6);
}

static void test_sff8472_no_ddm(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	sfp(&e);
	put8(e.lower, 92, 0x00);
	put8(e.lower, 8, 0x04); /* SFP+ passive cable */
	put8(e.lower, 2, 0x21); /* copper pigtail */
	assert_int_equal(module_pages_wanted(e.lower), 0);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.media, "copper");
	assert_false(m.temperature.have);
	assert_false(m.voltage.have);
	assert_false(m.rx_power[0].have);
	assert_false(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].have);
	/* DDM, but A2h could not be read: no values either */
	sfp(&e);
	e.have[MODULE_PG_A2] = false;
	assert_int_equal(module_pages_wanted(e.lower), 1u << MODULE_PG_A2);
	assert_int_equal(parse(&e, &m), 0);
	assert_false(m.temperature.have);
	assert_string_equal(m.vendor, "FINISAR CORP.");
}

/* ---- SFF-8636 ------------------------------------------------------------------------------- */

static void qsfp28(struct eeprom *e)
{
	uint8_t *lo = e->lower, *up = e->page[MODULE_PG_UPPER00], *p3 = e->page[MODULE_PG_03];

	memset(e, 0, sizeof(*e));
	put8(lo, 0, 0x11);
	put16(lo, 22, (uint16_t)(41 * 256 + 64)); /* 41.25 C */
	put16(lo, 26, 32900);
	for (unsigned i = 0; i < 4; i++) {
		put16(lo, 34 + 2 * i, (uint16_t)(7000 + i)); /* Rx */
		put16(lo, 42 + 2 * i, (uint16_t)(3500 + i)); /* bias */
		put16(lo, 50 + 2 * i, (uint16_t)(6000 + i)); /* Tx */
	}
	e->have[MODULE_PG_UPPER00] = true;
	put8(up, 128, 0x11);
	put8(up, 130, 0x0c); /* MPO 1x12 */
	put8(up, 147, 0x00); /* 850 nm VCSEL */
	put_str(up, 148, 16, "Mellanox");
	put_str(up, 168, 16, "MMA1B00-C100D");
	put_str(up, 184, 2, "B2");
	put_str(up, 196, 16, "MT2101FT00123");
	put8(up, 220, 0x3c); /* temperature, Vcc, average Rx, Tx power */
	e->have[MODULE_PG_03] = true;
	put16(p3, 128, 80 * 256);
	put16(p3, 130, (uint16_t)(-10 * 256));
	put16(p3, 132, 75 * 256);
	put16(p3, 134, (uint16_t)(-5 * 256));
	put16(p3, 144, 36300);
	put16(p3, 146, 29700);
	put16(p3, 148, 34650);
	put16(p3, 150, 31350);
	put16(p3, 176, 34674); /* Rx */
	put16(p3, 178, 355);
	put16(p3, 180, 17380);
	put16(p3, 182, 1122);
	put16(p3, 184, 7500); /* bias */
	put16(p3, 186, 1000);
	put16(p3, 188, 6500);
	put16(p3, 190, 1500);
	put16(p3, 192, 34674); /* Tx */
	put16(p3, 194, 1000);
	put16(p3, 196, 17380);
	put16(p3, 198, 2000);
}

static void test_sff8636_identity(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp28(&e);
	assert_int_equal(module_pages_wanted(e.lower),
			 1u << MODULE_PG_UPPER00 | 1u << MODULE_PG_03);
	assert_int_equal(parse(&e, &m), 0);
	assert_int_equal(m.std, MODULE_STD_SFF8636);
	assert_string_equal(m.identifier, "QSFP28");
	assert_string_equal(m.vendor, "Mellanox");
	assert_string_equal(m.part_number, "MMA1B00-C100D");
	assert_string_equal(m.revision, "B2");
	assert_string_equal(m.serial, "MT2101FT00123");
	assert_string_equal(m.media, "optical");
	assert_int_equal(m.n_lanes, 4);
}

static void test_sff8636_monitors(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp28(&e);
	assert_int_equal(parse(&e, &m), 0);
	NEAR(m.temperature.v, 41.25);
	NEAR(m.voltage.v, 3.29);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(m.rx_power[i].have && m.tx_power[i].have && m.tx_bias[i].have);
		NEAR(m.rx_power[i].v, (7000 + i) * 0.1e-6);
		NEAR(m.tx_bias[i].v, (3500 + i) * 2e-6);
		NEAR(m.tx_power[i].v, (6000 + i) * 0.1e-6);
	}
	assert_false(m.rx_power[4].have);
}

static void test_sff8636_thresholds(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp28(&e);
	assert_int_equal(parse(&e, &m), 0);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].v, 80);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_LOW_ALARM].v, -10);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_WARNING].v, 75);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_LOW_WARNING].v, -5);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_ALARM].v, 3.63);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_LOW_ALARM].v, 2.97);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_WARNING].v, 3.465);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_LOW_WARNING].v, 3.135);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_ALARM].v, 34674 * 0.1e-6);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_ALARM].v, 355 * 0.1e-6);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_WARNING].v, 17380 * 0.1e-6);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_WARNING].v, 1122 * 0.1e-6);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_ALARM].v, 15e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_ALARM].v, 2e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_WARNING].v, 13e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_WARNING].v, 3e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_ALARM].v, 34674 * 0.1e-6);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_LOW_ALARM].v, 100e-6);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_WARNING].v, 17380 * 0.1e-6);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_LOW_WARNING].v, 200e-6);
}

/* A passive copper cable, flat memory: identity only. */
static void test_sff8636_passive_copper(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp28(&e);
	put8(e.lower, 2, 0x04);			    /* flat memory */
	put8(e.page[MODULE_PG_UPPER00], 147, 0xa0); /* copper, unequalized */
	put8(e.page[MODULE_PG_UPPER00], 130, 0x23); /* no separable connector */
	put8(e.page[MODULE_PG_UPPER00], 220, 0x00);
	assert_int_equal(module_pages_wanted(e.lower), 1u << MODULE_PG_UPPER00);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.media, "copper");
	assert_false(m.temperature.have);
	assert_false(m.voltage.have);
	for (unsigned i = 0; i < 4; i++)
		assert_false(m.rx_power[i].have || m.tx_power[i].have || m.tx_bias[i].have);
	for (int q = 0; q < MODULE_Q_COUNT; q++)
		assert_false(m.threshold[q][MODULE_L_HIGH_ALARM].have);
	/* an optical module without Tx power monitoring */
	qsfp28(&e);
	put8(e.page[MODULE_PG_UPPER00], 220, 0x30);
	assert_int_equal(parse(&e, &m), 0);
	assert_true(m.rx_power[0].have && m.tx_bias[0].have);
	assert_false(m.tx_power[0].have);
	assert_false(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_ALARM].have);
	assert_true(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_ALARM].have);
}

/* ---- CMIS ----------------------------------------------------------------------------------- */

static void qsfp_dd(struct eeprom *e, uint8_t id)
{
	uint8_t *lo = e->lower, *up = e->page[MODULE_PG_UPPER00];
	uint8_t *p1 = e->page[MODULE_PG_01], *p2 = e->page[MODULE_PG_02];
	uint8_t *p11 = e->page[MODULE_PG_11];

	memset(e, 0, sizeof(*e));
	put8(lo, 0, id);
	put8(lo, 1, 0x50);			   /* CMIS 5.0 */
	put16(lo, 14, (uint16_t)(52 * 256 + 192)); /* 52.75 C */
	put16(lo, 16, 33100);
	put8(lo, 85, 0x02); /* SMF */
	put8(lo, 88, 0x88); /* 8 host lanes, 8 media lanes */
	e->have[MODULE_PG_UPPER00] = true;
	put8(up, 128, id);
	put_str(up, 129, 16, "NVIDIA");
	put_str(up, 148, 16, "MMS4X00-NS");
	put_str(up, 164, 2, "A1");
	put_str(up, 166, 16, "MT2330FT01234");
	put8(up, 212, 0x06); /* 1310 nm EML */
	e->have[MODULE_PG_01] = true;
	put8(p1, 159, 0x03); /* temperature, Vcc */
	put8(p1, 160, 0x07); /* bias, Tx, Rx; multiplier 1 */
	e->have[MODULE_PG_02] = true;
	put16(p2, 128, 75 * 256);
	put16(p2, 130, (uint16_t)(-5 * 256));
	put16(p2, 132, 70 * 256);
	put16(p2, 134, 0);
	put16(p2, 136, 34650);
	put16(p2, 138, 29700);
	put16(p2, 140, 34000);
	put16(p2, 142, 31000);
	put16(p2, 176, 50000); /* Tx */
	put16(p2, 178, 500);
	put16(p2, 180, 40000);
	put16(p2, 182, 1000);
	put16(p2, 184, 6000); /* bias */
	put16(p2, 186, 1000);
	put16(p2, 188, 5000);
	put16(p2, 190, 2000);
	put16(p2, 192, 50000); /* Rx */
	put16(p2, 194, 300);
	put16(p2, 196, 40000);
	put16(p2, 198, 600);
	e->have[MODULE_PG_11] = true;
	for (unsigned i = 0; i < 8; i++) {
		put16(p11, 154 + 2 * i, (uint16_t)(12000 + i)); /* Tx */
		put16(p11, 170 + 2 * i, (uint16_t)(4000 + i));	/* bias */
		put16(p11, 186 + 2 * i, (uint16_t)(11000 + i)); /* Rx */
	}
}

static void test_cmis_identity(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp_dd(&e, 0x18);
	assert_int_equal(module_pages_wanted(e.lower),
			 1u << MODULE_PG_UPPER00 | 1u << MODULE_PG_01 | 1u << MODULE_PG_02 |
				 1u << MODULE_PG_11);
	assert_int_equal(parse(&e, &m), 0);
	assert_int_equal(m.std, MODULE_STD_CMIS);
	assert_string_equal(m.identifier, "QSFP-DD");
	assert_string_equal(m.vendor, "NVIDIA");
	assert_string_equal(m.part_number, "MMS4X00-NS");
	assert_string_equal(m.revision, "A1");
	assert_string_equal(m.serial, "MT2330FT01234");
	assert_string_equal(m.media, "optical");
	assert_int_equal(m.n_lanes, 8);
	qsfp_dd(&e, 0x19);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.identifier, "OSFP");
	assert_int_equal(m.std, MODULE_STD_CMIS);
}

static void test_cmis_monitors(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp_dd(&e, 0x19);
	assert_int_equal(parse(&e, &m), 0);
	NEAR(m.temperature.v, 52.75);
	NEAR(m.voltage.v, 3.31);
	for (unsigned i = 0; i < 8; i++) {
		NEAR(m.tx_power[i].v, (12000 + i) * 0.1e-6);
		NEAR(m.tx_bias[i].v, (4000 + i) * 2e-6);
		NEAR(m.rx_power[i].v, (11000 + i) * 0.1e-6);
	}
	/* 4 media lanes (400G-DR4 on 8 host lanes): 4 entries */
	put8(e.lower, 88, 0x84);
	assert_int_equal(parse(&e, &m), 0);
	assert_int_equal(m.n_lanes, 4);
	assert_false(m.rx_power[4].have);
}

static void test_cmis_bias_multiplier(void **unused)
{
	static const struct {
		uint8_t bits;
		double mul;
	} cases[] = {{0x07, 1}, {0x0f, 2}, {0x17, 4}, {0x1f, 1}};
	struct eeprom e;
	struct module_info m;

	(void)unused;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		qsfp_dd(&e, 0x18);
		put8(e.page[MODULE_PG_01], 160, cases[c].bits);
		assert_int_equal(parse(&e, &m), 0);
		NEAR(m.tx_bias[0].v, 4000 * 2e-6 * cases[c].mul);
		NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_ALARM].v,
		     6000 * 2e-6 * cases[c].mul);
	}
}

static void test_cmis_thresholds(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp_dd(&e, 0x18);
	assert_int_equal(parse(&e, &m), 0);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].v, 75);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_LOW_ALARM].v, -5);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_WARNING].v, 70);
	NEAR(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_LOW_WARNING].v, 0);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_ALARM].v, 3.465);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_LOW_ALARM].v, 2.97);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_WARNING].v, 3.4);
	NEAR(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_LOW_WARNING].v, 3.1);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_ALARM].v, 5e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_LOW_ALARM].v, 50e-6);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_HIGH_WARNING].v, 4e-3);
	NEAR(m.threshold[MODULE_Q_TX_POWER][MODULE_L_LOW_WARNING].v, 100e-6);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_ALARM].v, 12e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_ALARM].v, 2e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_HIGH_WARNING].v, 10e-3);
	NEAR(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_WARNING].v, 4e-3);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_ALARM].v, 5e-3);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_ALARM].v, 30e-6);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_HIGH_WARNING].v, 4e-3);
	NEAR(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_WARNING].v, 60e-6);
}

/* Monitors the module does not advertise, flat memory, pages that failed. */
static void test_cmis_absent(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	qsfp_dd(&e, 0x18);
	put8(e.page[MODULE_PG_01], 159, 0x01); /* no Vcc monitor */
	put8(e.page[MODULE_PG_01], 160, 0x04); /* Rx power only */
	assert_int_equal(parse(&e, &m), 0);
	assert_true(m.temperature.have);
	assert_false(m.voltage.have);
	assert_true(m.rx_power[7].have);
	assert_false(m.tx_power[0].have || m.tx_bias[0].have);
	assert_false(m.threshold[MODULE_Q_VOLTAGE][MODULE_L_HIGH_ALARM].have);
	assert_false(m.threshold[MODULE_Q_TX_BIAS][MODULE_L_LOW_ALARM].have);
	assert_true(m.threshold[MODULE_Q_RX_POWER][MODULE_L_LOW_ALARM].have);

	/* page 11h unreadable: no lanes; page 02h unreadable: no thresholds */
	qsfp_dd(&e, 0x18);
	e.have[MODULE_PG_11] = false;
	e.have[MODULE_PG_02] = false;
	assert_int_equal(parse(&e, &m), 0);
	assert_true(m.temperature.have);
	assert_false(m.rx_power[0].have);
	assert_false(m.threshold[MODULE_Q_TEMPERATURE][MODULE_L_HIGH_ALARM].have);

	/* passive copper, flat memory: only page 00h, identity only */
	qsfp_dd(&e, 0x18);
	put8(e.lower, 2, 0x80);
	put8(e.lower, 85, 0x03);
	assert_int_equal(module_pages_wanted(e.lower), 1u << MODULE_PG_UPPER00);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.media, "copper");
	assert_false(m.temperature.have);
	assert_false(m.rx_power[0].have);
	assert_string_equal(m.vendor, "NVIDIA");

	/* an active cable: AOC or ACC by the media interface technology */
	qsfp_dd(&e, 0x18);
	put8(e.lower, 85, 0x04);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.media, "optical");
	put8(e.page[MODULE_PG_UPPER00], 212, 0x0e);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.media, "copper");
}

/* ---- common --------------------------------------------------------------------------------- */

static void test_no_module(void **unused)
{
	struct eeprom e;
	struct module_info m;
	struct module_pages none = {0};

	(void)unused;
	memset(&e, 0, sizeof(e));
	assert_int_equal(parse(&e, &m), -ENODATA);
	assert_int_equal(module_pages_wanted(e.lower), 0);
	memset(e.lower, 0xff, sizeof(e.lower));
	assert_int_equal(parse(&e, &m), -ENODATA);
	assert_int_equal(module_parse(&none, &m), -ENODATA);
	assert_int_equal(module_parse(NULL, &m), -ENODATA);
	assert_false(module_present(NULL));
	/* a module of a layout not decoded here: its identifier only */
	memset(&e, 0, sizeof(e));
	put8(e.lower, 0, 0x06);
	assert_int_equal(module_pages_wanted(e.lower), 0);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.identifier, "XFP");
	assert_string_equal(m.vendor, "");
	assert_string_equal(m.media, "unknown");
	assert_false(m.temperature.have);
	put8(e.lower, 0, 0x7e);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.identifier, "unknown");
}

static void test_strings_sanitised(void **unused)
{
	struct eeprom e;
	struct module_info m;

	(void)unused;
	sfp(&e);
	put_str(e.lower, 20, 16, "");
	put8(e.lower, 20, 'A');
	put8(e.lower, 21, 0x80);
	put8(e.lower, 22, '\n');
	put8(e.lower, 23, '"');
	put8(e.lower, 24, 0);
	put8(e.lower, 25, 'B');
	for (unsigned i = 26; i < 36; i++)
		put8(e.lower, i, 0);
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.vendor, "A??\"?B");
	put_str(e.lower, 40, 16, "0123456789abcdef");
	assert_int_equal(parse(&e, &m), 0);
	assert_string_equal(m.part_number, "0123456789abcdef");
}

static void test_names(void **unused)
{
	(void)unused;
	assert_string_equal(module_quantity_name(MODULE_Q_TEMPERATURE), "temperature_celsius");
	assert_string_equal(module_quantity_name(MODULE_Q_VOLTAGE), "supply_voltage_volts");
	assert_string_equal(module_quantity_name(MODULE_Q_RX_POWER), "rx_power_watts");
	assert_string_equal(module_quantity_name(MODULE_Q_TX_POWER), "tx_power_watts");
	assert_string_equal(module_quantity_name(MODULE_Q_TX_BIAS), "tx_bias_current_amperes");
	assert_string_equal(module_level_name(MODULE_L_HIGH_ALARM), "high_alarm");
	assert_string_equal(module_level_name(MODULE_L_HIGH_WARNING), "high_warning");
	assert_string_equal(module_level_name(MODULE_L_LOW_WARNING), "low_warning");
	assert_string_equal(module_level_name(MODULE_L_LOW_ALARM), "low_alarm");
	assert_string_equal(module_identifier_name(0x03), "SFP");
	assert_string_equal(module_identifier_name(0x0d), "QSFP+");
	assert_string_equal(module_identifier_name(0x1e), "QSFP CMIS");
	assert_string_equal(module_identifier_name(0xff), "unknown");
	assert_int_equal(module_std_of(0x1e), MODULE_STD_CMIS);
	assert_int_equal(module_std_of(0x0c), MODULE_STD_SFF8636);
	assert_int_equal(module_std_of(0x03), MODULE_STD_SFF8472);
}

/* Random pages: every value finite, strings printable, lanes within bounds. */
static void test_random_pages(void **unused)
{
	static const uint8_t ids[] = {0x03, 0x0d, 0x11, 0x18, 0x19, 0x1e, 0x06};
	struct eeprom e;
	struct module_info m;
	unsigned seed = 12345;

	(void)unused;
	for (int round = 0; round < 2000; round++) {
		uint8_t *bytes = (uint8_t *)&e;

		for (size_t i = 0; i < sizeof(e); i++) {
			seed = seed * 1103515245u + 12345u;
			bytes[i] = (uint8_t)(seed >> 16);
		}
		e.lower[0] = ids[round % sizeof(ids)];
		for (int p = 0; p < MODULE_PG_COUNT; p++)
			e.have[p] = (seed >> p) & 1;
		assert_int_equal(parse(&e, &m), 0);
		assert_true(m.n_lanes <= MODULE_MAX_LANES);
		for (const char *s = m.vendor; *s; s++)
			assert_true(*s >= 0x20 && *s < 0x7f);
		for (unsigned i = 0; i < MODULE_MAX_LANES; i++) {
			assert_true(!m.rx_power[i].have || isfinite(m.rx_power[i].v));
			assert_true(i < m.n_lanes || !m.rx_power[i].have);
		}
		for (int q = 0; q < MODULE_Q_COUNT; q++)
			for (int l = 0; l < MODULE_L_COUNT; l++)
				assert_true(!m.threshold[q][l].have ||
					    isfinite(m.threshold[q][l].v));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sff8472_identity),
		cmocka_unit_test(test_sff8472_monitors),
		cmocka_unit_test(test_sff8472_thresholds),
		cmocka_unit_test(test_sff8472_external_calibration),
		cmocka_unit_test(test_sff8472_no_ddm),
		cmocka_unit_test(test_sff8636_identity),
		cmocka_unit_test(test_sff8636_monitors),
		cmocka_unit_test(test_sff8636_thresholds),
		cmocka_unit_test(test_sff8636_passive_copper),
		cmocka_unit_test(test_cmis_identity),
		cmocka_unit_test(test_cmis_monitors),
		cmocka_unit_test(test_cmis_bias_multiplier),
		cmocka_unit_test(test_cmis_thresholds),
		cmocka_unit_test(test_cmis_absent),
		cmocka_unit_test(test_no_module),
		cmocka_unit_test(test_strings_sanitised),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_random_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
