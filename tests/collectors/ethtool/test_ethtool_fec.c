// SPDX-License-Identifier: Apache-2.0
/*
 * ethtool_fec.c: the ETHTOOL_MSG_FEC_GET request builder, the reply parser on
 * replies built in memory the way net/ethtool/fec.c fills them (RS-FEC totals
 * only, FireCode per lane, a driver without FEC statistics, padding, the
 * histogram nests of newer kernels, malformed arrays), the samples, a
 * robustness pass of mutated replies, and a live pass on this machine's
 * kernel through eth_nl_fec() with the loopback netdev (no get_fecparam).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "ethtool_fec.h"
#include "ethtool_nl.h"

#define FAMILY	 27u
#define SEQ	 4711u
#define MSG_CAP	 4096
#define NO_SUCH	 "nodev-rdmaexp"
#define LIVE_TMO 2000

/* ---- building replies as the kernel does ------------------------------------------------ */

struct msg {
	union {
		unsigned char b[MSG_CAP];
		uint64_t align;
	} u;
	struct nlmsghdr *nlh;
};

static struct nlmsghdr *reply_start(struct msg *m, uint8_t cmd)
{
	struct genlmsghdr *g;
	struct nlattr *hdr;

	memset(m, 0, sizeof(*m));
	m->nlh = mnl_nlmsg_put_header(m->u.b);
	m->nlh->nlmsg_type = FAMILY;
	m->nlh->nlmsg_seq = SEQ;
	m->nlh->nlmsg_pid = 1234;
	g = mnl_nlmsg_put_extra_header(m->nlh, GENL_HDRLEN);
	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(m->nlh, ETHTOOL_A_FEC_HEADER);
	mnl_attr_put_u32(m->nlh, ETHTOOL_A_HEADER_DEV_INDEX, 3);
	mnl_attr_put_strz(m->nlh, ETHTOOL_A_HEADER_DEV_NAME, "eth0");
	mnl_attr_nest_end(m->nlh, hdr);
	return m->nlh;
}

/* The configured modes as a compact bitset nest (not read by the parser). */
static void put_modes(struct nlmsghdr *nlh)
{
	uint32_t words[3] = {0, 1u << (ETHTOOL_LINK_MODE_FEC_RS_BIT - 32), 0};
	struct nlattr *bs = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_MODES);

	mnl_attr_put_u32(nlh, ETHTOOL_A_BITSET_SIZE, 96);
	mnl_attr_put(nlh, ETHTOOL_A_BITSET_VALUE, sizeof(words), words);
	mnl_attr_nest_end(nlh, bs);
}

/* One u64 array with the padding attribute nla_put_64bit() may put before it. */
static void put_array(struct nlmsghdr *nlh, uint16_t type, const uint64_t *v, size_t n, bool pad)
{
	if (pad)
		mnl_attr_put(nlh, ETHTOOL_A_FEC_STAT_PAD, 0, NULL);
	mnl_attr_put(nlh, type, n * sizeof(uint64_t), v);
}

struct arrays {
	const uint64_t *corr, *uncorr, *bits;
	size_t n_corr, n_uncorr, n_bits;
};

/* A FEC reply: active < 0 leaves ETHTOOL_A_FEC_ACTIVE out, a NULL a the stats nest. */
static struct nlmsghdr *fec_reply(struct msg *m, int64_t active, const struct arrays *a, bool pad)
{
	struct nlmsghdr *nlh = reply_start(m, ETHTOOL_MSG_FEC_GET_REPLY);
	struct nlattr *st;

	put_modes(nlh);
	mnl_attr_put_u8(nlh, ETHTOOL_A_FEC_AUTO, 0);
	if (active >= 0)
		mnl_attr_put_u32(nlh, ETHTOOL_A_FEC_ACTIVE, (uint32_t)active);
	if (!a)
		return nlh;
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	put_array(nlh, ETHTOOL_A_FEC_STAT_CORRECTED, a->corr, a->n_corr, pad);
	put_array(nlh, ETHTOOL_A_FEC_STAT_UNCORR, a->uncorr, a->n_uncorr, pad);
	put_array(nlh, ETHTOOL_A_FEC_STAT_CORR_BITS, a->bits, a->n_bits, pad);
	mnl_attr_nest_end(nlh, st);
	return nlh;
}

