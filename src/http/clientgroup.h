/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who counts as one client for every per-client limit of the HTTP server
 * (connections, TLS handshakes, failed logins): an IPv4 address, or an IPv6
 * /64 (a host usually holds a whole /64, and picks addresses in it at will);
 * an IPv4-mapped IPv6 address (a dual-stack listener) is that IPv4 client.
 * Pure: no I/O, no globals.
 */
#ifndef RDMA_EXPORTER_CLIENTGROUP_H
#define RDMA_EXPORTER_CLIENTGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* the family, then 4 (IPv4) or 8 (the IPv6 /64) address bytes, the rest 0 */
#define CLIENT_GROUP_LEN 9

struct client_group {
	uint8_t b[CLIENT_GROUP_LEN];
};

/*
 * The group of the client at addr. False for a client that is not IP (a
 * UNIX socket, or addr NULL): such clients are not grouped, nor limited.
 */
bool client_group_of(const struct sockaddr *addr, struct client_group *g);

bool client_group_equal(const struct client_group *a, const struct client_group *b);

#endif
