// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests for the driver ethtool name tables (ethtool_names.c).
 *
 * The expected tables below repeat every pattern of every driver with its
 * mapping. Each pattern is expanded to its concrete names (priorities 0..7),
 * every concrete name must map exactly as listed, no concrete name may
 * appear twice for one driver, and a driver's names must not map under any
 * other driver unless that driver prints the same name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ethtool_names.h"
#include "metric_naming.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_MAX_LEN 64
#define MAX_CONCRETE 512

struct spec {
	const char *pattern; /* one "%u" for the priority, or literal */
	enum eth_family family;
	enum eth_direction direction;
	const char *label;
	double scale;
};

#define S(_p, _f, _d, _l, _s)                                                                      \
	{                                                                                          \
		(_p), (_f), (_d), (_l), (_s)                                                       \
	}
#define SRX(_p, _f)    S(_p, _f, ETH_DIR_RX, NULL, 1.0)
#define STX(_p, _f)    S(_p, _f, ETH_DIR_TX, NULL, 1.0)
#define SN(_p, _f)     S(_p, _f, ETH_DIR_NONE, NULL, 1.0)
#define SL(_p, _f, _l) S(_p, _f, ETH_DIR_NONE, _l, 1.0)

static const struct spec mlx5_specs[] = {
	SRX("rx_prio%u_bytes", ETH_FAM_PRIO_BYTES),
	SRX("rx_prio%u_packets", ETH_FAM_PRIO_PACKETS),
	SL("rx_prio%u_discards", ETH_FAM_PRIO_DISCARDS, "port_buffer"),
	STX("tx_prio%u_bytes", ETH_FAM_PRIO_BYTES),
	STX("tx_prio%u_packets", ETH_FAM_PRIO_PACKETS),
	SRX("rx_prio%u_pause", ETH_FAM_PRIO_PAUSE_FRAMES),
	S("rx_prio%u_pause_duration", ETH_FAM_PRIO_PAUSE_DURATION, ETH_DIR_RX, NULL, 1e-6),
	STX("tx_prio%u_pause", ETH_FAM_PRIO_PAUSE_FRAMES),
	S("tx_prio%u_pause_duration", ETH_FAM_PRIO_PAUSE_DURATION, ETH_DIR_TX, NULL, 1e-6),
	SN("rx_prio%u_pause_transition", ETH_FAM_PRIO_PAUSE_TRANSITIONS),
	SL("rx_prio%u_buf_discard", ETH_FAM_PRIO_DISCARDS, "buffer"),
	SL("rx_prio%u_cong_discard", ETH_FAM_PRIO_DISCARDS, "congestion"),
	SN("rx_prio%u_marked", ETH_FAM_PRIO_ECN_MARKED),
	SL("tx_pause_storm_warning_events", ETH_FAM_PAUSE_STORM, "warning"),
	SL("tx_pause_storm_error_events", ETH_FAM_PAUSE_STORM, "error"),
	SRX("rx_pause_ctrl_phy", ETH_FAM_PAUSE_FRAMES),
	STX("tx_pause_ctrl_phy", ETH_FAM_PAUSE_FRAMES),
	SRX("rx_discards_phy", ETH_FAM_DISCARDS),
	STX("tx_discards_phy", ETH_FAM_DISCARDS),
	SN("rx_crc_errors_phy", ETH_FAM_CRC_ERRORS),
	SN("rx_symbol_err_phy", ETH_FAM_SYMBOL_ERRORS),
	SN("link_down_events_phy", ETH_FAM_LINK_DOWN),
	SN("rx_buffer_passed_thres_phy", ETH_FAM_BUFFER_THRESHOLD),
	SN("rx_out_of_buffer", ETH_FAM_OUT_OF_BUFFER),
	/* physical layer bit errors (issue 32) */
	SN("rx_bits_phy", ETH_FAM_PHY_BITS_RECEIVED),
	SN("rx_pcs_symbol_err_phy", ETH_FAM_PHY_SYMBOL_ERRORS),
	SN("rx_corrected_bits_phy", ETH_FAM_FEC_CORRECTED_BITS),
	SL("rx_err_lane_0_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "0"),
	SL("rx_err_lane_1_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "1"),
	SL("rx_err_lane_2_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "2"),
	SL("rx_err_lane_3_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "3"),
};

static const struct spec ice_specs[] = {
	SRX("rx_priority_%u_xoff.nic", ETH_FAM_PRIO_PAUSE_FRAMES),
	STX("tx_priority_%u_xoff.nic", ETH_FAM_PRIO_PAUSE_FRAMES),
	SRX("rx_priority_%u_xon.nic", ETH_FAM_PRIO_RESUME_FRAMES),
	STX("tx_priority_%u_xon.nic", ETH_FAM_PRIO_RESUME_FRAMES),
	SRX("link_xoff_rx.nic", ETH_FAM_PAUSE_FRAMES),
	STX("link_xoff_tx.nic", ETH_FAM_PAUSE_FRAMES),
	SRX("rx_dropped.nic", ETH_FAM_DISCARDS),
	STX("tx_dropped_link_down.nic", ETH_FAM_DISCARDS),
	SN("rx_crc_errors.nic", ETH_FAM_CRC_ERRORS),
};

static const struct spec i40e_specs[] = {
	SRX("port.rx_priority_%u_xoff_rx", ETH_FAM_PRIO_PAUSE_FRAMES),
	STX("port.tx_priority_%u_xoff_tx", ETH_FAM_PRIO_PAUSE_FRAMES),
	SRX("port.rx_priority_%u_xon_rx", ETH_FAM_PRIO_RESUME_FRAMES),
	STX("port.tx_priority_%u_xon_tx", ETH_FAM_PRIO_RESUME_FRAMES),
	/* spelling of older kernels */
	SRX("port.rx_priority_%u_xoff", ETH_FAM_PRIO_PAUSE_FRAMES),
	STX("port.tx_priority_%u_xoff", ETH_FAM_PRIO_PAUSE_FRAMES),
	SRX("port.rx_priority_%u_xon", ETH_FAM_PRIO_RESUME_FRAMES),
	STX("port.tx_priority_%u_xon", ETH_FAM_PRIO_RESUME_FRAMES),
	SN("port.rx_priority_%u_xon_2_xoff", ETH_FAM_PRIO_PAUSE_TRANSITIONS),
	SRX("port.link_xoff_rx", ETH_FAM_PAUSE_FRAMES),
	STX("port.link_xoff_tx", ETH_FAM_PAUSE_FRAMES),
	SRX("port.rx_dropped", ETH_FAM_DISCARDS),
	STX("port.tx_dropped_link_down", ETH_FAM_DISCARDS),
	SN("port.rx_crc_errors", ETH_FAM_CRC_ERRORS),
};

static const struct spec bnxt_specs[] = {
	SRX("rx_pfc_ena_frames_pri%u", ETH_FAM_PRIO_PAUSE_FRAMES),
	STX("tx_pfc_ena_frames_pri%u", ETH_FAM_PRIO_PAUSE_FRAMES),
	S("pfc_pri%u_rx_duration_us", ETH_FAM_PRIO_PAUSE_DURATION, ETH_DIR_RX, NULL, 1e-6),
	S("pfc_pri%u_tx_duration_us", ETH_FAM_PRIO_PAUSE_DURATION, ETH_DIR_TX, NULL, 1e-6),
	SRX("rx_bytes_pri%u", ETH_FAM_PRIO_BYTES),
	STX("tx_bytes_pri%u", ETH_FAM_PRIO_BYTES),
	SRX("rx_packets_pri%u", ETH_FAM_PRIO_PACKETS),
	STX("tx_packets_pri%u", ETH_FAM_PRIO_PACKETS),
	SRX("rx_pause_frames", ETH_FAM_PAUSE_FRAMES),
	STX("tx_pause_frames", ETH_FAM_PAUSE_FRAMES),
	SRX("rx_stat_discard", ETH_FAM_DISCARDS),
	STX("tx_stat_discard", ETH_FAM_DISCARDS),
	SN("rx_fcs_err_frames", ETH_FAM_CRC_ERRORS),
	SN("rx_pcs_symbol_err", ETH_FAM_SYMBOL_ERRORS),
	SN("link_down_events", ETH_FAM_LINK_DOWN),
	SN("rx_buffer_passed_threshold", ETH_FAM_BUFFER_THRESHOLD),
	SN("rx_bits", ETH_FAM_PHY_BITS_RECEIVED),
	SN("rx_corrected_bits", ETH_FAM_FEC_CORRECTED_BITS),
	SN("rx_fec_corrected_blocks", ETH_FAM_FEC_CORRECTED_BLOCKS),
	SN("rx_fec_uncorrectable_blocks", ETH_FAM_FEC_UNCORRECTABLE_BLOCKS),
};

struct driver_specs {
	const char *driver;
	const struct spec *specs;
	size_t n;
};

static const struct driver_specs drivers[] = {
	{"mlx5_core", mlx5_specs, ARRAY_LEN(mlx5_specs)},
	{"ice", ice_specs, ARRAY_LEN(ice_specs)},
	{"bnxt_en", bnxt_specs, ARRAY_LEN(bnxt_specs)},
	{"i40e", i40e_specs, ARRAY_LEN(i40e_specs)},
};

/* What the header comments say about each family. */
struct family_expect {
	enum eth_family family;
	const char *name;
	bool direction, priority;
	const char *extra_label;
};

static const struct family_expect family_expects[] = {
	{ETH_FAM_PRIO_PAUSE_FRAMES, "rdma_netdev_priority_pause_frames_total", true, true, NULL},
	{ETH_FAM_PRIO_PAUSE_DURATION, "rdma_netdev_priority_pause_duration_seconds_total", true,
	 true, NULL},
	{ETH_FAM_PRIO_RESUME_FRAMES, "rdma_netdev_priority_resume_frames_total", true, true, NULL},
	{ETH_FAM_PRIO_BYTES, "rdma_netdev_priority_bytes_total", true, true, NULL},
	{ETH_FAM_PRIO_PACKETS, "rdma_netdev_priority_packets_total", true, true, NULL},
	{ETH_FAM_PRIO_PAUSE_TRANSITIONS, "rdma_netdev_priority_pause_transitions_total", false,
	 true, NULL},
	{ETH_FAM_PRIO_ECN_MARKED, "rdma_netdev_priority_ecn_marked_packets_total", false, true,
	 NULL},
	{ETH_FAM_PRIO_DISCARDS, "rdma_netdev_priority_packets_discarded_total", false, true,
	 "reason"},
	{ETH_FAM_PAUSE_FRAMES, "rdma_netdev_pause_frames_total", true, false, NULL},
	{ETH_FAM_DISCARDS, "rdma_netdev_packets_discarded_total", true, false, NULL},
	{ETH_FAM_PAUSE_STORM, "rdma_netdev_pause_storm_events_total", false, false, "level"},
	{ETH_FAM_OUT_OF_BUFFER, "rdma_netdev_out_of_buffer_packets_dropped_total", false, false,
	 NULL},
	{ETH_FAM_CRC_ERRORS, "rdma_netdev_crc_errors_total", false, false, NULL},
	{ETH_FAM_SYMBOL_ERRORS, "rdma_netdev_symbol_errors_total", false, false, NULL},
	{ETH_FAM_LINK_DOWN, "rdma_netdev_link_down_events_total", false, false, NULL},
	{ETH_FAM_BUFFER_THRESHOLD, "rdma_netdev_buffer_threshold_crossings_total", false, false,
	 NULL},
	{ETH_FAM_FEC_CORRECTED_BLOCKS, "rdma_netdev_fec_corrected_blocks_total", false, false,
	 NULL},
	{ETH_FAM_FEC_UNCORRECTABLE_BLOCKS, "rdma_netdev_fec_uncorrectable_blocks_total", false,
	 false, NULL},
	{ETH_FAM_FEC_CORRECTED_BITS, "rdma_netdev_fec_corrected_bit_errors_total", false, false,
	 NULL},
	{ETH_FAM_PHY_BITS_RECEIVED, "rdma_netdev_phy_bit_count_received_total", false, false, NULL},
	{ETH_FAM_PHY_SYMBOL_ERRORS, "rdma_netdev_phy_symbol_errors_total", false, false, NULL},
	{ETH_FAM_FEC_LANE_CORRECTED_BLOCKS, "rdma_netdev_fec_lane_corrected_blocks_total", false,
	 false, "lane"},
	{ETH_FAM_FEC_LANE_UNCORRECTABLE_BLOCKS, "rdma_netdev_fec_lane_uncorrectable_blocks_total",
	 false, false, "lane"},
	{ETH_FAM_FEC_LANE_CORRECTED_BITS, "rdma_netdev_fec_lane_corrected_bit_errors_total", false,
	 false, "lane"},
};

/* ---- helpers ---------------------------------------------------------------------------- */

static bool has_placeholder(const char *pattern)
{
	return strstr(pattern, "%u") != NULL;
}

/* The pattern with "%u" replaced by `text` (no printf: the pattern is data). */
static void expand(const char *pattern, const char *text, char *out, size_t len)
{
	const char *ph = strstr(pattern, "%u");
	int n;

	if (!ph)
		n = snprintf(out, len, "%s", pattern);
	else
		n = snprintf(out, len, "%.*s%s%s", (int)(ph - pattern), pattern, text, ph + 2);
	assert_true(n > 0 && (size_t)n < len);
}

static void expand_prio(const char *pattern, int prio, char *out, size_t len)
{
	char digit[2] = {(char)('0' + prio), '\0'};

	expand(pattern, digit, out, len);
}

struct concrete {
	char name[NAME_MAX_LEN];
	const struct spec *spec;
	int priority;
};

/* Every concrete name of a driver's expected table. */
static size_t concrete_names(const struct driver_specs *d, struct concrete *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct spec *s = &d->specs[i];
		int last = has_placeholder(s->pattern) ? 7 : -1;

		for (int p = has_placeholder(s->pattern) ? 0 : -1; p <= last; p++) {
			assert_true(n < max);
			expand_prio(s->pattern, p < 0 ? 0 : p, out[n].name, sizeof(out[n].name));
			out[n].spec = s;
			out[n].priority = p;
			n++;
		}
	}
	return n;
}

static bool name_valid(const char *name)
{
	if (!name || !*name)
		return false;
	if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') || *name == '_' ||
	      *name == ':'))
		return false;
	for (const char *p = name + 1; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == ':'))
			return false;
	}
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* One line of printable ASCII, as the exposition HELP line needs. */
static bool help_is_plain(const char *help)
{
	if (!help || !*help)
		return false;
	for (const char *p = help; *p; p++) {
		if (*p < 0x20 || *p > 0x7e || *p == '\\')
			return false;
	}
	return true;
}

