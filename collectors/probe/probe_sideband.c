// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's UDP discovery sideband: one socket per local address
 * it listens on, never the wildcard. The addresses are those of
 * --collector.probe.listen-address, else the RDMA netdevs' (a RoCE GID of an
 * open probe port, the addresses of IPoIB interfaces when an InfiniBand port
 * is open; probe_bind.h), at most PROBE_BIND_MAX. The sockets exist only
 * while a probe port is open and there is something to answer (the
 * responder) or to ask (a targets file); probe_sideband_sync() brings them in
 * line every engine sync (each second), so an address that comes or goes is
 * followed. The engine drains them (probe_engine.c): answers go to
 * probe_resolve.c, queries to the responder.
 */
#include "base/clock.h"
#include "probe_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netpacket/packet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

#define MAX_CANDS 256 /* interface addresses looked at */

/* The sideband socket to send from to a peer: the one bound to src (the
 * route's source address), else the first of the peer's family (v4: IPv4),
 * -1 when none. */
int probe_sideband_for(const struct probe_state *st, const uint8_t *src, bool have_src, bool v4)
{
	int any = -1;

	for (size_t i = 0; i < st->n_sb; i++) {
		if (probe_bind_is_v4(&st->sb[i].a) != v4)
			continue;
		if (have_src && memcmp(st->sb[i].a.addr, src, 16) == 0)
			return (int)i;
		if (any < 0)
			any = (int)i;
	}
	return any;
}

/* A non-blocking UDP socket bound to a:port; the fd or -errno. */
static int open_bound(const struct probe_bind_addr *a, uint16_t port)
{
	int on = 1, fd, e;

	if (probe_bind_is_v4(a)) {
		struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = htons(port)};

		memcpy(&s4.sin_addr, a->addr + 12, 4);
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -errno;
		if (bind(fd, (struct sockaddr *)&s4, sizeof(s4)) == 0)
			return fd;
	} else {
		struct sockaddr_in6 s6 = {.sin6_family = AF_INET6,
					  .sin6_port = htons(port),
					  .sin6_scope_id = a->scope};

		memcpy(&s6.sin6_addr, a->addr, 16);
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -errno;
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
		if (bind(fd, (struct sockaddr *)&s6, sizeof(s6)) == 0)
			return fd;
	}
	e = errno;
	close(fd);
	return -e;
}

static const char *addr_str(const struct probe_bind_addr *a, char *buf, size_t len)
{
	if (probe_bind_is_v4(a))
		return inet_ntop(AF_INET, a->addr + 12, buf, (socklen_t)len);
	return inet_ntop(AF_INET6, a->addr, buf, (socklen_t)len);
}

static bool same_addr(const struct probe_bind_addr *a, const struct probe_bind_addr *b)
{
	return memcmp(a->addr, b->addr, 16) == 0 && a->scope == b->scope;
}

/* Whether name is an IP-over-InfiniBand interface (its link address is). */
static bool is_ipoib(const struct ifaddrs *list, const char *name)
{
	for (const struct ifaddrs *i = list; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET &&
		    strcmp(i->ifa_name, name) == 0)
			return ((const struct sockaddr_ll *)i->ifa_addr)->sll_hatype ==
			       ARPHRD_INFINIBAND;
	return false;
}

/* The local interfaces' IP addresses, at most max; their number. */
size_t probe_local_candidates(struct probe_bind_cand *c, size_t max)
{
	struct ifaddrs *list;
	size_t n = 0;

	if (getifaddrs(&list) < 0)
		return 0;
	for (const struct ifaddrs *i = list; i && n < max; i = i->ifa_next) {
		struct probe_bind_cand *x = &c[n];

		if (!i->ifa_addr)
			continue;
		memset(x, 0, sizeof(*x));
		if (i->ifa_addr->sa_family == AF_INET) {
			x->a.addr[10] = x->a.addr[11] = 0xff;
			memcpy(x->a.addr + 12, &((const struct sockaddr_in *)i->ifa_addr)->sin_addr,
			       4);
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)i->ifa_addr;

			memcpy(x->a.addr, &s6->sin6_addr, 16);
			if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr))
				x->a.scope = s6->sin6_scope_id;
		} else {
			continue;
		}
		x->ipoib = is_ipoib(list, i->ifa_name);
		n++;
	}
	freeifaddrs(list);
	return n;
}

#define MAX_GIDS (MAX_SLOTS * (PROBE_GID_CACHE + 1))

/* Out of memory: the set wanted last time, tried again at the next sync. */
static size_t keep_wanted(const struct probe_state *st, struct probe_bind_addr *out)
{
	memcpy(out, st->want, st->n_want * sizeof(*out));
	return st->n_want;
}

