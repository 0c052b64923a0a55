// SPDX-License-Identifier: Apache-2.0
#include "netlink_names.h"

#include <stddef.h>

/* Indexed by enum ib_qp_type; 7 is not assigned. */
static const char *const qp_types[] = {
	"SMI",		 "GSI", "RC",	      "UC",	 "UD",	    "RAW_IPV6",
	"RAW_ETHERTYPE", NULL,	"RAW_PACKET", "XRC_INI", "XRC_TGT",
};

static const char *const qp_states[NL_QP_STATES] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

static const char *const cm_states[] = {
	"IDLE",	      "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY",    "ROUTE_RESOLVED", "CONNECT",
	"DISCONNECT", "ADDR_BOUND", "LISTEN",	     "DEVICE_REMOVAL", "DESTROYING",
};

static const char *const limit_names[NL_LIMIT_COUNT] = {"qp", "cq", "mr", "pd", "srq"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *nl_qp_type_name(uint8_t type)
{
	/* IB_QPT_DRIVER: a driver-specific QP type (mlx5 DCI/DCT, EFA SRD, ...) */
	if (type == 0xff)
		return "DRIVER";
	if (type < N(qp_types) && qp_types[type])
		return qp_types[type];
	return "UNKNOWN";
}

const char *nl_qp_state_name(uint8_t state)
{
	return state < N(qp_states) ? qp_states[state] : "UNKNOWN";
}

const char *nl_cm_state_name(uint8_t state)
{
	return state < N(cm_states) ? cm_states[state] : "UNKNOWN";
}

const char *nl_cm_ps_name(uint32_t ps)
{
	/* enum rdma_ucm_port_space values */
	switch (ps) {
	case 0x0002:
		return "IPoIB";
	case 0x0106:
		return "TCP";
	case 0x0111:
		return "UDP";
	case 0x013f:
		return "IB";
	default:
		return "UNKNOWN";
	}
}

const char *nl_limit_name(enum nl_limit_kind k)
{
	return (unsigned)k < NL_LIMIT_COUNT ? limit_names[k] : "";
}
