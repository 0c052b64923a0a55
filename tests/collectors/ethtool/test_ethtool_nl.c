// SPDX-License-Identifier: Apache-2.0
/*
 * ethtool_nl.c: the pure builders and parsers on messages built in memory
 * with libmnl (the generic netlink family lookup, ETHTOOL_MSG_PAUSE_GET and
 * RTM_GETDCB DCB_CMD_IEEE_GET, ETHTOOL_MSG_MODULE_EEPROM_GET, with
 * malformed, missing and unknown attributes), a robustness pass of random bytes and mutated
 * replies, and a live pass on this machine's kernel with the loopback netdev only (which has no
 * module EEPROM: the kernel's -EOPNOTSUPP reply path, and -ENODEV).
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
#include <time.h>

#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include "ethtool_nl.h"

#define FAMILY	 27u
#define SEQ	 4711u
#define MSG_CAP	 4096
#define NO_SUCH	 "nodev-rdmaexp"
#define LIVE_TMO 2000

/* ---- message building ------------------------------------------------------------------- */

/* One message being built, in a zeroed 4-byte aligned buffer. */
struct msg {
	union {
		unsigned char b[MSG_CAP];
		uint64_t align;
	} u;
	struct nlmsghdr *nlh;
};

static struct nlmsghdr *msg_start(struct msg *m, uint16_t type, size_t extra)
{
	memset(m, 0, sizeof(*m));
	m->nlh = mnl_nlmsg_put_header(m->u.b);
	m->nlh->nlmsg_type = type;
	m->nlh->nlmsg_seq = SEQ;
	m->nlh->nlmsg_pid = 1234;
	mnl_nlmsg_put_extra_header(m->nlh, extra);
	return m->nlh;
}

static struct nlmsghdr *genl_start(struct msg *m, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *nlh = msg_start(m, type, GENL_HDRLEN);
	struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	return nlh;
}

/* A DCB reply header as dcbnl_newmsg() writes it. */
static struct nlmsghdr *dcb_start(struct msg *m, uint8_t cmd)
{
	struct nlmsghdr *nlh = msg_start(m, RTM_GETDCB, sizeof(struct dcbmsg));
	struct dcbmsg *d = mnl_nlmsg_get_payload(nlh);

	d->dcb_family = AF_UNSPEC;
	d->cmd = cmd;
	return nlh;
}

/* Raw attribute bytes (any length, any type) at the tail of nlh. */
static struct nlattr *put_raw(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(nlh);

	mnl_attr_put(nlh, type, len, data);
	return a;
}

/* Cuts the message's last attribute short: its header claims more than the message has. */
static void cut_last(struct nlmsghdr *nlh, struct nlattr *a, uint16_t cut)
{
	nlh->nlmsg_len = (uint32_t)((unsigned char *)a - (unsigned char *)nlh) + a->nla_len - cut;
}

/* The family reply of the kernel's controller, with some of its other attributes. */
static struct nlmsghdr *family_reply(struct msg *m, uint16_t id)
{
	struct nlmsghdr *nlh = genl_start(m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	struct nlattr *ops, *op;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, id);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MAXATTR, 0);
	ops = mnl_attr_nest_start(nlh, CTRL_ATTR_OPS);
	op = mnl_attr_nest_start(nlh, 1);
	mnl_attr_put_u32(nlh, CTRL_ATTR_OP_ID, ETHTOOL_MSG_PAUSE_GET);
	mnl_attr_put_u32(nlh, CTRL_ATTR_OP_FLAGS, 0);
	mnl_attr_nest_end(nlh, op);
	mnl_attr_nest_end(nlh, ops);
	return nlh;
}

/* A pause reply as pause_fill_reply() writes it; tx/rx < 0: the counter is left out. */
static struct nlmsghdr *pause_reply(struct msg *m, bool nest, int64_t tx, int64_t rx)
{
	struct nlmsghdr *nlh = genl_start(m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	struct nlattr *hdr, *st;

	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, "eth0");
	mnl_attr_nest_end(nlh, hdr);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_AUTONEG, 1);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 1);
	/* ETHTOOL_A_PAUSE_STATS_SRC of newer kernels: unknown to these headers. */
	mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_STATS + 1, 0);
	if (!nest)
		return nlh;
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	if (tx >= 0) {
		/* The alignment filler of nla_put_u64_64bit(). */
		put_raw(nlh, ETHTOOL_A_PAUSE_STAT_PAD, 0, NULL);
		mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, (uint64_t)tx);
	}
	if (rx >= 0)
		mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, (uint64_t)rx);
	mnl_attr_nest_end(nlh, st);
	return nlh;
}

static struct ieee_pfc sample_pfc(void)
{
	struct ieee_pfc p;

	memset(&p, 0, sizeof(p));
	p.pfc_cap = 8;
	p.pfc_en = 0x08;
	p.delay = 0x1234;
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		p.requests[i] = 1000u + (uint64_t)i;
		p.indications[i] = ((uint64_t)1 << 40) + 2000u + (uint64_t)i;
	}
	return p;
}

