// SPDX-License-Identifier: Apache-2.0
/*
 * Policy and engine of the probe collector (see probe.h). The engine thread
 * owns every verbs object, the sideband socket and the target list; the
 * collector thread only reads the numbers, under st->lock. The engine logs
 * port changes and target-file reloads once; probe failures are data
 * (rdma_probe_errors_total, rdma_probe_timeouts_total), never a log line per
 * probe.
 *
 * One event loop: poll() on the stop eventfd, the sideband socket and every
 * port's completion channel, with a timeout at the next due event (a probe
 * to send or time out, a round, the next second's sync). After a send it
 * spins on the CQs for up to SPIN_NS before it sleeps again, so a
 * microsecond RTT is not measured as a wake-up latency.
 */
#include "probe.h"
#include "clock.h"
#include "fileio.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "histogram.h"
#include "log.h"
#include "probe_discovery.h"
#include "probe_packet.h"
#include "probe_port.h"
#include "probe_ratelimit.h"
#include "probe_targets.h"

#define MAX_SLOTS	64
#define SYNC_PERIOD_MS	1000
#define SPIN_NS		200000ull
#define SPIN_MAX_NS	1000000ull
#define ROTATE_MS	300000ull /* a sample of peers is kept this long (series stay) */
#define BACKOFF_MAX_MS	60000ull
#define QUERY_TRIES	3
#define GID_MAX_AGE_NS	(5ull * 1000000000ull)
#define RL_SLOTS	1024
#define RL_RATE		200.0
#define RL_BURST	400.0
#define MAX_FILE_LABELS PROBE_TARGETS_MAX_LABELS

enum reason { R_RESOLVE, R_OPEN, R_SEND, R_COMPLETION, R_POLL, R_REASONS };
static const char *const reason_names[R_REASONS] = {"resolve", "qp", "send", "completion", "poll"};
enum drop { D_MALFORMED, D_RATELIMIT, D_UNEXPECTED, D_SEND, D_N };
static const char *const drop_names[D_N] = {"malformed", "ratelimit", "unexpected", "send"};
enum ddrop { DD_MALFORMED, DD_RATELIMIT, DD_NOPORT, DD_N };
static const char *const ddrop_names[DD_N] = {"malformed", "ratelimit", "noport"};

struct slot {
	bool used, open;
	char device[64];
	uint8_t port;
	char port_str[4];
	struct probe_port p;
	uint64_t responder_requests, dropped[D_N];
	uint64_t retry_at_ms; /* open failed: not before this */
	bool logged_fail;
	unsigned failures; /* times the QP failed and was rebuilt: logged once at warn */
	bool no_hw_ts;	   /* a port with NIC timestamps failed: the plain CQ from now on */
	int loop;	   /* index of its loopback peer */
};

enum rstate {
	RS_NEW,	  /* to resolve now */
	RS_DNS,	  /* waiting for getaddrinfo_a */
	RS_QUERY, /* discovery query sent */
	RS_READY, /* AH and QPN known */
	RS_WAIT,  /* resolving failed: backing off until retry_at_ms */
};

struct peer {
	bool used, loopback;
	int slot; /* local slot, -1: none yet */
	char *target;
	char host[PROBE_TARGETS_MAX_HOST + 1];
	uint16_t dport;
	char device[64], port_str[4]; /* labels: the local port, "" until known */
	struct metric_label file_labels[MAX_FILE_LABELS];
	size_t n_file_labels;
	/* resolution */
	enum rstate rs;
	struct gaicb *gai;
	struct sockaddr_in6 addr; /* IPv4 as v4-mapped */
	uint64_t nonce, query_deadline_ms, retry_at_ms;
	unsigned query_tries, fails;
	struct ibv_ah *ah; /* remote peers only; loopback uses the port's */
	uint32_t qpn;
	int sgid_index;
	/* the current round */
	unsigned remaining, round_sent, round_replies;
	bool in_flight, have_sent_ts;
	uint64_t seq, sent_ns, deadline_ns;
	uint64_t sent_ts; /* NIC time the request left, when the port has a clock */
	/* numbers */
	struct histogram rtt;
	uint64_t sent, replies, timeouts, errors[R_REASONS];
	double last_rtt;
	bool have_last;
};

struct probe_state {
	const struct device_filter *filter;
	int sysfs_fd; /* -1: ask the device for its ports */
	uint64_t interval_ms, count, timeout_ms, max_targets;
	uint16_t udp_port;
	bool responder;
	char *targets_path;

	pthread_mutex_t lock; /* everything the collector reads */
	pthread_t thread;
	bool started;
	int stop_fd; /* eventfd: stop or reload requested */
	int stop;    /* under lock */
	int hup;     /* under lock: re-read the targets file */
	int udp_fd;  /* discovery sideband, -1 when none */
	bool udp_v6; /* AF_INET6 dual stack (else AF_INET) */
	uint32_t session;
	uint64_t seq;
	uint64_t node_offset;
	struct slot slots[MAX_SLOTS];
	struct peer *peers; /* n_peers = max_targets + MAX_SLOTS */
	size_t n_peers;
	struct probe_ratelimit rl, disc_rl;

	/* targets file */
	struct probe_target_list list;
	bool have_list;
	struct stat file_st;
	bool file_seen; /* file_st valid */
	int file_err;	/* errno of the last failed stat, for logging once */
	bool reload_ok;
	uint64_t window; /* sample window in use */
	uint64_t rounds;

	/* graveyard of getaddrinfo_a requests whose peer is gone */
	struct gaicb **graves;
	size_t n_graves;

	uint64_t disc_requests, disc_dropped[DD_N];
};

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

static void reap_graves(struct probe_state *st, bool wait)
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

static void peer_unresolve(struct probe_state *st, struct peer *pe)
{
	if (pe->ah)
		ibv_destroy_ah(pe->ah);
	pe->ah = NULL;
	bury_gai(st, pe->gai);
	pe->gai = NULL;
	pe->in_flight = false;
	if (!pe->loopback)
		pe->rs = RS_NEW;
}

static void peer_free(struct probe_state *st, struct peer *pe)
{
	peer_unresolve(st, pe);
	histogram_free(&pe->rtt);
	free(pe->target);
	for (size_t i = 0; i < pe->n_file_labels; i++)
		free((char *)pe->file_labels[i].name);
	memset(pe, 0, sizeof(*pe));
}

