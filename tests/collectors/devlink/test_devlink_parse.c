// SPDX-License-Identifier: Apache-2.0
/*
 * The devlink collector's pure parts (devlink_parse.c): the dump request,
 * one reporter message as the kernel builds it, every way a message is
 * refused, the table's merging of port reporters and its bounds, and the
 * PCI address check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dl_build.h"

#include "devlink_parse.h"

static const struct dl_msg fw_fatal = {"pci", "0000:41:00.0", -1, "fw_fatal", 1, 3, 2};

static void test_dump_request(void **unused)
{
	unsigned char buf[64] __attribute__((aligned(4)));
	const struct nlmsghdr *nlh = (const void *)buf;
	const struct genlmsghdr *g;
	int len = dl_build_reporter_dump(buf, sizeof(buf), DL_FAMILY, 77);

	(void)unused;
	assert_int_equal(len, NLMSG_HDRLEN + GENL_HDRLEN);
	assert_int_equal(nlh->nlmsg_len, len);
	assert_int_equal(nlh->nlmsg_type, DL_FAMILY);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	assert_int_equal(nlh->nlmsg_seq, 77);
	g = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(g->cmd, DEVLINK_CMD_HEALTH_REPORTER_GET);
	assert_int_equal(g->version, DEVLINK_GENL_VERSION);
	assert_int_equal(dl_build_reporter_dump(buf, 8, DL_FAMILY, 1), -EMSGSIZE);
}

static void test_parse_reporter(void **unused)
{
	const struct dl_msg port_tx = {"pci", "0000:41:00.1", 65535, "tx", 0, UINT64_MAX, 0};
	struct dl_reporter r;
	struct dg d;

	(void)unused;
	dg_init(&d);
	assert_int_equal(dl_parse_reporter(dl_put_reporter(&d, NLM_F_MULTI, &fw_fatal), &r), 0);
	assert_string_equal(r.bus, "pci");
	assert_string_equal(r.dev, "0000:41:00.0");
	assert_string_equal(r.name, "fw_fatal");
	assert_false(r.port);
	assert_int_equal(r.state, 1);
	assert_int_equal(r.errors, 3);
	assert_int_equal(r.recoveries, 2);

	dg_reset(&d);
	assert_int_equal(dl_parse_reporter(dl_put_reporter(&d, NLM_F_MULTI, &port_tx), &r), 0);
	assert_true(r.port);
	assert_string_equal(r.name, "tx");
	assert_true(r.errors == UINT64_MAX);
	dg_free(&d);
}

/* A message with the given attribute left out of the nest (0: none) or of the top. */
static struct nlmsghdr *put_without(struct dg *d, uint16_t top_skip, uint16_t hr_skip)
{
	struct nlmsghdr *nlh = dg_msg(d, DL_FAMILY, NLM_F_MULTI, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *nest;

	g->cmd = DEVLINK_CMD_HEALTH_REPORTER_GET;
	if (top_skip != DEVLINK_ATTR_BUS_NAME)
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
	if (top_skip != DEVLINK_ATTR_DEV_NAME)
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "0000:41:00.0");
	if (top_skip == DEVLINK_ATTR_HEALTH_REPORTER)
		return nlh;
	nest = mnl_attr_nest_start(nlh, DEVLINK_ATTR_HEALTH_REPORTER);
	if (hr_skip != DEVLINK_ATTR_HEALTH_REPORTER_NAME)
		mnl_attr_put_strz(nlh, DEVLINK_ATTR_HEALTH_REPORTER_NAME, "rx");
	if (hr_skip != DEVLINK_ATTR_HEALTH_REPORTER_STATE)
		mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_STATE, 0);
	if (hr_skip != DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT)
		mnl_attr_put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, 1);
	if (hr_skip != DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT)
		mnl_attr_put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, 1);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static void assert_refused(const struct nlmsghdr *nlh)
{
	struct dl_reporter r;

	memset(&r, 0x5a, sizeof(r));
	assert_int_equal(dl_parse_reporter(nlh, &r), -EBADMSG);
	/* nothing half filled */
	assert_string_equal(r.name, "");
	assert_int_equal(r.errors, 0);
}

static void test_parse_refused(void **unused)
{
	static const uint16_t top[] = {DEVLINK_ATTR_BUS_NAME, DEVLINK_ATTR_DEV_NAME,
				       DEVLINK_ATTR_HEALTH_REPORTER};
	static const uint16_t hr[] = {
		DEVLINK_ATTR_HEALTH_REPORTER_NAME, DEVLINK_ATTR_HEALTH_REPORTER_STATE,
		DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT};
	char longname[DL_REPORTER_MAX + 1];
	struct dl_msg m = fw_fatal;
	struct dl_reporter r;
	struct nlmsghdr *nlh;
	struct dg d;

	(void)unused;
	dg_init(&d);
	/* the control message: complete, so the refusals below are the cause */
	assert_int_equal(dl_parse_reporter(put_without(&d, 0, 0), &r), 0);
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		dg_reset(&d);
		assert_refused(put_without(&d, top[i], 0));
	}
	for (size_t i = 0; i < sizeof(hr) / sizeof(hr[0]); i++) {
		dg_reset(&d);
		assert_refused(put_without(&d, 0, hr[i]));
	}
	/* another command */
	dg_reset(&d);
	nlh = dl_put_reporter(&d, 0, &m);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = DEVLINK_CMD_GET;
	assert_refused(nlh);
	/* a name that does not fit, an empty one */
	memset(longname, 'a', DL_REPORTER_MAX);
	longname[DL_REPORTER_MAX] = '\0';
	m.name = longname;
	dg_reset(&d);
	assert_refused(dl_put_reporter(&d, 0, &m));
	m.name = "";
	dg_reset(&d);
	assert_refused(dl_put_reporter(&d, 0, &m));
	/* a state of the wrong width; an attribute cut by the message's end */
	m = fw_fatal;
	dg_reset(&d);
	nlh = put_without(&d, 0, DEVLINK_ATTR_HEALTH_REPORTER_STATE);
	mnl_attr_put_u32(nlh, DEVLINK_ATTR_HEALTH_REPORTER_STATE, 1);
	assert_refused(nlh);
	dg_reset(&d);
	nlh = dl_put_reporter(&d, 0, &m);
	nlh->nlmsg_len -= 6;
	assert_refused(nlh);
	/* no room for the genl header */
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	assert_refused(nlh);
	dg_free(&d);
}

