// SPDX-License-Identifier: Apache-2.0
/*
 * The devlink collector end to end on the mlx5-roce fixture tree (mlx5_0 on
 * 0000:41:00.0, mlx5_1 on 0000:41:00.1) with a scripted generic netlink
 * transport: the family look-up, the dump, reporters mapped to RDMA devices
 * (and those of other handles skipped), port reporters merged, a dump the
 * kernel interrupted read again; a kernel without devlink and a refused dump
 * as collector errors. Last, the real request to this host's kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dl_build.h"
#include "exposition_assert.h"
#include "nl_fake.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "collector.h"
#include "devlink.h"
#include "exposition/metrics.h"

#define FAKE_PORTID 4343u

/* What the fake kernel answers. */
struct world {
	int family_err;		  /* CTRL_CMD_GETFAMILY answers NLMSG_ERROR */
	int dump_err;		  /* the dump answers NLMSG_ERROR */
	unsigned interrupt;	  /* dumps to mark NLM_F_DUMP_INTR */
	unsigned families, dumps; /* requests seen */
};

static const struct dl_msg reporters[] = {
	{"pci", "0000:41:00.0", -1, "fw", 0, 0, 0},
	{"pci", "0000:41:00.0", -1, "fw_fatal", 1, 3, 2},
	/* the PF's two ports each have tx: one row, summed */
	{"pci", "0000:41:00.0", 1, "tx", 0, 4, 4},
	{"pci", "0000:41:00.0", 2, "tx", 1, 1, 0},
	{"pci", "0000:41:00.1", -1, "fw", 0, 7, 7},
	/* no RDMA device on these handles */
	{"pci", "0000:99:00.0", -1, "fw", 1, 9, 0},
	{"netdevsim", "netdevsim1", -1, "dummy", 1, 5, 5},
};

static void answer_dump(struct world *w, struct dg *d)
{
	uint16_t flags = NLM_F_MULTI;

	w->dumps++;
	if (w->dump_err) {
		dg_error(d, w->dump_err);
		return;
	}
	if (w->interrupt) {
		w->interrupt--;
		flags |= NLM_F_DUMP_INTR;
	}
	for (size_t i = 0; i < sizeof(reporters) / sizeof(reporters[0]); i++)
		dl_put_reporter(d, flags, &reporters[i]);
	dg_done(d, 0);
}

static int fake_reply(struct nl_fake *f, const struct nlmsghdr *nlh, void *data)
{
	struct world *w = data;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	struct dg d;

	dg_init(&d);
	if (nlh->nlmsg_type == GENL_ID_CTRL) {
		assert_int_equal(g->cmd, CTRL_CMD_GETFAMILY);
		w->families++;
		if (w->family_err)
			dg_error(&d, w->family_err);
		else
			dl_put_family(&d);
	} else {
		assert_int_equal(nlh->nlmsg_type, DL_FAMILY);
		assert_int_equal(g->cmd, DEVLINK_CMD_HEALTH_REPORTER_GET);
		assert_true(nlh->nlmsg_flags & NLM_F_DUMP);
		answer_dump(w, &d);
	}
	assert_int_equal(nl_fake_push_dg(f, &d, nlh->nlmsg_seq), 0);
	dg_free(&d);
	return 0;
}

static struct nl_transport *fake_open(void *data, int *err)
{
	struct nl_transport *t = nl_fake_new(fake_reply, data, FAKE_PORTID);

	assert_non_null(t);
	*err = 0;
	return t;
}

struct run {
	struct device_filter *filter;
	void *state;
	struct collector_stats stats;
	char *text;
	int root, rc;
};

/* The collector over the transport open() opens (NULL: none). */
static void run_start(struct run *r, nl_transport_open_fn open_fn, void *data, const char *exclude)
{
	const struct devlink_seams seams = {.open_transport = open_fn, .open_data = data};
	struct collector_ctx ctx = {0};
	char path[4096], err[256];
	const char *fixtures = getenv("FIXTURES");

	memset(r, 0, sizeof(*r));
	assert_non_null(fixtures);
	snprintf(path, sizeof(path), "%s/sysfs/mlx5-roce", fixtures);
	r->root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(r->root >= 0);
	r->filter = device_filter_new(NULL, exclude, err, sizeof(err));
	assert_non_null(r->filter);
	ctx.sysfs_fd = r->root;
	ctx.filter = r->filter;
	ctx.poll_interval_ms = 5000;
	assert_int_equal(devlink_collector_init_with(&ctx, &seams, &r->state), 0);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;

	assert_non_null(sink);
	memset(&r->stats, 0, sizeof(r->stats));
	r->rc = devlink_collector_ops.collect(r->state, sink, &r->stats);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	free(r->text);
	r->text = out.data ? buf_steal(&out, NULL) : strdup("");
	assert_non_null(r->text);
	buf_free(&out);
	metric_sink_free(sink);
}

/* A poll that fails as a whole with rc, and adds nothing. */
static void poll_fails(struct run *r, int rc)
{
	run_poll(r);
	assert_int_equal(r->rc, rc);
	assert_string_equal(r->text, "");
}

