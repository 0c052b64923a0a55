// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's hw counters over RDMA netlink (sysfs_hwnl.c), run
 * end to end on the rxe fixture tree with a scripted netlink transport: one
 * STAT_GET per port replaces the hw_counters reads when every file has an
 * entry of its name, and the files are read on any failure. The transport
 * answers with values that differ from the files, so each line says which
 * path gave it. While netlink serves the port, its hw_counters files hold no
 * file descriptor; they are opened when the port falls back to them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"
#include "nl_build.h"
#include "nl_fake.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "sysfs.h"

#define FAKE_PORTID 4242u
#define DEV_INDEX   7u

/* The 15 hw_counters files of the rxe fixture (lifespan is not a counter). */
static const char *const rxe_names[] = {
	"ack_deferred",	      "completer_retry_err", "duplicate_request",  "link_downed",
	"out_of_seq_request", "rcvd_pkts",	     "rcvd_rnr_err",	   "rcvd_seq_err",
	"rdma_recvs",	      "rdma_sends",	     "retry_exceeded_err", "retry_rnr_exceeded_err",
	"send_err",	      "send_rnr_err",	     "sent_pkts",
};
#define N_RXE (sizeof(rxe_names) / sizeof(rxe_names[0]))

/* What the fake kernel answers. */
struct world {
	const char *names[N_RXE + 2];
	uint64_t values[N_RXE + 2];
	size_t n;
	int open_err;	      /* the socket cannot be opened */
	int stat_err;	      /* STAT_GET answers NLMSG_ERROR with this */
	unsigned stat_ok;     /* ... after this many successful STAT_GETs */
	unsigned gets, stats; /* requests seen */
};

static void answer_stat(struct world *w, struct dg *d, uint32_t dev, uint32_t port)
{
	struct nlmsghdr *nlh;
	struct nlattr *t;

	w->stats++;
	if (w->stat_err && w->stats > w->stat_ok) {
		dg_error(d, w->stat_err);
		return;
	}
	assert_int_equal(dev, DEV_INDEX);
	nlh = dg_dev_msg(d, RDMA_NLDEV_CMD_STAT_GET, 0, dev, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (size_t i = 0; i < w->n; i++)
		put_stat(nlh, w->names[i], w->values[i]);
	mnl_attr_nest_end(nlh, t);
}

/* The device dump names two devices; a STAT_GET answers from the world. */
static int fake_reply(struct nl_fake *f, const struct nlmsghdr *nlh, void *data)
{
	struct world *w = data;
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {0};
	uint16_t cmd = nlh->nlmsg_type & 0x3ff;
	struct dg d;

	assert_int_equal(nl_fake_attrs(nlh, tb), MNL_CB_OK);
	dg_init(&d);
	if (cmd == RDMA_NLDEV_CMD_GET) {
		w->gets++;
		/* another device first: the index is looked up by name */
		dg_dev_msg(&d, cmd, NLM_F_MULTI, 1, "mlx5_0");
		dg_dev_msg(&d, cmd, NLM_F_MULTI, DEV_INDEX, "rxe0");
		dg_done(&d, 0);
	} else {
		assert_int_equal(cmd, RDMA_NLDEV_CMD_STAT_GET);
		assert_non_null(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
		answer_stat(w, &d, mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]),
			    mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]));
	}
	assert_int_equal(nl_fake_push_dg(f, &d, nlh->nlmsg_seq), 0);
	dg_free(&d);
	return 0;
}

static struct nl_transport *fake_open(void *data, int *err)
{
	struct world *w = data;
	struct nl_transport *t;

	if (w->open_err) {
		*err = w->open_err;
		return NULL;
	}
	t = nl_fake_new(fake_reply, w, FAKE_PORTID);
	assert_non_null(t);
	*err = 0;
	return t;
}

/* Every rxe counter over netlink, as 7000 + its position. */
static void world_rxe(struct world *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < N_RXE; i++) {
		w->names[i] = rxe_names[i];
		w->values[i] = 7000 + i;
	}
	w->n = N_RXE;
}

struct run {
	struct device_filter *filter;
	void *state;
	struct collector_stats stats;
	char *text;
	int root;
};

static void run_start_every(struct run *r, struct world *w, double rescan_interval_s)
{
	const struct sysfs_seams seams = {.open_transport = fake_open, .open_data = w};
	struct collector_ctx ctx = {0};
	char path[4096], err[256];
	const char *fixtures = getenv("FIXTURES");

	memset(r, 0, sizeof(*r));
	assert_non_null(fixtures);
	snprintf(path, sizeof(path), "%s/sysfs/rxe", fixtures);
	r->root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(r->root >= 0);
	r->filter = device_filter_new(NULL, NULL, err, sizeof(err));
	assert_non_null(r->filter);
	ctx.sysfs_fd = r->root;
	ctx.filter = r->filter;
	ctx.rescan_interval_s = rescan_interval_s;
	assert_int_equal(sysfs_collector_init_with(&ctx, &seams, &r->state), 0);
}

