// SPDX-License-Identifier: Apache-2.0
/*
 * What this node answers to others: probe requests on its UD QPs and
 * discovery queries on the sideband, each rate-limited per source.
 */
#include "base/clock.h"
#include "probe_internal.h"

#include <string.h>

#include <infiniband/verbs.h>

#include "probe_packet.h"

/* Answers a discovery query that arrived for local address dst. */
void probe_answer_query(struct probe_state *st, int fd, const struct probe_disc *q,
			const struct sockaddr *from, socklen_t fl, const uint8_t *dst_gid)
{
	struct probe_disc a = {
		.type = PROBE_DISC_ANSWER, .nonce = q->nonce, .session = st->session};
	unsigned char pkt[PROBE_DISC_LEN];
	struct slot *pick;
	int gi, i = probe_slot_pick(st, dst_gid, clock_mono_ns(), &gi);

	if (i < 0) {
		st->disc_dropped[DD_NOPORT]++;
		return;
	}
	pick = &st->slots[i];
	if (gi >= 0) {
		a.flags = PROBE_DISC_F_MATCHED;
		memcpy(a.gid, dst_gid, 16);
	} else {
		memcpy(a.gid, pick->p.gid, 16);
	}
	a.port = pick->port;
	a.qpn = pick->p.qp->qp_num;
	a.qkey = PROBE_QKEY;
	a.lid = pick->p.lid;
	a.link_layer = pick->p.ethernet ? PROBE_DISC_LINK_ETH : PROBE_DISC_LINK_IB;
	if (probe_disc_encode(&a, pkt, sizeof(pkt)) == PROBE_DISC_LEN &&
	    sendto(fd, pkt, sizeof(pkt), MSG_DONTWAIT, from, fl) == PROBE_DISC_LEN)
		st->disc_requests++;
}

/* A turnaround longer than this on the NIC clock is taken for a clock that
 * is not the completions' time base (or one that wrapped), and the software
 * readings are used instead. */
#define MAX_HW_TURNAROUND_NS 1000000000ull

/*
 * The responder's two readings for the reply to rx, on one clock: the NIC's
 * when the port has completion timestamps (the receive's completion, and
 * the clock read now, just before the reply is posted), else
 * CLOCK_MONOTONIC (now_ns, taken when the receive was polled, and now).
 * Only their difference means anything to the requester. The software
 * readings miss the time the receive waited in the CQ for the engine to
 * wake up; the NIC's include it. Returns whether they are the NIC's (the
 * reply says so: PROBE_PACKET_F_NIC_CLOCK).
 */
static bool turnaround_readings(struct probe_port *p, const struct probe_rx *rx, uint64_t now_ns,
				uint64_t *rx_ns, uint64_t *tx_ns)
{
	uint64_t ticks;

	if (p->hw_ts && probe_port_clock_ticks(p, &ticks) == 0) {
		uint64_t turn = probe_port_ts_delta_ns(p, rx->ts, ticks);

		if (turn < MAX_HW_TURNAROUND_NS) {
			*rx_ns = probe_port_ts_delta_ns(p, 0, rx->ts);
			*tx_ns = *rx_ns + turn;
			return true;
		}
	}
	*rx_ns = now_ns;
	*tx_ns = clock_mono_ns();
	return false;
}

/* A probe request that came to slot s's QP: answered unless over the
 * per-source (GID or LID, and QP) limit; with the responder off only the
 * port's own loopback requests are. After a wake-up request the engine
 * keeps polling (probe_responder_spin) for the probe that follows it. */
void probe_answer_request(struct probe_state *st, struct slot *s, const struct probe_rx *rx,
			  uint64_t now, bool wakeup, uint32_t spin_us)
{
	struct probe_port *p = &s->p;
	uint8_t key[PROBE_RL_KEY_MAX] = {0}, pkt[PROBE_PACKET_LEN];
	uint64_t rx_ns, tx_ns;
	bool nic;

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
	nic = turnaround_readings(p, rx, now, &rx_ns, &tx_ns);
	if (probe_packet_make_reply(pkt, sizeof(pkt), p->qp->qp_num, rx_ns, tx_ns,
				    nic ? PROBE_PACKET_F_NIC_CLOCK : 0) < 0 ||
	    probe_port_reply(p, rx, pkt) < 0) {
		s->dropped[D_SEND]++;
		return;
	}
	s->responder_requests++;
	if (wakeup) {
		uint64_t until = now + probe_pace_responder_spin_ns(spin_us);

		if (until > st->spin_until_ns)
			st->spin_until_ns = until;
	}
}

/* A prober sends each probe right after the reply to its wake-up request
 * (probe_engine.c): after answering a wake-up, the engine polls its CQs for
 * as long as the wake-up asked (probe_pace_responder_spin_ns) instead of
 * sleeping, so that the probe is not answered a wake-up later. A wake-up
 * costs the responder's host delay, which software timestamps cannot take
 * out of the network RTT (the request's wait in the CQ comes before the
 * first reading). The window is not cut short when the probe comes, since
 * other probers' may follow. */
bool probe_responder_spin(const struct probe_state *st, uint64_t now_ns)
{
	return now_ns < st->spin_until_ns;
}