/* RS-FEC on mlx5: totals only. */
static const uint64_t rs_corr[] = {1234567};
static const uint64_t rs_uncorr[] = {3};
static const uint64_t rs_bits[] = {(uint64_t)1 << 40};
static const struct arrays rs = {rs_corr, rs_uncorr, rs_bits, 1, 1, 1};

/* FireCode (BASE-R) on mlx5: per lane, the total being the sum. */
static const uint64_t fc_corr[] = {10 + 20 + 30 + 40, 10, 20, 30, 40};
static const uint64_t fc_uncorr[] = {1 + 0 + 0 + 2, 1, 0, 0, 2};
static const struct arrays fc = {fc_corr, fc_uncorr, NULL, 5, 5, 0};

/* A driver with get_fecparam but no get_fec_stats: three empty arrays. */
static const struct arrays none = {NULL, NULL, NULL, 0, 0, 0};

static int fec_of(const struct nlmsghdr *nlh, struct eth_fec *f)
{
	void *p = malloc(nlh->nlmsg_len);
	int r;

	/* exactly nlmsg_len bytes on the heap, so that ASan sees an overread */
	assert_non_null(p);
	memcpy(p, nlh, nlh->nlmsg_len);
	memset(f, 0xa5, sizeof(*f));
	r = eth_parse_fec_reply(p, f);
	free(p);
	return r;
}

static void assert_zero(const struct eth_fec *f)
{
	struct eth_fec z;

	memset(&z, 0, sizeof(z));
	assert_memory_equal(f, &z, sizeof(z));
}

/* ---- request ---------------------------------------------------------------------------- */

static int collect_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < 8)
		tb[type] = a;
	return MNL_CB_OK;
}

static void test_request(void **state)
{
	unsigned char buf[256] __attribute__((aligned(4)));
	const struct nlattr *tb[8] = {0}, *hdr[8] = {0};
	struct nlmsghdr *nlh = (struct nlmsghdr *)(void *)buf;
	const struct genlmsghdr *g;
	int len;

	(void)state;
	len = eth_build_fec_request(buf, sizeof(buf), FAMILY, SEQ, "ens1f0np0");
	assert_true(len > 0);
	assert_int_equal(nlh->nlmsg_len, len);
	assert_int_equal(nlh->nlmsg_type, FAMILY);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(nlh->nlmsg_seq, SEQ);
	g = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(g->cmd, ETHTOOL_MSG_FEC_GET);
	assert_int_equal(g->version, ETHTOOL_GENL_VERSION);
	assert_int_equal(mnl_attr_parse(nlh, GENL_HDRLEN, collect_attr, tb), MNL_CB_OK);
	assert_non_null(tb[ETHTOOL_A_FEC_HEADER]);
	/* ethtool's strict policy wants the nest flag */
	assert_true(tb[ETHTOOL_A_FEC_HEADER]->nla_type & NLA_F_NESTED);
	assert_int_equal(mnl_attr_parse_nested(tb[ETHTOOL_A_FEC_HEADER], collect_attr, hdr),
			 MNL_CB_OK);
	assert_string_equal(mnl_attr_get_str(hdr[ETHTOOL_A_HEADER_DEV_NAME]), "ens1f0np0");
	assert_int_equal(mnl_attr_get_u32(hdr[ETHTOOL_A_HEADER_FLAGS]), ETHTOOL_FLAG_STATS);
	assert_null(hdr[ETHTOOL_A_HEADER_DEV_INDEX]);
	/* nothing else: a request with other attributes is refused by the kernel */
	for (int i = 0; i < 8; i++)
		if (i != ETHTOOL_A_FEC_HEADER)
			assert_null(tb[i]);
}

static void test_request_refused(void **state)
{
	unsigned char buf[256] __attribute__((aligned(4)));
	int full;

	(void)state;
	/* names the kernel's policy refuses are refused here */
	assert_int_equal(eth_build_fec_request(buf, sizeof(buf), FAMILY, SEQ, NULL), -EINVAL);
	assert_int_equal(eth_build_fec_request(buf, sizeof(buf), FAMILY, SEQ, ""), -EINVAL);
	assert_int_equal(eth_build_fec_request(buf, sizeof(buf), FAMILY, SEQ, "0123456789abcdef"),
			 -EINVAL);
	assert_true(eth_build_fec_request(buf, sizeof(buf), FAMILY, SEQ, "0123456789abcde") > 0);
	assert_int_equal(eth_build_fec_request(NULL, sizeof(buf), FAMILY, SEQ, "eth0"), -EMSGSIZE);
	/* every buffer too small by any amount */
	full = eth_build_fec_request(buf, sizeof(buf), FAMILY, SEQ, "eth0");
	assert_true(full > 0);
	for (int size = 0; size < full; size++)
		assert_int_equal(eth_build_fec_request(buf, (size_t)size, FAMILY, SEQ, "eth0"),
				 -EMSGSIZE);
	assert_int_equal(eth_build_fec_request(buf, (size_t)full, FAMILY, SEQ, "eth0"), full);
}

