// SPDX-License-Identifier: Apache-2.0
/*
 * FEC mode and statistics (ETHTOOL_MSG_FEC_GET): request builder, reply
 * parser and samples.
 *
 * What the kernel sends (net/ethtool/fec.c, include/uapi/linux/ethtool_netlink.h;
 * facts only, no code taken):
 *  - a driver without get_fecparam (veth, loopback, virtio_net): NLMSG_ERROR
 *    -EOPNOTSUPP, as for a kernel without ETHTOOL_MSG_FEC_GET (generic netlink
 *    answers an unknown command so). ETHTOOL_MSG_FEC_GET came with Linux 5.14,
 *    the statistics with it.
 *  - ETHTOOL_A_FEC_ACTIVE (u32) is the first link mode bit of the active
 *    encoding (ETHTOOL_LINK_MODE_FEC_NONE_BIT for "off", _RS_, _BASER_,
 *    _LLRS_); left out when the driver reports no encoding.
 *  - With ETHTOOL_FLAG_STATS the ETHTOOL_A_FEC_STATS nest is always there.
 *    Each of ETHTOOL_A_FEC_STAT_CORRECTED, _UNCORR and _CORR_BITS is an array
 *    of u64 (nla_put_64bit, so an ETHTOOL_A_FEC_STAT_PAD may precede it): empty
 *    when the driver has no get_fec_stats or did not set that counter; the
 *    total alone; or, when the driver counts per lane, the sum of the lanes
 *    followed by each lane (at most ETHTOOL_MAX_LANES, 8).
 *  - Newer kernels add ETHTOOL_A_FEC_STAT_HIST nests (the FEC error histogram
 *    of IEEE 802.3ck/df) to the same nest: skipped here.
 */
#include "ethtool_fec.h"
#include "rdmanl/genl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if.h>

#include "collector.h"
#include "ethtool_uapi_compat.h"
#include "ethtool_names.h"

/* ---- builder ------------------------------------------------------------------------------ */

int eth_build_fec_request(void *buf, size_t size, uint16_t family, uint32_t seq, const char *ifname)
{
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;
	struct nlattr *hdr;

	/* The kernel's header policy caps the name at IFNAMSIZ - 1. */
	if (!ifname || !ifname[0] || strnlen(ifname, IFNAMSIZ) >= IFNAMSIZ)
		return -EINVAL;
	if (!buf || size < MNL_NLMSG_HDRLEN + MNL_ALIGN(GENL_HDRLEN))
		return -EMSGSIZE;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = family;
	/* A doit without NLM_F_ACK: the reply or one error. */
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN);
	g->cmd = ETHTOOL_MSG_FEC_GET;
	g->version = ETHTOOL_GENL_VERSION;
	/* libmnl sets NLA_F_NESTED, which ethtool's strict validation requires. */
	hdr = mnl_attr_nest_start_check(nlh, size, ETHTOOL_A_FEC_HEADER);
	if (!hdr || !mnl_attr_put_strz_check(nlh, size, ETHTOOL_A_HEADER_DEV_NAME, ifname) ||
	    !mnl_attr_put_u32_check(nlh, size, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS))
		return -EMSGSIZE;
	mnl_attr_nest_end(nlh, hdr);
	return (int)nlh->nlmsg_len;
}

/* ---- parser ------------------------------------------------------------------------------- */

#define FEC_MAX	     (ETHTOOL_A_FEC_STATS + 1)
#define FEC_STAT_MAX (ETHTOOL_A_FEC_STAT_CORR_BITS + 1)

/* One u64 array: empty is "not counted", otherwise the total and its lanes. */
static int read_stat(const struct nlattr *a, struct eth_fec_stat *st)
{
	const unsigned char *p;
	size_t len, n;

	if (!a)
		return 0;
	len = mnl_attr_get_payload_len(a);
	if (len % sizeof(uint64_t))
		return -EBADMSG;
	n = len / sizeof(uint64_t);
	if (!n)
		return 0;
	/* The payload is only 4-byte aligned: copy, do not cast. */
	p = mnl_attr_get_payload(a);
	memcpy(&st->total, p, sizeof(st->total));
	n--;
	if (n > ETH_FEC_MAX_LANES)
		n = ETH_FEC_MAX_LANES;
	for (size_t i = 0; i < n; i++)
		memcpy(&st->lanes[i], p + (i + 1) * sizeof(uint64_t), sizeof(uint64_t));
	st->n_lanes = (uint8_t)n;
	st->have = true;
	return 0;
}

static int parse_stats(const struct nlattr *nest, struct eth_fec *f)
{
	const struct nlattr *st[FEC_STAT_MAX];

	if (genl_parse_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), NULL,
			     FEC_STAT_MAX, st) < 0)
		return -EBADMSG;
	if (read_stat(st[ETHTOOL_A_FEC_STAT_CORRECTED], &f->corrected) < 0 ||
	    read_stat(st[ETHTOOL_A_FEC_STAT_UNCORR], &f->uncorrectable) < 0 ||
	    read_stat(st[ETHTOOL_A_FEC_STAT_CORR_BITS], &f->corrected_bits) < 0)
		return -EBADMSG;
	return 0;
}

