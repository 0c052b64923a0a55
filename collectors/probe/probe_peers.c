// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's peers: the fixed peer table (one loopback peer per
 * slot, the remote sample after them), the graveyard of getaddrinfo_a
 * requests that outlive their peer, and the targets file with the sample of
 * it this node probes (rendezvous hashing on its host name, probe_targets.h;
 * moved only by --collector.probe.sample-rotation). Reloads are logged once
 * here.
 */
#include "base/clock.h"
#include "base/fileio.h"
#include "probe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "base/log.h"

/* ---- peers --------------------------------------------------------------------------- */

static void bury_gai(struct probe_state *st, struct gaicb *g)
{
	struct gaicb **n;

	if (!g)
		return;
	if (gai_cancel(g) != EAI_NOTCANCELED && gai_error(g) != EAI_INPROGRESS) {
		if (g->ar_result)
			freeaddrinfo(g->ar_result);
		free(g);
		return;
	}
	n = realloc(st->graves, (st->n_graves + 1) * sizeof(*n));
	if (!n)
		return; /* leaks one request: better than freeing it in use */
	st->graves = n;
	st->graves[st->n_graves++] = g;
}

void probe_reap_graves(struct probe_state *st, bool wait)
{
	for (size_t i = 0; i < st->n_graves;) {
		struct gaicb *g = st->graves[i];

		if (wait && gai_error(g) == EAI_INPROGRESS) {
			const struct gaicb *list[1] = {g};
			struct timespec ts = {5, 0};

			gai_suspend(list, 1, &ts);
		}
		if (gai_error(g) == EAI_INPROGRESS) {
			i++;
			continue;
		}
		if (g->ar_result)
			freeaddrinfo(g->ar_result);
		free(g);
		st->graves[i] = st->graves[--st->n_graves];
	}
}

void probe_peer_unresolve(struct probe_state *st, struct peer *pe)
{
	if (pe->ah)
		ibv_destroy_ah(pe->ah);
	pe->ah = NULL;
	bury_gai(st, pe->gai);
	pe->gai = NULL;
	pe->pace.in_flight = false;
	if (!pe->loopback)
		pe->rs = RS_NEW;
}

void probe_peer_free(struct probe_state *st, struct peer *pe)
{
	probe_peer_unresolve(st, pe);
	histogram_free(&pe->rtt);
	histogram_free(&pe->net_rtt);
	free(pe->target);
	for (size_t i = 0; i < pe->n_file_labels; i++)
		free((char *)pe->file_labels[i].name);
	memset(pe, 0, sizeof(*pe));
}

struct peer *probe_peer_new(struct probe_state *st)
{
	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (pe->used)
			continue;
		memset(pe, 0, sizeof(*pe));
		if (histogram_init(&pe->rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0)
			return NULL;
		if (histogram_init(&pe->net_rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) <
		    0) {
			histogram_free(&pe->rtt);
			return NULL;
		}
		pe->used = true;
		pe->slot = -1;
		return pe;
	}
	return NULL;
}

void probe_peer_set_slot(struct probe_state *st, struct peer *pe, int slot)
{
	pe->slot = slot;
	if (slot >= 0) {
		snprintf(pe->device, sizeof(pe->device), "%s", st->slots[slot].device);
		snprintf(pe->port_str, sizeof(pe->port_str), "%s", st->slots[slot].port_str);
	}
}

/* ---- targets file and sample ---------------------------------------------------------- */

static bool same_labels(const struct peer *pe, const struct probe_group *g)
{
	if (pe->n_file_labels != g->n_labels)
		return false;
	for (size_t i = 0; i < g->n_labels; i++)
		if (strcmp(pe->file_labels[i].name, g->labels[i].name) != 0 ||
		    strcmp(pe->file_labels[i].value, g->labels[i].value) != 0)
			return false;
	return true;
}

static int peer_fill(struct peer *pe, const struct probe_target *t, const struct probe_group *g)
{
	pe->target = strdup(t->raw);
	if (!pe->target)
		return -ENOMEM;
	snprintf(pe->host, sizeof(pe->host), "%s", t->host);
	pe->dport = t->port;
	for (size_t i = 0; i < g->n_labels && i < MAX_FILE_LABELS; i++) {
		size_t nl = strlen(g->labels[i].name), vl = strlen(g->labels[i].value);
		char *m = malloc(nl + vl + 2);

		if (!m)
			return -ENOMEM;
		memcpy(m, g->labels[i].name, nl + 1);
		memcpy(m + nl + 1, g->labels[i].value, vl + 1);
		pe->file_labels[i].name = m;
		pe->file_labels[i].value = m + nl + 1;
		pe->n_file_labels++;
	}
	pe->rs = RS_NEW;
	return 0;
}

/*
 * Under lock: makes the remote peers this node's sample of the list (of the
 * current rotation epoch, with --collector.probe.sample-rotation). A target
 * that stays (same string, same labels) keeps its numbers and its
 * resolution; targets that leave lose their series.
 */
