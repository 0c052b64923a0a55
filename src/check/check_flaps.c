// SPDX-License-Identifier: Apache-2.0
/*
 * The flaps check (check_state.h): the kernel's flap counters and the port
 * states of this run against the history of the last one. The counters
 * count every transition, however short, so a link that went down and up
 * between two checks shows as a rise even when both checks saw it ACTIVE.
 * Pure: the reading, the history and the time in; results and the next
 * history out.
 */
#include "check/check_state.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define FAM_PORT_STATE	  "rdma_port_state"
#define FAM_LINK_DOWNED	  "rdma_port_link_downed_total"
#define FAM_CARRIER_DOWNS "rdma_netdev_carrier_down_events_total"

static const char *const state_names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};

static const char *state_name(uint64_t s)
{
	return s < sizeof(state_names) / sizeof(state_names[0]) ? state_names[s] : "?";
}

static bool state_active(uint64_t s)
{
	return s == 4 || s == 5;
}

/* "2026-11-27T03:50:00Z" */
static void utc(uint64_t t, char *out, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(out, size, "@%llu", (unsigned long long)t);
}

/* The object under test: its kind, name, the counter's name and this run's
 * readings; prev its history (NULL: none). */
struct flap_obj {
	char kind;
	const char *name;
	const char *counter_name; /* "link_downed", "carrier_down_count" */
	const char *what;	  /* "link", "carrier" */
	bool has_counter, has_state;
	uint64_t counter, state;
	const struct check_state_entry *prev;
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/*
 * A flap seen now, from the history and this reading, recorded in e: the
 * counter moved, or else the port state is not the one recorded. A port
 * that stays down is the ports check's FAIL, not a flap; its return is.
 */
static bool flap_seen(const struct flap_obj *o, uint64_t now, uint64_t hold,
		      struct check_state_entry *e)
{
	const struct check_state_entry *p = o->prev;

	if (p && p->has_counter && o->has_counter && o->counter != p->counter) {
		e->cause = o->counter > p->counter ? CHECK_FLAP_ROSE : CHECK_FLAP_BACK;
		e->from = p->counter;
		e->to = o->counter;
	} else if (p && p->has_state && o->has_state && o->state != p->state) {
		e->cause = CHECK_FLAP_STATE;
		e->from = p->state;
		e->to = o->state;
	} else {
		return false;
	}
	e->flap_at = now;
	e->hold_until = sat_add(now, hold);
	return true;
}

/* The FAIL line of a flap held in e; fresh: seen by this run. */
static int fail_line(const struct flap_obj *o, const struct check_state_entry *e, bool fresh,
		     struct check_results *out)
{
	char at[32], until[32];
	const char *since = fresh ? " since the last check" : "";
	uint64_t downs = e->to - e->from;

	utc(e->flap_at, at, sizeof(at));
	utc(e->hold_until, until, sizeof(until));
	if (e->cause == CHECK_FLAP_ROSE)
		return check_result_add(out, CHECK_FAIL, "flaps", o->name,
					"%s went down %llu time%s%s (%s %llu -> %llu) at %s, "
					"held FAIL until %s",
					o->what, (unsigned long long)downs, downs == 1 ? "" : "s",
					since, o->counter_name, (unsigned long long)e->from,
					(unsigned long long)e->to, at, until);
	if (e->cause == CHECK_FLAP_BACK)
		return check_result_add(out, CHECK_FAIL, "flaps", o->name,
					"%s went back%s (%llu -> %llu: driver reloaded or device "
					"reset, counted as a flap) at %s, held FAIL until %s",
					o->counter_name, since, (unsigned long long)e->from,
					(unsigned long long)e->to, at, until);
	return check_result_add(out, CHECK_FAIL, "flaps", o->name,
				"state changed %s -> %s%s at %s, held FAIL until %s",
				state_name(e->from), state_name(e->to), since, at, until);
}

/*
 * OK: no flap since the last check, or the first check with a history. A
 * port that is not ACTIVE now without a change is the ports check's FAIL:
 * named here, not failed twice.
 */
static int ok_line(const struct flap_obj *o, struct check_results *out)
{
	char last[32], counter[96] = "";
	int n = 0;

	if (o->has_counter)
		n = snprintf(counter, sizeof(counter), " (%s %llu)", o->counter_name,
			     (unsigned long long)o->counter);
	if (o->has_state && !state_active(o->state) && n >= 0 && (size_t)n < sizeof(counter))
		snprintf(counter + n, sizeof(counter) - (size_t)n, "; state %s now",
			 state_name(o->state));
	if (!o->prev)
		return check_result_add(out, CHECK_OK, "flaps", o->name,
					"no history yet: these readings%s start it (flaps before "
					"this check cannot be known)",
					counter);
	utc(o->prev->seen, last, sizeof(last));
	return check_result_add(out, CHECK_OK, "flaps", o->name, "no flap since the check at %s%s",
				last, counter);
}

/* One object: its result, and its entry appended to next (while there is room). */
static int judge(const struct check_config *c, const struct flap_obj *o, uint64_t now,
		 struct check_results *out, struct check_state *next)
{
	struct check_state_entry e = {.kind = o->kind, .seen = now};
	bool fresh;
	int r;

