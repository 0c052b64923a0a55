/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One probed RDMA port: a verbs context, a UD QP (Q_Key PROBE_QKEY) that is
 * both prober and responder, and a loopback address handle to itself. Plain
 * libibverbs, no librdmacm: librdmacm keeps its own verbs context of a device
 * open until the process exits, and a driver without context disassociation
 * (rxe) cannot be removed while one is open. The owner closes the port as
 * soon as its device leaves the verbs device list. Nothing here logs.
 */
#ifndef RDMA_EXPORTER_PROBE_PORT_H
#define RDMA_EXPORTER_PROBE_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define PROBE_RECV_SLOTS 16

struct probe_port {
	char device[64];
	uint8_t port;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf; /* PROBE_RECV_SLOTS receive slots, then one send slot */
	struct ibv_ah *self_ah;
	int gid_index; /* -1: no GRH (InfiniBand) */
	uint64_t responder_requests, responder_dropped;
};

/*
 * Opens dev/port: context, PD, CQ, UD QP in RTS, receive slots posted, and
 * the loopback AH. Returns 0, or -errno with *what naming the failing step
 * ("open", "pd", "cq", "qp", "gid", "ah", "mr", "post").
 */
int probe_port_open(struct probe_port *p, struct ibv_device *dev, uint8_t port, const char **what);
void probe_port_close(struct probe_port *p);

/*
 * One loopback ping: sends a request to its own QP, answers it as the
 * responder, and waits for the reply up to timeout_ms. Returns 0 with the
 * round trip in *rtt_ns (CLOCK_MONOTONIC around post and reply), -ETIMEDOUT,
 * or -errno with *what ("send", "completion", "poll").
 */
int probe_port_ping(struct probe_port *p, uint64_t seq, int timeout_ms, uint64_t *rtt_ns,
		    const char **what);

#endif
