// SPDX-License-Identifier: Apache-2.0
/* The check subcommand's pure parts: exposition read-back, the expected
 * fabric spec, the evaluator on two readings, and the rendering. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"

/* --- check_table ------------------------------------------------------- */

static void test_table_parse(void **state)
{
	const char *text = "# HELP a x\n# TYPE a gauge\n"
			   "b{device=\"mlx5_0\",port=\"1\"} 4\n"
			   "a 1.5\n"
			   "b{device=\"q\\\"\\\\\\n\",port=\"2\",} 7 1700000000000\n"
			   "c_bucket{le=\"+Inf\"} 3\n"
			   "\n"
			   "d +Inf\n";
	struct check_table t;
	const struct check_sample *s;
	size_t bad = 0, n, i;

	(void)state;
	assert_int_equal(check_table_parse(&t, text, strlen(text), &bad), 0);
	assert_int_equal(t.n, 5);
	assert_string_equal(t.v[0].name, "a");
	assert_true(t.v[0].value == 1.5);
	i = check_table_family(&t, "b", &n);
	assert_int_equal(n, 2);
	assert_string_equal(check_sample_label(&t.v[i], "device"), "mlx5_0");
	assert_string_equal(check_sample_label(&t.v[i + 1], "device"), "q\"\\\n");
	s = check_table_find(&t, "b", &(struct metric_label){"port", "2"}, 1);
	assert_non_null(s);
	assert_true(s->value == 7);
	assert_null(check_table_find(&t, "b", &(struct metric_label){"port", "3"}, 1));
	assert_ptr_equal(check_table_same(&t, &t.v[i]), &t.v[i]);
	check_table_family(&t, "zzz", &n);
	assert_int_equal(n, 0);
	check_table_free(&t);
	check_table_free(NULL);
}

static void test_table_reject(void **state)
{
	static const char *const bad_texts[] = {
		"a\n",
		"a x\n",
		"a{b=\"c\" 1\n",
		"a{b=c} 1\n",
		"a{b=\"\\q\"} 1\n",
		"1a 2\n",
		"a{=\"x\"} 1\n",
		"a 1 2 3\n",
		"a{b=\"c\"}1\n",
		"ok 1\nbad\n",
		"a{b=\"c\"\"} 1\n",
		"a{b=\"1\",b=\"2\"} 1\n",
	};
	struct check_table t;
	size_t bad;

	(void)state;
	for (size_t k = 0; k < sizeof(bad_texts) / sizeof(bad_texts[0]); k++) {
		bad = 0;
		assert_int_equal(check_table_parse(&t, bad_texts[k], strlen(bad_texts[k]), &bad),
				 -EINVAL);
		assert_int_equal(t.n, 0);
		assert_true(bad >= 1);
	}
	assert_int_equal(check_table_parse(&t, "ok 1\nbad\n", 9, &bad), -EINVAL);
	assert_int_equal(bad, 2);
}

/* --- check_expect ------------------------------------------------------ */

static void test_expect_parse(void **state)
{
	struct check_expect e;
	char why[200];

	(void)state;
	assert_int_equal(check_expect_parse("mlx5_[0-7]:1@400", &e, why, sizeof(why)), 0);
	assert_int_equal(e.n, 8);
	assert_string_equal(e.v[0].device, "mlx5_0");
	assert_string_equal(e.v[7].device, "mlx5_7");
	assert_int_equal(e.v[7].port, 1);
	assert_true(e.v[7].rate_gbps == 400);
	check_expect_free(&e);

	assert_int_equal(check_expect_parse("# node type A\nmlx5_[0,2-3]:1-2 , rxe0@12.5\n"
					    "bond_[1]x # trailing\n",
					    &e, why, sizeof(why)),
			 0);
	assert_int_equal(e.n, 8);
	assert_string_equal(e.v[0].device, "mlx5_0");
	assert_int_equal(e.v[1].port, 2);
	assert_string_equal(e.v[2].device, "mlx5_2");
	assert_string_equal(e.v[6].device, "rxe0");
	assert_int_equal(e.v[6].port, 1);
	assert_true(e.v[6].rate_gbps == 12.5);
	assert_true(e.v[0].rate_gbps == 0);
	assert_string_equal(e.v[7].device, "bond_1x");
	check_expect_free(&e);
	check_expect_free(NULL);
}

