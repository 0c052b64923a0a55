// SPDX-License-Identifier: Apache-2.0
/* Flag parsing: the core flags and the collectors' own (config.c, config_collflags.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/log.h"
#include "daemon/config.h"

/* The check of the "listen" text flag: no ':' (as a port would be). */
static int check_no_colon(const char *v, char *why, size_t whylen)
{
	if (!strchr(v, ':'))
		return 0;
	snprintf(why, whylen, "\"%s\" has a port", v);
	return -EINVAL;
}

static const struct collector_flag probe_flags[] = {
	{.name = "count",
	 .help = "probes per poll",
	 .kind = COLLECTOR_FLAG_UINT,
	 .def = 10,
	 .min = 0,
	 .max = 100},
	{.name = "timeout",
	 .help = "probe timeout",
	 .kind = COLLECTOR_FLAG_DURATION,
	 .def = 0,
	 .min = 1,
	 .max = 60000},
	{.name = "peers", .help = "peer names", .kind = COLLECTOR_FLAG_REGEX},
	{.name = "targets-file", .help = "target list", .kind = COLLECTOR_FLAG_PATH},
	{.name = "responder", .help = "answer probes", .kind = COLLECTOR_FLAG_BOOL, .def = 1},
	{.name = "listen",
	 .help = "listen addresses",
	 .kind = COLLECTOR_FLAG_TEXT,
	 .check = check_no_colon,
	 .metavar = "ADDR"},
	{.name = "states",
	 .help = "which states",
	 .kind = COLLECTOR_FLAG_ENUM,
	 .def = 0,
	 .values = (const char *const[]){"active", "all", NULL}},
};

static const struct config_collector collectors[] = {
	{.name = "sysfs", .help = "sysfs counters", .default_enabled = true},
	{.name = "probe",
	 .help = "latency probes",
	 .default_enabled = false,
	 .flags = probe_flags,
	 .n_flags = 7},
};

static char err[256];

static int parse(struct exporter_config *cfg, int argc, char *const argv[])
{
	err[0] = '\0';
	return config_parse(cfg, argc, argv, collectors, 2, err, sizeof(err));
}

#define PARSE(cfg, ...)                                                                            \
	parse(cfg, (int)(sizeof((const char *[]){"rdma_exporter", __VA_ARGS__}) / sizeof(char *)), \
	      (char *const *)(const char *[]){"rdma_exporter", __VA_ARGS__})

static void test_defaults(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(parse(&cfg, 1, (char *const *)(const char *[]){"rdma_exporter"}), 0);
	assert_int_equal(cfg.action, CONFIG_RUN);
	assert_string_equal(cfg.listen_address, ":9879");
	assert_string_equal(cfg.telemetry_path, "/metrics");
	assert_string_equal(cfg.sysfs_path, "/sys");
	assert_int_equal(cfg.poll_interval_ms, 15000);
	assert_int_equal(cfg.poll_min_interval_ms, 1000);
	assert_false(cfg.poll_fixed);
	assert_int_equal(cfg.poll_collector_timeout_ms,
			 config_collector_timeout_ms(cfg.poll_interval_ms));
	assert_null(cfg.device_include);
	assert_null(cfg.device_exclude);
	assert_null(cfg.web_config_file);
	assert_int_equal(cfg.max_connections, 64);
	assert_int_equal(cfg.connection_timeout_s, 10);
	assert_int_equal(cfg.max_connections_per_client, 8);
	assert_int_equal(cfg.request_header_timeout_ms, 5000);
	assert_int_equal(cfg.log_level, LOG_INFO);
	assert_true(cfg.collector_enabled[0]);
	assert_false(cfg.collector_enabled[1]);
}