static void assert_maps(const char *driver, const char *name, const struct spec *s, int prio)
{
	struct eth_stat_map m;

	memset(&m, 0xa5, sizeof(m));
	if (!eth_stat_lookup(driver, name, &m))
		fail_msg("%s: %s is not mapped", driver, name);
	if (m.family != s->family)
		fail_msg("%s: %s maps to family %d, not %d", driver, name, m.family, s->family);
	if (m.direction != s->direction)
		fail_msg("%s: %s has direction %d, not %d", driver, name, m.direction,
			 s->direction);
	if (m.priority != prio)
		fail_msg("%s: %s has priority %d, not %d", driver, name, m.priority, prio);
	if (s->label)
		assert_non_null(m.label);
	if (s->label && strcmp(m.label, s->label) != 0)
		fail_msg("%s: %s has label %s, not %s", driver, name, m.label, s->label);
	if (!s->label && m.label)
		fail_msg("%s: %s has unexpected label %s", driver, name, m.label);
	if (m.scale != s->scale)
		fail_msg("%s: %s has scale %g, not %g", driver, name, m.scale, s->scale);
}

static void check_driver(const struct driver_specs *d)
{
	static struct concrete names[MAX_CONCRETE];
	size_t n = concrete_names(d, names, MAX_CONCRETE);

	assert_true(eth_driver_known(d->driver));
	for (size_t i = 0; i < n; i++)
		assert_maps(d->driver, names[i].name, names[i].spec, names[i].priority);
}

