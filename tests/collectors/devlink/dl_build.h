/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Builders of devlink health reporter messages as the kernel sends them
 * (devlink_nl_health_reporter_fill(): genl header, the handle, the port
 * index for a port reporter, the DEVLINK_ATTR_HEALTH_REPORTER nest with name,
 * state, counters padded by DEVLINK_ATTR_PAD as nla_put_u64_64bit() does on
 * some architectures, and the attributes the collector does not read).
 */
#ifndef RDMA_EXPORTER_TEST_DL_BUILD_H
#define RDMA_EXPORTER_TEST_DL_BUILD_H

#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>

#include "nl_build.h"

/* The family id the fake controller hands out. */
#define DL_FAMILY 0x1d

struct dl_msg {
	const char *bus, *dev;
	int port; /* -1: a device reporter */
	const char *name;
	uint8_t state;
	uint64_t errors, recoveries;
};

static inline struct nlmsghdr *dl_put_reporter(struct dg *d, uint16_t flags, const struct dl_msg *m)
{
	struct nlmsghdr *nlh = dg_msg(d, DL_FAMILY, flags, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *nest;

	g->cmd = DEVLINK_CMD_HEALTH_REPORTER_GET;
	g->version = DEVLINK_GENL_VERSION;
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, m->bus);
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, m->dev);
	if (m->port >= 0)
		mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_INDEX, (uint32_t)m->port);
	nest = mnl_attr_nest_start(nlh, DEVLINK_ATTR_HEALTH_REPORTER);
	mnl_attr_put_strz(nlh, DEVLINK_ATTR_HEALTH_REPORTER_NAME, m->name);
	mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_STATE, m->state);
	mnl_attr_put(nlh, DEVLINK_ATTR_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, m->errors);
	mnl_attr_put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, m->recoveries);
	mnl_attr_put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, 500);
	mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER, 1);
	mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_DUMP, 1);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* The controller's CTRL_CMD_NEWFAMILY answer for "devlink". */
static inline struct nlmsghdr *dl_put_family(struct dg *d)
{
	struct nlmsghdr *nlh = dg_msg(d, GENL_ID_CTRL, 0, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	g->cmd = CTRL_CMD_NEWFAMILY;
	g->version = 2;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DEVLINK_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, DL_FAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
	return nlh;
}

#endif
