// SPDX-License-Identifier: Apache-2.0
#include "check/check_flags.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/strparse.h"
#include "daemon/config_duration.h"

/* A decimal number from lo to hi ("0.5", "400", "1e3" not: digits and one dot). */
static int parse_number(const char *v, double lo, double hi, double *out)
{
	char *end;
	size_t n = strlen(v);

	if (n == 0 || n > 24 || strspn(v, "0123456789.") != n || v[0] == '.')
		return -EINVAL;
	*out = strtod(v, &end);
	return *end == '\0' && *out >= lo && *out <= hi ? 0 : -EINVAL;
}

static int set_number(const char *flag, const char *v, double lo, double hi, double *out, char *err,
		      size_t errlen)
{
	if (parse_number(v, lo, hi, out) < 0)
		return parse_fail(err, errlen, "--%s: \"%s\" is not a number from %g to %g", flag,
				  v, lo, hi);
	return 0;
}

/* NAME:MAX[,NAME:MAX...], MAX a whole number or "off". */
static int set_counters(struct check_options *o, const char *v, char *err, size_t errlen)
{
	const char *p = v;

	while (*p) {
		const char *comma = strchr(p, ','), *colon;
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char name[64];
		struct check_counter *k;
		uint64_t max;

		colon = memchr(p, ':', len);
		if (!colon || (size_t)(colon - p) >= sizeof(name))
			return parse_fail(err, errlen, "--check.counter: \"%.*s\" is not NAME:MAX",
					  (int)len, p);
		memcpy(name, p, (size_t)(colon - p));
		name[colon - p] = '\0';
		k = check_config_counter(&o->cfg, name);
		if (!k)
			return parse_fail(err, errlen,
					  "--check.counter: unknown counter \"%s\" (see --help)",
					  name);
		len -= (size_t)(colon - p) + 1;
		if (len == 3 && strncmp(colon + 1, "off", 3) == 0) {
			k->on = false;
		} else if (parse_u64_dec(colon + 1, len, &max) == 0 && max <= 1000000000000ull) {
			k->on = true;
			k->max_increase = (double)max;
		} else {
			return parse_fail(
				err, errlen,
				"--check.counter: %s: \"%.*s\" is not a whole number or off", name,
				(int)len, colon + 1);
		}
		p = comma ? comma + 1 : p + strlen(p);
	}
	return 0;
}

static int set_format(struct check_options *o, const char *v, char *err, size_t errlen)
{
	if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0)
		return parse_fail(err, errlen, "--check.format: \"%s\" is not text or json", v);
	o->json = v[0] == 'j';
	return 0;
}

static int set_window(struct check_options *o, const char *v, char *err, size_t errlen)
{
	uint64_t ms;

	if (config_parse_duration_ms(v, &ms) < 0 || ms > CHECK_MAX_WINDOW_MS)
		return parse_fail(err, errlen,
				  "--check.window: \"%s\" is not a duration from 0 to 10m", v);
	o->window_ms = ms;
	o->cfg.window_s = (double)ms / 1000.0;
	return 0;
}

static int set_flap_hold(struct check_options *o, const char *v, char *err, size_t errlen)
{
	uint64_t ms;

	if (config_parse_duration_ms(v, &ms) < 0 || ms > CHECK_MAX_FLAP_HOLD_MS)
		return parse_fail(err, errlen,
				  "--check.flap-hold: \"%s\" is not a duration from 0 to 7d", v);
	o->cfg.flap_hold_s = (ms + 999) / 1000;
	return 0;
}

static int set_count(const char *flag, const char *v, uint64_t max, uint64_t *out, char *err,
		     size_t errlen)
{
	if (parse_u64_dec(v, strlen(v), out) < 0 || *out > max)
		return parse_fail(err, errlen, "--%s: \"%s\" is not a whole number from 0 to %llu",
				  flag, v, (unsigned long long)max);
	return 0;
}

