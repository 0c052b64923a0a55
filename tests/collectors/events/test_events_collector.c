// SPDX-License-Identifier: Apache-2.0
/* The events collector with its thread, on this host (no RDMA device needed):
 * init, collects with the loopback netdev published as an RDMA netdev (its
 * rtnetlink dump makes its carrier series appear at 0 in the poll that
 * published it), a netdev that does not exist here (no series), the
 * published set growing between polls, and free while the thread waits.
 * Under TSan it checks the lock between the thread and collect(). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/netdevs.h"
#include "events.h"

struct run {
	struct netdev_set rdma;
	struct collector_ctx ctx;
	void *st;
};

static void publish(struct run *r, const char *const *names, uint64_t gen)
{
	netdev_set_begin(&r->rdma);
	for (; *names; names++)
		assert_int_equal(netdev_set_add(&r->rdma, *names), 0);
	assert_int_equal(netdev_set_commit(&r->rdma, gen), 0);
}

/* One collect(): its exposition text (caller frees). */
static char *collect(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};
	struct buf out = BUF_INIT;
	char *text;

	assert_non_null(sink);
	assert_int_equal(events_collector_ops.collect(r->st, sink, &stats), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	metric_sink_free(sink);
	text = buf_steal(&out, NULL);
	return text ? text : strdup(""); /* nothing rendered: no buffer */
}

static void test_lifecycle(void **unused)
{
	static struct run r;
	const char *const first[] = {"rdma-no-such0", NULL};
	const char *const second[] = {"rdma-no-such0", "lo", NULL};
	char *text;

	(void)unused;
	memset(&r, 0, sizeof(r));
	netdev_set_init(&r.rdma);
	r.ctx.sysfs_fd = -1;
	r.ctx.poll_interval_ms = 1000;
	r.ctx.rdma_netdevs = &r.rdma;
	assert_int_equal(events_collector_ops.init(&r.ctx, &r.st), 0);

	publish(&r, first, 1);
	text = collect(&r);
	assert_null(strstr(text, "rdma-no-such0"));
	free(text);

	/* lo joins between two polls: its series is there, at 0, in the poll
	 * that published it (lo has no carrier to lose here) */
	publish(&r, second, 2);
	text = collect(&r);
	assert_non_null(strstr(text, "rdma_netdev_carrier_changes_total{netdev=\"lo\"} 0\n"));
	assert_null(strstr(text, "rdma-no-such0"));
	free(text);
	text = collect(&r);
	assert_non_null(strstr(text, "rdma_netdev_carrier_changes_total{netdev=\"lo\"} 0\n"));
	free(text);

	events_collector_ops.free(r.st);
	events_collector_ops.free(NULL);
	netdev_set_free(&r.rdma);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
