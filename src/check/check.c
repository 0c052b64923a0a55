// SPDX-License-Identifier: Apache-2.0
/*
 * The pure check evaluator (check.h): every check reads the samples of the
 * second reading, and the counters also those of the first. One result per
 * object and check, in the order the objects appear in the exposition.
 */
#include "check/check.h"
#include "check/check_hw.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

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
		r = check_result_add(
			out, CHECK_FAIL, "ports", dev,
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
		return check_result_add(out, CHECK_FAIL, "ports", obj, "%s", why);
	}
	if (rate_min > 0 && !has_rate)
		return check_result_add(
			out, CHECK_UNKNOWN, "ports", obj,
			"ACTIVE, but the rate cannot be read (want at least %g Gb/s)", rate_min);
	return check_result_add(out, CHECK_OK, "ports", obj, "%s, %s%s%g Gb/s",
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
		if (check_table_device_unresponsive(t, x->device))
			r = check_result_add(out, CHECK_FAIL, "ports", obj,
					     "device %s does not answer", x->device);
		else if (found)
			r = check_result_add(out, CHECK_UNKNOWN, "ports", obj,
					     "the port state cannot be read (see the log)");
		else if (check_table_find(t, "rdma_device_info",
					  &(struct metric_label){"device", x->device}, 1))
			r = check_result_add(out, CHECK_FAIL, "ports", obj,
					     "port %u not found on %s", x->port, x->device);
		else
			r = check_result_add(out, CHECK_FAIL, "ports", obj, "device %s not found",
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
		if (found || check_table_device_unresponsive(t, dev))
			continue;
		(*total)++;
		snprintf(obj, sizeof(obj), "%s/%s", dev, port);
		r = check_result_add(out, CHECK_UNKNOWN, "ports", obj,
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
		return check_result_add(
			out, CHECK_UNKNOWN, "ports", "node",
			"no RDMA port could be read (%.0f read errors; see the log)", e->value);
	return check_result_add(out, CHECK_UNKNOWN, "ports", "node",
				"no RDMA ports found (no RDMA device, or --path.sysfs is wrong)");
}

static int eval_ports(const struct check_config *c, const struct check_table *t,
		      struct check_results *out)
{
	int sysfs = check_table_collector_state(t, "sysfs"), r = 0;
	unsigned healthy = 0, total, hung = 0;
	size_t n, i = check_table_family(t, "rdma_port_state", &n);

	if (sysfs != 1)
		return check_result_add(out, CHECK_UNKNOWN, "ports", "node",
					"the sysfs collector %s",
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
		r = check_result_add(out, healthy >= c->ports_min ? CHECK_OK : CHECK_FAIL, "ports",
				     "node", "%u of %u ports healthy, want at least %u", healthy,
				     total, c->ports_min);
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
			r = check_result_add(out, CHECK_FAIL, check, o->v[i].name, "%s",
					     o->v[i].why);
		else
			r = check_result_add(out, CHECK_OK, check, o->v[i].name, "%u %s",
					     o->v[i].watched, what);
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
	int st = check_table_collector_state(r2, "ethtool"), r = 0;

	if (st < 0)
		return 0;
	if (st == 0)
		return check_result_add(out, CHECK_UNKNOWN, "pfc", "node",
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
	int st = check_table_collector_state(t, "netlink");

	if (st < 0)
		return 0;
	if (st == 0)
		return check_result_add(out, CHECK_UNKNOWN, "resources", "node",
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
		return check_result_add(out, CHECK_UNKNOWN, check, obj,
					"the probe QP cannot be set up (%.0f tries; verbs access?)",
					qp);
	if (sent->value == 0 && resolve > 0)
		return check_result_add(out, CHECK_FAIL, check, obj,
					"the target cannot be resolved (%.0f tries)", resolve);
	if (sent->value == 0 || (replies == 0 && lost == 0))
		return check_result_add(out, CHECK_UNKNOWN, check, obj,
					"no probe answered or lost yet (a longer --check.window?)");
	if (replies == 0 || lost > c->probe_max_lost)
		return check_result_add(
			out, CHECK_FAIL, check, obj,
			"%.0f of %.0f probes lost (%.0f timeouts, %.0f errors; max %u)", lost,
			sent->value, timeouts, errors, c->probe_max_lost);
	return check_result_add(out, CHECK_OK, check, obj, "%.0f of %.0f probes answered", replies,
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
			r = check_result_add(
				out, CHECK_UNKNOWN, "probe", obj,
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
	int st = check_table_collector_state(t, "probe"), r = 0;

	if (st < 0 || (!c->probe && !c->peers))
		return 0;
	if (st == 0)
		return check_result_add(out, CHECK_UNKNOWN, "probe", "node",
					"the probe collector failed (see the log)");
	if (c->probe)
		r = eval_loopback(c, t, out);
	if (r == 0 && c->peers)
		r = eval_peers(c, t, out);
	return r;
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
		r = check_eval_pcie(c, r2, out);
	if (r == 0 && c->modules)
		r = check_eval_modules(r2, out);
	if (r == 0 && c->devlink)
		r = check_eval_devlink(r2, out);
	if (r == 0)
		r = eval_probes(c, r2, out);
	if (r < 0)
		check_results_free(out);
	return r;
}