static const struct driver_specs *driver(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(drivers); i++) {
		if (strcmp(drivers[i].driver, name) == 0)
			return &drivers[i];
	}
	fail_msg("no expected table for %s", name);
	return NULL;
}

/* ---- per driver ------------------------------------------------------------------------- */

static void test_mlx5_names(void **state)
{
	struct eth_stat_map m;

	(void)state;
	check_driver(driver("mlx5_core"));
	/* spot checks of the semantics that matter most */
	assert_true(eth_stat_lookup("mlx5_core", "rx_prio3_pause", &m));
	assert_int_equal(m.family, ETH_FAM_PRIO_PAUSE_FRAMES);
	assert_int_equal(m.direction, ETH_DIR_RX);
	assert_int_equal(m.priority, 3);
	assert_true(eth_stat_lookup("mlx5_core", "tx_prio7_pause_duration", &m));
	assert_int_equal(m.family, ETH_FAM_PRIO_PAUSE_DURATION);
	assert_int_equal(m.direction, ETH_DIR_TX);
	assert_int_equal(m.priority, 7);
	assert_true(m.scale == 1e-6);
	assert_true(eth_stat_lookup("mlx5_core", "rx_prio0_cong_discard", &m));
	assert_string_equal(m.label, "congestion");
	assert_int_equal(m.priority, 0);
	assert_true(eth_stat_lookup("mlx5_core", "tx_pause_storm_error_events", &m));
	assert_string_equal(m.label, "error");
	assert_int_equal(m.priority, -1);
	assert_int_equal(m.direction, ETH_DIR_NONE);
	/* the BER counters: rx_err_lane_N_phy are corrected bits per lane */
	assert_true(eth_stat_lookup("mlx5_core", "rx_err_lane_2_phy", &m));
	assert_int_equal(m.family, ETH_FAM_FEC_LANE_CORRECTED_BITS);
	assert_string_equal(m.label, "2");
	assert_int_equal(m.priority, -1);
	assert_string_equal(eth_family_extra_label(m.family), "lane");
	assert_true(eth_stat_lookup("mlx5_core", "rx_pcs_symbol_err_phy", &m));
	assert_int_equal(m.family, ETH_FAM_PHY_SYMBOL_ERRORS);
	/* 802.3 symbol errors (packets) stay a family of their own */
	assert_true(eth_stat_lookup("mlx5_core", "rx_symbol_err_phy", &m));
	assert_int_equal(m.family, ETH_FAM_SYMBOL_ERRORS);
}

