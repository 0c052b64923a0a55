// SPDX-License-Identifier: Apache-2.0
/*
 * RDMA netlink (RDMA_NL_NLDEV) requests and replies that every user of the
 * transport needs: see nldev_parse.h. Pure: bytes in, structs out.
 */
#include "rdmanl/nldev_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

/*
 * Expected payload type of every attribute read here or by the netlink
 * collector's resource dump parsers (netlink_parse.c). Types not
 * listed (or past this build's NL_ATTR_MAX) are skipped unvalidated:
 * newer kernels add attributes, and iproute2's rdma tool does the same.
 */
static const enum mnl_attr_data_type policy[NL_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_DEV_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_PORT_INDEX] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_SUMMARY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_QP] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_QP_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_TYPE] = MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_STATE] = MNL_TYPE_U8,
	[RDMA_NLDEV_ATTR_RES_PID] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_KERN_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_RES_CM_ID] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_PS] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_CQ] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CQ_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_CQE] = MNL_TYPE_U32,
	[RDMA_NLDEV_ATTR_RES_MR] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_MR_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_MRLEN] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = MNL_TYPE_NUL_STRING,
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = MNL_TYPE_U64,
	[RDMA_NLDEV_ATTR_RES_SRQ] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_SRQ_ENTRY] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_PD] = MNL_TYPE_NESTED,
	[RDMA_NLDEV_ATTR_RES_PD_ENTRY] = MNL_TYPE_NESTED,
};

/*
 * Parses the attributes in [payload, payload+len) into tb. Unlike
 * mnl_attr_parse(), a truncated attribute is an error rather than the
 * silent end of the list: a cut reply must not read as a shorter one.
 */
int nl_parse_attrs(const void *payload, size_t len, nl_attr_table tb)
{
	size_t off = 0;

	memset(tb, 0, sizeof(nl_attr_table));
	while (off < len) {
		const struct nlattr *a = (const struct nlattr *)((const char *)payload + off);
		uint16_t type;

		if (len - off < sizeof(*a) || a->nla_len < sizeof(*a) || a->nla_len > len - off)
			return -EBADMSG;
		type = a->nla_type & NLA_TYPE_MASK;
		if (type < NL_ATTR_MAX && policy[type] != MNL_TYPE_UNSPEC) {
			if (mnl_attr_validate(a, policy[type]) < 0)
				return -EBADMSG;
			tb[type] = a;
		}
		off += MNL_ALIGN(a->nla_len);
	}
	return 0;
}

int nl_parse_msg(const struct nlmsghdr *nlh, nl_attr_table tb)
{
	return nl_parse_attrs(mnl_nlmsg_get_payload(nlh), mnl_nlmsg_get_payload_len(nlh), tb);
}

/*
 * Calls fn for every attribute of type entry_type inside the nest; other
 * types are skipped. Returns 0, -ENOMEM from fn, or -EBADMSG when the nest is
 * cut (the entries before the cut were handled).
 */
int nl_for_each_entry(const struct nlattr *nest, uint16_t entry_type,
		      int (*fn)(const struct nlattr *entry, void *data), void *data)
{
	const char *p = mnl_attr_get_payload(nest);
	size_t len = mnl_attr_get_payload_len(nest), off = 0;

	while (off < len) {
		const struct nlattr *a = (const struct nlattr *)(p + off);

		if (len - off < sizeof(*a) || a->nla_len < sizeof(*a) || a->nla_len > len - off)
			return -EBADMSG;
		if ((a->nla_type & NLA_TYPE_MASK) == entry_type) {
			int r = fn(a, data);

			if (r == -ENOMEM)
				return r;
		}
		off += MNL_ALIGN(a->nla_len);
	}
	return 0;
}

void nl_copy_str(char *dst, size_t size, const struct nlattr *a)
{
	const char *s = mnl_attr_get_str(a);
	size_t n = strnlen(s, mnl_attr_get_payload_len(a));

	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int nl_grow(void **v, size_t *cap, size_t n, size_t elem)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	p = realloc(*v, ncap * elem);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

int nl_parse_entry(const struct nlattr *entry, nl_attr_table tb)
{
	return nl_parse_attrs(mnl_attr_get_payload(entry), mnl_attr_get_payload_len(entry), tb);
}

uint32_t nl_port_of(nl_attr_table tb)
{
	return tb[RDMA_NLDEV_ATTR_PORT_INDEX] ? mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX])
					      : 0;
}

