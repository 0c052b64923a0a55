// SPDX-License-Identifier: Apache-2.0
/*
 * Ethtool netlink pause statistics and DCB IEEE PFC over rtnetlink.
 *
 * What the kernel answers (net/ethtool/netlink.c, net/ethtool/pause.c,
 * net/dcb/dcbnl.c, net/core/rtnetlink.c):
 *  - ETHTOOL_MSG_PAUSE_GET for a name no netdev has: NLMSG_ERROR -ENODEV;
 *    a driver without get_pauseparam (loopback, veth): NLMSG_ERROR -EOPNOTSUPP;
 *    a driver with get_pauseparam but no get_pause_stats: a reply whose
 *    ETHTOOL_A_PAUSE_STATS nest is empty, because the kernel presets every
 *    counter to ETHTOOL_STAT_NOT_SET and leaves those out; eth_nl_pause()
 *    turns that into -EOPNOTSUPP too. Kernels before 5.11 (no pause
 *    statistics) reject ETHTOOL_FLAG_STATS with an error.
 *  - RTM_GETDCB for a missing netdev: -ENODEV; a netdev without dcbnl_ops:
 *    -EOPNOTSUPP; a kernel without CONFIG_DCB has no RTM_GETDCB handler:
 *    -EOPNOTSUPP. A DCB netdev always gets a DCB_ATTR_IEEE nest; it holds
 *    DCB_ATTR_IEEE_PFC only when the driver has ieee_getpfc and it succeeded.
 *  - ETHTOOL_MSG_MODULE_EEPROM_GET (net/ethtool/eeprom.c): the policy caps
 *    offset at 255, length at 1..128 and the I2C address at 0x7f; a read
 *    across a half page or a page is -EINVAL; a driver with neither
 *    get_module_eeprom_by_page nor get_module_info: -EOPNOTSUPP (the kernel
 *    emulates page reads on get_module_info/get_module_eeprom and refuses a
 *    page beyond eeprom_len with -EINVAL); a kernel before 5.13 does not know
 *    the command: -EOPNOTSUPP. What a driver answers for an empty cage is its
 *    own choice (module_read.h).
 * Requests are "doit" requests without NLM_F_ACK: the answer is either the
 * one reply message or one NLMSG_ERROR.
 */
#include "ethtool_nl.h"
#include "base/clock.h"
#include "ethtool_fec.h"
#include "rdmanl/genl.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>

#include "ethtool_uapi_compat.h"

/* The kernel-internal "not supported" some drivers leak to user space. */
#define KERNEL_ENOTSUPP 524

/* A doit reply is at most one NLMSG_DEFAULT_SIZE skb: a page (64 KiB pages
 * on some machines) less overhead. */
#define ETH_NL_BUF (64 * 1024)
/* The largest request built here: headers and a name of IFNAMSIZ. */
#define ETH_NL_REQ 128
/* Resolving the family at open time; later retries use the caller's. */
#define FAMILY_TIMEOUT_MS 1000

/* ---- builders ------------------------------------------------------------------------- */

/* Name checks shared by the builders: both kernel policies cap at IFNAMSIZ - 1. */
static int check_ifname(const char *ifname)
{
	if (!ifname || !ifname[0] || strnlen(ifname, IFNAMSIZ) >= IFNAMSIZ)
		return -EINVAL;
	return 0;
}

int eth_build_genl_family_request(void *buf, size_t size, uint32_t seq)
{
	return genl_build_family_request(buf, size, seq, ETHTOOL_GENL_NAME);
}

int eth_build_pause_request(void *buf, size_t size, uint16_t family, uint32_t seq,
			    const char *ifname)
{
	struct nlmsghdr *nlh;
	struct nlattr *hdr;
	int r = check_ifname(ifname);

	if (r < 0)
		return r;
	nlh = genl_put_genl_request(buf, size, family, 0, seq, ETHTOOL_MSG_PAUSE_GET,
				    ETHTOOL_GENL_VERSION);
	if (!nlh)
		return -EMSGSIZE;
	/* libmnl sets NLA_F_NESTED, which ethtool's strict validation requires. */
	hdr = mnl_attr_nest_start_check(nlh, size, ETHTOOL_A_PAUSE_HEADER);
	if (!hdr || !mnl_attr_put_strz_check(nlh, size, ETHTOOL_A_HEADER_DEV_NAME, ifname) ||
	    !mnl_attr_put_u32_check(nlh, size, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS))
		return -EMSGSIZE;
	mnl_attr_nest_end(nlh, hdr);
	return (int)nlh->nlmsg_len;
}

