// SPDX-License-Identifier: Apache-2.0
#include "daemon/config.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/devfilter.h"
#include "base/log.h"
#include "base/strparse.h"

/* Duration units, largest first: each at most once, in this order (Prometheus). */
static const struct {
	const char *unit;
	uint64_t ms;
} duration_units[] = {
	{"y", 365 * 86400000ULL},
	{"w", 7 * 86400000ULL},
	{"d", 86400000},
	{"h", 3600000},
	{"m", 60000},
	{"s", 1000},
	{"ms", 1},
};

#define N_DURATION_UNITS      (sizeof(duration_units) / sizeof(duration_units[0]))
#define DURATION_MAX_DECIMALS 9

/* The unit at *p ("ms" before "m": the longer one wins); its index, or -1. */
static int duration_unit_at(const char **p)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < N_DURATION_UNITS; i++) {
			size_t n = strlen(duration_units[i].unit);

			if (n == (pass ? 1u : 2u) && strncmp(*p, duration_units[i].unit, n) == 0) {
				*p += n;
				return (int)i;
			}
		}
	return -1;
}

/*
 * The decimals [digits, end) times unit_ms, in whole ms: 0, or -EINVAL when
 * there are none, too many, or they leave a fraction of a millisecond
 * ("1.5s" is 1500 ms, "1.0005s" is refused).
 */
static int duration_fraction(const char *digits, const char *end, uint64_t unit_ms, uint64_t *ms)
{
	uint64_t frac = 0, scale = 1;
	unsigned __int128 x;

	if (end == digits)
		return -EINVAL;
	while (end > digits && end[-1] == '0')
		end--;
	if (end - digits > DURATION_MAX_DECIMALS)
		return -EINVAL;
	for (const char *d = digits; d < end; d++) {
		frac = frac * 10 + (uint64_t)(*d - '0');
		scale *= 10;
	}
	x = (unsigned __int128)frac * unit_ms;
	if (x % scale)
		return -EINVAL;
	*ms = (uint64_t)(x / scale);
	return 0;
}

static const char *skip_digits(const char *p)
{
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

/*
 * One NUMBER[.DECIMALS]UNIT group at *p, whose unit must come after *last:
 * its ms added to *total, or *too_big set when it does not fit 64 bits.
 * 0 or -EINVAL.
 */
static int duration_group(const char **p, int *last, uint64_t *total, bool *too_big)
{
	const char *digits = *p, *frac = NULL, *frac_end;
	uint64_t n, part, frac_ms = 0;
	int u, r;

	*p = skip_digits(*p);
	r = parse_u64_dec(digits, (size_t)(*p - digits), &n);
	if (r == -EINVAL)
		return r;
	if (**p == '.')
		frac = *p + 1;
	frac_end = frac ? skip_digits(frac) : *p;
	*p = frac_end;
	u = duration_unit_at(p);
	if (u <= *last)
		return -EINVAL;
	*last = u;
	if (frac && duration_fraction(frac, frac_end, duration_units[u].ms, &frac_ms) < 0)
		return -EINVAL;
	if (r < 0 || __builtin_mul_overflow(n, duration_units[u].ms, &part) ||
	    __builtin_add_overflow(part, frac_ms, &part) ||
	    __builtin_add_overflow(*total, part, total))
		*too_big = true;
	return 0;
}

int config_parse_duration_ms(const char *s, uint64_t *ms)
{
	uint64_t total = 0;
	const char *p = s;
	bool too_big = false;
	int last = -1;

	if (!s || !*s)
		return -EINVAL;
	if (strcmp(s, "0") == 0) {
		*ms = 0;
		return 0;
	}
	/* A syntax error anywhere wins over a value too large. */
	while (*p)
		if (duration_group(&p, &last, &total, &too_big) < 0)
			return -EINVAL;
	if (too_big)
		return -ERANGE;
	*ms = total;
	return 0;
}

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

/* "100ms", "1s", "90s", "24h": ms in the largest unit (up to hours) that divides it. */
static void format_duration_ms(uint64_t ms, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {{"h", 3600000}, {"m", 60000}, {"s", 1000}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ms && ms % units[i].ms == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ms / units[i].ms),
				 units[i].unit);
			return;
		}
	snprintf(buf, size, "%llums", (unsigned long long)ms);
}

/*
 * A duration flag's value within [min, max] ms: "not a duration" when it
 * does not parse, "out of range (MIN to MAX)" when it is outside, however
 * large (one that overflows 64 bits of milliseconds included). flag may be
 * cut at nlen (--collector.C.F=V names point into the argument).
 */
