// SPDX-License-Identifier: Apache-2.0
/*
 * The poller's bounded stop: a collector stuck in a read (a FIFO, a hung
 * driver) must not make shutdown wait forever. Its watchdog pings: sent
 * while it waits whatever the interval, never while the polling thread itself
 * is stuck (a collector stuck is left behind: test_poller_deadline.c). And what
 * one poll publishes: the text, the protobuf exposition with every family of
 * the text, and the gzip copy of each. And when a poll ends with
 * malloc_trim(): only after one bigger than every poll before it.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/log.h"
#include "daemon/poller.h"
#include "daemon/pollsched.h"
#include "exposition/histogram.h"
#include "metrics.pb-c.h"

/* The fake collector blocks in collect() until a byte arrives on release[0]. */
static int release[2] = {-1, -1};
static int entered[2] = {-1, -1};
static bool block_in_collect; /* read and written with __atomic */
static bool block_in_self_metrics;
static bool add_histogram;
static unsigned collects; /* fake_collect() runs */

static int fake_init(const struct collector_ctx *ctx, void **state)
{
	(void)ctx;
	*state = NULL;
	return 0;
}

static int fake_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	char c = 1;

	(void)state;
	(void)stats;
	__atomic_add_fetch(&collects, 1, __ATOMIC_SEQ_CST);
	if (add_histogram) {
		struct histogram h;

		assert_int_equal(histogram_init(&h, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS),
				 0);
		histogram_observe(&h, 3e-6);
		assert_int_equal(metric_sink_add_histogram_from(sink, "rdma_probe_rtt_seconds",
								"RTT.", METRIC_NO_LABELS, &h),
				 0);
		histogram_free(&h);
	}
	if (__atomic_load_n(&block_in_collect, __ATOMIC_SEQ_CST)) {
		assert_int_equal(write(entered[1], &c, 1), 1);
		/* blocks like a read of a FIFO without a writer */
		assert_int_equal(read(release[0], &c, 1), 1);
	}
	return 0;
}

static void fake_free(void *state)
{
	(void)state;
}

static const struct collector_ops fake_ops = {
	.name = "fake",
	.help = "blocks in collect() on demand",
	.default_enabled = true,
	.init = fake_init,
	.collect = fake_collect,
	.free = fake_free,
};
static const struct collector_ops *const table[] = {&fake_ops};
static const bool enabled[] = {true};

/* The polling thread's own work (the self_metrics seam) blocks on demand. */
static void blocking_self_metrics(void *arg, struct metric_sink *sink)
{
	char c = 1;

	(void)arg;
	(void)sink;
	if (__atomic_load_n(&block_in_self_metrics, __ATOMIC_SEQ_CST)) {
		assert_int_equal(write(entered[1], &c, 1), 1);
		assert_int_equal(read(release[0], &c, 1), 1);
	}
}

