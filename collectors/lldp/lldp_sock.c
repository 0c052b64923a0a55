// SPDX-License-Identifier: Apache-2.0
/* The receive-only LLDP packet socket (lldp_sock.h). */
#include "lldp_sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lldp_parse.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23 /* Linux 4.20, include/uapi/linux/if_packet.h */
#endif

/*
 * Classic BPF over the Ethernet header: ethertype (offset 12) must be 0x88cc,
 * the first four destination bytes 01:80:c2:00 and the last two 00:0e, 00:03
 * or 00:00 (802.1AB 7.1). Accept the whole frame, else drop it.
 */
static const struct sock_filter lldp_filter[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, LLDP_ETHERTYPE, 0, 7),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0180c200, 0, 5),
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x000e, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0003, 1, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x0000, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0xffff),
	BPF_STMT(BPF_RET | BPF_K, 0),
};

static int join(int fd, int ifindex, uint8_t last)
{
	struct packet_mreq mr = {
		.mr_ifindex = ifindex,
		.mr_type = PACKET_MR_MULTICAST,
		.mr_alen = ETH_ALEN,
		.mr_address = {0x01, 0x80, 0xc2, 0x00, 0x00, last},
	};

	return setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) ? -errno : 0;
}

int lldp_sock_open(const char *ifname)
{
	struct sock_fprog prog = {
		.len = sizeof(lldp_filter) / sizeof(lldp_filter[0]),
		.filter = (struct sock_filter *)lldp_filter,
	};
	struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_LLDP)};
	int one = 1, rcvbuf = LLDP_SOCK_RCVBUF, fd, r;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex)
		return -ENODEV;
	/* Protocol 0: nothing is queued before the filter and the bind are in place. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		r = -errno;
		close(fd);
		return r;
	}
	/* Best effort: without CAP_NET_ADMIN, up to net.core.rmem_max. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* Older kernels lack it: recv drops PACKET_OUTGOING anyway. */
	(void)setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	r = join(fd, sll.sll_ifindex, 0x0e);
	if (r) {
		close(fd);
		return r;
	}
	/* The other two LLDP groups are usually filtered by bridges; best effort. */
	(void)join(fd, sll.sll_ifindex, 0x03);
	(void)join(fd, sll.sll_ifindex, 0x00);
	return fd;
}

ssize_t lldp_sock_recv(int fd, uint8_t *buf, size_t cap)
{
	for (int tries = 0; tries < 64; tries++) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, cap, MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&from, &fl);

		if (n < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		return n > (ssize_t)cap ? (ssize_t)cap : n;
	}
	return -EAGAIN; /* only our own frames so far; the rest at the next call */
}
