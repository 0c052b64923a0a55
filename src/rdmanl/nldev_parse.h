/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Room rdmanl (src/rdmanl/): the RDMA netlink helper below every collector
 * that speaks it, as rdma-core's util/rdma_nl.c is below its users.
 *
 * Pure parsers of the RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV)
 * replies every user needs: a request, the framing of a reply
 * (nl_reply_feed), the device dump and a port's hw counters (STAT_GET), and
 * the attribute helpers that the parsers of other dumps (the netlink
 * collector's resource dumps, netlink_parse.h) are built on. Bytes in,
 * structs out: no I/O, no logging, no globals. Results are owned by the
 * caller (the *_free functions); borrowed attribute pointers (nl_attr_table)
 * never outlive the message they point into. Any thread, one object each.
 *
 * Malformed objects (an entry whose attributes do not parse or lack a
 * required attribute) are skipped and counted in bad_objects; attribute
 * types newer than this build's rdma_netlink.h are ignored.
 */
#ifndef RDMA_EXPORTER_NLDEV_PARSE_H
#define RDMA_EXPORTER_NLDEV_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "rdmanl/nldev_compat.h"

/* Device names are IB_DEVICE_NAME_MAX (64) bytes with the NUL. */
#define NL_NAME_MAX 64

/* dev_index of a request about no particular device (device indexes start at 0). */
#define NL_NO_DEVICE UINT32_MAX

/* Builds one request into buf: RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), with
 * NLM_F_REQUEST | flags, the device index attribute unless dev_index is
 * NL_NO_DEVICE, and the port index attribute when port is not 0 (ports
 * count from 1). Returns the length, or -EMSGSIZE. */
int nl_build_request(void *buf, size_t size, uint16_t cmd, uint16_t flags, uint32_t seq,
		     uint32_t dev_index, uint32_t port);

/*
 * One reply being read. on_msg gets every message of type cmd and returns
 * 0 or -errno (-ENOMEM stops the reply; other errors are its own to count).
 */
struct nl_reply {
	uint32_t seq, portid; /* expected; 0 matches any (recorded replies) */
	uint16_t cmd;	      /* RDMA_NLDEV_CMD_* of the request */
	/* nlmsg_type of the data messages; 0: RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd).
	 * Other netlink protocols (generic netlink: the family id) set it. */
	uint16_t type;
	int (*on_msg)(const struct nlmsghdr *nlh, void *data);
	void *data;
	uint64_t bad_messages; /* messages of another type, or failing framing */
};

/*
 * Feeds one datagram. Returns 1 when more datagrams follow, 0 when the reply
 * is complete (NLMSG_DONE, an ACK, or a single non-multipart answer), or
 * -errno: the kernel's NLMSG_ERROR code (-ENODEV, -EINVAL, -EOPNOTSUPP...),
 * -EINTR when NLM_F_DUMP_INTR says the dump changed under us, -ESRCH or
 * -EPROTO for a reply to another request, -ENOMEM.
 */
int nl_reply_feed(struct nl_reply *r, const void *buf, size_t len);

/* RDMA_NLDEV_CMD_GET dump: the devices. */
struct nl_dev_info {
	uint32_t index;
	uint32_t ports; /* number of ports (RDMA_NLDEV_ATTR_PORT_INDEX in GET) */
	char name[NL_NAME_MAX];
};

struct nl_dev_list {
	struct nl_dev_info *v;
	size_t n, cap;
	uint64_t bad_objects;
};
int nl_on_dev_msg(const struct nlmsghdr *nlh, void *dev_list);
void nl_dev_list_free(struct nl_dev_list *l);

/* RDMA_NLDEV_CMD_STAT_GET of one port: its hw counters, in kernel order. */
struct nl_stat {
	char name[NL_NAME_MAX];
	uint64_t value;
};

struct nl_stat_list {
	uint32_t port; /* from the reply */
	struct nl_stat *v;
	size_t n, cap;
	uint64_t bad_objects;
};
int nl_on_stat_msg(const struct nlmsghdr *nlh, void *stat_list);
void nl_stat_list_free(struct nl_stat_list *l);

/*
 * The attribute helpers of every RDMA_NL_NLDEV parser. One policy table (the
 * expected payload type of every attribute read here or in the netlink
 * collector) checks what is kept; types it does not list, or past this
 * build's NL_ATTR_MAX, are skipped unvalidated, as newer kernels add them.
 */
typedef const struct nlattr *nl_attr_table[NL_ATTR_MAX];

/*
 * The attributes in [payload, payload+len) into tb. Unlike mnl_attr_parse(),
 * a truncated attribute is -EBADMSG rather than the silent end of the list:
 * a cut reply must not read as a shorter one.
 */
int nl_parse_attrs(const void *payload, size_t len, nl_attr_table tb);
/* The attributes of a message, or of one nested entry. */
int nl_parse_msg(const struct nlmsghdr *nlh, nl_attr_table tb);
int nl_parse_entry(const struct nlattr *entry, nl_attr_table tb);
/*
 * Calls fn for every attribute of type entry_type inside the nest; other
 * types are skipped. Returns 0, -ENOMEM from fn, or -EBADMSG when the nest is
 * cut (the entries before the cut were handled).
 */
int nl_for_each_entry(const struct nlattr *nest, uint16_t entry_type,
		      int (*fn)(const struct nlattr *entry, void *data), void *data);
/* A string attribute into dst, cut to size - 1 bytes and NUL-terminated. */
void nl_copy_str(char *dst, size_t size, const struct nlattr *a);
/* Doubles *cap (from 8) when n elements of elem bytes fill it: 0 or -ENOMEM. */
int nl_grow(void **v, size_t *cap, size_t n, size_t elem);
/* RDMA_NLDEV_ATTR_PORT_INDEX, or 0 when absent. */
uint32_t nl_port_of(nl_attr_table tb);

#endif