static void test_values(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(PARSE(&cfg, "--web.listen-address=127.0.0.1:9100", "--web.telemetry-path",
			       "/m", "--path.sysfs=/tmp/sys", "--poll.interval=500ms",
			       "--collector.device-include=mlx5_.*", "--collector.device-exclude",
			       "mlx5_1", "--log.level=debug", "--no-collector.sysfs",
			       "--collector.probe", "--collector.sysfs.rescan-interval=2m",
			       "--web.max-connections=8", "--web.connection-timeout=30s",
			       "--web.max-connections-per-client=3",
			       "--web.request-header-timeout=250ms", "--web.config.file",
			       "/etc/rdma_exporter/web.yml"),
			 0);
	assert_string_equal(cfg.listen_address, "127.0.0.1:9100");
	assert_string_equal(cfg.telemetry_path, "/m");
	assert_string_equal(cfg.sysfs_path, "/tmp/sys");
	assert_int_equal(cfg.poll_interval_ms, 500);
	assert_int_equal(cfg.rescan_interval_ms, 120000);
	assert_string_equal(cfg.device_include, "mlx5_.*");
	assert_string_equal(cfg.device_exclude, "mlx5_1");
	assert_int_equal(cfg.log_level, LOG_DEBUG);
	assert_false(cfg.collector_enabled[0]);
	assert_true(cfg.collector_enabled[1]);
	assert_int_equal(cfg.max_connections, 8);
	assert_int_equal(cfg.connection_timeout_s, 30);
	assert_int_equal(cfg.max_connections_per_client, 3);
	assert_int_equal(cfg.request_header_timeout_ms, 250);
	assert_string_equal(cfg.web_config_file, "/etc/rdma_exporter/web.yml");
}

static void test_disable_defaults(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(PARSE(&cfg, "--collector.disable-defaults", "--collector.probe"), 0);
	assert_false(cfg.collector_enabled[0]);
	assert_true(cfg.collector_enabled[1]);
}

static void test_help_version(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(PARSE(&cfg, "--help"), 0);
	assert_int_equal(cfg.action, CONFIG_HELP);
	assert_int_equal(PARSE(&cfg, "-h"), 0);
	assert_int_equal(cfg.action, CONFIG_HELP);
	assert_int_equal(PARSE(&cfg, "--version"), 0);
	assert_int_equal(cfg.action, CONFIG_VERSION);
}

