// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the probe engine's pacing and liveness decisions
 * (probe_pace.c) on a fake clock: probes spread over the round, one in
 * flight, what a round has not sent dropped; a peer resolved again after
 * PROBE_PACE_RESOLVE_AFTER unanswered probes in a row whatever the rounds;
 * and a simulation of a peer that restarts with a new QP while a node
 * probes it, for flag combinations across the accepted ranges, checking that
 * it answers again within probe_pace_recovery_bound_ms (the bound the docs
 * state).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "probe_pace.h"

#define MS 1000000ull
#define S  (1000 * MS)
#define T0 (3 * 86400 * S) /* a CLOCK_MONOTONIC reading of a host up for days */

static struct probe_pace_cfg cfg(uint64_t interval_ms, unsigned count, uint64_t timeout_ms)
{
	return (struct probe_pace_cfg){
		.interval_ns = interval_ms * MS, .timeout_ns = timeout_ms * MS, .count = count};
}

/* The defaults with answers: 5 probes 2 s apart, then nothing until the next round. */
static void test_spread(void **state)
{
	struct probe_pace_cfg c = cfg(10000, 5, 1000);
	struct probe_pace p = {0};

	(void)state;
	assert_true(probe_pace_due(&c, &p) == UINT64_MAX); /* no round yet */
	probe_pace_round(&c, &p, T0);
	for (unsigned i = 0; i < 5; i++) {
		uint64_t due = probe_pace_due(&c, &p);

		assert_true(due == T0 + i * 2 * S);
		probe_pace_take(&p);
		probe_pace_sent(&c, &p, due);
		assert_true(probe_pace_due(&c, &p) == UINT64_MAX); /* one in flight */
		assert_true(p.deadline_ns == due + S);
		probe_pace_reply(&p);
	}
	assert_true(probe_pace_due(&c, &p) == UINT64_MAX);
	probe_pace_round(&c, &p, T0 + 10 * S);
	assert_true(probe_pace_due(&c, &p) == T0 + 10 * S);
	/* A failed post takes its probe: the next waits for its own time. */
	probe_pace_take(&p);
	assert_true(probe_pace_due(&c, &p) == T0 + 12 * S);
}

/* count x timeout over the interval: one probe a timeout, the rest dropped at the next round. */
static void test_slow_timeouts(void **state)
{
	struct probe_pace_cfg c = cfg(1000, 5, 500);
	struct probe_pace p = {0};
	uint64_t now = T0, next_round = T0, sent = 0, stale = 0;

	(void)state;
	while (now < T0 + 10 * S) {
		if (now >= next_round) {
			probe_pace_round(&c, &p, now);
			next_round += S;
		}
		probe_pace_expire(&p, now);
		if (probe_pace_take_stale(&p))
			stale++;
		if (probe_pace_due(&c, &p) <= now) {
			probe_pace_take(&p);
			probe_pace_sent(&c, &p, now);
			sent++;
		}
		now += MS;
	}
	/* 2 a second, not 5; never more than one in flight. */
	assert_int_equal(sent, 20);
	/* Every third timeout, across round boundaries. */
	assert_int_equal(stale, 6);
}

static void test_liveness(void **state)
{
	struct probe_pace_cfg c = cfg(1000, 3, 100);
	struct probe_pace p = {0};

	(void)state;
	probe_pace_round(&c, &p, T0);
	assert_false(probe_pace_expire(&p, T0)); /* nothing in flight */
	for (int i = 0; i < 2; i++) {
		probe_pace_sent(&c, &p, T0);
		assert_false(probe_pace_expire(&p, T0 + 100 * MS - 1));
		assert_true(probe_pace_expire(&p, T0 + 100 * MS));
		assert_false(probe_pace_take_stale(&p));
	}
	/* A reply starts the count again. */
	probe_pace_sent(&c, &p, T0);
	probe_pace_reply(&p);
	assert_false(p.in_flight);
	for (int i = 0; i < 2; i++) {
		probe_pace_sent(&c, &p, T0);
		probe_pace_expire(&p, T0 + S);
	}
	assert_false(probe_pace_take_stale(&p));
	/* A send completed in error is unanswered too. */
	probe_pace_sent(&c, &p, T0);
	probe_pace_lost(&p);
	assert_false(p.in_flight);
	assert_true(probe_pace_take_stale(&p));
	assert_false(probe_pace_take_stale(&p)); /* taken: starts again */
	/* A new round keeps the probe in flight and the count. */
	probe_pace_sent(&c, &p, T0);
	probe_pace_round(&c, &p, T0 + S);
	assert_true(p.in_flight);
}

