// SPDX-License-Identifier: Apache-2.0
/*
 * The RDMA netlink parsers every user of rdmanl needs (nldev_parse.c), on
 * reply messages built in memory with libmnl: request building, a single
 * (non-dump) answer, the device dump and a port's hw counters (STAT_GET).
 * The framing of dumps is tested with the resource dumps of the netlink
 * collector (tests/collectors/netlink/test_netlink_parse.c).
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

#include "nl_build.h"
#include "nl_feed.h"
#include "rdmanl/nldev_parse.h"

#define NLDEV(cmd) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd)
#define SEQ	   100u
#define PORTID	   4242u

static int collect_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < RDMA_NLDEV_ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

/* ---- nl_build_request --------------------------------------------------------------------- */

static void test_build_request(void **state)
{
	unsigned char buf[64] __attribute__((aligned(4)));
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int len;

	/* device index 0 is a device: its attribute is sent */
	memset(buf, 0xff, sizeof(buf));
	len = nl_build_request(buf, sizeof(buf), RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_DUMP, 77, 0, 0);
	assert_int_equal(len, MNL_NLMSG_HDRLEN + MNL_ATTR_HDRLEN + 4);
	assert_int_equal(nlh->nlmsg_len, (uint32_t)len);
	assert_int_equal(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_RES_QP_GET));
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(nlh->nlmsg_seq, 77);
	assert_int_equal(nlh->nlmsg_pid, 0);
	memset(tb, 0, sizeof(tb));
	assert_int_equal(mnl_attr_parse(nlh, 0, collect_attr, tb), MNL_CB_OK);
	assert_non_null(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	assert_int_equal(mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 0);
	/* port 0 is no port: omitted */
	assert_null(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);

	/* NL_NO_DEVICE: no attribute at all */
	len = nl_build_request(buf, sizeof(buf), RDMA_NLDEV_CMD_GET, NLM_F_DUMP, 1, NL_NO_DEVICE,
			       0);
	assert_int_equal(len, MNL_NLMSG_HDRLEN);
	assert_int_equal(nlh->nlmsg_len, MNL_NLMSG_HDRLEN);
	assert_int_equal(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_GET));
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);

	/* a doit with device and port */
	len = nl_build_request(buf, sizeof(buf), RDMA_NLDEV_CMD_STAT_GET, 0, 0xfffffffe, 5, 2);
	assert_int_equal(len, MNL_NLMSG_HDRLEN + 2 * (MNL_ATTR_HDRLEN + 4));
	assert_int_equal(nlh->nlmsg_type, NLDEV(RDMA_NLDEV_CMD_STAT_GET));
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(nlh->nlmsg_seq, 0xfffffffe);
	memset(tb, 0, sizeof(tb));
	assert_int_equal(mnl_attr_parse(nlh, 0, collect_attr, tb), MNL_CB_OK);
	assert_int_equal(mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 5);
	assert_int_equal(mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]), 2);

	/* a port without a device */
	len = nl_build_request(buf, sizeof(buf), RDMA_NLDEV_CMD_STAT_GET, 0, 9, NL_NO_DEVICE, 1);
	assert_int_equal(len, MNL_NLMSG_HDRLEN + MNL_ATTR_HDRLEN + 4);
	memset(tb, 0, sizeof(tb));
	assert_int_equal(mnl_attr_parse(nlh, 0, collect_attr, tb), MNL_CB_OK);
	assert_null(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	assert_int_equal(mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]), 1);

	/* room for the header and both attributes, or -EMSGSIZE */
	assert_int_equal(nl_build_request(buf, 31, RDMA_NLDEV_CMD_GET, 0, 1, 0, 1), -EMSGSIZE);
	assert_int_equal(nl_build_request(buf, 0, RDMA_NLDEV_CMD_GET, 0, 1, NL_NO_DEVICE, 0),
			 -EMSGSIZE);
	assert_int_equal(nl_build_request(buf, 32, RDMA_NLDEV_CMD_GET, 0, 1, 0, 1), 32);
}

/* ---- nl_reply_feed ----------------------------------------------------------------------- */

static void test_feed_single_answer(void **state)
{
	struct nl_stat_list l = {0};
	struct nl_reply r = {.seq = SEQ,
			     .portid = PORTID,
			     .cmd = RDMA_NLDEV_CMD_STAT_GET,
			     .on_msg = nl_on_stat_msg,
			     .data = &l};
	struct nlmsghdr *nlh;
	struct nlattr *t;
	struct dg d;

	dg_init(&d);
	/* a doit's answer: no NLM_F_MULTI, no NLMSG_DONE */
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_STAT_GET, 0, 0, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	put_stat(nlh, "sent_pkts", 132141);
	mnl_attr_nest_end(nlh, t);
	mark(nlh, SEQ, PORTID);
	assert_int_equal(feed_dg(&r, &d), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].name, "sent_pkts");
	assert_int_equal(l.v[0].value, 132141);
	assert_int_equal(l.port, 1);
	nl_stat_list_free(&l);
	dg_free(&d);
}

/* ---- device list ------------------------------------------------------------------------- */

