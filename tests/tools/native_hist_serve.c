// SPDX-License-Identifier: Apache-2.0
/*
 * native_hist_serve: the exporter's own poller, snapshot and HTTP server with
 * one synthetic collector in place of the hardware ones, so that a real
 * Prometheus can scrape native histograms on a host without RDMA
 * (tests/e2e/native-histograms.sh). Every poll each of PEERS targets gets
 * 200 observations through the real histogram accumulator and metric sink:
 *
 *   rdma_probe_rtt_seconds          199 uniform in [3 µs, 4 µs], 1 at 2 ms
 *   rdma_probe_network_rtt_seconds  199 uniform in [30 µs, 40 µs], 1 at 20 ms
 *
 * so the 0.5 and 0.99 quantiles lie in the uniform band and the 0.999
 * quantile near the tail value, and the observation rate is
 * 200 * PEERS per poll interval. The values come from a fixed LCG: every run
 * observes the same sequence.
 *
 *   native_hist_serve HOST:PORT [PEERS [POLL_MS]]
 *
 * Serves until SIGTERM or SIGINT; "cannot listen" on stderr when the port is
 * taken. Built only with the tests; never installed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/devfilter.h"
#include "base/strparse.h"
#include "collector.h"
#include "daemon/poller.h"
#include "daemon/pollsched.h"
#include "exposition/histogram.h"
#include "http/http.h"

#define OBS_PER_POLL 200

struct synth {
	unsigned peers;
	struct histogram *rtt, *net; /* peers each */
	uint64_t lcg;
};

static unsigned n_peers = 4;

static double next_unit(struct synth *s)
{
	s->lcg = s->lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(s->lcg >> 11) / 9007199254740992.0; /* [0, 1) */
}

static int synth_init(const struct collector_ctx *ctx, void **state)
{
	struct synth *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->peers = n_peers;
	s->lcg = 42;
	s->rtt = calloc(s->peers, sizeof(*s->rtt));
	s->net = calloc(s->peers, sizeof(*s->net));
	if (!s->rtt || !s->net)
		goto fail;
	for (unsigned i = 0; i < s->peers; i++)
		if (histogram_init(&s->rtt[i], histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0 ||
		    histogram_init(&s->net[i], histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0)
			goto fail;
	*state = s;
	return 0;
fail:
	for (unsigned i = 0; i < s->peers && s->rtt && s->net; i++) {
		histogram_free(&s->rtt[i]);
		histogram_free(&s->net[i]);
	}
	free(s->rtt);
	free(s->net);
	free(s);
	return -ENOMEM;
}

static void synth_free(void *state)
{
	struct synth *s = state;

	if (!s)
		return;
	for (unsigned i = 0; i < s->peers; i++) {
		histogram_free(&s->rtt[i]);
		histogram_free(&s->net[i]);
	}
	free(s->rtt);
	free(s->net);
	free(s);
}

static void observe_batch(struct synth *s, struct histogram *h, double lo)
{
	for (unsigned k = 0; k < OBS_PER_POLL - 1; k++)
		histogram_observe(h, lo + lo / 3 * next_unit(s));
	histogram_observe(h, lo * 2000 / 3);
}

static int synth_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct synth *s = state;
	int r = 0;

	for (unsigned i = 0; i < s->peers && r >= 0; i++) {
		char target[32];

		snprintf(target, sizeof(target), "10.0.0.%u", i + 2);
		observe_batch(s, &s->rtt[i], 3e-6);
		observe_batch(s, &s->net[i], 30e-6);
		r = collector_sink_result(metric_sink_add_histogram_from(
			sink, "rdma_probe_rtt_seconds", "Synthetic verbs round-trip time.",
			METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"}, {"target", target}),
			&s->rtt[i]));
		if (r >= 0)
			r = collector_sink_result(metric_sink_add_histogram_from(
				sink, "rdma_probe_network_rtt_seconds",
				"Synthetic network round-trip time.",
				METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"},
					      {"target", target}),
				&s->net[i]));
	}
	stats->devices = 1;
	return r;
}

static const struct collector_ops synth_ops = {
	.name = "synthetic",
	.help = "synthetic probe histograms",
	.default_enabled = true,
	.init = synth_init,
	.collect = synth_collect,
	.free = synth_free,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

/* protobuf requests make the polls encode it (poller.h) */
static void note_scrape(void *arg, const struct http_scrape *s)
{
	poller_note_scrape(arg, pollsched_key(s->addr, s->addr_len, s->user_agent),
			   s->authenticated, s->data_age_s, s->wants);
}

static int serve(const char *listen, uint64_t poll_ms)
{
	static const struct collector_ops *const table[] = {&synth_ops};
	static const bool enabled[] = {true};
	char err[256];
	struct device_filter *filter = device_filter_new(NULL, NULL, err, sizeof(err));
	struct poller_config pc = {
		.collectors = table,
		.n_collectors = 1,
		.enabled = enabled,
		.ctx = {.sysfs_fd = -1, .filter = filter, .proc_root = "/proc"},
		.interval_ms = poll_ms,
		/* the synthetic observations come per poll: keep their rate */
		.fixed_interval = true,
		.proc_root = "/proc",
	};
	struct http_config hc = {
		.listen_address = listen,
		.telemetry_path = "/metrics",
		.max_connections = 16,
		.max_connections_per_client = 16,
		.connection_timeout_s = 10,
		.request_header_timeout_ms = 10000,
		.stale_after_ms = 60000,
	};
	struct snapshot_slot slot;
	struct http_server *srv;
	struct poller *p = NULL;
	int rc = 1;

	snapshot_slot_init(&slot);
	if (filter)
		p = poller_new(&pc, &slot);
	if (!p || poller_poll_once(p) < 0 || poller_start(p) < 0) {
		fprintf(stderr, "native_hist_serve: cannot start the poller\n");
		goto out;
	}
	hc.on_scrape = note_scrape;
	hc.on_scrape_arg = p;
	srv = http_server_start(&hc, &slot, err, sizeof(err));
	if (!srv) {
		fprintf(stderr, "native_hist_serve: cannot listen on %s: %s\n", listen, err);
		goto out;
	}
	fprintf(stderr, "native_hist_serve: serving on %s\n", http_server_address(srv));
	while (!stop)
		pause();
	http_server_stop(srv);
	rc = 0;
out:
	poller_free(p);
	snapshot_slot_destroy(&slot);
	device_filter_free(filter);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t peers = 4, poll_ms = 250;

	if (argc < 2 || argc > 4 ||
	    (argc > 2 && parse_u64_dec(argv[2], strlen(argv[2]), &peers) < 0) ||
	    (argc > 3 && parse_u64_dec(argv[3], strlen(argv[3]), &poll_ms) < 0) || !peers ||
	    peers > 4096 || !poll_ms) {
		fprintf(stderr, "usage: native_hist_serve HOST:PORT [PEERS [POLL_MS]]\n");
		return 2;
	}
	n_peers = (unsigned)peers;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	return serve(argv[1], poll_ms);
}