static void test_expect_reject(void **state)
{
	static const char *const bad[] = {
		"",
		"  # only a comment\n",
		"mlx5_[0-7",
		"mlx5_[7-0]",
		"mlx5_[]",
		"mlx5_0:0",
		"mlx5_0:300",
		"mlx5_0@",
		"mlx5_0@fast",
		"mlx5_0@1.2.3",
		"mlx5_0@-1",
		"a[1]b[2]",
		"a/b",
		"mlx5_0 mlx5_0",
		"x[0-99999]",
		"mlx5_0:1@400:1",
		":1",
		"mlx5_0:",
		"[0-1]]",
	};
	struct check_expect e;
	char why[200];

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		why[0] = '\0';
		assert_int_equal(check_expect_parse(bad[k], &e, why, sizeof(why)), -EINVAL);
		assert_int_equal(e.n, 0);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(check_expect_parse("mlx5_0 mlx5_0", &e, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "mlx5_0 port 1 is listed twice");
}

/* --- the evaluator ----------------------------------------------------- */

#include "eval_harness.h"

static void test_eval_healthy(void **state)
{
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	e.cfg.rate_min_gbps = 400;
	assert_int_equal(run(&e, HEALTHY, HEALTHY), CHECK_OK);
	assert_int_equal(e.res.n, 2);
	assert_memory_equal(e.text.data, "OK: 2 checks passed\n", 20);
	has_line(&e, "OK      ports mlx5_0/1: ACTIVE, LinkUp, 400 Gb/s\n");
	done(&e);
}

static void test_eval_port_down_and_degraded(void **state)
{
	const char *t = SUCCESS("sysfs", 1) PORT("state", "mlx5_0", "1", 1)
		PORT("phys_state", "mlx5_0", "1", 3)
			PORT("rate_bytes_per_second", "mlx5_0", "1", 50000000000)
				PORT("state", "mlx5_1", "1", 4) PORT("phys_state", "mlx5_1", "1", 5)
					PORT("rate_bytes_per_second", "mlx5_1", "1", 12500000000);
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	e.cfg.rate_min_gbps = 400;
	assert_int_equal(run(&e, t, t), CHECK_FAIL);
	has_line(&e, "FAIL    ports mlx5_0/1: state DOWN (1), want ACTIVE; phys_state Disabled "
		     "(3), want LinkUp\n");
	has_line(&e, "FAIL    ports mlx5_1/1: rate 100 Gb/s, want at least 400\n");
	assert_true(strlen(e.text.data) > 0 && strchr(e.text.data, '\n') - e.text.data < 80);
	assert_memory_equal(e.text.data, "FAIL: 2 of 2 failed; ports mlx5_0/1: state DOWN", 46);
	done(&e);
}

static void test_eval_expect(void **state)
{
	struct eval e = {0};
	struct check_expect x;
	char why[100];

	(void)state;
	assert_int_equal(check_expect_parse("mlx5_[0-2]@400 mlx5_1:2", &x, why, sizeof(why)), 0);
	check_config_defaults(&e.cfg);
	e.cfg.expect = &x;
	e.cfg.ports_min = 4;
	assert_int_equal(run(&e, HEALTHY, HEALTHY), CHECK_FAIL);
	has_line(&e, "OK      ports mlx5_0/1: ACTIVE, LinkUp, 400 Gb/s\n");
	has_line(&e, "FAIL    ports mlx5_2/1: device mlx5_2 not found\n");
	has_line(&e, "FAIL    ports mlx5_1/2: port 2 not found on mlx5_1\n");
	has_line(&e, "FAIL    ports node: 2 of 4 ports healthy, want at least 4\n");
	done(&e);
	check_expect_free(&x);
}

static void test_expect_pcie_parse(void **state)
{
	static const char *const bad[] = {
		"",
		"mlx5_0",
		"mlx5_0@",
		"mlx5_0@x",
		"mlx5_0@x0",
		"mlx5_0@x33",
		"mlx5_0@fast",
		"mlx5_0@16x",
		"mlx5_0@-16",
		"mlx5_0@16x8x4",
		"mlx5_0@2000",
		"@16",
		"mlx5_[0-1@16",
		"a/b@16",
		"mlx5_0@16 mlx5_0@8",
	};
	struct check_expect_pcie e;
	char why[200];

	(void)state;
	assert_int_equal(check_expect_pcie_parse("# rack A\nmlx5_[0-1]@32x16, mlx5_2@x8 "
						 "mlx5_3@2.5 bond0@any",
						 &e, why, sizeof(why)),
			 0);
	assert_int_equal(e.n, 5);
	assert_string_equal(e.v[0].device, "mlx5_0");
	assert_string_equal(e.v[1].device, "mlx5_1");
	assert_true(e.v[1].gts == 32 && e.v[1].width == 16 && !e.v[1].any);
	assert_true(e.v[2].gts == 0 && e.v[2].width == 8);
	assert_true(e.v[3].gts == 2.5 && e.v[3].width == 0);
	assert_string_equal(e.v[4].device, "bond0");
	assert_true(e.v[4].any);
	check_expect_pcie_free(&e);
	check_expect_pcie_free(NULL);

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		why[0] = '\0';
		assert_int_equal(check_expect_pcie_parse(bad[k], &e, why, sizeof(why)), -EINVAL);
		assert_int_equal(e.n, 0);
		assert_true(why[0] != '\0');
	}
	assert_int_equal(check_expect_pcie_parse("mlx5_0@16 mlx5_0@8", &e, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "mlx5_0 is listed twice");
}

static void test_eval_unresponsive(void **state)
{
	const char *t = SUCCESS("sysfs", 1) "rdma_device_info{device=\"mlx5_0\"} 1\n" PORT(
		"state", "mlx5_0", "1", 4) PORT("phys_state", "mlx5_0", "1", 5)
		PORT("rate_bytes_per_second", "mlx5_0", "1",
		     50000000000) "rdma_device_responsive{device=\"mlx5_0\"} 1\n"
				  "rdma_device_responsive{device=\"mlx5_1\"} 0\n"
				  "rdma_device_info{device=\"mlx5_1\"} 1\n"
				  "rdma_port_info{device=\"mlx5_1\",port=\"1\"} 1\n";
	const char *none = SUCCESS("sysfs", 1) "rdma_device_responsive{device=\"mlx5_0\"} 0\n";
	struct eval e = {0};
	struct check_expect x;
	char why[100];

	(void)state;
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, t, t), CHECK_FAIL);
	has_line(&e, "FAIL    ports mlx5_1: the device does not answer: its sysfs reads did not "
		     "finish within --collector.sysfs.device-timeout (hung firmware?)\n");
	has_line(&e, "OK      ports mlx5_0/1: ACTIVE, LinkUp, 400 Gb/s\n");
	assert_memory_equal(e.text.data, "FAIL: 1 of 2 failed; ports mlx5_1: the device", 45);
	assert_null(strstr(e.text.data, "UNKNOWN"));
	done(&e);

	assert_int_equal(check_expect_parse("mlx5_[0-1]", &x, why, sizeof(why)), 0);
	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	e.cfg.expect = &x;
	assert_int_equal(run(&e, t, t), CHECK_FAIL);
	has_line(&e, "FAIL    ports mlx5_1/1: device mlx5_1 does not answer\n");
	done(&e);
	check_expect_free(&x);

	/* the only device hangs: a FAIL, not "no RDMA ports found" */
	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, none, none), CHECK_FAIL);
	has_line(&e, "FAIL    ports mlx5_0: the device does not answer");
	assert_null(strstr(e.text.data, "no RDMA ports found"));
	done(&e);
}

