// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's engine thread (see probe.h, probe_internal.h). It
 * owns every verbs object, the sideband socket and the target list; the
 * collector thread only reads the numbers, under st->lock. Probe failures are
 * data (rdma_probe_errors_total, rdma_probe_timeouts_total), never a log line
 * per probe.
 *
 * One event loop: poll() on the stop eventfd, the sideband socket and every
 * port's completion channel, with a timeout at the next due event (a probe
 * to send or time out, a round, the next second's sync). After a send it
 * spins on the CQs (polls them without blocking) for the peer's spin window
 * (probe_pace_spin_window_ns: twice its recent RTT, 200 us at least,
 * --collector.probe.spin-max at most) before it sleeps again, so a
 * microsecond RTT is not measured as a thread wake-up; for loopback the
 * same loop answers the request while it spins, or, with
 * --collector.probe.loopback-thread, the port's loopback responder thread
 * (probe_loop.h) does, on its own QP.
 *
 * A remote peer's responder sleeps between probes too, and its wake-up
 * would stay in the RTT (software readings cannot see it). So each remote
 * probe is preceded by a wake-up request (PROBE_PACKET_F_WAKEUP): the probe
 * is sent as soon as its reply is in, while that responder still polls
 * (probe_responder_spin), or after WAKE_WAIT_MAX_NS without one. The
 * wake-up's own RTT is not measured.
 */
#include "base/clock.h"
#include "probe_internal.h"

#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "base/log.h"
#include "probe_packet.h"

#define SYNC_PERIOD_MS 1000
/* With no verbs device at all, the device list is looked at this often (a
 * list costs a netlink socket and a sysfs walk in libibverbs), and without a
 * targets file or name the engine then sleeps as long (a wake-up a second was
 * a sixth of an idle exporter's CPU); with a device, every SYNC_PERIOD_MS, so
 * that a device being removed is let go within a second. */
#define IDLE_PORTS_PERIOD_MS 10000
/* The longest a probe waits for its wake-up's reply (or the timeout, if
 * shorter): a lost wake-up delays its probe by this much, no more. */
#define WAKE_WAIT_MAX_NS 10000000ull

static struct peer *peer_by_seq(struct probe_state *st, uint64_t seq)
{
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used && st->peers[i].pace.in_flight && st->peers[i].seq == seq)
			return &st->peers[i];
	return NULL;
}

static struct peer *wakeup_by_seq(struct probe_state *st, uint64_t seq)
{
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used && st->peers[i].wake.waking && st->peers[i].wake_seq == seq)
			return &st->peers[i];
	return NULL;
}

