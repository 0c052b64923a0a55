// SPDX-License-Identifier: Apache-2.0
/*
 * What the probe collector exports for a pingmesh (probe_export.c), on a
 * probe state built here as the engine would leave it: ports (slots) with
 * their loopback, remote targets spread over them, replies recorded the way
 * the engine records them. No verbs device is needed: collect() only reads
 * numbers. Checked: the default series per remote target in the text (at
 * most 4 when healthy, issue 40), the per-port histograms over the remote
 * targets, the detail --collector.probe.target-detail puts back in the text,
 * the full detail with --collector.probe.target-histograms, what the
 * protobuf exposition keeps (native buckets, the text's detail), the local
 * addresses.
 *
 * With PROBE_SERIES_OUT=FILE set, the H100-shape case (8 InfiniBand ports,
 * 64 peers) also writes its text exposition there, for
 * tests/bench/series-per-node.sh to count, and FILE.detail and FILE.flag with
 * each flag, for tests/monitoring/gated-check.py to tell the families a flag
 * brings to the text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/log.h"
#include "exposition/histogram.h"
#include "exposition_assert.h"
#include "probe.h"
#include "probe_internal.h"

/* A probe state with n_ports ports (device mlx5_I, port 1, each with its
 * loopback peer) and n_targets remote targets dealt round-robin to them. */
static struct probe_state *mesh_new(int n_ports, int n_targets, bool target_histograms)
{
	struct probe_state *st = calloc(1, sizeof(*st));

	assert_non_null(st);
	pthread_mutex_init(&st->lock, NULL);
	st->target_histograms = target_histograms;
	st->n_peers = (size_t)n_targets + MAX_SLOTS;
	st->peers = calloc(st->n_peers, sizeof(*st->peers));
	assert_non_null(st->peers);
	for (int i = 0; i < n_ports; i++) {
		struct slot *s = &st->slots[i];
		struct peer *lp = probe_peer_new(st);

		assert_non_null(lp);
		s->used = s->open = true;
		snprintf(s->device, sizeof(s->device), "mlx5_%d", i);
		s->port = 1;
		snprintf(s->port_str, sizeof(s->port_str), "1");
		assert_int_equal(
			histogram_init(&s->port_rtt, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS),
			0);
		assert_int_equal(histogram_init(&s->port_net_rtt, histogram_rtt_bounds,
						HISTOGRAM_RTT_N_BOUNDS),
				 0);
		lp->loopback = true;
		probe_peer_set_slot(st, lp, i);
		s->loop = (int)(lp - st->peers);
	}
	for (int t = 0; t < n_targets; t++) {
		struct peer *pe = probe_peer_new(st);
		char name[64];

		assert_non_null(pe);
		snprintf(name, sizeof(name), "10.%d.%d.%d:9879", t % n_ports, t / 250, t % 250 + 1);
		pe->target = strdup(name);
		assert_non_null(pe->target);
		probe_peer_set_slot(st, pe, t % n_ports);
	}
	return st;
}

static void mesh_free(struct probe_state *st)
{
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			probe_peer_free(st, &st->peers[i]);
	for (int i = 0; i < MAX_SLOTS; i++)
		probe_slot_free_numbers(&st->slots[i]);
	free(st->peers);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* A reply built the way the responder builds it (turn_ns of turnaround). */
static struct probe_packet reply_with(uint64_t turn_ns)
{
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST, .seq = 1}, rep;
	uint8_t pkt[PROBE_PACKET_LEN];

	assert_int_equal(probe_packet_encode(&req, pkt, sizeof(pkt)), PROBE_PACKET_LEN);
	assert_int_equal(probe_packet_make_reply(pkt, sizeof(pkt), 5, 1000, 1000 + turn_ns, 0), 0);
	assert_int_equal(probe_packet_decode(pkt, sizeof(pkt), &rep), 0);
	return rep;
}

/* A healthy round on every peer: count probes sent and answered, RTTs of 3..
 * 12 us with 1 us of turnaround. */
static void mesh_round(struct probe_state *st, unsigned count)
{
	struct probe_packet rep = reply_with(1000);

	for (size_t i = 0; i < st->n_peers; i++) {
		struct peer *pe = &st->peers[i];

		if (!pe->used)
			continue;
		for (unsigned k = 0; k < count; k++) {
			pe->sent++;
			pe->replies++;
			probe_peer_record_reply(pe, &st->slots[pe->slot], 3000 + 1000 * (i % 10),
						&rep);
		}
	}
}

