// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's ops (see probe.h): init starts the engine thread
 * (probe_engine.c), reload asks it to re-read the targets file, free stops
 * it; collect is in probe_export.c.
 */
#include "probe.h"
#include "base/clock.h"
#include "probe_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/log.h"

#define RL_SLOTS 1024
#define RL_RATE	 200.0
#define RL_BURST 400.0

static void wake(struct probe_state *st)
{
	uint64_t one = 1;

	if (write(st->stop_fd, &one, sizeof(one)) < 0)
		return; /* the counter is already non-zero */
}

static void probe_reload(void *state)
{
	struct probe_state *st = state;

	pthread_mutex_lock(&st->lock);
	st->hup = true;
	pthread_mutex_unlock(&st->lock);
	wake(st);
}

static void probe_free(void *state)
{
	struct probe_state *st = state;

	if (!st)
		return;
	if (st->started) {
		pthread_mutex_lock(&st->lock);
		st->stop = true;
		pthread_mutex_unlock(&st->lock);
		wake(st);
		pthread_join(st->thread, NULL);
	}
	if (st->have_list)
		probe_target_list_free(&st->list);
	probe_sideband_close_all(st);
	if (st->stop_fd >= 0)
		close(st->stop_fd);
	for (int i = 0; i < MAX_SLOTS; i++)
		probe_slot_free_numbers(&st->slots[i]);
	probe_ratelimit_free(&st->rl);
	probe_ratelimit_free(&st->disc_rl);
	free(st->graves);
	free(st->peers);
	free(st->targets_path);
	free(st->dns_spec);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

static uint64_t flag(const struct collector_ctx *ctx, int i, uint64_t def)
{
	return ctx->flags ? ctx->flags[i] : def;
}

/*
 * The pingmesh's peers: a targets file or a DNS name, not both (two sources
 * of one list would make the sample depend on which answered last).
 */
static int init_targets(struct probe_state *st, const struct collector_ctx *ctx)
{
	const char *path = ctx->flag_strs ? ctx->flag_strs[PROBE_FLAG_TARGETS_FILE] : NULL;
	const char *dns = ctx->flag_strs ? ctx->flag_strs[PROBE_FLAG_TARGETS_DNS] : NULL;
	char why[160];

	if (path && dns) {
		log_error("--collector.probe.targets-file and --collector.probe.targets-dns "
			  "exclude each other: give one",
			  "collector=probe file=%s name=%s", path, dns);
		return -EINVAL;
	}
	st->max_targets = path || dns ? flag(ctx, PROBE_FLAG_MAX_TARGETS, 64) : 0;
	if (path && !(st->targets_path = strdup(path)))
		return -ENOMEM;
	if (dns && !(st->dns_spec = strdup(dns)))
		return -ENOMEM;
	if (dns && probe_dns_parse(dns, st->dns_host, &st->dns_port, why, sizeof(why)) < 0)
		return -EINVAL; /* the flag check said why */
	return 0;
}

static int probe_init(const struct collector_ctx *ctx, void **state)
{
	struct probe_state *st = calloc(1, sizeof(*st));
	const char *listen = ctx->flag_strs ? ctx->flag_strs[PROBE_FLAG_LISTEN_ADDRESS] : NULL;
	char host[256] = "";
	int r;

	if (!st)
		return -ENOMEM;
	st->stop_fd = -1;
	pthread_mutex_init(&st->lock, NULL);
	st->filter = ctx->filter;
	st->sysfs_fd = ctx->sysfs_fd;
	st->interval_ms = flag(ctx, PROBE_FLAG_INTERVAL, 10000);
	st->count = flag(ctx, PROBE_FLAG_COUNT, 5);
	st->timeout_ms = flag(ctx, PROBE_FLAG_TIMEOUT, 1000);
	r = init_targets(st, ctx);
	if (r < 0) {
		probe_free(st);
		return r;
	}
	st->udp_port = (uint16_t)flag(ctx, PROBE_FLAG_PORT, 9879);
	st->responder = flag(ctx, PROBE_FLAG_RESPONDER, 1) != 0;
	st->rotation_ms = flag(ctx, PROBE_FLAG_SAMPLE_ROTATION, 0);
	st->spin_max_ns = flag(ctx, PROBE_FLAG_SPIN_MAX, 1) * 1000000ull;
	st->target_histograms = flag(ctx, PROBE_FLAG_TARGET_HISTOGRAMS, 0) != 0;
	st->target_detail = flag(ctx, PROBE_FLAG_TARGET_DETAIL, 0) != 0;
	st->loopback_thread = flag(ctx, PROBE_FLAG_LOOPBACK_THREAD, 0) != 0;
	st->warmups = (unsigned)flag(ctx, PROBE_FLAG_WARMUPS, PROBE_WARMUPS_DEFAULT);
	st->window = 0;
	st->pace = (struct probe_pace_cfg){.interval_ns = st->interval_ms * 1000000ull,
					   .timeout_ns = st->timeout_ms * 1000000ull,
					   .count = (unsigned)st->count};
	if (getrandom(&st->session, sizeof(st->session), GRND_NONBLOCK) != sizeof(st->session))
		st->session = (uint32_t)clock_mono_ns() ^ (uint32_t)getpid();
	/* The node's identity in the sample (probe_targets_sample): nodes reading
	 * the same file pick different peers, the same ones after a restart. */
	gethostname(host, sizeof(host) - 1);
	st->node_key = 1469598103934665603ull;
	for (const char *c = host; *c; c++)
		st->node_key = (st->node_key ^ (unsigned char)*c) * 1099511628211ull;
	st->n_peers = st->max_targets + MAX_SLOTS;
	st->peers = calloc(st->n_peers, sizeof(*st->peers));
	r = st->peers ? 0 : -ENOMEM;
	if (r == 0 && listen) {
		char why[160];

		r = probe_bind_parse(listen, st->fixed, why, sizeof(why));
		if (r >= 0) {
			st->n_fixed = r;
			r = 0;
		}
	}
	if (r == 0)
		r = probe_ratelimit_init(&st->rl, RL_SLOTS, RL_RATE, RL_BURST);
	if (r == 0)
		r = probe_ratelimit_init(&st->disc_rl, RL_SLOTS, RL_RATE, RL_BURST);
	if (r == 0) {
		st->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (st->stop_fd < 0)
			r = -errno;
	}
	if (r < 0) {
		probe_free(st);
		return r;
	}
	/* The file is read before the first poll publishes its numbers. */
	probe_check_targets_file(st, false);
	r = pthread_create(&st->thread, NULL, probe_engine, st);
	if (r != 0) {
		probe_free(st);
		return -r;
	}
	st->started = true;
	*state = st;
	return 0;
}

static const struct collector_flag probe_flags[PROBE_FLAG_COUNT_] = {
	[PROBE_FLAG_INTERVAL] =
		{
			.name = "interval",
			.help = "Time between probe rounds. Default 10s.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 10000,
			.min = 100,
			.max = 3600 * 1000,
		},
	[PROBE_FLAG_COUNT] =
		{
			.name = "count",
			.help = "Probes per target per round. Default 5.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 5,
			.min = 1,
			.max = 1000,
			.unit = "probes",
		},
	[PROBE_FLAG_TIMEOUT] =
		{
			.name = "timeout",
			.help = "Time to wait for one probe's reply. Default 1s.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 1000,
			.min = 1,
			.max = 60 * 1000,
		},
	[PROBE_FLAG_TARGETS_FILE] =
		{
			.name = "targets-file",
			.help = "Pingmesh peers, a Prometheus file_sd file in JSON or YAML "
				"(host[:port] targets, labels); re-read when it changes and on "
				"SIGHUP. Without it only loopback probes run.",
			.kind = COLLECTOR_FLAG_PATH,
		},
	[PROBE_FLAG_TARGETS_DNS] =
		{
			.name = "targets-dns",
			.help = "Pingmesh peers from a DNS name and its addresses (in "
				"Kubernetes a headless Service over the exporter's DaemonSet), "
				"this node's own left out, re-resolved every 30s and on SIGHUP; "
				"PORT as --collector.probe.port when not given. Excludes "
				"--collector.probe.targets-file.",
			.kind = COLLECTOR_FLAG_TEXT,
			.check = probe_dns_check,
			.metavar = "NAME[:PORT]",
		},
	[PROBE_FLAG_MAX_TARGETS] =
		{
			.name = "max-targets",
			.help = "Peers probed per round at most; with more in the file or "
				"the DNS answer, a "
				"fixed sample of them chosen by this node's host name "
				"(rendezvous hashing). Default 64.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 64,
			.min = 1,
			.max = 4096,
			.unit = "peers",
		},
	[PROBE_FLAG_PORT] =
		{
			.name = "port",
			.help = "UDP port of the probe discovery sideband, where peers ask for "
				"this node's probe QP; also the default port of targets. Default "
				"9879.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = 9879,
			.min = 1,
			.max = 65535,
			.unit = "(UDP port)",
		},
	[PROBE_FLAG_RESPONDER] =
		{
			.name = "responder",
			.help = "Answer other nodes' probes and discovery queries. Default on.",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 1,
		},
	[PROBE_FLAG_LISTEN_ADDRESS] =
		{
			.name = "listen-address",
			.help = "Local addresses of the discovery sideband, comma-separated IP "
				"literals (the port is --collector.probe.port). Default: the "
				"addresses of the RDMA netdevs (RoCE GIDs, IPoIB), never the "
				"wildcard.",
			.kind = COLLECTOR_FLAG_TEXT,
			.check = probe_bind_check,
			.metavar = "ADDR[,ADDR...]",
		},
	[PROBE_FLAG_SAMPLE_ROTATION] =
		{
			.name = "sample-rotation",
			.help = "Move the sample of --collector.probe.max-targets peers to "
				"another one this often (the series of the peers that leave are "
				"dropped). Default 0: a fixed sample, changed only by the "
				"targets file.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 0,
			.min = 0,
			.max = 7 * 24 * 3600 * 1000ull,
		},
	[PROBE_FLAG_SPIN_MAX] =
		{
			.name = "spin-max",
			.help = "Longest time the probe engine polls its completion queues "
				"without sleeping after a probe (twice the target's recent RTT, "
				"200us at least, this at most) and after the wake-up request sent "
				"before each probe to a remote target; then it sleeps on the "
				"completion channel. 0: never spin, no wake-up requests (the "
				"probes then hold both ends' thread wake-ups). Default 1ms.",
			.kind = COLLECTOR_FLAG_DURATION,
			.def = 1,
			.min = 0,
			.max = 100,
		},
	[PROBE_FLAG_TARGET_HISTOGRAMS] =
		{
			.name = "target-histograms",
			.help = "Export every probe target's RTT histograms with their classic "
				"buckets (rdma_probe_rtt_seconds, rdma_probe_network_rtt_seconds) "
				"and its other detail (last RTT, turnarounds, every error reason), "
				"53 series a target, and all of --collector.probe.target-detail. "
				"Default off: 4 a target when healthy (sent, replies, the sum of "
				"their RTTs, resolve errors), the distributions per port "
				"(rdma_probe_port_rtt_seconds); a scraper that takes native "
				"histograms (protobuf) gets each target's in full either way.",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 0,
		},
	[PROBE_FLAG_LOOPBACK_THREAD] =
		{
			.name = "loopback-thread",
			.help = "Answer each port's loopback probes from a second thread with its "
				"own QP, which polls from the wake-up request before a loopback "
				"probe until the probe (as ib_send_lat's second process), instead "
				"of the probe engine itself after its post returns; only where the "
				"process may run on two CPUs or more. Default off: in the "
				"Soft-RoCE VM it measured slower (docs/pingmesh.md).",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 0,
		},
	[PROBE_FLAG_WARMUPS] =
		{
			.name = "warmups",
			.help = "Wake-up requests sent before each probe, each after the "
				"previous one's reply, while --collector.probe.spin-max is above "
				"0: the first warms the responder (for loopback, this host's "
				"send path), the next ones the path as steady traffic keeps it, "
				"so that the probe measures the network rather than a cold "
				"host. 0: none. Default 2.",
			.kind = COLLECTOR_FLAG_UINT,
			.def = PROBE_WARMUPS_DEFAULT,
			.min = 0,
			.max = 8,
			.unit = "requests",
		},
	[PROBE_FLAG_TARGET_DETAIL] =
		{
			.name = "target-detail",
			.help = "Put back in the text exposition the probe series no shipped rule "
				"reads: each target's rdma_probe_rtt_seconds (+Inf bucket, _sum, "
				"_count) and rdma_probe_timeouts_total, each port's "
				"rdma_probe_port_network_rtt_seconds and "
				"rdma_probe_wakeup_requests_total; 8 series a target, 21 more a "
				"port. "
				"Default off: the protobuf exposition has them either way.",
			.kind = COLLECTOR_FLAG_BOOL,
			.def = 0,
		},
};

const struct collector_ops probe_collector_ops = {
	.name = "probe",
	.help = "Active RDMA latency probes: loopback on every ACTIVE port and a pingmesh",
	.default_enabled = true,
	.flags = probe_flags,
	.n_flags = PROBE_FLAG_COUNT_,
	.init = probe_init,
	.collect = probe_collect,
	.reload = probe_reload,
	.free = probe_free,
};
