/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Generic netlink helpers shared by the collectors that speak it (ethtool,
 * devlink): request headers, the controller's family look-up
 * (CTRL_CMD_GETFAMILY by name) and a policy-table attribute parser. Pure:
 * bytes in, structs out; no I/O, no logging, no state: any thread. The
 * attribute pointers put in tb are borrowed from the message parsed.
 * Room rdmanl (src/rdmanl/, nldev_parse.h).
 */
#ifndef RDMA_EXPORTER_GENL_H
#define RDMA_EXPORTER_GENL_H

#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

/* How one attribute type is checked; MNL_TYPE_UNSPEC: not read, not checked. */
struct genl_attr_policy {
	enum mnl_attr_data_type type;
	size_t len; /* exact payload length for MNL_TYPE_BINARY; 0: any */
};

/*
 * Collects the attributes in [payload, payload+len) of types below max into
 * tb (the last of a repeated type wins, as in the kernel). Attributes the
 * policy knows are validated; others are skipped so that newer kernels keep
 * working. A truncated attribute is -EBADMSG, not the silent end of the list.
 * policy NULL: every attribute below max is kept, none checked.
 */
int genl_parse_attrs(const void *payload, size_t len, const struct genl_attr_policy *policy,
		     uint16_t max, const struct nlattr **tb);
/* The attributes of a message after its fixed header of hdr_len bytes. */
int genl_parse_msg_attrs(const struct nlmsghdr *nlh, size_t hdr_len,
			 const struct genl_attr_policy *policy, uint16_t max,
			 const struct nlattr **tb);
/* The attributes inside a nest. */
int genl_parse_nest(const struct nlattr *nest, const struct genl_attr_policy *policy, uint16_t max,
		    const struct nlattr **tb);

/* The generic netlink command of a message, or -EBADMSG. */
int genl_msg_cmd(const struct nlmsghdr *nlh);

/* A request header of type with flags (NLM_F_REQUEST is added) and an extra
 * header of extra zeroed bytes; NULL when size is too short. */
struct nlmsghdr *genl_put_request(void *buf, size_t size, uint16_t type, uint16_t flags,
				  uint32_t seq, size_t extra);
/* The same with a generic netlink header (cmd, version) as the extra header. */
struct nlmsghdr *genl_put_genl_request(void *buf, size_t size, uint16_t family, uint16_t flags,
				       uint32_t seq, uint8_t cmd, uint8_t version);

/* CTRL_CMD_GETFAMILY for the family called name. Returns the length, or
 * -EMSGSIZE (also for a name the buffer cannot hold). */
int genl_build_family_request(void *buf, size_t size, uint32_t seq, const char *name);
/* The id of family name from a CTRL_CMD_NEWFAMILY reply: 0 and *id, or
 * -EBADMSG (malformed, another family, an id below the dynamic range). */
int genl_parse_family_reply(const struct nlmsghdr *nlh, const char *name, uint16_t *id);

#endif
