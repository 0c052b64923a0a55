// SPDX-License-Identifier: Apache-2.0
/*
 * The pure check evaluator (check.h): every check reads the samples of the
 * second reading, and the counters also those of the first. One result per
 * object and check, in the order the objects appear in the exposition.
 */
#include "check/check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct check_counter default_counters[CHECK_N_COUNTERS] = {
	{"symbol_errors", "rdma_port_symbol_errors_total", 0, true},
	{"link_downed", "rdma_port_link_downed_total", 0, true},
	{"link_error_recoveries", "rdma_port_link_error_recoveries_total", 0, true},
	{"local_link_integrity_errors", "rdma_port_local_link_integrity_errors_total", 0, true},
	{"excessive_buffer_overrun_errors", "rdma_port_excessive_buffer_overrun_errors_total", 0,
	 true},
	{"errors_received", "rdma_port_errors_received_total", 0, true},
	{"remote_physical_errors_received", "rdma_port_remote_physical_errors_received_total", 0,
	 true},
	{"local_ack_timeouts", "rdma_port_local_ack_timeouts_total", 10, true},
	{"out_of_sequence", "rdma_port_out_of_sequence_packets_received_total", 100, true},
	{"netdev_symbol_errors", "rdma_netdev_symbol_errors_total", 0, true},
	{"netdev_crc_errors", "rdma_netdev_crc_errors_total", 0, true},
	{"netdev_link_down_events", "rdma_netdev_link_down_events_total", 0, true},
	{"netdev_carrier_down_events", "rdma_netdev_carrier_down_events_total", 0, true},
	{"out_of_buffer", "rdma_port_out_of_buffer_packets_dropped_total", 1000, true},
};

void check_config_defaults(struct check_config *c)
{
	*c = (struct check_config){
		.window_s = 5,
		.ports = true,
		.counters = true,
		.pfc = true,
		.pause_max_ratio = 0.5,
		.storm_max_increase = 0,
		.resources = true,
		.resource_max_ratio = 0.9,
		.probe = true,
		.peers = true,
		.probe_max_lost = 0,
		.pcie = true,
		.modules = true,
		.flaps = true,
		.flap_hold_s = 600,
		.devlink = true,
	};
	memcpy(c->counter, default_counters, sizeof(c->counter));
}

struct check_counter *check_config_counter(struct check_config *c, const char *name)
{
	for (size_t i = 0; i < CHECK_N_COUNTERS; i++)
		if (strcmp(c->counter[i].name, name) == 0)
			return &c->counter[i];
	return NULL;
}

void check_results_free(struct check_results *r)
{
	if (!r)
		return;
	free(r->v);
	*r = (struct check_results){0};
}

