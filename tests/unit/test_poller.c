// SPDX-License-Identifier: Apache-2.0
/*
 * The poller's bounded stop: a collector stuck in a read (a FIFO, a hung
 * driver) must not make shutdown wait forever.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "poller.h"

/* The fake collector blocks in collect() until a byte arrives on release[0]. */
static int release[2] = {-1, -1};
static int entered[2] = {-1, -1};
static bool block_in_collect;

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
	(void)sink;
	(void)stats;
	if (block_in_collect) {
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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static struct poller *start(struct snapshot_slot *slot, uint64_t stop_timeout_ms)
{
	const struct poller_config pc = {
		.collectors = table,
		.n_collectors = 1,
		.enabled = enabled,
		.ctx = {.sysfs_fd = -1},
		.interval_ms = 10,
		.proc_root = "/proc",
		.stop_timeout_ms = stop_timeout_ms,
	};
	struct poller *p;

	snapshot_slot_init(slot);
	p = poller_new(&pc, slot);
	assert_non_null(p);
	assert_int_equal(poller_start(p), 0);
	return p;
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
	block_in_collect = false;
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

/* A poll stuck in a collector: poller_stop gives up after the bound, says so,
 * and can be called again once the collector returns. */
static void test_stop_stuck_collector_bounded(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	uint64_t t0, waited;
	char c = 1;

	(void)state;
	block_in_collect = true;
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
	block_in_collect = false;
	assert_int_equal(write(release[1], &c, 1), 1);
	assert_int_equal(poller_stop(p), 0);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_idle),
		cmocka_unit_test(test_stop_stuck_collector_bounded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