int eth_build_dcb_ieee_request(void *buf, size_t size, uint32_t seq, const char *ifname)
{
	struct nlmsghdr *nlh;
	struct dcbmsg *dcb;
	int r = check_ifname(ifname);

	if (r < 0)
		return r;
	nlh = genl_put_request(buf, size, RTM_GETDCB, 0, seq, sizeof(*dcb));
	if (!nlh)
		return -EMSGSIZE;
	dcb = mnl_nlmsg_get_payload(nlh);
	dcb->dcb_family = AF_UNSPEC;
	dcb->cmd = DCB_CMD_IEEE_GET;
	if (!mnl_attr_put_strz_check(nlh, size, DCB_ATTR_IFNAME, ifname))
		return -EMSGSIZE;
	return (int)nlh->nlmsg_len;
}

int eth_build_module_eeprom_request(void *buf, size_t size, uint16_t family, uint32_t seq,
				    const char *ifname, const struct eth_module_req *req)
{
	struct nlmsghdr *nlh;
	struct nlattr *hdr;
	int r = check_ifname(ifname);

	if (r < 0)
		return r;
	if (!req || req->length < 1 || req->length > ETH_MODULE_READ_MAX || req->offset > 255 ||
	    req->offset + req->length > 256 ||
	    (req->offset < 128 && req->offset + req->length > 128) || req->i2c > 0x7f)
		return -EINVAL;
	nlh = genl_put_genl_request(buf, size, family, 0, seq, ETHTOOL_MSG_MODULE_EEPROM_GET,
				    ETHTOOL_GENL_VERSION);
	if (!nlh)
		return -EMSGSIZE;
	hdr = mnl_attr_nest_start_check(nlh, size, ETHTOOL_A_MODULE_EEPROM_HEADER);
	if (!hdr || !mnl_attr_put_strz_check(nlh, size, ETHTOOL_A_HEADER_DEV_NAME, ifname))
		return -EMSGSIZE;
	mnl_attr_nest_end(nlh, hdr);
	if (!mnl_attr_put_u32_check(nlh, size, ETHTOOL_A_MODULE_EEPROM_OFFSET, req->offset) ||
	    !mnl_attr_put_u32_check(nlh, size, ETHTOOL_A_MODULE_EEPROM_LENGTH, req->length) ||
	    !mnl_attr_put_u8_check(nlh, size, ETHTOOL_A_MODULE_EEPROM_PAGE, req->page) ||
	    !mnl_attr_put_u8_check(nlh, size, ETHTOOL_A_MODULE_EEPROM_BANK, req->bank) ||
	    !mnl_attr_put_u8_check(nlh, size, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, req->i2c))
		return -EMSGSIZE;
	return (int)nlh->nlmsg_len;
}

/* ---- parsers -------------------------------------------------------------------------- */

int eth_parse_genl_family_reply(const struct nlmsghdr *nlh, uint16_t *id)
{
	return genl_parse_family_reply(nlh, ETHTOOL_GENL_NAME, id);
}

#define PAUSE_MAX      (ETHTOOL_A_PAUSE_STATS + 1)
#define PAUSE_STAT_MAX (ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1)

static const struct genl_attr_policy pause_policy[PAUSE_MAX] = {
	[ETHTOOL_A_PAUSE_STATS] = {MNL_TYPE_NESTED, 0},
};

/* Counters are u64 (nla_put_u64_64bit); ETHTOOL_A_PAUSE_STAT_PAD, the
 * alignment filler some architectures get, is skipped like any other. */