static void test_backoff_and_bound(void **state)
{
	(void)state;
	assert_int_equal(probe_pace_backoff_ms(10000, 0), 10000);
	assert_int_equal(probe_pace_backoff_ms(10000, 2), 40000);
	assert_int_equal(probe_pace_backoff_ms(10000, 3), 60000);
	assert_int_equal(probe_pace_backoff_ms(1000, 200), 60000);
	assert_int_equal(probe_pace_backoff_ms(3600000, 5), 3600000);
	/* The figures docs/pingmesh.md states. */
	assert_int_equal(probe_pace_recovery_bound_ms(10000, 5, 1000), 63000);
	assert_int_equal(probe_pace_recovery_bound_ms(1000, 5, 500), 60700);
	assert_int_equal(probe_pace_recovery_bound_ms(100, 1, 60000), 180400);
	assert_int_equal(probe_pace_recovery_bound_ms(3600000, 1, 1), 14400003);
}

/* ---- a peer that restarts ------------------------------------------------------------ */

enum sim_state { SIM_NEW, SIM_QUERY, SIM_WAIT, SIM_READY };

struct sim {
	struct probe_pace_cfg c;
	uint64_t interval_ms, timeout_ms;
	uint64_t down_ns, up_ns; /* the peer's exporter is stopped in [down, up) */
	/* the prober's view of the peer, as probe_engine.c and probe_resolve.c keep it */
	struct probe_pace p;
	enum sim_state rs;
	unsigned tries, fails;
	uint64_t qpn, deadline_ns, retry_ns, next_round;
	uint64_t first_reply_ns; /* after up_ns */
};

static bool peer_up(const struct sim *s, uint64_t now)
{
	return now < s->down_ns || now >= s->up_ns;
}

static uint64_t peer_qpn(const struct sim *s, uint64_t now)
{
	return now >= s->up_ns ? 2 : 1;
}

/* A discovery query sent at now: answered at once when the peer is up. */
static void sim_query(struct sim *s, uint64_t now)
{
	s->tries++;
	if (peer_up(s, now)) {
		s->rs = SIM_READY;
		s->qpn = peer_qpn(s, now);
		s->fails = 0;
		return;
	}
	s->rs = SIM_QUERY;
	s->deadline_ns = now + s->timeout_ms * MS;
}

static void sim_resolve(struct sim *s, uint64_t now)
{
	if (s->rs == SIM_WAIT && now >= s->retry_ns)
		s->rs = SIM_NEW;
	if (s->rs == SIM_NEW) {
		s->tries = 0;
		sim_query(s, now);
	} else if (s->rs == SIM_QUERY && now >= s->deadline_ns) {
		if (s->tries < PROBE_PACE_QUERY_TRIES) {
			sim_query(s, now);
		} else {
			s->rs = SIM_WAIT;
			s->retry_ns = now + probe_pace_backoff_ms(s->interval_ms, s->fails++) * MS;
		}
	}
}

/* One engine pass at now; returns the next time something is due. */
static uint64_t sim_step(struct sim *s, uint64_t now)
{
	uint64_t next = s->next_round, due;

	if (now >= s->next_round) {
		probe_pace_round(&s->c, &s->p, now);
		s->next_round += s->c.interval_ns;
		next = s->next_round;
	}
	probe_pace_expire(&s->p, now);
	if (probe_pace_take_stale(&s->p) && s->rs == SIM_READY) {
		s->rs = SIM_NEW;
		s->p.in_flight = false;
	}
	sim_resolve(s, now);
	due = probe_pace_due(&s->c, &s->p);
	if (s->rs == SIM_READY && due <= now) {
		probe_pace_take(&s->p);
		probe_pace_sent(&s->c, &s->p, now);
		if (peer_up(s, now) && s->qpn == peer_qpn(s, now)) {
			probe_pace_reply(&s->p); /* a round trip of no time */
			if (now >= s->up_ns && !s->first_reply_ns)
				s->first_reply_ns = now;
		}
		due = probe_pace_due(&s->c, &s->p);
	}
	if (s->rs == SIM_READY && due < next)
		next = due;
	if (s->p.in_flight && s->p.deadline_ns < next)
		next = s->p.deadline_ns;
	if (s->rs == SIM_QUERY && s->deadline_ns < next)
		next = s->deadline_ns;
	if (s->rs == SIM_WAIT && s->retry_ns < next)
		next = s->retry_ns;
	return next > now ? next : now + 1;
}

