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
