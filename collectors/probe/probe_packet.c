// SPDX-License-Identifier: Apache-2.0
#include "probe_packet.h"

#include <errno.h>
#include <string.h>

#include "probe_wire.h"

/* Field offsets, as in the table of probe_packet.h. */
enum {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_TYPE = 5,
	OFF_FLAGS = 6,
	OFF_SEQ = 8,
	OFF_SEND_NS = 16,
	OFF_SESSION = 24,
	OFF_RESPONDER = 28,
	OFF_RESP_RX_NS = 32,
	OFF_RESP_TX_NS = 40,
	OFF_SPIN_US = 48,
	OFF_RESERVED = 52,
};

_Static_assert(OFF_RESERVED + 12 == PROBE_PACKET_LEN, "layout and length disagree");

static int valid_type(uint8_t type)
{
	return type == PROBE_PACKET_REQUEST || type == PROBE_PACKET_REPLY;
}

int probe_packet_encode(const struct probe_packet *p, void *buf, size_t size)
{
	uint8_t *b = buf;

	if (size < PROBE_PACKET_LEN)
		return -EMSGSIZE;
	if (!valid_type(p->type))
		return -EINVAL;
	put_be(b + OFF_MAGIC, PROBE_PACKET_MAGIC, 4);
	b[OFF_VERSION] = PROBE_PACKET_VERSION;
	b[OFF_TYPE] = p->type;
	put_be(b + OFF_FLAGS, p->flags, 2);
	put_be(b + OFF_SEQ, p->seq, 8);
	put_be(b + OFF_SEND_NS, p->send_ns, 8);
	put_be(b + OFF_SESSION, p->session, 4);
	put_be(b + OFF_RESPONDER, p->responder, 4);
	put_be(b + OFF_RESP_RX_NS, p->resp_rx_ns, 8);
	put_be(b + OFF_RESP_TX_NS, p->resp_tx_ns, 8);
	put_be(b + OFF_SPIN_US, p->spin_us, 4);
	memset(b + OFF_RESERVED, 0, PROBE_PACKET_LEN - OFF_RESERVED);
	return PROBE_PACKET_LEN;
}

/* The checks of decode, in order, without filling anything. */
static int check(const uint8_t *b, size_t len)
{
	if (len < 4 || get_be(b + OFF_MAGIC, 4) != PROBE_PACKET_MAGIC)
		return -EBADMSG;
	if (len <= OFF_VERSION)
		return -EMSGSIZE;
	if (b[OFF_VERSION] != PROBE_PACKET_VERSION)
		return -EPROTO;
	if (len != PROBE_PACKET_LEN)
		return -EMSGSIZE;
	if (!valid_type(b[OFF_TYPE]))
		return -EPROTO;
	return 0;
}

int probe_packet_decode(const void *buf, size_t len, struct probe_packet *p)
{
	const uint8_t *b = buf;
	int rc = check(b, len);

	if (rc)
		return rc;
	p->type = b[OFF_TYPE];
	p->flags = (uint16_t)get_be(b + OFF_FLAGS, 2);
	p->seq = get_be(b + OFF_SEQ, 8);
	p->send_ns = get_be(b + OFF_SEND_NS, 8);
	p->session = (uint32_t)get_be(b + OFF_SESSION, 4);
	p->responder = (uint32_t)get_be(b + OFF_RESPONDER, 4);
	p->resp_rx_ns = get_be(b + OFF_RESP_RX_NS, 8);
	p->resp_tx_ns = get_be(b + OFF_RESP_TX_NS, 8);
	p->spin_us = (uint32_t)get_be(b + OFF_SPIN_US, 4);
	return 0;
}

int probe_packet_make_reply(void *buf, size_t len, uint32_t responder, uint64_t rx_ns,
			    uint64_t tx_ns, uint16_t set_flags)
{
	uint8_t *b = buf;
	int rc = check(b, len);

	if (rc)
		return rc;
	if (b[OFF_TYPE] != PROBE_PACKET_REQUEST)
		return -EPROTO;
	b[OFF_TYPE] = PROBE_PACKET_REPLY;
	put_be(b + OFF_FLAGS, get_be(b + OFF_FLAGS, 2) | set_flags, 2);
	put_be(b + OFF_RESPONDER, responder, 4);
	put_be(b + OFF_RESP_RX_NS, rx_ns, 8);
	put_be(b + OFF_RESP_TX_NS, tx_ns, 8);
	memset(b + OFF_SPIN_US, 0, PROBE_PACKET_LEN - OFF_SPIN_US);
	return 0;
}

void probe_packet_split_rtt(const struct probe_packet *reply, uint64_t rtt_ns,
			    struct probe_rtt_split *out)
{
	uint64_t turn = 0;

	*out = (struct probe_rtt_split){0};
	if (reply->resp_tx_ns >= reply->resp_rx_ns)
		turn = reply->resp_tx_ns - reply->resp_rx_ns;
	else
		out->bad_readings = true;
	if (turn > rtt_ns) {
		turn = rtt_ns;
		out->clamped = true;
	}
	out->turnaround_ns = turn;
	out->network_ns = rtt_ns - turn;
}
