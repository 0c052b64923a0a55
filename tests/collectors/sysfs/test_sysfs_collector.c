// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector run end to end (init, collect, render, free) on the
 * fixture trees under $FIXTURES/sysfs, asserting on the exposition text.
 * Trees that a test changes are copied to a mkdtemp() directory first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "sysfs.h"
#include "rdmanl/sysfs_names.h"

/* One collector instance over one sysfs root. */
struct run {
	int root;
	struct device_filter *filter;
	void *state;
	struct collector_stats stats;
	char *text;		   /* rendered exposition of the last poll */
	uint64_t sink_errors;	   /* samples the sink rejected (duplicates, bad names) */
	int rc;			   /* collect() result */
	struct netdev_set netdevs; /* what the collector publishes for later collectors */
};

static const char *fixtures_dir(void)
{
	const char *f = getenv("FIXTURES");

	assert_non_null(f);
	return f;
}

static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static int open_fixture(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/sysfs/%s", fixtures_dir(), name);
	return open_dir(path);
}

static void run_start(struct run *r, int root, const char *include, const char *exclude,
		      double rescan_interval_s)
{
	struct collector_ctx ctx = {0};
	char err[256];

	memset(r, 0, sizeof(*r));
	r->root = root;
	r->filter = device_filter_new(include, exclude, err, sizeof(err));
	assert_non_null(r->filter);
	ctx.sysfs_fd = root;
	ctx.filter = r->filter;
	ctx.rescan_interval_s = rescan_interval_s;
	ctx.rdma_netdevs = &r->netdevs;
	assert_int_equal(sysfs_collector_ops.init(&ctx, &r->state), 0);
	assert_non_null(r->state);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;

	assert_non_null(sink);
	memset(&r->stats, 0, sizeof(r->stats));
	r->rc = sysfs_collector_ops.collect(r->state, sink, &r->stats);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	r->sink_errors = metric_sink_errors(sink);
	free(r->text);
	r->text = out.data ? buf_steal(&out, NULL) : strdup("");
	assert_non_null(r->text);
	buf_free(&out);
	metric_sink_free(sink);
}

static void run_stop(struct run *r)
{
	sysfs_collector_ops.free(r->state);
	netdev_set_free(&r->netdevs);
	device_filter_free(r->filter);
	free(r->text);
	close(r->root);
}

/* One poll of a fixture tree. */
static void run_once(struct run *r, const char *fixture, const char *include, const char *exclude)
{
	run_start(r, open_fixture(fixture), include, exclude, 3600);
	run_poll(r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->sink_errors, 0);
}

static const struct sysfs_counter_name *lookup(const char *file, unsigned source)
{
	const struct sysfs_counter_name *e = sysfs_counter_lookup(file, source);

	assert_non_null(e);
	return e;
}

/* Lines of the family that mention the substring. */
static unsigned count_lines(const char *text, const char *prefix, const char *needle)
{
	unsigned n = 0;
	size_t pl = strlen(prefix);

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= pl && memcmp(p, prefix, pl) == 0 &&
		    (!needle || memmem(p, len, needle, strlen(needle))))
			n++;
		p += len + (eol ? 1 : 0);
	}
	return n;
}

/* --- temporary copies of fixture trees ---------------------------------- */

static char copy_src[4096], copy_dst[4096];

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char dst[4096], target[4096], buf[4096];
	ssize_t n;
	int in, out;

	snprintf(dst, sizeof(dst), "%s%s", copy_dst, path + strlen(copy_src));
	switch (type) {
	case FTW_D:
		return mkdir(dst, 0755) == 0 || errno == EEXIST ? 0 : -1;
	case FTW_SL:
	case FTW_SLN:
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return -1;
		target[n] = '\0';
		return symlink(target, dst);
	case FTW_F:
		in = open(path, O_RDONLY | O_CLOEXEC);
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (in < 0 || out < 0)
			return -1;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				return -1;
		close(in);
		close(out);
		return 0;
	default:
		return -1;
	}
}

/* Copies $FIXTURES/sysfs/<name> into a new temporary directory. */
static void copy_fixture(const char *name, char *tmp, size_t size)
{
	snprintf(tmp, size, "/tmp/test_sysfs_XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(copy_src, sizeof(copy_src), "%s/sysfs/%s", fixtures_dir(), name);
	snprintf(copy_dst, sizeof(copy_dst), "%s", tmp);
	assert_int_equal(nftw(copy_src, copy_one, 16, FTW_PHYS), 0);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path);
}

