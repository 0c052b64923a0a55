// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the events collector's pure parts: rtnetlink link messages
 * built with libmnl (carrier, operstate, the kernel's carrier counters,
 * unknown and malformed attributes, other message types), and the table of
 * transitions (port baselines, a flap inside one poll, PORT_ERR read back as
 * ACTIVE, fatal events, netdev carrier counts with and without the kernel's
 * counters, a netdev re-created, bounds). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "events_parse.h"

#define UP_COUNT   47 /* IFLA_CARRIER_UP_COUNT, Linux 4.16 */
#define DOWN_COUNT 48

struct msg {
	char buf[1024] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
};

static struct ifinfomsg *msg_start(struct msg *m, uint16_t type, int ifindex)
{
	struct ifinfomsg *ifi;

	memset(m->buf, 0, sizeof(m->buf));
	m->nlh = mnl_nlmsg_put_header(m->buf);
	m->nlh->nlmsg_type = type;
	ifi = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*ifi));
	ifi->ifi_index = ifindex;
	return ifi;
}

/* A link message as the kernel's rtnl_fill_ifinfo sends it (the part read);
 * lower_up: the IFF_LOWER_UP flag, with IFF_UP. */
static void msg_link(struct msg *m, const char *name, bool lower_up, int carrier, int operstate,
		     long up_count, long down_count)
{
	struct ifinfomsg *ifi = msg_start(m, RTM_NEWLINK, 7);

	if (lower_up)
		ifi->ifi_flags = IFF_UP | IFF_RUNNING | IFF_LOWER_UP;
	mnl_attr_put_u32(m->nlh, IFLA_MTU, 1500); /* skipped */
	if (name)
		mnl_attr_put_strz(m->nlh, IFLA_IFNAME, name);
	if (carrier >= 0)
		mnl_attr_put_u8(m->nlh, IFLA_CARRIER, (uint8_t)carrier);
	if (operstate >= 0)
		mnl_attr_put_u8(m->nlh, IFLA_OPERSTATE, (uint8_t)operstate);
	if (up_count >= 0)
		mnl_attr_put_u32(m->nlh, UP_COUNT, (uint32_t)up_count);
	if (down_count >= 0)
		mnl_attr_put_u32(m->nlh, DOWN_COUNT, (uint32_t)down_count);
}

static void test_parse_full(void **unused)
{
	struct msg m;
	struct ev_link l;

	(void)unused;
	msg_link(&m, "enp65s0f0np0", true, 1, IF_OPER_UP, 3, 2);
	mnl_attr_put_u32(m.nlh, 999, 1); /* a newer kernel's attribute */
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_false(l.deleted);
	assert_int_equal(l.ifindex, 7);
	assert_string_equal(l.name, "enp65s0f0np0");
	assert_true(l.have_carrier && l.carrier == 1);
	assert_true(l.have_operstate && l.operstate == IF_OPER_UP);
	assert_true(l.have_counts);
	assert_int_equal(l.up_count, 3);
	assert_int_equal(l.down_count, 2);
	assert_int_equal(ev_link_up(&l), 1);
}

static void test_parse_partial(void **unused)
{
	struct msg m;
	struct ev_link l;

	(void)unused;
	/* administratively down: the driver's carrier may stay 1, the link is
	 * down; one counter alone is no counts */
	msg_link(&m, "eth0", false, 1, IF_OPER_DOWN, 4, -1);
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_true(l.have_carrier && l.carrier == 1);
	assert_false(l.have_counts);
	assert_int_equal(ev_link_up(&l), 0);
	msg_link(&m, NULL, true, -1, -1, -1, -1);
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_string_equal(l.name, "");
	assert_false(l.have_carrier || l.have_operstate);
	assert_int_equal(ev_link_up(&l), 1);

	msg_start(&m, RTM_DELLINK, 9);
	mnl_attr_put_strz(m.nlh, IFLA_IFNAME, "eth1");
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_true(l.deleted);
	assert_int_equal(l.ifindex, 9);
}