/* A DCB_CMD_IEEE_GET reply as dcbnl_ieee_fill() writes it. */
static struct nlmsghdr *dcb_reply(struct msg *m, bool ieee, bool with_pfc, size_t pfc_len)
{
	struct nlmsghdr *nlh = dcb_start(m, DCB_CMD_IEEE_GET);
	struct ieee_pfc pfc = sample_pfc();
	unsigned char big[sizeof(pfc) + 8] = {0};
	struct ieee_ets ets;
	struct nlattr *n, *app;

	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "eth0");
	if (!ieee)
		return nlh;
	memset(&ets, 0, sizeof(ets));
	/* The kernel's nests carry no NLA_F_NESTED: build them by hand. */
	n = mnl_nlmsg_get_payload_tail(nlh);
	mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	n->nla_type = DCB_ATTR_IEEE;
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
	if (with_pfc) {
		memcpy(big, &pfc, sizeof(pfc));
		mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, pfc_len, big);
	}
	app = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	mnl_attr_nest_end(nlh, app);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PEER_PFC, sizeof(pfc), &pfc);
	mnl_attr_nest_end(nlh, n);
	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, DCB_CAP_DCBX_VER_IEEE);
	return nlh;
}

/* Parsers on a heap copy of exactly nlmsg_len bytes, so that ASan sees an overread. */
static void *heap_copy(const struct nlmsghdr *nlh)
{
	void *p = malloc(nlh->nlmsg_len);

	assert_non_null(p);
	memcpy(p, nlh, nlh->nlmsg_len);
	return p;
}

static int family_of(const struct nlmsghdr *nlh, uint16_t *id)
{
	void *p = heap_copy(nlh);
	int r = eth_parse_genl_family_reply(p, id);

	free(p);
	return r;
}

static int pause_of(const struct nlmsghdr *nlh, struct eth_pause_stats *s)
{
	void *p = heap_copy(nlh);
	int r = eth_parse_pause_reply(p, s);

	free(p);
	return r;
}

static int pfc_of(const struct nlmsghdr *nlh, struct eth_pfc *f)
{
	void *p = heap_copy(nlh);
	int r = eth_parse_dcb_ieee_reply(p, f);

	free(p);
	return r;
}

/* Attributes of a built request, for checking. */
static int collect_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < 8)
		tb[type] = a;
	return MNL_CB_OK;
}

/* ---- family ------------------------------------------------------------------------------ */

static void test_family_request(void **state)
{
	struct msg m;
	const struct nlattr *tb[8] = {0};
	const struct genlmsghdr *g;
	int len;

	(void)state;
	memset(&m, 0xa5, sizeof(m));
	len = eth_build_genl_family_request(m.u.b, sizeof(m.u.b), SEQ);
	assert_true(len > 0);
	m.nlh = (struct nlmsghdr *)(void *)m.u.b;
	assert_int_equal(m.nlh->nlmsg_len, (uint32_t)len);
	assert_int_equal(m.nlh->nlmsg_type, GENL_ID_CTRL);
	assert_int_equal(m.nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(m.nlh->nlmsg_seq, SEQ);
	assert_int_equal(m.nlh->nlmsg_pid, 0);
	g = mnl_nlmsg_get_payload(m.nlh);
	assert_int_equal(g->cmd, CTRL_CMD_GETFAMILY);
	assert_int_equal(g->reserved, 0);
	assert_int_equal(mnl_attr_parse(m.nlh, GENL_HDRLEN, collect_attr, tb), MNL_CB_OK);
	assert_non_null(tb[CTRL_ATTR_FAMILY_NAME]);
	assert_int_equal(mnl_attr_validate(tb[CTRL_ATTR_FAMILY_NAME], MNL_TYPE_NUL_STRING), 0);
	assert_string_equal(mnl_attr_get_str(tb[CTRL_ATTR_FAMILY_NAME]), "ethtool");
	assert_null(tb[CTRL_ATTR_FAMILY_ID]);

	/* every buffer shorter than the request is refused */
	for (int size = 0; size < len; size++)
		assert_int_equal(eth_build_genl_family_request(m.u.b, (size_t)size, SEQ),
				 -EMSGSIZE);
}

static void test_family_reply(void **state)
{
	struct msg m;
	struct nlmsghdr *nlh;
	struct nlattr *a;
	uint16_t id = 1;

	(void)state;
	nlh = family_reply(&m, (uint16_t)FAMILY);
	assert_int_equal(family_of(nlh, &id), 0);
	assert_int_equal(id, FAMILY);

	/* no name is fine; no id is not */
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 30);
	mnl_attr_put_u32(nlh, 200, 7); /* unknown: skipped */
	assert_int_equal(family_of(nlh, &id), 0);
	assert_int_equal(id, 30);
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	assert_int_equal(id, 0);

	/* id of the wrong size, id 0, another family, an unterminated name */
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 0);
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "nlctrl");
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
	put_raw(nlh, CTRL_ATTR_FAMILY_NAME, 7, "ethtool");
	assert_int_equal(family_of(nlh, &id), -EBADMSG);

	/* not a controller reply, not NEWFAMILY, no room for the genl header */
	nlh = family_reply(&m, (uint16_t)FAMILY);
	nlh->nlmsg_type = FAMILY;
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	nlh = family_reply(&m, (uint16_t)FAMILY);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = CTRL_CMD_GETFAMILY;
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	nlh = msg_start(&m, GENL_ID_CTRL, 2);
	assert_int_equal(family_of(nlh, &id), -EBADMSG);

	/* a truncated attribute, and trailing bytes too few for a header */
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
	a = put_raw(nlh, CTRL_ATTR_FAMILY_NAME, 8, "ethtool");
	cut_last(nlh, a, 2);
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
	nlh = genl_start(&m, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
	nlh->nlmsg_len += 2;
	assert_int_equal(family_of(nlh, &id), -EBADMSG);
}

/* ---- pause ------------------------------------------------------------------------------- */