static void rm_rf(const char *path)
{
	assert_int_equal(nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void write_file(const char *dir, const char *rel, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	/* "w" truncates the same inode: an fd kept open sees the new text. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}

/* --- tests on the committed fixtures ------------------------------------ */

static void test_node_exporter_mixed(void **state)
{
	const struct sysfs_counter_name *rx64 = lookup("port_rcv_data_64", SYSFS_SRC_COUNTERS_EXT);
	const struct sysfs_counter_name *tx64 = lookup("port_xmit_data_64", SYSFS_SRC_COUNTERS_EXT);
	struct run r;

	run_once(&r, "node-exporter-mixed", NULL, NULL);
	assert_int_equal(r.stats.devices, 2);
	/* i40iw0: all 17 PortCounters read "N/A (no PMA)" */
	assert_int_equal(r.stats.read_errors, 17);
	assert_int_equal(count_lines(r.text, "rdma_", "device=\"i40iw0\",port=\"1\",source"), 0);

	assert_line(r.text, "rdma_device_info{device=\"i40iw0\",node_type=\"\",hca_type=\"I40IW\","
			    "board_id=\"I40IW Board ID\",fw_ver=\"0.2\",node_guid=\"\","
			    "sys_image_guid=\"\",driver=\"\"} 1");
	assert_line(r.text,
		    "rdma_port_info{device=\"i40iw0\",port=\"1\",link_layer=\"InfiniBand\"} 1");
	assert_line(r.text, "rdma_port_state{device=\"i40iw0\",port=\"1\"} 4");
	assert_line(r.text, "rdma_port_phys_state{device=\"i40iw0\",port=\"1\"} 5");
	assert_line(r.text,
		    "rdma_port_rate_bytes_per_second{device=\"i40iw0\",port=\"1\"} 1250000000");
	assert_line(r.text,
		    "rdma_port_rate_bytes_per_second{device=\"mlx4_0\",port=\"2\"} 5000000000");

	/* mlx4 counters_ext: the _64 files win the named family, times 4 ... */
	assert_line(r.text, "%s{device=\"mlx4_0\",port=\"1\"} %llu", rx64->metric,
		    4631917ull * rx64->multiplier);
	assert_line(r.text, "%s{device=\"mlx4_0\",port=\"2\"} %llu", tx64->metric,
		    3733440ull * tx64->multiplier);
	assert_int_equal(rx64->multiplier, 4);
	assert_int_equal(count_lines(r.text, rx64->metric, "device=\"mlx4_0\",port=\"1\""), 1);
	/* ... and the 32-bit files still show, raw, in the generic family. */
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"mlx4_0\",port=\"1\",source=\"counters\","
		    "counter=\"port_rcv_data\"} 4631917");
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"mlx4_0\",port=\"2\",source=\"counters\","
		    "counter=\"port_xmit_data\"} 0");
	assert_no_line(r.text, "rdma_port_statistic_total{device=\"mlx4_0\",port=\"1\",source="
			       "\"counters_ext\",counter=\"port_rcv_data_64\"} 4631917");
	/* node_exporter's mlx4_0 reads port_xmit_wait 4294967295: the 32 bit
	 * PortXmitWait stuck at its maximum; the shadowed 32 bit data counters
	 * (counters_ext serves them) are not judged */
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx4_0\",port=\"1\",counter="
			    "\"port_xmit_wait\"} 1");
	assert_null(strstr(r.text, "rdma_port_statistic_saturated{device=\"mlx4_0\",port=\"1\","
				   "counter=\"port_rcv_data\"}"));

	/* no lid file in this fixture: no LID series */
	assert_null(strstr(r.text, "rdma_port_lid{"));
	assert_null(strstr(r.text, "rdma_port_sm_lid{"));
	assert_null(strstr(r.text, "rdma_port_sm_sl{"));

	/* HELP lists the value meanings */
	assert_non_null(strstr(r.text, "# HELP rdma_port_state "));
	assert_non_null(strstr(r.text, "4 ACTIVE"));
	assert_non_null(strstr(r.text, "5 LinkUp"));
	assert_line(r.text, "# TYPE rdma_port_statistic_total counter");
	assert_line(r.text, "# TYPE rdma_port_state gauge");
	assert_line(r.text, "# TYPE rdma_device_info gauge");
	run_stop(&r);
}

static void test_procfs_mixed(void **state)
{
	struct run r;
	const char *a, *b, *c;

	run_once(&r, "procfs-mixed", NULL, NULL);
	assert_int_equal(r.stats.devices, 3);
	assert_int_equal(r.stats.read_errors, 0);
	/* node_guid without a trailing newline */
	assert_line(r.text, "rdma_device_info{device=\"mlx5_0\",node_type=\"\",hca_type=\"MT4118\","
			    "board_id=\"SM_2001000001034\",fw_ver=\"14.28.2006\","
			    "node_guid=\"0a7f:bc12:45ef:d23b\",sys_image_guid=\"\",driver=\"\"} 1");
	assert_line(r.text,
		    "rdma_port_rate_bytes_per_second{device=\"mlx5_0\",port=\"1\"} 3125000000");
	/* "InfiniBand\n\n" */
	assert_line(r.text,
		    "rdma_port_info{device=\"mlx4_0\",port=\"2\",link_layer=\"InfiniBand\"} 1");
	assert_line(r.text, "rdma_port_phys_state{device=\"mlx5_0\",port=\"1\"} 4");
	/* hw_counters: lifespan is a setting, never a counter */
	assert_null(strstr(r.text, "lifespan"));

	/* devices in order, ports in order */
	a = strstr(r.text, "rdma_device_info{device=\"hfi1_0\"");
	b = strstr(r.text, "rdma_device_info{device=\"mlx4_0\"");
	c = strstr(r.text, "rdma_device_info{device=\"mlx5_0\"");
	assert_true(a && b && c && a < b && b < c);
	a = strstr(r.text, "rdma_port_state{device=\"mlx4_0\",port=\"1\"}");
	b = strstr(r.text, "rdma_port_state{device=\"mlx4_0\",port=\"2\"}");
	assert_true(a && b && a < b);
	run_stop(&r);
}

