// SPDX-License-Identifier: Apache-2.0
/*
 * Resolution of a remote peer, step by step from the engine: its address
 * (literal at once, a name through getaddrinfo_a), the local port the route
 * leaves from, then a discovery query over the sideband for its probe QP;
 * failures back off exponentially (probe_pace_backoff_ms).
 */
#include "base/clock.h"
#include "probe_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

void probe_backoff(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	pe->errors[R_RESOLVE]++;
	pe->rs = RS_WAIT;
	pe->retry_at_ms = now_ms + probe_pace_backoff_ms(st->interval_ms, pe->fails);
	pe->fails++;
}

/* The address as a GID: IPv4-mapped or IPv6 bytes. */
static void addr_gid(const struct sockaddr_in6 *a, uint8_t *gid)
{
	memcpy(gid, &a->sin6_addr, 16);
}

/* Picks the local port the route to pe->addr leaves from: the port that has
 * the route's source address as a RoCE v2 GID, else an InfiniBand port,
 * else the first open one. */
static int pick_local(struct probe_state *st, struct peer *pe, uint64_t now_ns)
{
	struct sockaddr_in6 src;
	socklen_t sl = sizeof(src);
	uint8_t gid[16];
	int fd, gi;
	bool have_src = false;

	pe->have_src = false;
	/* No port open: no route look-up (its socket would take a port a moment). */
	if (probe_slot_pick(st, NULL, now_ns, &gi) < 0)
		return -1;
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		struct sockaddr_in6 dst = pe->addr;

		dst.sin6_port = htons(9);
		have_src = connect(fd, (struct sockaddr *)&dst, sizeof(dst)) == 0 &&
			   getsockname(fd, (struct sockaddr *)&src, &sl) == 0 &&
			   src.sin6_family == AF_INET6;
		close(fd);
	}
	if (have_src)
		addr_gid(&src, gid);
	pe->have_src = have_src;
	if (have_src)
		memcpy(pe->src, gid, 16);
	return probe_slot_pick(st, have_src ? gid : NULL, now_ns, &pe->sgid_index);
}

void probe_send_query(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	struct probe_disc q = {.type = PROBE_DISC_QUERY, .session = st->session};
	unsigned char pkt[PROBE_DISC_LEN];
	struct sockaddr_in6 a6 = pe->addr;
	struct sockaddr_in a4 = {.sin_family = AF_INET};
	const struct sockaddr *sa = (const struct sockaddr *)&a6;
	socklen_t sl = sizeof(a6);
	bool v4 = IN6_IS_ADDR_V4MAPPED(&pe->addr.sin6_addr);
	int sb = probe_sideband_for(st, pe->src, pe->have_src, v4);

	if (getrandom(&pe->nonce, sizeof(pe->nonce), GRND_NONBLOCK) != sizeof(pe->nonce))
		pe->nonce = clock_mono_ns() ^ ((uint64_t)st->session << 32) ^ (uintptr_t)pe;
	q.nonce = pe->nonce;
	probe_disc_encode(&q, pkt, sizeof(pkt));
	a6.sin6_port = htons(pe->dport ? pe->dport : st->udp_port);
	if (v4) {
		/* IPv4 sideband sockets are AF_INET */
		memcpy(&a4.sin_addr, (const uint8_t *)&pe->addr.sin6_addr + 12, 4);
		a4.sin_port = a6.sin6_port;
		sa = (const struct sockaddr *)&a4;
		sl = sizeof(a4);
	}
	pe->rs = RS_QUERY;
	pe->query_tries++;
	pe->query_deadline_ms = now_ms + st->timeout_ms;
	if (sb < 0 || sendto(st->sb[sb].fd, pkt, sizeof(pkt), MSG_DONTWAIT, sa, sl) < 0)
		pe->query_deadline_ms = now_ms; /* fails at the next check */
}

/* The address is known: pick the local port, then ask the peer from the
 * sideband socket of the route's source address (or one of its family). */