static void test_pause_request(void **state)
{
	struct msg m;
	const struct nlattr *tb[8] = {0}, *hb[8] = {0};
	const struct genlmsghdr *g;
	int len;

	(void)state;
	memset(&m, 0xa5, sizeof(m));
	len = eth_build_pause_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, "enp1s0f0np0");
	assert_true(len > 0);
	m.nlh = (struct nlmsghdr *)(void *)m.u.b;
	assert_int_equal(m.nlh->nlmsg_len, (uint32_t)len);
	assert_int_equal(m.nlh->nlmsg_type, FAMILY);
	/* a doit: no NLM_F_DUMP, and no NLM_F_ACK */
	assert_int_equal(m.nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(m.nlh->nlmsg_seq, SEQ);
	g = mnl_nlmsg_get_payload(m.nlh);
	assert_int_equal(g->cmd, ETHTOOL_MSG_PAUSE_GET);
	assert_int_equal(g->version, ETHTOOL_GENL_VERSION);
	assert_int_equal(g->reserved, 0);
	assert_int_equal(mnl_attr_parse(m.nlh, GENL_HDRLEN, collect_attr, tb), MNL_CB_OK);
	assert_non_null(tb[ETHTOOL_A_PAUSE_HEADER]);
	/* ethtool validates strictly: the nest must say it is one */
	assert_true(tb[ETHTOOL_A_PAUSE_HEADER]->nla_type & NLA_F_NESTED);
	for (int t = 0; t < 8; t++)
		if (t != ETHTOOL_A_PAUSE_HEADER)
			assert_null(tb[t]);
	assert_int_equal(mnl_attr_parse_nested(tb[ETHTOOL_A_PAUSE_HEADER], collect_attr, hb),
			 MNL_CB_OK);
	assert_non_null(hb[ETHTOOL_A_HEADER_DEV_NAME]);
	assert_int_equal(mnl_attr_validate(hb[ETHTOOL_A_HEADER_DEV_NAME], MNL_TYPE_NUL_STRING), 0);
	assert_string_equal(mnl_attr_get_str(hb[ETHTOOL_A_HEADER_DEV_NAME]), "enp1s0f0np0");
	assert_non_null(hb[ETHTOOL_A_HEADER_FLAGS]);
	assert_int_equal(mnl_attr_validate(hb[ETHTOOL_A_HEADER_FLAGS], MNL_TYPE_U32), 0);
	assert_int_equal(mnl_attr_get_u32(hb[ETHTOOL_A_HEADER_FLAGS]), ETHTOOL_FLAG_STATS);
	assert_null(hb[ETHTOOL_A_HEADER_DEV_INDEX]);

	/* names the kernel's policy refuses are refused here */
	assert_int_equal(eth_build_pause_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, ""), -EINVAL);
	assert_int_equal(eth_build_pause_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, NULL), -EINVAL);
	assert_int_equal(
		eth_build_pause_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, "0123456789abcdef"),
		-EINVAL);
	assert_true(eth_build_pause_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, "0123456789abcde") >
		    0);
}

static void test_pause_request_sizes(void **state)
{
	unsigned char buf[256] __attribute__((aligned(8)));
	int len;

	(void)state;
	len = eth_build_pause_request(buf, sizeof(buf), FAMILY, SEQ, "eth0");
	assert_true(len > 0);
	for (int size = 0; size < len; size++)
		assert_int_equal(eth_build_pause_request(buf, (size_t)size, FAMILY, SEQ, "eth0"),
				 -EMSGSIZE);
	assert_int_equal(eth_build_pause_request(buf, (size_t)len, FAMILY, SEQ, "eth0"), len);
}

static void test_pause_reply_both(void **state)
{
	struct eth_pause_stats s;
	struct msg m;

	(void)state;
	assert_int_equal(pause_of(pause_reply(&m, true, 12345, UINT32_MAX + 7ll), &s), 0);
	assert_true(s.have_tx);
	assert_true(s.have_rx);
	assert_int_equal(s.tx_frames, 12345);
	assert_int_equal(s.rx_frames, UINT32_MAX + 7ull);
}

static void test_pause_reply_one(void **state)
{
	struct eth_pause_stats s;
	struct msg m;

	(void)state;
	assert_int_equal(pause_of(pause_reply(&m, true, 5, -1), &s), 0);
	assert_true(s.have_tx);
	assert_false(s.have_rx);
	assert_int_equal(s.tx_frames, 5);
	assert_int_equal(s.rx_frames, 0);

	assert_int_equal(pause_of(pause_reply(&m, true, -1, 0), &s), 0);
	assert_false(s.have_tx);
	assert_true(s.have_rx);
	assert_int_equal(s.rx_frames, 0);
}

static void test_pause_reply_none(void **state)
{
	struct eth_pause_stats s;
	struct msg m;

	(void)state;
	/* a driver without get_pause_stats: an empty nest */
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(pause_of(pause_reply(&m, true, -1, -1), &s), 0);
	assert_false(s.have_tx);
	assert_false(s.have_rx);
	assert_int_equal(s.tx_frames, 0);
	assert_int_equal(s.rx_frames, 0);

	/* no nest at all */
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(pause_of(pause_reply(&m, false, 1, 1), &s), 0);
	assert_false(s.have_tx);
	assert_false(s.have_rx);

	/* a bare reply */
	assert_int_equal(pause_of(genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY), &s), 0);
	assert_false(s.have_tx || s.have_rx);
}