/* Every counter file of mlx5_0 but lifespan is exported exactly once. */
static void test_procfs_mlx5_counters(void **state)
{
	static const char *const files[] = {
		"roce_slow_restart_cnps", "resp_cqe_error",    "rx_dct_connect",
		"out_of_buffer",	  "duplicate_request", "local_ack_timeout_err",
		"out_of_sequence",	  "packet_seq_err",    "req_cqe_flush_error",
		"roce_adp_retrans",	  "rx_read_requests",
	};
	struct run r;

	run_once(&r, "procfs-mixed", "mlx5_0", NULL);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const struct sysfs_counter_name *e =
			sysfs_counter_lookup(files[i], SYSFS_SRC_HW_COUNTERS);
		char needle[256];

		if (e)
			snprintf(needle, sizeof(needle), "\n%s{device=\"mlx5_0\",port=\"1\"} ",
				 e->metric);
		else
			snprintf(needle, sizeof(needle),
				 "\nrdma_port_statistic_total{device=\"mlx5_0\",port=\"1\","
				 "source=\"hw_counters\",counter=\"%s\"} ",
				 files[i]);
		if (!strstr(r.text, needle))
			fail_msg("missing %s", needle);
	}
	/* info, port_info, state, phys_state, rate + 21 counters/ + 24 hw_counters/
	 * (25 files less lifespan) + responsive: one line each, none dropped or
	 * doubled; no counter at its width's maximum */
	assert_int_equal(count_lines(r.text, "rdma_", "device=\"mlx5_0\""), 5 + 21 + 24 + 1);
	assert_null(strstr(r.text, "rdma_port_statistic_saturated{device=\"mlx5_0\""));
	run_stop(&r);
}

static void test_rxe(void **state)
{
	const struct sysfs_counter_name *ld =
		sysfs_counter_lookup("link_downed", SYSFS_SRC_HW_COUNTERS);
	struct run r;

	run_once(&r, "rxe", NULL, NULL);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);
	/* class/infiniband/rxe0 is a symlink into devices/virtual; no parent device */
	assert_line(r.text, "rdma_device_info{device=\"rxe0\",node_type=\"CA\",hca_type=\"\","
			    "board_id=\"\",fw_ver=\"\",node_guid=\"5054:00ff:fe12:3456\","
			    "sys_image_guid=\"5054:00ff:fe12:3456\",driver=\"\"} 1");
	assert_line(r.text, "rdma_port_info{device=\"rxe0\",port=\"1\",link_layer=\"Ethernet\"} 1");
	/* two GID entries on eth0, one empty: one series */
	assert_line(r.text, "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	assert_int_equal(count_lines(r.text, "rdma_port_netdev_info{", NULL), 1);
	/* published for the ethtool collector */
	assert_true(r.netdevs.published);
	assert_int_equal(r.netdevs.n, 1);
	assert_true(netdev_set_contains(&r.netdevs, "eth0"));
	assert_line(r.text, "rdma_port_state{device=\"rxe0\",port=\"1\"} 4");
	assert_line(r.text,
		    "rdma_port_rate_bytes_per_second{device=\"rxe0\",port=\"1\"} 12500000000");
	/* RoCE: no LID even though the files exist */
	assert_null(strstr(r.text, "rdma_port_lid"));
	assert_null(strstr(r.text, "rdma_port_sm_lid"));
	assert_null(strstr(r.text, "lifespan"));
	/* rxe's packet counters feed the curated families */
	assert_line(r.text, "rdma_port_packets_received_total{device=\"rxe0\",port=\"1\"} 1234");
	assert_line(r.text, "rdma_port_packets_transmitted_total{device=\"rxe0\",port=\"1\"} 1240");
	assert_null(strstr(r.text, "counter=\"rcvd_pkts\""));
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"rxe0\",port=\"1\",source=\"hw_counters\","
		    "counter=\"duplicate_request\"} 3");
	/* 15 hw counters, each exported once: link_downed, rcvd_pkts and sent_pkts
	 * named, the other 12 generic */
	assert_non_null(ld);
	assert_line(r.text, "%s{device=\"rxe0\",port=\"1\"} 0", ld->metric);
	assert_int_equal(count_lines(r.text, "rdma_port_statistic_total{", "rxe0"), 12);
	assert_null(strstr(r.text, "source=\"counters\""));
	run_stop(&r);
}

/*
 * bnxt_re (Thor2, names before Linux 6.18), mana and erdma trees: the
 * vendor names land in the shared families, the rest in the generic ones.
 */
static void test_bnxt_re_thor2(void **state)
{
	struct run r;

	(void)state;
	run_once(&r, "bnxt_re", NULL, NULL);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text,
		    "rdma_port_cnp_packets_sent_total{device=\"bnxt_re0\",port=\"1\"} 182330");
	assert_line(r.text,
		    "rdma_port_cnp_packets_handled_total{device=\"bnxt_re0\",port=\"1\"} 190457");
	assert_line(r.text, "rdma_port_ecn_marked_packets_received_total{device=\"bnxt_re0\","
			    "port=\"1\"} 182331");
	assert_line(r.text,
		    "rdma_port_local_ack_timeouts_total{device=\"bnxt_re0\",port=\"1\"} 41");
	assert_line(r.text, "rdma_port_out_of_sequence_packets_received_total{device=\"bnxt_re0\","
			    "port=\"1\"} 27");
	assert_line(r.text, "rdma_port_data_received_bytes_total{device=\"bnxt_re0\",port=\"1\"} "
			    "36021458901233");
	/* a mapped name is exported once, under its family only */
	assert_null(strstr(r.text, "counter=\"tx_cnp_pkts\""));
	assert_line(r.text, "rdma_port_statistic_total{device=\"bnxt_re0\",port=\"1\","
			    "source=\"hw_counters\",counter=\"max_retry_exceeded\"} 0");
	/* 54 files but lifespan: 19 named, 35 generic */
	assert_int_equal(count_lines(r.text, "rdma_port_statistic_total{", "bnxt_re0"), 35);
	run_stop(&r);
}

