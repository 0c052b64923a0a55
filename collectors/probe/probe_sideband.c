// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's UDP discovery sideband: the socket (dual-stack IPv6,
 * else IPv4) and its input, with the local address each datagram came to
 * (IP_PKTINFO, IPV6_PKTINFO). Answers go to probe_resolve.c, queries to the
 * responder.
 */
#include "probe_internal.h"
#include "clock.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Drains the sideband socket (under lock). */
void probe_sideband_input(struct probe_state *st)
{
	for (int budget = 0; budget < 256; budget++) {
		unsigned char pkt[PROBE_DISC_LEN + 1];
		struct sockaddr_storage from;
		union {
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
				 CMSG_SPACE(sizeof(struct in_pktinfo))];
			struct cmsghdr align;
		} cb;
		struct iovec iov = {pkt, sizeof(pkt)};
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cb.buf,
				    .msg_controllen = sizeof(cb.buf)};
		struct probe_disc d;
		uint8_t dst[16], key[PROBE_RL_KEY_MAX] = {0};
		bool have_dst = false;
		ssize_t n = recvmsg(st->udp_fd, &mh, MSG_DONTWAIT);

		if (n < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;

				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				memcpy(dst, &pi.ipi6_addr, 16);
				have_dst = true;
			} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;

				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				memset(dst, 0, 10);
				dst[10] = dst[11] = 0xff;
				memcpy(dst + 12, &pi.ipi_addr, 4);
				have_dst = true;
			}
		}
		if (probe_disc_decode(pkt, (size_t)n, &d) < 0) {
			st->disc_dropped[DD_MALFORMED]++;
			continue;
		}
		if (d.type == PROBE_DISC_ANSWER) {
			probe_take_answer(st, &d);
			continue;
		}
		if (!st->responder)
			continue;
		if (from.ss_family == AF_INET6)
			memcpy(key, &((struct sockaddr_in6 *)&from)->sin6_addr, 16);
		else
			memcpy(key, &((struct sockaddr_in *)&from)->sin_addr, 4);
		if (!probe_ratelimit_allow(&st->disc_rl, key, 16, clock_mono_ns())) {
			st->disc_dropped[DD_RATELIMIT]++;
			continue;
		}
		probe_answer_query(st, &d, (struct sockaddr *)&from, mh.msg_namelen,
				   have_dst ? dst : NULL);
	}
}

int probe_sideband_open(struct probe_state *st)
{
	int on = 1, off = 0, fd;
	uint16_t port = st->responder ? st->udp_port : 0;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0) {
		struct sockaddr_in6 a = {.sin6_family = AF_INET6,
					 .sin6_port = htons(port),
					 .sin6_addr = IN6ADDR_ANY_INIT};

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on));
		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			st->udp_v6 = true;
			return fd;
		}
		close(fd);
		if (errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL)
			return -errno;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
	}
	return -errno;
}