static const struct genl_attr_policy pause_stat_policy[PAUSE_STAT_MAX] = {
	[ETHTOOL_A_PAUSE_STAT_TX_FRAMES] = {MNL_TYPE_U64, 0},
	[ETHTOOL_A_PAUSE_STAT_RX_FRAMES] = {MNL_TYPE_U64, 0},
};

int eth_parse_pause_reply(const struct nlmsghdr *nlh, struct eth_pause_stats *out)
{
	const struct nlattr *tb[PAUSE_MAX], *st[PAUSE_STAT_MAX];
	struct eth_pause_stats s = {0};

	memset(out, 0, sizeof(*out));
	if (genl_msg_cmd(nlh) != ETHTOOL_MSG_PAUSE_GET_REPLY)
		return -EBADMSG;
	if (genl_parse_msg_attrs(nlh, GENL_HDRLEN, pause_policy, PAUSE_MAX, tb) < 0)
		return -EBADMSG;
	/* No nest (a kernel that ignored the flag) or an empty one (a driver
	 * without get_pause_stats): no counters, not an error. */
	if (!tb[ETHTOOL_A_PAUSE_STATS])
		return 0;
	if (genl_parse_nest(tb[ETHTOOL_A_PAUSE_STATS], pause_stat_policy, PAUSE_STAT_MAX, st) < 0)
		return -EBADMSG;
	if (st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]) {
		s.have_tx = true;
		s.tx_frames = mnl_attr_get_u64(st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]);
	}
	if (st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]) {
		s.have_rx = true;
		s.rx_frames = mnl_attr_get_u64(st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]);
	}
	*out = s;
	return 0;
}

#define DCB_MAX	     (DCB_ATTR_IEEE + 1)
#define DCB_IEEE_MAX (DCB_ATTR_IEEE_PFC + 1)

static const struct genl_attr_policy dcb_policy[DCB_MAX] = {
	[DCB_ATTR_IEEE] = {MNL_TYPE_NESTED, 0},
};

/* struct ieee_pfc is fixed uapi: 136 bytes on every architecture. */
static const struct genl_attr_policy dcb_ieee_policy[DCB_IEEE_MAX] = {
	[DCB_ATTR_IEEE_PFC] = {MNL_TYPE_BINARY, sizeof(struct ieee_pfc)},
};

int eth_parse_dcb_ieee_reply(const struct nlmsghdr *nlh, struct eth_pfc *out)
{
	const struct nlattr *tb[DCB_MAX], *ieee[DCB_IEEE_MAX];
	const struct dcbmsg *dcb;
	struct ieee_pfc pfc;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_type != RTM_GETDCB || nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*dcb))
		return -EBADMSG;
	dcb = mnl_nlmsg_get_payload(nlh);
	if (dcb->cmd != DCB_CMD_IEEE_GET)
		return -EBADMSG;
	if (genl_parse_msg_attrs(nlh, sizeof(*dcb), dcb_policy, DCB_MAX, tb) < 0)
		return -EBADMSG;
	/* dcbnl_ieee_fill() always opens the nest for a DCB netdev. */
	if (!tb[DCB_ATTR_IEEE])
		return -EOPNOTSUPP;
	if (genl_parse_nest(tb[DCB_ATTR_IEEE], dcb_ieee_policy, DCB_IEEE_MAX, ieee) < 0)
		return -EBADMSG;
	/* No ieee_getpfc in the driver, or it failed. */
	if (!ieee[DCB_ATTR_IEEE_PFC])
		return -ENODATA;
	/* The payload is only 4-byte aligned: copy, do not cast. */
	memcpy(&pfc, mnl_attr_get_payload(ieee[DCB_ATTR_IEEE_PFC]), sizeof(pfc));
	out->pfc_en = pfc.pfc_en;
	for (int i = 0; i < ETH_PRIORITIES; i++) {
		out->requests[i] = pfc.requests[i];
		out->indications[i] = pfc.indications[i];
	}
	return 0;
}

#define MODULE_EEPROM_MAX (ETHTOOL_A_MODULE_EEPROM_DATA + 1)

static const struct genl_attr_policy module_eeprom_policy[MODULE_EEPROM_MAX] = {
	[ETHTOOL_A_MODULE_EEPROM_DATA] = {MNL_TYPE_BINARY, 0},
};