static void test_mana(void **state)
{
	struct run r;

	(void)state;
	run_once(&r, "mana", NULL, NULL);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text,
		    "rdma_port_cnp_packets_handled_total{device=\"mana_0\",port=\"1\"} 5521");
	assert_line(r.text,
		    "rdma_port_packets_received_total{device=\"mana_0\",port=\"1\"} 391887102");
	assert_line(r.text, "rdma_port_local_ack_timeouts_total{device=\"mana_0\",port=\"1\"} 12");
	/* device level: no port, so the generic device family */
	assert_line(r.text, "rdma_device_statistic_total{device=\"mana_0\",source=\"hw_counters\","
			    "counter=\"sent_cnps\"} 5012");
	assert_line(r.text, "rdma_port_statistic_total{device=\"mana_0\",port=\"1\","
			    "source=\"hw_counters\",counter=\"current_rate\"} 0");
	/* 34 port files: 15 named, 19 generic; 6 device files */
	assert_int_equal(count_lines(r.text, "rdma_port_statistic_total{", "mana_0"), 19);
	assert_int_equal(count_lines(r.text, "rdma_device_statistic_total{", "mana_0"), 6);
	run_stop(&r);
}

static void test_erdma(void **state)
{
	struct run r;

	(void)state;
	run_once(&r, "erdma", NULL, NULL);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_port_data_transmitted_bytes_total{device=\"erdma_0\",port=\"1\"} "
			    "18032110448");
	assert_line(r.text,
		    "rdma_port_packets_received_total{device=\"erdma_0\",port=\"1\"} 4398120");
	assert_line(r.text, "rdma_port_statistic_total{device=\"erdma_0\",port=\"1\","
			    "source=\"hw_counters\",counter=\"rx_bps_limit_drop_cnt\"} 8");
	assert_int_equal(count_lines(r.text, "rdma_port_statistic_total{", "erdma_0"), 7);
	run_stop(&r);
}

static void test_efa(void **state)
{
	const struct sysfs_counter_name *rx = lookup("rx_bytes", SYSFS_SRC_HW_COUNTERS);
	const struct sysfs_counter_name *tx = lookup("tx_bytes", SYSFS_SRC_HW_COUNTERS);
	struct run r;

	run_once(&r, "efa", NULL, NULL);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text,
		    "rdma_device_info{device=\"efa_0\",node_type=\"unspecified\","
		    "hca_type=\"efa\",board_id=\"\",fw_ver=\"0.0.0.0\","
		    "node_guid=\"0000:0000:0000:0000\",sys_image_guid=\"0000:0000:0000:0000\","
		    "driver=\"efa\"} 1");
	assert_line(r.text, "rdma_port_info{device=\"efa_0\",port=\"1\",link_layer=\"Unknown\"} 1");
	assert_line(r.text, "%s{device=\"efa_0\",port=\"1\"} %llu", rx->metric,
		    123456789012ull * rx->multiplier);
	assert_line(r.text, "%s{device=\"efa_0\",port=\"1\"} %llu", tx->metric,
		    98765432109ull * tx->multiplier);
	assert_null(strstr(r.text, "rdma_port_statistic_total"));
	assert_null(strstr(r.text, "rdma_port_lid"));
	assert_null(strstr(r.text, "rdma_port_netdev_info"));
	run_stop(&r);
}

static void test_broken(void **state)
{
	const struct sysfs_counter_name *wait = lookup("port_xmit_wait", SYSFS_SRC_COUNTERS);
	const struct sysfs_counter_name *txp = lookup("port_xmit_packets", SYSFS_SRC_COUNTERS);
	const struct sysfs_counter_name *vl15 = lookup("VL15_dropped", SYSFS_SRC_COUNTERS);
	unsigned expected_errors;
	struct run r;

	run_once(&r, "broken", NULL, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 1);
	/*
	 * state missing, rate "garbage", lid "0xzz"; counters: N/A, empty, "abc",
	 * "-5", 2^64, port_xmit_data (2^64-1) * 4 overflows; port_xmit_wait
	 * (2^64-1) overflows unless its multiplier is 1.
	 */
	expected_errors = 3 + 6 + (wait->multiplier > 1);
	assert_int_equal(r.stats.read_errors, expected_errors);

	assert_line(r.text, "rdma_device_info{device=\"bad0\",node_type=\"garbage\","
			    "hca_type=\"MT4119\",board_id=\"\",fw_ver=\"1.2.3\",node_guid=\"\","
			    "sys_image_guid=\"\",driver=\"\"} 1");
	assert_line(r.text,
		    "rdma_port_info{device=\"bad0\",port=\"1\",link_layer=\"InfiniBand\"} 1");
	assert_null(strstr(r.text, "rdma_port_state{"));
	assert_null(strstr(r.text, "rdma_port_rate_bytes_per_second{"));
	assert_null(strstr(r.text, "rdma_port_lid{"));
	assert_line(r.text, "rdma_port_phys_state{device=\"bad0\",port=\"1\"} 5");
	assert_line(r.text, "rdma_port_sm_lid{device=\"bad0\",port=\"1\"} 1");
	/* sm_sl, decimal without a newline (issue 33) */
	assert_line(r.text, "rdma_port_sm_sl{device=\"bad0\",port=\"1\"} 3");
	/* no trailing newline */
	assert_line(r.text, "%s{device=\"bad0\",port=\"1\"} %llu", txp->metric,
		    42ull * txp->multiplier);
	assert_line(r.text, "%s{device=\"bad0\",port=\"1\"} %llu", vl15->metric,
		    7ull * vl15->multiplier);
	if (wait->multiplier == 1)
		assert_line(r.text, "%s{device=\"bad0\",port=\"1\"} 18446744073709551615",
			    wait->metric);
	/* a directory in counters/ is not a counter */
	assert_null(strstr(r.text, "not_a_counter"));
	assert_null(strstr(r.text, "lifespan"));
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"bad0\",port=\"1\",source=\"hw_counters\","
		    "counter=\"mystery_counter\"} 5");
	assert_line(r.text, "rdma_device_statistic_total{device=\"bad0\",source=\"hw_counters\","
			    "counter=\"dev_mystery\"} 77");
	assert_line(r.text, "# TYPE rdma_device_statistic_total counter");

	/* the same errors every poll, and still no failure */
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, expected_errors);
	run_stop(&r);
}

