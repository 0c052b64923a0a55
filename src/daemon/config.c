// SPDX-License-Identifier: Apache-2.0
/* The command line: argv walked, the core flags checked and stored, the collectors' handed on. */
#include "daemon/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "base/strparse.h"
#include "daemon/config_collflags.h"
#include "daemon/config_duration.h"

static void set_defaults(struct exporter_config *cfg, const struct config_collector *collectors,
			 unsigned n)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->action = CONFIG_RUN;
	cfg->listen_address = CONFIG_DEFAULT_LISTEN;
	cfg->telemetry_path = "/metrics";
	cfg->sysfs_path = "/sys";
	/* aligned mode polls at least this often: a 15 s scraper gets a poll per scrape */
	cfg->poll_interval_ms = 15000;
	cfg->poll_min_interval_ms = 1000;
	/* The re-check re-reads every device's text (16 devices: ~1,300 calls,
	 * most of them path look-ups): at 1m it was a third of the exporter's
	 * CPU a minute on the 16-device bench tree (docs/performance.md). New
	 * devices and failing reads do not wait for it. */
	cfg->rescan_interval_ms = 300000;
	cfg->log_level = LOG_INFO;
	cfg->max_connections = 64;
	cfg->max_connections_per_client = 8;
	cfg->connection_timeout_s = 10;
	cfg->request_header_timeout_ms = 5000;
	cfg->n_collectors = n;
	for (unsigned i = 0; i < n; i++) {
		cfg->collector_enabled[i] = collectors[i].default_enabled;
		for (unsigned f = 0; f < collectors[i].n_flags && f < CONFIG_MAX_COLLECTOR_FLAGS;
		     f++)
			cfg->collector_flags[i][f] = collectors[i].flags[f].def;
	}
}

static int parse_uint_flag(const char *flag, const char *v, uint64_t min, uint64_t max,
			   uint64_t *out, char *err, size_t errlen)
{
	if (parse_u64_dec(v, strlen(v), out) < 0 || *out < min || *out > max)
		return parse_fail(err, errlen,
				  "--%s: \"%s\" is not a whole number from %llu to %llu", flag, v,
				  (unsigned long long)min, (unsigned long long)max);
	return 0;
}

/* One handler per flag that takes a value: checks v and stores it in cfg. */
typedef int value_handler(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			  size_t errlen);

static int set_listen(struct exporter_config *cfg, const char *flag, const char *v, char *err,
		      size_t errlen)
{
	char host[256];
	uint16_t port;

	if (parse_listen_address(v, host, sizeof(host), &port) < 0)
		return parse_fail(err, errlen,
				  "--%s: \"%s\" is not HOST:PORT, :PORT or [IPV6]:PORT", flag, v);
	cfg->listen_address = v;
	return 0;
}

static int set_telemetry_path(struct exporter_config *cfg, const char *flag, const char *v,
			      char *err, size_t errlen)
{
	if (v[0] != '/')
		return parse_fail(err, errlen, "--%s: \"%s\" must be a path starting with /", flag,
				  v);
	/* Requests are matched on the path alone: a query would never match. */
	if (strpbrk(v, "?#"))
		return parse_fail(err, errlen,
				  "--%s: \"%s\" has a query string or fragment (?, #): give the "
				  "path alone; scrapers' query strings are ignored",
				  flag, v);
	if (strcmp(v, "/") == 0 || strcmp(v, "/healthz") == 0)
		return parse_fail(err, errlen,
				  "--%s: \"%s\" is the exporter's %s page; pick another path", flag,
				  v, v[1] ? "health" : "index");
	cfg->telemetry_path = v;
	return 0;
}

static int set_sysfs(struct exporter_config *cfg, const char *flag, const char *v, char *err,
		     size_t errlen)
{
	if (!*v)
		return parse_fail(err, errlen, "--%s: empty path", flag);
	cfg->sysfs_path = v;
	return 0;
}

/* --poll.interval and --collector.sysfs.rescan-interval share their range. */
static int parse_interval(const char *flag, const char *v, uint64_t *n, char *err, size_t errlen)
{
	return config_parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_POLL_INTERVAL_MS,
					  CONFIG_MAX_POLL_INTERVAL_MS, n, err, errlen);
}

