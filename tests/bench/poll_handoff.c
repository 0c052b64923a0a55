// SPDX-License-Identifier: Apache-2.0
/*
 * poll-handoff: what running each collector on a thread of its own (issue
 * 29, --poll.collector-timeout) costs a poll, apart from the collectors'
 * own work. N collectors that each add S samples, polled P times with
 * poller_poll_once() (rendering, gzip and all); prints the process CPU and
 * wall time per poll and the context switches per poll. Built against a
 * poller that runs the collectors inline, the same source gives the
 * "before" figures. Prints figures, asserts nothing.
 *
 *   poll-handoff [N [S [P]]]     defaults 4 collectors, 500 samples, 2000 polls
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/log.h"
#include "daemon/poller.h"

static unsigned samples = 500;
static char names[16][16];
static unsigned inits;

/* inits run one after the other, in table order: the state is the name */
static int bench_init(const struct collector_ctx *ctx, void **state)
{
	(void)ctx;
	*state = names[inits++];
	return 0;
}

/* S samples of one family, labelled by collector and index: a small collector's output. */
static int bench_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	char idx[16];

	stats->devices = 1;
	for (unsigned i = 0; i < samples; i++) {
		snprintf(idx, sizeof(idx), "%u", i);
		metric_sink_add_u64(
			sink, "rdma_bench_value_total", "A bench counter.", METRIC_COUNTER,
			METRIC_LABELS({"collector", (const char *)state}, {"index", idx}), i);
	}
	return 0;
}

static void bench_free(void *state)
{
	(void)state;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 4;
	unsigned polls = argc > 3 ? (unsigned)atoi(argv[3]) : 2000;
	static struct collector_ops ops[16];
	static const struct collector_ops *table[16];
	static bool enabled[16];
	struct snapshot_slot slot;
	struct poller *p;
	double c0, w0;
	long s0;

	if (argc > 2)
		samples = (unsigned)atoi(argv[2]);
	if (n < 1 || n > 16 || polls < 1) {
		fprintf(stderr, "usage: poll-handoff [N (1..16) [SAMPLES [POLLS]]]\n");
		return 2;
	}
	log_set_level(LOG_ERR);
	for (unsigned i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "bench%u", i);
		ops[i] = (struct collector_ops){.name = names[i],
						.help = "bench",
						.init = bench_init,
						.collect = bench_collect,
						.free = bench_free};
		table[i] = &ops[i];
		enabled[i] = true;
	}
	snapshot_slot_init(&slot);
	p = poller_new(&(struct poller_config){.collectors = table,
					       .n_collectors = n,
					       .enabled = enabled,
					       .ctx = {.sysfs_fd = -1},
					       .interval_ms = 60000,
					       .proc_root = "/proc"},
		       &slot);
	if (!p)
		return 1;
	for (unsigned i = 0; i < 20; i++) /* warm-up: the heap, the threads */
		poller_poll_once(p);
	c0 = cpu_s();
	w0 = wall_s();
	s0 = switches();
	for (unsigned i = 0; i < polls; i++)
		poller_poll_once(p);
	printf("poll-handoff: %u collectors x %u samples, %u polls\n", n, samples, polls);
	printf("CPU us/poll            %.1f\n", (cpu_s() - c0) * 1e6 / polls);
	printf("wall us/poll           %.1f\n", (wall_s() - w0) * 1e6 / polls);
	printf("context switches/poll  %.2f\n", (double)(switches() - s0) / polls);
	poller_free(p);
	snapshot_slot_destroy(&slot);
	return 0;
}