/*
 * A file that gives no value is logged with its path relative to the root
 * (the collector keeps no path per file: it is built for the log line):
 * port attributes, known and unknown counters, device-level counters.
 */
static void test_log_paths(void **state)
{
	static const char *const want[] = {
		"path=class/infiniband/bad0/ports/1/state reason=\"read failed\"",
		"path=class/infiniband/bad0/ports/1/rate reason=\"unparsable content\"",
		"path=class/infiniband/bad0/ports/1/lid reason=\"unparsable content\"",
		"path=class/infiniband/bad0/ports/1/counters/symbol_error reason=N/A",
		"path=class/infiniband/bad0/ports/1/counters/port_rcv_errors reason=\"unparsable "
		"content\"",
		"path=class/infiniband/bad0/ports/1/counters/port_xmit_data reason=\"value * "
		"multiplier\"",
		"path=class/infiniband/bad0/ports/1/hw_counters/mystery_counter "
		"reason=\"unparsable "
		"content\"",
		"path=class/infiniband/bad0/hw_counters/dev_mystery reason=\"unparsable content\"",
	};
	char tmp[64], *logbuf = NULL;
	size_t loglen = 0;
	FILE *f = open_memstream(&logbuf, &loglen);
	struct run r;

	assert_non_null(f);
	copy_fixture("broken", tmp, sizeof(tmp));
	write_file(tmp, "class/infiniband/bad0/ports/1/hw_counters/mystery_counter", "x\n");
	write_file(tmp, "class/infiniband/bad0/hw_counters/dev_mystery", "y\n");
	log_set_output(f);
	log_set_level(LOG_DEBUG);
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	log_set_level(LOG_ERR);
	log_set_output(stderr);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(logbuf, want[i]))
			fail_msg("no log line with %s in:\n%s", want[i], logbuf);
	free(logbuf);
	run_stop(&r);
	rm_rf(tmp);
	(void)state;
}

static void test_filter(void **state)
{
	struct run r;

	run_once(&r, "procfs-mixed", "mlx4_0", NULL);
	assert_int_equal(r.stats.devices, 1);
	assert_non_null(strstr(r.text, "device=\"mlx4_0\""));
	assert_null(strstr(r.text, "device=\"mlx5_0\""));
	assert_null(strstr(r.text, "device=\"hfi1_0\""));
	run_stop(&r);

	run_once(&r, "procfs-mixed", NULL, "mlx.*");
	assert_int_equal(r.stats.devices, 1);
	assert_non_null(strstr(r.text, "device=\"hfi1_0\""));
	assert_null(strstr(r.text, "device=\"mlx"));
	run_stop(&r);

	run_once(&r, "procfs-mixed", "mlx.*", "mlx5_0");
	assert_int_equal(r.stats.devices, 1);
	assert_non_null(strstr(r.text, "device=\"mlx4_0\""));
	run_stop(&r);

	/* filtered down to nothing is not an error */
	run_once(&r, "procfs-mixed", "nothing", NULL);
	assert_int_equal(r.stats.devices, 0);
	assert_string_equal(r.text, "");
	run_stop(&r);
}

static void test_no_class_dir(void **state)
{
	char tmp[64];
	struct run r;

	snprintf(tmp, sizeof(tmp), "/tmp/test_sysfs_XXXXXX");
	assert_non_null(mkdtemp(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	for (int i = 0; i < 3; i++) {
		run_poll(&r);
		assert_int_equal(r.rc, 0);
		assert_int_equal(r.stats.devices, 0);
		assert_int_equal(r.stats.read_errors, 0);
		assert_string_equal(r.text, "");
	}
	run_stop(&r);
	rm_rf(tmp);
}

/* --- tests on temporary copies ------------------------------------------ */

static void test_device_removed_and_added(void **state)
{
	char tmp[64], from[128], to[128];
	struct run r;

	copy_fixture("procfs-mixed", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 3);
	assert_non_null(strstr(r.text, "device=\"mlx5_0\""));

	snprintf(from, sizeof(from), "%s/class/infiniband/mlx5_0", tmp);
	rm_rf(from);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 2);
	assert_null(strstr(r.text, "device=\"mlx5_0\""));
	assert_non_null(strstr(r.text, "device=\"mlx4_0\""));
	assert_int_equal(r.sink_errors, 0);

	/* renamed: one gone, one new, found without waiting for a rescan */
	snprintf(from, sizeof(from), "%s/class/infiniband/mlx4_0", tmp);
	snprintf(to, sizeof(to), "%s/class/infiniband/mlx4_9", tmp);
	assert_int_equal(rename(from, to), 0);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_null(strstr(r.text, "device=\"mlx4_0\""));
	assert_line(r.text, "rdma_port_state{device=\"mlx4_9\",port=\"2\"} 4");
	run_stop(&r);
	rm_rf(tmp);
}

static void test_symlinked_device_removed(void **state)
{
	char tmp[64], path[128];
	struct run r;

	copy_fixture("rxe", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);
	/* hot unplug: the kernel removes the device directory and the class link */
	snprintf(path, sizeof(path), "%s/devices/virtual/infiniband/rxe0", tmp);
	rm_rf(path);
	snprintf(path, sizeof(path), "%s/class/infiniband/rxe0", tmp);
	assert_int_equal(unlink(path), 0);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 0);
	assert_null(strstr(r.text, "rxe0"));
	run_stop(&r);
	rm_rf(tmp);
}

