// SPDX-License-Identifier: Apache-2.0
/*
 * Generic netlink helpers (genl.h), first written for the ethtool collector
 * (ethtool_nl.c) and shared with the devlink collector.
 */
#include "rdmanl/genl.h"

#include <errno.h>
#include <string.h>

#include <linux/genetlink.h>

int genl_parse_attrs(const void *payload, size_t len, const struct genl_attr_policy *policy,
		     uint16_t max, const struct nlattr **tb)
{
	size_t off = 0;

	memset(tb, 0, max * sizeof(*tb));
	while (off < len) {
		const struct nlattr *a = (const void *)((const char *)payload + off);
		uint16_t type;

		if (len - off < sizeof(*a) || a->nla_len < sizeof(*a) || a->nla_len > len - off)
			return -EBADMSG;
		type = a->nla_type & NLA_TYPE_MASK;
		if (type < max && !policy) {
			tb[type] = a;
		} else if (type < max && policy[type].type != MNL_TYPE_UNSPEC) {
			int r = policy[type].len
					? mnl_attr_validate2(a, policy[type].type, policy[type].len)
					: mnl_attr_validate(a, policy[type].type);

			if (r < 0)
				return -EBADMSG;
			tb[type] = a;
		}
		off += MNL_ALIGN(a->nla_len);
	}
	return 0;
}

int genl_parse_msg_attrs(const struct nlmsghdr *nlh, size_t hdr_len,
			 const struct genl_attr_policy *policy, uint16_t max,
			 const struct nlattr **tb)
{
	size_t plen;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(hdr_len))
		return -EBADMSG;
	plen = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - MNL_ALIGN(hdr_len);
	return genl_parse_attrs((const char *)mnl_nlmsg_get_payload(nlh) + MNL_ALIGN(hdr_len), plen,
				policy, max, tb);
}

int genl_parse_nest(const struct nlattr *nest, const struct genl_attr_policy *policy, uint16_t max,
		    const struct nlattr **tb)
{
	return genl_parse_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), policy,
				max, tb);
}

int genl_msg_cmd(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *g;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return -EBADMSG;
	g = mnl_nlmsg_get_payload(nlh);
	return g->cmd;
}

struct nlmsghdr *genl_put_request(void *buf, size_t size, uint16_t type, uint16_t flags,
				  uint32_t seq, size_t extra)
{
	struct nlmsghdr *nlh;

	if (!buf || size < MNL_NLMSG_HDRLEN + MNL_ALIGN(extra))
		return NULL;
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	mnl_nlmsg_put_extra_header(nlh, extra);
	return nlh;
}

struct nlmsghdr *genl_put_genl_request(void *buf, size_t size, uint16_t family, uint16_t flags,
				       uint32_t seq, uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = genl_put_request(buf, size, family, flags, seq, GENL_HDRLEN);
	struct genlmsghdr *g;

	if (!nlh)
		return NULL;
	g = mnl_nlmsg_get_payload(nlh);
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

int genl_build_family_request(void *buf, size_t size, uint32_t seq, const char *name)
{
	struct nlmsghdr *nlh =
		genl_put_genl_request(buf, size, GENL_ID_CTRL, 0, seq, CTRL_CMD_GETFAMILY, 1);

	if (!nlh || !name || !mnl_attr_put_strz_check(nlh, size, CTRL_ATTR_FAMILY_NAME, name))
		return -EMSGSIZE;
	return (int)nlh->nlmsg_len;
}

#define CTRL_MAX (CTRL_ATTR_FAMILY_NAME + 1)

static const struct genl_attr_policy ctrl_policy[CTRL_MAX] = {
	[CTRL_ATTR_FAMILY_ID] = {MNL_TYPE_U16, 0},
	[CTRL_ATTR_FAMILY_NAME] = {MNL_TYPE_NUL_STRING, 0},
};

int genl_parse_family_reply(const struct nlmsghdr *nlh, const char *name, uint16_t *id)
{
	const struct nlattr *tb[CTRL_MAX];
	uint16_t v;

	*id = 0;
	if (nlh->nlmsg_type != GENL_ID_CTRL || genl_msg_cmd(nlh) != CTRL_CMD_NEWFAMILY)
		return -EBADMSG;
	if (genl_parse_msg_attrs(nlh, GENL_HDRLEN, ctrl_policy, CTRL_MAX, tb) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	/* An answer about another family is not ours. */
	if (tb[CTRL_ATTR_FAMILY_NAME] && strcmp(mnl_attr_get_str(tb[CTRL_ATTR_FAMILY_NAME]), name))
		return -EBADMSG;
	v = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	/* Dynamic ids start at GENL_MIN_ID; 0 would read as NLMSG_NOOP. */
	if (v < NLMSG_MIN_TYPE)
		return -EBADMSG;
	*id = v;
	return 0;
}
