// SPDX-License-Identifier: Apache-2.0
/*
 * nl_record OUTDIR: records raw RDMA netlink replies as regression fixtures.
 * Test helper, run inside the Soft-RoCE VM (tests/vm). For the device dump,
 * the resource summary dump, every device's QP, CQ, MR, PD, CM_ID, CTX and
 * SRQ dumps and every port's STAT_GET, it writes the reply datagrams, as the
 * kernel sent them but with nlmsg_seq and nlmsg_pid zeroed, to
 * OUTDIR/cmd<CMD>.bin for the whole-host dumps and
 * OUTDIR/cmd<CMD>-dev<INDEX>-port<PORT>.bin for the others (port 0: none). Error replies are
 * recorded too: they are part of the truth.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_netlink.h>

#include "netlink_parse.h"
#include "rdmanl/netlink_sock.h"

static unsigned char buf[1 << 20] __attribute__((aligned(8)));

/* Zeroes seq and pid of every message; returns 1 when the reply is complete. */
static int scrub(unsigned char *p, size_t len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)p;
	int rem = (int)len, done = 0;

	while (NLMSG_OK(nlh, rem)) {
		nlh->nlmsg_seq = 0;
		nlh->nlmsg_pid = 0;
		if (nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR ||
		    !(nlh->nlmsg_flags & NLM_F_MULTI))
			done = 1;
		nlh = NLMSG_NEXT(nlh, rem);
	}
	return done;
}

static int record(struct nl_transport *t, const char *dir, uint16_t cmd, uint16_t flags,
		  uint32_t dev, uint32_t port, struct nl_reply *parse)
{
	unsigned char req[64] __attribute__((aligned(4)));
	static uint32_t seq = 1;
	char path[512];
	FILE *f;
	int len, r;

	len = nl_build_request(req, sizeof(req), cmd, flags, seq++, dev, port);
	if (len < 0 || t->ops->send(t, req, (size_t)len) < 0)
		return -EIO;
	if (dev == NL_NO_DEVICE)
		snprintf(path, sizeof(path), "%s/cmd%u.bin", dir, cmd);
	else
		snprintf(path, sizeof(path), "%s/cmd%u-dev%u-port%u.bin", dir, cmd, dev, port);
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	for (;;) {
		ssize_t n = t->ops->recv(t, buf, sizeof(buf), 5000);

		if (n < 0) {
			fclose(f);
			return (int)n;
		}
		if (parse) {
			parse->seq = 0;
			parse->portid = 0;
			nl_reply_feed(parse, buf, (size_t)n);
		}
		r = scrub(buf, (size_t)n);
		fwrite(buf, 1, (size_t)n, f);
		if (r)
			break;
	}
	fclose(f);
	printf("recorded %s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	static const uint16_t res_cmds[] = {
		RDMA_NLDEV_CMD_RES_QP_GET,    RDMA_NLDEV_CMD_RES_CQ_GET,
		RDMA_NLDEV_CMD_RES_MR_GET,    RDMA_NLDEV_CMD_RES_PD_GET,
		RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_NLDEV_CMD_RES_CTX_GET,
		RDMA_NLDEV_CMD_RES_SRQ_GET,
	};
	struct nl_dev_list devs = {0};
	struct nl_reply rep = {.cmd = RDMA_NLDEV_CMD_GET, .on_msg = nl_on_dev_msg, .data = &devs};
	struct nl_transport *t;
	int err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	t = nl_socket_open(NULL, &err);
	if (!t) {
		fprintf(stderr, "nl_record: cannot open NETLINK_RDMA: %s\n", strerror(-err));
		return 1;
	}
	if (record(t, argv[1], RDMA_NLDEV_CMD_GET, NLM_F_DUMP, NL_NO_DEVICE, 0, &rep) < 0 ||
	    record(t, argv[1], RDMA_NLDEV_CMD_RES_GET, NLM_F_DUMP, NL_NO_DEVICE, 0, NULL) < 0) {
		fprintf(stderr, "nl_record: device dumps failed\n");
		return 1;
	}
	for (size_t i = 0; i < devs.n; i++) {
		for (size_t c = 0; c < sizeof(res_cmds) / sizeof(res_cmds[0]); c++)
			record(t, argv[1], res_cmds[c], NLM_F_DUMP, devs.v[i].index, 0, NULL);
		for (uint32_t p = 1; p <= devs.v[i].ports; p++)
			record(t, argv[1], RDMA_NLDEV_CMD_STAT_GET, 0, devs.v[i].index, p, NULL);
	}
	nl_dev_list_free(&devs);
	t->ops->free(t);
	return 0;
}