static int parse_duration_flag(const char *flag, size_t nlen, const char *v, uint64_t min,
			       uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	char lo[32], hi[32];
	int r = config_parse_duration_ms(v, out);

	format_duration_ms(min, lo, sizeof(lo));
	format_duration_ms(max, hi, sizeof(hi));
	if (r == -EINVAL)
		return parse_fail(
			err, errlen,
			"--%.*s: \"%s\" is not a duration: write a number and a unit (ms, s, "
			"m, h, d, w, y), several from the largest unit down, decimals "
			"allowed: 500ms, 1.5s, 1m30s, 1h; from %s to %s",
			(int)nlen, flag, v, lo, hi);
	if (r < 0 || *out < min || *out > max)
		return parse_fail(err, errlen, "--%.*s: %s is out of range (%s to %s)", (int)nlen,
				  flag, v, lo, hi);
	return 0;
}

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
	return parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_POLL_INTERVAL_MS,
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
	int r = parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_COLLECTOR_TIMEOUT_MS,
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
	format_duration_ms(cfg->poll_collector_timeout_ms, t, sizeof(t));
	format_duration_ms(cfg->poll_interval_ms, iv, sizeof(iv));
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
	int r = parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_CONNECTION_TIMEOUT_MS,
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
	int r = parse_duration_flag(flag, strlen(flag), v, CONFIG_MIN_HEADER_TIMEOUT_MS,
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

/* 0 when s compiles as an anchored POSIX extended regex (as devfilter does). */
static int check_regex(const char *s)
{
	size_t len = strlen(s) + 5;
	char *anchored;
	regex_t re;
	int r;

	if (regex_cost_problem(s))
		return REG_BADRPT;
	anchored = malloc(len);
	if (!anchored)
		return REG_ESPACE;
	snprintf(anchored, len, "^(%s)$", s);
	r = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
	if (r == 0)
		regfree(&re);
	free(anchored);
	return r;
}

/* Whether the first n bytes of name are exactly lit. */
static bool name_is(const char *name, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(name, lit, n) == 0;
}

/*
 * --collector.C.F=V: 1 when name is a flag of a collector (and applied), 0
 * when not. *used is set when v (the next argument) was taken as the value.
 */
/*
 * A flag's value taken from the next argument must not be the next flag:
 * "--collector.probe.targets-file --web.listen-address=:1" is a missing
 * value, not a file named "--web.listen-address=:1". A value that does
 * start with "--" can still be given as --FLAG=VALUE.
 */
static int check_next_value(const char *flag, size_t nlen, const char *v, char *err, size_t errlen)
{
	if (strncmp(v, "--", 2) != 0)
		return 0;
	return parse_fail(err, errlen,
			  "--%.*s needs a value, but the next argument \"%s\" is a flag (write "
			  "--%.*s=VALUE for a value that starts with --)",
			  (int)nlen, flag, v, (int)nlen, flag);
}

/* The value of a flag kept as text (REGEX, TEXT, PATH), checked: 0 or -EINVAL. */
static int check_text_flag(const struct collector_flag *cf, const char *name, size_t nlen,
			   const char *v, char *err, size_t errlen)
{
	char why[160] = "";

	if (cf->kind == COLLECTOR_FLAG_REGEX && check_regex(v))
		return parse_fail(err, errlen, "invalid --%.*s regex \"%s\" (POSIX extended)",
				  (int)nlen, name, v);
	if (cf->kind == COLLECTOR_FLAG_TEXT && cf->check && cf->check(v, why, sizeof(why)) < 0)
		return parse_fail(err, errlen, "--%.*s: %s", (int)nlen, name, why);
	if (cf->kind == COLLECTOR_FLAG_PATH && !*v)
		return parse_fail(err, errlen, "--%.*s: empty path", (int)nlen, name);
	return 0;
}

/* An ENUM flag's word as its index in cf->values: 0 or -EINVAL, with the words
 * it takes in err. */
static int parse_enum_flag(const struct collector_flag *cf, const char *name, size_t nlen,
			   const char *v, uint64_t *x, char *err, size_t errlen)
{
	char words[160] = "";
	size_t used = 0;

	for (uint64_t i = 0; cf->values[i]; i++) {
		if (strcmp(cf->values[i], v) == 0) {
			*x = i;
			return 0;
		}
		if (used < sizeof(words))
			used += (size_t)snprintf(words + used, sizeof(words) - used, "%s%s",
						 i ? ", " : "", cf->values[i]);
	}
	return parse_fail(err, errlen, "--%.*s: \"%s\" is not one of %s", (int)nlen, name, v,
			  words);
}

static int apply_collector_flag(struct exporter_config *cfg,
				const struct config_collector *collectors, unsigned n,
				const char *name, size_t nlen, bool negated, bool has_eq,
				const char *v, bool *used, char *err, size_t errlen)
{
	*used = false;
	for (unsigned i = 0; i < n; i++) {
		size_t cl = strlen(collectors[i].name);

		if (nlen <= 10 + cl + 1 || strncmp(name + 10, collectors[i].name, cl) != 0 ||
		    name[10 + cl] != '.')
			continue;
		for (unsigned f = 0; f < collectors[i].n_flags; f++) {
			const struct collector_flag *cf = &collectors[i].flags[f];
			const char *fname = name + 10 + cl + 1;
			size_t flen = nlen - (10 + cl + 1);
			uint64_t x;

			if (strlen(cf->name) != flen || strncmp(cf->name, fname, flen) != 0)
				continue;
			if (cf->kind == COLLECTOR_FLAG_BOOL) {
				if (has_eq)
					return parse_fail(err, errlen,
							  "--%s%.*s takes no value (use --%.*s or "
							  "--no-%.*s)",
							  negated ? "no-" : "", (int)nlen, name,
							  (int)nlen, name, (int)nlen, name);
				cfg->collector_flags[i][f] = !negated;
				return 1;
			}
			if (negated)
				return parse_fail(err, errlen,
						  "unknown flag --no-%.*s (it takes a value)",
						  (int)nlen, name);
			if (!v)
				return parse_fail(err, errlen, "--%.*s needs a value", (int)nlen,
						  name);
			if (!has_eq && check_next_value(name, nlen, v, err, errlen) < 0)
				return -EINVAL;
			if (cf->kind == COLLECTOR_FLAG_REGEX || cf->kind == COLLECTOR_FLAG_TEXT ||
			    cf->kind == COLLECTOR_FLAG_PATH) {
				if (check_text_flag(cf, name, nlen, v, err, errlen) < 0)
					return -EINVAL;
				cfg->collector_flag_strs[i][f] = v;
				*used = !has_eq;
				return 1;
			}
			if (cf->kind == COLLECTOR_FLAG_ENUM) {
				if (parse_enum_flag(cf, name, nlen, v, &x, err, errlen) < 0)
					return -EINVAL;
			} else if (cf->kind == COLLECTOR_FLAG_UINT) {
				if (parse_u64_dec(v, strlen(v), &x) < 0 || x < cf->min ||
				    x > cf->max)
					return parse_fail(
						err, errlen,
						"--%.*s: \"%s\" is not a whole number from "
						"%llu to %llu",
						(int)nlen, name, v, (unsigned long long)cf->min,
						(unsigned long long)cf->max);
			} else if (parse_duration_flag(name, nlen, v, cf->min, cf->max, &x, err,
						       errlen) < 0) {
				return -EINVAL;
			}
			cfg->collector_flags[i][f] = x;
			*used = !has_eq;
			return 1;
		}
	}
	return 0;
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

static int check_collector_table(const struct config_collector *collectors, unsigned n, char *err,
				 size_t errlen)
{
	if (n > CONFIG_MAX_COLLECTORS)
		return parse_fail(err, errlen, "internal error: too many collectors");
	for (unsigned j = 0; j < n; j++) {
		if (collectors[j].n_flags > CONFIG_MAX_COLLECTOR_FLAGS)
			return parse_fail(err, errlen, "internal error: too many flags for %s",
					  collectors[j].name);
		for (unsigned f = 0; f < collectors[j].n_flags; f++)
			if (collectors[j].flags[f].kind == COLLECTOR_FLAG_ENUM &&
			    !collectors[j].flags[f].values)
				return parse_fail(err, errlen,
						  "internal error: --collector.%s.%s "
						  "has no values",
						  collectors[j].name, collectors[j].flags[f].name);
	}
	return 0;
}

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
		if (check_next_value(vf->name, strlen(vf->name), value, err, errlen) < 0)
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
	r = apply_collector_flag(cfg, collectors, n_collectors, fa->name, fa->nlen, fa->negated,
				 fa->eq != NULL, v, &used, err, errlen);
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
	int r = check_collector_table(collectors, n_collectors, err, errlen);

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
		format_duration_ms(min, lo, sizeof(lo));
		format_duration_ms(max, hi, sizeof(hi));
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
