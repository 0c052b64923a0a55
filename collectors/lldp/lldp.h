/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LLDP collector (issue 33): listens, never sends, for LLDP frames on
 * each netdev bound to an RDMA port (RoCE, iWARP) and exports the neighbour
 * at the other end of the cable as rdma_port_neighbor_info until the TTL its
 * frame carried runs out. Off by default: the packet sockets need
 * CAP_NET_RAW (docs/collectors/lldp.md).
 *
 * Reads happen in collect(), non-blocking, at most LLDP_READS_PER_CALL frames
 * per netdev per call: LLDP agents send one frame every 30 s or so, and the
 * socket buffer keeps them between polls. A frame's TTL counts from the poll
 * that read it, so a neighbour may stay up to one poll interval longer than
 * its TTL.
 */
#ifndef RDMA_EXPORTER_LLDP_H
#define RDMA_EXPORTER_LLDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collector.h"

extern const struct collector_ops lldp_collector_ops;

#define LLDP_READS_PER_CALL 32	/* frames read per netdev per collect() */
#define LLDP_MAX_PORTS	    256 /* (device, port, netdev) triples watched */
#define LLDP_MAX_NEIGHBORS  4	/* neighbours kept per netdev */

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