static struct peer *peer_new(struct probe_state *st)
{
	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (pe->used)
			continue;
		memset(pe, 0, sizeof(*pe));
		if (histogram_init(&pe->rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0)
			return NULL;
		pe->used = true;
		pe->slot = -1;
		return pe;
	}
	return NULL;
}

static void set_peer_slot(struct probe_state *st, struct peer *pe, int slot)
{
	pe->slot = slot;
	if (slot >= 0) {
		snprintf(pe->device, sizeof(pe->device), "%s", st->slots[slot].device);
		snprintf(pe->port_str, sizeof(pe->port_str), "%s", st->slots[slot].port_str);
	}
}

/* ---- slots (ports) ------------------------------------------------------------------- */

static struct slot *find_slot(struct probe_state *st, const char *dev, uint8_t port)
{
	for (int i = 0; i < MAX_SLOTS; i++)
		if (st->slots[i].used && st->slots[i].port == port &&
		    strcmp(st->slots[i].device, dev) == 0)
			return &st->slots[i];
	return NULL;
}

static struct slot *new_slot(struct probe_state *st, const char *dev, uint8_t port)
{
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		struct peer *lp;

		if (s->used)
			continue;
		lp = peer_new(st);
		if (!lp)
			return NULL;
		memset(s, 0, sizeof(*s));
		s->used = true;
		snprintf(s->device, sizeof(s->device), "%s", dev);
		s->port = port;
		snprintf(s->port_str, sizeof(s->port_str), "%u", port);
		lp->loopback = true;
		lp->rs = RS_WAIT;
		lp->retry_at_ms = UINT64_MAX;
		set_peer_slot(st, lp, i);
		s->loop = (int)(lp - st->peers);
		return s;
	}
	return NULL;
}

/* Under lock: forgets the verbs objects of s and of every peer using it;
 * returns the port for the caller to close outside the lock. */
static struct probe_port detach_slot(struct probe_state *st, struct slot *s)
{
	struct probe_port p = s->p;
	int idx = (int)(s - st->slots);

	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (!pe->used || pe->slot != idx)
			continue;
		peer_unresolve(st, pe);
		if (pe->loopback)
			pe->rs = RS_WAIT;
	}
	s->open = false;
	memset(&s->p, 0, sizeof(s->p));
	return p;
}

static void close_slot(struct probe_state *st, struct slot *s)
{
	struct probe_port p;

	pthread_mutex_lock(&st->lock);
	p = detach_slot(st, s);
	pthread_mutex_unlock(&st->lock);
	probe_port_close(&p);
}

static void drop_slot(struct probe_state *st, struct slot *s)
{
	int idx = (int)(s - st->slots);

	close_slot(st, s);
	pthread_mutex_lock(&st->lock);
	peer_free(st, &st->peers[s->loop]);
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used && st->peers[i].slot == idx)
			st->peers[i].slot = -1; /* labels keep the last port */
	s->used = false;
	pthread_mutex_unlock(&st->lock);
}

static void open_port(struct probe_state *st, struct ibv_device *dev, uint8_t port)
{
	const char *name = ibv_get_device_name(dev), *what = "";
	struct slot *s = find_slot(st, name, port);
	struct probe_port p;
	int r;

	if (s && (s->open || clock_mono_ms() < s->retry_at_ms))
		return;
	if (!s) {
		pthread_mutex_lock(&st->lock);
		s = new_slot(st, name, port);
		pthread_mutex_unlock(&st->lock);
		if (!s)
			return;
	}
	r = probe_port_open(&p, dev, port, !s->no_hw_ts, &what);
	pthread_mutex_lock(&st->lock);
	if (r < 0) {
		st->peers[s->loop].errors[R_OPEN]++;
		s->retry_at_ms = clock_mono_ms() + st->interval_ms;
	} else {
		struct peer *lp = &st->peers[s->loop];

		s->p = p;
		s->open = true;
		lp->rs = RS_READY;
		lp->qpn = p.qp->qp_num;
		/* Probed at once, not an interval later. */
		lp->remaining = (unsigned)st->count;
		lp->round_sent = lp->round_replies = 0;
	}
	pthread_mutex_unlock(&st->lock);
	if (r < 0 && !s->logged_fail)
		log_warn("cannot set up the probe QP; counted in rdma_probe_errors_total, retried "
			 "every interval",
			 "collector=probe device=%s port=%u step=%s err=%s", name, port, what,
			 strerror(-r));
	else if (r == 0)
		log_msg(s->failures ? LOG_DEBUG : LOG_INFO, "probe QP ready",
			"collector=probe device=%s port=%u qpn=%u qkey=0x%08x", name, port,
			p.qp->qp_num, PROBE_QKEY);
	s->logged_fail = r < 0;
}

/*
 * The ACTIVE ports of dev from <sysfs>/class/infiniband/<dev>/ports/<n>/state
 * ("4: ACTIVE"), at most max, into ports[]. Returns their number, or -1 when
 * the directory cannot be read (no sysfs root given, another layout): the
 * caller then asks the device.
 */
static int sysfs_active_ports(int sysfs_fd, const char *dev, uint8_t *ports, int max)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int fd, n = 0;

	if (sysfs_fd < 0)
		return -1;
	snprintf(path, sizeof(path), "class/infiniband/%s/ports", dev);
	fd = openat(sysfs_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d)) && n < max) {
		char state[32] = "";
		unsigned long port;
		char *end;
		int sf;
		ssize_t r;

		port = strtoul(e->d_name, &end, 10);
		if (e->d_name[0] < '1' || e->d_name[0] > '9' || *end || port > 255)
			continue;
		snprintf(path, sizeof(path), "%s/state", e->d_name);
		sf = open_regular_at(dirfd(d), path);
		if (sf < 0)
			continue;
		r = read(sf, state, sizeof(state) - 1);
		close(sf);
		if (r > 0 && strncmp(state, "4:", 2) == 0)
			ports[n++] = (uint8_t)port;
	}
	closedir(d);
	return n;
}

/*
 * Brings the ports in line with the verbs device list: a device that left it
 * (rdma link delete, hot unplug) is closed at once; a new device's ACTIVE
 * ports are opened.
 */