static void test_parse_errors(void **unused)
{
	struct msg m;
	struct ev_link l;
	char longname[40];

	(void)unused;
	msg_start(&m, RTM_NEWADDR, 1);
	assert_int_equal(ev_parse_link(m.nlh, &l), -ENOMSG);
	/* too short for the ifinfomsg */
	msg_start(&m, RTM_NEWLINK, 1);
	m.nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 4;
	memset(&l, 0xa5, sizeof(l));
	assert_int_equal(ev_parse_link(m.nlh, &l), -EBADMSG);
	assert_int_equal(l.ifindex, 0);
	/* a carrier of the wrong size */
	msg_start(&m, RTM_NEWLINK, 1);
	mnl_attr_put_u32(m.nlh, IFLA_CARRIER, 1);
	assert_int_equal(ev_parse_link(m.nlh, &l), -EBADMSG);
	/* a name without its NUL, and one too long for EV_IFNAMSIZ */
	msg_start(&m, RTM_NEWLINK, 1);
	mnl_attr_put(m.nlh, IFLA_IFNAME, 4, "eth0");
	assert_int_equal(ev_parse_link(m.nlh, &l), -EBADMSG);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	msg_start(&m, RTM_NEWLINK, 1);
	mnl_attr_put_strz(m.nlh, IFLA_IFNAME, longname);
	assert_int_equal(ev_parse_link(m.nlh, &l), -EBADMSG);
	assert_string_equal(l.name, "");
	/* an attribute running past the message: libmnl stops before it, so
	 * it is not read (and the rest is) */
	msg_link(&m, "eth0", true, 1, -1, -1, -1);
	m.nlh->nlmsg_len -= 4;
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_string_equal(l.name, "eth0");
	assert_false(l.have_carrier);
	/* a length that is not a multiple of 4 ends inside the last attribute:
	 * that attribute is not read (it was, from the bytes past the message,
	 * which libmnl's walk to the aligned end reached) */
	msg_link(&m, "eth0", true, 1, -1, 3, 2);
	m.nlh->nlmsg_len -= 1;
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_true(l.have_carrier);
	assert_false(l.have_counts);
	assert_int_equal(l.down_count, 0);
}

static void test_port_state_mapping(void **unused)
{
	(void)unused;
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_ACTIVE, -1), EV_PORT_ACTIVE);
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_ERR, 2), 2);
	/* read back already ACTIVE (a flap shorter than the read): it was DOWN */
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_ERR, EV_PORT_ACTIVE), EV_PORT_DOWN);
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_ERR, -1), EV_PORT_DOWN);
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_QUERY, 3), 3);
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_QUERY, -1), -1);
	assert_int_equal(ev_port_event_state(EV_PORT_EVENT_QUERY, 9), -1);
}

static void test_port_flap(void **unused)
{
	static struct ev_table t;
	struct ev_port *p = &t.ports[0];

	(void)unused;
	memset(&t, 0, sizeof(t));
	/* the first read is the baseline */
	assert_int_equal(ev_port_event(&t, "rxe0", 1, EV_PORT_EVENT_QUERY, 4, 100.0), 0);
	assert_int_equal(t.n_ports, 1);
	assert_int_equal(p->state, EV_PORT_ACTIVE);
	assert_true(p->last_change_s == 0);
	/* down and up between two polls; the ERR read already sees ACTIVE */
	assert_int_equal(ev_port_event(&t, "rxe0", 1, EV_PORT_EVENT_ERR, 4, 101.0), 1);
	assert_int_equal(ev_port_event(&t, "rxe0", 1, EV_PORT_EVENT_ACTIVE, -1, 101.5), 1);
	/* a periodic read of the same state counts nothing */
	assert_int_equal(ev_port_event(&t, "rxe0", 1, EV_PORT_EVENT_QUERY, 4, 102.0), 0);
	assert_int_equal(p->changes[EV_PORT_DOWN], 1);
	assert_int_equal(p->changes[EV_PORT_ACTIVE], 1);
	assert_true(p->last_change_s == 101.5);
	/* a read that saw DOWN first, then the queued ERR: one DOWN */
	assert_int_equal(ev_port_event(&t, "rxe0", 1, EV_PORT_EVENT_QUERY, 1, 103.0), 1);
	assert_int_equal(ev_port_event(&t, "rxe0", 1, EV_PORT_EVENT_ERR, 1, 103.1), 0);
	assert_int_equal(p->changes[EV_PORT_DOWN], 2);
	/* ports are per device and number */
	assert_int_equal(ev_port_event(&t, "rxe0", 2, EV_PORT_EVENT_QUERY, 1, 104.0), 0);
	assert_int_equal(ev_port_event(&t, "mlx5_0", 1, EV_PORT_EVENT_QUERY, 1, 104.0), 0);
	assert_int_equal(t.n_ports, 3);
	assert_int_equal(ev_port_observe(&t, "rxe0", 1, EV_N_STATES, 1.0), -EINVAL);
	assert_int_equal(ev_port_observe(&t, "", 1, 1, 1.0), -EINVAL);
}