void probe_apply_sample(struct probe_state *st)
{
	size_t n = st->have_list ? st->list.n_targets : 0, k = st->max_targets, m = 0;
	size_t *idx = calloc(n < k ? n + 1 : k + 1, sizeof(*idx));
	uint64_t *w = calloc(n < k ? n + 1 : k + 1, sizeof(*w));
	bool *keep = calloc(st->n_peers, sizeof(*keep)), *add = calloc(k + 1, sizeof(*add));

	if (!idx || !w || !keep || !add)
		goto out;
	/* window is 0 without rotation: the sample is the node's alone */
	m = probe_targets_sample(&st->list, k, st->node_key + st->window * 0x9e3779b97f4a7c15ull,
				 idx, w);
	for (size_t i = 0; i < m; i++) {
		const struct probe_target *t = &st->list.targets[idx[i]];
		const struct probe_group *g = &st->list.groups[t->group];
		size_t j;

		for (j = 0; j < st->n_peers; j++) {
			struct peer *pe = &st->peers[j];

			if (pe->used && !pe->loopback && !keep[j] &&
			    strcmp(pe->target, t->raw) == 0 && same_labels(pe, g))
				break;
		}
		if (j < st->n_peers)
			keep[j] = true;
		else
			add[i] = true;
	}
	for (size_t j = 0; j < st->n_peers; j++)
		if (st->peers[j].used && !st->peers[j].loopback && !keep[j])
			probe_peer_free(st, &st->peers[j]);
	for (size_t i = 0; i < m; i++) {
		const struct probe_target *t = &st->list.targets[idx[i]];
		struct peer *pe;

		if (!add[i])
			continue;
		pe = probe_peer_new(st);
		if (!pe)
			break;
		if (peer_fill(pe, t, &st->list.groups[t->group]) < 0) {
			probe_peer_free(st, pe);
			break;
		}
		/* probed from now on, not a round later */
		probe_pace_round(&st->pace, &pe->pace, clock_mono_ns());
	}
out:
	free(idx);
	free(w);
	free(keep);
	free(add);
}

size_t probe_remote_peers(const struct probe_state *st)
{
	size_t n = 0;

	for (size_t i = 0; i < st->n_peers; i++)
		n += st->peers[i].used && !st->peers[i].loopback;
	return n;
}

static int read_file(const char *path, char **out, size_t *len)
{
	int fd = open_regular_at(AT_FDCWD, path);
	size_t cap = 65536, n = 0;
	char *b = NULL;

	if (fd < 0)
		return fd;
	for (;;) {
		ssize_t r;

		if (n == cap || !b) {
			char *nb;

			if (b)
				cap *= 2;
			if (cap > PROBE_TARGETS_MAX_FILE + 1)
				cap = PROBE_TARGETS_MAX_FILE + 1;
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				close(fd);
				return -ENOMEM;
			}
			b = nb;
		}
		if (n == cap)
			break; /* over the limit: the parser says so */
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*out = b;
	*len = n;
	return 0;
}

/* Re-reads the targets file when it changed on disk, or when forced (SIGHUP). */
void probe_check_targets_file(struct probe_state *st, bool force)
{
	struct probe_target_list nl;
	struct stat sb;
	char err[256], eb[128], *buf = NULL;
	size_t len = 0;
	int r;

	if (!st->targets_path)
		return;
	if (stat(st->targets_path, &sb) < 0) {
		int e = errno;

		if (st->file_err != e || force)
			log_error(
				"cannot read the probe targets-file; keeping the previous targets",
				"collector=probe file=%s err=%s targets=%zu", st->targets_path,
				strerror(e), st->have_list ? st->list.n_targets : (size_t)0);
		st->file_err = e;
		st->file_seen = false;
		pthread_mutex_lock(&st->lock);
		st->reload_ok = false;
		pthread_mutex_unlock(&st->lock);
		return;
	}
	st->file_err = 0;
	if (!force && st->file_seen && sb.st_mtim.tv_sec == st->file_st.st_mtim.tv_sec &&
	    sb.st_mtim.tv_nsec == st->file_st.st_mtim.tv_nsec &&
	    sb.st_ctim.tv_sec == st->file_st.st_ctim.tv_sec &&
	    sb.st_ctim.tv_nsec == st->file_st.st_ctim.tv_nsec &&
	    sb.st_size == st->file_st.st_size && sb.st_ino == st->file_st.st_ino &&
	    sb.st_dev == st->file_st.st_dev)
		return;
	st->file_st = sb;
	st->file_seen = true;
	r = read_file(st->targets_path, &buf, &len);
	if (r < 0)
		snprintf(err, sizeof(err), "%s", open_regular_strerror(r, eb, sizeof(eb)));
	else
		r = probe_targets_parse(buf, len, &nl, err, sizeof(err));
	free(buf);
	if (r < 0) {
		log_error("cannot load the probe targets-file; keeping the previous targets",
			  "collector=probe file=%s err=%s targets=%zu", st->targets_path, err,
			  st->have_list ? st->list.n_targets : (size_t)0);
		pthread_mutex_lock(&st->lock);
		st->reload_ok = false;
		pthread_mutex_unlock(&st->lock);
		return;
	}
	log_info("probe targets-file loaded",
		 "collector=probe file=%s targets=%zu groups=%zu duplicates_dropped=%zu "
		 "max_targets_per_round=%llu",
		 st->targets_path, nl.n_targets, nl.n_groups, nl.duplicates,
		 (unsigned long long)st->max_targets);
	if (nl.dropped_labels)
		log_warn("probe targets-file labels dropped: names starting with \"__\", job and "
			 "instance are Prometheus's",
			 "collector=probe file=%s dropped=%zu first=%s", st->targets_path,
			 nl.dropped_labels, nl.dropped_label);
	pthread_mutex_lock(&st->lock);
	if (st->have_list)
		probe_target_list_free(&st->list);
	st->list = nl;
	st->have_list = true;
	st->reload_ok = true;
	probe_apply_sample(st);
	pthread_mutex_unlock(&st->lock);
}
