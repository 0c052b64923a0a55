/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LLDP collector (issue 33): listens, never sends, for LLDP frames on
 * each netdev bound to an RDMA port (RoCE, iWARP) and exports the neighbour
 * at the other end of the cable as rdma_port_neighbor_info until the TTL its
 * frame carried runs out. Off by default: the packet sockets need
 * CAP_NET_RAW (docs/collectors/lldp.md).
 *
 * Reads happen in collect(), non-blocking, until the socket is empty or
 * LLDP_READS_PER_CALL frames per netdev were read: LLDP agents send one
 * frame every 30 s or so, the socket buffer (lldp_sock.c asks for
 * LLDP_SOCK_RCVBUF) keeps them between polls, and junk on the segment must
 * not keep it full (issue 42). A frame's TTL counts from the poll that read
 * it, so a neighbour may stay up to one poll interval longer than its TTL.
 */
#ifndef RDMA_EXPORTER_LLDP_H
#define RDMA_EXPORTER_LLDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

extern const struct collector_ops lldp_collector_ops;

/* Frames read per netdev per collect(): about 270 a second at a 15 s poll,
 * far more than a default socket buffer holds; each costs a recvfrom() and
 * a parse that stops at the first bad TLV. */
#define LLDP_READS_PER_CALL 4096
#define LLDP_MAX_PORTS	    256 /* (device, port, netdev) triples watched */
/*
 * Longest frame read whole, Ethernet header included: a 9000-byte jumbo
 * MTU plus the header, rounded up. 802.1AB-2016 (8.1) bounds an LLDPDU by
 * the MAC's maximum frame size, not by 1500: a switch on a jumbo port may
 * send more than 1500 bytes of TLVs. A longer frame is counted invalid.
 */
#define LLDP_FRAME_MAX 9216

/* Every outside input of the collector, replaceable in tests. */
struct lldp_seams {
	void *io;
	/* A receive handle for netdev ifname (>= 0) or -errno. */
	int (*open)(void *io, const char *ifname);
	/* One frame into buf: its length, -EAGAIN when none waits, or -errno. */
	ssize_t (*recv)(void *io, int h, uint8_t *buf, size_t cap);
	void (*close)(void *io, int h);
	/* Monotonic seconds. */
	double (*now)(void *io);
	void (*free_io)(void *io); /* may be NULL */
};

/* init() with the given seams (tests); the daemon's init() uses the real
 * packet sockets and clock. The seams' io is the collector's from here on. */
int lldp_collector_init_with(const struct collector_ctx *ctx, const struct lldp_seams *seams,
			     void **state);

#endif
