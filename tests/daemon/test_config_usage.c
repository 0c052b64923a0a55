// SPDX-License-Identifier: Apache-2.0
/* The --help text (config_usage.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/config_usage.h"

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
	 .min = 1,
	 .max = 60000},
	{.name = "responder", .help = "answer probes", .kind = COLLECTOR_FLAG_BOOL, .def = 1},
	{.name = "listen",
	 .help = "listen addresses",
	 .kind = COLLECTOR_FLAG_TEXT,
	 .metavar = "ADDR"},
	{.name = "states",
	 .help = "which states",
	 .kind = COLLECTOR_FLAG_ENUM,
	 .values = (const char *const[]){"active", "all", NULL}},
};

static const struct config_collector collectors[] = {
	{.name = "sysfs", .help = "sysfs counters", .default_enabled = true},
	{.name = "probe",
	 .help = "latency probes",
	 .default_enabled = false,
	 .flags = probe_flags,
	 .n_flags = 5},
};

/* --help: lines of at most 80 columns, ranges of numbers and durations, long
 * flags on a line of their own, long words cut rather than overflowing. */
static void test_usage_layout(void **state)
{
	char *text = NULL, *line, *end;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	config_usage(f, "rdma_exporter", collectors, 2);
	fclose(f);
	for (line = text; *line; line = end + 1) {
		end = strchr(line, '\n');
		assert_non_null(end);
		if (end - line > 80)
			fail_msg("line over 80 columns: %.*s", (int)(end - line), line);
	}
	assert_non_null(strstr(text, "      --collector.probe.count=N    probes per poll Range: 0 "
				     "to 100.\n"));
	assert_non_null(strstr(text, "probe timeout Range: 1ms to 1m.\n"));
	assert_non_null(strstr(text, "Default 64.\n                                   Range: 1 to "
				     "100000 connections.\n"));
	assert_non_null(strstr(text, "      --poll.interval=D            Time between polls."));
	assert_non_null(strstr(text, "Range: 100ms to 24h.\n"));
	assert_non_null(strstr(text, "      --web.max-connections-per-client=N\n"
				     "                                   Concurrent"));
	assert_non_null(strstr(text, "      --log.format=FORMAT          logfmt, or json"));
	assert_non_null(strstr(text, "      --collector.sysfs            sysfs counters. Default: "
				     "enabled.\n"));
	assert_non_null(strstr(text, "      --collector.probe.states=active|all\n"
				     "                                   which states\n"));
	free(text);
}

/* The metavars: N, D, [no-] for a switch, a TEXT flag's own. */
static void test_usage_metavars(void **state)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	config_usage(f, "rdma_exporter", collectors, 2);
	fclose(f);
	assert_true(strncmp(text, "Usage: rdma_exporter [FLAGS]\n", 29) == 0);
	assert_non_null(strstr(text, "      --collector.probe.timeout=D"));
	assert_non_null(strstr(text, "      --[no-]collector.probe.responder"));
	assert_non_null(strstr(text, "      --collector.probe.listen=ADDR"));
	assert_non_null(strstr(text, "      --collector.probe            latency probes. Default: "
				     "disabled.\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_layout),
		cmocka_unit_test(test_usage_metavars),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