/* A flag that takes a value: 0 applied, 1 not such a flag, or -EINVAL. */
static int apply_value(struct check_options *o, const char *name, const char *v, char *err,
		       size_t errlen)
{
	struct check_config *c = &o->cfg;
	uint64_t n;
	int r = 0;

	if (strcmp(name, "check.format") == 0)
		return set_format(o, v, err, errlen);
	if (strcmp(name, "check.window") == 0)
		return set_window(o, v, err, errlen);
	if (strcmp(name, "check.expect") == 0 || strcmp(name, "check.expect-file") == 0) {
		if (!*v)
			return parse_fail(err, errlen, "--%s: empty", name);
		*(name[12] ? &o->expect_file : &o->expect) = v;
		return 0;
	}
	if (strcmp(name, "check.expect-pcie") == 0) {
		if (!*v)
			return parse_fail(err, errlen, "--%s: empty", name);
		o->expect_pcie = v;
		return 0;
	}
	if (strcmp(name, "check.counter") == 0)
		return set_counters(o, v, err, errlen);
	if (strcmp(name, "check.flap-hold") == 0)
		return set_flap_hold(o, v, err, errlen);
	if (strcmp(name, "check.state-file") == 0) {
		if (!*v)
			return parse_fail(err, errlen, "--%s: empty", name);
		o->state_file = v;
		return 0;
	}
	if (strcmp(name, "check.rate-min") == 0)
		return set_number(name, v, 0, 1e6, &c->rate_min_gbps, err, errlen);
	if (strcmp(name, "check.pause-max-ratio") == 0)
		return set_number(name, v, 0, 1, &c->pause_max_ratio, err, errlen);
	if (strcmp(name, "check.resource-max-ratio") == 0)
		return set_number(name, v, 0, 1, &c->resource_max_ratio, err, errlen);
	if (strcmp(name, "check.ports-min") == 0 &&
	    !(r = set_count(name, v, 4096, &n, err, errlen)))
		c->ports_min = (unsigned)n;
	else if (strcmp(name, "check.storm-max") == 0 &&
		 !(r = set_count(name, v, 1000000, &n, err, errlen)))
		c->storm_max_increase = (double)n;
	else if (strcmp(name, "check.probe-max-lost") == 0 &&
		 !(r = set_count(name, v, 1000000, &n, err, errlen)))
		c->probe_max_lost = (unsigned)n;
	else if (r == 0)
		return 1;
	return r;
}

/* --[no-]check.NAME switches: 0 applied, 1 not such a flag. */
static int apply_switch(struct check_options *o, const char *name, bool on)
{
	static const struct {
		const char *name;
		size_t off;
	} sw[] = {
		{"check.ports", offsetof(struct check_config, ports)},
		{"check.counters", offsetof(struct check_config, counters)},
		{"check.pfc", offsetof(struct check_config, pfc)},
		{"check.resources", offsetof(struct check_config, resources)},
		{"check.probe", offsetof(struct check_config, probe)},
		{"check.peers", offsetof(struct check_config, peers)},
		{"check.pcie", offsetof(struct check_config, pcie)},
		{"check.modules", offsetof(struct check_config, modules)},
		{"check.flaps", offsetof(struct check_config, flaps)},
		{"check.devlink", offsetof(struct check_config, devlink)},
	};

	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++)
		if (strcmp(name, sw[i].name) == 0) {
			*(bool *)((char *)&o->cfg + sw[i].off) = on;
			return 0;
		}
	return 1;
}

static bool takes_value(const char *name)
{
	static const char *const names[] = {
		"check.format",	     "check.window",	      "check.expect",
		"check.expect-file", "check.counter",	      "check.rate-min",
		"check.ports-min",   "check.pause-max-ratio", "check.resource-max-ratio",
		"check.storm-max",   "check.probe-max-lost",  "check.expect-pcie",
		"check.flap-hold",   "check.state-file",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

/* argv[*i], a --check.* or --no-check.* flag: 0 or -EINVAL; *i moves past a value. */
static int parse_check_arg(struct check_options *o, int argc, char *const argv[], int *i, char *err,
			   size_t errlen)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '='), *v;
	bool negated = strncmp(arg, "no-", 3) == 0;
	char name[64];
	size_t nlen;

	if (negated)
		arg += 3;
	nlen = eq ? (size_t)(eq - arg) : strlen(arg);
	if (nlen >= sizeof(name))
		return parse_fail(err, errlen, "unknown flag %s (see --help)", argv[*i]);
	memcpy(name, arg, nlen);
	name[nlen] = '\0';
	if (!takes_value(name)) {
		if (eq || apply_switch(o, name, !negated) != 0)
			return parse_fail(err, errlen, "unknown flag %s (see --help)", argv[*i]);
		return 0;
	}
	if (negated)
		return parse_fail(err, errlen, "unknown flag %s (it takes a value)", argv[*i]);
	if (eq) {
		v = eq + 1;
	} else {
		if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
			return parse_fail(err, errlen, "--%s needs a value", name);
		v = argv[++*i];
	}
	return apply_value(o, name, v, err, errlen) == 0 ? 0 : -EINVAL;
}