static void test_ice_names(void **state)
{
	struct eth_stat_map m;

	(void)state;
	check_driver(driver("ice"));
	assert_true(eth_stat_lookup("ice", "rx_priority_5_xoff.nic", &m));
	assert_int_equal(m.family, ETH_FAM_PRIO_PAUSE_FRAMES);
	assert_int_equal(m.priority, 5);
	assert_true(eth_stat_lookup("ice", "tx_priority_5_xon.nic", &m));
	assert_int_equal(m.family, ETH_FAM_PRIO_RESUME_FRAMES);
	assert_int_equal(m.direction, ETH_DIR_TX);
}

static void test_i40e_names(void **state)
{
	struct eth_stat_map m;

	(void)state;
	check_driver(driver("i40e"));
	assert_true(eth_stat_lookup("i40e", "port.rx_priority_2_xon_2_xoff", &m));
	assert_int_equal(m.family, ETH_FAM_PRIO_PAUSE_TRANSITIONS);
	assert_int_equal(m.direction, ETH_DIR_NONE);
	assert_int_equal(m.priority, 2);
}

static void test_bnxt_names(void **state)
{
	struct eth_stat_map m;

	(void)state;
	check_driver(driver("bnxt_en"));
	assert_true(eth_stat_lookup("bnxt_en", "pfc_pri4_rx_duration_us", &m));
	assert_int_equal(m.family, ETH_FAM_PRIO_PAUSE_DURATION);
	assert_int_equal(m.direction, ETH_DIR_RX);
	assert_int_equal(m.priority, 4);
	assert_true(m.scale == 1e-6);
	assert_true(eth_stat_lookup("bnxt_en", "rx_fec_uncorrectable_blocks", &m));
	assert_int_equal(m.family, ETH_FAM_FEC_UNCORRECTABLE_BLOCKS);
	assert_true(eth_stat_lookup("bnxt_en", "rx_bits", &m));
	assert_int_equal(m.family, ETH_FAM_PHY_BITS_RECEIVED);
	/* kept in the 802.3 family: check and the alerts read it there */
	assert_true(eth_stat_lookup("bnxt_en", "rx_pcs_symbol_err", &m));
	assert_int_equal(m.family, ETH_FAM_SYMBOL_ERRORS);
}