int eth_parse_module_eeprom_reply(const struct nlmsghdr *nlh, struct eth_module_data *out)
{
	const struct nlattr *tb[MODULE_EEPROM_MAX];
	uint16_t len;

	memset(out, 0, sizeof(*out));
	if (genl_msg_cmd(nlh) != ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY)
		return -EBADMSG;
	if (genl_parse_msg_attrs(nlh, GENL_HDRLEN, module_eeprom_policy, MODULE_EEPROM_MAX, tb) <
		    0 ||
	    !tb[ETHTOOL_A_MODULE_EEPROM_DATA])
		return -EBADMSG;
	len = mnl_attr_get_payload_len(tb[ETHTOOL_A_MODULE_EEPROM_DATA]);
	if (len > ETH_MODULE_READ_MAX)
		return -EBADMSG;
	memcpy(out->data, mnl_attr_get_payload(tb[ETHTOOL_A_MODULE_EEPROM_DATA]), len);
	out->len = len;
	return 0;
}

/* ---- I/O ------------------------------------------------------------------------------ */

struct eth_nl {
	struct mnl_socket *genl; /* NULL until opened, and after a broken exchange */
	struct mnl_socket *rtnl;
	uint16_t family;   /* ethtool genl family id; 0: none */
	bool family_known; /* family holds the kernel's answer */
	uint32_t seq;
	void *buf; /* ETH_NL_BUF bytes */
};

static void sock_close(struct mnl_socket **sk)
{
	if (*sk) {
		mnl_socket_close(*sk);
		*sk = NULL;
	}
}

