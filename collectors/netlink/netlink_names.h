/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names of RDMA netlink enumerations as iproute2's rdma tool prints them
 * (rdma res show qp / cm_id), so that label values match what operators
 * already grep for. Pure tables, no I/O.
 */
#ifndef RDMA_EXPORTER_NETLINK_NAMES_H
#define RDMA_EXPORTER_NETLINK_NAMES_H

#include <stdint.h>

/* enum ib_qp_state: RESET .. ERR. */
#define NL_QP_STATES 7
/* IB_QPS_ERR: the state rdma_qps exports even at 0 (issue 40). */
#define NL_QP_STATE_ERR 6

/* QP type (enum ib_qp_type, RDMA_NLDEV_ATTR_RES_TYPE): "RC", "UD", "GSI",
 * "DRIVER" (0xff), ...; "UNKNOWN" for a value the kernel added later. */
const char *nl_qp_type_name(uint8_t type);
/* QP state (enum ib_qp_state): "RESET" .. "ERR"; "UNKNOWN" past the enum. */
const char *nl_qp_state_name(uint8_t state);
/* rdma_cm state (enum rdma_cm_state): "IDLE", "LISTEN", "CONNECT", ... */
const char *nl_cm_state_name(uint8_t state);
/* rdma_cm port space (enum rdma_ucm_port_space): "TCP", "UDP", "IPoIB", "IB". */
const char *nl_cm_ps_name(uint32_t ps);

/* Resource names of the kernel's RES_GET summary that have a device limit
 * in struct ibv_device_attr. */
enum nl_limit_kind {
	NL_LIMIT_QP,
	NL_LIMIT_CQ,
	NL_LIMIT_MR,
	NL_LIMIT_PD,
	NL_LIMIT_SRQ,
	NL_LIMIT_COUNT,
};
/* "qp", "cq", "mr", "pd", "srq" */
const char *nl_limit_name(enum nl_limit_kind k);

#endif