static struct dl_reporter rep(const char *dev, const char *name, uint8_t state, uint64_t errors,
			      uint64_t recoveries)
{
	struct dl_reporter r = {.state = state, .errors = errors, .recoveries = recoveries};

	snprintf(r.bus, sizeof(r.bus), "pci");
	snprintf(r.dev, sizeof(r.dev), "%s", dev);
	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static void test_table_merges_ports(void **unused)
{
	struct dl_table *t = calloc(1, sizeof(*t));
	struct dl_reporter a = rep("0000:41:00.0", "tx", 0, 5, 4);
	struct dl_reporter b = rep("0000:41:00.0", "tx", 1, UINT64_MAX - 1, 1);
	struct dl_reporter other_bus = rep("0000:41:00.0", "tx", 0, 1, 1);

	(void)unused;
	assert_non_null(t);
	dl_table_reset(t);
	a.port = b.port = true;
	snprintf(other_bus.bus, sizeof(other_bus.bus), "auxiliary");
	assert_int_equal(dl_table_add(t, &a), 0);
	assert_int_equal(dl_table_add(t, &b), 0);
	assert_int_equal(dl_table_add(t, &other_bus), 0);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->handles, 2);
	assert_int_equal(t->rows[0].state, 1);
	/* saturated, never wrapped */
	assert_true(t->rows[0].errors == UINT64_MAX);
	assert_int_equal(t->rows[0].recoveries, 5);
	dl_table_reset(t);
	assert_int_equal(t->n, 0);
	free(t);
}

static void test_table_bounds(void **unused)
{
	struct dl_table *t = calloc(1, sizeof(*t));
	char dev[32], name[32];
	struct dl_reporter r;

	(void)unused;
	assert_non_null(t);
	dl_table_reset(t);
	for (unsigned i = 0; i <= DL_REPORTERS_PER_HANDLE; i++) {
		snprintf(name, sizeof(name), "r%u", i);
		r = rep("0000:01:00.0", name, 0, i, 0);
		assert_int_equal(dl_table_add(t, &r), i < DL_REPORTERS_PER_HANDLE ? 0 : -ENOSPC);
	}
	assert_int_equal(t->dropped, 1);
	/* a known reporter of a full handle still merges */
	r = rep("0000:01:00.0", "r0", 1, 1, 0);
	assert_int_equal(dl_table_add(t, &r), 0);
	for (unsigned i = 1; i <= DL_HANDLES_MAX; i++) {
		snprintf(dev, sizeof(dev), "0000:%02x:00.1", i);
		r = rep(dev, "fw", 0, 0, 0);
		assert_int_equal(dl_table_add(t, &r), i < DL_HANDLES_MAX ? 0 : -ENOSPC);
	}
	assert_int_equal(t->handles, DL_HANDLES_MAX);
	assert_int_equal(t->dropped, 2);
	assert_int_equal(t->n, DL_REPORTERS_PER_HANDLE + DL_HANDLES_MAX - 1);
	free(t);
}

static void test_table_on_msg(void **unused)
{
	struct dl_table *t = calloc(1, sizeof(*t));
	struct dg d;

	(void)unused;
	assert_non_null(t);
	dl_table_reset(t);
	dg_init(&d);
	assert_int_equal(dl_table_on_msg(dl_put_reporter(&d, NLM_F_MULTI, &fw_fatal), t), 0);
	dg_reset(&d);
	assert_int_equal(dl_table_on_msg(put_without(&d, DEVLINK_ATTR_DEV_NAME, 0), t), 0);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->bad, 1);
	assert_string_equal(t->rows[0].name, "fw_fatal");
	dg_free(&d);
	free(t);
}

static void test_pci_address(void **unused)
{
	static const char *const good[] = {"0000:41:00.0", "0000:08:1f.7", "10000:e1:00.1"};
	static const char *const bad[] = {"",
					  "netdevsim1",
					  "0000:41:00",
					  "0000:41:00.8",
					  "0000:41:00:0",
					  "0000:4G:00.0",
					  "0000:41:00.0.1",
					  "mlx5_core.sf.2",
					  "0000:AB:00.0"};

	(void)unused;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(dl_is_pci_address(good[i], strlen(good[i])));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(dl_is_pci_address(bad[i], strlen(bad[i])));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_request),  cmocka_unit_test(test_parse_reporter),
		cmocka_unit_test(test_parse_refused), cmocka_unit_test(test_table_merges_ports),
		cmocka_unit_test(test_table_bounds),  cmocka_unit_test(test_table_on_msg),
		cmocka_unit_test(test_pci_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
