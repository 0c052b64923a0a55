// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's numbers: what a reply adds to its peer's (on the
 * engine thread, under st->lock), and collect(), which copies them into the
 * metric sink under st->lock, so probing never delays a poll.
 */
#include "probe_internal.h"

#include <string.h>

static const char *const reason_names[R_REASONS] = {"resolve", "qp", "send", "completion", "poll"};
static const char *const drop_names[D_N] = {"malformed", "ratelimit", "unexpected", "send"};
static const char *const ddrop_names[DD_N] = {"malformed", "ratelimit", "noport", "unexpected"};

#define ADD(expr)                                                                                  \
	do {                                                                                       \
		if (r == 0)                                                                        \
			r = collector_sink_result(expr);                                           \
	} while (0)

void probe_peer_record_reply(struct peer *pe, struct slot *s, uint64_t rtt_ns,
			     const struct probe_packet *reply)
{
	struct probe_rtt_split sp;

	/* Clamped turnarounds count as the whole round trip and the network
	 * part as 0, so the two always add up to the RTT (see probe_packet.h). */
	probe_packet_split_rtt(reply, rtt_ns, &sp);
	pe->last_rtt = (double)rtt_ns / 1e9;
	pe->have_last = true;
	pe->recent_rtt_ns = probe_pace_recent_rtt(pe->recent_rtt_ns, rtt_ns);
	pe->turnarounds[reply->flags & PROBE_PACKET_F_NIC_CLOCK ? 1 : 0]++;
	histogram_observe(&pe->rtt, pe->last_rtt);
	histogram_observe(&pe->net_rtt, (double)sp.network_ns / 1e9);
	pe->turnaround_sum += (double)sp.turnaround_ns / 1e9;
	if (s && !pe->loopback) {
		histogram_observe(&s->port_rtt, pe->last_rtt);
		histogram_observe(&s->port_net_rtt, (double)sp.network_ns / 1e9);
	}
}

#define RTT_HELP                                                                                   \
	"Round-trip time of probe messages over a UD queue pair, on the NIC clock or "             \
	"CLOCK_MONOTONIC (see rdma_probe_timestamp_info); target \"loopback\" is the "             \
	"port's own responder. In the text exposition only with "                                  \
	"--collector.probe.target-detail (+Inf, _sum and _count) or "                              \
	"--collector.probe.target-histograms (classic buckets too); the native buckets in the "    \
	"protobuf exposition always."
#define NET_RTT_HELP                                                                               \
	"Round-trip time of probe messages less the responder's turnaround (its receive "          \
	"to send, on its own clock): the network's part of rdma_probe_rtt_seconds, with "          \
	"the requester's host delays still in it. In the text exposition only with "               \
	"--collector.probe.target-histograms (native, in protobuf, always)."

/* A target's two RTT histograms: classic with --collector.probe.target-histograms;
 * else native, the RTT's +Inf, _sum and _count in the text only with
 * --collector.probe.target-detail, the network RTT's in protobuf only. */
static int emit_peer_histograms(struct metric_sink *sink, const struct peer *pe,
				const struct metric_label *l, size_t nl, bool full, bool detail)
{
	int r = 0;

	if (full) {
		ADD(metric_sink_add_histogram_from(sink, "rdma_probe_rtt_seconds", RTT_HELP, l, nl,
						   &pe->rtt));
		ADD(metric_sink_add_histogram_from(sink, "rdma_probe_network_rtt_seconds",
						   NET_RTT_HELP, l, nl, &pe->net_rtt));
		return r;
	}
	/* the protobuf exposition keeps both distributions in full */
	metric_sink_proto_only(sink, !detail);
	ADD(metric_sink_add_histogram_native_from(sink, "rdma_probe_rtt_seconds", RTT_HELP, l, nl,
						  &pe->rtt));
	metric_sink_proto_only(sink, false);
	ADD(metric_sink_add_histogram_proto_from(sink, "rdma_probe_network_rtt_seconds",
						 NET_RTT_HELP, l, nl, &pe->net_rtt));
	return r;
}

