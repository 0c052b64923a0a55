// SPDX-License-Identifier: Apache-2.0
/* The --help text: the core flags, then each collector with its own flags. */
#include "daemon/config_usage.h"

#include <stdint.h>
#include <string.h>

#include "daemon/config_duration.h"

/* --- --help ------------------------------------------------------------ */

#define HELP_WIDTH  80
#define HELP_INDENT 35

/* A core flag's line in --help; numeric ones say their range and unit. */
struct help_flag {
	const char *flag; /* "--poll.interval=D" */
	const char *help;
	enum collector_flag_kind kind; /* UINT, DURATION, or TEXT for anything else */
	uint64_t min, max;
	const char *unit; /* UINT: what is counted, e.g. "connections" */
};

static const struct help_flag core_flags[] = {
	{"-h, --help", "Show this help and exit.", COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--version", "Show the version and exit.", COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--web.listen-address=ADDR",
	 "Address to listen on: HOST:PORT, :PORT (all interfaces) or [IPV6]:PORT. "
	 "Default \"" CONFIG_DEFAULT_LISTEN "\".",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--web.telemetry-path=PATH", "Path under which metrics are served. Default \"/metrics\".",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--web.max-connections=N", "Concurrent HTTP connections. Default 64.", COLLECTOR_FLAG_UINT,
	 1, CONFIG_MAX_CONNECTIONS, "connections"},
	{"--web.max-connections-per-client=N",
	 "Concurrent HTTP connections from one client (an IPv4 address or IPv6 /64). Default 8.",
	 COLLECTOR_FLAG_UINT, 1, CONFIG_MAX_CONNECTIONS, "connections"},
	{"--web.connection-timeout=D", "Idle HTTP connection timeout. Default 10s.",
	 COLLECTOR_FLAG_DURATION, CONFIG_MIN_CONNECTION_TIMEOUT_MS, CONFIG_MAX_WEB_TIMEOUT_MS,
	 NULL},
	{"--web.request-header-timeout=D",
	 "Time a client has to send a whole request head. Default 5s.", COLLECTOR_FLAG_DURATION,
	 CONFIG_MIN_HEADER_TIMEOUT_MS, CONFIG_MAX_WEB_TIMEOUT_MS, NULL},
	{"--web.config.file=PATH",
	 "TLS, basic auth and headers (Prometheus exporter-toolkit format); re-read on SIGHUP.",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--path.sysfs=PATH", "sysfs mount point. Default \"/sys\".", COLLECTOR_FLAG_TEXT, 0, 0,
	 NULL},
	{"--poll.interval=D",
	 "Time between polls. Default 15s. In aligned mode, while no regular scraper is seen, "
	 "and the longest wait after a poll whatever the scrapes. Scrapes are served from the "
	 "last poll and never wait for hardware.",
	 COLLECTOR_FLAG_DURATION, CONFIG_MIN_POLL_INTERVAL_MS, CONFIG_MAX_POLL_INTERVAL_MS, NULL},
	{"--poll.min-interval=D",
	 "Shortest time between polls, whatever the scrapes (capped at --poll.interval); "
	 "5 times it between poll starts while the scraper followed did not authenticate. "
	 "Default 1s.",
	 COLLECTOR_FLAG_DURATION, CONFIG_MIN_POLL_INTERVAL_MS, CONFIG_MAX_POLL_INTERVAL_MS, NULL},
	{"--poll.follow-address=ADDR[,ADDR...]",
	 "In aligned mode, follow the scrapes from these IP addresses (Prometheus's) "
	 "before those of any other client without credentials, whichever came first. "
	 "At most 16. Default: none.",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--poll.collector-timeout=D",
	 "How long a poll waits for each collector; one that takes longer is left behind, "
	 "its samples missing from the polls until it catches up. Default: half of "
	 "--poll.interval, 1s to 10s, at most 9/10 of it. Shorter than --poll.interval.",
	 COLLECTOR_FLAG_DURATION, CONFIG_MIN_COLLECTOR_TIMEOUT_MS, CONFIG_MAX_POLL_INTERVAL_MS,
	 NULL},
	{"--poll.mode=MODE",
	 "aligned: poll just before the scrapes of one regular scraper "
	 "(docs/configuration.md); fixed: every --poll.interval. Default aligned.",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--collector.sysfs.rescan-interval=D",
	 "Time between re-checks of each device: re-scanned when its directories "
	 "changed, else its netdevs and attributes re-read. Default 5m.",
	 COLLECTOR_FLAG_DURATION, CONFIG_MIN_POLL_INTERVAL_MS, CONFIG_MAX_POLL_INTERVAL_MS, NULL},
	{"--collector.device-include=RE",
	 "Only collect RDMA devices whose name matches RE (POSIX extended regex, anchored).",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--collector.device-exclude=RE", "Skip RDMA devices whose name matches RE.",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
	{"--collector.disable-defaults",
	 "Disable all collectors; enable some with --collector.NAME.", COLLECTOR_FLAG_TEXT, 0, 0,
	 NULL},
	{"--log.level=LEVEL", "debug, info, warn or error. Default info.", COLLECTOR_FLAG_TEXT, 0,
	 0, NULL},
	{"--log.format=FORMAT",
	 "logfmt, or json: one JSON object a line with the same fields. Default logfmt.",
	 COLLECTOR_FLAG_TEXT, 0, 0, NULL},
};

/*
 * Prints text wrapped at HELP_WIDTH columns, its lines indented by
 * HELP_INDENT, the first one after lead ("      --flag=V") when lead leaves
 * room, else on a line of its own. A word longer than a line is cut.
 */
static void print_entry(FILE *out, const char *lead, const char *text)
{
	const char *p = text;
	int col = (int)strlen(lead);

	fputs(lead, out);
	if (col + 1 >= HELP_INDENT) {
		fputc('\n', out);
		col = 0;
	}
	while (*p) {
		int room = HELP_WIDTH - HELP_INDENT, n = (int)strlen(p);

		if (n > room) {
			n = room;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)
				n = room;
		}
		fprintf(out, "%*s%.*s\n", HELP_INDENT - col, "", n, p);
		col = 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	if (!*text)
		fputc('\n', out);
}

/* help, then "Range: MIN to MAX UNIT." for a number or a duration. */
static void print_flag(FILE *out, const char *flag, const char *help, enum collector_flag_kind kind,
		       uint64_t min, uint64_t max, const char *unit)
{
	char lead[128], text[1024], lo[32], hi[32];

	snprintf(lead, sizeof(lead), "%s%s", flag[1] == 'h' ? "  " : "      ", flag);
	if (kind == COLLECTOR_FLAG_DURATION) {
		config_format_duration_ms(min, lo, sizeof(lo));
		config_format_duration_ms(max, hi, sizeof(hi));
		snprintf(text, sizeof(text), "%s Range: %s to %s.", help, lo, hi);
	} else if (kind == COLLECTOR_FLAG_UINT) {
		snprintf(text, sizeof(text), "%s Range: %llu to %llu%s%s.", help,
			 (unsigned long long)min, (unsigned long long)max, unit ? " " : "",
			 unit ? unit : "");
	} else {
		snprintf(text, sizeof(text), "%s", help);
	}
	print_entry(out, lead, text);
}

/* --collector.C.F=a|b|c: an ENUM flag with its words. */
static void enum_metavar(char *flag, size_t size, const char *collector,
			 const struct collector_flag *cf)
{
	size_t n = (size_t)snprintf(flag, size, "--collector.%s.%s=", collector, cf->name);

	for (size_t i = 0; cf->values[i] && n < size; i++)
		n += (size_t)snprintf(flag + n, size - n, "%s%s", i ? "|" : "", cf->values[i]);
}

static void print_collector(FILE *out, const struct config_collector *c)
{
	char flag[128], help[512];

	snprintf(flag, sizeof(flag), "--collector.%s", c->name);
	snprintf(help, sizeof(help), "%s. Default: %s.", c->help,
		 c->default_enabled ? "enabled" : "disabled");
	print_flag(out, flag, help, COLLECTOR_FLAG_TEXT, 0, 0, NULL);
	for (unsigned f = 0; f < c->n_flags; f++) {
		const struct collector_flag *cf = &c->flags[f];
		enum collector_flag_kind k = cf->kind;

		if (k == COLLECTOR_FLAG_BOOL)
			snprintf(flag, sizeof(flag), "--[no-]collector.%s.%s", c->name, cf->name);
		else if (k == COLLECTOR_FLAG_ENUM)
			enum_metavar(flag, sizeof(flag), c->name, cf);
		else
			snprintf(flag, sizeof(flag), "--collector.%s.%s=%s", c->name, cf->name,
				 k == COLLECTOR_FLAG_UINT    ? "N"
				 : k == COLLECTOR_FLAG_REGEX ? "RE"
				 : k == COLLECTOR_FLAG_PATH  ? "PATH"
				 : k == COLLECTOR_FLAG_TEXT  ? cf->metavar
							     : "D");
		print_flag(out, flag, cf->help, k, cf->min, cf->max, cf->unit);
	}
}

void config_usage(FILE *out, const char *argv0, const struct config_collector *collectors,
		  unsigned n_collectors)
{
	fprintf(out,
		"Usage: %s [FLAGS]\n"
		"\n"
		"Prometheus exporter for RDMA devices (InfiniBand, RoCE, iWARP).\n"
		"\n"
		"Durations (D): a number and a unit (ms, s, m, h, d, w, y), several from the\n"
		"largest unit down, decimals allowed: 500ms, 1.5s, 1m30s, 1h.\n"
		"\n"
		"Flags:\n",
		argv0);
	for (size_t i = 0; i < sizeof(core_flags) / sizeof(core_flags[0]); i++)
		print_flag(out, core_flags[i].flag, core_flags[i].help, core_flags[i].kind,
			   core_flags[i].min, core_flags[i].max, core_flags[i].unit);
	fprintf(out, "\nCollectors (--collector.NAME enables, --no-collector.NAME disables):\n");
	for (unsigned i = 0; i < n_collectors; i++)
		print_collector(out, &collectors[i]);
	fprintf(out,
		"\nExit status: 0 after SIGTERM/SIGINT, 1 on a runtime error, 2 on bad flags.\n");
}