static void test_eval_counters(void **state)
{
	const char *t1 = HEALTHY PORT("symbol_errors_total", "mlx5_0", "1", 10)
		PORT("link_downed_total", "mlx5_0", "1", 1)
			PORT("local_ack_timeouts_total", "mlx5_0", "1", 100)
				PORT("symbol_errors_total", "mlx5_1", "1",
				     0) "rdma_netdev_crc_errors_total{netdev=\"eth2\"} 5\n";
	const char *t2 = HEALTHY PORT("symbol_errors_total", "mlx5_0", "1", 25)
		PORT("link_downed_total", "mlx5_0", "1", 2)
			PORT("local_ack_timeouts_total", "mlx5_0", "1", 105)
				PORT("symbol_errors_total", "mlx5_1", "1",
				     0) "rdma_netdev_crc_errors_total{netdev=\"eth2\"} 5\n"
					"rdma_netdev_symbol_errors_total{netdev=\"eth3\"} 5\n";
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	e.cfg.window_s = 5;
	assert_int_equal(run(&e, t1, t2), CHECK_FAIL);
	has_line(&e, "FAIL    counters mlx5_0/1: symbol_errors rose by 15 in 5s (max 0); "
		     "link_downed rose by 1 in 5s (max 0)\n");
	has_line(&e, "OK      counters mlx5_1/1: 1 error counters steady\n");
	has_line(&e, "OK      counters eth2: 1 error counters steady\n");
	/* eth3 has no first reading: nothing to compare */
	assert_null(strstr(e.text.data, "eth3"));
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	check_config_counter(&e.cfg, "symbol_errors")->max_increase = 20;
	check_config_counter(&e.cfg, "link_downed")->on = false;
	assert_null(check_config_counter(&e.cfg, "nope"));
	assert_int_equal(run(&e, t1, t2), CHECK_OK);
	has_line(&e, "OK      counters mlx5_0/1: 2 error counters steady\n");
	done(&e);
}