static void expect_error(int rc, const char *needle)
{
	assert_int_equal(rc, -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

/* --poll.collector-timeout: its default follows --poll.interval; a value given stays below it. */
static void test_collector_timeout(void **state)
{
	struct exporter_config cfg;

	(void)state;
	/* half the interval, 1s to 10s, never above 9/10 of the interval */
	assert_int_equal(config_collector_timeout_ms(5000), 2500);
	assert_int_equal(config_collector_timeout_ms(15000), 7500);
	assert_int_equal(config_collector_timeout_ms(60000), 10000);
	assert_int_equal(config_collector_timeout_ms(24ull * 3600 * 1000), 10000);
	assert_int_equal(config_collector_timeout_ms(1500), 1000);
	assert_int_equal(config_collector_timeout_ms(2000), 1000);
	assert_int_equal(config_collector_timeout_ms(1000), 900);
	assert_int_equal(config_collector_timeout_ms(200), 180);
	assert_int_equal(config_collector_timeout_ms(100), 90);

	/* the default follows the interval, whatever the order of the flags */
	assert_int_equal(PARSE(&cfg, "--poll.interval=30s"), 0);
	assert_int_equal(cfg.poll_collector_timeout_ms, 10000);
	assert_int_equal(PARSE(&cfg, "--poll.interval=200ms"), 0);
	assert_int_equal(cfg.poll_collector_timeout_ms, 180);
	assert_int_equal(PARSE(&cfg, "--poll.collector-timeout=3s", "--poll.interval=4s"), 0);
	assert_int_equal(cfg.poll_collector_timeout_ms, 3000);
	assert_int_equal(PARSE(&cfg, "--poll.collector-timeout", "250ms"), 0);
	assert_int_equal(cfg.poll_collector_timeout_ms, 250);
	/* not below the interval: the poll would wait longer than the interval */
	expect_error(PARSE(&cfg, "--poll.collector-timeout=15s"),
		     "--poll.collector-timeout=15s must be shorter than --poll.interval (15s): a "
		     "poll waits that long for each collector");
	expect_error(PARSE(&cfg, "--poll.interval=2s", "--poll.collector-timeout=2500ms"),
		     "--poll.collector-timeout=2500ms must be shorter than --poll.interval (2s)");
	expect_error(PARSE(&cfg, "--poll.collector-timeout=5ms"), "out of range (10ms to 24h)");
	expect_error(PARSE(&cfg, "--poll.collector-timeout=soon"), "not a duration");
}

/* Issue 42: --poll.follow-address, the scrapers followed before other unauthenticated ones. */
static void test_follow_address(void **state)
{
	struct exporter_config cfg;

	(void)state;
	assert_int_equal(PARSE(&cfg, "--poll.mode=aligned"), 0);
	assert_int_equal(cfg.n_follow_addresses, 0);
	assert_int_equal(PARSE(&cfg, "--poll.follow-address=10.0.0.7,fd00::7"), 0);
	assert_int_equal(cfg.n_follow_addresses, 2);
	{
		const unsigned char v4[4] = {10, 0, 0, 7}, other[4] = {10, 0, 0, 8};
		unsigned char mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7};
		unsigned char v6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};

		assert_true(config_follow_address(&cfg, v4, 4));
		assert_true(config_follow_address(&cfg, mapped, 16));
		assert_true(config_follow_address(&cfg, v6, 16));
		assert_false(config_follow_address(&cfg, other, 4));
		assert_false(config_follow_address(&cfg, NULL, 0));
		v6[15] = 8;
		assert_false(config_follow_address(&cfg, v6, 16));
	}
	expect_error(PARSE(&cfg, "--poll.follow-address=prometheus"),
		     "--poll.follow-address: \"prometheus\" is not an IPv4 or IPv6 address");
	expect_error(PARSE(&cfg, "--poll.follow-address=10.0.0.7,"),
		     "\"\" is not an IPv4 or IPv6 address");
	expect_error(PARSE(&cfg, "--poll.follow-address=10.0.0.0/8"), "not an IPv4 or IPv6");
	expect_error(PARSE(&cfg, "--poll.follow-address=1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,"
				 "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,"
				 "1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1,1.1.1.1"),
		     "more than 16 addresses");
}