/* ---- replies ---------------------------------------------------------------------------- */

static void test_reply_rs_totals(void **state)
{
	struct eth_fec f;
	struct msg m;

	(void)state;
	for (int pad = 0; pad < 2; pad++) {
		assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_RS_BIT, &rs, pad), &f),
				 0);
		assert_true(f.have_active);
		assert_int_equal(f.active_bit, ETHTOOL_LINK_MODE_FEC_RS_BIT);
		assert_true(f.corrected.have);
		assert_int_equal(f.corrected.total, 1234567);
		assert_int_equal(f.corrected.n_lanes, 0);
		assert_true(f.uncorrectable.have);
		assert_int_equal(f.uncorrectable.total, 3);
		assert_true(f.corrected_bits.have);
		assert_true(f.corrected_bits.total == (uint64_t)1 << 40);
		assert_int_equal(f.corrected_bits.n_lanes, 0);
	}
}

static void test_reply_fc_lanes(void **state)
{
	struct eth_fec f;
	struct msg m;

	(void)state;
	assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_BASER_BIT, &fc, true), &f), 0);
	assert_int_equal(f.active_bit, ETHTOOL_LINK_MODE_FEC_BASER_BIT);
	assert_int_equal(f.corrected.total, 100);
	assert_int_equal(f.corrected.n_lanes, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(f.corrected.lanes[i], 10 * (i + 1));
	assert_int_equal(f.uncorrectable.total, 3);
	assert_int_equal(f.uncorrectable.n_lanes, 4);
	assert_int_equal(f.uncorrectable.lanes[3], 2);
	/* the driver does not count corrected bits in this mode: an empty array */
	assert_false(f.corrected_bits.have);
	assert_int_equal(f.corrected_bits.total, 0);
}

static void test_reply_no_stats(void **state)
{
	struct eth_fec f;
	struct msg m;

	(void)state;
	/* get_fecparam without get_fec_stats: the nest with three empty arrays */
	assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_NONE_BIT, &none, false), &f),
			 0);
	assert_true(f.have_active);
	assert_int_equal(f.active_bit, ETHTOOL_LINK_MODE_FEC_NONE_BIT);
	assert_false(f.corrected.have || f.uncorrectable.have || f.corrected_bits.have);
	/* a kernel that ignored the statistics flag: no nest */
	assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_LLRS_BIT, NULL, false), &f), 0);
	assert_int_equal(f.active_bit, ETHTOOL_LINK_MODE_FEC_LLRS_BIT);
	assert_false(f.corrected.have || f.uncorrectable.have || f.corrected_bits.have);
	/* no active encoding reported */
	assert_int_equal(fec_of(fec_reply(&m, -1, &rs, false), &f), 0);
	assert_false(f.have_active);
	assert_int_equal(f.active_bit, 0);
	assert_int_equal(f.corrected.total, 1234567);
}

static void test_reply_unknown_and_many_lanes(void **state)
{
	uint64_t many[1 + 12];
	struct eth_fec f;
	struct nlattr *st, *hist;
	struct nlmsghdr *nlh;
	struct msg m;

	(void)state;
	for (size_t i = 0; i < 13; i++)
		many[i] = i == 0 ? 12 : 1;
	nlh = reply_start(&m, ETHTOOL_MSG_FEC_GET_REPLY);
	mnl_attr_put_u32(nlh, ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
	/* an attribute of a newer kernel at the top level */
	mnl_attr_put_u64(nlh, ETHTOOL_A_FEC_STATS + 1, 99);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	put_array(nlh, ETHTOOL_A_FEC_STAT_CORRECTED, many, 13, true);
	/* ETHTOOL_A_FEC_STAT_HIST bins of newer kernels: nests, skipped */
	for (int b = 0; b < 3; b++) {
		hist = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STAT_CORR_BITS + 1);
		mnl_attr_put_u32(nlh, 1, (uint32_t)b);
		mnl_attr_put_u32(nlh, 2, (uint32_t)b);
		mnl_attr_put_u64(nlh, 3, 1000u + (unsigned)b);
		mnl_attr_nest_end(nlh, hist);
	}
	mnl_attr_nest_end(nlh, st);
	assert_int_equal(fec_of(nlh, &f), 0);
	assert_int_equal(f.corrected.total, 12);
	/* lanes past the kernel's ETHTOOL_MAX_LANES are not kept */
	assert_int_equal(f.corrected.n_lanes, ETH_FEC_MAX_LANES);
	assert_int_equal(f.corrected.lanes[ETH_FEC_MAX_LANES - 1], 1);
	assert_false(f.uncorrectable.have);
}

