/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the command line parses into (struct exporter_config), the table of
 * collectors the parser reads their own flags from, and the flags' limits:
 * types and constants only, shared by the parser's files (config.c,
 * config_collflags.c, config_usage.c) and its users.
 */
#ifndef RDMA_EXPORTER_CONFIG_TYPES_H
#define RDMA_EXPORTER_CONFIG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collector.h"

#define CONFIG_DEFAULT_PORT	    9879
#define CONFIG_DEFAULT_LISTEN	    ":9879"
#define CONFIG_MAX_COLLECTORS	    16
#define CONFIG_MIN_POLL_INTERVAL_MS 100
#define CONFIG_MAX_POLL_INTERVAL_MS (24ull * 3600 * 1000)
#define CONFIG_MAX_COLLECTOR_FLAGS  16
/* --poll.collector-timeout: its range, and the bounds of its default */
#define CONFIG_MIN_COLLECTOR_TIMEOUT_MS	 10
#define CONFIG_COLLECTOR_TIMEOUT_LOW_MS	 1000
#define CONFIG_COLLECTOR_TIMEOUT_HIGH_MS 10000
/* Ranges of the --web.* numbers, shared by the parser and --help. */
#define CONFIG_MAX_CONNECTIONS		 100000
#define CONFIG_MIN_CONNECTION_TIMEOUT_MS 1000
#define CONFIG_MIN_HEADER_TIMEOUT_MS	 100
#define CONFIG_MAX_WEB_TIMEOUT_MS	 (3600 * 1000)

enum config_action {
	CONFIG_RUN,
	CONFIG_HELP,
	CONFIG_VERSION,
};

/* What the flag parser needs to know about each collector. */
struct config_collector {
	const char *name;
	const char *help;
	bool default_enabled;
	const struct collector_flag
		*flags; /* n_flags entries, at most CONFIG_MAX_COLLECTOR_FLAGS */
	unsigned n_flags;
};

/* --poll.follow-address: at most this many addresses */
#define CONFIG_MAX_FOLLOW_ADDRESSES 16

/* An IP address as the web server gives it (in_addr or in6_addr bytes). */
struct config_address {
	unsigned char bytes[16];
	unsigned len; /* 4 or 16 */
};

struct exporter_config {
	enum config_action action;
	const char *listen_address; /* as given; split with parse_listen_address() */
	const char *telemetry_path;
	const char *sysfs_path;
	uint64_t poll_interval_ms;
	/* --poll.min-interval: the floor of aligned polling */
	uint64_t poll_min_interval_ms;
	/* --poll.mode=fixed: every --poll.interval; else aligned on the scrapes */
	bool poll_fixed;
	/* --poll.follow-address: scrapers followed before other unauthenticated ones */
	struct config_address follow_addresses[CONFIG_MAX_FOLLOW_ADDRESSES];
	unsigned n_follow_addresses;
	/* --poll.collector-timeout: how long a poll waits for each collector
	 * before it leaves it behind; the default (config_collector_timeout_ms())
	 * once parsed, always below poll_interval_ms */
	uint64_t poll_collector_timeout_ms;
	uint64_t rescan_interval_ms;
	const char *device_include; /* NULL = all */
	const char *device_exclude; /* NULL = none */
	int log_level;
	bool log_json; /* --log.format=json */
	unsigned max_connections;
	unsigned max_connections_per_client;
	unsigned connection_timeout_s;
	uint64_t request_header_timeout_ms;
	/* --web.config.file: TLS, basic auth and headers (webconfig.h); NULL = none */
	const char *web_config_file;
	unsigned n_collectors;
	bool collector_enabled[CONFIG_MAX_COLLECTORS];
	/* Values of each collector's own flags, defaults when not given. */
	uint64_t collector_flags[CONFIG_MAX_COLLECTORS][CONFIG_MAX_COLLECTOR_FLAGS];
	/* Text values (COLLECTOR_FLAG_REGEX, _PATH), pointing into argv; NULL when not given. */
	const char *collector_flag_strs[CONFIG_MAX_COLLECTORS][CONFIG_MAX_COLLECTOR_FLAGS];
};

#endif