static void sync_ports(struct probe_state *st)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		bool present = false;

		if (!s->used)
			continue;
		for (int j = 0; list && j < n; j++)
			if (strcmp(ibv_get_device_name(list[j]), s->device) == 0)
				present = true;
		if (!present) {
			log_info("port is gone; its probe QP is closed",
				 "collector=probe device=%s port=%u", s->device, s->port);
			drop_slot(st, s);
		}
	}
	for (int j = 0; list && j < n; j++) {
		const char *name = ibv_get_device_name(list[j]);
		struct ibv_device_attr da;
		struct ibv_context *ctx;
		uint8_t active[MAX_SLOTS];
		bool all_open = true;
		int na;

		if (st->filter && !device_filter_match(st->filter, name))
			continue;
		/* The port states from sysfs: no verbs context needed, and a
		 * port we may not open is still tried (and its error counted). */
		na = sysfs_active_ports(st->sysfs_fd, name, active, MAX_SLOTS);
		if (na >= 0) {
			for (int k = 0; k < na; k++)
				open_port(st, list[j], active[k]);
			continue;
		}
		/* Devices whose ports are all open need no query context. */
		for (int i = 0; i < MAX_SLOTS; i++)
			if (st->slots[i].used && strcmp(st->slots[i].device, name) == 0 &&
			    !st->slots[i].open)
				all_open = false;
		if (all_open && find_slot(st, name, 1))
			continue;
		ctx = ibv_open_device(list[j]);
		if (!ctx)
			continue;
		if (ibv_query_device(ctx, &da) == 0) {
			for (uint8_t port = 1; port <= da.phys_port_cnt; port++) {
				struct ibv_port_attr pa;

				if (ibv_query_port(ctx, port, &pa) == 0 &&
				    pa.state == IBV_PORT_ACTIVE)
					open_port(st, list[j], port);
			}
		}
		/* Closed at once: the probe ports hold their own contexts. */
		ibv_close_device(ctx);
	}
	if (list)
		ibv_free_device_list(list);
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
 * Under lock: makes the remote peers the sample of the current window. A
 * target that stays (same string, same labels) keeps its numbers and its
 * resolution; targets that leave lose their series.
 */
static void apply_sample(struct probe_state *st)
{
	size_t n = st->have_list ? st->list.n_targets : 0, k = st->max_targets, m = 0;
	size_t *idx = calloc(n < k ? n + 1 : k + 1, sizeof(*idx));
	bool *keep = calloc(st->n_peers, sizeof(*keep)), *add = calloc(k + 1, sizeof(*add));

	if (!idx || !keep || !add)
		goto out;
	m = probe_targets_sample(n, k, st->window + st->node_offset, idx);
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
			peer_free(st, &st->peers[j]);
	for (size_t i = 0; i < m; i++) {
		const struct probe_target *t = &st->list.targets[idx[i]];
		struct peer *pe;

		if (!add[i])
			continue;
		pe = peer_new(st);
		if (!pe)
			break;
		if (peer_fill(pe, t, &st->list.groups[t->group]) < 0) {
			peer_free(st, pe);
			break;
		}
		pe->remaining = (unsigned)st->count; /* probed in the current round */
	}
out:
	free(idx);
	free(keep);
	free(add);
}

static size_t remote_peers(const struct probe_state *st)
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
static void check_targets_file(struct probe_state *st, bool force)
{
	struct probe_target_list nl;
	struct stat sb;
	char err[256], *buf = NULL;
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
		snprintf(err, sizeof(err), "%s", strerror(-r));
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
	pthread_mutex_lock(&st->lock);
	if (st->have_list)
		probe_target_list_free(&st->list);
	st->list = nl;
	st->have_list = true;
	st->reload_ok = true;
	apply_sample(st);
	pthread_mutex_unlock(&st->lock);
}

/* ---- resolution: DNS, local port, discovery ------------------------------------------- */

static void backoff(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	uint64_t cap = st->interval_ms > BACKOFF_MAX_MS ? st->interval_ms : BACKOFF_MAX_MS;
	uint64_t d = st->interval_ms << (pe->fails < 16 ? pe->fails : 16);

	pe->errors[R_RESOLVE]++;
	pe->fails++;
	pe->rs = RS_WAIT;
	pe->retry_at_ms = now_ms + (d < cap ? d : cap);
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
	int fd, first = -1, ib = -1;
	bool have_src = false;

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
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];

		if (!s->used || !s->open)
			continue;
		if (first < 0)
			first = i;
		if (!s->p.ethernet && ib < 0)
			ib = i;
		if (have_src && s->p.ethernet) {
			int gi = probe_port_find_gid(&s->p, gid, now_ns, GID_MAX_AGE_NS);

			if (gi >= 0) {
				pe->sgid_index = gi;
				return i;
			}
		}
	}
	pe->sgid_index = -1;
	return ib >= 0 ? ib : first;
}

static void send_query(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	struct probe_disc q = {.type = PROBE_DISC_QUERY, .session = st->session};
	unsigned char pkt[PROBE_DISC_LEN];
	struct sockaddr_in6 a6 = pe->addr;
	struct sockaddr_in a4 = {.sin_family = AF_INET};
	const struct sockaddr *sa = (const struct sockaddr *)&a6;
	socklen_t sl = sizeof(a6);

	if (getrandom(&pe->nonce, sizeof(pe->nonce), GRND_NONBLOCK) != sizeof(pe->nonce))
		pe->nonce = clock_mono_ns() ^ ((uint64_t)st->session << 32) ^ (uintptr_t)pe;
	q.nonce = pe->nonce;
	probe_disc_encode(&q, pkt, sizeof(pkt));
	a6.sin6_port = htons(pe->dport ? pe->dport : st->udp_port);
	if (!st->udp_v6) {
		/* an AF_INET socket: only IPv4-mapped addresses can be reached */
		memcpy(&a4.sin_addr, (const uint8_t *)&pe->addr.sin6_addr + 12, 4);
		a4.sin_port = a6.sin6_port;
		sa = (const struct sockaddr *)&a4;
		sl = sizeof(a4);
	}
	pe->rs = RS_QUERY;
	pe->query_tries++;
	pe->query_deadline_ms = now_ms + st->timeout_ms;
	if (st->udp_fd < 0 || sendto(st->udp_fd, pkt, sizeof(pkt), MSG_DONTWAIT, sa, sl) < 0)
		pe->query_deadline_ms = now_ms; /* fails at the next check */
}