static void test_pause_reply_unknown(void **state)
{
	struct eth_pause_stats s;
	struct msg m;
	struct nlmsghdr *nlh;
	struct nlattr *st;
	const uint32_t junk[3] = {1, 2, 3};

	(void)state;
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	put_raw(nlh, 0, 3, "abc");	       /* UNSPEC */
	put_raw(nlh, 300, sizeof(junk), junk); /* beyond the table */
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	put_raw(nlh, ETHTOOL_A_PAUSE_STAT_PAD, 4, junk);
	mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 9);
	mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1, 4); /* a future counter */
	put_raw(nlh, 0x7fff, 1, "x");
	mnl_attr_nest_end(nlh, st);
	put_raw(nlh, ETHTOOL_A_PAUSE_STATS + 5, 0, NULL);
	assert_int_equal(pause_of(nlh, &s), 0);
	assert_false(s.have_tx);
	assert_true(s.have_rx);
	assert_int_equal(s.rx_frames, 9);
}

static void test_pause_reply_bad(void **state)
{
	struct eth_pause_stats s;
	struct msg m;
	struct nlmsghdr *nlh;
	struct nlattr *st, *a;
	uint64_t v = 1;

	(void)state;
	/* counters of the wrong size */
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 1);
	mnl_attr_nest_end(nlh, st);
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);
	assert_false(s.have_tx || s.have_rx);
	assert_int_equal(s.tx_frames, 0);

	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 1);
	put_raw(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 12, "0123456789ab");
	mnl_attr_nest_end(nlh, st);
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);
	assert_false(s.have_tx);

	/* a stats "nest" too short to hold an attribute */
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	put_raw(nlh, ETHTOOL_A_PAUSE_STATS, 2, "ab");
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);

	/* a counter cut inside the nest: the nest says it is longer */
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	a = put_raw(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, sizeof(v), &v);
	a->nla_len += 8;
	mnl_attr_nest_end(nlh, st);
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);

	/* the message ends inside the stats nest */
	nlh = pause_reply(&m, true, 1, 2);
	nlh->nlmsg_len -= 4;
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);

	/* a truncated top-level attribute */
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	a = put_raw(nlh, ETHTOOL_A_PAUSE_AUTONEG, 4, "\1\0\0\0");
	cut_last(nlh, a, 1);
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_PAUSE_GET_REPLY);
	a = put_raw(nlh, ETHTOOL_A_PAUSE_AUTONEG, 4, "\1\0\0\0");
	a->nla_len = 2; /* shorter than its own header */
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);

	/* another command, no room for the genl header */
	nlh = pause_reply(&m, true, 1, 2);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = ETHTOOL_MSG_PAUSE_GET;
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);
	nlh = msg_start(&m, FAMILY, 0);
	assert_int_equal(pause_of(nlh, &s), -EBADMSG);
}

/* ---- DCB --------------------------------------------------------------------------------- */

