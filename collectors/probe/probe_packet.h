/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Wire format of the RDMA latency probe, carried in one UD SEND. Pure
 * encode and decode: no I/O, no clock (timestamps are the caller's).
 *
 * Every packet is exactly PROBE_PACKET_LEN (64) bytes, integers in network
 * byte order (big endian). On a UD receive the 40-byte GRH comes first in
 * the buffer; the caller strips it and passes the rest.
 *
 *   offset size field          request                  reply
 *   ------ ---- -------------- ------------------------ ------------------------
 *        0    4 magic          0x52445850 "RDXP"        same
 *        4    1 version        1                        same
 *        5    1 type           1 (request)              2 (reply)
 *        6    2 flags          bit 0: wake-up           echoed; bit 1 set: NIC clock
 *        8    8 seq            sender's sequence        echoed
 *       16    8 send_ns        sender's clock, ns       echoed
 *       24    4 session        sender's random id       echoed
 *       28    4 responder      0                        responder's id
 *       32    8 resp_rx_ns     0                        responder clock at rx, ns
 *       40    8 resp_tx_ns     0                        responder clock at tx, ns
 *       48    4 spin_us        wake-up: how long the     0
 *                               responder should poll, us
 *                               (0: its default)
 *       52   12 reserved       0                        0
 *
 * The requester measures RTT on its own clock (now - send_ns) and may
 * subtract the responder's turnaround (resp_tx_ns - resp_rx_ns, one clock
 * too): the two clocks are never compared with each other. session lets a
 * restarted requester drop replies meant for its previous run, seq those
 * of earlier rounds.
 *
 * Flags (in version 1, ignored by peers that know none): a request with
 * PROBE_PACKET_F_WAKEUP is a wake-up sent just before a probe, whose reply
 * is not measured (probe_engine.c); its responder keeps polling after it.
 * A reply with PROBE_PACKET_F_NIC_CLOCK carries readings of the responder's
 * NIC clock (completion timestamps), without it of its CLOCK_MONOTONIC.
 * spin_us was reserved (zero) before: a wake-up from an older prober asks
 * for the responder's default, and older responders ignore it.
 *
 * Decoding checks, in this order: magic (-EBADMSG: not ours, a foreign or
 * garbled packet), version (-EPROTO: a later version may have another
 * length, so it is checked before the length), length (-EMSGSIZE: exactly
 * 64 bytes), type (-EPROTO). Flags and reserved bytes are not checked, so
 * that version 1 peers can grow into them.
 */
#ifndef RDMA_EXPORTER_PROBE_PACKET_H
#define RDMA_EXPORTER_PROBE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_PACKET_LEN     64
#define PROBE_PACKET_MAGIC   0x52445850u /* "RDXP" in network order */
#define PROBE_PACKET_VERSION 1

#define PROBE_PACKET_F_WAKEUP	 0x0001u /* request: a wake-up, echoed in its reply */
#define PROBE_PACKET_F_NIC_CLOCK 0x0002u /* reply: the readings are the NIC clock's */

enum probe_packet_type {
	PROBE_PACKET_REQUEST = 1,
	PROBE_PACKET_REPLY = 2,
};

/*
 * Q_Key of the probe's UD QPs: librdmacm's RDMA_UDP_QKEY (0x01234567 in
 * <rdma/rdma_cma.h>), the Q_Key that rdma_cm gives every RDMA_PS_UDP QP.
 * Using it keeps the prober and responder interoperable with peers that set
 * up their UD QP and address handle through rdma_cm (rdma_join/resolve and
 * rdma_get_request), and any tool that speaks rdma_cm UD can reach the
 * responder. Its high bit is clear: Q_Keys with bit 31 set are controlled
 * keys that only privileged processes may send with (0x80010000 is the
 * well-known GSI Q_Key of QP1), and the exporter should not need that.
 * The Q_Key does not tell our traffic from other rdma_cm UD users: the
 * magic does, and everything without it is dropped.
 */
#define PROBE_QKEY 0x01234567u

struct probe_packet {
	uint8_t type; /* enum probe_packet_type */
	uint16_t flags;
	uint64_t seq;
	uint64_t send_ns;
	uint32_t session;
	uint32_t responder;
	uint64_t resp_rx_ns, resp_tx_ns;
	uint32_t spin_us; /* request: the poll a wake-up asks for; 0 in replies */
};

/* Writes p into buf (size at least PROBE_PACKET_LEN; only the first 64 bytes
 * are written, reserved ones zeroed). Returns PROBE_PACKET_LEN, -EMSGSIZE
 * when size is short, -EINVAL when p->type is neither request nor reply. */
int probe_packet_encode(const struct probe_packet *p, void *buf, size_t size);

/* Reads a received packet of len bytes into *p (untouched on error).
 * Returns 0, -EBADMSG, -EPROTO or -EMSGSIZE (see the order above). */
int probe_packet_decode(const void *buf, size_t len, struct probe_packet *p);

/*
 * The responder's step: turns the valid request in buf into its reply in
 * place (type, responder, resp_rx_ns, resp_tx_ns set, set_flags or-ed into
 * the flags, spin_us and reserved zeroed; the rest echoed byte for byte). Returns 0, a
 * decode error, or -EPROTO when the packet is a reply (never answer a
 * reply: two responders would loop).
 */
int probe_packet_make_reply(void *buf, size_t len, uint32_t responder, uint64_t rx_ns,
			    uint64_t tx_ns, uint16_t set_flags);

/*
 * A reply's round trip, split into the network's part and the responder's
 * turnaround (R-Pingmesh): rtt_ns is measured on the requester's clock, the
 * turnaround is resp_tx_ns - resp_rx_ns on the responder's, so the two
 * clocks are never compared, only their rates (a few ppm apart: noise).
 *
 * The parts always add up to rtt_ns: a turnaround longer than the round
 * trip (a responder whose clock runs faster, or whose readings are not what
 * they say) is cut to rtt_ns and the network part is 0; clamped says so.
 * A reply whose tx reading is before its rx reading (garbled, or a
 * responder that does not fill them) has no turnaround: the whole round
 * trip is the network's, and bad_readings says so.
 */
struct probe_rtt_split {
	uint64_t network_ns, turnaround_ns;
	bool clamped, bad_readings;
};

void probe_packet_split_rtt(const struct probe_packet *reply, uint64_t rtt_ns,
			    struct probe_rtt_split *out);

#endif