static void start_query(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	int s = pick_local(st, pe, clock_mono_ns());

	if (s < 0 || probe_sideband_for(st, pe->src, pe->have_src,
					IN6_IS_ADDR_V4MAPPED(&pe->addr.sin6_addr)) < 0) {
		probe_backoff(st, pe, now_ms);
		return;
	}
	probe_peer_set_slot(st, pe, s);
	pe->query_tries = 0;
	probe_send_query(st, pe, now_ms);
}

static int addr_from_ai(struct peer *pe, const struct addrinfo *ai)
{
	for (; ai; ai = ai->ai_next) {
		memset(&pe->addr, 0, sizeof(pe->addr));
		pe->addr.sin6_family = AF_INET6;
		if (ai->ai_family == AF_INET) {
			const struct sockaddr_in *s4 = (const struct sockaddr_in *)ai->ai_addr;
			uint8_t *b = (uint8_t *)&pe->addr.sin6_addr;

			b[10] = b[11] = 0xff;
			memcpy(b + 12, &s4->sin_addr, 4);
			return 0;
		}
		if (ai->ai_family == AF_INET6) {
			memcpy(&pe->addr, ai->ai_addr, sizeof(pe->addr));
			return 0;
		}
	}
	return -ENOENT;
}

void probe_start_resolve(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST}, *ai;
	struct gaicb *g;
	struct sigevent sev = {.sigev_notify = SIGEV_NONE};

	/* Literal addresses at once, names through getaddrinfo_a (its own thread). */
	if (getaddrinfo(pe->host, NULL, &hints, &ai) == 0) {
		int r = addr_from_ai(pe, ai);

		freeaddrinfo(ai);
		if (r < 0)
			probe_backoff(st, pe, now_ms);
		else
			start_query(st, pe, now_ms);
		return;
	}
	g = calloc(1, sizeof(*g) + sizeof(struct addrinfo) + strlen(pe->host) + 1);
	if (!g) {
		probe_backoff(st, pe, now_ms);
		return;
	}
	{
		struct addrinfo *h = (struct addrinfo *)(g + 1);
		char *name = (char *)(h + 1);

		strcpy(name, pe->host);
		h->ai_socktype = SOCK_DGRAM;
		g->ar_name = name;
		g->ar_request = h;
	}
	if (getaddrinfo_a(GAI_NOWAIT, &g, 1, &sev) != 0) {
		free(g);
		probe_backoff(st, pe, now_ms);
		return;
	}
	pe->gai = g;
	pe->rs = RS_DNS;
}

void probe_check_dns(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	int e = gai_error(pe->gai), r;

	if (e == EAI_INPROGRESS)
		return;
	r = e == 0 ? addr_from_ai(pe, pe->gai->ar_result) : -ENOENT;
	if (pe->gai->ar_result)
		freeaddrinfo(pe->gai->ar_result);
	free(pe->gai);
	pe->gai = NULL;
	if (r < 0)
		probe_backoff(st, pe, now_ms);
	else
		start_query(st, pe, now_ms);
}

/* Takes an answer to one of our queries in flight; false when it is none's. */
bool probe_take_answer(struct probe_state *st, const struct probe_disc *d)
{
	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];
		struct slot *s;
		int r;

		if (!pe->used || pe->loopback || pe->rs != RS_QUERY || pe->nonce != d->nonce)
			continue;
		s = pe->slot >= 0 ? &st->slots[pe->slot] : NULL;
		if (!s || !s->open || (d->link_layer == PROBE_DISC_LINK_ETH) != s->p.ethernet) {
			probe_backoff(st, pe, clock_mono_ms());
			return true;
		}
		r = probe_port_peer_ah(&s->p, d->gid, d->lid, pe->sgid_index, &pe->ah);
		if (r < 0) {
			probe_backoff(st, pe, clock_mono_ms());
			return true;
		}
		pe->qpn = d->qpn;
		pe->rs = RS_READY;
		pe->fails = 0;
		return true;
	}
	return false;
}