static void set_block(bool *flag, bool on)
{
	__atomic_store_n(flag, on, __ATOMIC_SEQ_CST);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* WATCHDOG=1 pings the poller sent (the watchdog_ping seam). */
static unsigned pings;

static void count_ping(void)
{
	__atomic_add_fetch(&pings, 1, __ATOMIC_SEQ_CST);
}

static unsigned pings_sent(void)
{
	return __atomic_load_n(&pings, __ATOMIC_SEQ_CST);
}

static struct poller *start_pinging(struct snapshot_slot *slot, uint64_t interval_ms,
				    uint64_t ping_ms, uint64_t stop_timeout_ms)
{
	const struct poller_config pc = {
		.collectors = table,
		.n_collectors = 1,
		.enabled = enabled,
		.ctx = {.sysfs_fd = -1},
		.interval_ms = interval_ms,
		.proc_root = "/proc",
		.watchdog_ping_ms = ping_ms,
		.watchdog_ping = count_ping,
		.stop_timeout_ms = stop_timeout_ms,
		.self_metrics = blocking_self_metrics,
	};
	struct poller *p;

	snapshot_slot_init(slot);
	p = poller_new(&pc, slot);
	assert_non_null(p);
	assert_int_equal(poller_start(p), 0);
	return p;
}

static struct poller *start(struct snapshot_slot *slot, uint64_t stop_timeout_ms)
{
	return start_pinging(slot, 10, 0, stop_timeout_ms);
}

static int setup(void **state)
{
	(void)state;
	log_set_level(LOG_ERR);
	if (pipe(release) != 0 || pipe(entered) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(release[0]);
	close(release[1]);
	close(entered[0]);
	close(entered[1]);
	return 0;
}

/* A poller between polls stops at once. */
static void test_stop_idle(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0;

	(void)state;
	set_block(&block_in_collect, false);
	p = start(&slot, 200);
	usleep(50 * 1000);
	t0 = now_ms();
	assert_int_equal(poller_stop(p), 0);
	assert_true(now_ms() - t0 < 200);
	/* stopping twice is harmless */
	assert_int_equal(poller_stop(p), 0);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/* A collector stuck in a read (its run left behind, its thread busy):
 * poller_stop gives up after the bound, says so, and can be called again
 * once the collector returns. */
static void test_stop_stuck_collector_bounded(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0, waited;
	char c = 1;

	(void)state;
	set_block(&block_in_collect, true);
	p = start(&slot, 300);
	/* the first poll is one interval after the start: wait until it blocks */
	assert_int_equal(read(entered[0], &c, 1), 1);

	t0 = now_ms();
	assert_int_equal(poller_stop(p), -ETIMEDOUT);
	waited = now_ms() - t0;
	assert_true(waited >= 250);
	assert_true(waited < 3000);
	/* poller_free refuses too: the thread still uses the poller */
	assert_int_equal(poller_free(p), -ETIMEDOUT);

	/* the read returns: the thread sees stop and ends */
	set_block(&block_in_collect, false);
	assert_int_equal(write(release[1], &c, 1), 1);
	assert_int_equal(poller_stop(p), 0);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * A poll interval far longer than the watchdog: the waiting thread pings on
 * its own schedule, so any --poll.interval works with any WatchdogSec=.
 */
static void test_watchdog_pinged_between_polls(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;

	(void)state;
	set_block(&block_in_collect, false);
	__atomic_store_n(&pings, 0, __ATOMIC_SEQ_CST);
	p = start_pinging(&slot, 3600 * 1000, 20, 200);
	usleep(300 * 1000);
	/* 15 expected; a loaded machine (or a sanitizer) may delay a few */
	assert_true(pings_sent() >= 5);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * A polling thread stuck in its own work (here the self metrics; a collector
 * stuck is left behind instead) sends no ping: systemd's watchdog catches it.
 */
static void test_watchdog_starved_by_stuck_poller(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	unsigned before_stuck;
	char c = 1;

	(void)state;
	set_block(&block_in_collect, false);
	set_block(&block_in_self_metrics, true);
	__atomic_store_n(&pings, 0, __ATOMIC_SEQ_CST);
	p = start_pinging(&slot, 10, 5, 200);
	assert_int_equal(read(entered[0], &c, 1), 1);
	before_stuck = pings_sent();
	usleep(200 * 1000);
	assert_int_equal(pings_sent(), before_stuck);

	set_block(&block_in_self_metrics, false);
	assert_int_equal(write(release[1], &c, 1), 1);
	/* once the poll returns, pings resume */
	for (int i = 0; i < 200 && pings_sent() == before_stuck; i++)
		usleep(10 * 1000);
	assert_true(pings_sent() > before_stuck);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/* What the stuck() seam answers: another part the watchdog stands for is stuck. */
static bool other_part_stuck;

static bool fake_stuck(void *arg)
{
	(void)arg;
	return __atomic_load_n(&other_part_stuck, __ATOMIC_SEQ_CST);
}

/* While stuck() says another part (the web server) is stuck, no ping goes out. */
static void test_watchdog_withheld_while_stuck(void **state)
{
	const struct poller_config pc = {
		.collectors = table,
		.n_collectors = 1,
		.enabled = enabled,
		.ctx = {.sysfs_fd = -1},
		.interval_ms = 3600 * 1000,
		.proc_root = "/proc",
		.watchdog_ping_ms = 10,
		.watchdog_ping = count_ping,
		.stuck = fake_stuck,
		.stop_timeout_ms = 200,
	};
	struct snapshot_slot slot;
	struct poller *p;
	unsigned before;

	(void)state;
	set_block(&block_in_collect, false);
	set_block(&other_part_stuck, false);
	__atomic_store_n(&pings, 0, __ATOMIC_SEQ_CST);
	snapshot_slot_init(&slot);
	p = poller_new(&pc, &slot);
	assert_non_null(p);
	assert_int_equal(poller_start(p), 0);
	for (int i = 0; i < 200 && pings_sent() == 0; i++)
		usleep(10 * 1000);
	assert_true(pings_sent() > 0);

	set_block(&other_part_stuck, true);
	usleep(50 * 1000); /* a ping on its way when it turned */
	before = pings_sent();
	usleep(200 * 1000);
	assert_int_equal(pings_sent(), before);

	set_block(&other_part_stuck, false);
	for (int i = 0; i < 200 && pings_sent() == before; i++)
		usleep(10 * 1000);
	assert_true(pings_sent() > before);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/* The names of the delimited MetricFamily messages, one a line, into names. */
static void proto_names(const uint8_t *p, size_t len, char *names, size_t cap)
{
	const uint8_t *end = p + len;

	names[0] = '\0';
	while (p < end) {
		Io__Prometheus__Client__MetricFamily *f;
		uint64_t n = 0;
		unsigned shift = 0;

		do {
			assert_true(p < end && shift < 64);
			n |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		assert_true(n <= (uint64_t)(end - p));
		f = io__prometheus__client__metric_family__unpack(NULL, n, p);
		assert_non_null(f);
		assert_true(strlen(names) + strlen(f->name) + 2 < cap);
		strcat(names, f->name);
		strcat(names, "\n");
		io__prometheus__client__metric_family__free_unpacked(f, NULL);
		p += n;
	}
}

/* One poll publishes the text, the protobuf with the same families, and both gzipped. */
static void test_poll_publishes_proto(void **state)
{
	const struct poller_config pc = {
		.collectors = table,
		.n_collectors = 1,
		.enabled = enabled,
		.ctx = {.sysfs_fd = -1},
		.interval_ms = 10,
		.proc_root = "/proc",
	};
	static char want[16384], got[16384];
	struct snapshot_slot slot;
	struct snapshot *snap;
	struct poller *p;
	const char *text, *pb;
	size_t len, pb_len;
	char *copy;

	(void)state;
	set_block(&block_in_collect, false);
	add_histogram = true;
	snapshot_slot_init(&slot);
	p = poller_new(&pc, &slot);
	assert_non_null(p);
	assert_int_equal(poller_poll_once(p), 0);
	snap = snapshot_slot_get(&slot);
	assert_non_null(snap);
	text = snapshot_text(snap, &len);
	want[0] = '\0';
	for (const char *l = text; (l = strstr(l, "# TYPE ")); l++) {
		size_t n = strcspn(l + 7, " ");

		assert_true(strlen(want) + n + 2 < sizeof(want));
		strncat(want, l + 7, n);
		strcat(want, "\n");
	}
	pb = snapshot_proto(snap, &pb_len);
	assert_non_null(pb);
	proto_names((const uint8_t *)pb, pb_len, got, sizeof(got));
	assert_string_equal(got, want);
	assert_non_null(strstr(got, "rdma_probe_rtt_seconds\n"));
	assert_non_null(strstr(got, "rdma_exporter_collector_success\n"));
	assert_non_null(snapshot_gzip(snap, &len));
	assert_non_null(snapshot_proto_gzip(snap, &len));
	snapshot_unref(snap);

	/* later polls only while requests ask for protobuf, and keep the
	 * plain text beside its gzip copy only while requests ask for it */
	assert_int_equal(poller_poll_once(p), 0);
	snap = snapshot_slot_get(&slot);
	assert_null(snapshot_proto(snap, &pb_len));
	assert_non_null(snapshot_gzip(snap, &len));
	assert_null(snapshot_text(snap, &len));
	assert_true(len > 0);
	copy = snapshot_text_copy(snap, &pb_len);
	assert_non_null(copy);
	assert_int_equal(pb_len, len);
	assert_non_null(strstr(copy, "# TYPE rdma_exporter_collector_success gauge\n"));
	free(copy);
	snapshot_unref(snap);
	poller_note_scrape(p, 1, false, 0.5, SNAPSHOT_WANTS_PROTO);
	assert_int_equal(poller_poll_once(p), 0);
	snap = snapshot_slot_get(&slot);
	assert_non_null(snapshot_proto(snap, &pb_len));
	assert_null(snapshot_text(snap, &len));
	snapshot_unref(snap);
	poller_note_scrape(p, 1, false, 0.5, SNAPSHOT_WANTS_PLAIN);
	assert_int_equal(poller_poll_once(p), 0);
	snap = snapshot_slot_get(&slot);
	assert_non_null(snapshot_text(snap, &len));
	assert_non_null(snapshot_gzip(snap, &len));
	snapshot_unref(snap);
	add_histogram = false;
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * Scrapes every 200 ms with a 1 h interval: aligned, the thread learns the
 * scraper and polls once per scrape (it authenticated: an unauthenticated
 * one gets polls 5 * --poll.min-interval apart at the most); fixed, it never
 * polls.
 */
static unsigned polls_for_scrapes(bool fixed)
{
	const struct poller_config pc = {
		.collectors = table,
		.n_collectors = 1,
		.enabled = enabled,
		.ctx = {.sysfs_fd = -1},
		.interval_ms = 3600 * 1000,
		.min_interval_ms = 100,
		.fixed_interval = fixed,
		.proc_root = "/proc",
		.watchdog_ping = count_ping,
	};
	struct snapshot_slot slot;
	struct poller *p;
	unsigned n;

	set_block(&block_in_collect, false);
	snapshot_slot_init(&slot);
	p = poller_new(&pc, &slot);
	assert_non_null(p);
	assert_int_equal(poller_start(p), 0);
	__atomic_store_n(&collects, 0, __ATOMIC_SEQ_CST);
	for (int i = 0; i < 15; i++) {
		poller_note_scrape(p, 42, true, 0.1, 0);
		usleep(200 * 1000);
	}
	n = __atomic_load_n(&collects, __ATOMIC_SEQ_CST);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
	return n;
}

static void test_scrapes_drive_polls(void **state)
{
	unsigned aligned;

	(void)state;
	aligned = polls_for_scrapes(false);
	/* learnt after 4 scrapes, then one poll per scrape; a loaded machine may miss some */
	assert_true(aligned >= 4);
	assert_true(aligned <= 15);
	assert_int_equal(polls_for_scrapes(true), 0);
}

/* The value of the sample line that starts with prefix in p's last poll, or -1. */
static long long sample_after_poll(struct poller *p, struct snapshot_slot *slot, const char *prefix)
{
	struct snapshot *snap;
	const char *l;
	char *copy, *text;
	long long v = -1;
	size_t len;

	assert_int_equal(poller_poll_once(p), 0);
	snap = snapshot_slot_get(slot);
	assert_non_null(snap);
	copy = snapshot_text_copy(snap, &len); /* not NUL-terminated */
	assert_non_null(copy);
	text = strndup(copy, len);
	free(copy);
	assert_non_null(text);
	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, prefix, strlen(prefix)) == 0)
			v = strtoll(l + strlen(prefix), NULL, 10);
	free(text);
	snapshot_unref(snap);
	return v;
}

static const struct poller_config aligned_pc = {
	.collectors = table,
	.n_collectors = 1,
	.enabled = enabled,
	.ctx = {.sysfs_fd = -1},
	.interval_ms = 15000,
	.min_interval_ms = 1000,
	.proc_root = "/proc",
	.watchdog_ping = count_ping,
};

/*
 * Issue 29: rdma_exporter_data_age_seconds said nothing of who was served
 * old data; one client could hide the staleness it caused Prometheus in an
 * average. A 15 s Prometheus is followed from its 4th scrape on
 * (scraper="followed"); a client at 2.7 s that came after it is not, and
 * all its requests count as scraper="other". On a fake clock.
 */
static void test_data_age_by_scraper(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0 = 1000000, prom = t0, client = t0 + 46000;
	unsigned n_prom = 0, n_client = 0;

	(void)state;
	block_in_collect = false;
	snapshot_slot_init(&slot);
	p = poller_new(&aligned_pc, &slot);
	assert_non_null(p);
	while (n_prom < 6 || n_client < 20) {
		if (n_prom < 6 && (n_client == 20 || prom <= client)) {
			poller_note_scrape_at(p, prom, 7, false, 0.05, 0);
			prom += 15000;
			n_prom++;
		} else {
			poller_note_scrape_at(p, client, 9, false, 1.25, 0);
			client += 2700;
			n_client++;
		}
	}
	assert_int_equal(
		sample_after_poll(p, &slot,
				  "rdma_exporter_data_age_seconds_count{scraper=\"followed\"} "),
		3);
	assert_int_equal(
		sample_after_poll(p, &slot,
				  "rdma_exporter_data_age_seconds_count{scraper=\"other\"} "),
		23);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * Issue 29: 16 established scrapers fill the schedule's table; a newcomer
 * is not tracked (it no longer pushes one out), and that shows.
 */
static void test_untracked_scrapers_counted(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0 = 1000000;
	const char *name = "rdma_exporter_scrapes_untracked_total ";

	(void)state;
	block_in_collect = false;
	snapshot_slot_init(&slot);
	p = poller_new(&aligned_pc, &slot);
	assert_non_null(p);
	for (uint64_t k = 0; k < 5; k++)
		for (uint64_t key = 100; key < 100 + POLLSCHED_MAX_SCRAPERS; key++)
			poller_note_scrape_at(p, t0 + k * 15000 + key, key, false, 0.05, 0);
	assert_int_equal(sample_after_poll(p, &slot, name), 0);
	poller_note_scrape_at(p, t0 + 5 * 15000, 999, false, 0.05, 0);
	poller_note_scrape_at(p, t0 + 5 * 15000 + 500, 1000, false, 0.05, 0);
	assert_int_equal(sample_after_poll(p, &slot, name), 2);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

static void test_trim_only_after_bigger_poll(void **state)
{
	size_t high = 0;

	(void)state;
	/* the first poll grew the heap from nothing */
	assert_true(poller_trim_due(160000, &high));
	assert_int_equal(high, 160000);
	/* the same poll again, or a smaller one, reuses its free pages */
	assert_false(poller_trim_due(160000, &high));
	assert_false(poller_trim_due(150000, &high));
	assert_int_equal(high, 160000);
	/* a protobuf scraper's encoding (or more series): bigger, once */
	assert_true(poller_trim_due(225000, &high));
	assert_false(poller_trim_due(225000, &high));
	/* the scraper gone: back to text alone, no trim, the mark stays */
	assert_false(poller_trim_due(160000, &high));
	assert_int_equal(high, 225000);
	/* an empty poll (no collector) never trims */
	high = 0;
	assert_false(poller_trim_due(0, &high));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_idle),
		cmocka_unit_test(test_stop_stuck_collector_bounded),
		cmocka_unit_test(test_watchdog_pinged_between_polls),
		cmocka_unit_test(test_watchdog_starved_by_stuck_poller),
		cmocka_unit_test(test_watchdog_withheld_while_stuck),
		cmocka_unit_test(test_poll_publishes_proto),
		cmocka_unit_test(test_scrapes_drive_polls),
		cmocka_unit_test(test_data_age_by_scraper),
		cmocka_unit_test(test_untracked_scrapers_counted),
		cmocka_unit_test(test_trim_only_after_bigger_poll),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