static void test_eval_pfc_resources(void **state)
{
	const char *t1 = SUCCESS("ethtool", 1) SUCCESS(
		"netlink",
		1) "rdma_netdev_pause_storm_events_total{level=\"error\",netdev=\"eth2\"} 0\n"
		   "rdma_netdev_priority_pause_duration_seconds_total{direction=\"tx\",netdev="
		   "\"eth2\","
		   "priority=\"3\"} 1\n"
		   "rdma_netdev_priority_pause_duration_seconds_total{direction=\"rx\",netdev="
		   "\"eth3\","
		   "priority=\"3\"} 1\n";
	const char *t2 = SUCCESS("ethtool", 1) SUCCESS(
		"netlink",
		1) "rdma_netdev_pause_storm_events_total{level=\"error\",netdev=\"eth2\"} 1\n"
		   "rdma_netdev_priority_pause_duration_seconds_total{direction=\"tx\",netdev="
		   "\"eth2\","
		   "priority=\"3\"} 4.5\n"
		   "rdma_netdev_priority_pause_duration_seconds_total{direction=\"rx\",netdev="
		   "\"eth3\","
		   "priority=\"3\"} 1.5\n"
		   "rdma_resources{device=\"mlx5_0\",resource=\"qp\"} 950\n"
		   "rdma_resource_limit{device=\"mlx5_0\",resource=\"qp\"} 1000\n"
		   "rdma_resources{device=\"mlx5_1\",resource=\"qp\"} 10\n"
		   "rdma_resources{device=\"mlx5_1\",resource=\"ctx\"} 10\n"
		   "rdma_resource_limit{device=\"mlx5_1\",resource=\"qp\"} 1000\n";
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	e.cfg.ports = false;
	e.cfg.window_s = 5;
	assert_int_equal(run(&e, t1, t2), CHECK_FAIL);
	has_line(&e, "FAIL    pfc eth2: 1 pause storm events (error) in 5s; tx priority 3 paused "
		     "3.50s of 5s (max 50%)\n");
	has_line(&e, "OK      pfc eth3: 1 pause counters below the limits\n");
	has_line(&e, "FAIL    resources mlx5_0: qp 950 of 1000 in use (max 90%)\n");
	has_line(&e, "OK      resources mlx5_1: 1 resource types below their limits\n");
	done(&e);
}

/* The shared watch loop's edges in the pfc check: a label missing reads "?", a
 * sample only in the second reading is not watched, a window of 0 judges no pause
 * ratio but still the storms. */