static void run_start(struct run *r, struct world *w)
{
	run_start_every(r, w, 3600);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;

	assert_non_null(sink);
	memset(&r->stats, 0, sizeof(r->stats));
	assert_int_equal(sysfs_collector_ops.collect(r->state, sink, &r->stats), 0);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	free(r->text);
	r->text = out.data ? buf_steal(&out, NULL) : strdup("");
	assert_non_null(r->text);
	buf_free(&out);
	metric_sink_free(sink);
	/* the other files are read as always */
	assert_int_equal(r->stats.read_errors, 0);
	assert_line(r->text, "rdma_port_state{device=\"rxe0\",port=\"1\"} 4");
	assert_null(strstr(r->text, "lifespan"));
}

static void run_stop(struct run *r)
{
	sysfs_collector_ops.free(r->state);
	device_filter_free(r->filter);
	free(r->text);
	close(r->root);
}

/* The port's hw_counters files and one of its attribute files, as the
 * targets of this process's fds read them (class/infiniband/rxe0 is a link). */
#define HW_FILES   "/rxe0/ports/1/hw_counters/"
#define STATE_FILE "/rxe0/ports/1/state"

/* How many open fds of this process name a path that contains part. */
static unsigned fds_to(const char *part)
{
	char target[4096];
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	while ((de = readdir(d))) {
		ssize_t len;

		if (de->d_name[0] == '.')
			continue;
		len = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		n += strstr(target, part) != NULL;
	}
	closedir(d);
	return n;
}

/* The values the fixture's files hold. */
static void assert_from_files(const char *text)
{
	assert_line(text, "rdma_port_packets_received_total{device=\"rxe0\",port=\"1\"} 1234");
	assert_line(text, "rdma_port_packets_transmitted_total{device=\"rxe0\",port=\"1\"} 1240");
	assert_line(text, "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
			  "source=\"hw_counters\",counter=\"duplicate_request\"} 3");
}

static void assert_from_netlink(const char *text)
{
	assert_line(text, "rdma_port_packets_received_total{device=\"rxe0\",port=\"1\"} 7005");
	assert_line(text, "rdma_port_packets_transmitted_total{device=\"rxe0\",port=\"1\"} 7014");
	assert_line(text, "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
			  "source=\"hw_counters\",counter=\"duplicate_request\"} 7002");
}

static void test_all_from_netlink(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	/* an entry without a file (an optional counter) adds nothing here */
	w.names[w.n] = "optional_only";
	w.values[w.n++] = 1;
	run_start(&r, &w);
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_null(strstr(r.text, "optional_only"));
	/* 15 counters, each once: 3 curated, 12 generic, as from the files */
	assert_int_equal(w.gets, 1);
	assert_int_equal(w.stats, 2); /* scan, poll */
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_int_equal(w.gets, 1);
	assert_int_equal(w.stats, 3); /* one request per poll */
	/* netlink serves the port: none of its 15 files is held open, while
	 * its attribute files are */
	assert_int_equal(fds_to(HW_FILES), 0);
	assert_int_equal(fds_to(STATE_FILE), 1);
	run_stop(&r);
}

static void test_values_above_2_53(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	w.values[2] = (1ull << 53) + 1; /* duplicate_request */
	w.values[5] = UINT64_MAX;	/* rcvd_pkts */
	run_start(&r, &w);
	run_poll(&r);
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
		    "source=\"hw_counters\",counter=\"duplicate_request\"} 9007199254740993");
	assert_line(r.text, "rdma_port_packets_received_total{device=\"rxe0\",port=\"1\"} "
			    "18446744073709551615");
	run_stop(&r);
}

static void test_fallback_no_socket(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	w.open_err = -EPROTONOSUPPORT; /* a kernel without NETLINK_RDMA */
	run_start(&r, &w);
	run_poll(&r);
	assert_from_files(r.text);
	/* the files, deferred by the scan, are kept open once netlink failed */
	assert_int_equal(fds_to(HW_FILES), N_RXE);
	run_stop(&r);
	assert_int_equal(fds_to(HW_FILES), 0);
}

static void test_fallback_request_fails(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	w.stat_err = -EPERM;
	run_start(&r, &w);
	run_poll(&r);
	assert_from_files(r.text);
	run_poll(&r);
	assert_from_files(r.text);
	assert_int_equal(w.stats, 1); /* tried at the scan only */
	run_stop(&r);
}