static int sock_ensure(struct mnl_socket **sk, int proto)
{
	int one = 1, r;

	if (*sk)
		return 0;
	*sk = mnl_socket_open2(proto, SOCK_CLOEXEC);
	if (!*sk)
		return -errno;
	if (mnl_socket_bind(*sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = -errno;
		sock_close(sk);
		return r;
	}
	/* Errors without a copy of the request: they stay small. */
	setsockopt(mnl_socket_get_fd(*sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	return 0;
}

static uint32_t next_seq(struct eth_nl *n)
{
	/* 0 is skipped: it is the seq of messages nobody asked for. */
	if (++n->seq == 0)
		n->seq = 1;
	return n->seq;
}

/* One datagram from the kernel into buf: its length or -errno. */
static ssize_t recv_datagram(struct mnl_socket *sk, void *buf, size_t size, uint64_t deadline)
{
	int fd = mnl_socket_get_fd(sk);

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		struct sockaddr_nl addr;
		struct iovec iov = {.iov_base = buf, .iov_len = size};
		struct msghdr msg = {
			.msg_name = &addr,
			.msg_namelen = sizeof(addr),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		uint64_t now = clock_mono_ms();
		/* A zero timeout still takes an answer that is already queued. */
		int wait = now >= deadline	    ? 0
			   : deadline - now > 60000 ? 60000
						    : (int)(deadline - now);
		ssize_t got;
		int r = poll(&p, 1, wait);

		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0) {
			if (clock_mono_ms() >= deadline)
				return -ETIMEDOUT;
			continue;
		}
		got = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (got < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			if (clock_mono_ms() >= deadline)
				return -ETIMEDOUT;
			continue;
		}
		if (msg.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;
		/* Only the kernel (port id 0) answers. */
		if (addr.nl_pid != 0)
			continue;
		return got;
	}
}

static int kernel_error(const struct nlmsghdr *nlh)
{
	struct nlmsgerr e;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(e.error))
		return -EBADMSG;
	memcpy(&e.error, mnl_nlmsg_get_payload(nlh), sizeof(e.error));
	/* An ACK (we ask for none) or a value that is no errno. */
	if (e.error >= 0 || e.error < -4095)
		return -EBADMSG;
	if (e.error == -KERNEL_ENOTSUPP)
		return -EOPNOTSUPP;
	return e.error;
}

struct exchange {
	uint32_t seq, portid;
	uint16_t reply_type;
	int (*parse)(const struct nlmsghdr *nlh, void *out);
	void *out;
};

/*
 * The messages of one datagram: the parser's result or the kernel's error
 * for our request, 1 when the datagram holds neither (keep reading), or
 * -EBADMSG / -ENOBUFS with *broken set when the socket cannot be trusted.
 */
static int scan_datagram(const struct exchange *x, const void *buf, size_t len, bool *broken)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;

	/* mnl_nlmsg_ok() compares nlmsg_len as an int: a length of 2 GiB or
	 * more passes it, so check it against the bytes left as well. */
	while (mnl_nlmsg_ok(nlh, rem) && nlh->nlmsg_len <= (uint32_t)rem) {
		/* A late answer to a request that timed out, or not ours. */
		if (nlh->nlmsg_seq != x->seq || nlh->nlmsg_pid != x->portid) {
			nlh = mnl_nlmsg_next(nlh, &rem);
			continue;
		}
		if (nlh->nlmsg_type == NLMSG_ERROR)
			return kernel_error(nlh);
		if (nlh->nlmsg_type == NLMSG_OVERRUN) {
			*broken = true;
			return -ENOBUFS;
		}
		if (nlh->nlmsg_type == x->reply_type)
			return x->parse(nlh, x->out);
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
	if (rem > 0) {
		*broken = true;
		return -EBADMSG;
	}
	return 1;
}

/* Sends the request in req and reads until its answer. */
static int transact(struct eth_nl *n, struct mnl_socket **sk, int proto, const void *req,
		    size_t len, struct exchange *x, int timeout_ms)
{
	uint64_t deadline = clock_mono_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	int r = sock_ensure(sk, proto);

	if (r < 0)
		return r;
	x->portid = mnl_socket_get_portid(*sk);
	if (mnl_socket_sendto(*sk, req, len) < 0) {
		r = -errno;
		sock_close(sk);
		return r;
	}
	for (;;) {
		bool broken = false;
		ssize_t got = recv_datagram(*sk, n->buf, ETH_NL_BUF, deadline);

		if (got < 0) {
			/* Timed out or failed mid-reply: a fresh socket next time. */
			sock_close(sk);
			return (int)got;
		}
		r = scan_datagram(x, n->buf, (size_t)got, &broken);
		if (broken)
			sock_close(sk);
		if (r != 1)
			return r;
	}
}

static int parse_family(const struct nlmsghdr *nlh, void *out)
{
	return eth_parse_genl_family_reply(nlh, out);
}

static int parse_pause(const struct nlmsghdr *nlh, void *out)
{
	return eth_parse_pause_reply(nlh, out);
}

static int parse_pfc(const struct nlmsghdr *nlh, void *out)
{
	return eth_parse_dcb_ieee_reply(nlh, out);
}

static int parse_module_eeprom(const struct nlmsghdr *nlh, void *out)
{
	return eth_parse_module_eeprom_reply(nlh, out);
}

static int resolve_family(struct eth_nl *n, int timeout_ms)
{
	unsigned char req[ETH_NL_REQ] __attribute__((aligned(4)));
	uint16_t id = 0;
	struct exchange x = {.reply_type = GENL_ID_CTRL, .parse = parse_family, .out = &id};
	int len, r;

	if (n->family_known)
		return 0;
	x.seq = next_seq(n);
	len = eth_build_genl_family_request(req, sizeof(req), x.seq);
	if (len < 0)
		return len;
	r = transact(n, &n->genl, NETLINK_GENERIC, req, (size_t)len, &x, timeout_ms);
	/* The controller's answer for a family it does not have. */
	if (r == -ENOENT) {
		n->family = 0;
		n->family_known = true;
		return 0;
	}
	if (r < 0)
		return r;
	n->family = id;
	n->family_known = true;
	return 0;
}

struct eth_nl *eth_nl_open(void)
{
	struct eth_nl *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->buf = malloc(ETH_NL_BUF);
	if (!n->buf) {
		free(n);
		return NULL;
	}
	/* Distinct from an earlier instance's numbers, as iproute2 does. */
	n->seq = (uint32_t)time(NULL);
	/* Failures (no socket, no answer) are retried by the calls. */
	sock_ensure(&n->genl, NETLINK_GENERIC);
	sock_ensure(&n->rtnl, NETLINK_ROUTE);
	resolve_family(n, FAMILY_TIMEOUT_MS);
	return n;
}

void eth_nl_free(struct eth_nl *n)
{
	if (!n)
		return;
	sock_close(&n->genl);
	sock_close(&n->rtnl);
	free(n->buf);
	free(n);
}

int eth_nl_pause(struct eth_nl *n, const char *ifname, struct eth_pause_stats *out, int timeout_ms)
{
	unsigned char req[ETH_NL_REQ] __attribute__((aligned(4)));
	struct exchange x = {.parse = parse_pause, .out = out};
	int len, r;

	if (!n || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	r = resolve_family(n, timeout_ms);
	if (r < 0)
		return r;
	if (!n->family)
		return -EOPNOTSUPP;
	x.seq = next_seq(n);
	x.reply_type = n->family;
	len = eth_build_pause_request(req, sizeof(req), n->family, x.seq, ifname);
	if (len < 0)
		return len;
	r = transact(n, &n->genl, NETLINK_GENERIC, req, (size_t)len, &x, timeout_ms);
	/* A driver without get_pause_stats gets a reply with no counters:
	 * the same "not supported" as one without pause operations. */
	if (r == 0 && !out->have_tx && !out->have_rx)
		return -EOPNOTSUPP;
	return r;
}

int eth_nl_pfc(struct eth_nl *n, const char *ifname, struct eth_pfc *out, int timeout_ms)
{
	unsigned char req[ETH_NL_REQ] __attribute__((aligned(4)));
	struct exchange x = {.reply_type = RTM_GETDCB, .parse = parse_pfc, .out = out};
	int len;

	if (!n || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	x.seq = next_seq(n);
	len = eth_build_dcb_ieee_request(req, sizeof(req), x.seq, ifname);
	if (len < 0)
		return len;
	return transact(n, &n->rtnl, NETLINK_ROUTE, req, (size_t)len, &x, timeout_ms);
}

/* ---- FEC (issue 32): request and parser in ethtool_fec.c ------------------------------------ */

static int parse_fec(const struct nlmsghdr *nlh, void *out)
{
	return eth_parse_fec_reply(nlh, out);
}

int eth_nl_fec(struct eth_nl *n, const char *ifname, struct eth_fec *out, int timeout_ms)
{
	unsigned char req[ETH_NL_REQ] __attribute__((aligned(4)));
	struct exchange x = {.parse = parse_fec, .out = out};
	int len, r;

	if (!n || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	r = resolve_family(n, timeout_ms);
	if (r < 0)
		return r;
	if (!n->family)
		return -EOPNOTSUPP;
	x.seq = next_seq(n);
	x.reply_type = n->family;
	len = eth_build_fec_request(req, sizeof(req), n->family, x.seq, ifname);
	if (len < 0)
		return len;
	return transact(n, &n->genl, NETLINK_GENERIC, req, (size_t)len, &x, timeout_ms);
}

int eth_nl_module_eeprom(struct eth_nl *n, const char *ifname, const struct eth_module_req *req,
			 uint8_t *out, int timeout_ms)
{
	unsigned char reqbuf[ETH_NL_REQ] __attribute__((aligned(4)));
	struct eth_module_data data;
	struct exchange x = {.parse = parse_module_eeprom, .out = &data};
	int len, r;

	if (!n || !out || !req)
		return -EINVAL;
	r = resolve_family(n, timeout_ms);
	if (r < 0)
		return r;
	if (!n->family)
		return -EOPNOTSUPP;
	x.seq = next_seq(n);
	x.reply_type = n->family;
	len = eth_build_module_eeprom_request(reqbuf, sizeof(reqbuf), n->family, x.seq, ifname,
					      req);
	if (len < 0)
		return len;
	r = transact(n, &n->genl, NETLINK_GENERIC, reqbuf, (size_t)len, &x, timeout_ms);
	if (r < 0)
		return r;
	/* The kernel answers with exactly the length asked for. */
	if (data.len != req->length)
		return -EBADMSG;
	memcpy(out, data.data, data.len);
	return 0;
}
