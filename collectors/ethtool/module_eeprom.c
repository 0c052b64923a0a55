// SPDX-License-Identifier: Apache-2.0
/*
 * Module EEPROM decoder: SFF-8472, SFF-8636 and CMIS (sources, offsets and
 * units in module_eeprom.h). Offsets below are as the standards number them:
 * bytes 0-127 of the lower page (or A0h/A2h), 128-255 of an upper page.
 */
#include "module_eeprom.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Raw units per base unit of the 16-bit fields (dividing, not multiplying by
 * the unit, gives the nearest double: 33000 reads as 3.3 V, not 3.3000000000000003). */
#define TEMP_PER_C  256.0 /* 1/256 C, signed */
#define VOLT_PER_V  1e4	  /* 100 uV */
#define POWER_PER_W 1e7	  /* 0.1 uW */
#define BIAS_PER_A  5e5	  /* 2 uA */

const struct module_page_addr module_page_addrs[MODULE_PG_COUNT] = {
	[MODULE_PG_UPPER00] = {0x50, 0x00, 0, 128}, [MODULE_PG_A2] = {0x51, 0x00, 0, 0},
	[MODULE_PG_01] = {0x50, 0x01, 0, 128},	    [MODULE_PG_02] = {0x50, 0x02, 0, 128},
	[MODULE_PG_03] = {0x50, 0x03, 0, 128},	    [MODULE_PG_11] = {0x50, 0x11, 0, 128},
};

/* SFF-8024 Table 4-1, the identifiers up to 0x1e. */
static const char *const id_names[] = {
	[0x00] = "unknown",	 [0x01] = "GBIC",	  [0x02] = "SFF soldered",
	[0x03] = "SFP",		 [0x04] = "300 pin XBI",  [0x05] = "XENPAK",
	[0x06] = "XFP",		 [0x07] = "XFF",	  [0x08] = "XFP-E",
	[0x09] = "XPAK",	 [0x0a] = "X2",		  [0x0b] = "DWDM-SFP",
	[0x0c] = "QSFP",	 [0x0d] = "QSFP+",	  [0x0e] = "CXP",
	[0x0f] = "HD 4X",	 [0x10] = "HD 8X",	  [0x11] = "QSFP28",
	[0x12] = "CXP2",	 [0x13] = "CDFP",	  [0x14] = "HD 4X fanout",
	[0x15] = "HD 8X fanout", [0x16] = "CDFP style 3", [0x17] = "microQSFP",
	[0x18] = "QSFP-DD",	 [0x19] = "OSFP",	  [0x1a] = "SFP-DD",
	[0x1b] = "DSFP",	 [0x1c] = "MiniLink 4X",  [0x1d] = "MiniLink 8X",
	[0x1e] = "QSFP CMIS",
};

#define N_ID_NAMES (sizeof(id_names) / sizeof(id_names[0]))

enum module_std module_std_of(uint8_t id)
{
	switch (id) {
	case 0x02: /* soldered, SFP-like: the same A0h/A2h map */
	case 0x03:
	case 0x0b:
		return MODULE_STD_SFF8472;
	case 0x0c:
	case 0x0d:
	case 0x11:
		return MODULE_STD_SFF8636;
	case 0x18:
	case 0x19:
	case 0x1e:
		return MODULE_STD_CMIS;
	default:
		return MODULE_STD_NONE;
	}
}

const char *module_identifier_name(uint8_t id)
{
	return id < N_ID_NAMES && id_names[id] ? id_names[id] : "unknown";
}

bool module_present(const uint8_t *lower)
{
	return lower && lower[0] != 0x00 && lower[0] != 0xff;
}

static bool sff8636_flat(const uint8_t *lower)
{
	return lower[2] & 0x04;
}

static bool cmis_flat(const uint8_t *lower)
{
	return lower[2] & 0x80;
}