static void test_dcb_request(void **state)
{
	struct msg m;
	const struct nlattr *tb[8] = {0};
	const struct dcbmsg *d;
	int len;

	(void)state;
	memset(&m, 0xa5, sizeof(m));
	len = eth_build_dcb_ieee_request(m.u.b, sizeof(m.u.b), SEQ, "enp1s0f0np0");
	assert_true(len > 0);
	m.nlh = (struct nlmsghdr *)(void *)m.u.b;
	assert_int_equal(m.nlh->nlmsg_len, (uint32_t)len);
	assert_int_equal(m.nlh->nlmsg_type, RTM_GETDCB);
	assert_int_equal(m.nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(m.nlh->nlmsg_seq, SEQ);
	d = mnl_nlmsg_get_payload(m.nlh);
	assert_int_equal(d->dcb_family, AF_UNSPEC);
	assert_int_equal(d->cmd, DCB_CMD_IEEE_GET);
	assert_int_equal(d->dcb_pad, 0);
	assert_int_equal(mnl_attr_parse(m.nlh, sizeof(*d), collect_attr, tb), MNL_CB_OK);
	assert_non_null(tb[DCB_ATTR_IFNAME]);
	assert_int_equal(mnl_attr_validate(tb[DCB_ATTR_IFNAME], MNL_TYPE_NUL_STRING), 0);
	assert_string_equal(mnl_attr_get_str(tb[DCB_ATTR_IFNAME]), "enp1s0f0np0");
	for (int t = 0; t < 8; t++)
		if (t != DCB_ATTR_IFNAME)
			assert_null(tb[t]);

	for (int size = 0; size < len; size++)
		assert_int_equal(
			eth_build_dcb_ieee_request(m.u.b, (size_t)size, SEQ, "enp1s0f0np0"),
			-EMSGSIZE);
	assert_int_equal(eth_build_dcb_ieee_request(m.u.b, (size_t)len, SEQ, "enp1s0f0np0"), len);
	assert_int_equal(eth_build_dcb_ieee_request(m.u.b, sizeof(m.u.b), SEQ, ""), -EINVAL);
	assert_int_equal(eth_build_dcb_ieee_request(m.u.b, sizeof(m.u.b), SEQ, NULL), -EINVAL);
	assert_int_equal(eth_build_dcb_ieee_request(m.u.b, sizeof(m.u.b), SEQ, "0123456789abcdef"),
			 -EINVAL);
}

static void test_dcb_reply_pfc(void **state)
{
	struct eth_pfc f;
	struct msg m;

	(void)state;
	assert_int_equal(sizeof(struct ieee_pfc), 136);
	assert_int_equal(pfc_of(dcb_reply(&m, true, true, sizeof(struct ieee_pfc)), &f), 0);
	assert_int_equal(f.pfc_en, 0x08);
	for (int i = 0; i < ETH_PRIORITIES; i++) {
		assert_int_equal(f.requests[i], 1000u + (uint64_t)i);
		assert_int_equal(f.indications[i], ((uint64_t)1 << 40) + 2000u + (uint64_t)i);
	}
}

static void test_dcb_reply_no_pfc(void **state)
{
	struct eth_pfc f;
	struct msg m;
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	memset(&f, 0xff, sizeof(f));
	assert_int_equal(pfc_of(dcb_reply(&m, true, false, 0), &f), -ENODATA);
	assert_int_equal(f.pfc_en, 0);
	assert_int_equal(f.requests[7], 0);

	/* an empty IEEE nest, with NLA_F_NESTED set this time */
	nlh = dcb_start(&m, DCB_CMD_IEEE_GET);
	n = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(pfc_of(nlh, &f), -ENODATA);
}

static void test_dcb_reply_no_ieee(void **state)
{
	struct eth_pfc f;
	struct msg m;

	(void)state;
	assert_int_equal(pfc_of(dcb_reply(&m, false, false, 0), &f), -EOPNOTSUPP);
	assert_int_equal(pfc_of(dcb_start(&m, DCB_CMD_IEEE_GET), &f), -EOPNOTSUPP);
}

static void test_dcb_reply_bad(void **state)
{
	struct ieee_pfc pfc = sample_pfc();
	struct eth_pfc f;
	struct msg m;
	struct nlmsghdr *nlh;
	struct nlattr *a, *n;

	(void)state;
	/* ieee_pfc shorter or longer than the struct */
	memset(&f, 0xff, sizeof(f));
	assert_int_equal(pfc_of(dcb_reply(&m, true, true, sizeof(struct ieee_pfc) - 8), &f),
			 -EBADMSG);
	assert_int_equal(f.pfc_en, 0);
	assert_int_equal(f.indications[0], 0);
	assert_int_equal(pfc_of(dcb_reply(&m, true, true, 4), &f), -EBADMSG);
	assert_int_equal(pfc_of(dcb_reply(&m, true, true, 0), &f), -EBADMSG);
	assert_int_equal(pfc_of(dcb_reply(&m, true, true, sizeof(struct ieee_pfc) + 8), &f),
			 -EBADMSG);

	/* the message ends inside ieee_pfc */
	nlh = dcb_start(&m, DCB_CMD_IEEE_GET);
	n = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	mnl_attr_nest_end(nlh, n);
	nlh->nlmsg_len -= 16;
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);

	/* PFC attribute cut within an intact nest */
	nlh = dcb_start(&m, DCB_CMD_IEEE_GET);
	n = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	a = put_raw(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	a->nla_len += 4;
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);

	/* a truncated top-level attribute */
	nlh = dcb_start(&m, DCB_CMD_IEEE_GET);
	a = put_raw(nlh, DCB_ATTR_IFNAME, 5, "eth0");
	cut_last(nlh, a, 2);
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);

	/* an IEEE "nest" too short for an attribute */
	nlh = dcb_start(&m, DCB_CMD_IEEE_GET);
	put_raw(nlh, DCB_ATTR_IEEE, 3, "abc");
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);

	/* another command, another type, no room for struct dcbmsg */
	nlh = dcb_reply(&m, true, true, sizeof(struct ieee_pfc));
	((struct dcbmsg *)mnl_nlmsg_get_payload(nlh))->cmd = DCB_CMD_CEE_GET;
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);
	nlh = dcb_reply(&m, true, true, sizeof(struct ieee_pfc));
	nlh->nlmsg_type = RTM_SETDCB;
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);
	nlh = msg_start(&m, RTM_GETDCB, 0);
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);
	nlh = msg_start(&m, RTM_GETDCB, 2);
	assert_int_equal(pfc_of(nlh, &f), -EBADMSG);
}

static void test_dcb_reply_unknown(void **state)
{
	struct ieee_pfc pfc = sample_pfc();
	struct eth_pfc f;
	struct msg m;
	struct nlmsghdr *nlh;
	struct nlattr *n;

	(void)state;
	nlh = dcb_start(&m, DCB_CMD_IEEE_GET);
	put_raw(nlh, 0, 1, "x");
	put_raw(nlh, DCB_ATTR_MAX + 3, 5, "abcde");
	n = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	put_raw(nlh, DCB_ATTR_IEEE_MAX + 4, 2, "ab");
	put_raw(nlh, DCB_ATTR_IEEE_ETS, 3, "abc"); /* not read: any size */
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	mnl_attr_nest_end(nlh, n);
	assert_int_equal(pfc_of(nlh, &f), 0);
	assert_int_equal(f.pfc_en, 0x08);
	assert_int_equal(f.requests[3], 1003);
}

/* ---- robustness -------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	/* xorshift64*: fixed seed, same inputs on every run */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

/* ---- module EEPROM ------------------------------------------------------------------------- */

/* A module EEPROM reply as eeprom_fill_reply() writes it: header, then data. */
static struct nlmsghdr *module_reply(struct msg *m, size_t len, uint8_t fill)
{
	struct nlmsghdr *nlh = genl_start(m, FAMILY, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY);
	unsigned char data[256];
	struct nlattr *hdr;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(fill + i);
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_MODULE_EEPROM_HEADER);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, "eth0");
	mnl_attr_nest_end(nlh, hdr);
	put_raw(nlh, ETHTOOL_A_MODULE_EEPROM_DATA, len, data);
	return nlh;
}