	snprintf(e.name, sizeof(e.name), "%s", o->name);
	e.has_counter = o->has_counter;
	e.counter = o->counter;
	e.has_state = o->has_state;
	e.state = o->state;
	if (o->prev && o->prev->cause != CHECK_FLAP_NONE) {
		e.cause = o->prev->cause;
		e.flap_at = o->prev->flap_at;
		e.hold_until = o->prev->hold_until;
		e.from = o->prev->from;
		e.to = o->prev->to;
		/* a shorter --check.flap-hold, or a clock set back, holds no longer */
		if (e.hold_until > sat_add(e.flap_at, c->flap_hold_s))
			e.hold_until = sat_add(e.flap_at, c->flap_hold_s);
		if (e.hold_until > sat_add(now, c->flap_hold_s))
			e.hold_until = sat_add(now, c->flap_hold_s);
	}
	fresh = flap_seen(o, now, c->flap_hold_s, &e);
	if (fresh || (e.cause != CHECK_FLAP_NONE && now < e.hold_until))
		r = fail_line(o, &e, fresh, out);
	else
		r = ok_line(o, out);
	if (r == 0)
		r = check_state_add(next, &e);
	return r == -E2BIG ? 0 : r; /* beyond the bound: judged, not recorded */
}

/* rdma_exporter_collector_success of a collector is 1. */
static bool collector_ok(const struct check_table *t, const char *name)
{
	const struct check_sample *s = check_table_find(
		t, "rdma_exporter_collector_success", &(struct metric_label){"collector", name}, 1);

	return s && s->value == 1;
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

/* A sample's value as a counter or state: whole and not negative. */
static bool whole(double v, uint64_t *out)
{
	if (!(v >= 0 && v < 18446744073709551616.0) || v != (double)(uint64_t)v)
		return false;
	*out = (uint64_t)v;
	return true;
}

/* Every port with a state (the expected ones with --check.expect). */
static int eval_ports(const struct check_config *c, const struct check_state *prev, uint64_t now,
		      const struct check_table *t, struct check_results *out,
		      struct check_state *next)
{
	size_t n, i = check_table_family(t, FAM_PORT_STATE, &n);
	int r = 0;

	for (; n > 0 && r == 0; i++, n--) {
		const char *dev = check_sample_label(&t->v[i], "device");
		const char *port = check_sample_label(&t->v[i], "port");
		const struct check_sample *ld;
		struct flap_obj o = {
			.kind = CHECK_STATE_PORT, .counter_name = "link_downed", .what = "link"};
		char name[CHECK_STATE_NAME_MAX];

		if (!dev || !port || !expected_port(c, dev, port))
			continue;
		if ((size_t)snprintf(name, sizeof(name), "%s/%s", dev, port) >= sizeof(name))
			continue; /* not a kernel name: IB_DEVICE_NAME_MAX is 64 */
		ld = check_table_find(
			t, FAM_LINK_DOWNED,
			(const struct metric_label[]){{"device", dev}, {"port", port}}, 2);
		o.name = name;
		o.has_state = whole(t->v[i].value, &o.state);
		o.has_counter = ld && whole(ld->value, &o.counter);
		o.prev = check_state_find(prev, o.kind, name);
		r = judge(c, &o, now, out, next);
	}
	return r;
}

/* Every netdev with a carrier-down counter (ethtool collector). */
static int eval_netdevs(const struct check_config *c, const struct check_state *prev, uint64_t now,
			const struct check_table *t, struct check_results *out,
			struct check_state *next)
{
	size_t n, i = check_table_family(t, FAM_CARRIER_DOWNS, &n);
	int r = 0;

	for (; n > 0 && r == 0; i++, n--) {
		const char *netdev = check_sample_label(&t->v[i], "netdev");
		struct flap_obj o = {.kind = CHECK_STATE_NETDEV,
				     .counter_name = "carrier_down_count",
				     .what = "carrier"};

		if (!netdev || strlen(netdev) >= CHECK_STATE_NAME_MAX)
			continue;
		o.name = netdev;
		o.has_counter = whole(t->v[i].value, &o.counter);
		o.prev = check_state_find(prev, o.kind, netdev);
		r = judge(c, &o, now, out, next);
	}
	return r;
}

/* prev's objects this run did not see, kept a while: a device that comes
 * back after a driver reload still has its counters to compare. */
static int carry_over(const struct check_state *prev, uint64_t now, struct check_state *next)
{
	int r = 0;

	for (size_t i = 0; prev && i < prev->n && r == 0; i++) {
		const struct check_state_entry *e = &prev->v[i];

		if (check_state_find(next, e->kind, e->name) || e->seen > now ||
		    now - e->seen > CHECK_STATE_FORGET_S)
			continue;
		r = check_state_add(next, e);
	}
	return r == -E2BIG ? 0 : r;
}

int check_flaps_evaluate(const struct check_config *c, const struct check_state *prev, uint64_t now,
			 const struct check_table *t, struct check_results *out,
			 struct check_state *next)
{
	int r = 0;

	*next = (struct check_state){0};
	if (collector_ok(t, "sysfs"))
		r = eval_ports(c, prev, now, t, out, next);
	if (r == 0 && collector_ok(t, "ethtool"))
		r = eval_netdevs(c, prev, now, t, out, next);
	if (r == 0)
		r = carry_over(prev, now, next);
	if (r < 0)
		check_state_free(next);
	return r;
}