/* PCIe: a Gen5 x16 device trained at Gen4 x8 behind a switch, a Gen4 x16 one
 * with AER errors and counters at their widths' maxima, a VF left out. */
static void test_pcie(void **state)
{
	struct run r;

	run_once(&r, "pcie", NULL, NULL);
	assert_int_equal(r.stats.devices, 3);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(
		r.text,
		"rdma_device_pcie_link_speed_transfers_per_second{device=\"mlx5_0\"} 16000000000");
	assert_line(r.text,
		    "rdma_device_pcie_link_max_speed_transfers_per_second{device=\"mlx5_0\"} "
		    "32000000000");
	assert_line(r.text, "rdma_device_pcie_link_width{device=\"mlx5_0\"} 8");
	assert_line(r.text, "rdma_device_pcie_link_max_width{device=\"mlx5_0\"} 16");
	/* behind a switch: the maxima of its downstream port (the other end of its
	 * own link, whose current figures are the device's) and the switch's
	 * upstream link */
	assert_null(strstr(r.text, "rdma_device_pcie_upstream_link_width{device=\"mlx5_0\",bridge="
				   "\"parent\"}"));
	assert_line(
		r.text,
		"rdma_device_pcie_upstream_link_max_width{device=\"mlx5_0\",bridge=\"parent\"} 16");
	assert_line(r.text, "rdma_device_pcie_upstream_link_max_speed_transfers_per_second{device="
			    "\"mlx5_0\",bridge=\"parent\"} 32000000000");
	assert_line(r.text, "rdma_device_pcie_upstream_link_speed_transfers_per_second{device="
			    "\"mlx5_0\",bridge=\"switch_upstream\"} 32000000000");
	assert_line(r.text, "rdma_device_pcie_upstream_link_width{device=\"mlx5_0\",bridge="
			    "\"switch_upstream\"} 16");
	/* on a root port: no switch upstream port */
	assert_line(r.text, "rdma_device_pcie_upstream_link_max_speed_transfers_per_second{device="
			    "\"mlx5_1\",bridge=\"parent\"} 16000000000");
	assert_null(strstr(r.text, "device=\"mlx5_1\",bridge=\"switch_upstream\""));
	/* AER: each type with its severity, no TOTAL line */
	assert_line(r.text,
		    "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"correctable\","
		    "type=\"RxErr\"} 12");
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"nonfatal\","
			    "type=\"CmpltTO\"} 2");
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"fatal\","
			    "type=\"DLP\"} 1");
	/* a type appears from its first error on: 6 of mlx5_1's 44, none of mlx5_0's */
	assert_int_equal(count_lines(r.text, "rdma_device_pcie_errors_total{", "device=\"mlx5_1\""),
			 6);
	assert_null(strstr(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_0\""));
	assert_null(strstr(r.text, "TOTAL_"));
	/* the VF (device/physfn) has no PCIe series */
	assert_null(strstr(r.text, "rdma_device_pcie_link_width{device=\"mlx5_2\""));
	assert_null(strstr(r.text, "device=\"mlx5_2\",severity="));

	/* saturated at 8, 16, 32 and 4 bits; no series at max - 1 */
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"link_downed\"} 1");
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"port_xmit_discards\"} 1");
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"port_xmit_wait\"} 1");
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"local_link_integrity_errors\"} 1");
	assert_null(strstr(r.text, "counter=\"excessive_buffer_overrun_errors\""));
	assert_line(r.text, "rdma_port_statistic_saturated{device=\"mlx5_1\",port=\"1\",counter="
			    "\"port_rcv_data\"} 1");
	assert_null(strstr(r.text, "counter=\"port_xmit_data\""));
	assert_int_equal(count_lines(r.text, "rdma_port_statistic_saturated{", "device=\"mlx5_1\""),
			 8);
	/* mlx5_0 has PortCountersExtended: its port_rcv_packets at 2^32 - 1 is a
	 * 64 bit value on its way up */
	assert_null(strstr(r.text, "rdma_port_statistic_saturated{device=\"mlx5_0\""));
	run_stop(&r);
}