/* The address is known: pick the local port, then ask the peer. */
static void start_query(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	int s = pick_local(st, pe, clock_mono_ns());

	if (s < 0 || (!st->udp_v6 && !IN6_IS_ADDR_V4MAPPED(&pe->addr.sin6_addr))) {
		backoff(st, pe, now_ms);
		return;
	}
	set_peer_slot(st, pe, s);
	pe->query_tries = 0;
	send_query(st, pe, now_ms);
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

static void start_resolve(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	struct addrinfo hints = {.ai_socktype = SOCK_DGRAM, .ai_flags = AI_NUMERICHOST}, *ai;
	struct gaicb *g;
	struct sigevent sev = {.sigev_notify = SIGEV_NONE};

	/* Literal addresses at once, names through getaddrinfo_a (its own thread). */
	if (getaddrinfo(pe->host, NULL, &hints, &ai) == 0) {
		int r = addr_from_ai(pe, ai);

		freeaddrinfo(ai);
		if (r < 0)
			backoff(st, pe, now_ms);
		else
			start_query(st, pe, now_ms);
		return;
	}
	g = calloc(1, sizeof(*g) + sizeof(struct addrinfo) + strlen(pe->host) + 1);
	if (!g) {
		backoff(st, pe, now_ms);
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
		backoff(st, pe, now_ms);
		return;
	}
	pe->gai = g;
	pe->rs = RS_DNS;
}

static void check_dns(struct probe_state *st, struct peer *pe, uint64_t now_ms)
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
		backoff(st, pe, now_ms);
	else
		start_query(st, pe, now_ms);
}

static void take_answer(struct probe_state *st, const struct probe_disc *d)
{
	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];
		struct slot *s;
		int r;

		if (!pe->used || pe->loopback || pe->rs != RS_QUERY || pe->nonce != d->nonce)
			continue;
		s = pe->slot >= 0 ? &st->slots[pe->slot] : NULL;
		if (!s || !s->open || (d->link_layer == PROBE_DISC_LINK_ETH) != s->p.ethernet) {
			backoff(st, pe, clock_mono_ms());
			return;
		}
		r = probe_port_peer_ah(&s->p, d->gid, d->lid, pe->sgid_index, &pe->ah);
		if (r < 0) {
			backoff(st, pe, clock_mono_ms());
			return;
		}
		pe->qpn = d->qpn;
		pe->rs = RS_READY;
		pe->fails = 0;
		pe->round_sent = pe->round_replies = 0;
		return;
	}
}

/* Answers a discovery query that arrived for local address dst. */
static void answer_query(struct probe_state *st, const struct probe_disc *q,
			 const struct sockaddr *from, socklen_t fl, const uint8_t *dst_gid)
{
	struct probe_disc a = {
		.type = PROBE_DISC_ANSWER, .nonce = q->nonce, .session = st->session};
	unsigned char pkt[PROBE_DISC_LEN];
	struct slot *pick = NULL;
	int ib = -1, first = -1;

	for (int i = 0; i < MAX_SLOTS && !pick; i++) {
		struct slot *s = &st->slots[i];

		if (!s->used || !s->open)
			continue;
		if (first < 0)
			first = i;
		if (!s->p.ethernet && ib < 0)
			ib = i;
		if (dst_gid && s->p.ethernet &&
		    probe_port_find_gid(&s->p, dst_gid, clock_mono_ns(), GID_MAX_AGE_NS) >= 0) {
			pick = s;
			a.flags = PROBE_DISC_F_MATCHED;
			memcpy(a.gid, dst_gid, 16);
		}
	}
	if (!pick && (ib >= 0 || first >= 0)) {
		pick = &st->slots[ib >= 0 ? ib : first];
		memcpy(a.gid, pick->p.gid, 16);
	}
	if (!pick) {
		st->disc_dropped[DD_NOPORT]++;
		return;
	}
	a.port = pick->port;
	a.qpn = pick->p.qp->qp_num;
	a.qkey = PROBE_QKEY;
	a.lid = pick->p.lid;
	a.link_layer = pick->p.ethernet ? PROBE_DISC_LINK_ETH : PROBE_DISC_LINK_IB;
	if (probe_disc_encode(&a, pkt, sizeof(pkt)) == PROBE_DISC_LEN &&
	    sendto(st->udp_fd, pkt, sizeof(pkt), MSG_DONTWAIT, from, fl) == PROBE_DISC_LEN)
		st->disc_requests++;
}

/* Drains the sideband socket (under lock). */
static void sideband_input(struct probe_state *st)
{
	for (int budget = 0; budget < 256; budget++) {
		unsigned char pkt[PROBE_DISC_LEN + 1];
		struct sockaddr_storage from;
		union {
			char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
				 CMSG_SPACE(sizeof(struct in_pktinfo))];
			struct cmsghdr align;
		} cb;
		struct iovec iov = {pkt, sizeof(pkt)};
		struct msghdr mh = {.msg_name = &from,
				    .msg_namelen = sizeof(from),
				    .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = cb.buf,
				    .msg_controllen = sizeof(cb.buf)};
		struct probe_disc d;
		uint8_t dst[16], key[PROBE_RL_KEY_MAX] = {0};
		bool have_dst = false;
		ssize_t n = recvmsg(st->udp_fd, &mh, MSG_DONTWAIT);

		if (n < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;

				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				memcpy(dst, &pi.ipi6_addr, 16);
				have_dst = true;
			} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;

				memcpy(&pi, CMSG_DATA(c), sizeof(pi));
				memset(dst, 0, 10);
				dst[10] = dst[11] = 0xff;
				memcpy(dst + 12, &pi.ipi_addr, 4);
				have_dst = true;
			}
		}
		if (probe_disc_decode(pkt, (size_t)n, &d) < 0) {
			st->disc_dropped[DD_MALFORMED]++;
			continue;
		}
		if (d.type == PROBE_DISC_ANSWER) {
			take_answer(st, &d);
			continue;
		}
		if (!st->responder)
			continue;
		if (from.ss_family == AF_INET6)
			memcpy(key, &((struct sockaddr_in6 *)&from)->sin6_addr, 16);
		else
			memcpy(key, &((struct sockaddr_in *)&from)->sin_addr, 4);
		if (!probe_ratelimit_allow(&st->disc_rl, key, 16, clock_mono_ns())) {
			st->disc_dropped[DD_RATELIMIT]++;
			continue;
		}
		answer_query(st, &d, (struct sockaddr *)&from, mh.msg_namelen,
			     have_dst ? dst : NULL);
	}
}