/* Time (ms) from the peer's restart to its first reply. */
static uint64_t recovery_ms(uint64_t interval_ms, unsigned count, uint64_t timeout_ms,
			    uint64_t down_at_ms, uint64_t down_for_ms)
{
	struct sim s = {.c = cfg(interval_ms, count, timeout_ms),
			.interval_ms = interval_ms,
			.timeout_ms = timeout_ms,
			.rs = SIM_NEW,
			.next_round = T0 + interval_ms * MS};
	uint64_t now = T0, limit;

	s.down_ns = T0 + down_at_ms * MS;
	s.up_ns = s.down_ns + down_for_ms * MS;
	limit = s.up_ns + 10 * probe_pace_recovery_bound_ms(interval_ms, count, timeout_ms) * MS;
	probe_pace_round(&s.c, &s.p, T0); /* a new peer is probed at once */
	while (!s.first_reply_ns && now < limit)
		now = sim_step(&s, now);
	assert_true(s.first_reply_ns != 0);
	return (s.first_reply_ns - s.up_ns + MS - 1) / MS;
}

static void test_restart_recovers_within_bound(void **state)
{
	static const struct {
		uint64_t interval_ms;
		unsigned count;
		uint64_t timeout_ms;
	} flags[] = {
		{10000, 5, 1000},   /* the defaults */
		{1000, 5, 500},	    /* the issue's: count x timeout over the interval */
		{1000, 3, 300},	    /* the VM mesh test's */
		{100, 1, 1},	    /* the smallest of each */
		{100, 1000, 60000}, /* the largest count and timeout on the smallest interval */
		{3600000, 1000, 60000},
		{3600000, 1, 1},
		{100, 1000, 1},
		{5000, 7, 3000},
	};
	static const uint64_t down_for[] = {1, 250, 1500, 5000, 30000, 95000, 600000};
	uint64_t worst[sizeof(flags) / sizeof(flags[0])] = {0};

	(void)state;
	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		uint64_t bound = probe_pace_recovery_bound_ms(flags[f].interval_ms, flags[f].count,
							      flags[f].timeout_ms);

		for (size_t d = 0; d < sizeof(down_for) / sizeof(down_for[0]); d++) {
			/* at phases across two rounds */
			for (uint64_t ph = 0; ph < 16; ph++) {
				uint64_t at = 30000 + ph * flags[f].interval_ms / 8 + ph * 37;
				uint64_t r = recovery_ms(flags[f].interval_ms, flags[f].count,
							 flags[f].timeout_ms, at, down_for[d]);

				if (r > bound)
					fail_msg("interval %llu ms count %u timeout %llu ms, down "
						 "%llu ms at %llu ms: answered after %llu ms, "
						 "bound %llu ms",
						 (unsigned long long)flags[f].interval_ms,
						 flags[f].count,
						 (unsigned long long)flags[f].timeout_ms,
						 (unsigned long long)down_for[d],
						 (unsigned long long)at, (unsigned long long)r,
						 (unsigned long long)bound);
				if (r > worst[f])
					worst[f] = r;
			}
		}
		printf("restart: interval %llu ms count %u timeout %llu ms: worst %llu ms, bound "
		       "%llu ms\n",
		       (unsigned long long)flags[f].interval_ms, flags[f].count,
		       (unsigned long long)flags[f].timeout_ms, (unsigned long long)worst[f],
		       (unsigned long long)bound);
	}
}

/* The spin window: twice the recent RTT within [PROBE_PACE_SPIN_MIN_NS, cap];
 * the recent RTT follows a slower reply at once, a faster one by a quarter. */