static void test_reply_bad(void **state)
{
	static const uint64_t one[] = {1};
	struct eth_fec f;
	struct nlmsghdr *nlh;
	struct nlattr *st, *a;
	struct msg m;

	(void)state;
	/* another command */
	nlh = reply_start(&m, ETHTOOL_MSG_PAUSE_GET_REPLY);
	assert_int_equal(fec_of(nlh, &f), -EBADMSG);
	assert_zero(&f);
	/* an array that is not whole u64s */
	nlh = reply_start(&m, ETHTOOL_MSG_FEC_GET_REPLY);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	mnl_attr_put(nlh, ETHTOOL_A_FEC_STAT_UNCORR, 12, "abcdefghijkl");
	mnl_attr_nest_end(nlh, st);
	assert_int_equal(fec_of(nlh, &f), -EBADMSG);
	assert_zero(&f);
	/* ETHTOOL_A_FEC_ACTIVE of the wrong size */
	nlh = reply_start(&m, ETHTOOL_MSG_FEC_GET_REPLY);
	mnl_attr_put_u16(nlh, ETHTOOL_A_FEC_ACTIVE, 50);
	assert_int_equal(fec_of(nlh, &f), -EBADMSG);
	assert_zero(&f);
	/* the last attribute claims more than the message has */
	nlh = reply_start(&m, ETHTOOL_MSG_FEC_GET_REPLY);
	mnl_attr_put_u32(nlh, ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
	a = mnl_nlmsg_get_payload_tail(nlh);
	put_array(nlh, ETHTOOL_A_FEC_STAT_CORRECTED, one, 1, false);
	nlh->nlmsg_len -= 4;
	assert_int_equal(fec_of(nlh, &f), -EBADMSG);
	assert_zero(&f);
	/* a truncated attribute inside the stats nest */
	nlh = reply_start(&m, ETHTOOL_MSG_FEC_GET_REPLY);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	a = mnl_nlmsg_get_payload_tail(nlh);
	put_array(nlh, ETHTOOL_A_FEC_STAT_CORRECTED, one, 1, false);
	a->nla_len += 8;
	mnl_attr_nest_end(nlh, st);
	assert_int_equal(fec_of(nlh, &f), -EBADMSG);
	assert_zero(&f);
	/* shorter than the generic netlink header */
	nlh = reply_start(&m, ETHTOOL_MSG_FEC_GET_REPLY);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	assert_int_equal(fec_of(nlh, &f), -EBADMSG);
	assert_zero(&f);
}

static void test_mode_names(void **state)
{
	char b[24];

	(void)state;
	assert_string_equal(eth_fec_mode_name(ETHTOOL_LINK_MODE_FEC_NONE_BIT, b, sizeof(b)), "off");
	assert_string_equal(eth_fec_mode_name(ETHTOOL_LINK_MODE_FEC_RS_BIT, b, sizeof(b)), "rs");
	assert_string_equal(eth_fec_mode_name(ETHTOOL_LINK_MODE_FEC_BASER_BIT, b, sizeof(b)),
			    "baser");
	assert_string_equal(eth_fec_mode_name(ETHTOOL_LINK_MODE_FEC_LLRS_BIT, b, sizeof(b)),
			    "llrs");
	/* a mode newer than these headers: its bit, as ethtool(8) prints it */
	assert_string_equal(eth_fec_mode_name(101, b, sizeof(b)), "bit101");
	assert_string_equal(eth_fec_mode_name(4294967295u, b, sizeof(b)), "bit4294967295");
	assert_string_equal(eth_fec_mode_name(101, NULL, 0), "unknown");
}

/* ---- samples ---------------------------------------------------------------------------- */

static char *render(struct metric_sink *sink)
{
	struct buf b = BUF_INIT;
	size_t len;

	assert_int_equal(metric_sink_render(sink, &b), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	return buf_steal(&b, &len);
}

static void test_emit(void **state)
{
	struct metric_sink *sink = metric_sink_new();
	struct eth_fec f;
	struct msg m;
	char *text;

	(void)state;
	assert_non_null(sink);
	assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_RS_BIT, &rs, true), &f), 0);
	assert_int_equal(eth_fec_emit(sink, "ens1f0np0", &f), 0);
	assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_BASER_BIT, &fc, false), &f), 0);
	assert_int_equal(eth_fec_emit(sink, "ens2f0np0", &f), 0);
	assert_int_equal(fec_of(fec_reply(&m, -1, &none, false), &f), 0);
	assert_int_equal(eth_fec_emit(sink, "eth7", &f), 0);
	text = render(sink);
	assert_line(text, "rdma_netdev_fec_mode_info{netdev=\"ens1f0np0\",mode=\"rs\"} 1");
	assert_line(text, "rdma_netdev_fec_mode_info{netdev=\"ens2f0np0\",mode=\"baser\"} 1");
	assert_line(text, "rdma_netdev_fec_mode_info{netdev=\"eth7\",mode=\"none\"} 1");
	assert_line(text, "rdma_netdev_fec_corrected_blocks_total{netdev=\"ens1f0np0\"} 1234567");
	assert_line(text, "rdma_netdev_fec_uncorrectable_blocks_total{netdev=\"ens1f0np0\"} 3");
	assert_line(
		text,
		"rdma_netdev_fec_corrected_bit_errors_total{netdev=\"ens1f0np0\"} 1099511627776");
	assert_line(text, "rdma_netdev_fec_corrected_blocks_total{netdev=\"ens2f0np0\"} 100");
	for (int i = 0; i < 4; i++)
		assert_line(text,
			    "rdma_netdev_fec_lane_corrected_blocks_total{netdev=\"ens2f0np0\","
			    "lane=\"%d\"} %d",
			    i, 10 * (i + 1));
	assert_line(text, "rdma_netdev_fec_lane_uncorrectable_blocks_total{netdev=\"ens2f0np0\","
			  "lane=\"3\"} 2");
	assert_line(text, "# TYPE rdma_netdev_fec_corrected_blocks_total counter");
	assert_line(text, "# TYPE rdma_netdev_fec_mode_info gauge");
	/* totals only: no lane series; counters the driver lacks: no series at all */
	assert_null(strstr(text, "lane_corrected_blocks_total{netdev=\"ens1f0np0\""));
	assert_null(strstr(text, "corrected_bits_total{netdev=\"ens2f0np0\""));
	assert_null(strstr(text, "netdev=\"eth7\"}"));
	free(text);
	metric_sink_free(sink);
}

