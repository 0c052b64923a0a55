/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure decoder of pluggable module (transceiver) EEPROM pages: bytes in,
 * struct out; no I/O, no globals, no logging.
 *
 * Sources of every offset and scale (the standards, as published by the SNIA
 * SFF TA TWG and the OIF; cross-checked against the field tables of the
 * Linux ethtool utility's sfpid.c/sfpdiag.c/qsfp.h/cmis.h, no code taken):
 *  - SFF-8024 rev 4.x, Table 4-1 (identifier byte values) and Table 4-3
 *    (connector types);
 *  - SFF-8472 rev 12.x (SFP/SFP+/SFP28, I2C addresses A0h and A2h):
 *    A0h 2 connector, 6 (bit 3) 1000BASE-T, 8 (bits 2-3) SFP+ passive/active
 *    cable, 20-35 vendor name, 40-55 part number, 56-59 revision, 68-83
 *    serial, 92 diagnostic monitoring type (bit 6 DDM implemented, bit 5
 *    internally, bit 4 externally calibrated);
 *    A2h 0-39 alarm/warning thresholds (temperature, Vcc, Tx bias, Tx power,
 *    Rx power; 2 bytes each in the order high alarm, low alarm, high warning,
 *    low warning), 56-75 Rx_PWR(4..0) IEEE-754 single floats, 76-91 slope
 *    (unsigned 8.8 fixed point) / offset (signed, in the field's own units)
 *    pairs for Tx bias, Tx power, temperature and Vcc (section 9.3: external
 *    calibration applies to the thresholds as well), 96-105 the monitors;
 *  - SFF-8636 rev 2.10a (QSFP+/QSFP28/QSFP56): lower page 2 (bit 2 flat
 *    memory), 22-23 temperature, 26-27 Vcc, 34-41 Rx power, 42-49 Tx bias,
 *    50-57 Tx power (lanes 1-4); upper page 00h 130 connector, 147
 *    (bits 7-4) transmitter technology, 148-163 vendor name, 168-183 part
 *    number, 184-185 revision, 196-211 serial, 220 diagnostic monitoring
 *    type (bit 5 temperature, bit 4 Vcc, bit 2 Tx power implemented);
 *    upper page 03h 128-135 temperature, 144-151 Vcc, 176-183 Rx power,
 *    184-191 Tx bias, 192-199 Tx power thresholds (high alarm, low alarm,
 *    high warning, low warning);
 *  - OIF CMIS 4.0 / 5.x (QSFP-DD, OSFP, QSFP with CMIS): lower page 2 (bit 7
 *    flat memory), 14-15 temperature, 16-17 Vcc, 85 module type (media), 88
 *    lane counts of the first application (bits 3-0 media lanes); upper page
 *    00h 129-144 vendor name, 148-163 part number, 164-165 revision, 166-181
 *    serial, 212 media interface technology; page 01h 159 module monitors
 *    supported (bit 0 temperature, bit 1 Vcc), 160 lane monitors supported
 *    (bit 0 Tx bias, bit 1 Tx power, bit 2 Rx power; bits 4-3 Tx bias
 *    multiplier 1, 2 or 4); page 02h 128-143 temperature and Vcc, 176-199
 *    Tx power, Tx bias and Rx power thresholds; page 11h (bank 0) 154-169
 *    Tx power, 170-185 Tx bias, 186-201 Rx power of lanes 1-8.
 * Units, all three standards: temperature signed 1/256 C, supply voltage
 * 100 uV, optical power 0.1 uW, Tx bias 2 uA (CMIS: times the multiplier,
 * thresholds included); 16-bit big-endian fields. Results are in base units:
 * C, V, W, A.
 */
#ifndef RDMA_EXPORTER_MODULE_EEPROM_H
#define RDMA_EXPORTER_MODULE_EEPROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODULE_PAGE_LEN	 128 /* every page and half-page read is 128 bytes */
#define MODULE_MAX_LANES 8   /* CMIS bank 0; SFF-8636 has 4, SFF-8472 1 */
#define MODULE_STR_LEN	 17  /* the longest ASCII field (16) and a NUL */

enum module_std {
	MODULE_STD_NONE, /* an identifier this decoder has no layout for */
	MODULE_STD_SFF8472,
	MODULE_STD_SFF8636,
	MODULE_STD_CMIS,
};

/* The 128-byte pages beyond the lower page (A0h 0-127 / lower page 00h). */
enum module_page {
	MODULE_PG_UPPER00, /* A0h 128-255 / upper page 00h */
	MODULE_PG_A2,	   /* SFF-8472 A2h 0-127 */
	MODULE_PG_01,	   /* CMIS advertising */
	MODULE_PG_02,	   /* CMIS thresholds */
	MODULE_PG_03,	   /* SFF-8636 thresholds */
	MODULE_PG_11,	   /* CMIS lane monitors, bank 0 */
	MODULE_PG_COUNT,
};

/* Where a page is read: I2C address (7-bit), page, bank, offset (0 or 128). */
struct module_page_addr {
	uint8_t i2c, page, bank, offset;
};

extern const struct module_page_addr module_page_addrs[MODULE_PG_COUNT];

enum module_quantity {
	MODULE_Q_TEMPERATURE,
	MODULE_Q_VOLTAGE,
	MODULE_Q_RX_POWER,
	MODULE_Q_TX_POWER,
	MODULE_Q_TX_BIAS,
	MODULE_Q_COUNT,
};

enum module_level {
	MODULE_L_HIGH_ALARM,
	MODULE_L_HIGH_WARNING,
	MODULE_L_LOW_WARNING,
	MODULE_L_LOW_ALARM,
	MODULE_L_COUNT,
};

/* One reading; have false: the module does not implement it (or the page
 * holding it could not be read). */
struct module_value {
	bool have;
	double v;
};

struct module_info {
	enum module_std std;
	uint8_t id;		/* SFF-8024 identifier byte */
	const char *identifier; /* SFF-8024 name, static; "unknown" for others */
	const char *media;	/* "optical", "copper" or "unknown", static */
	char vendor[MODULE_STR_LEN], part_number[MODULE_STR_LEN];
	char serial[MODULE_STR_LEN], revision[MODULE_STR_LEN];
	struct module_value temperature;		/* C */
	struct module_value voltage;			/* V */
	unsigned n_lanes;				/* lanes below that have entries */
	struct module_value rx_power[MODULE_MAX_LANES]; /* W */
	struct module_value tx_power[MODULE_MAX_LANES]; /* W */
	struct module_value tx_bias[MODULE_MAX_LANES];	/* A */
	struct module_value threshold[MODULE_Q_COUNT][MODULE_L_COUNT];
};

/* The lower page and whichever further pages were read (NULL: not read or
 * not available); each MODULE_PAGE_LEN bytes. */
struct module_pages {
	const uint8_t *lower;
	const uint8_t *page[MODULE_PG_COUNT];
};

/* The layout an identifier byte selects. */
enum module_std module_std_of(uint8_t id);
/* The SFF-8024 name of an identifier, "unknown" when the table has none. */
const char *module_identifier_name(uint8_t id);
/* False for the identifier bytes an empty cage or an unprogrammed EEPROM reads
 * as (0x00 unknown/unspecified, 0xff). */
bool module_present(const uint8_t *lower);

/*
 * The further pages worth reading for the module whose lower page is given
 * (MODULE_PAGE_LEN bytes): a bit mask of 1u << enum module_page. Pages that a
 * flat-memory module or one without diagnostics does not have are left out.
 * 0 when no module is present.
 */
unsigned module_pages_wanted(const uint8_t *lower);

/*
 * Decodes what the pages hold. 0 with *out filled (fields a page was missing
 * for stay absent), or -ENODATA when no module is present (lower NULL or its
 * identifier reads as empty).
 */
int module_parse(const struct module_pages *pages, struct module_info *out);

/* Label values: "temperature_celsius", ..., "high_alarm", ... */
const char *module_quantity_name(enum module_quantity q);
const char *module_level_name(enum module_level l);

#endif