/* With --collector.probe.target-histograms: the responders' turnarounds. l has
 * room for one label more than nl. */
static int emit_peer_turnarounds(struct metric_sink *sink, const struct peer *pe,
				 struct metric_label *l, size_t nl)
{
	int r = 0;

	ADD(metric_sink_add_double(
		sink, "rdma_probe_responder_turnaround_seconds_total",
		"Sum of the responders' turnarounds (receive to send, on the responder's "
		"clock) of the replies in rdma_probe_rtt_seconds; mean host delay is its "
		"rate over rdma_probe_replies_total's. Only with "
		"--collector.probe.target-histograms.",
		METRIC_COUNTER, l, nl, pe->turnaround_sum));
	for (int i = 0; i < 2 && r == 0; i++) {
		l[nl] = (struct metric_label){"source", i ? "hardware" : "software"};
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_responder_turnarounds_total",
			"Replies in rdma_probe_rtt_seconds by the clock of the responder's two "
			"readings: hardware (its NIC's completion timestamps: its wake-up is taken "
			"out of rdma_probe_network_rtt_seconds) or software (CLOCK_MONOTONIC when "
			"its engine polled the request: its wake-up stays in the network part). "
			"Only with --collector.probe.target-histograms.",
			METRIC_COUNTER, l, nl + 1, pe->turnarounds[i]));
	}
	return r;
}

/*
 * One target's series (the loopback's too). Issue 40's budget (1,500 series
 * for a node of 8 ports with 64 peers, the netlink collector counted) keeps
 * in the text exposition at default flags only what the shipped rules and
 * dashboards read: sent, replies, the sum of the RTTs of those replies (the
 * mean RTT is the rate of one over the other's),
 * rdma_probe_errors_total{reason="resolve"} of a remote target from 0 and
 * the other reasons once they occurred: 4 series a remote target, 3 for the
 * loopback. The rest of the default set (rdma_probe_rtt_seconds as +Inf
 * bucket, _sum and _count, and the timeouts, which sent less replies tells)
 * is in the protobuf exposition only, and back in the text with
 * --collector.probe.target-detail (8 a target). With
 * --collector.probe.target-histograms a target gets them all: the classic
 * buckets of both RTT histograms, the last RTT, the turnarounds, every error
 * reason (53 series). The native network RTT histogram is protobuf-only
 * unless that flag (no text series).
 */
static int emit_peer(struct metric_sink *sink, const struct peer *pe, bool full, bool detail)
{
	struct metric_label l[4 + MAX_FILE_LABELS];
	size_t nl = 3;
	int r = 0;

	l[0] = (struct metric_label){"device", pe->device};
	l[1] = (struct metric_label){"port", pe->port_str};
	l[2] = (struct metric_label){"target", pe->loopback ? "loopback" : pe->target};
	for (size_t i = 0; i < pe->n_file_labels; i++)
		l[nl++] = pe->file_labels[i];
	r = emit_peer_histograms(sink, pe, l, nl, full, detail);
	ADD(metric_sink_add_double(
		sink, "rdma_probe_round_trip_seconds_total",
		"Sum of the round-trip times of the replies in rdma_probe_replies_total (as "
		"rdma_probe_rtt_seconds_sum): the mean RTT is its rate over "
		"rdma_probe_replies_total's.",
		METRIC_COUNTER, l, nl, pe->rtt.sum));
	if (full && r == 0)
		r = emit_peer_turnarounds(sink, pe, l, nl);
	ADD(metric_sink_add_u64(sink, "rdma_probe_sent_total", "Probe messages sent.",
				METRIC_COUNTER, l, nl, pe->sent));
	ADD(metric_sink_add_u64(sink, "rdma_probe_replies_total", "Probe replies received in time.",
				METRIC_COUNTER, l, nl, pe->replies));
	metric_sink_proto_only(sink, !detail);
	ADD(metric_sink_add_u64(
		sink, "rdma_probe_timeouts_total",
		"Probes without a reply within --collector.probe.timeout. In the text "
		"exposition only with --collector.probe.target-detail.",
		METRIC_COUNTER, l, nl, pe->timeouts));
	metric_sink_proto_only(sink, false);
	for (int i = 0; i < R_REASONS && r == 0; i++) {
		/* resolve from the start for a remote target: a series that
		 * appears at 1 hides its first increase from rate(), and a
		 * target that never resolves is what the pair rule must see */
		if (!full && !pe->errors[i] && (i != R_RESOLVE || pe->loopback))
			continue;
		l[nl] = (struct metric_label){"reason", reason_names[i]};
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_errors_total",
			"Probe failures by reason: resolve (the target's address or probe QP could "
			"not be learned), qp (the local UD QP could not be set up), send (post "
			"failed), completion (a work completion in error), poll (CQ poll failed). "
			"A series only for the reasons that occurred (resolve from 0 for a remote "
			"target), unless --collector.probe.target-histograms.",
			METRIC_COUNTER, l, nl + 1, pe->errors[i]));
	}
	if (pe->have_last && full)
		ADD(metric_sink_add_double(sink, "rdma_probe_last_rtt_seconds",
					   "Round-trip time of the last probe reply. Only with "
					   "--collector.probe.target-histograms.",
					   METRIC_GAUGE, l, nl, pe->last_rtt));
	return r;
}

