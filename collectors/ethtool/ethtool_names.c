// SPDX-License-Identifier: Apache-2.0
/*
 * Driver ethtool statistic names (ETHTOOL_GSTRINGS, ETH_SS_STATS) -> typed
 * metric families, one table per driver (ETHTOOL_GDRVINFO .driver).
 *
 * A pattern is either a literal name or a name with one "%u" where the driver
 * prints the 802.1p priority. Matching is exact: the placeholder matches one
 * digit 0..7 and nothing else, the text around it must match in full (no
 * prefix matches, no trailing garbage). Every name below was read from the
 * driver source named above its table (facts only, no code taken); a name a
 * driver builds with a format string is given here as the pattern that
 * yields the same strings.
 *
 * Names deliberately left out (still available through the raw
 * --collector.ethtool.stat-include families) are listed with the reason at
 * each table.
 */
#include <stddef.h>
#include <string.h>

#include "ethtool_names.h"

struct eth_rule {
	const char *pattern; /* literal, or with one "%u" for the priority */
	enum eth_family family;
	enum eth_direction direction;
	const char *label; /* reason or level, NULL for other families */
	double scale;
};

struct eth_driver_table {
	const char *driver;
	const struct eth_rule *rules;
	size_t n_rules;
};

/* 1e-6: the driver counts microseconds, the family is in seconds. */
#define US_TO_S 1e-6

#define RULE(_p, _f, _d, _l, _s)                                                                   \
	{                                                                                          \
		.pattern = (_p), .family = (_f), .direction = (_d), .label = (_l), .scale = (_s),  \
	}
/* Families with a direction label (rx/tx). */
#define RX(_p, _f)    RULE(_p, _f, ETH_DIR_RX, NULL, 1.0)
#define TX(_p, _f)    RULE(_p, _f, ETH_DIR_TX, NULL, 1.0)
#define RX_US(_p, _f) RULE(_p, _f, ETH_DIR_RX, NULL, US_TO_S)
#define TX_US(_p, _f) RULE(_p, _f, ETH_DIR_TX, NULL, US_TO_S)
/* Families without a direction label, with or without reason/level. */
#define PLAIN(_p, _f)	    RULE(_p, _f, ETH_DIR_NONE, NULL, 1.0)
#define LABELED(_p, _f, _l) RULE(_p, _f, ETH_DIR_NONE, _l, 1.0)

/*
 * mlx5_core: drivers/net/ethernet/mellanox/mlx5/core/en_stats.c, the counter
 * descriptor tables
 *  - pport_per_prio_traffic_stats_desc: "rx_prio%d_bytes", "rx_prio%d_packets",
 *    "rx_prio%d_discards", "tx_prio%d_bytes", "tx_prio%d_packets" (PPCNT
 *    per-priority group, always present for priorities 0..7);
 *  - pport_per_prio_pfc_stats_desc: "rx_%s_pause", "rx_%s_pause_duration",
 *    "tx_%s_pause", "tx_%s_pause_duration", "rx_%s_pause_transition" where %s
 *    is "prio%d" for each priority with PFC enabled (or "global" when global
 *    pause is on);
 *  - pport_pfc_stall_stats_desc: "tx_pause_storm_warning_events",
 *    "tx_pause_storm_error_events" (device_stall_minor/critical_watermark_cnt);
 *  - pport_per_tc_prio_stats_desc: "rx_prio%d_buf_discard"
 *    (no_buffer_discard_uc) and pport_per_tc_congest_prio_stats_desc:
 *    "rx_prio%d_cong_discard" (wred_discard), "rx_prio%d_marked"
 *    (ecn_marked_tc), only with the sbcam_reg capability;
 *  - pport_802_3_stats_desc: "rx_crc_errors_phy", "rx_symbol_err_phy",
 *    "rx_pause_ctrl_phy", "tx_pause_ctrl_phy";
 *  - pport_2863_stats_desc: "rx_discards_phy", "tx_discards_phy";
 *  - the phy group's fill_strings: "link_down_events_phy";
 *  - pport_eth_ext_stats_desc: "rx_buffer_passed_thres_phy";
 *  - q_stats_desc: "rx_out_of_buffer" (the field name, stringified).
 * Units and meaning from Documentation/networking/device_drivers/ethernet/
 * mellanox/mlx5/counters.rst: *_pause_duration are microseconds,
 * rx_prioN_pause_transition counts XOFF->XON transitions, *_pause are the
 * PFC pause frames of that priority.
 *
 * Ambiguous choices:
 *  - rx_prioN_discards ("discarded by device due to lack of receive buffers",
 *    per port) and rx_prioN_buf_discard ("lack of per host receive buffers",
 *    shared buffer) are different counters; they get the reasons
 *    "port_buffer" and "buffer" so they do not collide on one series.
 *  - rx_symbol_err_phy (IEEE 802.3 SymbolErrorDuringCarrier) is the symbol
 *    error family; rx_pcs_symbol_err_phy (PCS symbol errors FEC did not
 *    correct, or all of them without FEC) has a family of its own, the
 *    numerator of the symbol (post-FEC) bit error ratio.
 *  - Physical layer BER counters (issue 32): pport_phy_statistical_stats_desc
 *    (only with the ppcnt_statistical_group capability):
 *    "rx_pcs_symbol_err_phy" (phy_symbol_errors), "rx_corrected_bits_phy"
 *    (phy_corrected_bits, the register the driver's get_fec_stats also reports
 *    as the netlink corrected_bits total, so both feed one family);
 *    pport_phy_statistical_err_lanes_stats_desc (per_lane_error_counters
 *    capability): "rx_err_lane_0_phy".."rx_err_lane_3_phy", which despite
 *    the name read phy_corrected_bits_lane0..3, the corrected bits per lane.
 *    "rx_bits_phy" (phy_received_bits, the BER denominator) is documented in
 *    counters.rst and added to the same table by a 2026 patch
 *    ("net/mlx5e: Expose physical received bits counters to ethtool");
 *    older drivers do not print it.
 *  - "rx_global_pause*" / "tx_global_pause*" (link-level pause, per-priority
 *    group read at priority 0) are not mapped: rx/tx_pause_ctrl_phy already
 *    feed the link-level family and there is no link-level duration family.
 */
