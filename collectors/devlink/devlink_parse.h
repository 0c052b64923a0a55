/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure builders and parsers of the devlink health reporter dump (generic
 * netlink family "devlink", DEVLINK_CMD_HEALTH_REPORTER_GET with NLM_F_DUMP),
 * and the bounded table the dump is gathered into. Bytes in, structs out: no
 * I/O, no logging, no globals.
 *
 * Attribute numbers are the uapi's (include/uapi/linux/devlink.h, Linux 6.1,
 * unchanged since the health reporters came in 5.1; port reporters, which
 * carry DEVLINK_ATTR_PORT_INDEX, since 5.9):
 *   DEVLINK_CMD_HEALTH_REPORTER_GET 52, DEVLINK_ATTR_BUS_NAME 1 ("pci"),
 *   DEVLINK_ATTR_DEV_NAME 2 ("0000:08:00.0"), DEVLINK_ATTR_PORT_INDEX 3,
 *   DEVLINK_ATTR_HEALTH_REPORTER 114 (nest) holding _NAME 115 (string),
 *   _STATE 116 (u8: DEVLINK_HEALTH_REPORTER_STATE_HEALTHY 0, _ERROR 1),
 *   _ERR_COUNT 117 (u64), _RECOVER_COUNT 118 (u64).
 * The kernel answers one message per reporter (net/devlink/health.c,
 * devlink_nl_health_reporter_fill()).
 */
#ifndef RDMA_EXPORTER_DEVLINK_PARSE_H
#define RDMA_EXPORTER_DEVLINK_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

/* Buffer sizes with the NUL: bus names are short ("pci", "auxiliary",
 * "netdevsim"), device names PCI addresses or driver-made names; reporter
 * names are the drivers' constants ("fw_fatal"). Longer ones are refused. */
#define DL_BUS_MAX	32
#define DL_DEV_MAX	64
#define DL_REPORTER_MAX 64

/* Bounds of the gathered table: devlink handles, reporters per handle. */
#define DL_HANDLES_MAX		64
#define DL_REPORTERS_PER_HANDLE 16
#define DL_ROWS_MAX		(DL_HANDLES_MAX * DL_REPORTERS_PER_HANDLE)

/* One reporter as the kernel reports it. */
struct dl_reporter {
	char bus[DL_BUS_MAX];
	char dev[DL_DEV_MAX];
	char name[DL_REPORTER_MAX];
	bool port;     /* a port reporter (DEVLINK_ATTR_PORT_INDEX present) */
	uint8_t state; /* 0 healthy, 1 error (other values kept as sent) */
	uint64_t errors, recoveries;
};

/* DEVLINK_CMD_HEALTH_REPORTER_GET, NLM_F_DUMP, for the family id. Returns the
 * length or -EMSGSIZE. */
int dl_build_reporter_dump(void *buf, size_t size, uint16_t family, uint32_t seq);

/*
 * One DEVLINK_CMD_HEALTH_REPORTER_GET message: 0 with *out filled, or
 * -EBADMSG (another command, malformed attributes, no handle, no reporter
 * nest or name, a name too long, no state or counters). Attributes this
 * build does not know are skipped.
 */
int dl_parse_reporter(const struct nlmsghdr *nlh, struct dl_reporter *out);

/*
 * The reporters of one dump, one row per (bus, dev, name): a name that
 * several ports of one handle report (mlx5's tx and rx on each port) is one
 * row with the counts summed and the worst state.
 */
struct dl_table {
	struct dl_reporter rows[DL_ROWS_MAX];
	unsigned n;
	unsigned handles; /* distinct (bus, dev) among the rows */
	uint64_t bad;	  /* messages dl_parse_reporter() refused */
	uint64_t dropped; /* reporters beyond the bounds */
};

void dl_table_reset(struct dl_table *t);
/* Adds one reporter: 0, or -ENOSPC when a bound drops it (counted). */
int dl_table_add(struct dl_table *t, const struct dl_reporter *r);
/* Parses one dump message into t (a refused one is counted in t->bad):
 * always 0, so that one bad message does not end the dump. */
int dl_table_on_msg(const struct nlmsghdr *nlh, void *table);

/* Whether s (len bytes) is a PCI address as the kernel names PCI functions
 * (pci_name(): "DDDD:BB:DD.F", lower-case hex). */
bool dl_is_pci_address(const char *s, size_t len);

#endif