/* ---- table properties ------------------------------------------------------------------- */

/* No two patterns of one driver yield the same concrete name. */
static void test_no_duplicate_concrete_names(void **state)
{
	static struct concrete names[MAX_CONCRETE];

	(void)state;
	for (size_t d = 0; d < ARRAY_LEN(drivers); d++) {
		size_t n = concrete_names(&drivers[d], names, MAX_CONCRETE);

		for (size_t i = 0; i < n; i++) {
			for (size_t j = i + 1; j < n; j++) {
				if (strcmp(names[i].name, names[j].name) == 0)
					fail_msg("%s: %s comes from %s and %s", drivers[d].driver,
						 names[i].name, names[i].spec->pattern,
						 names[j].spec->pattern);
			}
		}
	}
}

static bool driver_prints(const struct driver_specs *d, const char *name)
{
	static struct concrete names[MAX_CONCRETE];
	size_t n = concrete_names(d, names, MAX_CONCRETE);

	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i].name, name) == 0)
			return true;
	}
	return false;
}

/* A driver's names mean nothing under another driver (unless it prints them too). */
static void test_names_only_under_their_driver(void **state)
{
	static struct concrete names[MAX_CONCRETE];

	(void)state;
	for (size_t a = 0; a < ARRAY_LEN(drivers); a++) {
		size_t n = concrete_names(&drivers[a], names, MAX_CONCRETE);

		for (size_t i = 0; i < n; i++) {
			char name[NAME_MAX_LEN];

			/* copy: driver_prints() reuses its own buffer */
			memcpy(name, names[i].name, sizeof(name));
			for (size_t b = 0; b < ARRAY_LEN(drivers); b++) {
				if (b == a || driver_prints(&drivers[b], name))
					continue;
				if (eth_stat_lookup(drivers[b].driver, name, NULL))
					fail_msg("%s name %s maps under %s", drivers[a].driver,
						 name, drivers[b].driver);
			}
			assert_false(eth_stat_lookup("unknown_drv", name, NULL));
			assert_false(eth_stat_lookup("", name, NULL));
		}
	}
}