static int set_poll(struct exporter_config *cfg, const char *flag, const char *v, char *err,
		    size_t errlen)
{
	uint64_t n;
	int r = parse_interval(flag, v, &n, err, errlen);

	if (r == 0)
		cfg->poll_interval_ms = n;
	return r;
}

static int set_poll_min(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			size_t errlen)
{
	uint64_t n;
	int r = parse_interval(flag, v, &n, err, errlen);

	if (r == 0)
		cfg->poll_min_interval_ms = n;
	return r;
}

static int set_collector_timeout(struct exporter_config *cfg, const char *flag, const char *v,
				 char *err, size_t errlen)
{
	uint64_t n;
	int r = config_parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_COLLECTOR_TIMEOUT_MS,
					   CONFIG_MAX_POLL_INTERVAL_MS, &n, err, errlen);

	if (r == 0)
		cfg->poll_collector_timeout_ms = n;
	return r;
}

uint64_t config_collector_timeout_ms(uint64_t poll_interval_ms)
{
	uint64_t t = poll_interval_ms / 2, most = poll_interval_ms / 10 * 9;

	if (t < CONFIG_COLLECTOR_TIMEOUT_LOW_MS)
		t = CONFIG_COLLECTOR_TIMEOUT_LOW_MS;
	if (t > CONFIG_COLLECTOR_TIMEOUT_HIGH_MS)
		t = CONFIG_COLLECTOR_TIMEOUT_HIGH_MS;
	return t > most ? most : t;
}

/*
 * After every flag (the two may come in any order): the default timeout
 * follows the interval; a timeout given must leave room for the poll.
 */
static int finish_collector_timeout(struct exporter_config *cfg, char *err, size_t errlen)
{
	char t[32], iv[32];

	if (!cfg->poll_collector_timeout_ms) {
		cfg->poll_collector_timeout_ms = config_collector_timeout_ms(cfg->poll_interval_ms);
		return 0;
	}
	if (cfg->poll_collector_timeout_ms < cfg->poll_interval_ms)
		return 0;
	config_format_duration_ms(cfg->poll_collector_timeout_ms, t, sizeof(t));
	config_format_duration_ms(cfg->poll_interval_ms, iv, sizeof(iv));
	return parse_fail(err, errlen,
			  "--poll.collector-timeout=%s must be shorter than --poll.interval (%s): "
			  "a poll waits that long for each collector",
			  t, iv);
}

static int set_poll_mode(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			 size_t errlen)
{
	if (strcmp(v, "aligned") != 0 && strcmp(v, "fixed") != 0)
		return parse_fail(err, errlen, "--%s: \"%s\" is not one of aligned, fixed", flag,
				  v);
	cfg->poll_fixed = strcmp(v, "fixed") == 0;
	return 0;
}

static int set_rescan(struct exporter_config *cfg, const char *flag, const char *v, char *err,
		      size_t errlen)
{
	uint64_t n;
	int r = parse_interval(flag, v, &n, err, errlen);

	if (r == 0)
		cfg->rescan_interval_ms = n;
	return r;
}

static int set_include(struct exporter_config *cfg, const char *flag, const char *v, char *err,
		       size_t errlen)
{
	if (!*v)
		return parse_fail(err, errlen,
				  "--%s: empty regex (leave the flag out to collect every device)",
				  flag);
	cfg->device_include = v;
	return 0;
}

static int set_exclude(struct exporter_config *cfg, const char *flag, const char *v, char *err,
		       size_t errlen)
{
	cfg->device_exclude = v;
	return 0;
}

static int set_log_level(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			 size_t errlen)
{
	if (log_level_parse(v, &cfg->log_level) < 0)
		return parse_fail(err, errlen,
				  "--%s: \"%s\" is not one of debug, info, warn, error", flag, v);
	return 0;
}

static int set_log_format(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			  size_t errlen)
{
	if (log_format_parse(v, &cfg->log_json) < 0)
		return parse_fail(err, errlen, "--%s: \"%s\" is not one of logfmt, json", flag, v);
	return 0;
}