static void test_eval_pfc_edges(void **state)
{
	const char *t1 =
		SUCCESS("ethtool",
			1) "rdma_netdev_pause_storm_events_total{netdev=\"eth2\"} 0\n"
			   "rdma_netdev_priority_pause_duration_seconds_total{netdev=\"eth2\"} 0\n";
	const char *t2 =
		SUCCESS("ethtool",
			1) "rdma_netdev_pause_storm_events_total{netdev=\"eth2\"} 2\n"
			   "rdma_netdev_priority_pause_duration_seconds_total{netdev=\"eth2\"} 4\n"
			   "rdma_netdev_pause_storm_events_total{netdev=\"eth9\"} 5\n";
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	e.cfg.ports = false;
	e.cfg.window_s = 5;
	assert_int_equal(run(&e, t1, t2), CHECK_FAIL);
	has_line(&e, "FAIL    pfc eth2: 2 pause storm events (?) in 5s; ? priority ? paused 4.00s "
		     "of 5s (max 50%)\n");
	assert_null(strstr(e.text.data, "eth9"));
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	e.cfg.ports = false;
	e.cfg.window_s = 0;
	e.cfg.storm_max_increase = 2;
	assert_int_equal(run(&e, t1, t2), CHECK_OK);
	has_line(&e, "OK      pfc eth2: 2 pause counters below the limits\n");
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	e.cfg.ports = false;
	e.cfg.window_s = 0;
	assert_int_equal(run(&e, t1, t2), CHECK_FAIL);
	has_line(&e, "FAIL    pfc eth2: 2 pause storm events (?) in 0s\n");
	done(&e);
}

#define PROBE(fam, port, v)                                                                        \
	"rdma_probe_" fam "{device=\"mlx5_0\",port=\"" port "\",target=\"loopback\"} " #v "\n"
#define PROBE_ERR(port, reason, v)                                                                 \
	"rdma_probe_errors_total{device=\"mlx5_0\",port=\"" port                                   \
	"\",target=\"loopback\",reason=\"" reason "\"} " #v "\n"

static void test_eval_probe(void **state)
{
	const char *t = SUCCESS("sysfs", 1) SUCCESS("probe", 1) PORT("state", "mlx5_0", "1", 4)
		PORT("state", "mlx5_0", "2", 4) PORT("state", "mlx5_0", "3", 4) PORT(
			"state", "mlx5_0", "4", 4) PORT("state", "mlx5_0", "5", 1)
			PROBE("sent_total", "1", 5) PROBE("replies_total", "1", 5) PROBE(
				"timeouts_total", "1", 0) PROBE("sent_total", "2", 5)
				PROBE("replies_total", "2", 2) PROBE("timeouts_total", "2",
								     3) PROBE("sent_total", "3", 0)
					PROBE_ERR("3", "qp",
						  2) "rdma_probe_sent_total{device=\"mlx5_0\",port="
						     "\"1\",target=\"node7:9879\"} 5\n"
						     "rdma_probe_replies_total{device=\"mlx5_0\","
						     "port=\"1\",target=\"node7:9879\"} 0\n"
						     "rdma_probe_timeouts_total{device=\"mlx5_0\","
						     "port=\"1\",target=\"node7:9879\"} 5\n";
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	e.cfg.ports = false;
	assert_int_equal(run(&e, t, t), CHECK_FAIL);
	has_line(&e, "OK      probe mlx5_0/1: 5 of 5 probes answered\n");
	has_line(&e, "FAIL    probe mlx5_0/2: 3 of 5 probes lost (3 timeouts, 0 errors; max 0)\n");
	has_line(&e, "UNKNOWN probe mlx5_0/3: the probe QP cannot be set up (2 tries; verbs "
		     "access?)\n");
	has_line(&e, "UNKNOWN probe mlx5_0/4: no loopback probe on this port");
	has_line(&e, "FAIL    peers mlx5_0/1 -> node7:9879: 5 of 5 probes lost");
	/* port 5 is down: the ports check says so, the probe check skips it */
	assert_null(strstr(e.text.data, "mlx5_0/5"));
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	e.cfg.peers = false;
	e.cfg.ports = false;
	assert_int_equal(run(&e, SUCCESS("probe", 0), SUCCESS("probe", 0)), CHECK_UNKNOWN);
	has_line(&e, "UNKNOWN probe node: the probe collector failed (see the log)\n");
	done(&e);
}