/* The placeholder takes one digit 0..7, nothing else; matching is exact. */
static void test_priority_placeholder_exact(void **state)
{
	static const char *const bad[] = {
		"8", "9", "10", "01", "00", "", "a", "-1", " 1", "1 ", "x", "07",
	};

	(void)state;
	for (size_t d = 0; d < ARRAY_LEN(drivers); d++) {
		for (size_t i = 0; i < drivers[d].n; i++) {
			const char *pat = drivers[d].specs[i].pattern;
			char name[NAME_MAX_LEN];

			if (!has_placeholder(pat))
				continue;
			for (size_t b = 0; b < ARRAY_LEN(bad); b++) {
				expand(pat, bad[b], name, sizeof(name));
				if (driver_prints(&drivers[d], name))
					continue;
				if (eth_stat_lookup(drivers[d].driver, name, NULL))
					fail_msg("%s: %s must not match", drivers[d].driver, name);
			}
		}
	}
}

/* Trailing garbage, a missing tail, a changed case: no match. */
static void test_no_prefix_or_suffix_match(void **state)
{
	static struct concrete names[MAX_CONCRETE];

	(void)state;
	for (size_t d = 0; d < ARRAY_LEN(drivers); d++) {
		size_t n = concrete_names(&drivers[d], names, MAX_CONCRETE);

		for (size_t i = 0; i < n; i++) {
			char name[NAME_MAX_LEN + 2], orig[NAME_MAX_LEN];
			size_t len = strlen(names[i].name);

			memcpy(orig, names[i].name, sizeof(orig));
			/* trailing garbage */
			snprintf(name, sizeof(name), "%sx", orig);
			if (!driver_prints(&drivers[d], name) &&
			    eth_stat_lookup(drivers[d].driver, name, NULL))
				fail_msg("%s: %s must not match", drivers[d].driver, name);
			/* every proper prefix */
			for (size_t cut = 0; cut < len; cut++) {
				snprintf(name, sizeof(name), "%.*s", (int)cut, orig);
				if (!driver_prints(&drivers[d], name) &&
				    eth_stat_lookup(drivers[d].driver, name, NULL))
					fail_msg("%s: prefix %s of %s must not match",
						 drivers[d].driver, name, orig);
			}
			/* a leading character */
			snprintf(name, sizeof(name), "_%s", orig);
			if (!driver_prints(&drivers[d], name) &&
			    eth_stat_lookup(drivers[d].driver, name, NULL))
				fail_msg("%s: %s must not match", drivers[d].driver, name);
		}
	}
}

static void test_known_non_matches(void **state)
{
	static const struct {
		const char *driver, *name;
	} cases[] = {
		{"mlx5_core", "rx_prio8_pause"},
		{"mlx5_core", "rx_prio1_pausex"},
		{"mlx5_core", "rx_prio1_paus"},
		{"mlx5_core", "rx_prio_pause"},
		{"mlx5_core", "rx_prio12_pause"},
		{"mlx5_core", "RX_PRIO1_PAUSE"},
		{"mlx5_core", "rx_prio1_pause "},
		{"mlx5_core", "rx_prio"},
		/* real mlx5 names deliberately left unmapped */
		{"mlx5_core", "rx_global_pause"},
		{"mlx5_core", "rx_global_pause_duration"},
		{"mlx5_core", "rx_err_lane_4_phy"}, /* the driver prints lanes 0..3 */
		{"mlx5_core", "rx_err_lane_phy"},
		{"mlx5_core", "rx_corrected_bits"}, /* bnxt_en's spelling */
		{"mlx5_core", "rx_packets_phy"},
		{"mlx5_core", "rx_bytes"},
		/* ice names need the ".nic" suffix */
		{"ice", "tx_priority_1_xoff"},
		{"ice", "rx_crc_errors"},
		{"ice", "rx_dropped"},
		{"ice", "link_xon_rx.nic"},
		{"ice", "rx_priority_8_xoff.nic"},
		{"ice", "port.rx_priority_1_xoff_rx"},
		/* i40e names need the "port." prefix */
		{"i40e", "rx_priority_1_xoff_rx"},
		{"i40e", "rx_crc_errors"},
		{"i40e", "port.link_xon_rx"},
		{"i40e", "port.rx_priority_8_xoff_rx"},
		{"i40e", "port.rx_priority_1_xoff_rxx"},
		{"i40e", "rx_priority_1_xoff.nic"},
		/* bnxt_en names left unmapped */
		{"bnxt_en", "pfc_pri0_rx_transitions"},
		{"bnxt_en", "pfc_pri0_tx_transitions"},
		{"bnxt_en", "rx_bytes_cos0"},
		{"bnxt_en", "rx_discard_packets_cos0"},
		{"bnxt_en", "continuous_pause_events"},
		{"bnxt_en", "rx_total_discard_pkts"},
		{"bnxt_en", "rx_bytes"},
		{"bnxt_en", "rx_pfc_ena_frames_pri8"},
		{"bnxt_en", "rx_prio0_pause"},
		{"bnxt_en", "rx_bits_phy"}, /* mlx5's spelling */
		{"bnxt_en", "rx_filter_miss"},
		/* driver names are exact too */
		{"mlx5", "rx_prio1_pause"},
		{"mlx5_core ", "rx_prio1_pause"},
		{"MLX5_CORE", "rx_prio1_pause"},
		{"bnxt", "rx_pause_frames"},
		{"i40", "port.rx_crc_errors"},
	};
	struct eth_stat_map m, before;

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		memset(&m, 0x5a, sizeof(m));
		before = m;
		if (eth_stat_lookup(cases[i].driver, cases[i].name, &m))
			fail_msg("%s: \"%s\" must not match", cases[i].driver, cases[i].name);
		/* a miss leaves out alone */
		assert_memory_equal(&m, &before, sizeof(m));
	}
}