static int set_max_conn(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			size_t errlen)
{
	uint64_t n;
	int r = parse_uint_flag(flag, v, 1, CONFIG_MAX_CONNECTIONS, &n, err, errlen);

	if (r == 0)
		cfg->max_connections = (unsigned)n;
	return r;
}

static int set_conn_timeout(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			    size_t errlen)
{
	uint64_t n;
	int r = config_parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_CONNECTION_TIMEOUT_MS,
					   CONFIG_MAX_WEB_TIMEOUT_MS, &n, err, errlen);

	if (r == 0)
		cfg->connection_timeout_s = (unsigned)(n / 1000);
	return r;
}

static int set_max_conn_per_client(struct exporter_config *cfg, const char *flag, const char *v,
				   char *err, size_t errlen)
{
	uint64_t n;
	int r = parse_uint_flag(flag, v, 1, CONFIG_MAX_CONNECTIONS, &n, err, errlen);

	if (r == 0)
		cfg->max_connections_per_client = (unsigned)n;
	return r;
}

static int set_header_timeout(struct exporter_config *cfg, const char *flag, const char *v,
			      char *err, size_t errlen)
{
	uint64_t n;
	int r = config_parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_HEADER_TIMEOUT_MS,
					   CONFIG_MAX_WEB_TIMEOUT_MS, &n, err, errlen);

	if (r == 0)
		cfg->request_header_timeout_ms = n;
	return r;
}

static int set_web_config(struct exporter_config *cfg, const char *flag, const char *v, char *err,
			  size_t errlen)
{
	/* read (and re-read on SIGHUP) by the daemon, which reports its errors */
	if (!*v)
		return parse_fail(err, errlen, "--%s: empty path", flag);
	cfg->web_config_file = v;
	return 0;
}

/* One address of --poll.follow-address (n bytes of v): an IPv4 or IPv6 literal. */
static int parse_follow_one(struct config_address *a, const char *v, size_t n)
{
	char buf[INET6_ADDRSTRLEN];

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, a->bytes) == 1) {
		a->len = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, a->bytes) == 1) {
		a->len = 16;
		return 0;
	}
	return -1;
}

static int set_follow_address(struct exporter_config *cfg, const char *flag, const char *v,
			      char *err, size_t errlen)
{
	unsigned n = 0;

	for (const char *p = v;; p++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (n == CONFIG_MAX_FOLLOW_ADDRESSES)
			return parse_fail(err, errlen, "--%s: more than %d addresses", flag,
					  CONFIG_MAX_FOLLOW_ADDRESSES);
		if (parse_follow_one(&cfg->follow_addresses[n], p, len) < 0)
			return parse_fail(err, errlen,
					  "--%s: \"%.*s\" is not an IPv4 or IPv6 address", flag,
					  (int)len, p);
		n++;
		if (!end)
			break;
		p = end;
	}
	cfg->n_follow_addresses = n;
	return 0;
}

static bool address_equal(const struct config_address *a, const unsigned char *b, size_t len)
{
	static const unsigned char v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	if (a->len == len)
		return memcmp(a->bytes, b, len) == 0;
	if (a->len == 4 && len == 16)
		return memcmp(b, v4mapped, 12) == 0 && memcmp(b + 12, a->bytes, 4) == 0;
	if (a->len == 16 && len == 4)
		return memcmp(a->bytes, v4mapped, 12) == 0 && memcmp(a->bytes + 12, b, 4) == 0;
	return false;
}

bool config_follow_address(const struct exporter_config *cfg, const void *addr, size_t addr_len)
{
	if (!addr || (addr_len != 4 && addr_len != 16))
		return false;
	for (unsigned i = 0; i < cfg->n_follow_addresses; i++)
		if (address_equal(&cfg->follow_addresses[i], addr, addr_len))
			return true;
	return false;
}

