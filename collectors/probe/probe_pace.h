/* SPDX-License-Identifier: Apache-2.0 */
/*
 * When the engine sends a peer its probes, and when it gives up on the QP
 * it knows for that peer: pure, on a clock the caller passes (ns), so the
 * per-peer state machine runs in unit tests on a fake clock.
 *
 * A round is --collector.probe.interval long and gives each peer `count`
 * probes, spread evenly over it: probe i (0-based) is due at
 *
 *   round start + i x interval / count,
 *
 * one in flight per peer at a time. A probe whose time comes while the
 * previous one is in flight is sent when that one is answered or times out;
 * what a round has not sent when the next starts is dropped, never queued.
 * So when count x timeout exceeds the interval, a silent peer gets one probe
 * per timeout (not count per interval), and an answering one count per
 * interval, whatever the flags.
 *
 * A peer that leaves PROBE_PACE_RESOLVE_AFTER probes in a row unanswered
 * (timed out, or failed in the send's completion) is resolved again: its
 * exporter may have restarted with another QP number. The count does not
 * depend on rounds: one reply resets it.
 */
#ifndef RDMA_EXPORTER_PROBE_PACE_H
#define RDMA_EXPORTER_PROBE_PACE_H

#include <stdbool.h>
#include <stdint.h>

#define PROBE_PACE_RESOLVE_AFTER  3	   /* unanswered probes in a row */
#define PROBE_PACE_BACKOFF_MAX_MS 60000ull /* or one interval, if longer */
#define PROBE_PACE_QUERY_TRIES	  3	   /* discovery queries, a timeout apart */

struct probe_pace_cfg {
	uint64_t interval_ns, timeout_ns;
	unsigned count; /* >= 1 */
};

/* One peer's probing state. Zeroed: no round yet, nothing in flight. */
struct probe_pace {
	uint64_t round_ns;    /* start of the peer's current round */
	unsigned remaining;   /* probes of the round not yet taken */
	bool in_flight;	      /* a probe waits for its reply */
	uint64_t sent_ns;     /* when it was sent */
	uint64_t deadline_ns; /* when it times out */
	unsigned unanswered;  /* probes in a row without a reply */
};

/* A new round starts at now_ns: count probes to take; one in flight stays. */
void probe_pace_round(const struct probe_pace_cfg *c, struct probe_pace *p, uint64_t now_ns);

/* When the next probe may be sent (ns; <= now: at once), UINT64_MAX when
 * none: one in flight, or the round's all taken. */
uint64_t probe_pace_due(const struct probe_pace_cfg *c, const struct probe_pace *p);

/* The next probe is taken at now_ns (sent or not: a failed post is not
 * retried before its successor's time). */
void probe_pace_take(struct probe_pace *p);

/* The probe taken was posted at now_ns: in flight until its timeout. */
void probe_pace_sent(const struct probe_pace_cfg *c, struct probe_pace *p, uint64_t now_ns);

/* Its reply came: nothing in flight, the unanswered count starts again. */
void probe_pace_reply(struct probe_pace *p);

/* It is lost (its send completed in error): nothing in flight, one more unanswered. */
void probe_pace_lost(struct probe_pace *p);

/* Times out the probe in flight when its deadline has come; returns whether it did. */
bool probe_pace_expire(struct probe_pace *p, uint64_t now_ns);

/* Whether the peer is to be resolved again (PROBE_PACE_RESOLVE_AFTER unanswered
 * in a row); when it is, the count starts again. */
bool probe_pace_take_stale(struct probe_pace *p);

/* The wait (ms) after the fails-th failed resolve in a row (fails from 0):
 * interval x 2^fails, at most max(interval, PROBE_PACE_BACKOFF_MAX_MS). */
uint64_t probe_pace_backoff_ms(uint64_t interval_ms, unsigned fails);

/*
 * The longest time (ms) from a peer's exporter answering again (restarted,
 * with a new QP number) to its first reply, the round trips themselves and
 * lost discovery datagrams aside, with t = timeout, s = interval / count and
 * B = max(interval, 60 s):
 *
 *   max(R x t + (R + 1) x s, t + B + s),  R = PROBE_PACE_RESOLVE_AFTER
 *
 * R x t + (R + 1) x s: the peer was resolved to its old QP; the next probe
 * goes at most s later, then R unanswered probes, each sent at most s after
 * the previous one's timeout, one query answered, and the first probe to the
 * new QP at most s later. t + B + s: it was being resolved while the
 * exporter was down; a query sent just before is lost (t), the backoff
 * waits at most B, then s to the first probe.
 */
uint64_t probe_pace_recovery_bound_ms(uint64_t interval_ms, unsigned count, uint64_t timeout_ms);