static void test_null_and_unknown(void **state)
{
	struct eth_stat_map m;

	(void)state;
	assert_false(eth_stat_lookup(NULL, "rx_prio1_pause", &m));
	assert_false(eth_stat_lookup("mlx5_core", NULL, &m));
	assert_false(eth_stat_lookup(NULL, NULL, NULL));
	assert_false(eth_stat_lookup("mlx5_core", "", &m));
	assert_false(eth_stat_lookup("", "rx_prio1_pause", &m));
	assert_false(eth_stat_lookup("virtio_net", "rx_prio1_pause", &m));
	/* out may be NULL: only whether the name is known */
	assert_true(eth_stat_lookup("mlx5_core", "rx_prio1_pause", NULL));

	assert_true(eth_driver_known("mlx5_core"));
	assert_true(eth_driver_known("ice"));
	assert_true(eth_driver_known("bnxt_en"));
	assert_true(eth_driver_known("i40e"));
	assert_false(eth_driver_known(NULL));
	assert_false(eth_driver_known(""));
	assert_false(eth_driver_known("mlx5"));
	assert_false(eth_driver_known("mlx4_en"));
	assert_false(eth_driver_known("ice "));
	assert_false(eth_driver_known("bnxt"));

	assert_null(eth_family_name(ETH_FAM_NONE));
	assert_null(eth_family_help(ETH_FAM_NONE));
	assert_null(eth_family_extra_label(ETH_FAM_NONE));
	assert_false(eth_family_has_direction(ETH_FAM_NONE));
	assert_false(eth_family_has_priority(ETH_FAM_NONE));
	assert_null(eth_family_name(ETH_FAM_COUNT));
	assert_null(eth_family_help(ETH_FAM_COUNT));
	assert_null(eth_family_extra_label(ETH_FAM_COUNT));
	assert_false(eth_family_has_direction(ETH_FAM_COUNT));
	assert_false(eth_family_has_priority(ETH_FAM_COUNT));
	assert_null(eth_family_name((enum eth_family)(ETH_FAM_COUNT + 3)));
	assert_false(eth_family_has_priority((enum eth_family)(ETH_FAM_COUNT + 3)));
}

/* ---- families --------------------------------------------------------------------------- */

static void test_every_family_described(void **state)
{
	(void)state;
	/* the expectation table covers every family exactly once */
	assert_int_equal(ARRAY_LEN(family_expects), ETH_FAM_COUNT - 1);
	for (int f = ETH_FAM_NONE + 1; f < ETH_FAM_COUNT; f++) {
		const char *name = eth_family_name((enum eth_family)f);
		const char *help = eth_family_help((enum eth_family)f);
		const struct family_expect *e = NULL;

		for (size_t i = 0; i < ARRAY_LEN(family_expects); i++) {
			if ((int)family_expects[i].family == f)
				e = &family_expects[i];
		}
		if (!e)
			fail_msg("family %d has no expectation", f);
		assert_non_null(name);
		if (!name_valid(name))
			fail_msg("family %d: invalid metric name %s", f, name);
		assert_string_equal(name, e->name);
		assert_true(strncmp(name, "rdma_netdev_", 12) == 0);
		if (!ends_with(name, "_total"))
			fail_msg("counter %s does not end in _total", name);
		/* abbreviated units are not allowed */
		assert_null(strstr(name, "_us"));
		assert_null(strstr(name, "_sec_"));
		assert_null(strstr(name, "_pkts"));
		/* promtool's lint wants bytes, not bits, as a unit word */
		assert_null(strstr(name, "_bits_"));
		if (!help_is_plain(help))
			fail_msg("HELP of %s is not one plain ASCII line", name);
		if (!strstr(help, "ethtool statistics") && !strstr(help, "ethtool netlink"))
			fail_msg("HELP of %s does not say where the number comes from", name);
		assert_int_equal(eth_family_has_direction((enum eth_family)f), e->direction);
		assert_int_equal(eth_family_has_priority((enum eth_family)f), e->priority);
		if (e->extra_label)
			assert_string_equal(eth_family_extra_label((enum eth_family)f),
					    e->extra_label);
		else
			assert_null(eth_family_extra_label((enum eth_family)f));
		/* the name says what the labels carry */
		assert_int_equal(strstr(name, "_priority_") != NULL, e->priority);
	}
}

