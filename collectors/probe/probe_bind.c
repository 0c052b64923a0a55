// SPDX-License-Identifier: Apache-2.0
/*
 * The probe discovery sideband's addresses (probe_bind.h): parsing
 * --collector.probe.listen-address and picking the RDMA netdevs' addresses.
 */
#include "probe_bind.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

bool probe_bind_is_v4(const struct probe_bind_addr *a)
{
	static const uint8_t pfx[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return memcmp(a->addr, pfx, sizeof(pfx)) == 0;
}

static bool same(const struct probe_bind_addr *a, const struct probe_bind_addr *b)
{
	return memcmp(a->addr, b->addr, 16) == 0 && a->scope == b->scope;
}

static int bad(char *why, size_t whylen, const char *what, size_t len, const char *reason)
{
	snprintf(why, whylen, "\"%.*s\" %s", (int)len, what, reason);
	return -EINVAL;
}

/* One literal of len bytes into a. */
static int parse_one(const char *s, size_t len, struct probe_bind_addr *a, char *why, size_t whylen)
{
	char txt[INET6_ADDRSTRLEN + 1];
	struct in6_addr a6;
	struct in_addr a4;
	bool is4, is6;

	if (len == 0)
		return bad(why, whylen, s, len, "is empty");
	if (len >= sizeof(txt))
		return bad(why, whylen, s, len, "is not an IPv4 or IPv6 address");
	memcpy(txt, s, len);
	txt[len] = '\0';
	memset(a, 0, sizeof(*a));
	is6 = inet_pton(AF_INET6, txt, &a6) == 1;
	if (is6 && IN6_IS_ADDR_V4MAPPED(&a6)) {
		memcpy(&a4, (const uint8_t *)&a6 + 12, 4); /* ::ffff:a.b.c.d is IPv4 */
		is4 = true;
	} else {
		is4 = inet_pton(AF_INET, txt, &a4) == 1;
	}
	if (is4) {
		a->addr[10] = a->addr[11] = 0xff;
		memcpy(a->addr + 12, &a4, 4);
		if (a4.s_addr == htonl(INADDR_ANY) || IN_MULTICAST(ntohl(a4.s_addr)) ||
		    a4.s_addr == htonl(INADDR_BROADCAST))
			return bad(why, whylen, s, len,
				   "is not one address of this host (wildcard, multicast or "
				   "broadcast)");
		return 0;
	}
	if (!is6)
		return bad(why, whylen, s, len,
			   "is not an IPv4 or IPv6 address (no port, no brackets: the port is "
			   "--collector.probe.port)");
	memcpy(a->addr, &a6, 16);
	if (IN6_IS_ADDR_UNSPECIFIED(&a6) || IN6_IS_ADDR_MULTICAST(&a6))
		return bad(why, whylen, s, len,
			   "is not one address of this host (wildcard or multicast)");
	if (IN6_IS_ADDR_LINKLOCAL(&a6))
		return bad(why, whylen, s, len, "is link-local (it needs an interface)");
	return 0;
}

int probe_bind_parse(const char *s, struct probe_bind_addr *out, char *why, size_t whylen)
{
	struct probe_bind_addr got[PROBE_BIND_MAX];
	int n = 0;

	for (const char *p = s;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int r;

		if (n == PROBE_BIND_MAX) {
			snprintf(why, whylen, "more than %d addresses", PROBE_BIND_MAX);
			return -EINVAL;
		}
		r = parse_one(p, len, &got[n], why, whylen);
		if (r < 0)
			return r;
		for (int i = 0; i < n; i++)
			if (same(&got[i], &got[n]))
				return bad(why, whylen, p, len, "is given twice");
		n++;
		if (!end)
			break;
		p = end + 1;
	}
	if (out)
		memcpy(out, got, (size_t)n * sizeof(*got));
	return n;
}

int probe_bind_check(const char *s, char *why, size_t whylen)
{
	int r = probe_bind_parse(s, NULL, why, whylen);

	return r < 0 ? r : 0;
}

size_t probe_bind_select(const struct probe_bind_cand *c, size_t n, const uint8_t (*gids)[16],
			 size_t n_gids, bool ib, struct probe_bind_addr *out, size_t max)
{
	size_t m = 0;

	for (size_t i = 0; i < n && m < max; i++) {
		bool want = ib && c[i].ipoib, dup = false;

		for (size_t g = 0; g < n_gids && !want; g++)
			want = memcmp(gids[g], c[i].a.addr, 16) == 0;
		for (size_t j = 0; j < m && want; j++)
			dup |= same(&out[j], &c[i].a);
		if (want && !dup)
			out[m++] = c[i].a;
	}
	return m;
}
