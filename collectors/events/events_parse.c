// SPDX-License-Identifier: Apache-2.0
#include "events_parse.h"

#include <errno.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

/* IFLA_CARRIER_UP_COUNT / DOWN_COUNT are 47 / 48 (Linux 4.16,
 * include/uapi/linux/if_link.h); older headers lack them. */
#ifndef IFLA_CARRIER_UP_COUNT
#define IFLA_CARRIER_UP_COUNT	47
#define IFLA_CARRIER_DOWN_COUNT 48
#endif

struct link_attrs {
	const struct nlattr *tb[IFLA_CARRIER_DOWN_COUNT + 1];
	bool bad;
};

static int link_attr_cb(const struct nlattr *a, void *data)
{
	struct link_attrs *la = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type > IFLA_CARRIER_DOWN_COUNT)
		return MNL_CB_OK; /* newer kernels: skipped */
	switch (type) {
	case IFLA_IFNAME:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			goto bad;
		break;
	case IFLA_CARRIER:
	case IFLA_OPERSTATE:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			goto bad;
		break;
	case IFLA_CARRIER_UP_COUNT:
	case IFLA_CARRIER_DOWN_COUNT:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			goto bad;
		break;
	default:
		return MNL_CB_OK;
	}
	la->tb[type] = a;
	return MNL_CB_OK;
bad:
	la->bad = true;
	return MNL_CB_ERROR;
}

int ev_parse_link(const struct nlmsghdr *nlh, struct ev_link *out)
{
	struct link_attrs la = {0};
	const struct ifinfomsg *ifi;
	const char *name;

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return -ENOMSG;
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*ifi)))
		return -EBADMSG;
	ifi = mnl_nlmsg_get_payload(nlh);
	/* The attributes up to nlmsg_len exactly: mnl_attr_parse() walks to
	 * its aligned end, up to 3 bytes past a message whose length is not a
	 * multiple of 4 (a heap over-read found by fuzz_events_link). */
	if (mnl_attr_parse_payload((const char *)ifi + MNL_ALIGN(sizeof(*ifi)),
				   nlh->nlmsg_len - MNL_NLMSG_HDRLEN - MNL_ALIGN(sizeof(*ifi)),
				   link_attr_cb, &la) < 0 ||
	    la.bad)
		return -EBADMSG;
	out->deleted = nlh->nlmsg_type == RTM_DELLINK;
	out->ifindex = ifi->ifi_index;
	out->flags = ifi->ifi_flags;
	if (la.tb[IFLA_IFNAME]) {
		name = mnl_attr_get_str(la.tb[IFLA_IFNAME]);
		if (strlen(name) >= sizeof(out->name)) {
			memset(out, 0, sizeof(*out));
			return -EBADMSG;
		}
		strcpy(out->name, name);
	}
	if (la.tb[IFLA_CARRIER]) {
		out->have_carrier = true;
		out->carrier = mnl_attr_get_u8(la.tb[IFLA_CARRIER]) ? 1 : 0;
	}
	if (la.tb[IFLA_OPERSTATE]) {
		out->have_operstate = true;
		out->operstate = mnl_attr_get_u8(la.tb[IFLA_OPERSTATE]);
	}
	if (la.tb[IFLA_CARRIER_UP_COUNT] && la.tb[IFLA_CARRIER_DOWN_COUNT]) {
		out->have_counts = true;
		out->up_count = mnl_attr_get_u32(la.tb[IFLA_CARRIER_UP_COUNT]);
		out->down_count = mnl_attr_get_u32(la.tb[IFLA_CARRIER_DOWN_COUNT]);
	}
	return 0;
}

int ev_link_up(const struct ev_link *l)
{
	return (l->flags & IFF_LOWER_UP) ? 1 : 0;
}

static bool name_ok(const char *s, size_t max)
{
	return s && s[0] && strlen(s) < max;
}

static struct ev_device *device_find(struct ev_table *t, const char *device)
{
	for (size_t i = 0; i < t->n_devices; i++)
		if (strcmp(t->devices[i].name, device) == 0)
			return &t->devices[i];
	return NULL;
}

static struct ev_device *device_get(struct ev_table *t, const char *device, int *r)
{
	struct ev_device *d;

