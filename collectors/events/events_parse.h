/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The events collector's pure parts: no I/O, no logging, no clock.
 *
 *  - ev_parse_link(): one rtnetlink RTM_NEWLINK / RTM_DELLINK message (a link
 *    notification of RTNLGRP_LINK, or one message of an RTM_GETLINK dump)
 *    into the attributes the collector uses: name, carrier, operstate and the
 *    kernel's own carrier counters (IFLA_CARRIER_UP_COUNT / DOWN_COUNT, Linux
 *    4.16, include/uapi/linux/if_link.h), which make a lost notification no
 *    lost flap.
 *  - struct ev_table: what the listener thread saw, bounded: port state
 *    transitions per entered state, last change time, fatal events per
 *    device, carrier changes per netdev. The caller passes the time.
 */
#ifndef RDMA_EXPORTER_EVENTS_PARSE_H
#define RDMA_EXPORTER_EVENTS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

#define EV_IFNAMSIZ 16 /* IFNAMSIZ, without net/if.h (it clashes with linux/if.h) */

struct ev_link {
	bool deleted; /* RTM_DELLINK */
	int32_t ifindex;
	uint32_t flags;		/* ifi_flags: IFF_UP, IFF_LOWER_UP, ... */
	char name[EV_IFNAMSIZ]; /* "" when the message has no IFLA_IFNAME */
	bool have_carrier, have_operstate, have_counts;
	uint8_t carrier;	       /* IFLA_CARRIER: 1 up, 0 down */
	uint8_t operstate;	       /* IFLA_OPERSTATE, RFC 2863 (IF_OPER_UP = 6) */
	uint32_t up_count, down_count; /* IFLA_CARRIER_UP_COUNT / _DOWN_COUNT */
};

/*
 * Parses one message whose framing the caller checked (nlmsg_len within the
 * buffer). 0 with *out filled, -ENOMSG for a message of another type (out
 * zeroed), -EBADMSG when it is malformed (out zeroed). Unknown attributes are
 * skipped, so newer kernels keep working.
 */
int ev_parse_link(const struct nlmsghdr *nlh, struct ev_link *out);

/* The link is up as the collector counts it: IFF_LOWER_UP, the carrier as
 * ip(8) and sysfs show it (the driver's carrier while the netdev is
 * administratively up; an `ip link set down` clears it, even where the
 * driver's IFLA_CARRIER and counters stay). 1 or 0. */
int ev_link_up(const struct ev_link *l);

/* IB PortState values (kernel enum ib_port_state; index of the sysfs
 * collector's names): DOWN 1 .. ACTIVE_DEFER 5. */
#define EV_PORT_DOWN   1
#define EV_PORT_ACTIVE 4
#define EV_N_STATES    6
#define EV_FIRST_STATE 1 /* states exported from the first poll on: 1..5 */

#define EV_NAME_MAX    64
#define EV_MAX_DEVICES 64
#define EV_MAX_PORTS   256
#define EV_MAX_NETDEVS 256

/* The verbs asynchronous events the table counts, from the caller's mapping
 * of enum ibv_event_type (the table does not include verbs.h). */
enum ev_port_event {
	EV_PORT_EVENT_ACTIVE, /* IBV_EVENT_PORT_ACTIVE */
	EV_PORT_EVENT_ERR,    /* IBV_EVENT_PORT_ERR */
	EV_PORT_EVENT_QUERY,  /* a state read (open, LID/GID change, tick) */
};

struct ev_port {
	char device[EV_NAME_MAX];
	uint32_t port;
	int state;		       /* last known, 0..5; -1 unknown */
	uint64_t changes[EV_N_STATES]; /* transitions into each state */
	double last_change_s;	       /* wall clock; 0: none seen */
};

struct ev_device {
	char name[EV_NAME_MAX];
	uint64_t fatal;
};

struct ev_netdev {
	char name[EV_IFNAMSIZ];
	bool seen;   /* a message named it: it exists on this host */
	int carrier; /* last known: 1 up, 0 down, -1 unknown */
	bool have_counts;
	uint64_t last_counts; /* up + down at the last message that had them */
	uint64_t changes;     /* carrier transitions since the netdev was tracked */
};

struct ev_table {
	struct ev_device devices[EV_MAX_DEVICES];
	struct ev_port ports[EV_MAX_PORTS];
	struct ev_netdev netdevs[EV_MAX_NETDEVS];
	size_t n_devices, n_ports, n_netdevs;
	uint64_t dropped; /* entries refused because a table was full */
};

/* Registers a device (fatal 0). 0, or -ENOSPC (counted in dropped), -EINVAL. */
int ev_device_add(struct ev_table *t, const char *device);
/* IBV_EVENT_DEVICE_FATAL: counted on the device (added when new). */
int ev_device_fatal(struct ev_table *t, const char *device);

/*
 * What a port event or read means for the port's state. ACTIVE: ACTIVE. ERR:
 * the queried state when it is known and not ACTIVE, else DOWN (the port left
 * ACTIVE; by the time it is read it may be back). QUERY: the queried state.
 * -1 when nothing is known (QUERY with queried < 0).
 */
int ev_port_event_state(enum ev_port_event e, int queried);
/*
 * Records state for the port at now_s: the first sight sets the baseline
 * (nothing counted); a different state than the last counts one transition
 * into it and sets last_change_s. 1 when a transition was counted, 0 when
 * not, -ENOSPC (counted in dropped), -EINVAL (state out of range).
 */
int ev_port_observe(struct ev_table *t, const char *device, uint32_t port, int state, double now_s);
/* The state a verbs event leaves the port in (ev_port_event_state), recorded. */
int ev_port_event(struct ev_table *t, const char *device, uint32_t port, enum ev_port_event e,
		  int queried, double now_s);

/* Starts tracking a netdev (no-op when tracked). 0, -ENOSPC, -EINVAL. */
int ev_netdev_track(struct ev_table *t, const char *name);
struct ev_netdev *ev_netdev_find(struct ev_table *t, const char *name);
/*
 * A link message for a tracked netdev (others: 0, ignored). With the kernel's
 * counters, their growth since the last message that had them (the first
 * only sets the baseline; a drop means a new netdev of that name: baseline
 * again) counts, so that lost notifications lose no flap; a link state
 * (ev_link_up) different from the last known counts one; a message counts
 * the larger of the two (one transition is in both). Returns the
 * transitions counted (0 or more).
 */
uint64_t ev_netdev_observe(struct ev_table *t, const struct ev_link *l);

#endif