static int open_sideband(struct probe_state *st)
{
	int on = 1, off = 0, fd;
	uint16_t port = st->responder ? st->udp_port : 0;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0) {
		struct sockaddr_in6 a = {.sin6_family = AF_INET6,
					 .sin6_port = htons(port),
					 .sin6_addr = IN6ADDR_ANY_INIT};

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on));
		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			st->udp_v6 = true;
			return fd;
		}
		close(fd);
		if (errno != EAFNOSUPPORT && errno != EADDRNOTAVAIL)
			return -errno;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0) {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};

		setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
	}
	return -errno;
}

/* ---- probing ------------------------------------------------------------------------- */

static struct peer *peer_by_seq(struct probe_state *st, uint64_t seq)
{
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used && st->peers[i].in_flight && st->peers[i].seq == seq)
			return &st->peers[i];
	return NULL;
}

static void on_recv(void *arg, struct probe_port *p, const struct probe_rx *rx)
{
	struct probe_state *st = arg;
	struct slot *s = (struct slot *)((char *)p - offsetof(struct slot, p));
	struct probe_packet got;
	uint64_t now = clock_mono_ns();

	if (probe_packet_decode(rx->data, rx->len, &got) < 0) {
		s->dropped[D_MALFORMED]++;
		return;
	}
	if (got.type == PROBE_PACKET_REQUEST) {
		uint8_t key[PROBE_RL_KEY_MAX] = {0}, pkt[PROBE_PACKET_LEN];

		if (!st->responder && rx->src_qp != p->qp->qp_num)
			return;
		if (rx->has_grh)
			memcpy(key, rx->sgid, 16);
		else
			memcpy(key, &rx->slid, sizeof(rx->slid));
		memcpy(key + 16, &rx->src_qp, 4);
		if (!probe_ratelimit_allow(&st->rl, key, sizeof(key), now)) {
			s->dropped[D_RATELIMIT]++;
			return;
		}
		memcpy(pkt, rx->data, sizeof(pkt));
		if (probe_packet_make_reply(pkt, sizeof(pkt), p->qp->qp_num, now, clock_mono_ns()) <
			    0 ||
		    probe_port_reply(p, rx, pkt) < 0) {
			s->dropped[D_SEND]++;
			return;
		}
		s->responder_requests++;
		return;
	}
	{
		struct peer *pe = got.session == st->session ? peer_by_seq(st, got.seq) : NULL;

		if (!pe || pe->slot != (int)(s - st->slots)) {
			s->dropped[D_UNEXPECTED]++;
			return;
		}
		pe->in_flight = false;
		pe->replies++;
		pe->round_replies++;
		/* NIC clock when both ends of the round trip have it; the send's
		 * completion is normally polled before the reply. */
		if (p->hw_ts && pe->have_sent_ts)
			pe->last_rtt = (double)probe_port_ts_delta_ns(p, pe->sent_ts, rx->ts) / 1e9;
		else
			pe->last_rtt = (double)(now - pe->sent_ns) / 1e9;
		pe->have_last = true;
		histogram_observe(&pe->rtt, pe->last_rtt);
	}
}

static void on_send_error(void *arg, struct probe_port *p, uint64_t wr_id)
{
	struct probe_state *st = arg;
	struct slot *s = (struct slot *)((char *)p - offsetof(struct slot, p));
	struct peer *pe;

	if (wr_id & PROBE_WR_REPLY) {
		s->dropped[D_SEND]++;
		return;
	}
	pe = peer_by_seq(st, wr_id & ~(PROBE_WR_SEND | PROBE_WR_REPLY));
	if (pe) {
		pe->in_flight = false;
		pe->errors[R_COMPLETION]++;
	}
}

static void on_send_done(void *arg, struct probe_port *p, uint64_t wr_id, uint64_t ts)
{
	struct probe_state *st = arg;
	struct peer *pe = peer_by_seq(st, wr_id & ~(PROBE_WR_SEND | PROBE_WR_REPLY));

	(void)p;
	if (pe) {
		pe->sent_ts = ts;
		pe->have_sent_ts = true;
	}
}

/* Under lock: drains every open port; a port whose CQ or QP failed is
 * returned in *failed for closing. */
static void drain_all(struct probe_state *st, int *failed)
{
	const struct probe_port_handler h = {on_recv, on_send_error, on_send_done, st};

	*failed = -1;
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		const char *what = "";

		if (!s->used || !s->open)
			continue;
		if (probe_port_drain(&s->p, &h, &what) < 0) {
			st->peers[s->loop]
				.errors[strcmp(what, "completion") == 0 ? R_COMPLETION : R_POLL]++;
			*failed = i;
			return;
		}
	}
}

static void send_probe(struct probe_state *st, struct peer *pe, uint64_t now)
{
	struct slot *s = &st->slots[pe->slot];
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST,
				   .seq = ++st->seq & ~(PROBE_WR_SEND | PROBE_WR_REPLY),
				   .send_ns = now,
				   .session = st->session};
	unsigned char pkt[PROBE_PACKET_LEN];
	struct ibv_ah *ah = pe->loopback ? s->p.self_ah : pe->ah;
	int r;

	pe->remaining--;
	probe_packet_encode(&req, pkt, sizeof(pkt));
	r = probe_port_send(&s->p, ah, pe->qpn, pkt, req.seq);
	if (r < 0) {
		pe->errors[R_SEND]++;
		return;
	}
	pe->sent++;
	pe->round_sent++;
	pe->in_flight = true;
	pe->have_sent_ts = false;
	pe->seq = req.seq;
	pe->sent_ns = now;
	pe->deadline_ns = now + st->timeout_ms * 1000000ull;
}

/* Under lock: a new round; each peer gets count probes. */
static void start_round(struct probe_state *st, uint64_t now_ms)
{
	uint64_t rot = ROTATE_MS / st->interval_ms, w;

	st->rounds++;
	w = st->rounds / (rot ? rot : 1);
	if (w != st->window) {
		st->window = w;
		apply_sample(st);
	}
	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (!pe->used)
			continue;
		/* A peer that answered none of a round's probes may have restarted
		 * with another QP: ask it again. */
		if (!pe->loopback && pe->rs == RS_READY && pe->round_sent > 0 &&
		    pe->round_replies == 0 && !pe->in_flight) {
			peer_unresolve(st, pe);
			pe->rs = RS_NEW;
		}
		pe->remaining = (unsigned)st->count;
		pe->round_sent = pe->round_replies = 0;
		(void)now_ms;
	}
}

