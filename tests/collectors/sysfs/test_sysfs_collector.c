// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector run end to end (init, collect, render, free) on the
 * fixture trees under $FIXTURES/sysfs, asserting on the exposition text:
 * what each driver's files become (sysfs_walk.c), broken values and their
 * log, the device filter, no device. Trees that a test changes are copied
 * to a mkdtemp() directory first (sysfs_run.h). The device list over time
 * is test_sysfs_refresh.c's, the PCIe files test_sysfs_pcie_scan.c's.
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
#include "sysfs_run.h"

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
		cmocka_unit_test(test_value_breaks),
	};

	/* the tests provoke failures on purpose: keep the log quiet */
	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