static const struct eth_rule mlx5_rules[] = {
	RX("rx_prio%u_bytes", ETH_FAM_PRIO_BYTES),
	RX("rx_prio%u_packets", ETH_FAM_PRIO_PACKETS),
	LABELED("rx_prio%u_discards", ETH_FAM_PRIO_DISCARDS, "port_buffer"),
	TX("tx_prio%u_bytes", ETH_FAM_PRIO_BYTES),
	TX("tx_prio%u_packets", ETH_FAM_PRIO_PACKETS),
	RX("rx_prio%u_pause", ETH_FAM_PRIO_PAUSE_FRAMES),
	RX_US("rx_prio%u_pause_duration", ETH_FAM_PRIO_PAUSE_DURATION),
	TX("tx_prio%u_pause", ETH_FAM_PRIO_PAUSE_FRAMES),
	TX_US("tx_prio%u_pause_duration", ETH_FAM_PRIO_PAUSE_DURATION),
	PLAIN("rx_prio%u_pause_transition", ETH_FAM_PRIO_PAUSE_TRANSITIONS),
	LABELED("rx_prio%u_buf_discard", ETH_FAM_PRIO_DISCARDS, "buffer"),
	LABELED("rx_prio%u_cong_discard", ETH_FAM_PRIO_DISCARDS, "congestion"),
	PLAIN("rx_prio%u_marked", ETH_FAM_PRIO_ECN_MARKED),
	LABELED("tx_pause_storm_warning_events", ETH_FAM_PAUSE_STORM, "warning"),
	LABELED("tx_pause_storm_error_events", ETH_FAM_PAUSE_STORM, "error"),
	RX("rx_pause_ctrl_phy", ETH_FAM_PAUSE_FRAMES),
	TX("tx_pause_ctrl_phy", ETH_FAM_PAUSE_FRAMES),
	RX("rx_discards_phy", ETH_FAM_DISCARDS),
	TX("tx_discards_phy", ETH_FAM_DISCARDS),
	PLAIN("rx_crc_errors_phy", ETH_FAM_CRC_ERRORS),
	PLAIN("rx_symbol_err_phy", ETH_FAM_SYMBOL_ERRORS),
	PLAIN("link_down_events_phy", ETH_FAM_LINK_DOWN),
	PLAIN("rx_buffer_passed_thres_phy", ETH_FAM_BUFFER_THRESHOLD),
	PLAIN("rx_out_of_buffer", ETH_FAM_OUT_OF_BUFFER),
	PLAIN("rx_bits_phy", ETH_FAM_PHY_BITS_RECEIVED),
	PLAIN("rx_pcs_symbol_err_phy", ETH_FAM_PHY_SYMBOL_ERRORS),
	PLAIN("rx_corrected_bits_phy", ETH_FAM_FEC_CORRECTED_BITS),
	LABELED("rx_err_lane_0_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "0"),
	LABELED("rx_err_lane_1_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "1"),
	LABELED("rx_err_lane_2_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "2"),
	LABELED("rx_err_lane_3_phy", ETH_FAM_FEC_LANE_CORRECTED_BITS, "3"),
};

/*
 * ice: drivers/net/ethernet/intel/ice/ice_ethtool.c
 *  - ice_gstrings_pf_stats (port statistics, appended only on the PF netdev,
 *    every name ends in ".nic"): "link_xoff_rx.nic", "link_xoff_tx.nic",
 *    "link_xon_rx.nic", "link_xon_tx.nic", "rx_crc_errors.nic",
 *    "rx_dropped.nic" (stats.eth.rx_discards, which ice_main.c reads from
 *    PRTRPB_RDPC, the receive packet buffer drop count),
 *    "tx_dropped_link_down.nic" (GLPRT_TDOLD);
 *  - ice_get_strings(), ETH_SS_STATS, for i < ICE_MAX_USER_PRIORITY:
 *    "tx_priority_%u_xon.nic", "tx_priority_%u_xoff.nic",
 *    "rx_priority_%u_xon.nic", "rx_priority_%u_xoff.nic"
 *    (stats.priority_xon/xoff_rx/tx).
 * XOFF frames are the PFC pause frames, XON frames the resume frames.
 *
 * Ambiguous choices:
 *  - link_xoff_* are the link-level pause frames; link_xon_* (link-level
 *    resume) have no family and stay unmapped.
 *  - tx_dropped_link_down.nic is the only transmit discard counter at port
 *    level; it counts packets dropped while the link was down, a subset of
 *    what mlx5 tx_discards_phy counts.
 *  - The VSI level "rx_dropped" (no ".nic") is per netdev queue set, not
 *    physical, and is not mapped. ice prints no XON->XOFF transition counter.
 */
static const struct eth_rule ice_rules[] = {
	RX("rx_priority_%u_xoff.nic", ETH_FAM_PRIO_PAUSE_FRAMES),
	TX("tx_priority_%u_xoff.nic", ETH_FAM_PRIO_PAUSE_FRAMES),
	RX("rx_priority_%u_xon.nic", ETH_FAM_PRIO_RESUME_FRAMES),
	TX("tx_priority_%u_xon.nic", ETH_FAM_PRIO_RESUME_FRAMES),
	RX("link_xoff_rx.nic", ETH_FAM_PAUSE_FRAMES),
	TX("link_xoff_tx.nic", ETH_FAM_PAUSE_FRAMES),
	RX("rx_dropped.nic", ETH_FAM_DISCARDS),
	TX("tx_dropped_link_down.nic", ETH_FAM_DISCARDS),
	PLAIN("rx_crc_errors.nic", ETH_FAM_CRC_ERRORS),
};

/*
 * i40e: drivers/net/ethernet/intel/i40e/i40e_ethtool.c
 *  - i40e_gstrings_stats (port statistics, "port." prefix, only on the PF
 *    netdev): "port.link_xoff_rx", "port.link_xoff_tx", "port.link_xon_rx",
 *    "port.link_xon_tx", "port.rx_crc_errors", "port.rx_dropped"
 *    (stats.eth.rx_discards, read from GLPRT_RDPC in i40e_main.c),
 *    "port.tx_dropped_link_down";
 *  - i40e_gstrings_pfc_stats, printed once per priority 0..7:
 *    "port.tx_priority_%u_xon_tx", "port.tx_priority_%u_xoff_tx",
 *    "port.rx_priority_%u_xon_rx", "port.rx_priority_%u_xoff_rx",
 *    "port.rx_priority_%u_xon_2_xoff";
 *  - older kernels (before i40e_gstrings_pfc_stats replaced the open coded
 *    loops in i40e_get_strings(), around v4.18) print the same counters as
 *    "port.tx_priority_%u_xon", "port.tx_priority_%u_xoff",
 *    "port.rx_priority_%u_xon", "port.rx_priority_%u_xoff" (and the same
 *    "port.rx_priority_%u_xon_2_xoff"); both spellings are in the table.
 *
 * Ambiguous choices:
 *  - priority_xon_2_xoff counts XON->XOFF transitions (a pause starts);
 *    mlx5 counts XOFF->XON (a pause ends). Both count one per pause episode,
 *    so both feed the transitions family.
 *  - link_xon_* stay unmapped and tx_dropped_link_down is the transmit
 *    discard counter, as for ice.
 *  - The netdev level "rx_crc_errors" and "rx_dropped" (no prefix) repeat or
 *    aggregate other counters and are not mapped.
 */
static const struct eth_rule i40e_rules[] = {
	RX("port.rx_priority_%u_xoff_rx", ETH_FAM_PRIO_PAUSE_FRAMES),
	TX("port.tx_priority_%u_xoff_tx", ETH_FAM_PRIO_PAUSE_FRAMES),
	RX("port.rx_priority_%u_xon_rx", ETH_FAM_PRIO_RESUME_FRAMES),
	TX("port.tx_priority_%u_xon_tx", ETH_FAM_PRIO_RESUME_FRAMES),
	RX("port.rx_priority_%u_xoff", ETH_FAM_PRIO_PAUSE_FRAMES),
	TX("port.tx_priority_%u_xoff", ETH_FAM_PRIO_PAUSE_FRAMES),
	RX("port.rx_priority_%u_xon", ETH_FAM_PRIO_RESUME_FRAMES),
	TX("port.tx_priority_%u_xon", ETH_FAM_PRIO_RESUME_FRAMES),
	PLAIN("port.rx_priority_%u_xon_2_xoff", ETH_FAM_PRIO_PAUSE_TRANSITIONS),
	RX("port.link_xoff_rx", ETH_FAM_PAUSE_FRAMES),
	TX("port.link_xoff_tx", ETH_FAM_PAUSE_FRAMES),
	RX("port.rx_dropped", ETH_FAM_DISCARDS),
	TX("port.tx_dropped_link_down", ETH_FAM_DISCARDS),
	PLAIN("port.rx_crc_errors", ETH_FAM_CRC_ERRORS),
};

/*
 * bnxt_en: drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c
 *  - bnxt_port_stats_arr (HWRM port statistics, names are the stringified
 *    struct rx/tx_port_stats fields): "rx_pfc_ena_frames_pri0".."pri7",
 *    "tx_pfc_ena_frames_pri0".."pri7", "rx_pause_frames", "tx_pause_frames",
 *    "rx_fcs_err_frames", "rx_stat_discard", "tx_stat_discard";
 *  - bnxt_port_stats_ext_arr (struct rx_port_stats_ext; the driver prints
 *    only the first fw_rx_stats_ext_size entries the firmware fills):
 *    "link_down_events", BNXT_RX_STATS_EXT_PFC_ENTRIES giving
 *    "pfc_pri%u_rx_duration_us" and "pfc_pri%u_rx_transitions",
 *    "rx_bits", "rx_buffer_passed_threshold", "rx_pcs_symbol_err",
 *    "rx_corrected_bits", and in newer kernels (HWRM 1.10.2.63)
 *    "rx_fec_corrected_blocks", "rx_fec_uncorrectable_blocks", the same
 *    registers bnxt_get_fec_stats() reports over ethtool netlink;
 *  - bnxt_tx_port_stats_ext_arr: BNXT_TX_STATS_EXT_PFC_ENTRIES giving
 *    "pfc_pri%u_tx_duration_us" and "pfc_pri%u_tx_transitions";
 *  - bnxt_rx_bytes_pri_arr, bnxt_rx_pkts_pri_arr, bnxt_tx_bytes_pri_arr,
 *    bnxt_tx_pkts_pri_arr (BNXT_RX/TX_STATS_PRI_ENTRIES): "rx_bytes_pri%u",
 *    "rx_packets_pri%u", "tx_bytes_pri%u", "tx_packets_pri%u", printed only
 *    when pri2cos_valid.
 *
 * Ambiguous choices:
 *  - *_pri%u bytes/packets are the counters of the CoS queue the priority
 *    maps to (pri2cos_idx): priorities sharing a queue show the same values.
 *  - rx/tx_pfc_ena_frames_pri%u count PFC frames with that priority's enable
 *    bit set, the PFC pause frames of the priority.
 *  - pfc_pri%u_rx/tx_transitions are not mapped: Broadcom describes them as
 *    transitions between XON->XOFF and XOFF->XON (both ways), while the
 *    transitions family counts one per pause episode (mlx5, i40e).
 *  - rx_pcs_symbol_err (PCS symbol errors) feeds the symbol error family,
 *    the only symbol error counter bnxt_en prints (kept there: the check
 *    command and the alerts read that family); rx_bits, rx_corrected_bits
 *    and the FEC block counters feed the FEC and PHY families.
 *  - rx_stat_discard / tx_stat_discard are the port's discard counters; the
 *    driver source names them without further detail.
 *  - continuous_pause_events / resume_pause_events (and the _roce_
 *    variants), the *_cos%u and rx_discard_*_cos%u counters (per CoS queue,
 *    not per priority) and "rx_total_discard_pkts" (sum of the ring
 *    discards of this function) are not mapped.
 */
static const struct eth_rule bnxt_rules[] = {
	RX("rx_pfc_ena_frames_pri%u", ETH_FAM_PRIO_PAUSE_FRAMES),
	TX("tx_pfc_ena_frames_pri%u", ETH_FAM_PRIO_PAUSE_FRAMES),
	RX_US("pfc_pri%u_rx_duration_us", ETH_FAM_PRIO_PAUSE_DURATION),
	TX_US("pfc_pri%u_tx_duration_us", ETH_FAM_PRIO_PAUSE_DURATION),
	RX("rx_bytes_pri%u", ETH_FAM_PRIO_BYTES),
	TX("tx_bytes_pri%u", ETH_FAM_PRIO_BYTES),
	RX("rx_packets_pri%u", ETH_FAM_PRIO_PACKETS),
	TX("tx_packets_pri%u", ETH_FAM_PRIO_PACKETS),
	RX("rx_pause_frames", ETH_FAM_PAUSE_FRAMES),
	TX("tx_pause_frames", ETH_FAM_PAUSE_FRAMES),
	RX("rx_stat_discard", ETH_FAM_DISCARDS),
	TX("tx_stat_discard", ETH_FAM_DISCARDS),
	PLAIN("rx_fcs_err_frames", ETH_FAM_CRC_ERRORS),
	PLAIN("rx_pcs_symbol_err", ETH_FAM_SYMBOL_ERRORS),
	PLAIN("link_down_events", ETH_FAM_LINK_DOWN),
	PLAIN("rx_buffer_passed_threshold", ETH_FAM_BUFFER_THRESHOLD),
	PLAIN("rx_bits", ETH_FAM_PHY_BITS_RECEIVED),
	PLAIN("rx_corrected_bits", ETH_FAM_FEC_CORRECTED_BITS),
	PLAIN("rx_fec_corrected_blocks", ETH_FAM_FEC_CORRECTED_BLOCKS),
	PLAIN("rx_fec_uncorrectable_blocks", ETH_FAM_FEC_UNCORRECTABLE_BLOCKS),
};

#define TABLE(_drv, _rules)                                                                        \
	{                                                                                          \
		.driver = (_drv), .rules = (_rules),                                               \
		.n_rules = sizeof(_rules) / sizeof((_rules)[0]),                                   \
	}

static const struct eth_driver_table driver_tables[] = {
	TABLE("mlx5_core", mlx5_rules),
	TABLE("ice", ice_rules),
	TABLE("bnxt_en", bnxt_rules),
	TABLE("i40e", i40e_rules),
};

struct eth_family_info {
	const char *name;
	const char *help;
	const char *extra_label;
	bool direction;
	bool priority;
};

static const struct eth_family_info families[ETH_FAM_COUNT] = {
	[ETH_FAM_PRIO_PAUSE_FRAMES] =
		{
			.name = "rdma_netdev_priority_pause_frames_total",
			.help = "PFC pause (XOFF) frames per priority, received (rx) or sent (tx), "
				"from the "
				"NIC driver's ethtool statistics (mlx5 rx/tx_prioN_pause, ice "
				"rx/tx_priority_N_xoff.nic, i40e "
				"port.rx/tx_priority_N_xoff_rx/_tx, bnxt_en "
				"rx/tx_pfc_ena_frames_priN).",
			.direction = true,
			.priority = true,
		},
	[ETH_FAM_PRIO_PAUSE_DURATION] =
		{
			.name = "rdma_netdev_priority_pause_duration_seconds_total",
			.help = "Time in seconds the priority was paused by PFC, rx: pause "
				"requested by the "
				"peer, tx: pause requested by this port, converted from "
				"microseconds in the NIC "
				"driver's ethtool statistics (mlx5 rx/tx_prioN_pause_duration, "
				"bnxt_en "
				"pfc_priN_rx/tx_duration_us).",
			.direction = true,
			.priority = true,
		},
	[ETH_FAM_PRIO_RESUME_FRAMES] =
		{
			.name = "rdma_netdev_priority_resume_frames_total",
			.help = "PFC resume (XON) frames per priority, received (rx) or sent (tx), "
				"from the "
				"NIC driver's ethtool statistics (ice rx/tx_priority_N_xon.nic, "
				"i40e "
				"port.rx/tx_priority_N_xon_rx/_tx).",
			.direction = true,
			.priority = true,
		},
	[ETH_FAM_PRIO_BYTES] =
		{
			.name = "rdma_netdev_priority_bytes_total",
			.help = "Bytes received (rx) or sent (tx) on the physical port per "
				"priority, from the "
				"NIC driver's ethtool statistics (mlx5 rx/tx_prioN_bytes; bnxt_en "
				"rx/tx_bytes_priN, counted per CoS queue the priority maps to).",
			.direction = true,
			.priority = true,
		},
	[ETH_FAM_PRIO_PACKETS] =
		{
			.name = "rdma_netdev_priority_packets_total",
			.help = "Packets received (rx) or sent (tx) on the physical port per "
				"priority, from "
				"the NIC driver's ethtool statistics (mlx5 rx/tx_prioN_packets; "
				"bnxt_en "
				"rx/tx_packets_priN, counted per CoS queue the priority maps to).",
			.direction = true,
			.priority = true,
		},
	[ETH_FAM_PRIO_PAUSE_TRANSITIONS] =
		{
			.name = "rdma_netdev_priority_pause_transitions_total",
			.help = "PFC pause episodes of the priority on receive, one per episode, "
				"from the NIC "
				"driver's ethtool statistics (mlx5 rx_prioN_pause_transition "
				"counts XOFF to XON, "
				"i40e port.rx_priority_N_xon_2_xoff counts XON to XOFF).",
			.priority = true,
		},
	[ETH_FAM_PRIO_ECN_MARKED] =
		{
			.name = "rdma_netdev_priority_ecn_marked_packets_total",
			.help = "Received packets the NIC marked with ECN congestion experienced "
				"because of "
				"host congestion, per priority, from the NIC driver's ethtool "
				"statistics (mlx5 "
				"rx_prioN_marked).",
			.priority = true,
		},
	[ETH_FAM_PRIO_DISCARDS] =
		{
			.name = "rdma_netdev_priority_packets_discarded_total",
			.help = "Received packets the NIC discarded per priority, by reason: "
				"buffer (no per "
				"host receive buffer), congestion (host congestion, WRED), "
				"port_buffer (no "
				"receive buffer on the port); from the NIC driver's ethtool "
				"statistics (mlx5 "
				"rx_prioN_buf_discard, rx_prioN_cong_discard, rx_prioN_discards).",
			.extra_label = "reason",
			.priority = true,
		},
	[ETH_FAM_PAUSE_FRAMES] =
		{
			.name = "rdma_netdev_pause_frames_total",
			.help = "Link-level (global, not PFC) pause frames received (rx) or sent "
				"(tx), from "
				"the ethtool netlink pause statistics or the NIC driver's ethtool "
				"statistics "
				"(mlx5 rx/tx_pause_ctrl_phy, ice link_xoff_rx/tx.nic, i40e "
				"port.link_xoff_rx/tx, bnxt_en rx/tx_pause_frames).",
			.direction = true,
		},
	[ETH_FAM_DISCARDS] =
		{
			.name = "rdma_netdev_packets_discarded_total",
			.help = "Packets the physical port discarded, rx: no receive buffer, tx: "
				"not sent "
				"(ice and i40e: only while the link was down), from the NIC "
				"driver's ethtool "
				"statistics (mlx5 rx/tx_discards_phy, ice rx_dropped.nic and "
				"tx_dropped_link_down.nic, i40e port.rx_dropped and "
				"port.tx_dropped_link_down, "
				"bnxt_en rx/tx_stat_discard).",
			.direction = true,
		},
	[ETH_FAM_PAUSE_STORM] =
		{
			.name = "rdma_netdev_pause_storm_events_total",
			.help = "Pause storm events: the port sent pause frames for too long, "
				"level warning "
				"(stall watermark reached) or error (pause transmission disabled, "
				"drops possible), "
				"from the NIC driver's ethtool statistics (mlx5 "
				"tx_pause_storm_warning_events, tx_pause_storm_error_events).",
			.extra_label = "level",
		},
	[ETH_FAM_OUT_OF_BUFFER] =
		{
			.name = "rdma_netdev_out_of_buffer_packets_dropped_total",
			.help = "Received packets dropped because a receive queue had no software "
				"buffer "
				"posted, from the NIC driver's ethtool statistics (mlx5 "
				"rx_out_of_buffer).",
		},
	[ETH_FAM_CRC_ERRORS] =
		{
			.name = "rdma_netdev_crc_errors_total",
			.help = "Received frames with a bad FCS (CRC), from the NIC driver's "
				"ethtool "
				"statistics (mlx5 rx_crc_errors_phy, ice rx_crc_errors.nic, i40e "
				"port.rx_crc_errors, bnxt_en rx_fcs_err_frames).",
		},
	[ETH_FAM_SYMBOL_ERRORS] =
		{
			.name = "rdma_netdev_symbol_errors_total",
			.help = "Physical coding (symbol) errors on receive, from the NIC driver's "
				"ethtool "
				"statistics (mlx5 rx_symbol_err_phy, bnxt_en rx_pcs_symbol_err).",
		},
	[ETH_FAM_LINK_DOWN] =
		{
			.name = "rdma_netdev_link_down_events_total",
			.help = "Times the link went down, from the NIC driver's ethtool "
				"statistics (mlx5 "
				"link_down_events_phy, bnxt_en link_down_events).",
		},
	[ETH_FAM_BUFFER_THRESHOLD] =
		{
			.name = "rdma_netdev_buffer_threshold_crossings_total",
			.help = "Times the port's receive buffer filled past its threshold (85% on "
				"mlx5), "
				"from the NIC driver's ethtool statistics (mlx5 "
				"rx_buffer_passed_thres_phy, "
				"bnxt_en rx_buffer_passed_threshold).",
		},
	[ETH_FAM_FEC_CORRECTED_BLOCKS] =
		{
			.name = "rdma_netdev_fec_corrected_blocks_total",
			.help = "FEC blocks (codewords) received with errors that FEC corrected, "
				"from the ethtool netlink FEC statistics (ETHTOOL_MSG_FEC_GET) or "
				"the NIC driver's ethtool statistics (bnxt_en "
				"rx_fec_corrected_blocks).",
		},
	[ETH_FAM_FEC_UNCORRECTABLE_BLOCKS] =
		{
			.name = "rdma_netdev_fec_uncorrectable_blocks_total",
			.help = "FEC blocks (codewords) received with errors that FEC could not "
				"correct (frames lost), from the ethtool netlink FEC statistics "
				"(ETHTOOL_MSG_FEC_GET) or the NIC driver's ethtool statistics "
				"(bnxt_en rx_fec_uncorrectable_blocks).",
		},
	[ETH_FAM_FEC_CORRECTED_BITS] =
		{
			.name = "rdma_netdev_fec_corrected_bit_errors_total",
			.help = "Bits FEC corrected on receive (the pre-FEC bit errors), from the "
				"ethtool netlink FEC statistics (ETHTOOL_MSG_FEC_GET) or the NIC "
				"driver's ethtool statistics (mlx5 rx_corrected_bits_phy, bnxt_en "
				"rx_corrected_bits).",
		},
	[ETH_FAM_PHY_BITS_RECEIVED] =
		{
			.name = "rdma_netdev_phy_bit_count_received_total",
			.help = "Bits received by the physical layer (the bit error ratio's "
				"denominator; counts with or without traffic), from the NIC "
				"driver's ethtool statistics (mlx5 rx_bits_phy, bnxt_en rx_bits).",
		},
	[ETH_FAM_PHY_SYMBOL_ERRORS] =
		{
			.name = "rdma_netdev_phy_symbol_errors_total",
			.help = "PCS symbol errors FEC did not correct (all of them without FEC), "
				"from the NIC driver's ethtool statistics (mlx5 "
				"rx_pcs_symbol_err_phy).",
		},
	[ETH_FAM_FEC_LANE_CORRECTED_BLOCKS] =
		{
			.name = "rdma_netdev_fec_lane_corrected_blocks_total",
			.help = "FEC blocks corrected per physical lane, where the driver counts "
				"per lane (mlx5 with FC-FEC), from the ethtool netlink FEC "
				"statistics (ETHTOOL_MSG_FEC_GET).",
			.extra_label = "lane",
		},
	[ETH_FAM_FEC_LANE_UNCORRECTABLE_BLOCKS] =
		{
			.name = "rdma_netdev_fec_lane_uncorrectable_blocks_total",
			.help = "FEC blocks FEC could not correct per physical lane, where the "
				"driver counts per lane (mlx5 with FC-FEC), from the ethtool "
				"netlink FEC statistics (ETHTOOL_MSG_FEC_GET).",
			.extra_label = "lane",
		},
	[ETH_FAM_FEC_LANE_CORRECTED_BITS] =
		{
			.name = "rdma_netdev_fec_lane_corrected_bit_errors_total",
			.help = "Bits FEC corrected per physical lane, from the ethtool netlink "
				"FEC statistics (ETHTOOL_MSG_FEC_GET) or the NIC driver's ethtool "
				"statistics (mlx5 rx_err_lane_N_phy).",
			.extra_label = "lane",
		},
};

static const struct eth_driver_table *find_table(const char *driver)
{
	if (!driver)
		return NULL;
	for (size_t i = 0; i < sizeof(driver_tables) / sizeof(driver_tables[0]); i++) {
		if (strcmp(driver_tables[i].driver, driver) == 0)
			return &driver_tables[i];
	}
	return NULL;
}

/* No match. */
#define NO_MATCH (-2)

/*
 * Matches name against pattern exactly. Returns the priority (0..7) for a
 * pattern with "%u", -1 for a literal pattern, NO_MATCH otherwise.
 */
static int match_pattern(const char *pattern, const char *name)
{
	const char *ph = strstr(pattern, "%u");
	size_t prefix;
	char digit;

	if (!ph)
		return strcmp(pattern, name) == 0 ? -1 : NO_MATCH;
	prefix = (size_t)(ph - pattern);
	/* strncmp stops at a shorter name's NUL, which cannot match. */
	if (strncmp(pattern, name, prefix) != 0)
		return NO_MATCH;
	digit = name[prefix];
	if (digit < '0' || digit > '7')
		return NO_MATCH;
	if (strcmp(ph + 2, name + prefix + 1) != 0)
		return NO_MATCH;
	return digit - '0';
}

bool eth_stat_lookup(const char *driver, const char *name, struct eth_stat_map *out)
{
	const struct eth_driver_table *t = find_table(driver);

	if (!t || !name)
		return false;
	for (size_t i = 0; i < t->n_rules; i++) {
		const struct eth_rule *r = &t->rules[i];
		int prio = match_pattern(r->pattern, name);

		if (prio == NO_MATCH)
			continue;
		if (out)
			*out = (struct eth_stat_map){
				.family = r->family,
				.direction = r->direction,
				.priority = prio,
				.label = r->label,
				.scale = r->scale,
			};
		return true;
	}
	return false;
}

bool eth_driver_known(const char *driver)
{
	return find_table(driver) != NULL;
}

static const struct eth_family_info *family_info(enum eth_family f)
{
	if ((int)f <= (int)ETH_FAM_NONE || (int)f >= (int)ETH_FAM_COUNT)
		return NULL;
	return &families[f];
}

const char *eth_family_name(enum eth_family f)
{
	const struct eth_family_info *fi = family_info(f);

	return fi ? fi->name : NULL;
}

const char *eth_family_help(enum eth_family f)
{
	const struct eth_family_info *fi = family_info(f);

	return fi ? fi->help : NULL;
}

const char *eth_family_extra_label(enum eth_family f)
{
	const struct eth_family_info *fi = family_info(f);

	return fi ? fi->extra_label : NULL;
}

bool eth_family_has_direction(enum eth_family f)
{
	const struct eth_family_info *fi = family_info(f);

	return fi && fi->direction;
}

bool eth_family_has_priority(enum eth_family f)
{
	const struct eth_family_info *fi = family_info(f);

	return fi && fi->priority;
}