static void test_fatal_and_bounds(void **unused)
{
	static struct ev_table t;
	char name[EV_NAME_MAX + 8];

	(void)unused;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ev_device_add(&t, "rxe0"), 0);
	assert_int_equal(ev_device_add(&t, "rxe0"), 0);
	assert_int_equal(t.n_devices, 1);
	assert_int_equal(t.devices[0].fatal, 0);
	assert_int_equal(ev_device_fatal(&t, "rxe0"), 0);
	assert_int_equal(ev_device_fatal(&t, "mlx5_0"), 0);
	assert_int_equal(t.devices[0].fatal, 1);
	assert_int_equal(t.devices[1].fatal, 1);
	memset(name, 'd', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(ev_device_add(&t, name), -EINVAL);
	for (int i = 0; i < EV_MAX_DEVICES + 2; i++) {
		snprintf(name, sizeof(name), "dev%d", i);
		ev_device_add(&t, name);
	}
	assert_int_equal(t.n_devices, EV_MAX_DEVICES);
	assert_int_equal(ev_device_fatal(&t, "another"), -ENOSPC);
	for (uint32_t p = 1; p <= EV_MAX_PORTS + 1; p++)
		ev_port_observe(&t, "big", p, 4, 1.0);
	assert_int_equal(t.n_ports, EV_MAX_PORTS);
	assert_int_equal(ev_port_observe(&t, "big", 9999, 4, 1.0), -ENOSPC);
	assert_true(t.dropped >= 4);
}

static uint64_t observe(struct ev_table *t, const char *name, int carrier, long up, long down)
{
	struct msg m;
	struct ev_link l;

	msg_link(&m, name, carrier == 1, carrier, -1, up, down);
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	return ev_netdev_observe(t, &l);
}

static void test_netdev_counts(void **unused)
{
	static struct ev_table t;
	struct ev_netdev *n;

	(void)unused;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ev_netdev_track(&t, "eth0"), 0);
	assert_int_equal(ev_netdev_track(&t, "eth0"), 0);
	assert_int_equal(t.n_netdevs, 1);
	n = ev_netdev_find(&t, "eth0");
	assert_false(n->seen);
	/* untracked netdevs are ignored */
	assert_int_equal(observe(&t, "lo", 1, 1, 0), 0);
	assert_null(ev_netdev_find(&t, "lo"));
	/* the dump: baseline */
	assert_int_equal(observe(&t, "eth0", 1, 5, 4), 0);
	assert_true(n->seen);
	/* down then up, the down notification lost: the up's counters carry it */
	assert_int_equal(observe(&t, "eth0", 1, 6, 5), 2);
	assert_int_equal(observe(&t, "eth0", 1, 6, 5), 0);
	assert_int_equal(n->changes, 2);
	/* a new netdev of the same name: counters from 0, a new baseline */
	assert_int_equal(observe(&t, "eth0", 1, 1, 0), 0);
	assert_int_equal(observe(&t, "eth0", 0, 1, 1), 1);
	assert_int_equal(n->changes, 3);
}

/* ip link set down / up (virtio_net): the driver's carrier and the kernel's
 * counters stay, IFF_LOWER_UP goes and comes back: two transitions. */
static void test_netdev_admin_down(void **unused)
{
	static struct ev_table t;
	struct msg m;
	struct ev_link l;

	(void)unused;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ev_netdev_track(&t, "eth0"), 0);
	assert_int_equal(observe(&t, "eth0", 1, 1, 0), 0);
	msg_link(&m, "eth0", false, 1, IF_OPER_DOWN, 1, 0);
	assert_int_equal(ev_parse_link(m.nlh, &l), 0);
	assert_int_equal(ev_netdev_observe(&t, &l), 1);
	assert_int_equal(observe(&t, "eth0", 1, 1, 0), 1);
	assert_int_equal(ev_netdev_find(&t, "eth0")->changes, 2);
}

static void test_netdev_no_counts(void **unused)
{
	static struct ev_table t;
	struct ev_netdev *n;

	(void)unused;
	memset(&t, 0, sizeof(t));
	assert_int_equal(ev_netdev_track(&t, "eth0"), 0);
	n = ev_netdev_find(&t, "eth0");
	/* a kernel before 4.16: carrier transitions counted one by one */
	assert_int_equal(observe(&t, "eth0", 1, -1, -1), 0);
	assert_int_equal(observe(&t, "eth0", 1, -1, -1), 0);
	assert_int_equal(observe(&t, "eth0", 0, -1, -1), 1);
	assert_int_equal(observe(&t, "eth0", 1, -1, -1), 1);
	assert_int_equal(n->changes, 2);
	assert_int_equal(n->carrier, 1);
	assert_int_equal(ev_netdev_track(&t, ""), -EINVAL);
	assert_int_equal(ev_netdev_track(&t, "abcdefghijklmnopq"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),	  cmocka_unit_test(test_parse_partial),
		cmocka_unit_test(test_parse_errors),	  cmocka_unit_test(test_port_state_mapping),
		cmocka_unit_test(test_port_flap),	  cmocka_unit_test(test_fatal_and_bounds),
		cmocka_unit_test(test_netdev_counts),	  cmocka_unit_test(test_netdev_no_counts),
		cmocka_unit_test(test_netdev_admin_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
