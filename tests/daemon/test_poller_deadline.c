// SPDX-License-Identifier: Apache-2.0
/*
 * Collectors under a deadline (--poll.collector-timeout): a collector that
 * blocks (a hung read) is left behind and the poll completes with the other
 * collectors' fresh samples, the blocked one's absent (even those it added
 * before blocking), rdma_exporter_collector_stale 1 and its timeouts counted.
 * Later polls skip it without waiting; the watchdog keeps being pinged; a
 * SIGHUP reaches it on its own thread once it is back; poller_stop() gives up
 * on it in time; once released it recovers. The first poll, on the caller's
 * thread (before the web server starts), is bounded the same way.
 *
 * Bounds on time here are generous (the deadline or a second, never tight):
 * they check that nothing waits for the blocked collector, not how fast.
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
#include "exposition_assert.h"

/* One fake collector: what it did, from which thread, and whether it blocks. */
struct fake {
	const char *name;
	bool block; /* the next collect() blocks until a byte on release[0] */
	unsigned collects, reloads;
	unsigned foreign; /* calls not on its own thread "rdma-c-NAME" */
	unsigned collects_at_reload;
};

static struct fake fakes[2] = {{.name = "block"}, {.name = "fast"}};
static int release[2] = {-1, -1};
static int entered[2] = {-1, -1};

#define LOAD(x)	    __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)
#define INC(x)	    __atomic_add_fetch(&(x), 1, __ATOMIC_SEQ_CST)

static void check_thread(struct fake *f)
{
	char name[16] = "", want[16];

	snprintf(want, sizeof(want), "rdma-c-%s", f->name);
	pthread_getname_np(pthread_self(), name, sizeof(name));
	if (strcmp(name, want) != 0)
		INC(f->foreign);
}

static int fake_init(const struct collector_ctx *ctx, void **state)
{
	/* the first table entry is "block", the second "fast" (by flags) */
	*state = &fakes[ctx->flags ? ctx->flags[0] : 0];
	return 0;
}

static int fake_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct fake *f = state;
	char c = 1, family[64];
	unsigned run;

	check_thread(f);
	run = INC(f->collects);
	stats->devices = 1;
	/* The run's number, added before blocking: a run left behind must
	 * never be served, not even after it ended. */
	snprintf(family, sizeof(family), "rdma_test_%s_run", f->name);
	assert_int_equal(metric_sink_add_u64(sink, family, "The run's number.", METRIC_GAUGE,
					     METRIC_NO_LABELS, run),
			 0);
	if (LOAD(f->block)) {
		assert_int_equal(write(entered[1], &c, 1), 1);
		assert_int_equal(read(release[0], &c, 1), 1);
	}
	return 0;
}

static void fake_reload(void *state)
{
	struct fake *f = state;

	check_thread(f);
	STORE(f->collects_at_reload, LOAD(f->collects));
	INC(f->reloads);
}

static void fake_free(void *state)
{
	(void)state;
}

static const struct collector_ops block_ops = {
	.name = "block",
	.help = "blocks in collect() on demand",
	.default_enabled = true,
	.init = fake_init,
	.collect = fake_collect,
	.reload = fake_reload,
	.free = fake_free,
};
static const struct collector_ops fast_ops = {
	.name = "fast",
	.help = "never blocks",
	.default_enabled = true,
	.init = fake_init,
	.collect = fake_collect,
	.reload = fake_reload,
	.free = fake_free,
};
/* the blocking one first: the poll must go on past it */
static const struct collector_ops *const table[] = {&block_ops, &fast_ops};
static const bool enabled[] = {true, true};
static const uint64_t which[2][CONFIG_MAX_COLLECTOR_FLAGS] = {{0}, {1}};
static const struct collector_flag index_flag = {.name = "index", .kind = COLLECTOR_FLAG_UINT};

/* WATCHDOG=1 pings (the watchdog_ping seam). */
static unsigned pings;