static void test_errors(void **state)
{
	struct exporter_config cfg;

	expect_error(PARSE(&cfg, "--bogus"), "unknown flag --bogus");
	expect_error(PARSE(&cfg, "--no-bogus"), "unknown flag --no-bogus");
	expect_error(PARSE(&cfg, "positional"), "unexpected argument");
	expect_error(PARSE(&cfg, "-x"), "unexpected argument");
	expect_error(PARSE(&cfg, "--"), "unexpected argument");
	expect_error(PARSE(&cfg, "--poll.interval"), "needs a value");
	expect_error(PARSE(&cfg, "--poll.interval=5"), "not a duration");
	expect_error(PARSE(&cfg, "--poll.interval=abc"), "not a duration");
	/* the refusal lists the accepted forms */
	expect_error(PARSE(&cfg, "--poll.interval=30s1m"),
		     "--poll.interval: \"30s1m\" is not a duration: write a number and a unit "
		     "(ms, s, m, h, d, w, y), several from the largest unit down, decimals "
		     "allowed: 500ms, 1.5s, 1m30s, 1h; from 100ms to 24h");
	assert_int_equal(PARSE(&cfg, "--poll.interval=1.5s"), 0);
	assert_int_equal(cfg.poll_interval_ms, 1500);
	assert_int_equal(PARSE(&cfg, "--poll.interval=1m30s"), 0);
	assert_int_equal(cfg.poll_interval_ms, 90000);
	assert_int_equal(PARSE(&cfg, "--poll.min-interval=250ms", "--poll.mode=fixed"), 0);
	assert_int_equal(cfg.poll_min_interval_ms, 250);
	assert_true(cfg.poll_fixed);
	assert_int_equal(PARSE(&cfg, "--poll.mode=aligned"), 0);
	assert_false(cfg.poll_fixed);
	expect_error(PARSE(&cfg, "--poll.mode=scrape"),
		     "--poll.mode: \"scrape\" is not one of aligned, fixed");
	expect_error(PARSE(&cfg, "--poll.min-interval=10ms"), "out of range (100ms to 24h)");
	expect_error(PARSE(&cfg, "--poll.interval=10ms"), "out of range (100ms to 24h)");
	expect_error(PARSE(&cfg, "--poll.interval=2d"), "out of range (100ms to 24h)");
	/* overflowing 64 bits of milliseconds: out of range, not "not a duration" */
	expect_error(PARSE(&cfg, "--poll.interval=99999999999999999999s"),
		     "--poll.interval: 99999999999999999999s is out of range (100ms to 24h)");
	expect_error(PARSE(&cfg, "--poll.interval=18446744073709551615s"),
		     "out of range (100ms to 24h)");
	expect_error(PARSE(&cfg, "--web.connection-timeout=18446744073709551615h"),
		     "out of range (1s to 1h)");
	expect_error(
		PARSE(&cfg, "--web.config.file", "--poll.interval=1s"),
		"--web.config.file needs a value, but the next argument \"--poll.interval=1s\" "
		"is a flag (write --web.config.file=VALUE for a value that starts with --)");
	expect_error(PARSE(&cfg, "--web.listen-address=9100"), "HOST:PORT");
	expect_error(PARSE(&cfg, "--web.listen-address=:0"), "HOST:PORT");
	expect_error(PARSE(&cfg, "--web.listen-address=:65536"), "HOST:PORT");
	expect_error(PARSE(&cfg, "--web.listen-address=::1:9100"), "HOST:PORT");
	expect_error(PARSE(&cfg, "--web.listen-address=[::1]9100"), "HOST:PORT");
	expect_error(PARSE(&cfg, "--web.telemetry-path=metrics"), "starting with /");
	expect_error(PARSE(&cfg, "--web.telemetry-path=/metrics?format=text"),
		     "has a query string or fragment");
	expect_error(PARSE(&cfg, "--web.telemetry-path=/metrics#x"),
		     "has a query string or fragment");
	expect_error(PARSE(&cfg, "--log.level=verbose"), "debug, info, warn, error");
	expect_error(PARSE(&cfg, "--collector.nope"), "unknown collector");
	expect_error(PARSE(&cfg, "--no-collector.nope"), "unknown collector");
	expect_error(PARSE(&cfg, "--collector.sysfs=false"), "takes no value");
	expect_error(PARSE(&cfg, "--no-poll.interval=1s"), "unknown flag");
	expect_error(PARSE(&cfg, "--web.max-connections=0"), "whole number");
	expect_error(PARSE(&cfg, "--web.connection-timeout=100ms"), "1s to 1h");
	expect_error(PARSE(&cfg, "--web.max-connections-per-client=0"), "whole number");
	expect_error(PARSE(&cfg, "--web.max-connections-per-client=100001"), "whole number");
	expect_error(PARSE(&cfg, "--web.request-header-timeout=99ms"), "100ms to 1h");
	expect_error(PARSE(&cfg, "--web.request-header-timeout=2h"), "100ms to 1h");
	expect_error(PARSE(&cfg, "--web.request-header-timeout=soon"), "100ms to 1h");
	expect_error(PARSE(&cfg, "--path.sysfs="), "empty path");
	expect_error(PARSE(&cfg, "--web.config.file="), "--web.config.file: empty path");
	expect_error(PARSE(&cfg, "--web.config.file"), "needs a value");
}

/* Collector flag values: durations out of range however large, and a value
 * taken from the next argument that is the next flag. */