int check_flags_parse(struct check_options *o, int argc, char *const argv[], char **rest,
		      int *n_rest, char *err, size_t errlen)
{
	*o = (struct check_options){.window_ms = CHECK_DEFAULT_WINDOW_MS};
	check_config_defaults(&o->cfg);
	o->cfg.window_s = (double)o->window_ms / 1000.0;
	*n_rest = 0;
	if (argc > 0)
		rest[(*n_rest)++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strncmp(a, "--check.", 8) == 0 || strncmp(a, "--no-check.", 11) == 0) {
			if (parse_check_arg(o, argc, argv, &i, err, errlen) < 0)
				return -EINVAL;
			continue;
		}
		rest[(*n_rest)++] = argv[i];
	}
	if (o->expect && o->expect_file)
		return parse_fail(err, errlen,
				  "--check.expect and --check.expect-file exclude each other");
	return 0;
}

void check_flags_usage(FILE *out)
{
	fprintf(out,
		"Check flags (rdma_exporter check):\n"
		"      --check.window=D             Time between the two readings. Default 5s.\n"
		"                                   Range: 0s to 10m.\n"
		"      --check.format=FORMAT        text or json. Default text.\n"
		"      --check.expect=SPEC          The node's expected ports, e.g.\n"
		"                                   \"mlx5_[0-7]:1@400\" (DEVICE[:PORTS][@GBPS]\n"
		"                                   items; see docs/check.md). Default: every\n"
		"                                   port found.\n"
		"      --check.expect-file=PATH     The same, read from a file (# comments).\n"
		"      --check.expect-pcie=SPEC     The least PCIe link per device, e.g.\n"
		"                                   \"mlx5_[0-3]@32x16 mlx5_[4-7]@x8 mlx5_8@any\"\n"
		"                                   (DEVICE@[GTS][xWIDTH] or DEVICE@any; a field\n"
		"                                   left out keeps the default). Default: every\n"
		"                                   device's link at its own max speed and width.\n"
		"      --check.ports-min=N          At least N healthy ports. Default 0.\n"
		"                                   Range: 0 to 4096 ports.\n"
		"      --check.rate-min=GBPS        Least port rate in Gb/s. Default none.\n"
		"      --check.counter=NAME:MAX[,NAME:MAX...]\n"
		"                                   Most a counter may rise within the window, or\n"
		"                                   off. Counters and defaults: symbol_errors:0\n"
		"                                   link_downed:0 link_error_recoveries:0\n"
		"                                   local_link_integrity_errors:0\n"
		"                                   excessive_buffer_overrun_errors:0\n"
		"                                   errors_received:0\n"
		"                                   remote_physical_errors_received:0\n"
		"                                   local_ack_timeouts:10 out_of_sequence:100\n"
		"                                   out_of_buffer:1000 netdev_symbol_errors:0\n"
		"                                   netdev_crc_errors:0 netdev_link_down_events:0\n"
		"                                   netdev_carrier_down_events:0\n"
		"      --check.pause-max-ratio=F    Most time a priority may be paused by PFC,\n"
		"                                   as a fraction of the window. Default 0.5.\n"
		"                                   Range: 0 to 1.\n"
		"      --check.storm-max=N          Pause storm events allowed. Default 0.\n"
		"                                   Range: 0 to 1000000 events.\n"
		"      --check.resource-max-ratio=F Most resources in use as a fraction of the\n"
		"                                   device limit. Default 0.9. Range: 0 to 1.\n"
		"      --check.probe-max-lost=N     Lost probes allowed per port or peer.\n"
		"                                   Default 0. Range: 0 to 1000000 probes.\n"
		"      --check.flap-hold=D          How long a port or netdev that flapped since\n"
		"                                   the last check fails (flaps check). Default\n"
		"                                   10m. Range: 0s to 7d.\n"
		"      --check.state-file=PATH      The flaps check's history between runs.\n"
		"                                   Default $STATE_DIRECTORY/check-state, else\n"
		"                                   /var/lib/rdma_exporter/check-state. Must be\n"
		"                                   this user's own, never a symlink (else the\n"
		"                                   flaps check is UNKNOWN).\n"
		"      --[no-]check.ports, --[no-]check.counters, --[no-]check.pfc,\n"
		"      --[no-]check.resources, --[no-]check.probe, --[no-]check.peers,\n"
		"      --[no-]check.pcie, --[no-]check.modules, --[no-]check.flaps,\n"
		"      --[no-]check.devlink\n"
		"                                   Turn a check on or off. Default all on.\n");
}