static int add_result_v(struct check_results *r, enum check_status st, const char *check,
			const char *object, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

static int add_result_v(struct check_results *r, enum check_status st, const char *check,
			const char *object, const char *fmt, va_list ap)
{
	struct check_result *x;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 32;
		struct check_result *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	x = &r->v[r->n++];
	x->status = st;
	x->check = check;
	snprintf(x->object, sizeof(x->object), "%s", object);
	vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
	return 0;
}

int check_result_add(struct check_results *r, enum check_status st, const char *check,
		     const char *object, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = add_result_v(r, st, check, object, fmt, ap);
	va_end(ap);
	return ret;
}

static int add_result(struct check_results *r, enum check_status st, const char *check,
		      const char *object, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int add_result(struct check_results *r, enum check_status st, const char *check,
		      const char *object, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = add_result_v(r, st, check, object, fmt, ap);
	va_end(ap);
	return ret;
}

/* rdma_exporter_collector_success of a collector: 1, 0, or -1 when it did not run. */
static int collector_state(const struct check_table *t, const char *name)
{
	const struct check_sample *s = check_table_find(
		t, "rdma_exporter_collector_success", &(struct metric_label){"collector", name}, 1);

	return s ? s->value == 1 : -1;
}

/* "mlx5_0/1", "eth2" or "mlx5_0": how the result names the sample's object. */
static void object_of(const struct check_sample *s, char *out, size_t size)
{
	const char *dev = check_sample_label(s, "device"), *port = check_sample_label(s, "port");
	const char *netdev = check_sample_label(s, "netdev");

	if (dev && port)
		snprintf(out, size, "%s/%s", dev, port);
	else if (dev)
		snprintf(out, size, "%s", dev);
	else if (netdev)
		snprintf(out, size, "%s", netdev);
	else
		snprintf(out, size, "node");
}

static double value_of(const struct check_table *t, const char *family, const char *dev,
		       const char *port, bool *found)
{
	const struct check_sample *s = check_table_find(
		t, family, (const struct metric_label[]){{"device", dev}, {"port", port}}, 2);

	*found = s != NULL;
	return s ? s->value : 0;
}

/* --- ports ------------------------------------------------------------- */

/* rdma_device_responsive 0: the device's reads did not finish within the
 * sysfs collector's device deadline (they block: hung firmware), and its
 * ports are left out of the reading. */
static bool device_unresponsive(const struct check_table *t, const char *dev)
{
	const struct check_sample *s = check_table_find(t, "rdma_device_responsive",
							&(struct metric_label){"device", dev}, 1);

	return s && s->value == 0;
}

/*
 * One FAIL per device that did not answer in time: a node with a hung HCA
 * is not fit for work (and its ports cannot be judged). Counts them in *n.
 */
static int eval_unresponsive(const struct check_table *t, struct check_results *out, unsigned *n)
{
	size_t k, i = check_table_family(t, "rdma_device_responsive", &k);
	int r = 0;

	for (; k > 0 && r == 0; i++, k--) {
		const char *dev = check_sample_label(&t->v[i], "device");

		if (!dev || t->v[i].value != 0)
			continue;
		(*n)++;
		r = add_result(out, CHECK_FAIL, "ports", dev,
			       "the device does not answer: its sysfs reads did not finish within "
			       "--collector.sysfs.device-timeout (hung firmware?)");
	}
	return r;
}

static const char *const state_names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
static const char *const phys_names[] = {
	"NoStateChange",
	"Sleep",
	"Polling",
	"Disabled",
	"PortConfigurationTraining",
	"LinkUp",
	"LinkErrorRecovery",
	"PhyTest",
};

static const char *name_of(const char *const *names, size_t n, double v)
{
	return v >= 0 && v < (double)n && v == (double)(unsigned)v ? names[(unsigned)v] : "?";
}

static bool port_active(double state)
{
	return state == 4 || state == 5;
}

/* One port: ACTIVE, LinkUp (where the driver says), at least the rate. */
static int eval_port(const struct check_table *t, const char *dev, const char *port,
		     double rate_min, struct check_results *out, bool *healthy)
{
	char obj[128], why[256] = "";
	bool has_phys, has_rate;
	double state = value_of(t, "rdma_port_state", dev, port, &(bool){0});
	double phys = value_of(t, "rdma_port_phys_state", dev, port, &has_phys);
	double gbps =
		value_of(t, "rdma_port_rate_bytes_per_second", dev, port, &has_rate) * 8 / 1e9;
	size_t n = 0;

	snprintf(obj, sizeof(obj), "%s/%s", dev, port);
	if (!port_active(state))
		n += (size_t)snprintf(why, sizeof(why), "state %s (%g), want ACTIVE; ",
				      name_of(state_names, N(state_names), state), state);
	if (has_phys && phys != 5 && n < sizeof(why))
		n += (size_t)snprintf(why + n, sizeof(why) - n, "phys_state %s (%g), want LinkUp; ",
				      name_of(phys_names, N(phys_names), phys), phys);
	if (rate_min > 0 && has_rate && gbps < rate_min && n < sizeof(why))
		n += (size_t)snprintf(why + n, sizeof(why) - n, "rate %g Gb/s, want at least %g; ",
				      gbps, rate_min);
	*healthy = n == 0;
	if (n) {
		why[n >= 2 && n < sizeof(why) ? n - 2 : sizeof(why) - 1] = '\0';
		return add_result(out, CHECK_FAIL, "ports", obj, "%s", why);
	}
	if (rate_min > 0 && !has_rate)
		return add_result(out, CHECK_UNKNOWN, "ports", obj,
				  "ACTIVE, but the rate cannot be read (want at least %g Gb/s)",
				  rate_min);
	return add_result(out, CHECK_OK, "ports", obj, "%s, %s%s%g Gb/s",
			  name_of(state_names, N(state_names), state),
			  has_phys ? name_of(phys_names, N(phys_names), phys) : "",
			  has_phys ? ", " : "", has_rate ? gbps : 0);
}

static int eval_expected(const struct check_config *c, const struct check_table *t,
			 struct check_results *out, unsigned *healthy)
{
	const struct check_expect *e = c->expect;
	int r = 0;

	for (size_t i = 0; i < e->n && r == 0; i++) {
		const struct check_expect_port *x = &e->v[i];
		double rate = x->rate_gbps > 0 ? x->rate_gbps : c->rate_min_gbps;
		char port[16], obj[128];
		bool found, ok;

		snprintf(port, sizeof(port), "%u", x->port);
		value_of(t, "rdma_port_state", x->device, port, &found);
		if (found) {
			r = eval_port(t, x->device, port, rate, out, &ok);
			*healthy += ok;
			continue;
		}
		snprintf(obj, sizeof(obj), "%s/%u", x->device, x->port);
		value_of(t, "rdma_port_info", x->device, port, &found);
		if (device_unresponsive(t, x->device))
			r = add_result(out, CHECK_FAIL, "ports", obj, "device %s does not answer",
				       x->device);
		else if (found)
			r = add_result(out, CHECK_UNKNOWN, "ports", obj,
				       "the port state cannot be read (see the log)");
		else if (check_table_find(t, "rdma_device_info",
					  &(struct metric_label){"device", x->device}, 1))
			r = add_result(out, CHECK_FAIL, "ports", obj, "port %u not found on %s",
				       x->port, x->device);
		else
			r = add_result(out, CHECK_FAIL, "ports", obj, "device %s not found",
				       x->device);
	}
	return r;
}

/* Ports the sysfs collector saw (rdma_port_info) without a readable state. */
static int eval_stateless(const struct check_table *t, struct check_results *out, unsigned *total)
{
	size_t n, i = check_table_family(t, "rdma_port_info", &n);
	int r = 0;

	for (; n > 0 && r == 0; i++, n--) {
		const char *dev = check_sample_label(&t->v[i], "device");
		const char *port = check_sample_label(&t->v[i], "port");
		char obj[128];
		bool found;

		if (!dev || !port)
			continue;
		value_of(t, "rdma_port_state", dev, port, &found);
		/* a device that does not answer is a FAIL of its own */
		if (found || device_unresponsive(t, dev))
			continue;
		(*total)++;
		snprintf(obj, sizeof(obj), "%s/%s", dev, port);
		r = add_result(out, CHECK_UNKNOWN, "ports", obj,
			       "the port state cannot be read (see the log)");
	}
	return r;
}

/* No port at all: none there, or none readable (a device directory refused). */
static int no_ports(const struct check_table *t, struct check_results *out)
{
	const struct check_sample *e =
		check_table_find(t, "rdma_exporter_collector_read_errors_total",
				 &(struct metric_label){"collector", "sysfs"}, 1);

	if (e && e->value > 0)
		return add_result(out, CHECK_UNKNOWN, "ports", "node",
				  "no RDMA port could be read (%.0f read errors; see the log)",
				  e->value);
	return add_result(out, CHECK_UNKNOWN, "ports", "node",
			  "no RDMA ports found (no RDMA device, or --path.sysfs is wrong)");
}

static int eval_ports(const struct check_config *c, const struct check_table *t,
		      struct check_results *out)
{
	int sysfs = collector_state(t, "sysfs"), r = 0;
	unsigned healthy = 0, total, hung = 0;
	size_t n, i = check_table_family(t, "rdma_port_state", &n);

	if (sysfs != 1)
		return add_result(out, CHECK_UNKNOWN, "ports", "node", "the sysfs collector %s",
				  sysfs < 0 ? "is disabled" : "failed (see the log)");
	if ((r = eval_unresponsive(t, out, &hung)) < 0)
		return r;
	if (c->expect) {
		r = eval_expected(c, t, out, &healthy);
		total = (unsigned)c->expect->n;
	} else {
		for (size_t k = 0; k < n && r == 0; k++) {
			const struct check_sample *s = &t->v[i + k];
			const char *dev = check_sample_label(s, "device");
			const char *port = check_sample_label(s, "port");
			bool ok;

			if (dev && port) {
				r = eval_port(t, dev, port, c->rate_min_gbps, out, &ok);
				healthy += ok;
			}
		}
		total = (unsigned)n;
		if (r == 0)
			r = eval_stateless(t, out, &total);
	}
	if (r == 0 && c->ports_min > 0)
		r = add_result(out, healthy >= c->ports_min ? CHECK_OK : CHECK_FAIL, "ports",
			       "node", "%u of %u ports healthy, want at least %u", healthy, total,
			       c->ports_min);
	else if (r == 0 && !c->expect && total == 0 && !hung)
		r = no_ports(t, out);
	return r;
}

/* --- per-object accumulation (counters, pauses) ------------------------- */

struct obj {
	char name[128];
	char why[256];
	size_t why_len;
	unsigned watched;
};

struct objs {
	struct obj *v;
	size_t n, cap;
};

static struct obj *obj_get(struct objs *o, const char *name)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->v[i].name, name) == 0)
			return &o->v[i];
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 16;
		struct obj *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n] = (struct obj){0};
	snprintf(o->v[o->n].name, sizeof(o->v[o->n].name), "%s", name);
	return &o->v[o->n++];
}