/*
 * Under lock: times out, resolves and sends what is due. Returns the time
 * (ns) of the next thing due, and sets *spin when a probe was sent within
 * SPIN_NS.
 */
static uint64_t step_peers(struct probe_state *st, uint64_t now, bool *spin)
{
	uint64_t next = UINT64_MAX, now_ms = now / 1000000ull;

	*spin = false;
	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (!pe->used)
			continue;
		if (pe->in_flight && now >= pe->deadline_ns) {
			pe->in_flight = false;
			pe->timeouts++;
		}
		switch (pe->rs) {
		case RS_WAIT:
			if (pe->loopback || now_ms < pe->retry_at_ms)
				break;
			pe->rs = RS_NEW;
			/* fall through */
		case RS_NEW:
			start_resolve(st, pe, now_ms);
			break;
		case RS_DNS:
			check_dns(st, pe, now_ms);
			break;
		case RS_QUERY:
			if (now_ms < pe->query_deadline_ms)
				break;
			if (pe->query_tries < QUERY_TRIES)
				send_query(st, pe, now_ms);
			else
				backoff(st, pe, now_ms);
			break;
		case RS_READY:
			break;
		}
		if (pe->rs == RS_READY && !pe->in_flight && pe->remaining > 0 && pe->slot >= 0 &&
		    st->slots[pe->slot].open)
			send_probe(st, pe, now);
		if (pe->in_flight) {
			/* Spin for twice the last RTT, 200 us to 1 ms. */
			uint64_t spin_ns = pe->have_last ? (uint64_t)(pe->last_rtt * 2e9) : 0;

			if (spin_ns < SPIN_NS)
				spin_ns = SPIN_NS;
			if (spin_ns > SPIN_MAX_NS)
				spin_ns = SPIN_MAX_NS;
			if (now - pe->sent_ns < spin_ns)
				*spin = true;
			if (pe->deadline_ns < next)
				next = pe->deadline_ns;
		}
		if (pe->rs == RS_WAIT && !pe->loopback && pe->retry_at_ms * 1000000ull < next)
			next = pe->retry_at_ms * 1000000ull;
		if (pe->rs == RS_QUERY && pe->query_deadline_ms * 1000000ull < next)
			next = pe->query_deadline_ms * 1000000ull;
		if (pe->rs == RS_DNS && now + 10000000ull < next)
			next = now + 10000000ull; /* look at getaddrinfo_a every 10 ms */
	}
	return next;
}

static void *engine(void *arg)
{
	struct probe_state *st = arg;
	uint64_t next_round = clock_mono_ms() + st->interval_ms, next_sync = 0;
	bool udp_ready = false;

	for (;;) {
		struct pollfd fds[2 + MAX_SLOTS];
		uint64_t now_ms = clock_mono_ms(), next_ns, wake_ms;
		int nfds = 0, failed, timeout;
		bool spin, hup, stop;

		pthread_mutex_lock(&st->lock);
		stop = st->stop;
		hup = st->hup;
		st->hup = false;
		pthread_mutex_unlock(&st->lock);
		if (stop)
			break;
		if (now_ms >= next_sync || hup) {
			sync_ports(st);
			check_targets_file(st, hup);
			reap_graves(st, false);
			next_sync = now_ms + SYNC_PERIOD_MS;
		}
		pthread_mutex_lock(&st->lock);
		if (now_ms >= next_round) {
			start_round(st, now_ms);
			next_round += st->interval_ms;
			if (next_round < now_ms)
				next_round = now_ms + st->interval_ms;
		}
		if (udp_ready && st->udp_fd >= 0)
			sideband_input(st);
		drain_all(st, &failed);
		next_ns = step_peers(st, clock_mono_ns(), &spin);
		if (!spin && failed < 0) {
			/* Arm, then drain again: a completion may have come in between. */
			for (int i = 0; i < MAX_SLOTS; i++)
				if (st->slots[i].used && st->slots[i].open)
					probe_port_arm(&st->slots[i].p);
			drain_all(st, &failed);
		}
		pthread_mutex_unlock(&st->lock);
		if (failed >= 0) {
			struct slot *fs = &st->slots[failed];

			/* Said once at warn; a port that keeps failing is counted in
			 * rdma_probe_errors_total, and logged at debug. */
			log_msg(fs->failures++ ? LOG_DEBUG : LOG_WARNING,
				fs->p.hw_ts
					? "probe QP failed; it is rebuilt without NIC timestamps"
					: "probe QP failed; it is rebuilt",
				"collector=probe device=%s port=%u", fs->device, fs->port);
			fs->no_hw_ts |= fs->p.hw_ts;
			close_slot(st, &st->slots[failed]);
			continue;
		}
		if (spin) {
			udp_ready = false;
			continue;
		}
		wake_ms = next_sync < next_round ? next_sync : next_round;
		if (next_ns != UINT64_MAX && (next_ns + 999999) / 1000000 < wake_ms)
			wake_ms = (next_ns + 999999) / 1000000;
		now_ms = clock_mono_ms();
		timeout = wake_ms > now_ms ? (int)(wake_ms - now_ms) : 0;
		fds[nfds++] = (struct pollfd){.fd = st->stop_fd, .events = POLLIN};
		fds[nfds++] = (struct pollfd){.fd = st->udp_fd, .events = POLLIN};
		for (int i = 0; i < MAX_SLOTS; i++)
			if (st->slots[i].used && st->slots[i].open)
				fds[nfds++] = (struct pollfd){.fd = probe_port_fd(&st->slots[i].p),
							      .events = POLLIN};
		poll(fds, (nfds_t)nfds, timeout);
		udp_ready = fds[1].revents & POLLIN;
		for (int i = 0, f = 2; i < MAX_SLOTS; i++)
			if (st->slots[i].used && st->slots[i].open && fds[f++].revents & POLLIN)
				probe_port_take_events(&st->slots[i].p);
		if (fds[0].revents & POLLIN) {
			uint64_t v;

			if (read(st->stop_fd, &v, sizeof(v)) < 0)
				continue;
		}
	}
	for (int i = 0; i < MAX_SLOTS; i++)
		if (st->slots[i].used)
			drop_slot(st, &st->slots[i]);
	pthread_mutex_lock(&st->lock);
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			peer_free(st, &st->peers[i]);
	pthread_mutex_unlock(&st->lock);
	reap_graves(st, true);
	return NULL;
}

