/* SPDX-License-Identifier: Apache-2.0 */
/*
 * FEC mode and statistics from the ethtool generic netlink family:
 * ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS in the request header, answered
 * by ETHTOOL_MSG_FEC_GET_REPLY with ETHTOOL_A_FEC_ACTIVE (the link mode bit of
 * the active encoding) and the ETHTOOL_A_FEC_STATS nest, whose
 * ETHTOOL_A_FEC_STAT_CORRECTED / _UNCORR / _CORR_BITS are arrays of u64: the
 * total first, then one entry per lane where the driver counts per lane.
 *
 * The builder, the parser and the sample emitter are pure (bytes in, structs
 * out; structs in, samples out); the request itself goes through
 * eth_nl_fec() in ethtool_nl.c. Nothing here logs.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_FEC_H
#define RDMA_EXPORTER_ETHTOOL_FEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "exposition/metrics.h"

/* The kernel's ETHTOOL_MAX_LANES (include/linux/ethtool.h): lanes past it are
 * not kept (no kernel sends them). */
#define ETH_FEC_MAX_LANES 8

/* One statistic: absent (have false), a total, and lanes when the driver
 * counts per lane (the kernel then sends the sum of the lanes as total). */
struct eth_fec_stat {
	bool have;
	uint8_t n_lanes;
	uint64_t total;
	uint64_t lanes[ETH_FEC_MAX_LANES];
};

struct eth_fec {
	/* ETHTOOL_A_FEC_ACTIVE: a link mode bit (ETHTOOL_LINK_MODE_FEC_*_BIT).
	 * Absent: the driver reports no active encoding. */
	bool have_active;
	uint32_t active_bit;
	struct eth_fec_stat corrected;	    /* corrected FEC blocks (codewords) */
	struct eth_fec_stat uncorrectable;  /* FEC blocks with errors FEC could not correct */
	struct eth_fec_stat corrected_bits; /* bits FEC corrected: the pre-FEC bit errors */
};

/* ETHTOOL_MSG_FEC_GET for ifname with ETHTOOL_FLAG_STATS. Length, -EINVAL (bad
 * name) or -EMSGSIZE. */
int eth_build_fec_request(void *buf, size_t size, uint16_t family, uint32_t seq,
			  const char *ifname);

/*
 * An ETHTOOL_MSG_FEC_GET_REPLY (nlh->nlmsg_len bytes, checked by the caller):
 * 0 with *out filled (statistics the driver lacks stay have false; the kernel
 * sends them as empty arrays), or -EBADMSG with *out zeroed. Unknown
 * attributes (ETHTOOL_A_FEC_STAT_HIST of newer kernels, padding) are skipped.
 */
int eth_parse_fec_reply(const struct nlmsghdr *nlh, struct eth_fec *out);

/* The mode label of a link mode bit: "off", "rs", "baser", "llrs", or
 * "bitN" for a bit these headers do not name (written to buf). */
const char *eth_fec_mode_name(uint32_t bit, char *buf, size_t len);

/*
 * The samples of one netdev's FEC reply: rdma_netdev_fec_mode_info{netdev,mode}
 * (mode "none" without an active encoding), the totals and, where the driver
 * counts per lane, the lane families. A series the sink has already is
 * skipped. 0, or -ENOMEM.
 */
int eth_fec_emit(struct metric_sink *sink, const char *netdev, const struct eth_fec *fec);

#endif