/*
 * Spinning around a probe. After posting a probe (and a wake-up request,
 * see probe_engine.c) the engine polls its CQs without blocking for a
 * window, so that a reply is read when it lands and not a thread wake-up
 * later; then it arms the completion channel and sleeps. The window is
 * twice the peer's recent RTT, at least PROBE_PACE_SPIN_MIN_NS, at most
 * cap_ns (--collector.probe.spin-max; 0: never spin). The recent RTT
 * follows a slower reply at once and a faster one slowly (it loses a
 * quarter of its excess per reply), so one fast reply does not shrink the
 * window below the RTTs the peer usually has.
 */
#define PROBE_PACE_SPIN_MIN_NS 200000ull

uint64_t probe_pace_recent_rtt(uint64_t recent_ns, uint64_t rtt_ns);
uint64_t probe_pace_spin_window_ns(uint64_t recent_ns, uint64_t cap_ns);

/* Whether the engine still spins for the probe in flight, sent at
 * p->sent_ns: now_ns may be a reading taken before the send (a step's
 * clock), which counts as no time elapsed, never as a wrapped difference. */
bool probe_pace_spinning(const struct probe_pace *p, uint64_t now_ns, uint64_t window_ns);

/*
 * The wake-up before a probe (issue 30). When a probe is due and wake-ups
 * are on, a wake-up request goes first (PROBE_WAKE_SEND_WAKEUP); the probe
 * goes as soon as the wake-up's reply came (PROBE_WAKE_SEND_PROBE), or when
 * the wait for it ended (a peer that does not answer it is probed anyway);
 * until then PROBE_WAKE_WAIT. Zeroed: nothing in flight.
 */
struct probe_wake {
	bool waking;	      /* a wake-up request is in flight */
	bool woken;	      /* its reply came: the next wake-up or the probe goes now */
	uint8_t answered;     /* wake-ups answered before this probe */
	uint64_t sent_ns;     /* when it was posted */
	uint64_t deadline_ns; /* when the probe goes without its reply */
};

enum probe_wake_next {
	PROBE_WAKE_SEND_PROBE,
	PROBE_WAKE_SEND_WAKEUP,
	PROBE_WAKE_WAIT,
};

/*
 * How long a responder polls after answering a wake-up that asked for
 * spin_us: the prober asks for its spin window for that responder (twice
 * its recent RTT, PROBE_PACE_SPIN_MIN_NS to --collector.probe.spin-max),
 * which covers the reply's way back, the prober's post and the probe's way
 * there. 0 (an older prober) gets PROBE_PACE_RESPONDER_SPIN_NS; a request is
 * cut to that too, so that no prober makes a responder spin longer than it
 * would have before.
 */
#define PROBE_PACE_RESPONDER_SPIN_NS 500000ull

uint64_t probe_pace_responder_spin_ns(uint32_t spin_us);

/* A probe is due at now_ns: what to send, if anything, when n wake-ups (one
 * after the other's reply) go before each probe; n = 0: none. A wake-up not
 * answered in its wait lets the probe go. */
enum probe_wake_next probe_wake_due(struct probe_wake *w, unsigned n, uint64_t now_ns);

/* The wake-up request was posted at posted_ns; the probe waits for its reply
 * at most wait_ns. */
void probe_wake_sent(struct probe_wake *w, uint64_t posted_ns, uint64_t wait_ns);

/* Its reply came. */
void probe_wake_answered(struct probe_wake *w);

/* The probe was taken (sent or not), or the peer cannot be probed now:
 * the next probe starts with a wake-up again. */
void probe_wake_reset(struct probe_wake *w);

/*
 * The loopback responder's polling window (probe_loop.c): the second thread
 * that answers a port's loopback probes sleeps on its completion channel
 * and busy-polls only after it answered a wake-up request, until it
 * answered the probe that follows (the engine sends it right after the
 * wake-up's reply) or for as long as the wake-up asks (spin_us: the
 * engine's own spin window for its loopback, at most --collector.probe.spin-max),
 * PROBE_PACE_LOOP_SPIN_NS at most; a wake-up that asks nothing gets
 * PROBE_PACE_RESPONDER_SPIN_NS. So the thread spins no longer per probe
 * than the engine does. Zeroed: closed.
 */
#define PROBE_PACE_LOOP_SPIN_NS 10000000ull

struct probe_loop_window {
	uint64_t until_ns; /* poll while now is before this */
};

/* A request was answered at now_ns: a wake-up (asking spin_us) opens the
 * window, a probe closes it. */
void probe_loop_window_answered(struct probe_loop_window *w, bool wakeup, uint32_t spin_us,
				uint64_t now_ns);
bool probe_loop_window_open(const struct probe_loop_window *w, uint64_t now_ns);

#endif