/*
 * A port's series. The network RTT histogram (which the node dashboard draws,
 * saying so) and the wake-up requests are in the text exposition only with
 * --collector.probe.target-detail (protobuf always): no shipped rule reads
 * them, and the histogram is 20 series a port (issue 40).
 */
static int emit_slot(struct metric_sink *sink, const struct slot *s, bool detail)
{
	int r = 0;

	ADD(metric_sink_add_u64(sink, "rdma_probe_timestamp_info",
				"Where probe timestamps come from: hardware (NIC clock) or "
				"software (CLOCK_MONOTONIC); always 1.",
				METRIC_GAUGE,
				METRIC_LABELS({"device", s->device}, {"port", s->port_str},
					      {"source", s->p.hw_ts ? "hardware" : "software"}),
				1));
	ADD(metric_sink_add_histogram_from(
		sink, "rdma_probe_port_rtt_seconds",
		"Round-trip time of the probes to the port's remote targets, all of them "
		"(loopback excluded; the targets of rdma_probe_rtt_seconds together, including "
		"those that have left the sample).",
		METRIC_LABELS({"device", s->device}, {"port", s->port_str}), &s->port_rtt));
	metric_sink_proto_only(sink, !detail);
	ADD(metric_sink_add_histogram_from(
		sink, "rdma_probe_port_network_rtt_seconds",
		"The network's part of rdma_probe_port_rtt_seconds (each round trip less its "
		"responder's turnaround), over the port's remote targets. In the text exposition "
		"only with --collector.probe.target-detail.",
		METRIC_LABELS({"device", s->device}, {"port", s->port_str}), &s->port_net_rtt));
	ADD(metric_sink_add_u64(
		sink, "rdma_probe_wakeup_requests_total",
		"Wake-up requests the port sent just before each probe (a remote target's "
		"responder then polls when the probe arrives; loopback's warm this host's send "
		"path); not in rdma_probe_sent_total, their replies not measured (none with "
		"--collector.probe.spin-max=0). In the text exposition only with "
		"--collector.probe.target-detail.",
		METRIC_COUNTER, METRIC_LABELS({"device", s->device}, {"port", s->port_str}),
		s->wakeups_sent));
	metric_sink_proto_only(sink, false);
	ADD(metric_sink_add_u64(sink, "rdma_probe_responder_requests_total",
				"Probe requests the port's responder answered.", METRIC_COUNTER,
				METRIC_LABELS({"device", s->device}, {"port", s->port_str}),
				s->responder_requests));
	for (int i = 0; i < D_N; i++) {
		/* a series per reason once it occurred, as rdma_probe_errors_total's */
		if (!s->dropped[i])
			continue;
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_responder_dropped_total",
			"Messages the port's QP dropped: malformed (no magic, wrong version or "
			"length), ratelimit (over the per-source limit), unexpected (a reply to no "
			"probe in flight, a late one included), send (the reply could not be "
			"sent). A series only for the reasons that occurred.",
			METRIC_COUNTER,
			METRIC_LABELS({"device", s->device}, {"port", s->port_str},
				      {"reason", drop_names[i]}),
			s->dropped[i]));
	}
	return r;
}