/* ---- collector ----------------------------------------------------------------------- */

#define ADD(expr)                                                                                  \
	do {                                                                                       \
		if (r == 0)                                                                        \
			r = collector_sink_result(expr);                                           \
	} while (0)

static int emit_peer(struct metric_sink *sink, const struct peer *pe)
{
	struct metric_label l[4 + MAX_FILE_LABELS];
	size_t nl = 3;
	int r = 0;

	l[0] = (struct metric_label){"device", pe->device};
	l[1] = (struct metric_label){"port", pe->port_str};
	l[2] = (struct metric_label){"target", pe->loopback ? "loopback" : pe->target};
	for (size_t i = 0; i < pe->n_file_labels; i++)
		l[nl++] = pe->file_labels[i];
	ADD(metric_sink_add_histogram_from(
		sink, "rdma_probe_rtt_seconds",
		"Round-trip time of probe messages over a UD queue pair, on the NIC clock or "
		"CLOCK_MONOTONIC (see rdma_probe_timestamp_info); target \"loopback\" is the "
		"port's own responder.",
		l, nl, &pe->rtt));
	ADD(metric_sink_add_u64(sink, "rdma_probe_sent_total", "Probe messages sent.",
				METRIC_COUNTER, l, nl, pe->sent));
	ADD(metric_sink_add_u64(sink, "rdma_probe_replies_total", "Probe replies received in time.",
				METRIC_COUNTER, l, nl, pe->replies));
	ADD(metric_sink_add_u64(sink, "rdma_probe_timeouts_total",
				"Probes without a reply within --collector.probe.timeout.",
				METRIC_COUNTER, l, nl, pe->timeouts));
	for (int i = 0; i < R_REASONS && r == 0; i++) {
		l[nl] = (struct metric_label){"reason", reason_names[i]};
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_errors_total",
			"Probe failures by reason: resolve (the target's address or probe QP could "
			"not be learned), qp (the local UD QP could not be set up), send (post "
			"failed), completion (a work completion in error), poll (CQ poll failed).",
			METRIC_COUNTER, l, nl + 1, pe->errors[i]));
	}
	if (pe->have_last)
		ADD(metric_sink_add_double(sink, "rdma_probe_last_rtt_seconds",
					   "Round-trip time of the last probe reply.", METRIC_GAUGE,
					   l, nl, pe->last_rtt));
	return r;
}

static int emit_slot(struct metric_sink *sink, const struct slot *s)
{
	int r = 0;

	ADD(metric_sink_add_u64(sink, "rdma_probe_timestamp_info",
				"Where probe timestamps come from: hardware (NIC clock) or "
				"software (CLOCK_MONOTONIC); always 1.",
				METRIC_GAUGE,
				METRIC_LABELS({"device", s->device}, {"port", s->port_str},
					      {"source", s->p.hw_ts ? "hardware" : "software"}),
				1));
	ADD(metric_sink_add_u64(sink, "rdma_probe_responder_requests_total",
				"Probe requests the port's responder answered.", METRIC_COUNTER,
				METRIC_LABELS({"device", s->device}, {"port", s->port_str}),
				s->responder_requests));
	for (int i = 0; i < D_N; i++)
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_responder_dropped_total",
			"Messages the port's QP dropped: malformed (no magic, wrong version or "
			"length), ratelimit (over the per-source limit), unexpected (a reply to no "
			"probe in flight, a late one included), send (the reply could not be "
			"sent).",
			METRIC_COUNTER,
			METRIC_LABELS({"device", s->device}, {"port", s->port_str},
				      {"reason", drop_names[i]}),
			s->dropped[i]));
	return r;
}

static int probe_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct probe_state *st = state;
	const char *seen[MAX_SLOTS];
	size_t n_seen = 0;
	int r = 0;

	pthread_mutex_lock(&st->lock);
	for (int i = 0; i < MAX_SLOTS && r == 0; i++) {
		const struct slot *s = &st->slots[i];
		bool dup = false;

		if (!s->used)
			continue;
		r = emit_peer(sink, &st->peers[s->loop]);
		if (r == 0)
			r = emit_slot(sink, s);
		for (size_t j = 0; j < n_seen; j++)
			dup |= strcmp(seen[j], s->device) == 0;
		if (!dup)
			seen[n_seen++] = s->device;
	}
	for (size_t i = 0; i < st->n_peers && r == 0; i++)
		if (st->peers[i].used && !st->peers[i].loopback)
			r = emit_peer(sink, &st->peers[i]);
	if (st->targets_path) {
		ADD(metric_sink_add_u64(sink, "rdma_probe_targets",
					"Targets loaded from --collector.probe.targets-file.",
					METRIC_GAUGE, METRIC_NO_LABELS,
					st->have_list ? st->list.n_targets : 0));
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_targets_probed",
			"Targets in the current sample (at most --collector.probe.max-targets; the "
			"sample rotates every 5 minutes when the file has more).",
			METRIC_GAUGE, METRIC_NO_LABELS, remote_peers(st)));
		ADD(metric_sink_add_u64(sink, "rdma_probe_targets_file_reload_success",
					"Whether the last read of the targets file succeeded.",
					METRIC_GAUGE, METRIC_NO_LABELS, st->reload_ok));
	}
	if (st->udp_fd >= 0 && st->responder) {
		ADD(metric_sink_add_u64(sink, "rdma_probe_discovery_requests_total",
					"Discovery queries answered on the UDP sideband.",
					METRIC_COUNTER, METRIC_NO_LABELS, st->disc_requests));
		for (int i = 0; i < DD_N; i++)
			ADD(metric_sink_add_u64(
				sink, "rdma_probe_discovery_dropped_total",
				"Discovery datagrams not answered: malformed, ratelimit (over the "
				"per-source limit), noport (no probe port is open).",
				METRIC_COUNTER, METRIC_LABELS({"reason", ddrop_names[i]}),
				st->disc_dropped[i]));
	}
	pthread_mutex_unlock(&st->lock);
	stats->devices = n_seen;
	return r;
}

static void wake(struct probe_state *st)
{
	uint64_t one = 1;

	if (write(st->stop_fd, &one, sizeof(one)) < 0)
		return; /* the counter is already non-zero */
}