static void test_module_request(void **state)
{
	struct eth_module_req req = {
		.i2c = 0x50, .page = 0x11, .bank = 1, .offset = 128, .length = 128};
	const struct nlattr *tb[ETHTOOL_A_MODULE_EEPROM_MAX + 1] = {0}, *hb[8] = {0};
	const struct genlmsghdr *g;
	struct msg m;
	int len;

	(void)state;
	memset(&m, 0xa5, sizeof(m));
	len = eth_build_module_eeprom_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, "enp1s0f0np0",
					      &req);
	assert_true(len > 0);
	m.nlh = (struct nlmsghdr *)(void *)m.u.b;
	assert_int_equal(m.nlh->nlmsg_len, (uint32_t)len);
	assert_int_equal(m.nlh->nlmsg_type, FAMILY);
	assert_int_equal(m.nlh->nlmsg_flags, NLM_F_REQUEST);
	g = mnl_nlmsg_get_payload(m.nlh);
	assert_int_equal(g->cmd, ETHTOOL_MSG_MODULE_EEPROM_GET);
	assert_int_equal(mnl_attr_parse(m.nlh, GENL_HDRLEN, collect_attr, tb), MNL_CB_OK);
	assert_true(tb[ETHTOOL_A_MODULE_EEPROM_HEADER]->nla_type & NLA_F_NESTED);
	assert_int_equal(
		mnl_attr_parse_nested(tb[ETHTOOL_A_MODULE_EEPROM_HEADER], collect_attr, hb),
		MNL_CB_OK);
	assert_string_equal(mnl_attr_get_str(hb[ETHTOOL_A_HEADER_DEV_NAME]), "enp1s0f0np0");
	assert_null(hb[ETHTOOL_A_HEADER_FLAGS]);
	assert_int_equal(mnl_attr_validate(tb[ETHTOOL_A_MODULE_EEPROM_OFFSET], MNL_TYPE_U32), 0);
	assert_int_equal(mnl_attr_get_u32(tb[ETHTOOL_A_MODULE_EEPROM_OFFSET]), 128);
	assert_int_equal(mnl_attr_validate(tb[ETHTOOL_A_MODULE_EEPROM_LENGTH], MNL_TYPE_U32), 0);
	assert_int_equal(mnl_attr_get_u32(tb[ETHTOOL_A_MODULE_EEPROM_LENGTH]), 128);
	assert_int_equal(mnl_attr_validate(tb[ETHTOOL_A_MODULE_EEPROM_PAGE], MNL_TYPE_U8), 0);
	assert_int_equal(mnl_attr_get_u8(tb[ETHTOOL_A_MODULE_EEPROM_PAGE]), 0x11);
	assert_int_equal(mnl_attr_get_u8(tb[ETHTOOL_A_MODULE_EEPROM_BANK]), 1);
	assert_int_equal(mnl_attr_get_u8(tb[ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS]), 0x50);
	assert_null(tb[ETHTOOL_A_MODULE_EEPROM_DATA]);

	/* every size short of the message fails cleanly */
	for (int size = 0; size < len; size++)
		assert_int_equal(eth_build_module_eeprom_request(m.u.b, (size_t)size, FAMILY, SEQ,
								 "enp1s0f0np0", &req),
				 -EMSGSIZE);
	/* reads the kernel refuses are refused here (net/ethtool/eeprom.c) */
	{
		static const struct eth_module_req bad[] = {
			{0x50, 0, 0, 0, 0},	/* no length */
			{0x50, 0, 0, 0, 129},	/* more than a half page */
			{0x50, 0, 0, 100, 128}, /* across the half page */
			{0x50, 0, 0, 200, 128}, /* across the page */
			{0x50, 0, 0, 256, 1},	/* beyond the page */
			{0x80, 0, 0, 0, 128},	/* not a 7-bit address */
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			assert_int_equal(eth_build_module_eeprom_request(m.u.b, sizeof(m.u.b),
									 FAMILY, SEQ, "eth0",
									 &bad[i]),
					 -EINVAL);
	}
	assert_int_equal(
		eth_build_module_eeprom_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, "eth0", NULL),
		-EINVAL);
	assert_int_equal(
		eth_build_module_eeprom_request(m.u.b, sizeof(m.u.b), FAMILY, SEQ, "", &req),
		-EINVAL);
}

static void test_module_reply(void **state)
{
	struct eth_module_data d;
	struct msg m;
	struct nlmsghdr *nlh;

	(void)state;
	memset(&d, 0xa5, sizeof(d));
	assert_int_equal(eth_parse_module_eeprom_reply(module_reply(&m, 128, 7), &d), 0);
	assert_int_equal(d.len, 128);
	for (int i = 0; i < 128; i++)
		assert_int_equal(d.data[i], (uint8_t)(7 + i));
	assert_int_equal(eth_parse_module_eeprom_reply(module_reply(&m, 1, 9), &d), 0);
	assert_int_equal(d.len, 1);
	assert_int_equal(d.data[0], 9);
	/* an attribute of a newer kernel is skipped */
	nlh = module_reply(&m, 128, 0);
	mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_MAX + 1, 5);
	assert_int_equal(eth_parse_module_eeprom_reply(nlh, &d), 0);

	/* no data, too much data, another command, a cut attribute */
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY);
	assert_int_equal(eth_parse_module_eeprom_reply(nlh, &d), -EBADMSG);
	assert_int_equal(d.len, 0);
	assert_int_equal(eth_parse_module_eeprom_reply(module_reply(&m, 129, 0), &d), -EBADMSG);
	assert_int_equal(d.len, 0);
	nlh = module_reply(&m, 128, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = ETHTOOL_MSG_PAUSE_GET_REPLY;
	assert_int_equal(eth_parse_module_eeprom_reply(nlh, &d), -EBADMSG);
	nlh = genl_start(&m, FAMILY, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY);
	{
		unsigned char data[128] = {0};
		struct nlattr *a = put_raw(nlh, ETHTOOL_A_MODULE_EEPROM_DATA, sizeof(data), data);

		cut_last(nlh, a, 4);
	}
	assert_int_equal(eth_parse_module_eeprom_reply(nlh, &d), -EBADMSG);
	assert_int_equal(d.len, 0);
}