static void count_ping(void)
{
	INC(pings);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct poller *new_poller(struct snapshot_slot *slot, uint64_t interval_ms,
				 uint64_t timeout_ms, uint64_t ping_ms, uint64_t stop_timeout_ms)
{
	static struct collector_ops ops[2];
	static const struct collector_ops *const with_flags[] = {&ops[0], &ops[1]};
	struct poller_config pc = {
		.collectors = with_flags,
		.n_collectors = 2,
		.enabled = enabled,
		.flag_values = which,
		.ctx = {.sysfs_fd = -1, .collector_timeout_ms = timeout_ms},
		.interval_ms = interval_ms,
		.fixed_interval = true,
		.proc_root = "/proc",
		.watchdog_ping_ms = ping_ms,
		.watchdog_ping = count_ping,
		.stop_timeout_ms = stop_timeout_ms,
	};
	struct poller *p;

	/* the table's ops with one flag, so that init knows which fake it is */
	for (int i = 0; i < 2; i++) {
		ops[i] = *table[i];
		ops[i].flags = &index_flag;
		ops[i].n_flags = 1;
	}
	for (int i = 0; i < 2; i++)
		fakes[i] = (struct fake){.name = fakes[i].name};
	STORE(pings, 0);
	snapshot_slot_init(slot);
	p = poller_new(&pc, slot);
	assert_non_null(p);
	return p;
}

/* The text of the last poll (a copy to free). */
static char *scrape(struct snapshot_slot *slot)
{
	struct snapshot *snap = snapshot_slot_get(slot);
	size_t len;
	char *text, *copy;

	assert_non_null(snap);
	copy = snapshot_text_copy(snap, &len);
	assert_non_null(copy);
	snapshot_unref(snap);
	/* the copy is not a string: one with its NUL */
	text = malloc(len + 1);
	assert_non_null(text);
	memcpy(text, copy, len);
	text[len] = '\0';
	free(copy);
	return text;
}

static void wait_entered(void)
{
	char c;

	assert_int_equal(read(entered[0], &c, 1), 1);
}

static void unblock(void)
{
	char c = 1;

	STORE(fakes[0].block, false);
	assert_int_equal(write(release[1], &c, 1), 1);
}

/* A value of the "block" collector's self metric, -1 when the line is missing. */
static double block_metric(const char *text, const char *family)
{
	char key[128];
	const char *l;

	snprintf(key, sizeof(key), "\n%s{collector=\"block\"} ", family);
	l = strstr(text, key);
	return l ? strtod(l + strlen(key), NULL) : -1;
}

/* Polls on this thread until the blocked collector's run is back in time. */
static char *poll_until_fresh(struct poller *p, struct snapshot_slot *slot)
{
	for (int i = 0; i < 500; i++) {
		char *text;

		assert_int_equal(poller_poll_once(p), 0);
		text = scrape(slot);
		if (block_metric(text, "rdma_exporter_collector_stale") == 0)
			return text;
		free(text);
		usleep(10 * 1000);
	}
	fail_msg("the released collector never came back");
	return NULL;
}

/*
 * The first poll (poller_poll_once on the caller's thread, as the daemon
 * runs it before the web server starts) with a collector that blocks: it
 * returns after about the deadline with the other's samples; later polls
 * skip the blocked one without waiting; once released it recovers.
 */
static void test_first_poll_leaves_blocked_collector(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0, took;
	char *text;

	(void)state;
	p = new_poller(&slot, 60000, 1000, 0, 2000);
	STORE(fakes[0].block, true);
	t0 = now_ms();
	assert_int_equal(poller_poll_once(p), 0);
	took = now_ms() - t0;
	wait_entered();
	/* waited for the deadline, not for the collector */
	assert_true(took >= 1000);
	assert_true(took < 10000);
	text = scrape(&slot);
	assert_line(text, "rdma_test_fast_run 1");
	assert_null(strstr(text, "rdma_test_block_run"));
	assert_line(text, "rdma_exporter_collector_stale{collector=\"block\"} 1");
	assert_line(text, "rdma_exporter_collector_stale{collector=\"fast\"} 0");
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"block\"} 1");
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"fast\"} 0");
	assert_line(text, "rdma_exporter_collector_success{collector=\"block\"} 0");
	assert_line(text, "rdma_exporter_collector_success{collector=\"fast\"} 1");
	assert_line(text, "rdma_exporter_collector_stale_seconds{collector=\"fast\"} 0");
	/* no run of it completed yet: no duration, no devices to tell */
	assert_true(block_metric(text, "rdma_exporter_collector_duration_seconds") < 0);
	assert_true(block_metric(text, "rdma_exporter_collector_devices") < 0);
	free(text);

	/* still blocked: skipped at once (a wait would take the 1 s deadline) */
	usleep(20 * 1000);
	t0 = now_ms();
	assert_int_equal(poller_poll_once(p), 0);
	took = now_ms() - t0;
	assert_true(took < 1000);
	assert_int_equal(LOAD(fakes[0].collects), 1);
	assert_int_equal(LOAD(fakes[1].collects), 2);
	text = scrape(&slot);
	assert_line(text, "rdma_test_fast_run 2");
	assert_null(strstr(text, "rdma_test_block_run"));
	assert_line(text, "rdma_exporter_collector_stale{collector=\"block\"} 1");
	/* a skip is no new timeout */
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"block\"} 1");
	assert_true(block_metric(text, "rdma_exporter_collector_stale_seconds") > 0);
	free(text);

	/* released: the late run's samples are dropped, the next run's served */
	unblock();
	text = poll_until_fresh(p, &slot);
	assert_line(text, "rdma_test_block_run 2");
	assert_non_null(strstr(text, "\nrdma_test_fast_run "));
	assert_line(text, "rdma_exporter_collector_success{collector=\"block\"} 1");
	assert_line(text, "rdma_exporter_collector_stale_seconds{collector=\"block\"} 0");
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"block\"} 1");
	assert_line(text, "rdma_exporter_collector_devices{collector=\"block\"} 1");
	assert_true(block_metric(text, "rdma_exporter_collector_duration_seconds") >= 0);
	free(text);
	assert_int_equal(LOAD(fakes[0].foreign), 0);
	assert_int_equal(LOAD(fakes[1].foreign), 0);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * A run that ends between two polls, late: the next poll serves the next
 * run's samples, never the late one's.
 */
