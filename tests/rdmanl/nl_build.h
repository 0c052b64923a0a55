/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test helpers shared by the netlink collector's tests: builders of RDMA
 * netlink reply datagrams (messages of type RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
 * cmd), attributes right after the nlmsghdr, as the kernel sends them) with
 * libmnl, and reading of the recorded fixture files. Everything is static
 * inline so that each test uses what it needs.
 */
#ifndef RDMA_EXPORTER_TEST_NL_BUILD_H
#define RDMA_EXPORTER_TEST_NL_BUILD_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

/* Room for every datagram a test builds; the kernel's are at most 32 KiB. */
#define DG_CAP (128 * 1024)

/* enum ib_qp_type values (RDMA_NLDEV_ATTR_RES_TYPE) */
enum {
	QPT_SMI = 0,
	QPT_GSI = 1,
	QPT_RC = 2,
	QPT_UC = 3,
	QPT_UD = 4,
	QPT_RAW_IPV6 = 5,
	QPT_RAW_ETHERTYPE = 6,
	QPT_RAW_PACKET = 8,
	QPT_XRC_INI = 9,
	QPT_XRC_TGT = 10,
	QPT_DRIVER = 0xff,
};

/* enum ib_qp_state */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

/* enum rdma_ucm_port_space */
enum { PS_IPOIB = 0x0002, PS_IB = 0x013f, PS_TCP = 0x0106, PS_UDP = 0x0111 };

/* enum rdma_cm_state values used here */
enum { CM_IDLE = 0, CM_CONNECT = 5, CM_LISTEN = 8, CM_DESTROYING = 10 };

/* One datagram being built: messages one after the other. */
struct dg {
	unsigned char *buf;
	size_t len;	      /* bytes of the messages finished so far */
	struct nlmsghdr *cur; /* the message being built, or NULL */
};

static inline void dg_init(struct dg *d)
{
	/* calloc: the padding libmnl does not write reads as zero */
	d->buf = calloc(1, DG_CAP);
	if (!d->buf)
		abort();
	d->len = 0;
	d->cur = NULL;
}

static inline void dg_close(struct dg *d)
{
	if (!d->cur)
		return;
	if (d->cur->nlmsg_len > DG_CAP - d->len)
		abort();
	d->len += MNL_ALIGN(d->cur->nlmsg_len);
	d->cur = NULL;
}

/* Total length of the datagram, the current message included. */
static inline size_t dg_len(struct dg *d)
{
	dg_close(d);
	return d->len;
}

static inline void dg_reset(struct dg *d)
{
	memset(d->buf, 0, DG_CAP);
	d->len = 0;
	d->cur = NULL;
}

static inline void dg_free(struct dg *d)
{
	free(d->buf);
	d->buf = NULL;
}

static inline struct nlmsghdr *dg_msg(struct dg *d, uint16_t type, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh;

	dg_close(d);
	nlh = mnl_nlmsg_put_header(d->buf + d->len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	d->cur = nlh;
	return nlh;
}

/* A data message of an RDMA_NLDEV command about one device. */
static inline struct nlmsghdr *dg_dev_msg(struct dg *d, uint16_t cmd, uint16_t flags,
					  uint32_t dev_index, const char *name)
{
	struct nlmsghdr *nlh = dg_msg(d, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), flags, 0);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, name);
	return nlh;
}

/* NLMSG_DONE; a dump that failed carries its (negative) errno. */
static inline struct nlmsghdr *dg_done(struct dg *d, int32_t err)
{
	struct nlmsghdr *nlh = dg_msg(d, NLMSG_DONE, NLM_F_MULTI, 0);

	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(err)), &err, sizeof(err));
	return nlh;
}

/* NLMSG_ERROR: err 0 is an ACK. */
static inline struct nlmsghdr *dg_error(struct dg *d, int32_t err)
{
	struct nlmsghdr *nlh = dg_msg(d, NLMSG_ERROR, 0, 0);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = err;
	e->msg.nlmsg_len = sizeof(e->msg);
	return nlh;
}

/* Owner attributes as the kernel puts them: RES_PID for a user process,
 * RES_KERN_NAME for a kernel owner. */
static inline void put_owner(struct nlmsghdr *nlh, uint32_t pid, const char *kern)
{
	if (pid)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, pid);
	else if (kern)
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, kern);
}

/* One QP entry (inside an RDMA_NLDEV_ATTR_RES_QP nest); port 0: none. */
static inline void put_qp(struct nlmsghdr *nlh, uint32_t port, uint8_t type, uint8_t state,
			  uint32_t pid, const char *kern)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);

	if (port)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 17);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, type);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, state);
	put_owner(nlh, pid, kern);
	mnl_attr_nest_end(nlh, e);
}

static inline void put_cq(struct nlmsghdr *nlh, int64_t cqe, uint32_t pid, const char *kern)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CQ_ENTRY);

	if (cqe >= 0)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CQE, (uint32_t)cqe);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_USECNT, 2);
	put_owner(nlh, pid, kern);
	mnl_attr_nest_end(nlh, e);
}

/* An MR entry; with_len false: the kernel hid the length (no RES_MRLEN). */
static inline void put_mr(struct nlmsghdr *nlh, bool with_len, uint64_t len, uint32_t pid,
			  const char *kern)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_MR_ENTRY);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LKEY, 0x282);
	if (with_len)
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_MRLEN, len);
	put_owner(nlh, pid, kern);
	mnl_attr_nest_end(nlh, e);
}

static inline void put_cm_id(struct nlmsghdr *nlh, uint32_t port, uint32_t ps, uint8_t state,
			     uint32_t pid)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY);

	if (port)
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, state);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PS, ps);
	put_owner(nlh, pid, NULL);
	mnl_attr_nest_end(nlh, e);
}

static inline void put_srq(struct nlmsghdr *nlh, uint32_t srqn, uint32_t pid)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SRQ_ENTRY);

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_SRQN, srqn);
	mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 0);
	put_owner(nlh, pid, NULL);
	mnl_attr_nest_end(nlh, e);
}

static inline void put_stat(struct nlmsghdr *nlh, const char *name, uint64_t value)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
	mnl_attr_nest_end(nlh, e);
}

static inline void put_summary(struct nlmsghdr *nlh, const char *name, uint64_t curr)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, name);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, curr);
	mnl_attr_nest_end(nlh, e);
}

/* The fixture directory $FIXTURES/netlink/<name>, or NULL without FIXTURES. */
static inline const char *nl_fixture_dir(const char *name, char *buf, size_t size)
{
	const char *f = getenv("FIXTURES");

	if (!f)
		return NULL;
	snprintf(buf, size, "%s/netlink/%s", f, name);
	return buf;
}

/* A whole file in a heap buffer of exactly its size (1 byte for an empty
 * one); NULL when it cannot be read. */
static inline unsigned char *nl_read_file(const char *path, size_t *len)
{
	unsigned char *p = NULL;
	struct stat st;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size < 0 || st.st_size > 16 * 1024 * 1024)
		goto out;
	p = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!p)
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, p + got, (size_t)st.st_size - got);

		if (n <= 0) {
			free(p);
			p = NULL;
			goto out;
		}
		got += (size_t)n;
	}
	*len = got;
out:
	close(fd);
	return p;
}

#endif