/* All the parsers on len bytes in a buffer of exactly that size; nlmsg_len
 * is made to match (the parsers' callers check framing first). */
static void parse_all(const void *bytes, size_t len)
{
	struct eth_pause_stats s;
	struct eth_pfc f;
	struct eth_module_data md;
	struct nlmsghdr *nlh;
	uint16_t id;
	int r;

	if (len < sizeof(*nlh))
		return;
	nlh = malloc(len);
	assert_non_null(nlh);
	memcpy(nlh, bytes, len);
	nlh->nlmsg_len = (uint32_t)len;

	r = eth_parse_genl_family_reply(nlh, &id);
	assert_true(r == 0 || r == -EBADMSG);
	assert_true(r == 0 ? id >= NLMSG_MIN_TYPE : id == 0);

	r = eth_parse_pause_reply(nlh, &s);
	assert_true(r == 0 || r == -EBADMSG);
	if (r < 0 || !s.have_tx)
		assert_int_equal(s.tx_frames, 0);
	if (r < 0 || !s.have_rx)
		assert_int_equal(s.rx_frames, 0);
	if (r < 0)
		assert_false(s.have_tx || s.have_rx);

	r = eth_parse_dcb_ieee_reply(nlh, &f);
	assert_true(r == 0 || r == -EBADMSG || r == -ENODATA || r == -EOPNOTSUPP);
	if (r < 0)
		assert_int_equal(f.pfc_en, 0);

	r = eth_parse_module_eeprom_reply(nlh, &md);
	assert_true(r == 0 || r == -EBADMSG);
	assert_true(md.len <= ETH_MODULE_READ_MAX);
	if (r < 0)
		assert_int_equal(md.len, 0);
	free(nlh);
}

static void mutate_and_parse(const struct nlmsghdr *seed, unsigned rounds)
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
			case 0: /* a random byte */
				buf[at] = (unsigned char)rnd();
				break;
			case 1: /* an attribute length, the likeliest to hurt */
				buf[at & ~(size_t)3] = (unsigned char)rnd();
				break;
			case 2: /* one bit */
				buf[at] ^= (unsigned char)(1u << (rnd() % 8));
				break;
			default: /* cut the message short */
				n = at;
				break;
			}
		}
		parse_all(buf, n);
	}
}