int eth_parse_fec_reply(const struct nlmsghdr *nlh, struct eth_fec *out)
{
	const struct nlattr *tb[FEC_MAX];
	const struct genlmsghdr *g;
	struct eth_fec f;
	size_t hdr = MNL_NLMSG_HDRLEN + MNL_ALIGN(GENL_HDRLEN);

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));
	if (nlh->nlmsg_len < hdr)
		return -EBADMSG;
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != ETHTOOL_MSG_FEC_GET_REPLY)
		return -EBADMSG;
	if (genl_parse_attrs((const char *)nlh + hdr, nlh->nlmsg_len - hdr, NULL, FEC_MAX, tb) < 0)
		return -EBADMSG;
	if (tb[ETHTOOL_A_FEC_ACTIVE]) {
		if (mnl_attr_get_payload_len(tb[ETHTOOL_A_FEC_ACTIVE]) != sizeof(uint32_t))
			return -EBADMSG;
		f.have_active = true;
		f.active_bit = mnl_attr_get_u32(tb[ETHTOOL_A_FEC_ACTIVE]);
	}
	/* No nest: a kernel that ignored ETHTOOL_FLAG_STATS; no counters. */
	if (tb[ETHTOOL_A_FEC_STATS] && parse_stats(tb[ETHTOOL_A_FEC_STATS], &f) < 0)
		return -EBADMSG;
	*out = f;
	return 0;
}

/* ---- names and samples -------------------------------------------------------------------- */

/* The link mode bits of the FEC encodings (uapi enum ethtool_link_mode_bit_indices). */
static const struct {
	uint32_t bit;
	const char *name;
} fec_modes[] = {
	{ETHTOOL_LINK_MODE_FEC_NONE_BIT, "off"},
	{ETHTOOL_LINK_MODE_FEC_RS_BIT, "rs"},
	{ETHTOOL_LINK_MODE_FEC_BASER_BIT, "baser"},
	{ETHTOOL_LINK_MODE_FEC_LLRS_BIT, "llrs"},
};

const char *eth_fec_mode_name(uint32_t bit, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(fec_modes) / sizeof(fec_modes[0]); i++)
		if (fec_modes[i].bit == bit)
			return fec_modes[i].name;
	/* A mode newer than these headers: its bit, as ethtool(8) prints it. */
	if (!buf || !len)
		return "unknown";
	snprintf(buf, len, "bit%u", bit);
	return buf;
}

static const char help_mode[] =
	"Active FEC encoding of the netdev, from the ethtool netlink FEC reply "
	"(ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_ACTIVE): off, rs (Reed-Solomon), baser (BASE-R "
	"FireCode), llrs (low-latency Reed-Solomon), none where the driver reports no active "
	"encoding; always 1.";

static const char *const lane_str[ETH_FEC_MAX_LANES] = {"0", "1", "2", "3", "4", "5", "6", "7"};

static int add_counter(struct metric_sink *sink, enum eth_family f, const struct metric_label *l,
		       size_t n, uint64_t v)
{
	const char *name = eth_family_name(f);

	if (metric_sink_has(sink, name, l, n))
		return 0;
	return collector_sink_result(
		metric_sink_add_u64(sink, name, eth_family_help(f), METRIC_COUNTER, l, n, v));
}

static int emit_stat(struct metric_sink *sink, const char *netdev, const struct eth_fec_stat *s,
		     enum eth_family total, enum eth_family lane)
{
	int r;

	if (!s->have)
		return 0;
	r = add_counter(sink, total, METRIC_LABELS({"netdev", netdev}), s->total);
	for (size_t i = 0; i < s->n_lanes && i < ETH_FEC_MAX_LANES && r == 0; i++)
		r = add_counter(sink, lane,
				METRIC_LABELS({"netdev", netdev}, {"lane", lane_str[i]}),
				s->lanes[i]);
	return r;
}

int eth_fec_emit(struct metric_sink *sink, const char *netdev, const struct eth_fec *fec)
{
	char b[24];
	const char *mode =
		fec->have_active ? eth_fec_mode_name(fec->active_bit, b, sizeof(b)) : "none";
	int r;

	r = collector_sink_result(
		metric_sink_add_u64(sink, "rdma_netdev_fec_mode_info", help_mode, METRIC_GAUGE,
				    METRIC_LABELS({"netdev", netdev}, {"mode", mode}), 1));
	if (r == 0)
		r = emit_stat(sink, netdev, &fec->corrected, ETH_FAM_FEC_CORRECTED_BLOCKS,
			      ETH_FAM_FEC_LANE_CORRECTED_BLOCKS);
	if (r == 0)
		r = emit_stat(sink, netdev, &fec->uncorrectable, ETH_FAM_FEC_UNCORRECTABLE_BLOCKS,
			      ETH_FAM_FEC_LANE_UNCORRECTABLE_BLOCKS);
	if (r == 0)
		r = emit_stat(sink, netdev, &fec->corrected_bits, ETH_FAM_FEC_CORRECTED_BITS,
			      ETH_FAM_FEC_LANE_CORRECTED_BITS);
	return r;
}