/* Flags that take a value. */
static const struct value_flag {
	const char *name;
	value_handler *apply;
} value_flags[] = {
	{"web.listen-address", set_listen},
	{"web.telemetry-path", set_telemetry_path},
	{"path.sysfs", set_sysfs},
	{"poll.interval", set_poll},
	{"poll.min-interval", set_poll_min},
	{"poll.mode", set_poll_mode},
	{"poll.follow-address", set_follow_address},
	{"poll.collector-timeout", set_collector_timeout},
	{"collector.sysfs.rescan-interval", set_rescan},
	{"collector.device-include", set_include},
	{"collector.device-exclude", set_exclude},
	{"log.level", set_log_level},
	{"log.format", set_log_format},
	{"web.max-connections", set_max_conn},
	{"web.connection-timeout", set_conn_timeout},
	{"web.config.file", set_web_config},
	{"web.max-connections-per-client", set_max_conn_per_client},
	{"web.request-header-timeout", set_header_timeout},
};

static const struct value_flag *find_value_flag(const char *name, size_t nlen)
{
	for (size_t k = 0; k < sizeof(value_flags) / sizeof(value_flags[0]); k++)
		if (strlen(value_flags[k].name) == nlen &&
		    strncmp(value_flags[k].name, name, nlen) == 0)
			return &value_flags[k];
	return NULL;
}