unsigned module_pages_wanted(const uint8_t *lower)
{
	if (!module_present(lower))
		return 0;
	switch (module_std_of(lower[0])) {
	case MODULE_STD_SFF8472:
		/* A0h upper half is vendor data; A2h only with DDM. */
		return lower[92] & 0x40 ? 1u << MODULE_PG_A2 : 0;
	case MODULE_STD_SFF8636:
		return 1u << MODULE_PG_UPPER00 | (sff8636_flat(lower) ? 0 : 1u << MODULE_PG_03);
	case MODULE_STD_CMIS:
		return 1u << MODULE_PG_UPPER00 |
		       (cmis_flat(lower)
				? 0
				: 1u << MODULE_PG_01 | 1u << MODULE_PG_02 | 1u << MODULE_PG_11);
	default:
		return 0;
	}
}

/* ---- field helpers ------------------------------------------------------------------------ */

/* Byte `off` (0-127 lower, 128-255 upper) of a page. */
static uint8_t byte_at(const uint8_t *page, unsigned off)
{
	return page[off & 0x7f];
}

static uint16_t u16_at(const uint8_t *page, unsigned off)
{
	return (uint16_t)(byte_at(page, off) << 8 | byte_at(page, off + 1));
}

static int16_t s16_at(const uint8_t *page, unsigned off)
{
	return (int16_t)u16_at(page, off);
}

static struct module_value val(double v)
{
	return (struct module_value){.have = isfinite(v), .v = isfinite(v) ? v : 0};
}

/* An ASCII field: trailing spaces and NULs trimmed, other bytes outside
 * printable ASCII shown as '?', so that a label value is always valid. */
