// SPDX-License-Identifier: Apache-2.0
/*
 * The netlink collector under the poller, over the scripted transport
 * (nl_fake.h), with its requests never answered:
 *  - stuck: recv() blocks whatever its timeout (a dump hung in the kernel
 *    runs inside recvmsg(), which no socket timeout interrupts). The poll
 *    leaves the collector behind at --poll.collector-timeout and completes
 *    with the other collector's samples; released, it recovers.
 *  - silent: recv() waits out its timeout, as poll() on the real socket does.
 *    The collector's own budget (by default 3/4 of the poll's deadline) ends
 *    the run first: not left behind, its timeouts counted as netlink errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/log.h"
#include "daemon/poller.h"
#include "exposition_assert.h"
#include "netlink/netlink.h"
#include "nl_build.h"
#include "nl_fake.h"

enum mode {
	ANSWER, /* an empty device dump: no RDMA devices */
	SILENT,
	STUCK,
};

static enum mode mode; /* read and written with __atomic */
static int release[2] = {-1, -1};
static unsigned fast_collects;

static int reply(struct nl_fake *f, const struct nlmsghdr *rq, void *data)
{
	struct dg d;
	int r;

	(void)data;
	switch (__atomic_load_n(&mode, __ATOMIC_SEQ_CST)) {
	case SILENT:
		nl_fake_silent(f);
		return 0;
	case STUCK:
		nl_fake_stuck(f, release[0]);
		return 0;
	case ANSWER:
		break;
	}
	dg_init(&d);
	dg_done(&d, 0);
	r = nl_fake_push_dg(f, &d, rq->nlmsg_seq);
	dg_free(&d);
	return r;
}

static struct nl_transport *open_fake(void *data, int *err)
{
	struct nl_transport *t = nl_fake_new(reply, data, 4242);

	*err = t ? 0 : -ENOMEM;
	return t;
}

static int no_limits(const char *device, struct nl_limits *out, void *data)
{
	(void)device;
	(void)out;
	(void)data;
	return -EOPNOTSUPP;
}

static int netlink_fake_init(const struct collector_ctx *ctx, void **state)
{
	const struct netlink_seams seams = {
		.open_transport = open_fake,
		.query_limits = no_limits,
	};

	return netlink_collector_init_with(ctx, &seams, state);
}

static int fast_init(const struct collector_ctx *ctx, void **state)
{
	(void)ctx;
	*state = NULL;
	return 0;
}

static int fast_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	unsigned n = __atomic_add_fetch(&fast_collects, 1, __ATOMIC_SEQ_CST);

	(void)state;
	(void)stats;
	return metric_sink_add_u64(sink, "rdma_test_fast_run", "The run's number.", METRIC_GAUGE,
				   METRIC_NO_LABELS, n);
}

static void fast_free(void *state)
{
	(void)state;
}

static const struct collector_ops fast_ops = {
	.name = "fast",
	.help = "never blocks",
	.init = fast_init,
	.collect = fast_collect,
	.free = fast_free,
};

static struct poller *new_poller(struct snapshot_slot *slot, uint64_t timeout_ms)
{
	/* the netlink collector's own ops, its seams faked */
	static struct collector_ops nl_ops;
	static const struct collector_ops *const table[] = {&nl_ops, &fast_ops};
	static const bool enabled[] = {true, true};
	static uint64_t flags[2][CONFIG_MAX_COLLECTOR_FLAGS];
	struct poller_config pc = {
		.collectors = table,
		.n_collectors = 2,
		.enabled = enabled,
		.flag_values = (const uint64_t(*)[CONFIG_MAX_COLLECTOR_FLAGS])flags,
		.ctx = {.sysfs_fd = -1,
			.proc_root = "/nonexistent",
			.poll_interval_ms = 60000,
			.collector_timeout_ms = timeout_ms,
			.rescan_interval_s = 3600},
		.interval_ms = 60000,
		.fixed_interval = true,
		.proc_root = "/proc",
		.stop_timeout_ms = 2000,
	};
	struct poller *p;

	nl_ops = netlink_collector_ops;
	nl_ops.init = netlink_fake_init;
	/* the defaults: top processes, no --collector.netlink.timeout, attribution */
	for (unsigned i = 0; i < nl_ops.n_flags; i++)
		flags[0][i] = nl_ops.flags[i].def;
	snapshot_slot_init(slot);
	p = poller_new(&pc, slot);
	assert_non_null(p);
	return p;
}

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

/* A sample's value, -1 when the line is missing. */
static double value(const char *text, const char *series)
{
	char key[256];
	const char *l;

	snprintf(key, sizeof(key), "\n%s ", series);
	l = strstr(text, key);
	return l ? strtod(l + strlen(key), NULL) : -1;
}

static void test_stuck_left_behind(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	char *text = NULL, c = 1;

	(void)state;
	__atomic_store_n(&mode, STUCK, __ATOMIC_SEQ_CST);
	p = new_poller(&slot, 300);
	assert_int_equal(poller_poll_once(p), 0);
	text = scrape(&slot);
	assert_line(text, "rdma_test_fast_run 1");
	assert_line(text, "rdma_exporter_collector_stale{collector=\"netlink\"} 1");
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"netlink\"} 1");
	assert_line(text, "rdma_exporter_collector_success{collector=\"netlink\"} 0");
	assert_line(text, "rdma_exporter_collector_success{collector=\"fast\"} 1");
	/* nothing of the netlink run, its own self metrics included */
	assert_null(strstr(text, "rdma_exporter_netlink_"));
	free(text);
	text = NULL;

	/* the hung request ends (as a timeout); the next run gets answers */
	__atomic_store_n(&mode, ANSWER, __ATOMIC_SEQ_CST);
	assert_int_equal(write(release[1], &c, 1), 1);
	for (int i = 0; i < 500; i++) {
		free(text);
		assert_int_equal(poller_poll_once(p), 0);
		text = scrape(&slot);
		if (value(text, "rdma_exporter_collector_stale{collector=\"netlink\"}") == 0)
			break;
		usleep(10 * 1000);
	}
	assert_line(text, "rdma_exporter_collector_stale{collector=\"netlink\"} 0");
	assert_line(text, "rdma_exporter_collector_success{collector=\"netlink\"} 1");
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"netlink\"} 1");
	assert_non_null(strstr(text, "\nrdma_exporter_netlink_requests_total "));
	free(text);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

static void test_silent_ends_within_budget(void **state)
{
	struct snapshot_slot slot;
	struct poller *p;
	char *text;

	(void)state;
	__atomic_store_n(&mode, SILENT, __ATOMIC_SEQ_CST);
	/* the budget is 1.5 s of the 2 s deadline: room for a loaded machine */
	p = new_poller(&slot, 2000);
	assert_int_equal(poller_poll_once(p), 0);
	text = scrape(&slot);
	assert_line(text, "rdma_exporter_collector_stale{collector=\"netlink\"} 0");
	assert_line(text, "rdma_exporter_collector_timeouts_total{collector=\"netlink\"} 0");
	assert_true(value(text, "rdma_exporter_netlink_errors_total{reason=\"timeout\"}") >= 1);
	assert_non_null(strstr(text, "\nrdma_test_fast_run "));
	free(text);
	assert_int_equal(poller_free(p), 0);
	snapshot_slot_destroy(&slot);
}

static int setup(void **state)
{
	(void)state;
	log_set_level(LOG_ERR);
	return pipe(release);
}

static int teardown(void **state)
{
	(void)state;
	close(release[0]);
	close(release[1]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stuck_left_behind),
		cmocka_unit_test(test_silent_ends_within_budget),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
