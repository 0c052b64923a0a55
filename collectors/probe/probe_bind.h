/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where the probe discovery sideband listens: the addresses of the RDMA
 * netdevs, or what --collector.probe.listen-address says. Pure: strings and
 * address lists in, address lists out; no I/O, no logging. Addresses are
 * 16 bytes as in a GID: IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d).
 */
#ifndef RDMA_EXPORTER_PROBE_BIND_H
#define RDMA_EXPORTER_PROBE_BIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sockets of the sideband at most (one per address). */
#define PROBE_BIND_MAX 16

struct probe_bind_addr {
	uint8_t addr[16]; /* IPv4-mapped for IPv4 */
	uint32_t scope;	  /* interface index of a link-local IPv6 address, else 0 */
};

/* An address of a local interface (from getifaddrs). */
struct probe_bind_cand {
	struct probe_bind_addr a;
	bool ipoib; /* on an IP-over-InfiniBand interface */
};

/*
 * Parses --collector.probe.listen-address: ADDR[,ADDR...], each an IPv4 or
 * IPv6 literal without port or brackets (the port is
 * --collector.probe.port), at most PROBE_BIND_MAX, no duplicates; link-local
 * IPv6 and the wildcard or multicast addresses are refused. Returns the
 * number of addresses (out may be NULL), or -EINVAL with why set.
 */
int probe_bind_parse(const char *s, struct probe_bind_addr *out, char *why, size_t whylen);

/* The parser above as a config.h flag check: 0 or -EINVAL with why set. */
int probe_bind_check(const char *s, char *why, size_t whylen);

/*
 * The addresses to listen on, from the local interfaces' addresses: those
 * that are a RoCE GID of an open probe port (gids, n_gids), and, when an
 * InfiniBand probe port is open (ib), those of IPoIB interfaces. Duplicates
 * are dropped; at most max go to out, in candidate order. Returns their
 * number.
 */
size_t probe_bind_select(const struct probe_bind_cand *c, size_t n, const uint8_t (*gids)[16],
			 size_t n_gids, bool ib, struct probe_bind_addr *out, size_t max);

/* Whether a is IPv4 (IPv4-mapped). */
bool probe_bind_is_v4(const struct probe_bind_addr *a);

#endif
