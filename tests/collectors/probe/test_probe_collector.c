// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's life cycle on a host without RDMA devices (every build
 * machine here): init starts the engine thread, collect reports no device and
 * succeeds without blocking, free stops and joins the thread, repeatedly, with
 * every flag value taken. The probing itself needs a real verbs device and is
 * tested in the Soft-RoCE VM (tests/vm/guest-e2e.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "buf.h"
#include "log.h"
#include "probe.h"

static void test_lifecycle_without_devices(void **state)
{
	const uint64_t flags[PROBE_FLAG_COUNT_] = {
		[PROBE_FLAG_INTERVAL] = 100, [PROBE_FLAG_COUNT] = 3, [PROBE_FLAG_TIMEOUT] = 10};
	struct collector_ctx ctx = {.sysfs_fd = -1, .flags = flags};

	for (int round = 0; round < 5; round++) {
		struct metric_sink *sink = metric_sink_new();
		struct collector_stats stats = {0};
		struct timespec pause = {0, 20 * 1000 * 1000};
		struct buf out = BUF_INIT;
		void *st = NULL;

		assert_non_null(sink);
		assert_int_equal(probe_collector_ops.init(&ctx, &st), 0);
		assert_non_null(st);
		nanosleep(&pause, NULL); /* let the engine run a sync */
		assert_int_equal(probe_collector_ops.collect(st, sink, &stats), 0);
		assert_int_equal(stats.devices, 0);
		assert_int_equal(stats.read_errors, 0);
		assert_int_equal(metric_sink_samples(sink), 0);
		assert_int_equal(metric_sink_render(sink, &out), 0);
		assert_int_equal(out.len, 0);
		buf_free(&out);
		metric_sink_free(sink);
		probe_collector_ops.free(st);
	}
	probe_collector_ops.free(NULL);
}

static void test_flags_declared(void **state)
{
	assert_int_equal(probe_collector_ops.n_flags, PROBE_FLAG_COUNT_);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_INTERVAL].name, "interval");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_INTERVAL].def, 10000);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_COUNT].name, "count");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_COUNT].def, 5);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_TIMEOUT].name, "timeout");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_TIMEOUT].def, 1000);
	assert_true(probe_collector_ops.default_enabled);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle_without_devices),
		cmocka_unit_test(test_flags_declared),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