static void ascii_field(char *dst, const uint8_t *page, unsigned off, unsigned len)
{
	unsigned n = len;

	while (n > 0 && (byte_at(page, off + n - 1) == ' ' || byte_at(page, off + n - 1) == 0))
		n--;
	for (unsigned i = 0; i < n; i++) {
		uint8_t c = byte_at(page, off + i);

		dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	dst[n] = '\0';
}

/* Threshold offsets of one quantity: high alarm, low alarm, high warning, low
 * warning follow each other (2 bytes each) in all three standards. */
static const unsigned level_off[MODULE_L_COUNT] = {
	[MODULE_L_HIGH_ALARM] = 0,
	[MODULE_L_LOW_ALARM] = 2,
	[MODULE_L_HIGH_WARNING] = 4,
	[MODULE_L_LOW_WARNING] = 6,
};

/* Connector types of SFF-8024 Table 4-3 by what they carry. */
static const char *connector_media(uint8_t c)
{
	if ((c >= 0x02 && c <= 0x05) || (c >= 0x20 && c <= 0x22))
		return "copper";
	if (c == 0x01 || (c >= 0x06 && c <= 0x0d) || (c >= 0x24 && c <= 0x28))
		return "optical";
	return "unknown";
}

/* ---- SFF-8472 ----------------------------------------------------------------------------- */

/* Externally calibrated: slope (unsigned 8.8) times the reading plus a signed offset
 * in the reading's units (SFF-8472 section 9.3). */
static double ext_linear(const uint8_t *a2, unsigned slope_off, double raw)
{
	double slope = u16_at(a2, slope_off) / 256.0;

	return slope * raw + s16_at(a2, slope_off + 2);
}

static double ieee_float_at(const uint8_t *a2, unsigned off)
{
	uint32_t u = (uint32_t)byte_at(a2, off) << 24 | (uint32_t)byte_at(a2, off + 1) << 16 |
		     (uint32_t)byte_at(a2, off + 2) << 8 | byte_at(a2, off + 3);
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Rx power, external: Rx_PWR(4) at 56 ... Rx_PWR(0) at 72, a polynomial in the reading. */
static double ext_rx_power(const uint8_t *a2, double raw)
{
	double sum = 0, p = 1;

	for (int k = 0; k <= 4; k++) {
		sum += ieee_float_at(a2, 72 - 4 * (unsigned)k) * p;
		p *= raw;
	}
	return sum;
}

/* Quantity q's raw field at off of A2h in base units. */
static double sff8472_value(const uint8_t *a2, bool ext, enum module_quantity q, unsigned off)
{
	switch (q) {
	case MODULE_Q_TEMPERATURE:
		return (ext ? ext_linear(a2, 84, s16_at(a2, off)) : s16_at(a2, off)) / TEMP_PER_C;
	case MODULE_Q_VOLTAGE:
		return (ext ? ext_linear(a2, 88, u16_at(a2, off)) : u16_at(a2, off)) / VOLT_PER_V;
	case MODULE_Q_TX_BIAS:
		return (ext ? ext_linear(a2, 76, u16_at(a2, off)) : u16_at(a2, off)) / BIAS_PER_A;
	case MODULE_Q_TX_POWER:
		return (ext ? ext_linear(a2, 80, u16_at(a2, off)) : u16_at(a2, off)) / POWER_PER_W;
	case MODULE_Q_RX_POWER:
	default:
		return (ext ? ext_rx_power(a2, u16_at(a2, off)) : u16_at(a2, off)) / POWER_PER_W;
	}
}

static void parse_sff8472(const struct module_pages *p, struct module_info *m)
{
	/* A2h monitors and threshold bases, in enum module_quantity order. */
	static const unsigned mon[MODULE_Q_COUNT] = {96, 98, 104, 102, 100};
	static const unsigned thr[MODULE_Q_COUNT] = {0, 8, 32, 24, 16};
	const uint8_t *a0 = p->lower, *a2 = p->page[MODULE_PG_A2];
	bool ext = a0[92] & 0x10;

	ascii_field(m->vendor, a0, 20, 16);
	ascii_field(m->part_number, a0, 40, 16);
	ascii_field(m->revision, a0, 56, 4);
	ascii_field(m->serial, a0, 68, 16);
	/* SFP+ passive or active cable, or 1000BASE-T, or a copper connector. */
	if ((a0[8] & 0x0c) || (a0[6] & 0x08))
		m->media = "copper";
	else
		m->media = connector_media(a0[2]);
	m->n_lanes = 1;
	if (!(a0[92] & 0x40) || !a2)
		return;
	m->temperature = val(sff8472_value(a2, ext, MODULE_Q_TEMPERATURE, mon[0]));
	m->voltage = val(sff8472_value(a2, ext, MODULE_Q_VOLTAGE, mon[1]));
	m->rx_power[0] = val(sff8472_value(a2, ext, MODULE_Q_RX_POWER, mon[2]));
	m->tx_power[0] = val(sff8472_value(a2, ext, MODULE_Q_TX_POWER, mon[3]));
	m->tx_bias[0] = val(sff8472_value(a2, ext, MODULE_Q_TX_BIAS, mon[4]));
	for (int q = 0; q < MODULE_Q_COUNT; q++)
		for (int l = 0; l < MODULE_L_COUNT; l++)
			m->threshold[q][l] = val(sff8472_value(a2, ext, (enum module_quantity)q,
							       thr[q] + level_off[l]));
}

/* ---- SFF-8636 and CMIS: fixed units ----------------------------------------------------- */

/* A raw field of quantity q in base units (bias_mul: the CMIS multiplier). */
static double fixed_value(const uint8_t *page, unsigned off, enum module_quantity q,
			  unsigned bias_mul)
{
	switch (q) {
	case MODULE_Q_TEMPERATURE:
		return s16_at(page, off) / TEMP_PER_C;
	case MODULE_Q_VOLTAGE:
		return u16_at(page, off) / VOLT_PER_V;
	case MODULE_Q_TX_BIAS:
		return u16_at(page, off) * bias_mul / BIAS_PER_A;
	case MODULE_Q_RX_POWER:
	case MODULE_Q_TX_POWER:
	default:
		return u16_at(page, off) / POWER_PER_W;
	}
}

/* The thresholds of the quantities in `which` (bit per quantity) from page at the
 * bases in thr. */
static void fixed_thresholds(struct module_info *m, const uint8_t *page,
			     const unsigned thr[MODULE_Q_COUNT], unsigned which, unsigned bias_mul)
{
	if (!page)
		return;
	for (int q = 0; q < MODULE_Q_COUNT; q++) {
		if (!(which & 1u << q))
			continue;
		for (int l = 0; l < MODULE_L_COUNT; l++)
			m->threshold[q][l] = val(fixed_value(page, thr[q] + level_off[l],
							     (enum module_quantity)q, bias_mul));
	}
}

/* Lane monitors at the bases in base[] (rx, tx, bias), quantities in `which`. */
static void fixed_lanes(struct module_info *m, const uint8_t *page, const unsigned base[3],
			unsigned which, unsigned bias_mul)
{
	for (unsigned i = 0; i < m->n_lanes; i++) {
		if (which & 1u << MODULE_Q_RX_POWER)
			m->rx_power[i] =
				val(fixed_value(page, base[0] + 2 * i, MODULE_Q_RX_POWER, 1));
		if (which & 1u << MODULE_Q_TX_POWER)
			m->tx_power[i] =
				val(fixed_value(page, base[1] + 2 * i, MODULE_Q_TX_POWER, 1));
		if (which & 1u << MODULE_Q_TX_BIAS)
			m->tx_bias[i] =
				val(fixed_value(page, base[2] + 2 * i, MODULE_Q_TX_BIAS, bias_mul));
	}
}

#define Q(x) (1u << MODULE_Q_##x)

static void parse_sff8636(const struct module_pages *p, struct module_info *m)
{
	static const unsigned thr[MODULE_Q_COUNT] = {128, 144, 176, 192, 184};
	static const unsigned lanes[3] = {34, 50, 42};
	const uint8_t *lo = p->lower, *up = p->page[MODULE_PG_UPPER00];
	unsigned which = 0, tech;

	m->n_lanes = 4;
	if (!up)
		return;
	ascii_field(m->vendor, up, 148, 16);
	ascii_field(m->part_number, up, 168, 16);
	ascii_field(m->revision, up, 184, 2);
	ascii_field(m->serial, up, 196, 16);
	tech = byte_at(up, 147) >> 4;
	/* 1010b and up: copper cables (unequalized, passive or active equalized). */
	m->media = tech >= 0x0a || byte_at(up, 130) == 0x21 ? "copper" : "optical";
	if (byte_at(up, 220) & 0x20)
		which |= Q(TEMPERATURE);
	if (byte_at(up, 220) & 0x10)
		which |= Q(VOLTAGE);
	if (byte_at(up, 220) & 0x04)
		which |= Q(TX_POWER);
	/* Rx power and bias have no "implemented" bit; a passive copper cable
	 * (1010b unequalized, 1011b passive equalized) has neither. */
	if (tech != 0x0a && tech != 0x0b)
		which |= Q(RX_POWER) | Q(TX_BIAS);
	if (which & Q(TEMPERATURE))
		m->temperature = val(fixed_value(lo, 22, MODULE_Q_TEMPERATURE, 1));
	if (which & Q(VOLTAGE))
		m->voltage = val(fixed_value(lo, 26, MODULE_Q_VOLTAGE, 1));
	fixed_lanes(m, lo, lanes, which, 1);
	fixed_thresholds(m, sff8636_flat(lo) ? NULL : p->page[MODULE_PG_03], thr, which, 1);
}

static const char *cmis_media(const uint8_t *lo, const uint8_t *up)
{
	switch (lo[85]) {
	case 0x01: /* multimode fibre */
	case 0x02: /* single mode fibre */
		return "optical";
	case 0x03: /* passive copper */
	case 0x05: /* Base-T */
		return "copper";
	case 0x04: /* active cable: the media interface technology tells AOC from ACC */
		if (!up)
			return "unknown";
		return byte_at(up, 212) >= 0x0a && byte_at(up, 212) <= 0x0f ? "copper" : "optical";
	default:
		return "unknown";
	}
}

static void parse_cmis(const struct module_pages *p, struct module_info *m)
{
	static const unsigned thr[MODULE_Q_COUNT] = {128, 136, 192, 176, 184};
	static const unsigned lanes[3] = {186, 154, 170};
	const uint8_t *lo = p->lower, *up = p->page[MODULE_PG_UPPER00];
	const uint8_t *p01 = p->page[MODULE_PG_01];
	unsigned which = 0, mul = 1, media_lanes = lo[88] & 0x0f;

	m->n_lanes = media_lanes >= 1 && media_lanes <= MODULE_MAX_LANES ? media_lanes
									 : MODULE_MAX_LANES;
	m->media = cmis_media(lo, up);
	if (up) {
		ascii_field(m->vendor, up, 129, 16);
		ascii_field(m->part_number, up, 148, 16);
		ascii_field(m->revision, up, 164, 2);
		ascii_field(m->serial, up, 166, 16);
	}
	/* Flat memory, or the advertising page could not be read: which monitors
	 * exist is unknown, so none is reported. */
	if (cmis_flat(lo) || !p01)
		return;
	if (byte_at(p01, 159) & 0x01)
		which |= Q(TEMPERATURE);
	if (byte_at(p01, 159) & 0x02)
		which |= Q(VOLTAGE);
	if (byte_at(p01, 160) & 0x01)
		which |= Q(TX_BIAS);
	if (byte_at(p01, 160) & 0x02)
		which |= Q(TX_POWER);
	if (byte_at(p01, 160) & 0x04)
		which |= Q(RX_POWER);
	/* bits 4-3: 00b x1, 01b x2, 10b x4 (11b reserved: x1) */
	switch ((byte_at(p01, 160) >> 3) & 0x03) {
	case 1:
		mul = 2;
		break;
	case 2:
		mul = 4;
		break;
	default:
		mul = 1;
	}
	if (which & Q(TEMPERATURE))
		m->temperature = val(fixed_value(lo, 14, MODULE_Q_TEMPERATURE, 1));
	if (which & Q(VOLTAGE))
		m->voltage = val(fixed_value(lo, 16, MODULE_Q_VOLTAGE, 1));
	if (p->page[MODULE_PG_11])
		fixed_lanes(m, p->page[MODULE_PG_11], lanes, which, mul);
	fixed_thresholds(m, p->page[MODULE_PG_02], thr, which, mul);
}

int module_parse(const struct module_pages *pages, struct module_info *out)
{
	memset(out, 0, sizeof(*out));
	if (!pages || !module_present(pages->lower))
		return -ENODATA;
	out->id = pages->lower[0];
	out->std = module_std_of(out->id);
	out->identifier = module_identifier_name(out->id);
	out->media = "unknown";
	switch (out->std) {
	case MODULE_STD_SFF8472:
		parse_sff8472(pages, out);
		break;
	case MODULE_STD_SFF8636:
		parse_sff8636(pages, out);
		break;
	case MODULE_STD_CMIS:
		parse_cmis(pages, out);
		break;
	default:
		break;
	}
	return 0;
}

const char *module_quantity_name(enum module_quantity q)
{
	static const char *const names[MODULE_Q_COUNT] = {
		[MODULE_Q_TEMPERATURE] = "temperature_celsius",
		[MODULE_Q_VOLTAGE] = "supply_voltage_volts",
		[MODULE_Q_RX_POWER] = "rx_power_watts",
		[MODULE_Q_TX_POWER] = "tx_power_watts",
		[MODULE_Q_TX_BIAS] = "tx_bias_current_amperes",
	};

	return (unsigned)q < MODULE_Q_COUNT ? names[q] : "unknown";
}

const char *module_level_name(enum module_level l)
{
	static const char *const names[MODULE_L_COUNT] = {
		[MODULE_L_HIGH_ALARM] = "high_alarm",
		[MODULE_L_HIGH_WARNING] = "high_warning",
		[MODULE_L_LOW_WARNING] = "low_warning",
		[MODULE_L_LOW_ALARM] = "low_alarm",
	};

	return (unsigned)l < MODULE_L_COUNT ? names[l] : "unknown";
}