static void test_family_names_unique(void **state)
{
	(void)state;
	for (int a = ETH_FAM_NONE + 1; a < ETH_FAM_COUNT; a++) {
		const char *why = metric_name_problem(eth_family_name((enum eth_family)a));

		if (why)
			fail_msg("%s: %s", eth_family_name((enum eth_family)a), why);
		for (int b = a + 1; b < ETH_FAM_COUNT; b++)
			assert_string_not_equal(eth_family_name((enum eth_family)a),
						eth_family_name((enum eth_family)b));
	}
}

/* Every mapping carries exactly the labels its family has, and a sane scale. */
static void test_mappings_agree_with_families(void **state)
{
	static struct concrete names[MAX_CONCRETE];

	(void)state;
	for (size_t d = 0; d < ARRAY_LEN(drivers); d++) {
		size_t n = concrete_names(&drivers[d], names, MAX_CONCRETE);

		for (size_t i = 0; i < n; i++) {
			struct eth_stat_map m;
			const char *extra;

			assert_true(eth_stat_lookup(drivers[d].driver, names[i].name, &m));
			assert_true(m.family > ETH_FAM_NONE && m.family < ETH_FAM_COUNT);
			assert_int_equal(m.direction != ETH_DIR_NONE,
					 eth_family_has_direction(m.family));
			if (eth_family_has_priority(m.family))
				assert_true(m.priority >= 0 && m.priority <= 7);
			else
				assert_int_equal(m.priority, -1);
			extra = eth_family_extra_label(m.family);
			assert_int_equal(m.label != NULL, extra != NULL);
			/* a lane is its number, other labels are words */
			if (m.label && extra && strcmp(extra, "lane") == 0)
				assert_true(strlen(m.label) == 1 && m.label[0] >= '0' &&
					    m.label[0] <= '7');
			else if (m.label)
				assert_true(name_valid(m.label) && m.label[0] != '_');
			/* only the seconds family is scaled, from microseconds */
			if (m.family == ETH_FAM_PRIO_PAUSE_DURATION)
				assert_true(m.scale == 1e-6);
			else
				assert_true(m.scale == 1.0);
		}
	}
}

/* The drivers' per-priority names cover all eight priorities. */
static void test_all_priorities_covered(void **state)
{
	static const struct {
		const char *driver, *pattern;
	} cases[] = {
		{"mlx5_core", "rx_prio%u_pause"},	 {"mlx5_core", "tx_prio%u_pause"},
		{"ice", "rx_priority_%u_xoff.nic"},	 {"ice", "tx_priority_%u_xoff.nic"},
		{"i40e", "port.rx_priority_%u_xoff_rx"}, {"i40e", "port.tx_priority_%u_xoff_tx"},
		{"bnxt_en", "rx_pfc_ena_frames_pri%u"},	 {"bnxt_en", "tx_pfc_ena_frames_pri%u"},
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		bool seen[8] = {false};

		for (int p = 0; p < 8; p++) {
			char name[NAME_MAX_LEN];
			struct eth_stat_map m;

			expand_prio(cases[i].pattern, p, name, sizeof(name));
			assert_true(eth_stat_lookup(cases[i].driver, name, &m));
			assert_int_equal(m.family, ETH_FAM_PRIO_PAUSE_FRAMES);
			assert_true(m.priority >= 0 && m.priority < 8);
			seen[m.priority] = true;
		}
		for (int p = 0; p < 8; p++)
			assert_true(seen[p]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlx5_names),
		cmocka_unit_test(test_ice_names),
		cmocka_unit_test(test_i40e_names),
		cmocka_unit_test(test_bnxt_names),
		cmocka_unit_test(test_no_duplicate_concrete_names),
		cmocka_unit_test(test_names_only_under_their_driver),
		cmocka_unit_test(test_priority_placeholder_exact),
		cmocka_unit_test(test_no_prefix_or_suffix_match),
		cmocka_unit_test(test_known_non_matches),
		cmocka_unit_test(test_null_and_unknown),
		cmocka_unit_test(test_every_family_described),
		cmocka_unit_test(test_family_names_unique),
		cmocka_unit_test(test_mappings_agree_with_families),
		cmocka_unit_test(test_all_priorities_covered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