static void test_fallback_until_rescan(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	w.stat_err = -ENODEV;
	w.stat_ok = 2; /* scan and first poll succeed */
	run_start(&r, &w);
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_int_equal(fds_to(HW_FILES), 0);
	run_poll(&r); /* fails: this poll reads the files, opened now */
	assert_from_files(r.text);
	assert_int_equal(w.stats, 3);
	assert_int_equal(fds_to(HW_FILES), N_RXE);
	run_poll(&r); /* and the next ones, without asking again */
	assert_from_files(r.text);
	assert_int_equal(w.stats, 3);
	assert_int_equal(fds_to(HW_FILES), N_RXE);
	/* the next scan tries again, and holds no hw_counters fd */
	w.stat_err = 0;
	sysfs_collector_ops.reload(r.state);
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_int_equal(fds_to(HW_FILES), 0);
	assert_int_equal(fds_to(STATE_FILE), 1);
	run_stop(&r);
}

/*
 * The periodic re-check (interval 0: every poll) moves a port that fell back
 * to the files onto netlink again and closes the files. Should the fixture's
 * directories be too recent to trust, the re-check scans the device again:
 * the same files and values either way.
 */
static void test_recheck_back_to_netlink(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	w.stat_err = -EIO;
	w.stat_ok = 2; /* scan and first poll succeed */
	run_start_every(&r, &w, 0);
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_int_equal(fds_to(HW_FILES), 0);
	run_poll(&r);
	assert_from_files(r.text);
	assert_int_equal(fds_to(HW_FILES), N_RXE);
	w.stat_err = 0;
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_int_equal(fds_to(HW_FILES), 0);
	assert_int_equal(fds_to(STATE_FILE), 1);
	run_stop(&r);
}

/*
 * The files opened on a fallback obey the fd limit as the scan's do: kept
 * below RLIMIT_NOFILE - SYSFS_FD_HEADROOM (64), opened per read past it,
 * with the same values. Netlink serving the port, none is held.
 */
static void test_fallback_fd_limit(void **state)
{
	bool was_open[64];
	struct rlimit old, low;
	struct world w;
	struct run r;
	int probe;

	(void)state;
	world_rxe(&w);
	w.stat_err = -EIO;
	w.stat_ok = 2;
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(probe >= 0);
	close(probe);
	/* below the reserve: the root fd (probe), state, phys_state and rate,
	 * then room for 2 of the 15 hw_counters files */
	low = old;
	low.rlim_cur = (rlim_t)probe + 6 + 64;
	for (int i = 0; i < 64; i++)
		was_open[i] = fcntl(probe + 6 + i, F_GETFD) >= 0;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	run_start(&r, &w);
	run_poll(&r);
	assert_from_netlink(r.text);
	assert_int_equal(fds_to(HW_FILES), 0);
	assert_int_equal(fds_to(STATE_FILE), 1);
	run_poll(&r); /* netlink fails: the files, 2 kept, 13 per read */
	assert_from_files(r.text);
	assert_int_equal(fds_to(HW_FILES), 2);
	for (int i = 0; i < 64; i++) /* the reserve stays free */
		assert_true(was_open[i] || fcntl(probe + 6 + i, F_GETFD) < 0);
	run_poll(&r);
	assert_from_files(r.text);
	assert_int_equal(fds_to(HW_FILES), 2);
	run_stop(&r);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
}

static void test_fallback_name_mismatch(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	w.names[7] = "rcvd_seq_errors"; /* rcvd_seq_err has no entry */
	run_start(&r, &w);
	run_poll(&r);
	assert_from_files(r.text);
	assert_int_equal(w.stats, 1);
	assert_int_equal(fds_to(HW_FILES), N_RXE);
	run_stop(&r);
}

static void test_fallback_names_moved(void **state)
{
	struct world w;
	struct run r;

	(void)state;
	world_rxe(&w);
	run_start(&r, &w);
	run_poll(&r);
	assert_from_netlink(r.text);
	/* the reply's order changes under the mapping: never shift values */
	w.names[0] = rxe_names[1];
	w.names[1] = rxe_names[0];
	run_poll(&r);
	assert_from_files(r.text);
	assert_int_equal(fds_to(HW_FILES), N_RXE);
	run_stop(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_from_netlink),
		cmocka_unit_test(test_values_above_2_53),
		cmocka_unit_test(test_fallback_no_socket),
		cmocka_unit_test(test_fallback_request_fails),
		cmocka_unit_test(test_fallback_until_rescan),
		cmocka_unit_test(test_recheck_back_to_netlink),
		cmocka_unit_test(test_fallback_fd_limit),
		cmocka_unit_test(test_fallback_name_mismatch),
		cmocka_unit_test(test_fallback_names_moved),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
