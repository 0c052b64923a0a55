// SPDX-License-Identifier: Apache-2.0
/*
 * --collector.probe.targets-dns: the engine resolves the name with
 * getaddrinfo_a (its own thread: the engine never waits on DNS; an address
 * literal is answered at once, without it) every
 * PROBE_DNS_REFRESH_MS, sooner after a failure and on SIGHUP, and makes the
 * answer's addresses, less this node's own, the target list that the sample
 * is drawn from (probe_apply_sample), as a targets file's. A failed look-up
 * keeps the previous list. Logged here: a change of the list, a failure once
 * until it changes or recovers.
 */
#include "probe_internal.h"

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* A headless Service's answer changes as nodes come and go: 30 s keeps the
 * mesh within a scrape or two of it. After a failure, 5 s. */
#define PROBE_DNS_REFRESH_MS 30000
#define PROBE_DNS_RETRY_MS   5000
#define MAX_OWN		     256

static bool same_list(const struct probe_target_list *a, const struct probe_target_list *b)
{
	if (a->n_targets != b->n_targets)
		return false;
	for (size_t i = 0; i < a->n_targets; i++)
		if (strcmp(a->targets[i].raw, b->targets[i].raw) != 0)
			return false;
	return true;
}

int probe_dns_apply(struct probe_state *st, const uint8_t (*addrs)[16], size_t n,
		    const uint8_t (*own)[16], size_t n_own)
{
	struct probe_target_list nl;
	size_t excluded = 0;
	int r = probe_dns_targets(addrs, n, own, n_own, st->dns_port, &nl, &excluded);

	if (r < 0)
		return r;
	pthread_mutex_lock(&st->lock);
	st->reload_ok = true;
	if (st->have_list && same_list(&st->list, &nl)) {
		pthread_mutex_unlock(&st->lock);
		probe_target_list_free(&nl);
		return 0;
	}
	if (st->have_list)
		probe_target_list_free(&st->list);
	st->list = nl;
	st->have_list = true;
	probe_apply_sample(st);
	pthread_mutex_unlock(&st->lock);
	log_info("probe targets-dns resolved",
		 "collector=probe name=%s addresses=%zu own_excluded=%zu targets=%zu "
		 "max_targets_per_round=%llu",
		 st->dns_host, n, excluded, nl.n_targets, (unsigned long long)st->max_targets);
	return 0;
}

/* An address literal is its own answer, at once: no resolver thread. */
static bool answer_literal(struct probe_state *st, struct gaicb *g)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST};

	if (getaddrinfo(st->dns_host, NULL, &hints, &g->ar_result) != 0)
		return false;
	st->dns_gai = g;
	st->dns_literal = true;
	return true;
}

static int start_lookup(struct probe_state *st)
{
	struct sigevent sev = {.sigev_notify = SIGEV_NONE};
	struct gaicb *g = calloc(1, sizeof(*g) + sizeof(struct addrinfo));
	struct addrinfo *h;

	if (!g)
		return EAI_MEMORY;
	h = (struct addrinfo *)(g + 1);
	h->ai_socktype = SOCK_DGRAM; /* one entry per address, not per socket type */
	g->ar_name = st->dns_host;
	g->ar_request = h;
	if (answer_literal(st, g))
		return 0;
	if (getaddrinfo_a(GAI_NOWAIT, &g, 1, &sev) != 0) {
		free(g);
		return EAI_AGAIN;
	}
	st->dns_gai = g;
	return 0;
}

static void free_lookup(struct probe_state *st)
{
	if (st->dns_gai->ar_result)
		freeaddrinfo(st->dns_gai->ar_result);
	free(st->dns_gai);
	st->dns_gai = NULL;
	st->dns_literal = false;
}

/* A finished look-up: its addresses and the local ones into probe_dns_apply. */
static int take_answer(struct probe_state *st)
{
	uint8_t(*addrs)[16] = calloc(PROBE_DNS_MAX_ADDRS, sizeof(*addrs));
	struct probe_bind_cand *c = calloc(MAX_OWN, sizeof(*c));
	uint8_t(*own)[16] = calloc(MAX_OWN, sizeof(*own));
	size_t n, n_own;
	int r = EAI_MEMORY;

	if (addrs && c && own) {
		n = probe_dns_addrs(st->dns_gai->ar_result, addrs, PROBE_DNS_MAX_ADDRS);
		n_own = probe_local_candidates(c, MAX_OWN);
		for (size_t i = 0; i < n_own; i++)
			memcpy(own[i], c[i].a.addr, 16);
		if (n > PROBE_DNS_MAX_ADDRS)
			n = PROBE_DNS_MAX_ADDRS;
		r = probe_dns_apply(st, (const uint8_t(*)[16])addrs, n, (const uint8_t(*)[16])own,
				    n_own) < 0
			    ? EAI_MEMORY
			    : 0;
	}
	free(addrs);
	free(c);
	free(own);
	return r;
}

static void failed(struct probe_state *st, int e)
{
	if (e != st->dns_err)
		log_error("cannot resolve the probe targets-dns name; keeping the previous targets",
			  "collector=probe name=%s err=\"%s\" targets=%zu", st->dns_host,
			  gai_strerror(e), st->have_list ? st->list.n_targets : (size_t)0);
	st->dns_err = e;
	pthread_mutex_lock(&st->lock);
	st->reload_ok = false;
	pthread_mutex_unlock(&st->lock);
}

/* From the engine's sync (every second): start a look-up when one is due,
 * take its answer when it is in. */
void probe_check_targets_dns(struct probe_state *st, uint64_t now_ms, bool force)
{
	int e;

	if (!st->dns_spec)
		return;
	if (!st->dns_gai) {
		if (now_ms < st->dns_next_ms && !force)
			return;
		e = start_lookup(st);
		if (e != 0) {
			failed(st, e);
			st->dns_next_ms = now_ms + PROBE_DNS_RETRY_MS;
		}
		if (!st->dns_literal)
			return;
	}
	e = st->dns_literal ? 0 : gai_error(st->dns_gai);
	if (e == EAI_INPROGRESS)
		return;
	if (e == 0)
		e = take_answer(st);
	free_lookup(st);
	if (e != 0) {
		failed(st, e);
		st->dns_next_ms = now_ms + PROBE_DNS_RETRY_MS;
		return;
	}
	if (st->dns_err)
		log_info("probe targets-dns name resolved again", "collector=probe name=%s",
			 st->dns_host);
	st->dns_err = 0;
	st->dns_next_ms = now_ms + PROBE_DNS_REFRESH_MS;
}

/* On stop: the look-up in flight cancelled, or waited for (at most 5 s). */
void probe_dns_stop(struct probe_state *st)
{
	if (!st->dns_gai)
		return;
	if (!st->dns_literal && gai_cancel(st->dns_gai) == EAI_NOTCANCELED) {
		const struct gaicb *list[1] = {st->dns_gai};
		struct timespec ts = {5, 0};

		gai_suspend(list, 1, &ts);
		if (gai_error(st->dns_gai) == EAI_INPROGRESS)
			return; /* leaks one request: better than freeing it in use */
	}
	free_lookup(st);
}