int probe_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct probe_state *st = state;
	const char *seen[MAX_SLOTS];
	size_t n_seen = 0;
	bool detail = st->target_detail || st->target_histograms;
	int r = 0;

	pthread_mutex_lock(&st->lock);
	for (int i = 0; i < MAX_SLOTS && r == 0; i++) {
		const struct slot *s = &st->slots[i];
		bool dup = false;

		if (!s->used)
			continue;
		r = emit_peer(sink, &st->peers[s->loop], st->target_histograms, detail);
		if (r == 0)
			r = emit_slot(sink, s, detail);
		for (size_t j = 0; j < n_seen; j++)
			dup |= strcmp(seen[j], s->device) == 0;
		if (!dup)
			seen[n_seen++] = s->device;
	}
	for (size_t i = 0; i < st->n_peers && r == 0; i++)
		if (st->peers[i].used && !st->peers[i].loopback)
			r = emit_peer(sink, &st->peers[i], st->target_histograms, detail);
	if (st->targets_path || st->dns_spec) {
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_targets",
			"Targets loaded from --collector.probe.targets-file, or "
			"addresses of --collector.probe.targets-dns but this node's.",
			METRIC_GAUGE, METRIC_NO_LABELS, st->have_list ? st->list.n_targets : 0));
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_targets_probed",
			"Targets in this node's sample (at most --collector.probe.max-targets, "
			"chosen by the host name; fixed unless --collector.probe.sample-rotation).",
			METRIC_GAUGE, METRIC_NO_LABELS, probe_remote_peers(st)));
	}
	if (st->targets_path) {
		ADD(metric_sink_add_u64(sink, "rdma_probe_targets_file_reload_success",
					"Whether the last read of the targets file succeeded.",
					METRIC_GAUGE, METRIC_NO_LABELS, st->reload_ok));
	}
	if (st->responder || st->targets_path || st->dns_spec) {
		ADD(metric_sink_add_u64(sink, "rdma_probe_discovery_requests_total",
					"Discovery queries answered on the UDP sideband.",
					METRIC_COUNTER, METRIC_NO_LABELS, st->disc_requests));
		for (int i = 0; i < DD_N; i++)
			ADD(metric_sink_add_u64(
				sink, "rdma_probe_discovery_dropped_total",
				"Discovery datagrams dropped: malformed, ratelimit (over the "
				"per-source limit), noport (no probe port is open), unexpected (an "
				"answer to no query in flight).",
				METRIC_COUNTER, METRIC_LABELS({"reason", ddrop_names[i]}),
				st->disc_dropped[i]));
	}
	for (size_t i = 0; i < st->n_sb && r == 0; i++) {
		const struct sideband *sb = &st->sb[i];

		if (!sb->addr_txt[0] || !sb->device[0])
			continue;
		ADD(metric_sink_add_u64(
			sink, "rdma_probe_local_address_info",
			"An address of this node that peers probe (a target is ADDRESS:PORT, "
			"IPv6 in brackets): the discovery sideband listens there and answers for "
			"this port's probe QP (a RoCE GID's address, an IPoIB address or one of "
			"--collector.probe.listen-address); always 1. Joins a probe target to "
			"its node.",
			METRIC_GAUGE,
			METRIC_LABELS({"device", sb->device}, {"port", sb->port_str},
				      {"address", sb->addr_txt}),
			1));
	}
	pthread_mutex_unlock(&st->lock);
	stats->devices = n_seen;
	return r;
}