static void test_eval_cannot_tell(void **state)
{
	struct eval e = {0};

	(void)state;
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, SUCCESS("sysfs", 1), SUCCESS("sysfs", 1)), CHECK_UNKNOWN);
	has_line(&e, "UNKNOWN ports node: no RDMA ports found");
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, SUCCESS("sysfs", 1),
			     SUCCESS("sysfs", 1) "rdma_exporter_collector_read_errors_total{"
						 "collector=\"sysfs\"} 2\n"),
			 CHECK_UNKNOWN);
	has_line(&e,
		 "UNKNOWN ports node: no RDMA port could be read (2 read errors; see the log)\n");
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, SUCCESS("sysfs", 1) PORT("info", "bad0", "1", 1),
			     SUCCESS("sysfs", 1) PORT("info", "bad0", "1", 1)),
			 CHECK_UNKNOWN);
	has_line(&e, "UNKNOWN ports bad0/1: the port state cannot be read (see the log)\n");
	assert_null(strstr(e.text.data, "no RDMA ports"));
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	assert_int_equal(run(&e, SUCCESS("sysfs", 0), SUCCESS("sysfs", 0)), CHECK_UNKNOWN);
	has_line(&e, "UNKNOWN ports node: the sysfs collector failed (see the log)\n");
	done(&e);

	e = (struct eval){0};
	check_config_defaults(&e.cfg);
	e.cfg.ports = false;
	assert_int_equal(run(&e, "", ""), CHECK_UNKNOWN);
	assert_string_equal(e.text.data, "UNKNOWN: nothing to check\n");
	done(&e);
}

static void test_render_json(void **state)
{
	struct check_results r = {0};
	struct check_result v[2] = {
		{CHECK_OK, "ports", "mlx5_0/1", "ACTIVE"},
		{CHECK_FAIL, "counters", "we\"ird\n\xff", "rose"},
	};
	struct buf b = BUF_INIT;

	(void)state;
	r.v = v;
	r.n = 2;
	assert_int_equal(check_render_json(&r, &b), 0);
	assert_string_equal(
		b.data,
		"{\"status\":\"fail\",\"summary\":\"FAIL: 1 of 2 failed; counters "
		"we\\\"ird\\u000a?: "
		"rose\",\"checks\":[{\"status\":\"ok\",\"check\":\"ports\",\"object\":\"mlx5_0/"
		"1\",\"reason\":\"ACTIVE\"},{\"status\":\"fail\",\"check\":\"counters\","
		"\"object\":\"we\\\"ird\\u000a?\",\"reason\":\"rose\"}]}\n");
	buf_free(&b);

	/* text: one line per result, whatever the names hold */
	b = (struct buf)BUF_INIT;
	assert_int_equal(check_render_text(&r, &b), 0);
	assert_string_equal(b.data, "FAIL: 1 of 2 failed; counters we\"ird??: rose\n"
				    "OK      ports mlx5_0/1: ACTIVE\n"
				    "FAIL    counters we\"ird??: rose\n");
	buf_free(&b);
}

static void test_summary_short(void **state)
{
	struct check_results r = {0};
	struct check_result v = {CHECK_FAIL, "ports", "mlx5_0/1", ""};
	struct buf b = BUF_INIT;

	(void)state;
	memset(v.reason, 'x', sizeof(v.reason) - 1);
	r.v = &v;
	r.n = 1;
	assert_int_equal(check_render_text(&r, &b), 0);
	assert_int_equal(strchr(b.data, '\n') - b.data, 79);
	assert_memory_equal(b.data + 76, "...\n", 4);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_parse),
		cmocka_unit_test(test_table_reject),
		cmocka_unit_test(test_expect_parse),
		cmocka_unit_test(test_expect_reject),
		cmocka_unit_test(test_eval_healthy),
		cmocka_unit_test(test_eval_port_down_and_degraded),
		cmocka_unit_test(test_eval_expect),
		cmocka_unit_test(test_expect_pcie_parse),
		cmocka_unit_test(test_eval_unresponsive),
		cmocka_unit_test(test_eval_counters),
		cmocka_unit_test(test_eval_pfc_resources),
		cmocka_unit_test(test_eval_pfc_edges),
		cmocka_unit_test(test_eval_probe),
		cmocka_unit_test(test_eval_cannot_tell),
		cmocka_unit_test(test_render_json),
		cmocka_unit_test(test_summary_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
