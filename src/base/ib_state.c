// SPDX-License-Identifier: Apache-2.0
/* The names of IB PortState values: see ib_state.h. */
#include "base/ib_state.h"

#include <stddef.h>

/* IB spec PortState, index = value (kernel enum ib_port_state). */
const char *const ib_port_state_names[IB_PORT_STATES] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};

const char *ib_port_state_name(uint64_t state)
{
	return state < IB_PORT_STATES ? ib_port_state_names[state] : NULL;
}
