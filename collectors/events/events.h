/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The events collector (docs/collectors/events.md): state changes between
 * polls. A thread of its own listens to rtnetlink link notifications
 * (RTNLGRP_LINK) for the RDMA netdevs and to the verbs asynchronous events of
 * each RDMA device, and counts every transition; collect() only copies the
 * counts. Families: rdma_port_state_changes_total{device,port,state},
 * rdma_port_last_state_change_timestamp_seconds{device,port},
 * rdma_device_fatal_events_total{device},
 * rdma_netdev_carrier_changes_total{netdev}.
 */
#ifndef RDMA_EXPORTER_EVENTS_H
#define RDMA_EXPORTER_EVENTS_H

#include "collector.h"

extern const struct collector_ops events_collector_ops;

#endif