static void test_spin_window(void **state)
{
	uint64_t r = 0;

	(void)state;
	assert_true(probe_pace_spin_window_ns(0, MS) == PROBE_PACE_SPIN_MIN_NS);
	assert_true(probe_pace_spin_window_ns(300000, MS) == 600000);
	assert_true(probe_pace_spin_window_ns(5 * MS, MS) == MS);
	assert_true(probe_pace_spin_window_ns(5 * MS, 0) == 0); /* --collector.probe.spin-max=0 */
	assert_true(probe_pace_spin_window_ns(0, 100000) == 100000); /* a cap below the floor */
	assert_true(probe_pace_spin_window_ns(UINT64_MAX, 100 * MS) == 100 * MS);
	r = probe_pace_recent_rtt(r, 40000);
	assert_true(r == 40000);
	r = probe_pace_recent_rtt(r, 2 * MS); /* one wake-up: at once */
	assert_true(r == 2 * MS);
	r = probe_pace_recent_rtt(r, 40000); /* back down by a quarter of the excess */
	assert_true(r == 2 * MS - (2 * MS - 40000) / 4);
	for (int i = 0; i < 100; i++)
		r = probe_pace_recent_rtt(r, 40000);
	assert_true(r >= 40000 && r < 41000);
}

/*
 * Whether the engine spins for the probe in flight. The engine's step reads
 * the clock once, then sends, and the send time is read just before the
 * post: a reading from before the send is no time elapsed. It was an
 * unsigned difference that wrapped, and the engine slept right after every
 * send (issue 30).
 */
static void test_spinning(void **state)
{
	struct probe_pace_cfg c = cfg(10000, 5, 1000);
	struct probe_pace p = {0};
	uint64_t step = T0, window = probe_pace_spin_window_ns(20000, MS);

	(void)state;
	assert_false(probe_pace_spinning(&p, step, window)); /* nothing in flight */
	probe_pace_round(&c, &p, step);
	probe_pace_take(&p);
	probe_pace_sent(&c, &p, step + 3000); /* posted 3 us after the step's reading */
	assert_true(probe_pace_spinning(&p, step, window));
	assert_true(probe_pace_spinning(&p, step + 3000, window));
	assert_true(probe_pace_spinning(&p, step + 3000 + window - 1, window));
	assert_false(probe_pace_spinning(&p, step + 3000 + window, window));
	assert_false(probe_pace_spinning(&p, step, 0)); /* spin-max=0 */
	probe_pace_reply(&p);
	assert_false(probe_pace_spinning(&p, step + 3000, window));
}

/* The wake-up before each probe: sent first, the probe right after its reply,
 * or when its wait ends without one; off, the probe goes at once. */
static void test_wakeup_flow(void **state)
{
	struct probe_wake w = {0};

	(void)state;
	/* off (--collector.probe.spin-max=0): never a wake-up */
	assert_int_equal(probe_wake_due(&w, 0, 1000), PROBE_WAKE_SEND_PROBE);

	/* answered: wake-up, wait, probe after the reply, then a wake-up again */
	assert_int_equal(probe_wake_due(&w, 1, 1000), PROBE_WAKE_SEND_WAKEUP);
	probe_wake_sent(&w, 1100, 10000);
	assert_true(w.waking);
	assert_int_equal(w.sent_ns, 1100);
	assert_int_equal(probe_wake_due(&w, 1, 1200), PROBE_WAKE_WAIT);
	assert_int_equal(probe_wake_due(&w, 1, 11099), PROBE_WAKE_WAIT);
	probe_wake_answered(&w);
	assert_false(w.waking);
	assert_int_equal(probe_wake_due(&w, 1, 1300), PROBE_WAKE_SEND_PROBE);
	probe_wake_reset(&w); /* the probe was taken */
	assert_int_equal(probe_wake_due(&w, 1, 2000), PROBE_WAKE_SEND_WAKEUP);

	/* unanswered: the probe goes when the wait ends, not before */
	probe_wake_sent(&w, 2000, 500);
	assert_int_equal(probe_wake_due(&w, 1, 2499), PROBE_WAKE_WAIT);
	assert_int_equal(probe_wake_due(&w, 1, 2500), PROBE_WAKE_SEND_PROBE);
	assert_false(w.waking);
	probe_wake_reset(&w);

	/* a peer that cannot be probed (resolving, port closed) drops the wake-up */
	probe_wake_sent(&w, 3000, 500);
	probe_wake_reset(&w);
	assert_int_equal(probe_wake_due(&w, 1, 3100), PROBE_WAKE_SEND_WAKEUP);
	probe_wake_reset(&w);

	/* --collector.probe.warmups=3: three wake-ups, each after the previous
	 * one's reply, then the probe; a lost one lets the probe go */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(probe_wake_due(&w, 3, 4000 + i), PROBE_WAKE_SEND_WAKEUP);
		probe_wake_sent(&w, 4000 + i, 500);
		assert_int_equal(probe_wake_due(&w, 3, 4100 + i), PROBE_WAKE_WAIT);
		probe_wake_answered(&w);
	}
	assert_int_equal(w.answered, 3);
	assert_int_equal(probe_wake_due(&w, 3, 4200), PROBE_WAKE_SEND_PROBE);
	probe_wake_reset(&w);
	assert_int_equal(w.answered, 0);
	assert_int_equal(probe_wake_due(&w, 3, 5000), PROBE_WAKE_SEND_WAKEUP);
	probe_wake_sent(&w, 5000, 500);
	probe_wake_answered(&w);
	assert_int_equal(probe_wake_due(&w, 3, 5100), PROBE_WAKE_SEND_WAKEUP);
	probe_wake_sent(&w, 5100, 500);
	assert_int_equal(probe_wake_due(&w, 3, 5600), PROBE_WAKE_SEND_PROBE);
}