static void test_late_run_dropped(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	char *text;

	(void)state;
	p = new_poller(&slot, 60000, 50, 0, 2000);
	STORE(fakes[0].block, true);
	assert_int_equal(poller_poll_once(p), 0);
	wait_entered();
	unblock();
	text = poll_until_fresh(p, &slot);
	assert_no_line(text, "rdma_test_block_run 1");
	assert_line(text, "rdma_test_block_run 2");
	free(text);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * The polling thread with a collector blocked for good: polls go on with
 * the other's samples, and the watchdog is pinged at its pace throughout
 * (waiting for the deadline included), so no restart loop.
 */
static void test_watchdog_pinged_while_left_behind(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	unsigned fast_before, pings_before;

	(void)state;
	p = new_poller(&slot, 100, 60, 20, 2000);
	STORE(fakes[0].block, true);
	assert_int_equal(poller_poll_once(p), 0);
	wait_entered();
	assert_int_equal(poller_start(p), 0);
	fast_before = LOAD(fakes[1].collects);
	pings_before = LOAD(pings);
	usleep(500 * 1000);
	/* 25 pings and 5 polls expected; a loaded machine may delay a few */
	assert_true(LOAD(pings) - pings_before >= 8);
	assert_true(LOAD(fakes[1].collects) - fast_before >= 2);
	assert_int_equal(LOAD(fakes[0].collects), 1);

	unblock();
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/* While the first poll waits out a long deadline, pings keep coming too. */
static void test_watchdog_pinged_during_the_wait(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;

	(void)state;
	p = new_poller(&slot, 60000, 400, 20, 2000);
	STORE(fakes[0].block, true);
	assert_int_equal(poller_poll_once(p), 0);
	wait_entered();
	/* 20 expected over the 400 ms wait */
	assert_true(LOAD(pings) >= 5);
	unblock();
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * SIGHUP while a collector is blocked: the other reloads on its own thread
 * at once, the blocked one when it is back, before its next collect().
 */
static void test_reload_delivered_later(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	char *text;

	(void)state;
	p = new_poller(&slot, 50, 30, 0, 2000);
	STORE(fakes[0].block, true);
	assert_int_equal(poller_poll_once(p), 0);
	wait_entered();
	assert_int_equal(poller_start(p), 0);
	poller_request_reload(p);
	for (int i = 0; i < 500 && LOAD(fakes[1].reloads) == 0; i++)
		usleep(2000);
	assert_int_equal(LOAD(fakes[1].reloads), 1);
	usleep(100 * 1000);
	assert_int_equal(LOAD(fakes[0].reloads), 0);

	unblock();
	for (int i = 0; i < 500 && LOAD(fakes[0].reloads) == 0; i++)
		usleep(2000);
	assert_int_equal(LOAD(fakes[0].reloads), 1);
	/* after the run that blocked, before the next one */
	assert_int_equal(LOAD(fakes[0].collects_at_reload), 1);
	assert_int_equal(poller_stop(p), 0);
	text = scrape(&slot);
	free(text);
	assert_int_equal(LOAD(fakes[0].foreign), 0);
	assert_int_equal(LOAD(fakes[1].foreign), 0);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

/*
 * poller_stop() while the polling thread waits out a deadline far longer
 * than the stop bound, for a collector that never returns: the wait ends,
 * the stop gives up on the collector's thread after its bound
 * (-ETIMEDOUT, nothing freed), and succeeds once the collector returns.
 */
static void test_stop_while_waiting(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0, waited;

	(void)state;
	p = new_poller(&slot, 60000, 30000, 0, 300);
	assert_int_equal(poller_poll_once(p), 0);
	STORE(fakes[0].block, true);
	assert_int_equal(poller_start(p), 0);
	poller_request_reload(p); /* a poll at once */
	wait_entered();
	t0 = now_ms();
	assert_int_equal(poller_stop(p), -ETIMEDOUT);
	waited = now_ms() - t0;
	assert_true(waited >= 250);
	assert_true(waited < 10000);
	assert_int_equal(poller_free(p), -ETIMEDOUT);

	unblock();
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_poll_leaves_blocked_collector),
		cmocka_unit_test(test_late_run_dropped),
		cmocka_unit_test(test_watchdog_pinged_while_left_behind),
		cmocka_unit_test(test_watchdog_pinged_during_the_wait),
		cmocka_unit_test(test_reload_delivered_later),
		cmocka_unit_test(test_stop_while_waiting),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