static void test_collector_flag_values(void **state)
{
	struct exporter_config cfg;

	expect_error(PARSE(&cfg, "--collector.probe.timeout=99999999999999999999h"),
		     "out of range (1ms to 1m)");
	expect_error(PARSE(&cfg, "--collector.probe.timeout=5124095576030431h"),
		     "out of range (1ms to 1m)");
	/* a value taken from the next argument is never the next flag */
	expect_error(PARSE(&cfg, "--collector.probe.targets-file", "--web.listen-address=:1"),
		     "--collector.probe.targets-file needs a value, but the next argument "
		     "\"--web.listen-address=:1\" is a flag");
	expect_error(PARSE(&cfg, "--collector.probe.timeout", "--collector.probe"),
		     "needs a value, but the next argument");
	assert_int_equal(PARSE(&cfg, "--collector.probe.targets-file=--odd"), 0);
}

static void test_collector_flags(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(PARSE(&cfg, "--collector.probe"), 0);
	assert_int_equal(cfg.collector_flags[1][0], 10);
	assert_int_equal(cfg.collector_flags[1][1], 0);
	assert_int_equal(PARSE(&cfg, "--collector.probe.count=0", "--collector.probe.timeout", "1m",
			       "--collector.probe"),
			 0);
	assert_int_equal(cfg.collector_flags[1][0], 0);
	assert_int_equal(cfg.collector_flags[1][1], 60000);
	assert_true(cfg.collector_enabled[1]);
	expect_error(PARSE(&cfg, "--collector.probe.count=101"), "whole number from 0 to 100");
	expect_error(PARSE(&cfg, "--collector.probe.count=-1"), "whole number");
	expect_error(PARSE(&cfg, "--collector.probe.count"), "needs a value");
	expect_error(PARSE(&cfg, "--collector.probe.timeout=2m"),
		     "--collector.probe.timeout: 2m is out of range (1ms to 1m)");
	expect_error(PARSE(&cfg, "--collector.probe.timeout=x"), "not a duration");
	expect_error(PARSE(&cfg, "--collector.probe.nope=1"), "unknown");
	expect_error(PARSE(&cfg, "--collector.sysfs.count=1"), "unknown");
	expect_error(PARSE(&cfg, "--no-collector.probe.count=1"), "unknown");

	/* regex flags: checked at parse time, text kept */
	assert_int_equal(PARSE(&cfg, "--collector.probe"), 0);
	assert_null(cfg.collector_flag_strs[1][2]);
	assert_int_equal(PARSE(&cfg, "--collector.probe.peers=node[0-9]+"), 0);
	assert_string_equal(cfg.collector_flag_strs[1][2], "node[0-9]+");
	assert_int_equal(PARSE(&cfg, "--collector.probe.peers", "a|b"), 0);
	assert_string_equal(cfg.collector_flag_strs[1][2], "a|b");
	expect_error(PARSE(&cfg, "--collector.probe.peers=("),
		     "invalid --collector.probe.peers regex");
	expect_error(PARSE(&cfg, "--collector.probe.peers"), "needs a value");

	/* "takes no value" names only flags that exist; other flags with a value are unknown */
	expect_error(PARSE(&cfg, "--version=1"), "--version takes no value");
	assert_null(strstr(err, "no-version"));
	expect_error(PARSE(&cfg, "--collector.disable-defaults=1"), "takes no value");
	assert_null(strstr(err, "no-collector.disable"));
	expect_error(
		PARSE(&cfg, "--collector.probe=1"),
		"--collector.probe takes no value (use --collector.probe or --no-collector.probe)");
	expect_error(PARSE(&cfg, "--web.nonsense.file=x"), "unknown flag --web.nonsense.file");
	expect_error(PARSE(&cfg, "--vers=1"), "unknown flag --vers");

	/* the metrics path may not hide the other pages; an empty include is a mistake */
	expect_error(PARSE(&cfg, "--web.telemetry-path=/healthz"), "health page");
	expect_error(PARSE(&cfg, "--web.telemetry-path=/"), "index page");
	assert_int_equal(PARSE(&cfg, "--web.telemetry-path=/m"), 0);
	expect_error(PARSE(&cfg, "--collector.device-include="), "empty regex");

	/* path flags: any non-empty text, both spellings */
	assert_int_equal(PARSE(&cfg, "--collector.probe"), 0);
	assert_null(cfg.collector_flag_strs[1][3]);
	assert_int_equal(PARSE(&cfg, "--collector.probe.targets-file=/etc/t.json"), 0);
	assert_string_equal(cfg.collector_flag_strs[1][3], "/etc/t.json");
	assert_int_equal(
		PARSE(&cfg, "--collector.probe.targets-file", "t.json", "--collector.probe"), 0);
	assert_string_equal(cfg.collector_flag_strs[1][3], "t.json");
	assert_true(cfg.collector_enabled[1]);
	expect_error(PARSE(&cfg, "--collector.probe.targets-file="), "empty path");
	expect_error(PARSE(&cfg, "--collector.probe.targets-file"), "needs a value");

	/* bool flags: --X and --no-X, never a value, never the next argument */
	assert_int_equal(PARSE(&cfg, "--collector.probe"), 0);
	assert_int_equal(cfg.collector_flags[1][4], 1);
	assert_int_equal(PARSE(&cfg, "--no-collector.probe.responder", "--collector.probe"), 0);
	assert_int_equal(cfg.collector_flags[1][4], 0);
	assert_true(cfg.collector_enabled[1]);
	assert_int_equal(
		PARSE(&cfg, "--no-collector.probe.responder", "--collector.probe.responder"), 0);
	assert_int_equal(cfg.collector_flags[1][4], 1);
	expect_error(PARSE(&cfg, "--collector.probe.responder=1"), "takes no value");
	expect_error(PARSE(&cfg, "--no-collector.probe.responder=0"), "takes no value");
	expect_error(PARSE(&cfg, "--no-collector.probe.targets-file=x"), "unknown");
}