/* PCIe files that change, break or vanish between polls. */
static void test_pcie_changes(void **state)
{
	const char *f0 = "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
	const char *f1 = "devices/pci0000:00/0000:00:02.0/0000:04:00.0";
	char tmp[64], path[256];
	struct run r;

	copy_fixture("pcie", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);

	/* retrained: the new speed and width show */
	snprintf(path, sizeof(path), "%s/current_link_speed", f0);
	write_file(tmp, path, "32.0 GT/s PCIe\n");
	snprintf(path, sizeof(path), "%s/current_link_width", f0);
	write_file(tmp, path, "16\n");
	/* link down */
	snprintf(path, sizeof(path), "%s/current_link_speed", f1);
	write_file(tmp, path, "Unknown\n");
	/* AER: a new count; a broken file costs one read error and its values */
	snprintf(path, sizeof(path), "%s/aer_dev_correctable", f0);
	write_file(tmp, path,
		   "RxErr 5\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\n"
		   "NonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 5\n");
	snprintf(path, sizeof(path), "%s/aer_dev_nonfatal", f1);
	write_file(tmp, path, "garbage\n");
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 1);
	assert_line(
		r.text,
		"rdma_device_pcie_link_speed_transfers_per_second{device=\"mlx5_0\"} 32000000000");
	assert_line(r.text, "rdma_device_pcie_link_width{device=\"mlx5_0\"} 16");
	assert_line(r.text,
		    "rdma_device_pcie_link_speed_transfers_per_second{device=\"mlx5_1\"} 0");
	assert_line(r.text,
		    "rdma_device_pcie_errors_total{device=\"mlx5_0\",severity=\"correctable\","
		    "type=\"RxErr\"} 5");
	assert_null(strstr(r.text, "device=\"mlx5_1\",severity=\"nonfatal\""));
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"fatal\","
			    "type=\"DLP\"} 1");

	/* a type the kernel stops listing has no value; the others stay */
	write_file(tmp, path, "DLP 3\nTOTAL_ERR_NONFATAL 3\n");
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_device_pcie_errors_total{device=\"mlx5_1\",severity=\"nonfatal\","
			    "type=\"DLP\"} 3");
	assert_null(strstr(r.text, "device=\"mlx5_1\",severity=\"nonfatal\",type=\"CmpltTO\""));
	run_stop(&r);
	rm_rf(tmp);
}

static void test_value_breaks(void **state)
{
	const struct sysfs_counter_name *disc = lookup("port_xmit_discards", SYSFS_SRC_COUNTERS);
	char tmp[64];
	struct run r;

	copy_fixture("node-exporter-mixed", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 17);
	assert_line(r.text, "%s{device=\"mlx4_0\",port=\"1\"} 5", disc->metric);

	write_file(tmp, "class/infiniband/mlx4_0/ports/1/counters/port_xmit_discards", "abc\n");
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 18);
	assert_null(strstr(r.text, "device=\"mlx4_0\",port=\"1\",source=\"counters\",counter="
				   "\"port_xmit_discards\""));
	assert_no_line(r.text, "%s{device=\"mlx4_0\",port=\"1\"} 5", disc->metric);
	/* the rest still exports */
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"mlx4_0\",port=\"1\",source=\"counters\","
		    "counter=\"port_rcv_data\"} 4631917");
	assert_line(r.text, "rdma_port_state{device=\"mlx4_0\",port=\"1\"} 4");
	assert_line(r.text, "rdma_port_state{device=\"mlx4_0\",port=\"2\"} 4");
	assert_int_equal(r.stats.devices, 2);

	/* re-read at offset 0 of the kept fd: the new value shows */
	write_file(tmp, "class/infiniband/mlx4_0/ports/1/counters/port_xmit_discards", "6");
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 17);
	assert_line(r.text, "%s{device=\"mlx4_0\",port=\"1\"} 6", disc->metric);
	run_stop(&r);
	rm_rf(tmp);
}

static void test_rescan_and_reload(void **state)
{
	const char *line = "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
			   "source=\"hw_counters\",counter=\"brand_new\"} 9";
	char tmp[64];
	struct run r;

	copy_fixture("rxe", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	write_file(tmp, "devices/virtual/infiniband/rxe0/ports/1/hw_counters/brand_new", "9\n");
	/* counter lists are cached until the rescan interval ... */
	run_poll(&r);
	assert_false(has_line(r.text, line));
	/* ... or a reload (SIGHUP) */
	sysfs_collector_ops.reload(r.state);
	run_poll(&r);
	assert_true(has_line(r.text, line));
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);

	/* rescan interval 0: every poll scans */
	run_start(&r, open_dir(tmp), NULL, NULL, 0);
	run_poll(&r);
	write_file(tmp, "devices/virtual/infiniband/rxe0/ports/1/hw_counters/newer", "1\n");
	run_poll(&r);
	assert_non_null(strstr(r.text, "counter=\"newer\"} 1"));
	run_stop(&r);
	rm_rf(tmp);
}

#define MAX_FDS 4096

static unsigned open_fds(bool open[MAX_FDS]);

/*
 * The periodic re-check of a device whose directories did not change keeps
 * its files open and re-reads only the scan-time text (netdevs, attributes);
 * a directory that changed sends the device through a full scan.
 */