static void probe_reload(void *state)
{
	struct probe_state *st = state;

	pthread_mutex_lock(&st->lock);
	st->hup = true;
	pthread_mutex_unlock(&st->lock);
	wake(st);
}

static void probe_free(void *state)
{
	struct probe_state *st = state;

	if (!st)
		return;
	if (st->started) {
		pthread_mutex_lock(&st->lock);
		st->stop = true;
		pthread_mutex_unlock(&st->lock);
		wake(st);
		pthread_join(st->thread, NULL);
	}
	if (st->have_list)
		probe_target_list_free(&st->list);
	if (st->udp_fd >= 0)
		close(st->udp_fd);
	if (st->stop_fd >= 0)
		close(st->stop_fd);
	probe_ratelimit_free(&st->rl);
	probe_ratelimit_free(&st->disc_rl);
	free(st->graves);
	free(st->peers);
	free(st->targets_path);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static uint64_t flag(const struct collector_ctx *ctx, int i, uint64_t def)
{
	return ctx->flags ? ctx->flags[i] : def;
}

static int probe_init(const struct collector_ctx *ctx, void **state)
{
	struct probe_state *st = calloc(1, sizeof(*st));
	const char *path = ctx->flag_strs ? ctx->flag_strs[PROBE_FLAG_TARGETS_FILE] : NULL;
	char host[256] = "";
	int r;

	if (!st)
		return -ENOMEM;
	st->udp_fd = st->stop_fd = -1;
	pthread_mutex_init(&st->lock, NULL);
	st->filter = ctx->filter;
	st->sysfs_fd = ctx->sysfs_fd;
	st->interval_ms = flag(ctx, PROBE_FLAG_INTERVAL, 10000);
	st->count = flag(ctx, PROBE_FLAG_COUNT, 5);
	st->timeout_ms = flag(ctx, PROBE_FLAG_TIMEOUT, 1000);
	st->max_targets = path ? flag(ctx, PROBE_FLAG_MAX_TARGETS, 64) : 0;
	st->udp_port = (uint16_t)flag(ctx, PROBE_FLAG_PORT, 9879);
	st->responder = flag(ctx, PROBE_FLAG_RESPONDER, 1) != 0;
	st->window = 0;
	if (getrandom(&st->session, sizeof(st->session), GRND_NONBLOCK) != sizeof(st->session))
		st->session = (uint32_t)clock_mono_ns() ^ (uint32_t)getpid();
	/* Nodes reading the same file start their samples at different windows. */
	gethostname(host, sizeof(host) - 1);
	st->node_offset = 1469598103934665603ull;
	for (const char *c = host; *c; c++)
		st->node_offset = (st->node_offset ^ (unsigned char)*c) * 1099511628211ull;
	st->n_peers = st->max_targets + MAX_SLOTS;
	st->peers = calloc(st->n_peers, sizeof(*st->peers));
	r = st->peers ? 0 : -ENOMEM;
	if (r == 0 && path && !(st->targets_path = strdup(path)))
		r = -ENOMEM;
	if (r == 0)
		r = probe_ratelimit_init(&st->rl, RL_SLOTS, RL_RATE, RL_BURST);
	if (r == 0)
		r = probe_ratelimit_init(&st->disc_rl, RL_SLOTS, RL_RATE, RL_BURST);
	if (r == 0) {
		st->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (st->stop_fd < 0)
			r = -errno;
	}
	if (r < 0) {
		probe_free(st);
		return r;
	}
	if (st->responder || path) {
		st->udp_fd = open_sideband(st);
		if (st->udp_fd < 0) {
			log_warn(path ? "cannot open the discovery socket: peers cannot find this "
					"node's probe QP and the mesh is off"
				      : "cannot open the discovery socket: peers cannot find this "
					"node's probe QP",
				 "collector=probe udp_port=%u err=%s",
				 st->responder ? st->udp_port : 0, strerror(-st->udp_fd));
			st->udp_fd = -1;
		}
	}
	r = pthread_create(&st->thread, NULL, engine, st);
	if (r != 0) {
		probe_free(st);
		return -r;
	}
	st->started = true;
	*state = st;
	return 0;
}

static const struct collector_flag probe_flags[PROBE_FLAG_COUNT_] = {
	[PROBE_FLAG_INTERVAL] =
		{
			.name = "interval",
			.help = "Time between probe rounds. Default 10s.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 10000,
			.min = 100,
			.max = 3600 * 1000,
		},
	[PROBE_FLAG_COUNT] =
		{
			.name = "count",
			.help = "Probes per target per round. Default 5.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 5,
			.min = 1,
			.max = 1000,
		},
	[PROBE_FLAG_TIMEOUT] =
		{
			.name = "timeout",
			.help = "Time to wait for one probe's reply. Default 1s.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 1000,
			.min = 1,
			.max = 60 * 1000,
		},
	[PROBE_FLAG_TARGETS_FILE] =
		{
			.name = "targets-file",
			.help = "Pingmesh peers, Prometheus file_sd JSON (host[:port] targets, "
				"labels); re-read when it changes and on SIGHUP. Without it only "
				"loopback probes run.",
			.kind = COLLECTOR_FLAG_PATH,
		},
	[PROBE_FLAG_MAX_TARGETS] =
		{
			.name = "max-targets",
			.help = "Peers probed per round at most; with more in the file, a "
				"sample that rotates every 5 minutes. Default 64.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 64,
			.min = 1,
			.max = 4096,
		},
	[PROBE_FLAG_PORT] =
		{
			.name = "port",
			.help = "UDP port of the probe discovery sideband, where peers ask for "
				"this node's probe QP; also the default port of targets. Default "
				"9879.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 9879,
			.min = 1,
			.max = 65535,
		},
	[PROBE_FLAG_RESPONDER] =
		{
			.name = "responder",
			.help = "Answer other nodes' probes and discovery queries. Default on.",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 1,
		},
};

const struct collector_ops probe_collector_ops = {
	.name = "probe",
	.help = "Active RDMA latency probes: loopback on every ACTIVE port and a pingmesh",
	.default_enabled = true,
	.flags = probe_flags,
	.n_flags = PROBE_FLAG_COUNT_,
	.init = probe_init,
	.collect = probe_collect,
	.reload = probe_reload,
	.free = probe_free,
};