/* A series some source added first stands (the driver names come later). */
static void test_emit_first_stands(void **state)
{
	struct metric_sink *sink = metric_sink_new();
	struct eth_fec f;
	struct msg m;
	char *text;

	(void)state;
	assert_non_null(sink);
	assert_int_equal(metric_sink_add_u64(sink, "rdma_netdev_fec_corrected_blocks_total", "x",
					     METRIC_COUNTER, METRIC_LABELS({"netdev", "ens1f0np0"}),
					     5),
			 0);
	assert_int_equal(fec_of(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_RS_BIT, &rs, true), &f), 0);
	assert_int_equal(eth_fec_emit(sink, "ens1f0np0", &f), 0);
	text = render(sink);
	assert_line(text, "rdma_netdev_fec_corrected_blocks_total{netdev=\"ens1f0np0\"} 5");
	assert_line(text, "rdma_netdev_fec_uncorrectable_blocks_total{netdev=\"ens1f0np0\"} 3");
	free(text);
	metric_sink_free(sink);
}

/* ---- robustness ------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	/* xorshift64*: fixed seed, same inputs on every run */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* The parser on len bytes of a buffer of exactly that size (nlmsg_len made to
 * match, as the transport checks framing first), and the samples of what it
 * accepted. */
static void parse_one(const void *bytes, size_t len)
{
	struct metric_sink *sink;
	struct nlmsghdr *nlh;
	struct eth_fec f;
	int r;

	if (len < sizeof(*nlh))
		return;
	nlh = malloc(len);
	assert_non_null(nlh);
	memcpy(nlh, bytes, len);
	nlh->nlmsg_len = (uint32_t)len;
	memset(&f, 0x5a, sizeof(f));
	r = eth_parse_fec_reply(nlh, &f);
	assert_true(r == 0 || r == -EBADMSG);
	if (r < 0) {
		assert_zero(&f);
	} else {
		assert_true(f.corrected.n_lanes <= ETH_FEC_MAX_LANES);
		assert_true(f.corrected.have || (!f.corrected.total && !f.corrected.n_lanes));
		assert_true(f.have_active || !f.active_bit);
		sink = metric_sink_new();
		assert_non_null(sink);
		assert_int_equal(eth_fec_emit(sink, "eth0", &f), 0);
		assert_int_equal(metric_sink_errors(sink), 0);
		metric_sink_free(sink);
	}
	free(nlh);
}

