// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the command-line flag parser (config_parse). The input is
 * the argument list, one argument a line (argv[0] is fixed), against a
 * collector table with a flag of every kind.
 *
 * Invariants: the result is 0 or -EINVAL; an error leaves a one-line message;
 * a successful parse leaves every value within its documented range (or its
 * default), the listen address splittable, and text values pointing into the
 * arguments.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "base/log.h"
#include "base/strparse.h"
#include "daemon/config.h"
#include "fuzz.h"

#define MAX_ARGS 64

static const struct collector_flag probe_flags[] = {
	{.name = "count",
	 .help = "h",
	 .kind = COLLECTOR_FLAG_UINT,
	 .def = 10,
	 .min = 0,
	 .max = 100},
	{.name = "timeout",
	 .help = "h",
	 .kind = COLLECTOR_FLAG_DURATION,
	 .def = 1000,
	 .min = 1,
	 .max = 60000},
	{.name = "peers", .help = "h", .kind = COLLECTOR_FLAG_REGEX},
	{.name = "targets-file", .help = "h", .kind = COLLECTOR_FLAG_PATH},
	{.name = "responder", .help = "h", .kind = COLLECTOR_FLAG_BOOL, .def = 1},
};

static const char *const qp_states[] = {"active", "all", NULL};

static const struct collector_flag netlink_flags[] = {
	{.name = "top-processes",
	 .help = "h",
	 .kind = COLLECTOR_FLAG_UINT,
	 .def = 10,
	 .min = 0,
	 .max = 1000},
	{.name = "stat-include", .help = "h", .kind = COLLECTOR_FLAG_REGEX},
	{.name = "qp-states", .help = "h", .kind = COLLECTOR_FLAG_ENUM, .values = qp_states},
};

static const struct config_collector collectors[] = {
	{.name = "sysfs", .help = "h", .default_enabled = true},
	{.name = "netlink",
	 .help = "h",
	 .default_enabled = true,
	 .flags = netlink_flags,
	 .n_flags = sizeof(netlink_flags) / sizeof(netlink_flags[0])},
	{.name = "probe",
	 .help = "h",
	 .default_enabled = false,
	 .flags = probe_flags,
	 .n_flags = sizeof(probe_flags) / sizeof(probe_flags[0])},
};
#define N_COLLECTORS (sizeof(collectors) / sizeof(collectors[0]))

/* Whether p points into the argument text (buf holds every argument but argv[0]). */
static bool in_args(const char *p, const char *buf, size_t size)
{
	return p >= buf && p <= buf + size;
}

static void check_config(const struct exporter_config *cfg, const char *buf, size_t size)
{
	char host[256];
	uint16_t port;

	FUZZ_CHECK(cfg->action == CONFIG_RUN || cfg->action == CONFIG_HELP ||
		   cfg->action == CONFIG_VERSION);
	if (cfg->action != CONFIG_RUN)
		return;
	FUZZ_CHECK(parse_listen_address(cfg->listen_address, host, sizeof(host), &port) == 0);
	FUZZ_CHECK(port > 0);
	FUZZ_CHECK(cfg->telemetry_path[0] == '/' && !strchr(cfg->telemetry_path, '?') &&
		   !strchr(cfg->telemetry_path, '#'));
	FUZZ_CHECK(cfg->sysfs_path[0] != '\0');
	FUZZ_CHECK(cfg->poll_interval_ms >= CONFIG_MIN_POLL_INTERVAL_MS &&
		   cfg->poll_interval_ms <= CONFIG_MAX_POLL_INTERVAL_MS);
	FUZZ_CHECK(cfg->rescan_interval_ms >= CONFIG_MIN_POLL_INTERVAL_MS &&
		   cfg->rescan_interval_ms <= CONFIG_MAX_POLL_INTERVAL_MS);
	FUZZ_CHECK(cfg->max_connections >= 1 && cfg->max_connections <= 100000);
	FUZZ_CHECK(cfg->connection_timeout_s >= 1 && cfg->connection_timeout_s <= 3600);
	FUZZ_CHECK(cfg->log_level == LOG_DEBUG || cfg->log_level == LOG_INFO ||
		   cfg->log_level == LOG_WARNING || cfg->log_level == LOG_ERR);
	FUZZ_CHECK(!cfg->web_config_file || cfg->web_config_file[0]);
	FUZZ_CHECK(!cfg->device_include || in_args(cfg->device_include, buf, size));
	FUZZ_CHECK(!cfg->device_exclude || in_args(cfg->device_exclude, buf, size));
	FUZZ_CHECK(cfg->n_collectors == N_COLLECTORS);
	for (unsigned c = 0; c < N_COLLECTORS; c++) {
		for (unsigned f = 0; f < collectors[c].n_flags; f++) {
			const struct collector_flag *cf = &collectors[c].flags[f];
			uint64_t v = cfg->collector_flags[c][f];
			const char *s = cfg->collector_flag_strs[c][f];

			switch (cf->kind) {
			case COLLECTOR_FLAG_UINT:
			case COLLECTOR_FLAG_DURATION:
				FUZZ_CHECK(v == cf->def || (v >= cf->min && v <= cf->max));
				FUZZ_CHECK(!s);
				break;
			case COLLECTOR_FLAG_BOOL:
				FUZZ_CHECK(v <= 1);
				FUZZ_CHECK(!s);
				break;
			case COLLECTOR_FLAG_ENUM: {
				uint64_t nv = 0;

				while (cf->values[nv])
					nv++;
				FUZZ_CHECK(v < nv);
				FUZZ_CHECK(!s);
				break;
			}
			case COLLECTOR_FLAG_PATH:
				FUZZ_CHECK(!s || (s[0] && in_args(s, buf, size)));
				break;
			case COLLECTOR_FLAG_REGEX:
			case COLLECTOR_FLAG_TEXT:
				FUZZ_CHECK(!s || in_args(s, buf, size));
				break;
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 1], err[256];
	struct exporter_config cfg;
	int argc = 0, r;

	if (!buf)
		return 0;
	/*
	 * glibc's regcomp() doubles its memory with every stacked repetition
	 * operator ("a++++...": 20 take 700 MB, 30 exhaust memory; found by this
	 * target and reported). Regex flag values are the operator's, so that cost
	 * is known and left out here: it would stop every run at the same place.
	 */
	for (size_t i = 0, ops = 0; i < size; i++) {
		ops += data[i] == '*' || data[i] == '+' || data[i] == '?' || data[i] == '{';
		if (ops > 8) {
			free(buf);
			return 0;
		}
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = (char *)"rdma_exporter";
	/* one argument a line; a NUL byte ends the argument it is in */
	for (char *p = buf; argc < MAX_ARGS;) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;

	memset(err, 0x5a, sizeof(err));
	err[0] = '\0';
	r = config_parse(&cfg, argc, argv, collectors, N_COLLECTORS, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r < 0) {
		size_t len = strnlen(err, sizeof(err));

		FUZZ_CHECK(len > 0 && len < sizeof(err));
	} else {
		check_config(&cfg, buf, size);
	}
	free(buf);
	return 0;
}
