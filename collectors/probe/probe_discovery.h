/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Wire format of the probe's discovery sideband: one UDP datagram each way on
 * --collector.probe.port (default 9879, the exporter's own HTTP port number,
 * so a file_sd file of scrape targets names the right port). A prober asks a
 * peer's exporter for the UD QP it should send probes to; the answer gives
 * the QP number, Q_Key and address (GID, LID) of one of the peer's probe
 * ports. Pure encode and decode: no I/O.
 *
 * Why not SIDR (rdma_connect on an RDMA_PS_UDP id): librdmacm keeps a verbs
 * context of every device open until the process exits, and a driver without
 * context disassociation (rxe) then cannot be removed (see docs/collectors/probe.md).
 *
 * Every datagram is exactly PROBE_DISC_LEN (64) bytes, query and answer
 * alike, so an answer is never larger than the query that caused it (no
 * amplification for a spoofed source). Integers in network byte order.
 *
 *   offset size field        query                    answer
 *   ------ ---- ------------ ------------------------ --------------------------
 *        0    4 magic        0x52445851 "RDXQ"        same
 *        4    1 version      1                        same
 *        5    1 type         1 (query)                2 (answer)
 *        6    1 flags        0                        bit 0: gid is the address
 *                                                     the query was sent to
 *        7    1 port         0                        responder's port number
 *        8    8 nonce        prober's random value    echoed
 *       16   16 gid          0                        responder port's GID
 *       32    4 qpn          0                        responder's UD QP number
 *                                                     (24 bits, top byte 0)
 *       36    4 qkey         0                        Q_Key of that QP
 *       40    2 lid          0                        port LID (InfiniBand), or 0
 *       42    1 link_layer   0                        1 InfiniBand, 2 Ethernet
 *       43    1 reserved     0                        0
 *       44    4 session      prober's session id      responder's session id
 *       48   16 reserved     0                        0
 *
 * Decoding checks, in this order: magic (-EBADMSG), version (-EPROTO),
 * length (-EMSGSIZE: exactly 64), type (-EPROTO), and for an answer: qpn
 * within 24 bits and not 0 or 1 (QP0/QP1 are the management QPs), link_layer
 * 1 or 2 (-EPROTO). Reserved bytes and unknown flag bits are not checked.
 */
#ifndef RDMA_EXPORTER_PROBE_DISCOVERY_H
#define RDMA_EXPORTER_PROBE_DISCOVERY_H

#include <stddef.h>
#include <stdint.h>

#define PROBE_DISC_LEN	   64
#define PROBE_DISC_MAGIC   0x52445851u /* "RDXQ" */
#define PROBE_DISC_VERSION 1

enum probe_disc_type {
	PROBE_DISC_QUERY = 1,
	PROBE_DISC_ANSWER = 2,
};

#define PROBE_DISC_F_MATCHED 0x01 /* answer: gid is the queried address */

enum probe_disc_link {
	PROBE_DISC_LINK_IB = 1,
	PROBE_DISC_LINK_ETH = 2,
};

struct probe_disc {
	uint8_t type; /* enum probe_disc_type */
	uint8_t flags;
	uint8_t port;
	uint64_t nonce;
	uint8_t gid[16];
	uint32_t qpn;
	uint32_t qkey;
	uint16_t lid;
	uint8_t link_layer; /* enum probe_disc_link; 0 in a query */
	uint32_t session;
};

/* Writes d into buf (size >= PROBE_DISC_LEN; exactly 64 bytes written,
 * reserved ones zeroed; for a query the answer-only fields are written as 0
 * whatever d holds). Returns PROBE_DISC_LEN, -EMSGSIZE when size is short,
 * -EINVAL when d->type is neither query nor answer, or an answer fails the
 * qpn/link_layer checks above. */
int probe_disc_encode(const struct probe_disc *d, void *buf, size_t size);

/* Reads a received datagram of len bytes into *d (untouched on error).
 * Returns 0, -EBADMSG, -EPROTO or -EMSGSIZE (see the order above). */
int probe_disc_decode(const void *buf, size_t len, struct probe_disc *d);

#endif