static void on_recv(void *arg, struct probe_port *p, const struct probe_rx *rx)
{
	struct probe_state *st = arg;
	struct slot *s = (struct slot *)((char *)p - offsetof(struct slot, p));
	struct probe_packet got;
	/* The poll that returned it, not now: the receive time of a software
	 * round trip, and the responder's first reading (completions of one
	 * poll are handled one after another). */
	uint64_t now = rx->poll_ns ? rx->poll_ns : clock_mono_ns();

	if (probe_packet_decode(rx->data, rx->len, &got) < 0) {
		s->dropped[D_MALFORMED]++;
		return;
	}
	if (got.type == PROBE_PACKET_REQUEST) {
		probe_answer_request(st, s, rx, now, (got.flags & PROBE_PACKET_F_WAKEUP) != 0,
				     got.spin_us);
		return;
	}
	if (got.flags & PROBE_PACKET_F_WAKEUP) {
		struct peer *pe = got.session == st->session ? wakeup_by_seq(st, got.seq) : NULL;

		if (!pe || pe->slot != (int)(s - st->slots)) {
			s->dropped[D_UNEXPECTED]++;
			return;
		}
		probe_wake_answered(&pe->wake); /* step_peers sends the probe in this pass */
		return;
	}
	{
		struct peer *pe = got.session == st->session ? peer_by_seq(st, got.seq) : NULL;

		if (!pe || pe->slot != (int)(s - st->slots)) {
			s->dropped[D_UNEXPECTED]++;
			return;
		}
		probe_pace_reply(&pe->pace);
		pe->replies++;
		/* NIC clock when both ends of the round trip have it; the send's
		 * completion is normally polled before the reply. */
		probe_peer_record_reply(pe, s,
					p->hw_ts && pe->have_sent_ts
						? probe_port_ts_delta_ns(p, pe->sent_ts, rx->ts)
						: now - pe->pace.sent_ns,
					&got);
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
		probe_pace_lost(&pe->pace);
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

/* Under lock: drains every open port; returns the completions handled. A
 * port whose CQ or QP failed is returned in *failed for closing. */
static int drain_all(struct probe_state *st, int *failed)
{
	const struct probe_port_handler h = {on_recv, on_send_error, on_send_done, st};
	int total = 0;

	*failed = -1;
	for (int i = 0; i < MAX_SLOTS; i++) {
		struct slot *s = &st->slots[i];
		const char *what = "";
		int n;

		if (!s->used || !s->open)
			continue;
		n = probe_port_drain(&s->p, &h, &what);
		if (n < 0) {
			st->peers[s->loop]
				.errors[strcmp(what, "completion") == 0 ? R_COMPLETION : R_POLL]++;
			*failed = i;
			return total;
		}
		total += n;
	}
	return total;
}

/*
 * While spinning, up to SPIN_PASSES passes of the loop only drain the CQs:
 * no clock read (in a VM whose clocksource traps, each costs microseconds,
 * tens of them under TCG, and would sit inside the RTT), no requests
 * looked at. A completion, or the last pass, goes back to a full step,
 * which reads the clock and decides whether to keep spinning.
 */
#define SPIN_PASSES 16

static void spin_passes(struct probe_state *st, int *failed)
{
	*failed = -1;
	for (int i = 0; i < SPIN_PASSES; i++) {
		int n;

		pthread_mutex_lock(&st->lock);
		n = drain_all(st, failed);
		pthread_mutex_unlock(&st->lock);
		if (n > 0 || *failed >= 0)
			return;
	}
}

/* Under lock: the QP a loopback request of slot s goes to: its loopback
 * responder's (probe_loop.h), or own (the port's: the engine answers)
 * without one. What the responder did since the last request goes into the
 * port's numbers. */
static uint32_t loop_qpn(struct slot *s, uint32_t own)
{
	struct probe_loop_counts c;
	uint32_t qpn;

	if (!s->lr)
		return own;
	qpn = probe_loop_qpn(s->lr, &c);
	s->responder_requests += c.answered;
	s->dropped[D_SEND] += c.send_fail;
	s->dropped[D_UNEXPECTED] += c.unexpected;
	return qpn ? qpn : own;
}

/* Posts a request to pe (a probe, or a wake-up with PROBE_PACKET_F_WAKEUP);
 * returns its sequence number, or 0 when the post failed. *posted_ns: the
 * clock immediately before the post (probe_port_send), not the step's: the
 * resolves and posts of the peers before this one in the same step would
 * count in its RTT. */
static uint64_t post_request(struct probe_state *st, struct peer *pe, uint16_t flags,
			     uint64_t *posted_ns)
{
	struct slot *s = &st->slots[pe->slot];
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST,
				   .flags = flags,
				   .seq = ++st->seq & ~(PROBE_WR_SEND | PROBE_WR_REPLY),
				   .session = st->session};
	unsigned char pkt[PROBE_PACKET_LEN];
	struct ibv_ah *ah = pe->loopback ? s->p.self_ah : pe->ah;
	uint32_t qpn = pe->qpn;

	if (req.seq == 0)
		req.seq = ++st->seq & ~(PROBE_WR_SEND | PROBE_WR_REPLY);
	/* A wake-up asks the responder to poll for this engine's spin window
	 * (probe_pace_responder_spin_ns); before a first reply, its default. */
	if ((flags & PROBE_PACKET_F_WAKEUP) && pe->recent_rtt_ns)
		req.spin_us =
			(uint32_t)(probe_pace_spin_window_ns(pe->recent_rtt_ns, st->spin_max_ns) /
				   1000u);
	/* send_ns is informative (the RTT is taken from *posted_ns): the clock
	 * read before encoding, a few hundred ns before the post */
	req.send_ns = clock_mono_ns();
	probe_packet_encode(&req, pkt, sizeof(pkt));
	if (pe->loopback)
		qpn = loop_qpn(s, qpn);
	if (probe_port_send(&s->p, ah, qpn, pkt, req.seq, posted_ns) < 0)
		return 0;
	return req.seq;
}

static void send_probe(struct probe_state *st, struct peer *pe)
{
	uint64_t seq, posted_ns = 0;

	probe_pace_take(&pe->pace);
	probe_wake_reset(&pe->wake);
	seq = post_request(st, pe, 0, &posted_ns);
	if (!seq) {
		pe->errors[R_SEND]++;
		return;
	}
	pe->sent++;
	probe_pace_sent(&st->pace, &pe->pace, posted_ns);
	pe->have_sent_ts = false;
	pe->seq = seq;
}

/*
 * Whether pe's next probe is preceded by a wake-up: every peer, while the
 * engine spins at all. For a remote peer it wakes the responder's engine;
 * for loopback it warms this host's own send path: the first post after the
 * engine slept costs far more than the next one (in the Soft-RoCE VM 290 us
 * against 31 us, a minimal verbs program alike; issue 30), and that is the
 * host, not the device. The probe goes right after the wake-up's reply.
 */
static unsigned wakeups_before_probe(const struct probe_state *st)
{
	return st->spin_max_ns > 0 ? st->warmups : 0;
}

/* Under lock: a probe of pe is due at now. Sends its wake-up first, or the
 * probe once the wake-up's reply came or its wait ended. */
static void probe_due(struct probe_state *st, struct peer *pe, uint64_t now)
{
	uint64_t wait, posted_ns = 0;

	switch (probe_wake_due(&pe->wake, wakeups_before_probe(st), now)) {
	case PROBE_WAKE_WAIT:
		return;
	case PROBE_WAKE_SEND_PROBE:
		send_probe(st, pe);
		return;
	case PROBE_WAKE_SEND_WAKEUP:
		break;
	}
	pe->wake_seq = post_request(st, pe, PROBE_PACKET_F_WAKEUP, &posted_ns);
	if (!pe->wake_seq) {
		send_probe(st, pe); /* counted there if it fails too */
		return;
	}
	if (pe->slot >= 0)
		st->slots[pe->slot].wakeups_sent++;
	wait = st->pace.timeout_ns < WAKE_WAIT_MAX_NS ? st->pace.timeout_ns : WAKE_WAIT_MAX_NS;
	probe_wake_sent(&pe->wake, posted_ns, wait);
}

/* Under lock: a new round; each peer gets count probes, spread over it
 * (probe_pace.h). With --collector.probe.sample-rotation, the sample moves
 * when its epoch changes. */
static void start_round(struct probe_state *st, uint64_t now_ms)
{
	uint64_t now = clock_mono_ns();

	st->rounds++;
	if (st->rotation_ms) {
		uint64_t per = st->rotation_ms / st->interval_ms, w;

		w = st->rounds / (per ? per : 1);
		if (w != st->window) {
			st->window = w;
			probe_apply_sample(st);
		}
	}
	(void)now_ms;
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			probe_pace_round(&st->pace, &st->peers[i].pace, now);
}

/*
 * Under lock: times out the probe in flight; a remote peer that left
 * PROBE_PACE_RESOLVE_AFTER probes in a row unanswered may have restarted
 * with another QP, and is resolved again (whatever the round: the counter
 * does not depend on it).
 */
static void check_liveness(struct probe_state *st, struct peer *pe, uint64_t now)
{
	if (probe_pace_expire(&pe->pace, now))
		pe->timeouts++;
	if (!probe_pace_take_stale(&pe->pace) || pe->loopback || pe->rs != RS_READY)
		return;
	log_debug("probe peer stopped answering; asking it for its QP again",
		  "collector=probe target=%s qpn=%u", pe->target ? pe->target : "",
		  (unsigned)pe->qpn);
	probe_peer_unresolve(st, pe);
}

/* Under lock: moves the peer's resolution along (probe_resolve.c). */
static void step_resolve(struct probe_state *st, struct peer *pe, uint64_t now_ms)
{
	switch (pe->rs) {
	case RS_WAIT:
		if (pe->loopback || now_ms < pe->retry_at_ms)
			break;
		pe->rs = RS_NEW;
		/* fall through */
	case RS_NEW:
		probe_start_resolve(st, pe, now_ms);
		break;
	case RS_DNS:
		probe_check_dns(st, pe, now_ms);
		break;
	case RS_QUERY:
		if (now_ms < pe->query_deadline_ms)
			break;
		if (pe->query_tries < PROBE_PACE_QUERY_TRIES)
			probe_send_query(st, pe, now_ms);
		else
			probe_backoff(st, pe, now_ms);
		break;
	case RS_READY:
		break;
	}
}

/* Under lock: sends the peer's probe when due; returns when it is due
 * next (UINT64_MAX: not while it has no open port to leave from). */
static uint64_t step_probe(struct probe_state *st, struct peer *pe, uint64_t now)
{
	uint64_t due = probe_pace_due(&st->pace, &pe->pace);

	if (pe->rs != RS_READY || pe->slot < 0 || !st->slots[pe->slot].open) {
		probe_wake_reset(&pe->wake);
		return UINT64_MAX;
	}
	if (due > now)
		return due;
	probe_due(st, pe, now);
	return UINT64_MAX;
}

/* Under lock: whether to spin for the peer's wake-up or probe in flight,
 * into *spin; returns the earlier of their deadlines. */
static uint64_t step_in_flight(struct probe_state *st, struct peer *pe, uint64_t now, bool *spin)
{
	uint64_t next = UINT64_MAX, window;

	/* A peer that left its last probe unanswered is not spun for: a dead
	 * peer would cost a window per probe. */
	window = pe->pace.unanswered
			 ? 0
			 : probe_pace_spin_window_ns(pe->recent_rtt_ns, st->spin_max_ns);
	if (pe->wake.waking) {
		/* The wake-up's reply holds the responder's wake-up, which its
		 * RTT does not: spun for up to the cap. If this engine slept
		 * through it, its own wake-up could outlast the responder's
		 * polling, and the probe would meet a sleeping responder. */
		struct probe_pace w = {.in_flight = true, .sent_ns = pe->wake.sent_ns};

		if (window && probe_pace_spinning(&w, now, st->spin_max_ns))
			*spin = true;
		next = pe->wake.deadline_ns;
	}
	if (pe->pace.in_flight) {
		if (probe_pace_spinning(&pe->pace, now, window))
			*spin = true;
		if (pe->pace.deadline_ns < next)
			next = pe->pace.deadline_ns;
	}
	return next;
}

/* When the peer's resolution has something due (UINT64_MAX: nothing). */
static uint64_t resolve_due(const struct peer *pe, uint64_t now)
{
	if (pe->rs == RS_WAIT && !pe->loopback)
		return pe->retry_at_ms * 1000000ull;
	if (pe->rs == RS_QUERY)
		return pe->query_deadline_ms * 1000000ull;
	if (pe->rs == RS_DNS)
		return now + 10000000ull; /* look at getaddrinfo_a every 10 ms */
	return UINT64_MAX;
}

static uint64_t earlier(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
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
		check_liveness(st, pe, now);
		step_resolve(st, pe, now_ms);
		next = earlier(next, step_probe(st, pe, now));
		next = earlier(next, step_in_flight(st, pe, now, spin));
		next = earlier(next, resolve_due(pe, now));
	}
	return next;
}

