// SPDX-License-Identifier: Apache-2.0
/*
 * native-series: what the probe histograms cost a Prometheus, per node and
 * for a fleet, classic text against protobuf native. One node probes K peers
 * (default 64); each peer has rdma_probe_rtt_seconds and
 * rdma_probe_network_rtt_seconds, filled through the real accumulator with
 * 10,000 synthetic RTTs each (2..6 µs, 1% at 20..200 µs, 0.1% at 1..5 ms),
 * added to a metric sink and rendered both ways. Prints figures, asserts
 * nothing:
 *   - series per node and for NODES nodes (default 10,000): the classic text
 *     (one per bucket, +Inf, _sum, _count), the previous 36-bound layout for
 *     comparison, and native (one per histogram; with Prometheus >= 2.45's
 *     scrape_classic_histograms, native plus classic);
 *   - populated native buckets per histogram (what a native sample holds);
 *   - bytes per scrape (plain and gzip) and encoding time per poll.
 *
 *   native-series [K [NODES]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/strparse.h"
#include "exposition/expo_proto.h"
#include "exposition/histogram.h"
#include "exposition/metrics.h"
#include "exposition/snapshot.h"

#define OBS    10000
#define ROUNDS 20

static const char *const names[] = {"rdma_probe_rtt_seconds", "rdma_probe_network_rtt_seconds"};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double unit(uint64_t *lcg)
{
	*lcg = *lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*lcg >> 11) / 9007199254740992.0;
}

static void fill(struct histogram *h, uint64_t *lcg, double scale)
{
	for (unsigned i = 0; i < OBS; i++) {
		double u = unit(lcg), v;

		if (i % 1000 == 0)
			v = 1e-3 + 4e-3 * u;
		else if (i % 100 == 0)
			v = 20e-6 + 180e-6 * u;
		else
			v = 2e-6 + 4e-6 * u;
		histogram_observe(h, v * scale);
	}
}

static struct metric_sink *build(struct histogram *hs, unsigned k)
{
	struct metric_sink *s = metric_sink_new();

	for (unsigned p = 0; s && p < k; p++) {
		char target[32];

		snprintf(target, sizeof(target), "10.%u.%u.%u", p >> 16 & 255, p >> 8 & 255,
			 p & 255);
		for (unsigned n = 0; n < 2; n++)
			metric_sink_add_histogram_from(s, names[n], "RTT.",
						       METRIC_LABELS({"device", "mlx5_0"},
								     {"port", "1"},
								     {"target", target}),
						       &hs[p * 2 + n]);
	}
	return s;
}

static size_t count_series(const struct buf *text)
{
	size_t n = 0;

	for (const char *l = text->data; l && *l; l = strchr(l, '\n') + 1) {
		n += *l != '#';
		if (!strchr(l, '\n'))
			break;
	}
	return n;
}

static size_t gz_len(const struct buf *b)
{
	size_t len = 0;
	char *gz = gzip_compress(b->data, b->len, &len);

	free(gz);
	return len;
}

static void report(unsigned k, uint64_t nodes, const struct histogram *hs, double t_text,
		   double t_proto, const struct buf *text, const struct buf *pb)
{
	size_t series = count_series(text), hists = 2 * (size_t)k, populated = 0;
	size_t old = hists * (36 + 3);

	for (size_t i = 0; i < hists; i++)
		for (size_t b = 0; b < HISTOGRAM_NATIVE_N_BUCKETS; b++)
			populated += hs[i].native[b] != 0;
	printf("native-series: k=%u peers, %zu histograms per node, %llu nodes\n", k, hists,
	       (unsigned long long)nodes);
	printf("%-46s %12s %16s\n", "", "per node", "fleet");
	printf("%-46s %12zu %16llu\n", "series, classic text (17 bounds: 20 each)", series,
	       (unsigned long long)series * nodes);
	printf("%-46s %12zu %16llu\n", "series, classic text before (36 bounds: 39 each)", old,
	       (unsigned long long)old * nodes);
	printf("%-46s %12zu %16llu\n", "series, protobuf native (1 each)", hists,
	       (unsigned long long)hists * nodes);
	printf("%-46s %12zu %16llu\n", "series, native + classic (>= 2.45 option)", hists + series,
	       (unsigned long long)(hists + series) * nodes);
	printf("%-46s %12.1f\n", "populated native buckets per histogram",
	       (double)populated / (double)hists);
	printf("%-46s %12zu (gzip %zu)\n", "bytes per scrape, text", text->len, gz_len(text));
	printf("%-46s %12zu (gzip %zu)\n", "bytes per scrape, protobuf", pb->len, gz_len(pb));
	printf("%-46s %12.3f\n", "ms per poll, render text", t_text * 1e3);
	printf("%-46s %12.3f\n", "ms per poll, encode protobuf", t_proto * 1e3);
}

int main(int argc, char **argv)
{
	uint64_t k = 64, nodes = 10000, lcg = 1;
	struct buf text = BUF_INIT, pb = BUF_INIT;
	double t_text = 0, t_proto = 0;
	struct histogram *hs;

	if ((argc > 1 && parse_u64_dec(argv[1], strlen(argv[1]), &k) < 0) ||
	    (argc > 2 && parse_u64_dec(argv[2], strlen(argv[2]), &nodes) < 0) || !k || k > 65536) {
		fprintf(stderr, "usage: native-series [K [NODES]]\n");
		return 2;
	}
	hs = calloc(2 * k, sizeof(*hs));
	for (size_t i = 0; hs && i < 2 * k; i++) {
		if (histogram_init(&hs[i], histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0)
			return 1;
		fill(&hs[i], &lcg, i % 2 ? 3 : 1);
	}
	for (unsigned r = 0; hs && r < ROUNDS; r++) {
		struct metric_sink *s = build(hs, (unsigned)k);
		double t0 = now_s(), t1;

		buf_reset(&text);
		buf_reset(&pb);
		if (!s || metric_sink_render(s, &text) < 0)
			return 1;
		t1 = now_s();
		if (expo_proto_render(s, &pb) < 0)
			return 1;
		t_proto += (now_s() - t1) / ROUNDS;
		t_text += (t1 - t0) / ROUNDS;
		metric_sink_free(s);
	}
	if (!hs)
		return 1;
	report((unsigned)k, nodes, hs, t_text, t_proto, &text, &pb);
	for (size_t i = 0; i < 2 * k; i++)
		histogram_free(&hs[i]);
	free(hs);
	buf_free(&text);
	buf_free(&pb);
	return 0;
}