static int find_collector(const struct config_collector *collectors, unsigned n, const char *name,
			  size_t len)
{
	for (unsigned i = 0; i < n; i++)
		if (strlen(collectors[i].name) == len &&
		    strncmp(collectors[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

/* Whether the first n bytes of name are exactly lit. */
static bool name_is(const char *name, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(name, lit, n) == 0;
}

/* One command-line argument that starts with "--", split up. */
struct flag_arg {
	const char *name; /* after "--" and "no-" */
	const char *eq;	  /* the '=' in name, or NULL */
	size_t nlen;	  /* length of the name before '=' */
	bool negated;	  /* written --no-NAME */
};

/* Argument parsing state: argv and the index of the argument being read. */
struct arg_cursor {
	int argc;
	char *const *argv;
	int i;
};

static void split_flag(const char *arg, struct flag_arg *fa)
{
	fa->name = arg + 2;
	fa->negated = false;
	if (strncmp(fa->name, "no-", 3) == 0) {
		fa->negated = true;
		fa->name += 3;
	}
	fa->eq = strchr(fa->name, '=');
	fa->nlen = fa->eq ? (size_t)(fa->eq - fa->name) : strlen(fa->name);
}

/* 1 when fa is a flag that takes a value (and applied), 0 when not. */
static int try_value_flag(struct exporter_config *cfg, const struct flag_arg *fa,
			  struct arg_cursor *cur, char *err, size_t errlen)
{
	const struct value_flag *vf = find_value_flag(fa->name, fa->nlen);
	const char *value;
	int r;

	if (!vf)
		return 0;
	if (fa->negated)
		return parse_fail(err, errlen, "unknown flag --no-%.*s", (int)fa->nlen, fa->name);
	if (fa->eq) {
		value = fa->eq + 1;
	} else {
		if (cur->i + 1 >= cur->argc)
			return parse_fail(err, errlen, "--%s needs a value", vf->name);
		value = cur->argv[++cur->i];
		if (config_check_next_value(vf->name, strlen(vf->name), value, err, errlen) < 0)
			return -EINVAL;
	}
	r = vf->apply(cfg, vf->name, value, err, errlen);
	return r < 0 ? r : 1;
}

/* 1 when fa is --collector.C.F (and applied), 0 when not. */
static int try_collector_flag(struct exporter_config *cfg, const struct flag_arg *fa,
			      struct arg_cursor *cur, const struct config_collector *collectors,
			      unsigned n_collectors, char *err, size_t errlen)
{
	const char *v;
	bool used;
	int r;

	if (strncmp(fa->name, "collector.", 10) != 0)
		return 0;
	v = fa->eq ? fa->eq + 1 : (cur->i + 1 < cur->argc ? cur->argv[cur->i + 1] : NULL);
	r = config_apply_collector_flag(cfg, collectors, n_collectors, fa->name, fa->nlen,
					fa->negated, fa->eq != NULL, v, &used, err, errlen);
	if (r > 0 && used)
		cur->i++;
	return r;
}

/* A boolean flag written with "=VALUE": always an error, the most helpful one. */
static int reject_bool_with_value(const struct flag_arg *fa,
				  const struct config_collector *collectors, unsigned n_collectors,
				  char *err, size_t errlen)
{
	const char *name = fa->name, *no = fa->negated ? "no-" : "";
	int nlen = (int)fa->nlen;

	if (strncmp(name, "collector.", 10) == 0 && memchr(name + 10, '.', fa->nlen - 10))
		return parse_fail(err, errlen, "unknown flag --%s%.*s (see --help)", no, nlen,
				  name);
	/* Name only flags that exist: --collector.NAME has a --no- form,
	 * --collector.disable-defaults, --help and --version do not. */
	if (!fa->negated && (name_is(name, fa->nlen, "collector.disable-defaults") ||
			     name_is(name, fa->nlen, "help") || name_is(name, fa->nlen, "version")))
		return parse_fail(err, errlen, "--%.*s takes no value", nlen, name);
	if (strncmp(name, "collector.", 10) == 0 &&
	    find_collector(collectors, n_collectors, name + 10, fa->nlen - 10) >= 0)
		return parse_fail(err, errlen, "--%s%.*s takes no value (use --%.*s or --no-%.*s)",
				  no, nlen, name, nlen, name, nlen, name);
	return parse_fail(err, errlen, "unknown flag --%s%.*s (see --help)", no, nlen, name);
}

/* Boolean flags: --collector.NAME, --no-collector.NAME, --collector.disable-defaults */
static int apply_bool_flag(struct exporter_config *cfg, const struct flag_arg *fa,
			   const struct config_collector *collectors, unsigned n_collectors,
			   char *err, size_t errlen)
{
	const char *name = fa->name;
	int c;

	if (fa->eq)
		return reject_bool_with_value(fa, collectors, n_collectors, err, errlen);
	if (!fa->negated && strcmp(name, "collector.disable-defaults") == 0) {
		for (unsigned j = 0; j < n_collectors; j++)
			cfg->collector_enabled[j] = false;
		return 0;
	}
	if (strncmp(name, "collector.", 10) == 0) {
		c = find_collector(collectors, n_collectors, name + 10, fa->nlen - 10);
		if (c >= 0) {
			cfg->collector_enabled[c] = !fa->negated;
			return 0;
		}
		return parse_fail(err, errlen, "unknown collector in --%s%s (see --help)",
				  fa->negated ? "no-" : "", name);
	}
	return parse_fail(err, errlen, "unknown flag --%s%s (see --help)", fa->negated ? "no-" : "",
			  name);
}

/* argv[cur->i] (and its value, if it takes the next one): 1 when parsing stops
 * there (--help, --version), 0 to go on, or an error. */
static int parse_one_arg(struct exporter_config *cfg, struct arg_cursor *cur,
			 const struct config_collector *collectors, unsigned n_collectors,
			 char *err, size_t errlen)
{
	const char *arg = cur->argv[cur->i];
	struct flag_arg fa;
	int r;

	if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
		cfg->action = CONFIG_HELP;
		return 1;
	}
	if (strcmp(arg, "--version") == 0) {
		cfg->action = CONFIG_VERSION;
		return 1;
	}
	if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
		return parse_fail(err, errlen, "unexpected argument \"%s\" (flags start with --)",
				  arg);
	split_flag(arg, &fa);
	r = try_value_flag(cfg, &fa, cur, err, errlen);
	if (r == 0)
		r = try_collector_flag(cfg, &fa, cur, collectors, n_collectors, err, errlen);
	if (r == 0)
		r = apply_bool_flag(cfg, &fa, collectors, n_collectors, err, errlen);
	return r < 0 ? r : 0;
}

int config_parse(struct exporter_config *cfg, int argc, char *const argv[],
		 const struct config_collector *collectors, unsigned n_collectors, char *err,
		 size_t errlen)
{
	struct arg_cursor cur = {.argc = argc, .argv = argv};
	int r = config_check_collector_table(collectors, n_collectors, err, errlen);

	if (r < 0)
		return r;
	set_defaults(cfg, collectors, n_collectors);
	for (cur.i = 1; cur.i < argc; cur.i++) {
		r = parse_one_arg(cfg, &cur, collectors, n_collectors, err, errlen);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	return finish_collector_timeout(cfg, err, errlen);
}
