// SPDX-License-Identifier: Apache-2.0
/* The check configuration's defaults (docs/check.md) and its counters by name. */
#include "check/check_config.h"

#include <string.h>

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