/* Takes the requests of probe_reload (*hup) and probe_free; returns whether to stop. */
static bool take_requests(struct probe_state *st, bool *hup)
{
	bool stop;

	pthread_mutex_lock(&st->lock);
	stop = st->stop;
	*hup = st->hup;
	st->hup = false;
	pthread_mutex_unlock(&st->lock);
	return stop;
}

/* Under lock: starts a round when one is due and schedules the next. */
static void round_if_due(struct probe_state *st, uint64_t now_ms, uint64_t *next_round)
{
	if (now_ms < *next_round)
		return;
	start_round(st, now_ms);
	*next_round += st->interval_ms;
	if (*next_round < now_ms)
		*next_round = now_ms + st->interval_ms;
}

/*
 * Drains one sideband socket (under lock): an answer goes to the resolver
 * (probe_resolve.c), a query to the responder. Here, not in
 * probe_sideband.c, so that the resolver, which sends from the sideband's
 * sockets, and the sideband do not call each other.
 */
void probe_sideband_input(struct probe_state *st, const struct sideband *sb)
{
	for (int budget = 0; budget < 256; budget++) {
		unsigned char pkt[PROBE_DISC_LEN + 1];
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		struct probe_disc d;
		uint8_t key[PROBE_RL_KEY_MAX] = {0};
		ssize_t n = recvfrom(sb->fd, pkt, sizeof(pkt), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &fl);

		if (n < 0)
			return;
		if (probe_disc_decode(pkt, (size_t)n, &d) < 0) {
			st->disc_dropped[DD_MALFORMED]++;
			continue;
		}
		if (d.type == PROBE_DISC_ANSWER) {
			/* an answer to no query of ours in flight */
			if (!probe_take_answer(st, &d))
				st->disc_dropped[DD_UNEXPECTED]++;
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
		probe_answer_query(st, sb->fd, &d, (struct sockaddr *)&from, fl, sb->a.addr);
	}
}

/*
 * One pass under the lock: a round when due, the sideband's datagrams, the
 * completions, then what the peers have due; the CQs are armed when the
 * engine is about to sleep. Returns the time (ns) of the next peer event;
 * *spin as step_peers, *failed as drain_all.
 */
static uint64_t step_locked(struct probe_state *st, uint64_t now_ms, uint64_t *next_round,
			    unsigned udp_ready, bool *spin, int *failed)
{
	uint64_t next_ns;

	pthread_mutex_lock(&st->lock);
	round_if_due(st, now_ms, next_round);
	for (size_t i = 0; i < st->n_sb; i++)
		if (udp_ready & (1u << i))
			probe_sideband_input(st, &st->sb[i]);
	drain_all(st, failed);
	next_ns = step_peers(st, clock_mono_ns(), spin);
	*spin = *spin || probe_responder_spin(st, clock_mono_ns());
	if (!*spin && *failed < 0) {
		/* Arm, then drain again: a completion may have come in between. */
		for (int i = 0; i < MAX_SLOTS; i++)
			if (st->slots[i].used && st->slots[i].open)
				probe_port_arm(&st->slots[i].p);
		drain_all(st, failed);
	}
	pthread_mutex_unlock(&st->lock);
	return next_ns;
}

/* Closes a slot whose CQ or QP failed; the next sync opens it again. */
static void rebuild_slot(struct probe_state *st, struct slot *fs)
{
	/* Said once at warn; a port that keeps failing is counted in
	 * rdma_probe_errors_total, and logged at debug. */
	log_msg(fs->failures++ ? LOG_DEBUG : LOG_WARNING,
		fs->p.hw_ts ? "probe QP failed; it is rebuilt without NIC timestamps"
			    : "probe QP failed; it is rebuilt",
		"collector=probe device=%s port=%u", fs->device, fs->port);
	fs->no_hw_ts |= fs->p.hw_ts;
	probe_slot_close(st, fs);
}

/* The earliest of the next sync, the next round and the next peer event (ns,
 * rounded up to the next ms). */
static uint64_t wake_time_ms(uint64_t next_sync, uint64_t next_round, uint64_t next_ns)
{
	uint64_t wake_ms = next_sync < next_round ? next_sync : next_round;

	if (next_ns != UINT64_MAX && (next_ns + 999999) / 1000000 < wake_ms)
		wake_ms = (next_ns + 999999) / 1000000;
	return wake_ms;
}

static void clear_wakeup(struct probe_state *st)
{
	uint64_t v;

	if (read(st->stop_fd, &v, sizeof(v)) < 0)
		return; /* nothing was pending */
}

/*
 * Sleeps in poll() until wake_ms or an event: a stop or reload request, a
 * sideband datagram, a completion (whose event is taken here). Returns
 * which sideband sockets have input (bit i: st->sb[i]).
 */
static unsigned wait_events(struct probe_state *st, uint64_t wake_ms)
{
	struct pollfd fds[1 + PROBE_BIND_MAX + MAX_SLOTS];
	uint64_t now_ms = clock_mono_ms();
	int nfds = 0, timeout = wake_ms > now_ms ? (int)(wake_ms - now_ms) : 0;
	unsigned udp_ready = 0;
	int f0;

	fds[nfds++] = (struct pollfd){.fd = st->stop_fd, .events = POLLIN};
	for (size_t i = 0; i < st->n_sb; i++)
		fds[nfds++] = (struct pollfd){.fd = st->sb[i].fd, .events = POLLIN};
	f0 = nfds;
	for (int i = 0; i < MAX_SLOTS; i++)
		if (st->slots[i].used && st->slots[i].open)
			fds[nfds++] = (struct pollfd){.fd = probe_port_fd(&st->slots[i].p),
						      .events = POLLIN};
	poll(fds, (nfds_t)nfds, timeout);
	for (size_t i = 0; i < st->n_sb; i++)
		if (fds[1 + i].revents & POLLIN)
			udp_ready |= 1u << i;
	for (int i = 0, f = f0; i < MAX_SLOTS; i++)
		if (st->slots[i].used && st->slots[i].open && fds[f++].revents & POLLIN)
			probe_port_take_events(&st->slots[i].p);
	if (fds[0].revents & POLLIN)
		clear_wakeup(st);
	return udp_ready;
}

/* On stop: every port closed, every peer freed, DNS requests waited for. */
static void engine_teardown(struct probe_state *st)
{
	for (int i = 0; i < MAX_SLOTS; i++)
		if (st->slots[i].used)
			probe_slot_drop(st, &st->slots[i]);
	pthread_mutex_lock(&st->lock);
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			probe_peer_free(st, &st->peers[i]);
	pthread_mutex_unlock(&st->lock);
	probe_reap_graves(st, true);
	probe_dns_stop(st);
	probe_sideband_close_all(st);
}

void *probe_engine(void *arg)
{
	struct probe_state *st = arg;
	uint64_t next_round = clock_mono_ms() + st->interval_ms, next_sync = 0, next_ports = 0;
	unsigned udp_ready = 0;

	/* Not renamed like the other threads: the kernel files the QPs it makes
	 * under this thread's name, which `rdma res show qp` prints as comm, and
	 * operators look for rdma_exporter there. */
	for (;;) {
		uint64_t now_ms = clock_mono_ms(), next_ns;
		int failed;
		bool spin, hup;

		if (take_requests(st, &hup))
			break;
		if (now_ms >= next_sync || hup) {
			if (now_ms >= next_ports || hup)
				next_ports =
					now_ms + (probe_sync_ports(st) > 0 ? SYNC_PERIOD_MS
									   : IDLE_PORTS_PERIOD_MS);
			probe_sideband_sync(st);
			udp_ready = 0; /* the table may have changed */
			probe_check_targets_file(st, hup);
			probe_check_targets_dns(st, now_ms, hup);
			probe_reap_graves(st, false);
			next_sync = now_ms + SYNC_PERIOD_MS;
			/* No verbs device and no peers to learn of: nothing to look
			 * at before the next device check (a reload wakes it). */
			if (!st->targets_path && !st->dns_spec && next_ports > next_sync)
				next_sync = next_ports;
		}
		next_ns = step_locked(st, now_ms, &next_round, udp_ready, &spin, &failed);
		if (failed >= 0) {
			rebuild_slot(st, &st->slots[failed]);
			continue;
		}
		if (spin) {
			udp_ready = 0;
			spin_passes(st, &failed);
			if (failed >= 0)
				rebuild_slot(st, &st->slots[failed]);
			continue;
		}
		udp_ready = wait_events(st, wake_time_ms(next_sync, next_round, next_ns));
	}
	engine_teardown(st);
	return NULL;
}