static void render(struct probe_state *st, struct buf *out)
{
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};

	assert_non_null(sink);
	assert_int_equal(probe_collect(st, sink, &stats), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	assert_int_equal(metric_sink_render(sink, out), 0);
	assert_int_equal(buf_append(out, "", 1), 0);
	metric_sink_free(sink);
}

/* Sample lines of text that hold needle (a label pair, say). */
static size_t series_with(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (*p != '#' && len && memmem(p, len, needle, strlen(needle)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

/* Default flags: in the text a remote target has 4 series when healthy
 * (sent, replies, the sum of their RTTs, resolve errors from 0), the
 * loopback 3; no RTT histogram per target, no timeouts, nothing of the
 * flag-only families; per port the RTT histogram (counting every remote
 * reply, not the loopback's), not the network RTT one nor the wake-ups. */
static void test_default_series_per_target(void **state)
{
	struct probe_state *st = mesh_new(2, 4, false);
	struct buf out = BUF_INIT;
	const char *t = "{device=\"mlx5_0\",port=\"1\",target=\"10.0.0.1:9879\"";
	const char *port0 = "{device=\"mlx5_0\",port=\"1\"";

	mesh_round(st, 5);
	render(st, &out);
	assert_int_equal(series_with(out.data, "target=\"10.0.0.1:9879\""), 4);
	assert_int_equal(series_with(out.data, "port=\"1\",target=\"loopback\""), 2 * 3);
	assert_null(strstr(out.data, "\nrdma_probe_rtt_seconds_"));
	assert_null(strstr(out.data, "\nrdma_probe_timeouts_total"));
	assert_line(out.data, "rdma_probe_sent_total%s} 5", t);
	assert_line(out.data, "rdma_probe_replies_total%s} 5", t);
	/* 5 replies of 5 us each */
	assert_non_null(strstr(out.data, "rdma_probe_round_trip_seconds_total{device=\"mlx5_0\","
					 "port=\"1\",target=\"10.0.0.1:9879\"} 2.5"));
	assert_null(strstr(out.data, "rdma_probe_network_rtt_seconds_count{device=\"mlx5_0\","
				     "port=\"1\",target=\"10."));
	assert_null(strstr(out.data, "rdma_probe_last_rtt_seconds"));
	assert_null(strstr(out.data, "rdma_probe_responder_turnaround"));
	assert_line(out.data, "rdma_probe_errors_total%s,reason=\"resolve\"} 0", t);
	assert_null(strstr(out.data, "rdma_probe_errors_total{device=\"mlx5_0\",port=\"1\","
				     "target=\"loopback\""));
	assert_line(out.data, "rdma_probe_replies_total{device=\"mlx5_0\",port=\"1\",target="
			      "\"loopback\"} 5");
	/* port 0 has targets 0 and 2: 10 replies, loopback not among them */
	assert_line(out.data, "rdma_probe_port_rtt_seconds_count{device=\"mlx5_0\",port=\"1\"} 10");
	assert_line(out.data, "rdma_probe_port_rtt_seconds_bucket%s,le=\"1e-06\"} 0", port0);
	assert_null(strstr(out.data, "\nrdma_probe_port_network_rtt_seconds"));
	assert_null(strstr(out.data, "\nrdma_probe_wakeup_requests_total"));

	/* an error shows only for its reason (peers 0 and 1 are the loopbacks) */
	st->peers[2].errors[R_RESOLVE] = 3;
	buf_free(&out);
	render(st, &out);
	assert_line(out.data, "rdma_probe_errors_total%s,reason=\"resolve\"} 3", t);
	assert_no_line(out.data, "rdma_probe_errors_total%s,reason=\"send\"} 0", t);
	assert_int_equal(series_with(out.data, "target=\"10.0.0.1:9879\""), 4);

	/* the responder's drops alike: a series per reason once it occurred */
	assert_null(strstr(out.data, "rdma_probe_responder_dropped_total"));
	st->slots[0].dropped[D_RATELIMIT] = 2;
	buf_free(&out);
	render(st, &out);
	assert_line(out.data, "rdma_probe_responder_dropped_total%s,reason=\"ratelimit\"} 2",
		    port0);
	assert_int_equal(series_with(out.data, "rdma_probe_responder_dropped_total{"), 1);
	buf_free(&out);
	mesh_free(st);
}

/* --collector.probe.target-detail: the RTT histogram per target as +Inf,
 * _sum and _count (no classic buckets), the timeouts, the port's network RTT
 * histogram and wake-ups, in the text too: 8 series a remote target, 7 the
 * loopback. */
static void test_target_detail_flag(void **state)
{
	struct probe_state *st = mesh_new(1, 1, false);
	struct buf out = BUF_INIT;
	const char *t = "{device=\"mlx5_0\",port=\"1\",target=\"10.0.0.1:9879\"";

	st->target_detail = true;
	mesh_round(st, 3);
	render(st, &out);
	assert_int_equal(series_with(out.data, "target=\"10.0.0.1:9879\""), 8);
	assert_int_equal(series_with(out.data, "target=\"loopback\""), 7);
	assert_line(out.data, "rdma_probe_rtt_seconds_bucket%s,le=\"+Inf\"} 3", t);
	assert_line(out.data, "rdma_probe_rtt_seconds_count%s} 3", t);
	assert_no_line(out.data, "rdma_probe_rtt_seconds_bucket%s,le=\"1e-05\"} 3", t);
	assert_line(out.data, "rdma_probe_timeouts_total%s} 0", t);
	assert_line(out.data, "rdma_probe_port_network_rtt_seconds_count{device=\"mlx5_0\",port="
			      "\"1\"} 3");
	assert_line(out.data, "rdma_probe_wakeup_requests_total{device=\"mlx5_0\",port=\"1\"} 0");
	assert_null(strstr(out.data, "rdma_probe_last_rtt_seconds"));
	assert_null(strstr(out.data, "rdma_probe_responder_turnaround"));
	buf_free(&out);
	mesh_free(st);
}

/* --collector.probe.target-histograms: every target as the loopback. */
static void test_target_histograms_flag(void **state)
{
	struct probe_state *st = mesh_new(1, 1, true);
	struct buf out = BUF_INIT;
	const char *t = "{device=\"mlx5_0\",port=\"1\",target=\"10.0.0.1:9879\"";

	mesh_round(st, 3);
	render(st, &out);
	assert_line(out.data, "rdma_probe_rtt_seconds_bucket%s,le=\"1e-05\"} 3", t);
	assert_line(out.data, "rdma_probe_network_rtt_seconds_count%s} 3", t);
	assert_line(out.data, "rdma_probe_errors_total%s,reason=\"send\"} 0", t);
	assert_line(out.data, "rdma_probe_responder_turnarounds_total%s,source=\"software\"} 3", t);
	assert_non_null(strstr(out.data, "rdma_probe_last_rtt_seconds{device=\"mlx5_0\",port="
					 "\"1\",target=\"10.0.0.1:9879\"}"));
	assert_line(out.data, "rdma_probe_port_rtt_seconds_count{device=\"mlx5_0\",port=\"1\"} 3");
	assert_int_equal(series_with(out.data, "target=\"10.0.0.1:9879\""), 53);
	assert_line(out.data, "rdma_probe_timeouts_total%s} 0", t);
	assert_line(out.data, "rdma_probe_port_network_rtt_seconds_count{device=\"mlx5_0\",port="
			      "\"1\"} 3");
	assert_line(out.data, "rdma_probe_rtt_seconds_bucket{device=\"mlx5_0\",port=\"1\",target="
			      "\"loopback\",le=\"1e-05\"} 3");
	buf_free(&out);
	mesh_free(st);
}

struct native_seen {
	size_t target_native, target_classic, target_proto_only, net_proto_only;
	size_t timeouts_proto_only, port_net_classic_proto_only, wakeups_proto_only;
};

static int look_native(void *ctx, const struct metric_family_view *f,
		       const struct metric_sample_view *smp)
{
	struct native_seen *n = ctx;

	for (size_t i = 0; i < f->n_samples; i++) {
		if (strcmp(f->name, "rdma_probe_network_rtt_seconds") == 0)
			n->net_proto_only += smp[i].proto_only && smp[i].h->native;
		if (strcmp(f->name, "rdma_probe_timeouts_total") == 0)
			n->timeouts_proto_only += smp[i].proto_only;
		if (strcmp(f->name, "rdma_probe_wakeup_requests_total") == 0)
			n->wakeups_proto_only += smp[i].proto_only;
		if (strcmp(f->name, "rdma_probe_port_network_rtt_seconds") == 0)
			n->port_net_classic_proto_only += smp[i].proto_only && smp[i].h->n_bounds;
	}
	if (strcmp(f->name, "rdma_probe_rtt_seconds") != 0)
		return 0;
	for (size_t i = 0; i < f->n_samples; i++) {
		if (strstr(smp[i].labels, "target=\"loopback\""))
			continue;
		n->target_native += smp[i].h->native && smp[i].h->n_buckets > 0;
		n->target_classic += smp[i].h->n_bounds;
		n->target_proto_only += smp[i].proto_only;
	}
	return 0;
}

/* By default the protobuf exposition keeps what the text leaves out: a
 * target's RTT histogram with its native buckets (no classic ones), its
 * network RTT histogram (2 targets and the loopback) and timeouts, the port's
 * network RTT histogram with its classic buckets and its wake-ups; all of
 * them protobuf-only. */
static void test_native_kept_without_classic(void **state)
{
	struct probe_state *st = mesh_new(1, 2, false);
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};
	struct native_seen n = {0};

	assert_non_null(sink);
	mesh_round(st, 4);
	assert_int_equal(probe_collect(st, sink, &stats), 0);
	assert_int_equal(metric_sink_visit(sink, look_native, &n), 0);
	assert_int_equal(n.target_native, 2);
	assert_int_equal(n.target_classic, 0);
	assert_int_equal(n.target_proto_only, 2);
	assert_int_equal(n.net_proto_only, 3);
	assert_int_equal(n.timeouts_proto_only, 3);
	assert_int_equal(n.port_net_classic_proto_only, 1);
	assert_int_equal(n.wakeups_proto_only, 1);
	metric_sink_free(sink);
	mesh_free(st);
}

/* The sideband's addresses as rdma_probe_local_address_info, with the port
 * their queries are answered for; a socket not tied to a port is left out. */
static void test_local_address_info(void **state)
{
	struct probe_state *st = mesh_new(1, 0, false);
	struct buf out = BUF_INIT;

	st->n_sb = 2;
	st->sb[0] = (struct sideband){
		.fd = -1, .device = "mlx5_0", .port_str = "1", .addr_txt = "10.0.2.16"};
	st->sb[1] = (struct sideband){.fd = -1, .addr_txt = "fd00::2"};
	render(st, &out);
	assert_line(out.data, "rdma_probe_local_address_info{device=\"mlx5_0\",port=\"1\",address="
			      "\"10.0.2.16\"} 1");
	assert_null(strstr(out.data, "fd00::2"));
	buf_free(&out);
	mesh_free(st);
}

/* The H100 shape with a flag, written to PROBE_SERIES_OUT + suffix when set. */
static void h100_with_flag(const char *path, const char *suffix, const char *flag, bool detail,
			   bool histograms)
{
	struct probe_state *st = mesh_new(8, 64, histograms);
	struct buf out = BUF_INIT;

	st->target_detail = detail;
	mesh_round(st, 5);
	render(st, &out);
	print_message("with %s: %zu series\n", flag, series_with(out.data, ""));
	if (path)
		write_exposition(path, suffix, out.data);
	buf_free(&out);
	mesh_free(st);
}

/* The H100 shape: 8 InfiniBand ports, a 64-peer pingmesh, default flags.
 * Issue 31's budget was at most 8 series per probed target when healthy;
 * issue 40's (1,500 for the node, the netlink collector counted) leaves 4 in
 * the text, and the whole collector (the 64 targets, 8 loopbacks and 8
 * ports) under 500 so that the node's 1,500 leave room for the others. */
static void test_h100_shape_budget(void **state)
{
	struct probe_state *st = mesh_new(8, 64, false);
	struct buf out = BUF_INIT;
	const char *path = getenv("PROBE_SERIES_OUT");
	size_t all, per_target_max = 0;

	mesh_round(st, 5);
	render(st, &out);
	for (int t = 0; t < 64; t++) {
		char needle[64];
		size_t n;

		snprintf(needle, sizeof(needle), "target=\"10.%d.%d.%d:9879\"", t % 8, t / 250,
			 t % 250 + 1);
		n = series_with(out.data, needle);
		assert_true(n > 0);
		per_target_max = n > per_target_max ? n : per_target_max;
	}
	all = series_with(out.data, "");
	print_message("probe collector, 8 ports, 64 peers: %zu series, %zu per remote target\n",
		      all, per_target_max);
	assert_true(per_target_max <= 4);
	assert_true(all < 500);
	if (path)
		write_exposition(path, "", out.data);
	buf_free(&out);
	mesh_free(st);

	/* the same with --collector.probe.target-detail, then -histograms */
	h100_with_flag(path, ".detail", "--collector.probe.target-detail", true, false);
	h100_with_flag(path, ".flag", "--collector.probe.target-histograms", false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_series_per_target),
		cmocka_unit_test(test_target_detail_flag),
		cmocka_unit_test(test_target_histograms_flag),
		cmocka_unit_test(test_native_kept_without_classic),
		cmocka_unit_test(test_local_address_info),
		cmocka_unit_test(test_h100_shape_budget),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
