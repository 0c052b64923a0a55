// SPDX-License-Identifier: Apache-2.0
#include "http/clientgroup.h"

#include <netinet/in.h>
#include <string.h>

bool client_group_of(const struct sockaddr *addr, struct client_group *g)
{
	memset(g, 0, sizeof(*g));
	if (!addr)
		return false;
	if (addr->sa_family == AF_INET) {
		g->b[0] = AF_INET;
		memcpy(g->b + 1, &((const struct sockaddr_in *)addr)->sin_addr, 4);
		return true;
	}
	if (addr->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(a)) {
			g->b[0] = AF_INET;
			memcpy(g->b + 1, a->s6_addr + 12, 4);
		} else {
			g->b[0] = AF_INET6;
			memcpy(g->b + 1, a->s6_addr, 8);
		}
		return true;
	}
	return false;
}

bool client_group_equal(const struct client_group *a, const struct client_group *b)
{
	return memcmp(a->b, b->b, CLIENT_GROUP_LEN) == 0;
}
