/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Driver ethtool statistic names -> typed metric families, per driver. Pure
 * tables and a lookup, no I/O. Every table cites the driver source it was
 * taken from (ethtool_names.c). A driver the tables do not know maps nothing:
 * its netdevs still get the generic netlink pause statistics, DCB PFC and the
 * raw --collector.ethtool.stat-include families.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_NAMES_H
#define RDMA_EXPORTER_ETHTOOL_NAMES_H

#include <stdbool.h>
#include <stdint.h>

enum eth_family {
	ETH_FAM_NONE,
	/* per priority; labels netdev, direction, priority */
	ETH_FAM_PRIO_PAUSE_FRAMES,   /* rdma_netdev_priority_pause_frames_total (XOFF) */
	ETH_FAM_PRIO_PAUSE_DURATION, /* rdma_netdev_priority_pause_duration_seconds_total */
	ETH_FAM_PRIO_RESUME_FRAMES,  /* rdma_netdev_priority_resume_frames_total (XON) */
	ETH_FAM_PRIO_BYTES,	     /* rdma_netdev_priority_bytes_total */
	ETH_FAM_PRIO_PACKETS,	     /* rdma_netdev_priority_packets_total */
	/* per priority; labels netdev, priority */
	ETH_FAM_PRIO_PAUSE_TRANSITIONS, /* rdma_netdev_priority_pause_transitions_total */
	ETH_FAM_PRIO_ECN_MARKED,	/* rdma_netdev_priority_ecn_marked_packets_total */
	/* per priority; labels netdev, priority, reason ("buffer", "congestion", ...) */
	ETH_FAM_PRIO_DISCARDS, /* rdma_netdev_priority_packets_discarded_total */
	/* per netdev; labels netdev, direction */
	ETH_FAM_PAUSE_FRAMES, /* rdma_netdev_pause_frames_total (link-level pause) */
	ETH_FAM_DISCARDS,     /* rdma_netdev_packets_discarded_total (physical layer) */
	/* per netdev; labels netdev, level ("warning", "error") */
	ETH_FAM_PAUSE_STORM, /* rdma_netdev_pause_storm_events_total */
	/* per netdev; label netdev */
	ETH_FAM_OUT_OF_BUFFER,	  /* rdma_netdev_out_of_buffer_packets_dropped_total */
	ETH_FAM_CRC_ERRORS,	  /* rdma_netdev_crc_errors_total */
	ETH_FAM_SYMBOL_ERRORS,	  /* rdma_netdev_symbol_errors_total */
	ETH_FAM_LINK_DOWN,	  /* rdma_netdev_link_down_events_total */
	ETH_FAM_BUFFER_THRESHOLD, /* rdma_netdev_buffer_threshold_crossings_total */
	/* FEC and PHY bit errors (issue 32), label netdev; the FEC families are
	 * also filled from ethtool netlink (ethtool_fec.c), which comes first */
	ETH_FAM_FEC_CORRECTED_BLOCKS,	  /* rdma_netdev_fec_corrected_blocks_total */
	ETH_FAM_FEC_UNCORRECTABLE_BLOCKS, /* rdma_netdev_fec_uncorrectable_blocks_total */
	ETH_FAM_FEC_CORRECTED_BITS,	  /* rdma_netdev_fec_corrected_bit_errors_total */
	ETH_FAM_PHY_BITS_RECEIVED,	  /* rdma_netdev_phy_bit_count_received_total */
	ETH_FAM_PHY_SYMBOL_ERRORS,	  /* rdma_netdev_phy_symbol_errors_total */
	/* per lane; labels netdev, lane ("0".."7") */
	ETH_FAM_FEC_LANE_CORRECTED_BLOCKS,     /* rdma_netdev_fec_lane_corrected_blocks_total */
	ETH_FAM_FEC_LANE_UNCORRECTABLE_BLOCKS, /* rdma_netdev_fec_lane_uncorrectable_blocks_total */
	ETH_FAM_FEC_LANE_CORRECTED_BITS,       /* rdma_netdev_fec_lane_corrected_bit_errors_total */
	ETH_FAM_COUNT,
};

enum eth_direction { ETH_DIR_NONE, ETH_DIR_RX, ETH_DIR_TX };

struct eth_stat_map {
	enum eth_family family;
	enum eth_direction direction; /* ETH_DIR_NONE for families without the label */
	int priority;		      /* 0..7, or -1 for families without the label */
	const char *label;	      /* reason (discards), level (storm), lane, else NULL */
	double scale;		      /* exported = raw * scale (1e-6 for microseconds) */
};

/*
 * Looks up statistic `name` of a netdev whose driver (ETHTOOL_GDRVINFO
 * .driver) is `driver`. Returns true and fills out when the table of that
 * driver knows the name.
 */
bool eth_stat_lookup(const char *driver, const char *name, struct eth_stat_map *out);

/* Whether a driver has a table at all ("mlx5_core", "ice", "bnxt_en", "i40e"). */
bool eth_driver_known(const char *driver);

/* Family name, e.g. "rdma_netdev_priority_pause_frames_total", and its HELP. */
const char *eth_family_name(enum eth_family f);
const char *eth_family_help(enum eth_family f);
/* The label a family carries besides netdev (and direction/priority): "reason", "level",
 * "lane" or NULL. */
const char *eth_family_extra_label(enum eth_family f);
bool eth_family_has_direction(enum eth_family f);
bool eth_family_has_priority(enum eth_family f);

#endif