static void test_robustness(void **state)
{
	unsigned char buf[512];
	struct msg m;
	clock_t t0 = clock();

	(void)state;
	/* random bytes, with the header sometimes right so that attributes are reached */
	for (int i = 0; i < 100000; i++) {
		size_t len = 16 + rnd() % (sizeof(buf) - 16);
		struct nlmsghdr *nlh = (struct nlmsghdr *)(void *)buf;

		for (size_t k = 0; k < len; k++)
			buf[k] = (unsigned char)rnd();
		switch (rnd() % 5) {
		case 0:
			nlh->nlmsg_type = GENL_ID_CTRL;
			buf[16] = CTRL_CMD_NEWFAMILY;
			break;
		case 1:
			buf[16] = ETHTOOL_MSG_PAUSE_GET_REPLY;
			break;
		case 2:
			nlh->nlmsg_type = RTM_GETDCB;
			buf[17] = DCB_CMD_IEEE_GET;
			break;
		case 3:
			buf[16] = ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY;
			break;
		default:
			break;
		}
		parse_all(buf, len);
	}
	/* every length of every valid reply */
	for (int k = 0; k < 4; k++) {
		struct nlmsghdr *nlh = k == 0	? family_reply(&m, (uint16_t)FAMILY)
				       : k == 1 ? pause_reply(&m, true, 1, 2)
				       : k == 2
					       ? pause_reply(&m, true, -1, 3)
					       : dcb_reply(&m, true, true, sizeof(struct ieee_pfc));

		for (size_t len = 16; len <= nlh->nlmsg_len; len++)
			parse_all(nlh, len);
	}
	/* mutations of the valid replies */
	mutate_and_parse(family_reply(&m, (uint16_t)FAMILY), 100000);
	mutate_and_parse(pause_reply(&m, true, 1, 2), 150000);
	mutate_and_parse(pause_reply(&m, false, 1, 2), 50000);
	mutate_and_parse(dcb_reply(&m, true, true, sizeof(struct ieee_pfc)), 150000);
	mutate_and_parse(dcb_reply(&m, true, false, 0), 50000);
	mutate_and_parse(module_reply(&m, 128, 0), 100000);
	{
		struct nlmsghdr *nlh = module_reply(&m, 128, 0);

		for (size_t len = 16; len <= nlh->nlmsg_len; len++)
			parse_all(nlh, len);
	}
	print_message("robustness: %.2f s of CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
}

/* ---- live, on this machine's kernel -------------------------------------------------------- */

static void test_live_free_null(void **state)
{
	struct eth_pause_stats s;
	struct eth_pfc f;

	(void)state;
	eth_nl_free(NULL);
	assert_int_equal(eth_nl_pause(NULL, "lo", &s, 10), -EINVAL);
	assert_int_equal(eth_nl_pfc(NULL, "lo", &f, 10), -EINVAL);
}

/* Netlink sockets refused by a sandbox: nothing to test here. */
static bool sandboxed(int r)
{
	return r == -EAFNOSUPPORT || r == -EPROTONOSUPPORT || r == -EPERM || r == -EACCES;
}

static void test_live_pause(void **state)
{
	struct eth_nl *n = eth_nl_open();
	struct eth_pause_stats s;
	int r;

	(void)state;
	assert_non_null(n);
	for (int i = 0; i < 3; i++) {
		memset(&s, 0xff, sizeof(s));
		r = eth_nl_pause(n, "lo", &s, LIVE_TMO);
		if (sandboxed(r)) {
			eth_nl_free(n);
			skip();
		}
		/* loopback has no get_pauseparam: -EOPNOTSUPP; a reply without
		 * counters would read as -EOPNOTSUPP too */
		assert_int_equal(r, -EOPNOTSUPP);
		assert_false(s.have_tx || s.have_rx);
		assert_int_equal(s.tx_frames, 0);

		assert_int_equal(eth_nl_pause(n, NO_SUCH, &s, LIVE_TMO), -ENODEV);
	}
	/* names the kernel could never have are refused before any I/O */
	assert_int_equal(eth_nl_pause(n, "", &s, LIVE_TMO), -EINVAL);
	assert_int_equal(eth_nl_pause(n, "0123456789abcdefg", &s, LIVE_TMO), -EINVAL);
	/* a zero timeout: any documented answer, and the next call still works */
	r = eth_nl_pause(n, "lo", &s, 0);
	assert_true(r == -EOPNOTSUPP || r == -ETIMEDOUT);
	assert_int_equal(eth_nl_pause(n, NO_SUCH, &s, LIVE_TMO), -ENODEV);
	eth_nl_free(n);
}

static void test_live_module(void **state)
{
	struct eth_module_req req = {.i2c = 0x50, .length = 128};
	struct eth_nl *n = eth_nl_open();
	uint8_t buf[128];
	int r;

	(void)state;
	assert_non_null(n);
	assert_int_equal(eth_nl_module_eeprom(NULL, "lo", &req, buf, 10), -EINVAL);
	for (int i = 0; i < 3; i++) {
		r = eth_nl_module_eeprom(n, "lo", &req, buf, LIVE_TMO);
		if (sandboxed(r)) {
			eth_nl_free(n);
			skip();
		}
		/* loopback has no module EEPROM: the kernel's -EOPNOTSUPP (a kernel
		 * before 5.13 answers the unknown command the same way) */
		assert_int_equal(r, -EOPNOTSUPP);
		assert_int_equal(eth_nl_module_eeprom(n, NO_SUCH, &req, buf, LIVE_TMO), -ENODEV);
	}
	req.length = 0;
	assert_int_equal(eth_nl_module_eeprom(n, "lo", &req, buf, LIVE_TMO), -EINVAL);
	eth_nl_free(n);
}

static void test_live_pfc(void **state)
{
	struct eth_nl *n = eth_nl_open();
	struct eth_pfc f;
	int r;

	(void)state;
	assert_non_null(n);
	for (int i = 0; i < 3; i++) {
		memset(&f, 0xff, sizeof(f));
		r = eth_nl_pfc(n, "lo", &f, LIVE_TMO);
		if (sandboxed(r)) {
			eth_nl_free(n);
			skip();
		}
		/* loopback has no dcbnl_ops (and a kernel without DCB has no
		 * RTM_GETDCB handler): both -EOPNOTSUPP */
		assert_int_equal(r, -EOPNOTSUPP);
		assert_int_equal(f.pfc_en, 0);
		assert_int_equal(f.requests[0], 0);

		r = eth_nl_pfc(n, NO_SUCH, &f, LIVE_TMO);
		/* dcb_doit looks the netdev up before it looks at DCB */
		assert_true(r == -ENODEV || r == -EOPNOTSUPP);
	}
	assert_int_equal(eth_nl_pfc(n, "", &f, LIVE_TMO), -EINVAL);
	eth_nl_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_request),
		cmocka_unit_test(test_family_reply),
		cmocka_unit_test(test_pause_request),
		cmocka_unit_test(test_pause_request_sizes),
		cmocka_unit_test(test_pause_reply_both),
		cmocka_unit_test(test_pause_reply_one),
		cmocka_unit_test(test_pause_reply_none),
		cmocka_unit_test(test_pause_reply_unknown),
		cmocka_unit_test(test_pause_reply_bad),
		cmocka_unit_test(test_dcb_request),
		cmocka_unit_test(test_dcb_reply_pfc),
		cmocka_unit_test(test_dcb_reply_no_pfc),
		cmocka_unit_test(test_dcb_reply_no_ieee),
		cmocka_unit_test(test_dcb_reply_bad),
		cmocka_unit_test(test_dcb_reply_unknown),
		cmocka_unit_test(test_module_request),
		cmocka_unit_test(test_module_reply),
		cmocka_unit_test(test_robustness),
		cmocka_unit_test(test_live_free_null),
		cmocka_unit_test(test_live_pause),
		cmocka_unit_test(test_live_pfc),
		cmocka_unit_test(test_live_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
