// SPDX-License-Identifier: Apache-2.0
/* The static table of collectors. A new collector adds one line here. */
#include "collector.h"
#include "devlink/devlink.h"
#include "ethtool/ethtool.h"
#include "events/events.h"
#include "lldp/lldp.h"
#include "netlink/netlink.h"
#include "probe/probe.h"
#include "sysfs/sysfs.h"

const struct collector_ops *const collector_table[] = {
	&sysfs_collector_ops,
	/* After sysfs: it leaves the counters sysfs already exported alone. */
	&netlink_collector_ops,
	/* After sysfs: it watches the netdevs sysfs publishes. */
	&ethtool_collector_ops,
	/* Its engine thread probes on its own schedule; collect() only copies. */
	&probe_collector_ops,
	/* After sysfs: it watches the netdevs sysfs publishes; its thread
	 * counts events, collect() only copies. */
	&events_collector_ops,
	/* One devlink dump per poll; reads the RDMA devices' PCI links itself. */
	&devlink_collector_ops,
	/* Off by default (CAP_NET_RAW); reads the frames queued since the last poll. */
	&lldp_collector_ops,
};

const unsigned collector_table_len = sizeof(collector_table) / sizeof(collector_table[0]);