static void mutate(const struct nlmsghdr *seed, unsigned rounds)
{
	unsigned char buf[MSG_CAP];
	size_t len = seed->nlmsg_len;

	for (unsigned i = 0; i < rounds; i++) {
		size_t n = len;
		unsigned flips = 1 + rnd() % 4;

		memcpy(buf, seed, len);
		for (unsigned k = 0; k < flips; k++) {
			size_t at = 16 + rnd() % (unsigned)(len - 16);

			switch (rnd() % 4) {
			case 0:
				buf[at] = (unsigned char)rnd();
				break;
			case 1: /* an attribute length, the likeliest to hurt */
				buf[at & ~(size_t)3] = (unsigned char)rnd();
				break;
			case 2:
				buf[at] ^= (unsigned char)(1u << (rnd() % 8));
				break;
			default: /* cut short */
				n = at;
				break;
			}
		}
		parse_one(buf, n);
	}
}

static void test_robustness(void **state)
{
	struct msg m;
	struct nlmsghdr *nlh;

	(void)state;
	nlh = fec_reply(&m, ETHTOOL_LINK_MODE_FEC_BASER_BIT, &fc, true);
	for (size_t len = 16; len <= nlh->nlmsg_len; len++)
		parse_one(nlh, len);
	mutate(nlh, 60000);
	mutate(fec_reply(&m, ETHTOOL_LINK_MODE_FEC_RS_BIT, &rs, false), 60000);
	mutate(fec_reply(&m, -1, &none, true), 20000);
}

/* ---- live, on this machine's kernel ------------------------------------------------------ */

/* Netlink sockets refused by a sandbox: nothing to test here. */
static bool sandboxed(int r)
{
	return r == -EAFNOSUPPORT || r == -EPROTONOSUPPORT || r == -EPERM || r == -EACCES;
}

static void test_live(void **state)
{
	struct eth_nl *n = eth_nl_open();
	struct eth_fec f;
	int r;

	(void)state;
	assert_int_equal(eth_nl_fec(NULL, "lo", &f, 10), -EINVAL);
	assert_non_null(n);
	assert_int_equal(eth_nl_fec(n, "lo", NULL, 10), -EINVAL);
	for (int i = 0; i < 3; i++) {
		memset(&f, 0xff, sizeof(f));
		r = eth_nl_fec(n, "lo", &f, LIVE_TMO);
		if (sandboxed(r)) {
			eth_nl_free(n);
			skip();
		}
		/* loopback has no get_fecparam; a kernel before 5.14 has no
		 * ETHTOOL_MSG_FEC_GET: both -EOPNOTSUPP, with nothing filled */
		assert_int_equal(r, -EOPNOTSUPP);
		assert_zero(&f);
		assert_int_equal(eth_nl_fec(n, NO_SUCH, &f, LIVE_TMO), -ENODEV);
	}
	assert_int_equal(eth_nl_fec(n, "", &f, LIVE_TMO), -EINVAL);
	assert_int_equal(eth_nl_fec(n, "0123456789abcdefg", &f, LIVE_TMO), -EINVAL);
	/* the other requests still work on the same socket */
	{
		struct eth_pause_stats s;

		assert_int_equal(eth_nl_pause(n, "lo", &s, LIVE_TMO), -EOPNOTSUPP);
	}
	eth_nl_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_request_refused),
		cmocka_unit_test(test_reply_rs_totals),
		cmocka_unit_test(test_reply_fc_lanes),
		cmocka_unit_test(test_reply_no_stats),
		cmocka_unit_test(test_reply_unknown_and_many_lanes),
		cmocka_unit_test(test_reply_bad),
		cmocka_unit_test(test_mode_names),
		cmocka_unit_test(test_emit),
		cmocka_unit_test(test_emit_first_stands),
		cmocka_unit_test(test_robustness),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