static void run_stop(struct run *r)
{
	devlink_collector_ops.free(r->state);
	device_filter_free(r->filter);
	free(r->text);
	close(r->root);
}

static void test_reporters_mapped(void **unused)
{
	struct world w = {0};
	struct run r;

	(void)unused;
	run_start(&r, fake_open, &w, NULL);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_line(r.text,
		    "rdma_devlink_health_errors_total{device=\"mlx5_0\",reporter=\"fw_fatal\"} 3");
	assert_line(
		r.text,
		"rdma_devlink_health_recoveries_total{device=\"mlx5_0\",reporter=\"fw_fatal\"} 2");
	assert_line(r.text, "rdma_devlink_health_state{device=\"mlx5_0\",reporter=\"fw_fatal\"} 1");
	assert_line(r.text, "rdma_devlink_health_state{device=\"mlx5_0\",reporter=\"fw\"} 0");
	assert_line(r.text,
		    "rdma_devlink_health_errors_total{device=\"mlx5_0\",reporter=\"tx\"} 5");
	assert_line(r.text, "rdma_devlink_health_state{device=\"mlx5_0\",reporter=\"tx\"} 1");
	assert_line(r.text,
		    "rdma_devlink_health_recoveries_total{device=\"mlx5_1\",reporter=\"fw\"} 7");
	assert_line(r.text, "# TYPE rdma_devlink_health_errors_total counter");
	assert_line(r.text, "# TYPE rdma_devlink_health_state gauge");
	/* reporters of handles without an RDMA device are skipped */
	assert_null(strstr(r.text, "dummy"));
	assert_null(strstr(r.text, "device=\"\""));
	assert_null(strstr(r.text, "9 "));
	assert_int_equal(r.stats.devices, 2);
	assert_int_equal(r.stats.read_errors, 0);
	/* the family is resolved once, the dump runs every poll */
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(w.families, 1);
	assert_int_equal(w.dumps, 2);
	run_stop(&r);
}

static void test_device_filter(void **unused)
{
	struct world w = {0};
	struct run r;

	(void)unused;
	run_start(&r, fake_open, &w, "mlx5_0");
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_null(strstr(r.text, "mlx5_0"));
	assert_line(r.text,
		    "rdma_devlink_health_errors_total{device=\"mlx5_1\",reporter=\"fw\"} 7");
	run_stop(&r);
}

static void test_interrupted_dump_read_again(void **unused)
{
	struct world w = {.interrupt = 1};
	struct run r;

	(void)unused;
	run_start(&r, fake_open, &w, NULL);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(w.dumps, 2);
	assert_line(r.text,
		    "rdma_devlink_health_errors_total{device=\"mlx5_0\",reporter=\"tx\"} 5");
	run_stop(&r);
}

static void test_no_devlink_in_kernel(void **unused)
{
	struct world w = {.family_err = -ENOENT};
	struct run r;

	(void)unused;
	run_start(&r, fake_open, &w, NULL);
	/* nothing to report, not a failure: no driver has a reporter */
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.text, "");
	assert_int_equal(w.dumps, 0);
	/* asked again next poll, never a crash */
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(w.families, 2);
	run_stop(&r);
}

static void test_dump_refused(void **unused)
{
	struct world w = {.dump_err = -EPERM};
	struct run r;

	(void)unused;
	run_start(&r, fake_open, &w, NULL);
	poll_fails(&r, -EPERM);
	/* the kernel allows it again: samples come back */
	w.dump_err = 0;
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_line(r.text, "rdma_devlink_health_state{device=\"mlx5_0\",reporter=\"fw_fatal\"} 1");
	run_stop(&r);
}

static void test_no_transport(void **unused)
{
	struct run r;

	(void)unused;
	run_start(&r, NULL, NULL, NULL);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_string_equal(r.text, "");
	run_stop(&r);
}

/* The real request over NETLINK_GENERIC to the running kernel. */
static int real_dump(void)
{
	struct run r;
	int rc;

	run_start(&r, nl_socket_open_genl, NULL, NULL);
	run_poll(&r);
	rc = r.rc;
	printf("# real devlink dump: rc=%d read_errors=%llu samples=%s\n", rc,
	       (unsigned long long)r.stats.read_errors, r.text[0] ? "some" : "none");
	/* A clean answer (no reporter on the fixture's PCI addresses), also
	 * from a kernel without devlink: anything else is a bug on this side. */
	assert_int_equal(rc, 0);
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	return rc;
}

/*
 * Needs no capability: the same dump as nobody (from root, with every
 * capability dropped by the uid change) gets the same answer, not -EPERM.
 * A test run as another user already is unprivileged: the dump above says it.
 */
static void test_real_kernel(void **unused)
{
	int rc = real_dump(), status;
	pid_t pid;

	(void)unused;
	if (geteuid() != 0)
		return;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(90);
		_exit(real_dump() == rc ? 0 : 91);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reporters_mapped),
		cmocka_unit_test(test_device_filter),
		cmocka_unit_test(test_interrupted_dump_read_again),
		cmocka_unit_test(test_no_devlink_in_kernel),
		cmocka_unit_test(test_dump_refused),
		cmocka_unit_test(test_no_transport),
		cmocka_unit_test(test_real_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