static void obj_why(struct obj *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void obj_why(struct obj *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->why_len + 3 >= sizeof(o->why))
		return;
	if (o->why_len)
		o->why_len +=
			(size_t)snprintf(o->why + o->why_len, sizeof(o->why) - o->why_len, "; ");
	va_start(ap, fmt);
	n = vsnprintf(o->why + o->why_len, sizeof(o->why) - o->why_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->why_len += (size_t)n;
	if (o->why_len >= sizeof(o->why))
		o->why_len = sizeof(o->why) - 1;
}

/* How much a counter rose from r1 to r2; a counter that went back (the
 * driver was reloaded) counts from 0. -1: not in r1, nothing to compare. */
static double increase(const struct check_table *r1, const struct check_sample *s)
{
	const struct check_sample *b = check_table_same(r1, s);

	if (!b)
		return -1;
	return s->value >= b->value ? s->value - b->value : s->value;
}

/* One result per object: FAIL with its reasons, or OK with "N what". */
static int results_from(struct objs *o, const char *check, const char *what,
			struct check_results *out)
{
	int r = 0;

	for (size_t i = 0; i < o->n && r == 0; i++) {
		if (o->v[i].why_len)
			r = add_result(out, CHECK_FAIL, check, o->v[i].name, "%s", o->v[i].why);
		else
			r = add_result(out, CHECK_OK, check, o->v[i].name, "%u %s", o->v[i].watched,
				       what);
	}
	free(o->v);
	return r;
}

/*
 * What one watched family makes of a sample's rise between the readings: it adds
 * the reason to x when the rise is too much. arg is the judge's own limit.
 */
typedef void judge_fn(const struct check_config *c, const void *arg, const struct check_sample *s,
		      double rise, struct obj *x);

/* Every sample of a counter family that r1 has too: its object is watched once
 * more, and judge says whether its rise is too much. */
static int watch_family(const struct check_config *c, const char *family, judge_fn *judge,
			const void *arg, const struct check_table *r1, const struct check_table *r2,
			struct objs *o)
{
	size_t n, i = check_table_family(r2, family, &n);

	for (; n > 0; i++, n--) {
		const struct check_sample *s = &r2->v[i];
		double d = increase(r1, s);
		char name[128];
		struct obj *x;

		if (d < 0)
			continue;
		object_of(s, name, sizeof(name));
		if (!(x = obj_get(o, name)))
			return -ENOMEM;
		x->watched++;
		judge(c, arg, s, d, x);
	}
	return 0;
}

static void judge_counter(const struct check_config *c, const void *arg,
			  const struct check_sample *s, double d, struct obj *x)
{
	const struct check_counter *k = arg;

	(void)s;
	if (d > k->max_increase)
		obj_why(x, "%s rose by %.0f in %gs (max %.0f)", k->name, d, c->window_s,
			k->max_increase);
}

static int eval_counters(const struct check_config *c, const struct check_table *r1,
			 const struct check_table *r2, struct check_results *out)
{
	struct objs o = {0};
	int r = 0;

	for (size_t k = 0; k < CHECK_N_COUNTERS && r == 0; k++)
		if (c->counter[k].on)
			r = watch_family(c, c->counter[k].family, judge_counter, &c->counter[k], r1,
					 r2, &o);
	if (r < 0) {
		free(o.v);
		return r;
	}
	return results_from(&o, "counters", "error counters steady", out);
}

/* --- PFC pauses ---------------------------------------------------------- */

static const char *label_or_unknown(const struct check_sample *s, const char *name)
{
	const char *v = check_sample_label(s, name);

	return v ? v : "?";
}

/* Any storm event beyond --check.storm-max in the window. */
static void judge_storms(const struct check_config *c, const void *arg,
			 const struct check_sample *s, double d, struct obj *x)
{
	(void)arg;
	if (d > c->storm_max_increase)
		obj_why(x, "%.0f pause storm events (%s) in %gs", d, label_or_unknown(s, "level"),
			c->window_s);
}

/* Seconds paused per second of window above --check.pause-max-ratio; a window of
 * 0 (readings back to back) has no ratio to judge. */
static void judge_pauses(const struct check_config *c, const void *arg,
			 const struct check_sample *s, double d, struct obj *x)
{
	(void)arg;
	if (c->window_s > 0 && d / c->window_s > c->pause_max_ratio)
		obj_why(x, "%s priority %s paused %.2fs of %gs (max %g%%)",
			label_or_unknown(s, "direction"), label_or_unknown(s, "priority"), d,
			c->window_s, c->pause_max_ratio * 100);
}

/* In this order: a netdev's storm reason comes before its pause reasons. */
static const struct {
	const char *family;
	judge_fn *judge;
} pfc_families[] = {
	{"rdma_netdev_pause_storm_events_total", judge_storms},
	{"rdma_netdev_priority_pause_duration_seconds_total", judge_pauses},
};

static int eval_pfc(const struct check_config *c, const struct check_table *r1,
		    const struct check_table *r2, struct check_results *out)
{
	struct objs o = {0};
	int st = collector_state(r2, "ethtool"), r = 0;

	if (st < 0)
		return 0;
	if (st == 0)
		return add_result(out, CHECK_UNKNOWN, "pfc", "node",
				  "the ethtool collector failed (see the log)");
	for (size_t k = 0; k < N(pfc_families) && r == 0; k++)
		r = watch_family(c, pfc_families[k].family, pfc_families[k].judge, NULL, r1, r2,
				 &o);
	if (r < 0) {
		free(o.v);
		return r;
	}
	return results_from(&o, "pfc", "pause counters below the limits", out);
}

/* --- resources ----------------------------------------------------------- */

static int eval_resources(const struct check_config *c, const struct check_table *t,
			  struct check_results *out)
{
	struct objs o = {0};
	size_t n, i = check_table_family(t, "rdma_resources", &n);
	int st = collector_state(t, "netlink");

	if (st < 0)
		return 0;
	if (st == 0)
		return add_result(out, CHECK_UNKNOWN, "resources", "node",
				  "the netlink collector failed (see the log)");
	for (; n > 0; i++, n--) {
		const struct check_sample *s = &t->v[i], *lim;
		const char *dev = check_sample_label(s, "device");
		const char *res = check_sample_label(s, "resource");
		struct obj *x;

		if (!dev || !res)
			continue;
		lim = check_table_find(
			t, "rdma_resource_limit",
			(const struct metric_label[]){{"device", dev}, {"resource", res}}, 2);
		if (!lim || lim->value <= 0)
			continue;
		if (!(x = obj_get(&o, dev))) {
			free(o.v);
			return -ENOMEM;
		}
		x->watched++;
		if (s->value / lim->value > c->resource_max_ratio)
			obj_why(x, "%s %.0f of %.0f in use (max %g%%)", res, s->value, lim->value,
				c->resource_max_ratio * 100);
	}
	return results_from(&o, "resources", "resource types below their limits", out);
}

/* --- probes -------------------------------------------------------------- */

static double probe_value(const struct check_table *t, const char *family,
			  const struct check_sample *sent, const char *reason)
{
	struct metric_label m[4] = {
		{"device", check_sample_label(sent, "device")},
		{"port", check_sample_label(sent, "port")},
		{"target", check_sample_label(sent, "target")},
		{"reason", reason},
	};
	const struct check_sample *s = check_table_find(t, family, m, reason ? 4 : 3);

	return s ? s->value : 0;
}

/* One probe series (a port's loopback or a peer), from the check's own start. */
static int eval_probe_series(const struct check_config *c, const struct check_table *t,
			     const struct check_sample *sent, const char *check, const char *obj,
			     struct check_results *out)
{
	double replies = probe_value(t, "rdma_probe_replies_total", sent, NULL);
	double timeouts = probe_value(t, "rdma_probe_timeouts_total", sent, NULL);
	double qp = probe_value(t, "rdma_probe_errors_total", sent, "qp");
	double resolve = probe_value(t, "rdma_probe_errors_total", sent, "resolve");
	double errors = probe_value(t, "rdma_probe_errors_total", sent, "send") +
			probe_value(t, "rdma_probe_errors_total", sent, "completion") +
			probe_value(t, "rdma_probe_errors_total", sent, "poll");
	double lost = timeouts + errors;

	if (sent->value == 0 && qp > 0)
		return add_result(out, CHECK_UNKNOWN, check, obj,
				  "the probe QP cannot be set up (%.0f tries; verbs access?)", qp);
	if (sent->value == 0 && resolve > 0)
		return add_result(out, CHECK_FAIL, check, obj,
				  "the target cannot be resolved (%.0f tries)", resolve);
	if (sent->value == 0 || (replies == 0 && lost == 0))
		return add_result(out, CHECK_UNKNOWN, check, obj,
				  "no probe answered or lost yet (a longer --check.window?)");
	if (replies == 0 || lost > c->probe_max_lost)
		return add_result(out, CHECK_FAIL, check, obj,
				  "%.0f of %.0f probes lost (%.0f timeouts, %.0f errors; max %u)",
				  lost, sent->value, timeouts, errors, c->probe_max_lost);
	return add_result(out, CHECK_OK, check, obj, "%.0f of %.0f probes answered", replies,
			  sent->value);
}

static bool expected_port(const struct check_config *c, const char *dev, const char *port)
{
	char p[16];

	if (!c->expect)
		return true;
	for (size_t i = 0; i < c->expect->n; i++) {
		snprintf(p, sizeof(p), "%u", c->expect->v[i].port);
		if (strcmp(c->expect->v[i].device, dev) == 0 && strcmp(p, port) == 0)
			return true;
	}
	return false;
}

/* Loopback on every ACTIVE (and expected) port. */
static int eval_loopback(const struct check_config *c, const struct check_table *t,
			 struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_port_state", &n);
	int r = 0;

	for (; n > 0 && r == 0; i++, n--) {
		const struct check_sample *s = &t->v[i], *sent;
		const char *dev = check_sample_label(s, "device");
		const char *port = check_sample_label(s, "port");
		char obj[128];

		if (!dev || !port || !port_active(s->value) || !expected_port(c, dev, port))
			continue;
		snprintf(obj, sizeof(obj), "%s/%s", dev, port);
		sent = check_table_find(t, "rdma_probe_sent_total",
					(const struct metric_label[]){{"device", dev},
								      {"port", port},
								      {"target", "loopback"}},
					3);
		if (!sent)
			r = add_result(out, CHECK_UNKNOWN, "probe", obj,
				       "no loopback probe on this port (no verbs device for it, "
				       "or no access to /dev/infiniband)");
		else
			r = eval_probe_series(c, t, sent, "probe", obj, out);
	}
	return r;
}

static int eval_peers(const struct check_config *c, const struct check_table *t,
		      struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_probe_sent_total", &n);
	int r = 0;

	for (; n > 0 && r == 0; i++, n--) {
		const struct check_sample *s = &t->v[i];
		const char *target = check_sample_label(s, "target");
		char obj[128];

		if (!target || strcmp(target, "loopback") == 0)
			continue;
		object_of(s, obj, sizeof(obj));
		snprintf(obj + strlen(obj), sizeof(obj) - strlen(obj), " -> %s", target);
		r = eval_probe_series(c, t, s, "peers", obj, out);
	}
	return r;
}

static int eval_probes(const struct check_config *c, const struct check_table *t,
		       struct check_results *out)
{
	int st = collector_state(t, "probe"), r = 0;

	if (st < 0 || (!c->probe && !c->peers))
		return 0;
	if (st == 0)
		return add_result(out, CHECK_UNKNOWN, "probe", "node",
				  "the probe collector failed (see the log)");
	if (c->probe)
		r = eval_loopback(c, t, out);
	if (r == 0 && c->peers)
		r = eval_peers(c, t, out);
	return r;
}

/* --- pcie ---------------------------------------------------------------- */

#define FAM_PCIE_SPEED	   "rdma_device_pcie_link_speed_transfers_per_second"
#define FAM_PCIE_MAX_SPEED "rdma_device_pcie_link_max_speed_transfers_per_second"
#define FAM_PCIE_WIDTH	   "rdma_device_pcie_link_width"
#define FAM_PCIE_MAX_WIDTH "rdma_device_pcie_link_max_width"

static const struct check_expect_pcie_dev *pcie_expected(const struct check_config *c,
							 const char *dev)
{
	for (size_t i = 0; c->expect_pcie && i < c->expect_pcie->n; i++)
		if (strcmp(c->expect_pcie->v[i].device, dev) == 0)
			return &c->expect_pcie->v[i];
	return NULL;
}

static double device_value(const struct check_table *t, const char *family, const char *dev,
			   bool *found)
{
	const struct check_sample *s =
		check_table_find(t, family, &(struct metric_label){"device", dev}, 1);

	*found = s != NULL;
	return s ? s->value : 0;
}

/*
 * One device's link: at least the expected speed and width, or, for what
 * is not expected, the device's own maximum (an unknown maximum, 0, is not
 * judged). FAIL names the device, the link and both figures.
 */
static int eval_pcie_device(const struct check_config *c, const struct check_table *t,
			    const char *dev, struct check_results *out)
{
	const struct check_expect_pcie_dev *x = pcie_expected(c, dev);
	bool has_speed, has_max_speed, has_width, has_max_width;
	double gts = device_value(t, FAM_PCIE_SPEED, dev, &has_speed) / 1e9;
	double max_gts = device_value(t, FAM_PCIE_MAX_SPEED, dev, &has_max_speed) / 1e9;
	double width = device_value(t, FAM_PCIE_WIDTH, dev, &has_width);
	double max_width = device_value(t, FAM_PCIE_MAX_WIDTH, dev, &has_max_width);
	double want_gts = x && x->gts > 0 ? x->gts : max_gts;
	double want_width = x && x->width ? x->width : max_width;
	const char *whose = x && (x->gts > 0 || x->width) ? "want at least" : "device max";

	if (!has_speed && !has_width)
		return add_result(out, CHECK_UNKNOWN, "pcie", dev,
				  "the PCIe link cannot be read (see the log)");
	if (x && x->any)
		return add_result(out, CHECK_OK, "pcie", dev,
				  "PCIe %g GT/s x%g, not judged (--check.expect-pcie any)", gts,
				  width);
	if ((has_speed && want_gts > 0 && gts < want_gts) ||
	    (has_width && want_width > 0 && width < want_width)) {
		if (x && (x->gts > 0 || x->width))
			return add_result(out, CHECK_FAIL, "pcie", dev,
					  "PCIe link %g GT/s x%g, want at least %g GT/s x%g "
					  "(--check.expect-pcie); device max %g GT/s x%g",
					  gts, width, want_gts, want_width, max_gts, max_width);
		return add_result(out, CHECK_FAIL, "pcie", dev,
				  "PCIe link %g GT/s x%g, below the device max %g GT/s x%g", gts,
				  width, max_gts, max_width);
	}
	if (!has_max_speed && !has_max_width && !x)
		return add_result(out, CHECK_UNKNOWN, "pcie", dev,
				  "PCIe %g GT/s x%g, the device's maximum cannot be read", gts,
				  width);
	return add_result(out, CHECK_OK, "pcie", dev, "PCIe %g GT/s x%g (%s %g GT/s x%g)", gts,
			  width, whose, want_gts, want_width);
}

static bool has_pcie(const struct check_table *t, const char *dev)
{
	bool a, b;

	device_value(t, FAM_PCIE_SPEED, dev, &a);
	device_value(t, FAM_PCIE_WIDTH, dev, &b);
	return a || b;
}

static int eval_pcie(const struct check_config *c, const struct check_table *t,
		     struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_device_info", &n);
	int r = 0;

	if (collector_state(t, "sysfs") != 1)
		return 0; /* the ports check says why */
	/* every device with a PCIe link, in exposition order */
	for (; n > 0 && r == 0; i++, n--) {
		const char *dev = check_sample_label(&t->v[i], "device");

		if (dev && has_pcie(t, dev))
			r = eval_pcie_device(c, t, dev, out);
	}
	/* expected devices that have none */
	for (size_t k = 0; c->expect_pcie && k < c->expect_pcie->n && r == 0; k++) {
		const char *dev = c->expect_pcie->v[k].device;

		if (has_pcie(t, dev))
			continue;
		if (device_unresponsive(t, dev))
			r = add_result(out, CHECK_FAIL, "pcie", dev, "device %s does not answer",
				       dev);
		else if (check_table_find(t, "rdma_device_info",
					  &(struct metric_label){"device", dev}, 1))
			r = add_result(out, CHECK_UNKNOWN, "pcie", dev,
				       "no PCIe link attributes (a software device or a VF?)");
		else
			r = add_result(out, CHECK_FAIL, "pcie", dev, "device %s not found", dev);
	}
	return r;
}

/* --- modules ------------------------------------------------------------- */

/* A transceiver reading and the name of its thresholds' quantity. */
static const struct module_quantity {
	const char *family;
	const char *quantity; /* rdma_netdev_module_threshold's label */
	const char *what;
	const char *unit;
	double scale; /* to unit */
} module_quantities[] = {
	{"rdma_netdev_module_temperature_celsius", "temperature_celsius", "temperature", "C", 1},
	{"rdma_netdev_module_supply_voltage_volts", "supply_voltage_volts", "supply voltage", "V",
	 1},
	{"rdma_netdev_module_lane_rx_power_watts", "rx_power_watts", "rx power", "mW", 1e3},
	{"rdma_netdev_module_lane_tx_power_watts", "tx_power_watts", "tx power", "mW", 1e3},
	{"rdma_netdev_module_lane_tx_bias_current_amperes", "tx_bias_current_amperes", "tx bias",
	 "mA", 1e3},
};

/* The module's low and high threshold of a level ("alarm", "warning"); false
 * when it declares none (absent, or both 0). */
static bool module_limits(const struct check_table *t, const char *netdev, const char *quantity,
			  const char *level, double *lo, double *hi)
{
	char lo_name[16], hi_name[16];
	const struct check_sample *l, *h;

	snprintf(lo_name, sizeof(lo_name), "low_%s", level);
	snprintf(hi_name, sizeof(hi_name), "high_%s", level);
	l = check_table_find(t, "rdma_netdev_module_threshold",
			     (struct metric_label[]){{"netdev", netdev},
						     {"quantity", quantity},
						     {"level", lo_name}},
			     3);
	h = check_table_find(t, "rdma_netdev_module_threshold",
			     (struct metric_label[]){{"netdev", netdev},
						     {"quantity", quantity},
						     {"level", hi_name}},
			     3);
	if (!l || !h || h->value <= l->value)
		return false;
	*lo = l->value;
	*hi = h->value;
	return true;
}

/* Beyond the level's thresholds: writes "rx power lane 3 0.05 mW, below its
 * low alarm threshold 0.1 mW" into out and returns true. */
static bool module_beyond(const struct check_table *t, const struct module_quantity *q,
			  const struct check_sample *s, const char *netdev, const char *level,
			  char *out, size_t size)
{
	const char *lane = check_sample_label(s, "lane");
	double lo, hi;
	bool low;

	if (!module_limits(t, netdev, q->quantity, level, &lo, &hi) ||
	    (s->value >= lo && s->value <= hi))
		return false;
	low = s->value < lo;
	snprintf(out, size, "%s%s%s %g %s, %s its %s %s threshold %g %s", q->what,
		 lane ? " lane " : "", lane ? lane : "", s->value * q->scale, q->unit,
		 low ? "below" : "above", low ? "low" : "high", level, (low ? lo : hi) * q->scale,
		 q->unit);
	return true;
}

/*
 * Each transceiver's readings against the module's own thresholds: a
 * reading beyond an alarm threshold FAILs (one line each, naming the
 * netdev, the lane, the value and the threshold); a module within them is
 * OK, naming the first reading beyond a warning threshold if any (check
 * has no warning status). Modules without diagnostics are not judged.
 */
static int eval_module(const struct check_table *t, const char *netdev, struct check_results *out)
{
	char why[200], warn[200] = "";
	unsigned readings = 0, failed = 0, warned = 0;
	int r = 0;

	for (size_t k = 0; k < sizeof(module_quantities) / sizeof(module_quantities[0]); k++) {
		const struct module_quantity *q = &module_quantities[k];
		size_t n, i = check_table_family(t, q->family, &n);

		for (; n > 0 && r == 0; i++, n--) {
			const char *nd = check_sample_label(&t->v[i], "netdev");

			if (!nd || strcmp(nd, netdev) != 0)
				continue;
			readings++;
			if (module_beyond(t, q, &t->v[i], netdev, "alarm", why, sizeof(why))) {
				failed++;
				r = add_result(out, CHECK_FAIL, "modules", netdev, "module %s",
					       why);
			} else if (module_beyond(t, q, &t->v[i], netdev, "warning", why,
						 sizeof(why)) &&
				   warned++ == 0) {
				snprintf(warn, sizeof(warn), "%s", why);
			}
		}
	}
	if (r != 0 || failed || readings == 0)
		return r;
	if (warned)
		return add_result(out, CHECK_OK, "modules", netdev,
				  "module within its alarm thresholds; %u beyond a warning "
				  "threshold: %s",
				  warned, warn);
	return add_result(out, CHECK_OK, "modules", netdev,
			  "module within its thresholds (%u readings)", readings);
}

static int eval_modules(const struct check_table *t, struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_netdev_module_info", &n);
	int r = 0;

	if (collector_state(t, "ethtool") != 1)
		return 0;
	for (; n > 0 && r == 0; i++, n--) {
		const char *netdev = check_sample_label(&t->v[i], "netdev");

		if (netdev)
			r = eval_module(t, netdev, out);
	}
	return r;
}

/* --- devlink ------------------------------------------------------------- */

/*
 * Each devlink health reporter of an RDMA device (devlink collector): one in
 * its error state FAILs (one line each, with its error and recovery counts);
 * all healthy is one OK line for the node. Not judged when the collector did
 * not succeed (a refused dump) or reports nothing (a kernel without devlink).
 */
static int eval_devlink(const struct check_table *t, struct check_results *out)
{
	size_t n, i = check_table_family(t, "rdma_devlink_health_state", &n);
	unsigned healthy = 0, failed = 0;
	int r = 0;

	if (collector_state(t, "devlink") != 1)
		return 0;
	for (; n > 0 && r == 0; i++, n--) {
		const struct check_sample *s = &t->v[i], *errs;
		const char *dev = check_sample_label(s, "device");
		const char *rep = check_sample_label(s, "reporter");

		if (!dev || !rep)
			continue;
		if (s->value == 0) {
			healthy++;
			continue;
		}
		failed++;
		errs = check_table_find(t, "rdma_devlink_health_errors_total",
					(struct metric_label[]){{"device", dev}, {"reporter", rep}},
					2);
		r = add_result(out, CHECK_FAIL, "devlink", dev,
			       "devlink health reporter %s in error (%.0f errors)", rep,
			       errs ? errs->value : 0);
	}
	if (r != 0 || failed || healthy == 0)
		return r;
	return add_result(out, CHECK_OK, "devlink", "node", "%u devlink health reporters healthy",
			  healthy);
}

int check_evaluate(const struct check_config *c, const struct check_table *r1,
		   const struct check_table *r2, struct check_results *out)
{
	int r = 0;

	*out = (struct check_results){0};
	if (c->ports)
		r = eval_ports(c, r2, out);
	if (r == 0 && c->counters)
		r = eval_counters(c, r1, r2, out);
	if (r == 0 && c->pfc)
		r = eval_pfc(c, r1, r2, out);
	if (r == 0 && c->resources)
		r = eval_resources(c, r2, out);
	if (r == 0 && c->pcie)
		r = eval_pcie(c, r2, out);
	if (r == 0 && c->modules)
		r = eval_modules(r2, out);
	if (r == 0 && c->devlink)
		r = eval_devlink(r2, out);
	if (r == 0)
		r = eval_probes(c, r2, out);
	if (r < 0)
		check_results_free(out);
	return r;
}