/* Text flags: checked by the flag's check(), its reason in the error. */
static void test_text_flags(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(PARSE(&cfg, "--collector.probe"), 0);
	assert_null(cfg.collector_flag_strs[1][5]);
	assert_int_equal(PARSE(&cfg, "--collector.probe.listen=10.0.0.1"), 0);
	assert_string_equal(cfg.collector_flag_strs[1][5], "10.0.0.1");
	assert_int_equal(PARSE(&cfg, "--collector.probe.listen", "10.0.0.2"), 0);
	assert_string_equal(cfg.collector_flag_strs[1][5], "10.0.0.2");
	expect_error(PARSE(&cfg, "--collector.probe.listen=10.0.0.1:80"),
		     "--collector.probe.listen: \"10.0.0.1:80\" has a port");
	expect_error(PARSE(&cfg, "--collector.probe.listen"), "needs a value");
}

/* Enum flags: one of their words, stored as its index; anything else is
 * refused with the words it takes. */
static void test_enum_flags(void **state)
{
	struct exporter_config cfg;

	assert_int_equal(PARSE(&cfg, "--collector.probe"), 0);
	assert_int_equal(cfg.collector_flags[1][6], 0);
	assert_int_equal(PARSE(&cfg, "--collector.probe.states=all"), 0);
	assert_int_equal(cfg.collector_flags[1][6], 1);
	assert_null(cfg.collector_flag_strs[1][6]);
	assert_int_equal(PARSE(&cfg, "--collector.probe.states", "active"), 0);
	assert_int_equal(cfg.collector_flags[1][6], 0);
	expect_error(PARSE(&cfg, "--collector.probe.states=some"),
		     "--collector.probe.states: \"some\" is not one of active, all");
	expect_error(PARSE(&cfg, "--collector.probe.states=ALL"), "is not one of active, all");
	expect_error(PARSE(&cfg, "--collector.probe.states="), "is not one of");
	expect_error(PARSE(&cfg, "--collector.probe.states"), "needs a value");
	expect_error(PARSE(&cfg, "--no-collector.probe.states"), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_collector_timeout),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_disable_defaults),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_follow_address),
		cmocka_unit_test(test_collector_flags),
		cmocka_unit_test(test_text_flags),
		cmocka_unit_test(test_enum_flags),
		cmocka_unit_test(test_collector_flag_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