static void test_recheck_keeps_files(void **state)
{
	static bool before[MAX_FDS], after[MAX_FDS];
	const char *port = "devices/virtual/infiniband/rxe0/ports/1";
	char tmp[64], rel[256];
	unsigned n_before;
	struct run r;

	copy_fixture("rxe", tmp, sizeof(tmp));
	/* Directory times within 2 s of the scan are not trusted (a change in
	 * the same timestamp tick would go unseen): such a device is scanned
	 * in full at each re-check. Past that, the re-check is cheap. */
	sleep(3);
	run_start(&r, open_dir(tmp), NULL, NULL, 0); /* interval 0: every poll re-checks */
	run_poll(&r);
	assert_line(r.text, "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	n_before = open_fds(before);
	run_poll(&r);
	assert_int_equal(open_fds(after), n_before);
	assert_memory_equal(before, after, MAX_FDS); /* the same fds: nothing re-opened */

	/* a renamed netdev and a new firmware: text, re-read in place */
	for (int i = 0; i < 3; i++) { /* every GID entry of the fixture names eth0 */
		snprintf(rel, sizeof(rel), "%s/gid_attrs/ndevs/%d", port, i);
		write_file(tmp, rel, "ens1f0\n");
	}
	write_file(tmp, "devices/virtual/infiniband/rxe0/fw_ver", "1.2.3\n");
	run_poll(&r);
	assert_line(r.text,
		    "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"ens1f0\"} 1");
	assert_no_line(r.text,
		       "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	assert_non_null(strstr(r.text, "fw_ver=\"1.2.3\""));
	open_fds(after);
	assert_memory_equal(before, after, MAX_FDS);
	assert_int_equal(r.stats.read_errors, 0);

	/* a file added to a listed directory: a full scan finds it */
	snprintf(rel, sizeof(rel), "%s/hw_counters/brand_new", port);
	write_file(tmp, rel, "9\n");
	run_poll(&r);
	assert_line(r.text, "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
			    "source=\"hw_counters\",counter=\"brand_new\"} 9");
	/* and one removed */
	snprintf(rel, sizeof(rel), "%s/%s/hw_counters/brand_new", tmp, port);
	assert_int_equal(unlink(rel), 0);
	run_poll(&r);
	assert_null(strstr(r.text, "counter=\"brand_new\""));
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	rm_rf(tmp);
}

/*
 * rxe and mlx5 fill the GID table after the device registers, so a scan made
 * at once finds a RoCE port without a netdev: that device is re-checked five
 * times as often as the interval says (at most every minute), without a full
 * scan, until one shows; the other devices wait for the interval.
 */
static void test_recheck_pending_netdev(void **state)
{
	static bool before[MAX_FDS], after[MAX_FDS];
	const char *port = "devices/virtual/infiniband/rxe0/ports/1";
	char tmp[64], rel[512];
	unsigned n_before;
	struct run r;

	(void)state;
	copy_fixture("rxe", tmp, sizeof(tmp));
	for (int i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "%s/%s/gid_attrs/ndevs/%d", tmp, port, i);
		assert_int_equal(unlink(rel), 0);
	}
	sleep(3); /* directory times older than 2 s: a re-check, not a full scan */
	run_start(&r, open_dir(tmp), NULL, NULL, 10); /* a pending device: every 2 s */
	run_poll(&r);
	assert_null(strstr(r.text, "rdma_port_netdev_info{"));
	n_before = open_fds(before);

	write_file(tmp, "devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	usleep(2100 * 1000);
	run_poll(&r);
	assert_line(r.text, "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	assert_int_equal(open_fds(after), n_before);
	assert_memory_equal(before, after, MAX_FDS); /* re-checked in place, not scanned */
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	rm_rf(tmp);
}

/* Marks the open fds (but the one used to list them) in open[]; returns how many. */
static unsigned open_fds(bool open[MAX_FDS])
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	memset(open, 0, MAX_FDS);
	while ((de = readdir(d))) {
		long fd = strtol(de->d_name, NULL, 10);

		if (de->d_name[0] == '.' || fd == dirfd(d) || fd < 0 || fd >= MAX_FDS)
			continue;
		open[fd] = true;
		n++;
	}
	closedir(d);
	return n;
}

/* Few file descriptors: files past the limit are opened per read, same output. */
static void test_fd_limit_fallback(void **state)
{
	static bool before[MAX_FDS], after[MAX_FDS];
	struct rlimit old, low;
	struct run full, r;
	unsigned base;
	int probe;

	base = open_fds(before);
	run_once(&full, "node-exporter-mixed", NULL, NULL);
	/* every value file stays open between polls: root + 66 files */
	assert_int_equal(open_fds(after), base + 1 + 66);

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(probe >= 0);
	close(probe);
	/* room for the root fd, directory walks, and ~20 kept counter files
	 * (the fixture has 66) above the collector's reserve */
	low = old;
	low.rlim_cur = (rlim_t)probe + 64 + 24;
	open_fds(before);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	run_once(&r, "node-exporter-mixed", NULL, NULL);
	run_poll(&r);
	/* the reserve is left free */
	open_fds(after);
	for (rlim_t fd = low.rlim_cur - 64; fd < low.rlim_cur && fd < MAX_FDS; fd++)
		assert_false(after[fd] && !before[fd]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);

	assert_int_equal(r.stats.read_errors, full.stats.read_errors);
	assert_string_equal(r.text, full.text);
	run_stop(&r);
	run_stop(&full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_exporter_mixed),
		cmocka_unit_test(test_procfs_mixed),
		cmocka_unit_test(test_procfs_mlx5_counters),
		cmocka_unit_test(test_rxe),
		cmocka_unit_test(test_efa),
		cmocka_unit_test(test_bnxt_re_thor2),
		cmocka_unit_test(test_mana),
		cmocka_unit_test(test_erdma),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_log_paths),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_no_class_dir),
		cmocka_unit_test(test_device_removed_and_added),
		cmocka_unit_test(test_symlinked_device_removed),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_pcie_changes),
		cmocka_unit_test(test_value_breaks),
		cmocka_unit_test(test_rescan_and_reload),
		cmocka_unit_test(test_recheck_keeps_files),
		cmocka_unit_test(test_recheck_pending_netdev),
		cmocka_unit_test(test_fd_limit_fallback),
	};

	/* the tests provoke failures on purpose: keep the log quiet */
	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