	*r = 0;
	if (!name_ok(device, EV_NAME_MAX)) {
		*r = -EINVAL;
		return NULL;
	}
	d = device_find(t, device);
	if (d)
		return d;
	if (t->n_devices >= EV_MAX_DEVICES) {
		t->dropped++;
		*r = -ENOSPC;
		return NULL;
	}
	d = &t->devices[t->n_devices++];
	memset(d, 0, sizeof(*d));
	strcpy(d->name, device);
	return d;
}

int ev_device_add(struct ev_table *t, const char *device)
{
	int r;

	device_get(t, device, &r);
	return r;
}

int ev_device_fatal(struct ev_table *t, const char *device)
{
	struct ev_device *d;
	int r;

	d = device_get(t, device, &r);
	if (d)
		d->fatal++;
	return r;
}

int ev_port_event_state(enum ev_port_event e, int queried)
{
	bool known = queried >= 0 && queried < EV_N_STATES;

	switch (e) {
	case EV_PORT_EVENT_ACTIVE:
		return EV_PORT_ACTIVE;
	case EV_PORT_EVENT_ERR:
		return known && queried != EV_PORT_ACTIVE ? queried : EV_PORT_DOWN;
	case EV_PORT_EVENT_QUERY:
		return known ? queried : -1;
	}
	return -1;
}

static struct ev_port *port_get(struct ev_table *t, const char *device, uint32_t port,
				bool *created)
{
	struct ev_port *p;

	*created = false;
	for (size_t i = 0; i < t->n_ports; i++)
		if (t->ports[i].port == port && strcmp(t->ports[i].device, device) == 0)
			return &t->ports[i];
	if (t->n_ports >= EV_MAX_PORTS) {
		t->dropped++;
		return NULL;
	}
	p = &t->ports[t->n_ports++];
	memset(p, 0, sizeof(*p));
	strcpy(p->device, device);
	p->port = port;
	p->state = -1;
	*created = true;
	return p;
}

int ev_port_observe(struct ev_table *t, const char *device, uint32_t port, int state, double now_s)
{
	struct ev_port *p;
	bool created;

	if (!name_ok(device, EV_NAME_MAX) || state < 0 || state >= EV_N_STATES)
		return -EINVAL;
	p = port_get(t, device, port, &created);
	if (!p)
		return -ENOSPC;
	if (created || p->state < 0) {
		p->state = state;
		return 0;
	}
	if (p->state == state)
		return 0;
	p->state = state;
	p->changes[state]++;
	p->last_change_s = now_s;
	return 1;
}

int ev_port_event(struct ev_table *t, const char *device, uint32_t port, enum ev_port_event e,
		  int queried, double now_s)
{
	int state = ev_port_event_state(e, queried);

	if (state < 0)
		return 0;
	return ev_port_observe(t, device, port, state, now_s);
}

struct ev_netdev *ev_netdev_find(struct ev_table *t, const char *name)
{
	for (size_t i = 0; i < t->n_netdevs; i++)
		if (strcmp(t->netdevs[i].name, name) == 0)
			return &t->netdevs[i];
	return NULL;
}

int ev_netdev_track(struct ev_table *t, const char *name)
{
	struct ev_netdev *n;

	if (!name_ok(name, EV_IFNAMSIZ))
		return -EINVAL;
	if (ev_netdev_find(t, name))
		return 0;
	if (t->n_netdevs >= EV_MAX_NETDEVS) {
		t->dropped++;
		return -ENOSPC;
	}
	n = &t->netdevs[t->n_netdevs++];
	memset(n, 0, sizeof(*n));
	strcpy(n->name, name);
	n->carrier = -1;
	return 0;
}

uint64_t ev_netdev_observe(struct ev_table *t, const struct ev_link *l)
{
	struct ev_netdev *n;
	uint64_t added = 0;
	int up = ev_link_up(l);

	if (!l->name[0] || l->deleted)
		return 0;
	n = ev_netdev_find(t, l->name);
	if (!n)
		return 0;
	if (n->carrier >= 0 && up != n->carrier)
		added = 1;
	if (l->have_counts) {
		uint64_t counts = (uint64_t)l->up_count + l->down_count;

		if (n->have_counts && counts >= n->last_counts && counts - n->last_counts > added)
			added = counts - n->last_counts;
		n->have_counts = true;
		n->last_counts = counts;
	}
	n->carrier = up;
	n->seen = true;
	n->changes += added;
	return added;
}