/* The addresses to listen on now, into out (under lock: reads the ports). */
static size_t wanted(struct probe_state *st, struct probe_bind_addr *out)
{
	struct probe_bind_cand *cands = NULL;
	uint8_t(*gids)[16] = NULL;
	size_t n_gids = 0, n_cands, n = 0;
	bool open = false, ib = false;
	uint64_t now = clock_mono_ns();

	if (!st->responder && !st->targets_path)
		return 0;
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		static const uint8_t none[16];

		if (!s->used || !s->open)
			continue;
		if (!open && !(gids = malloc(MAX_GIDS * sizeof(*gids))))
			return keep_wanted(st, out);
		open = true;
		if (!s->p.ethernet) {
			ib = true;
			continue;
		}
		probe_port_find_gid(&s->p, none, now, GID_MAX_AGE_NS); /* refreshes the list */
		memcpy(gids[n_gids++], s->p.gid, 16);
		for (unsigned k = 0; k < s->p.n_gids && k < PROBE_GID_CACHE; k++)
			memcpy(gids[n_gids++], s->p.gids[k].gid, 16);
	}
	if (!open)
		return 0;
	if (st->n_fixed > 0) {
		n = (size_t)st->n_fixed;
		memcpy(out, st->fixed, n * sizeof(*out));
	} else if ((cands = malloc(MAX_CANDS * sizeof(*cands)))) {
		n_cands = probe_local_candidates(cands, MAX_CANDS);
		n = probe_bind_select(cands, n_cands, (const uint8_t(*)[16])gids, n_gids, ib, out,
				      PROBE_BIND_MAX);
	} else {
		n = keep_wanted(st, out);
	}
	free(cands);
	free(gids);
	return n;
}

static void close_sb(struct probe_state *st, size_t i, const char *why)
{
	char txt[INET6_ADDRSTRLEN];

	log_info(why, "collector=probe address=%s",
		 addr_str(&st->sb[i].a, txt, sizeof(txt)) ? txt : "?");
	close(st->sb[i].fd);
	st->sb[i] = st->sb[--st->n_sb];
}

/*
 * Under lock: each socket's address as text and the port a discovery query
 * to it is answered for (as probe_answer_query picks it), for
 * rdma_probe_local_address_info: a peer probing this address reaches that
 * port. The GID tables were refreshed by wanted() just before.
 */
static void label_sockets(struct probe_state *st)
{
	uint64_t now = clock_mono_ns();

	for (size_t i = 0; i < st->n_sb; i++) {
		struct sideband *sb = &st->sb[i];
		int gi, k = probe_slot_pick(st, sb->a.addr, now, &gi);

		if (!addr_str(&sb->a, sb->addr_txt, sizeof(sb->addr_txt)))
			sb->addr_txt[0] = '\0';
		snprintf(sb->device, sizeof(sb->device), "%s", k >= 0 ? st->slots[k].device : "");
		snprintf(sb->port_str, sizeof(sb->port_str), "%s",
			 k >= 0 ? st->slots[k].port_str : "");
	}
}

/*
 * Opens and closes sideband sockets to match the addresses wanted now. A
 * bind that fails is logged when the wanted set changed (not every second)
 * and tried again at every sync.
 */
void probe_sideband_sync(struct probe_state *st)
{
	struct probe_bind_addr want[PROBE_BIND_MAX];
	uint16_t port = st->responder ? st->udp_port : 0;
	size_t n;
	bool changed;

	pthread_mutex_lock(&st->lock);
	n = wanted(st, want);
	changed = !st->want_valid || n != st->n_want ||
		  memcmp(want, st->want, n * sizeof(*want)) != 0;
	for (size_t i = 0; i < st->n_sb;) {
		bool keep = false;

		for (size_t j = 0; j < n && !keep; j++)
			keep = same_addr(&st->sb[i].a, &want[j]);
		if (keep)
			i++;
		else
			close_sb(st, i, "probe discovery socket closed");
	}
	for (size_t j = 0; j < n; j++) {
		char txt[INET6_ADDRSTRLEN];
		bool have = false;
		int fd;

		for (size_t i = 0; i < st->n_sb && !have; i++)
			have = same_addr(&st->sb[i].a, &want[j]);
		if (have || st->n_sb == PROBE_BIND_MAX)
			continue;
		fd = open_bound(&want[j], port);
		if (!addr_str(&want[j], txt, sizeof(txt)))
			snprintf(txt, sizeof(txt), "?");
		if (fd < 0) {
			if (changed)
				log_warn("cannot open the probe discovery socket; peers cannot ask "
					 "this address for the probe QP, retried every second",
					 "collector=probe address=%s udp_port=%u err=%s", txt, port,
					 strerror(-fd));
			continue;
		}
		st->sb[st->n_sb++] = (struct sideband){.fd = fd, .a = want[j]};
		log_info("probe discovery socket open", "collector=probe address=%s udp_port=%u",
			 txt, port);
	}
	label_sockets(st);
	memcpy(st->want, want, n * sizeof(*want));
	st->n_want = n;
	st->want_valid = true;
	pthread_mutex_unlock(&st->lock);
}

void probe_sideband_close_all(struct probe_state *st)
{
	for (size_t i = 0; i < st->n_sb; i++)
		close(st->sb[i].fd);
	st->n_sb = 0;
}