/* The poll a wake-up asks of its responder: its default when it asks for
 * nothing (an older prober), never longer than that default. */
static void test_responder_spin_ns(void **state)
{
	(void)state;
	assert_int_equal(probe_pace_responder_spin_ns(0), PROBE_PACE_RESPONDER_SPIN_NS);
	assert_int_equal(probe_pace_responder_spin_ns(200), 200000);
	assert_int_equal(probe_pace_responder_spin_ns(500), 500000);
	assert_int_equal(probe_pace_responder_spin_ns(501), PROBE_PACE_RESPONDER_SPIN_NS);
	assert_int_equal(probe_pace_responder_spin_ns(UINT32_MAX), PROBE_PACE_RESPONDER_SPIN_NS);
}

/* The loopback responder's window (probe_loop.c): closed until a wake-up
 * is answered, then open for as long as it asks (its default when it asks
 * nothing, PROBE_PACE_LOOP_SPIN_NS at most) or until the probe after it is
 * answered. */
static void test_loop_window(void **state)
{
	struct probe_loop_window w = {0};

	(void)state;
	assert_false(probe_loop_window_open(&w, 0));
	/* a probe without a wake-up (spin-max 0) opens nothing */
	probe_loop_window_answered(&w, false, 0, 100);
	assert_false(probe_loop_window_open(&w, 100));
	/* a wake-up at 1000 asking 300 us: open until 301000 */
	probe_loop_window_answered(&w, true, 300, 1000);
	assert_true(probe_loop_window_open(&w, 1000));
	assert_true(probe_loop_window_open(&w, 300999));
	assert_false(probe_loop_window_open(&w, 301000));
	/* the probe after it closes it at once */
	probe_loop_window_answered(&w, true, 300, 2000);
	probe_loop_window_answered(&w, false, 0, 5000);
	assert_false(probe_loop_window_open(&w, 5001));
	/* asking nothing: the responders' default; asking more: the cap */
	probe_loop_window_answered(&w, true, 0, 0);
	assert_true(probe_loop_window_open(&w, PROBE_PACE_RESPONDER_SPIN_NS - 1));
	assert_false(probe_loop_window_open(&w, PROBE_PACE_RESPONDER_SPIN_NS));
	probe_loop_window_answered(&w, true, UINT32_MAX, 0);
	assert_true(probe_loop_window_open(&w, PROBE_PACE_LOOP_SPIN_NS - 1));
	assert_false(probe_loop_window_open(&w, PROBE_PACE_LOOP_SPIN_NS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_slow_timeouts),
		cmocka_unit_test(test_liveness),
		cmocka_unit_test(test_backoff_and_bound),
		cmocka_unit_test(test_restart_recovers_within_bound),
		cmocka_unit_test(test_spin_window),
		cmocka_unit_test(test_spinning),
		cmocka_unit_test(test_wakeup_flow),
		cmocka_unit_test(test_responder_spin_ns),
		cmocka_unit_test(test_loop_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