static void test_dev_msg(void **state)
{
	struct nl_dev_list l = {0};
	struct nl_reply r = {.cmd = RDMA_NLDEV_CMD_GET, .on_msg = nl_on_dev_msg, .data = &l};
	char long_name[101];
	struct nlmsghdr *nlh;
	struct dg d;

	dg_init(&d);
	/* as rxe sends it, with attributes this parser does not read */
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_GET, NLM_F_MULTI, 0, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 19020918);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_NODE_GUID, 0x5054ff00fe123456ull);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_GET, NLM_F_MULTI, 3, "mlx5_0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	/* no port count: 0 ports */
	dg_dev_msg(&d, RDMA_NLDEV_CMD_GET, NLM_F_MULTI, 7, "siw0");
	/* a name longer than IB_DEVICE_NAME_MAX: cut to fit */
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	dg_dev_msg(&d, RDMA_NLDEV_CMD_GET, NLM_F_MULTI, 8, long_name);
	/* no name, no index, a name without its NUL: skipped and counted */
	nlh = dg_msg(&d, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_MULTI, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	nlh = dg_msg(&d, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_MULTI, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "noindex0");
	nlh = dg_msg(&d, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_MULTI, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	put_raw(nlh, RDMA_NLDEV_ATTR_DEV_NAME, 4, "abcd");
	dg_done(&d, 0);
	assert_int_equal(feed_dg(&r, &d), 0);

	assert_int_equal(l.n, 4);
	assert_int_equal(l.bad_objects, 3);
	assert_int_equal(l.v[0].index, 0);
	assert_string_equal(l.v[0].name, "rxe0");
	assert_int_equal(l.v[0].ports, 1);
	assert_int_equal(l.v[1].index, 3);
	assert_string_equal(l.v[1].name, "mlx5_0");
	assert_int_equal(l.v[1].ports, 2);
	assert_int_equal(l.v[2].index, 7);
	assert_string_equal(l.v[2].name, "siw0");
	assert_int_equal(l.v[2].ports, 0);
	assert_int_equal(l.v[3].index, 8);
	assert_int_equal(strlen(l.v[3].name), NL_NAME_MAX - 1);
	assert_memory_equal(l.v[3].name, long_name, NL_NAME_MAX - 1);

	/* the handler alone: -EBADMSG for a skipped device */
	nlh = dg_msg(&d, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_MULTI, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 4);
	assert_int_equal(nl_on_dev_msg(nlh, &l), -EBADMSG);
	assert_int_equal(l.bad_objects, 4);
	dg_reset(&d);

	/* many devices: the list grows */
	nl_dev_list_free(&l);
	assert_null(l.v);
	assert_int_equal(l.n, 0);
	for (uint32_t i = 0; i < 40; i++) {
		char name[16];

		snprintf(name, sizeof(name), "mlx5_%u", i);
		nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_GET, NLM_F_MULTI, i, name);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1 + i % 2);
	}
	dg_done(&d, 0);
	assert_int_equal(feed_dg(&r, &d), 0);
	assert_int_equal(l.n, 40);
	assert_int_equal(l.v[39].index, 39);
	assert_string_equal(l.v[39].name, "mlx5_39");
	assert_int_equal(l.v[39].ports, 2);
	assert_int_equal(l.bad_objects, 0);
	nl_dev_list_free(&l);
	dg_free(&d);
}

/* ---- STAT_GET ---------------------------------------------------------------------------- */

static void test_stat_msg(void **state)
{
	struct nl_stat_list l = {0};
	char long_name[80];
	struct nlmsghdr *nlh;
	struct nlattr *t, *e;
	struct dg d;

	dg_init(&d);
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_STAT_GET, 0, 0, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	put_stat(nlh, "sent_pkts", 132141);
	put_stat(nlh, "rcvd_pkts", 132140);
	/* no VALUE, a name without NUL, a value of 4 bytes: skipped */
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "novalue");
	mnl_attr_nest_end(nlh, e);
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	put_raw(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 4, "abcd");
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
	mnl_attr_nest_end(nlh, e);
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "narrow");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
	mnl_attr_nest_end(nlh, e);
	/* a name too long for NL_NAME_MAX: cut */
	memset(long_name, 'c', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	put_stat(nlh, long_name, 7);
	/* newer kernels: index and dynamic flag next to name and value */
	e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "link_downed");
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, UINT64_MAX);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 12);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 0);
	mnl_attr_nest_end(nlh, e);
	mnl_attr_nest_end(nlh, t);
	assert_int_equal(nl_on_stat_msg(nlh, &l), 0);

	assert_int_equal(l.port, 2);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.bad_objects, 3);
	assert_string_equal(l.v[0].name, "sent_pkts");
	assert_int_equal(l.v[0].value, 132141);
	assert_string_equal(l.v[1].name, "rcvd_pkts");
	assert_int_equal(l.v[1].value, 132140);
	assert_int_equal(strlen(l.v[2].name), NL_NAME_MAX - 1);
	assert_int_equal(l.v[2].value, 7);
	assert_string_equal(l.v[3].name, "link_downed");
	assert_true(l.v[3].value == UINT64_MAX);
	nl_stat_list_free(&l);
	assert_null(l.v);
	dg_free(&d);
}

/* no counters at all: the port, nothing else */
static void test_stat_msg_empty(void **state)
{
	struct nl_stat_list l = {0};
	struct nlmsghdr *nlh;
	struct dg d;

	dg_init(&d);
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_STAT_GET, 0, 0, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	assert_int_equal(nl_on_stat_msg(nlh, &l), 0);
	assert_int_equal(l.port, 1);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.bad_objects, 0);
	nl_stat_list_free(&l);
	dg_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_request),  cmocka_unit_test(test_feed_single_answer),
		cmocka_unit_test(test_dev_msg),	       cmocka_unit_test(test_stat_msg),
		cmocka_unit_test(test_stat_msg_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
