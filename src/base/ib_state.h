/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names of IB PortState values (IBA vol 1, the kernel's enum
 * ib_port_state), as ports/N/state prints them: the sysfs collector parses
 * them, the events collector labels port transitions with them. Constant
 * tables only: no state, any thread.
 */
#ifndef RDMA_EXPORTER_IB_STATE_H
#define RDMA_EXPORTER_IB_STATE_H

#include <stdint.h>

/* 0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER. */
#define IB_PORT_STATES 6

/* Index = value. */
extern const char *const ib_port_state_names[IB_PORT_STATES];

/* The name of a PortState value ("ACTIVE" for 4), NULL when out of range. */
const char *ib_port_state_name(uint64_t state);

#endif