int nl_build_request(void *buf, size_t size, uint16_t cmd, uint16_t flags, uint32_t seq,
		     uint32_t dev_index, uint32_t port)
{
	struct nlmsghdr *nlh;

	if (size < MNL_NLMSG_HDRLEN + 2 * MNL_ATTR_HDRLEN + 8)
		return -EMSGSIZE;
	memset(buf, 0, MNL_NLMSG_HDRLEN);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	if (dev_index != NL_NO_DEVICE)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	if (port)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	return (int)nlh->nlmsg_len;
}

/* NLMSG_DONE: 0, or the errno that a dump which failed carries in it. */
static int reply_done(const void *payload, size_t plen)
{
	int32_t e = 0;

	if (plen >= sizeof(e))
		memcpy(&e, payload, sizeof(e));
	if (e < -4095)
		return -EBADMSG;
	return e < 0 ? e : 0;
}

/* NLMSG_ERROR: the kernel's -errno, or 0 for an ACK. */
static int reply_error(const void *payload, size_t plen)
{
	struct nlmsgerr e;

	if (plen < sizeof(e))
		return -EBADMSG;
	memcpy(&e, payload, sizeof(e));
	if (e.error > 0 || e.error < -4095)
		return -EBADMSG;
	return e.error;
}

int nl_reply_feed(struct nl_reply *r, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len, ret = 1;

	if (len > INT32_MAX)
		return -EMSGSIZE;
	while (rem >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (uint32_t)rem) {
		const void *payload = mnl_nlmsg_get_payload(nlh);
		size_t plen = mnl_nlmsg_get_payload_len(nlh);

		if (r->portid && nlh->nlmsg_pid && nlh->nlmsg_pid != r->portid)
			return -EPROTO;
		if (r->seq && nlh->nlmsg_seq && nlh->nlmsg_seq != r->seq)
			return -ESRCH;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			return -EINTR;
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			break;
		case NLMSG_DONE:
			return reply_done(payload, plen);
		case NLMSG_ERROR:
			return reply_error(payload, plen);
		case NLMSG_OVERRUN:
			return -ENOBUFS;
		default:
			if (nlh->nlmsg_type !=
			    (r->type ? r->type : RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, r->cmd))) {
				r->bad_messages++;
				break;
			}
			if (r->on_msg(nlh, r->data) == -ENOMEM)
				return -ENOMEM;
			/* A doit answers with one message, a dump with NLM_F_MULTI
			 * ones and NLMSG_DONE. */
			if (!(nlh->nlmsg_flags & NLM_F_MULTI))
				ret = 0;
			break;
		}
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
	/* Trailing bytes that are not a whole message: a cut datagram. */
	if (rem > 0) {
		r->bad_messages++;
		return -EBADMSG;
	}
	return ret;
}

/* ---- device list ---------------------------------------------------------------------- */

int nl_on_dev_msg(const struct nlmsghdr *nlh, void *data)
{
	struct nl_dev_list *l = data;
	struct nl_dev_info *d;
	nl_attr_table tb;

	if (nl_parse_msg(nlh, tb) < 0 || !tb[RDMA_NLDEV_ATTR_DEV_INDEX] ||
	    !tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		l->bad_objects++;
		return -EBADMSG;
	}
	if (nl_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
		return -ENOMEM;
	d = &l->v[l->n++];
	memset(d, 0, sizeof(*d));
	d->index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	nl_copy_str(d->name, sizeof(d->name), tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		d->ports = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	return 0;
}

void nl_dev_list_free(struct nl_dev_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- hw counters ---------------------------------------------------------------------- */

static int stat_entry(const struct nlattr *entry, void *data)
{
	struct nl_stat_list *l = data;
	nl_attr_table tb;

	if (nl_parse_entry(entry, tb) < 0 || !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]) {
		l->bad_objects++;
		return -EBADMSG;
	}
	if (nl_grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)) < 0)
		return -ENOMEM;
	nl_copy_str(l->v[l->n].name, sizeof(l->v[l->n].name),
		    tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME]);
	l->v[l->n].value = mnl_attr_get_u64(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]);
	l->n++;
	return 0;
}

int nl_on_stat_msg(const struct nlmsghdr *nlh, void *data)
{
	struct nl_stat_list *l = data;
	nl_attr_table tb;
	int r;

	if (nl_parse_msg(nlh, tb) < 0) {
		l->bad_objects++;
		return -EBADMSG;
	}
	l->port = nl_port_of(tb);
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return 0;
	r = nl_for_each_entry(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS],
			      RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, stat_entry, l);
	if (r == -EBADMSG)
		l->bad_objects++;
	return r;
}

void nl_stat_list_free(struct nl_stat_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
