// SPDX-License-Identifier: Apache-2.0
/* The probe engine's pacing and liveness decisions (see probe_pace.h): pure. */
#include "probe_pace.h"

void probe_pace_round(const struct probe_pace_cfg *c, struct probe_pace *p, uint64_t now_ns)
{
	p->round_ns = now_ns;
	p->remaining = c->count;
}

uint64_t probe_pace_due(const struct probe_pace_cfg *c, const struct probe_pace *p)
{
	unsigned taken;

	if (p->in_flight || p->remaining == 0 || c->count == 0)
		return UINT64_MAX;
	taken = c->count - (p->remaining < c->count ? p->remaining : c->count);
	/* interval <= 1 h in ns and count <= 1000: the product fits in 64 bits */
	return p->round_ns + c->interval_ns / c->count * taken;
}

void probe_pace_take(struct probe_pace *p)
{
	if (p->remaining)
		p->remaining--;
}

void probe_pace_sent(const struct probe_pace_cfg *c, struct probe_pace *p, uint64_t now_ns)
{
	p->in_flight = true;
	p->sent_ns = now_ns;
	p->deadline_ns = now_ns + c->timeout_ns;
}

void probe_pace_reply(struct probe_pace *p)
{
	p->in_flight = false;
	p->unanswered = 0;
}

void probe_pace_lost(struct probe_pace *p)
{
	p->in_flight = false;
	p->unanswered++;
}

bool probe_pace_expire(struct probe_pace *p, uint64_t now_ns)
{
	if (!p->in_flight || now_ns < p->deadline_ns)
		return false;
	probe_pace_lost(p);
	return true;
}

bool probe_pace_take_stale(struct probe_pace *p)
{
	if (p->unanswered < PROBE_PACE_RESOLVE_AFTER)
		return false;
	p->unanswered = 0;
	return true;
}

uint64_t probe_pace_backoff_ms(uint64_t interval_ms, unsigned fails)
{
	uint64_t cap =
		interval_ms > PROBE_PACE_BACKOFF_MAX_MS ? interval_ms : PROBE_PACE_BACKOFF_MAX_MS;
	uint64_t d = interval_ms << (fails < 16 ? fails : 16);

	return d < cap ? d : cap;
}

uint64_t probe_pace_recovery_bound_ms(uint64_t interval_ms, unsigned count, uint64_t timeout_ms)
{
	uint64_t s = count ? interval_ms / count + (interval_ms % count != 0) : interval_ms;
	uint64_t b =
		interval_ms > PROBE_PACE_BACKOFF_MAX_MS ? interval_ms : PROBE_PACE_BACKOFF_MAX_MS;
	uint64_t stale = PROBE_PACE_RESOLVE_AFTER * timeout_ms + (PROBE_PACE_RESOLVE_AFTER + 1) * s;
	uint64_t waited = timeout_ms + b + s;

	return stale > waited ? stale : waited;
}

uint64_t probe_pace_recent_rtt(uint64_t recent_ns, uint64_t rtt_ns)
{
	if (rtt_ns >= recent_ns)
		return rtt_ns;
	return recent_ns - (recent_ns - rtt_ns) / 4;
}

uint64_t probe_pace_spin_window_ns(uint64_t recent_ns, uint64_t cap_ns)
{
	uint64_t w = recent_ns < (1ull << 62) ? 2 * recent_ns : UINT64_MAX;

	if (w < PROBE_PACE_SPIN_MIN_NS)
		w = PROBE_PACE_SPIN_MIN_NS;
	return w < cap_ns ? w : cap_ns;
}

bool probe_pace_spinning(const struct probe_pace *p, uint64_t now_ns, uint64_t window_ns)
{
	if (!p->in_flight || window_ns == 0)
		return false;
	/* A reading from before the send: no time has passed yet. An unsigned
	 * now_ns - sent_ns there wraps to ~2^64 and stopped the spin right
	 * after every send (issue 30). */
	if (now_ns <= p->sent_ns)
		return true;
	return now_ns - p->sent_ns < window_ns;
}

enum probe_wake_next probe_wake_due(struct probe_wake *w, unsigned n, uint64_t now_ns)
{
	if (!n || (w->woken && w->answered >= n))
		return PROBE_WAKE_SEND_PROBE;
	if (w->woken) {
		w->woken = false;
		return PROBE_WAKE_SEND_WAKEUP;
	}
	if (!w->waking)
		return PROBE_WAKE_SEND_WAKEUP;
	if (now_ns < w->deadline_ns)
		return PROBE_WAKE_WAIT;
	w->waking = false; /* lost or slow: the probe goes anyway */
	return PROBE_WAKE_SEND_PROBE;
}

void probe_wake_sent(struct probe_wake *w, uint64_t posted_ns, uint64_t wait_ns)
{
	w->waking = true;
	w->woken = false;
	w->sent_ns = posted_ns;
	w->deadline_ns = posted_ns + wait_ns;
}

void probe_wake_answered(struct probe_wake *w)
{
	w->waking = false;
	w->woken = true;
	if (w->answered < UINT8_MAX)
		w->answered++;
}

void probe_wake_reset(struct probe_wake *w)
{
	w->waking = false;
	w->woken = false;
	w->answered = 0;
}

uint64_t probe_pace_responder_spin_ns(uint32_t spin_us)
{
	uint64_t ns = (uint64_t)spin_us * 1000u;

	return ns == 0 || ns > PROBE_PACE_RESPONDER_SPIN_NS ? PROBE_PACE_RESPONDER_SPIN_NS : ns;
}

void probe_loop_window_answered(struct probe_loop_window *w, bool wakeup, uint32_t spin_us,
				uint64_t now_ns)
{
	uint64_t ns = (uint64_t)spin_us * 1000u;

	if (!wakeup) {
		w->until_ns = 0;
		return;
	}
	if (ns == 0)
		ns = PROBE_PACE_RESPONDER_SPIN_NS;
	w->until_ns = now_ns + (ns > PROBE_PACE_LOOP_SPIN_NS ? PROBE_PACE_LOOP_SPIN_NS : ns);
}

bool probe_loop_window_open(const struct probe_loop_window *w, uint64_t now_ns)
{
	return now_ns < w->until_ns;
}
