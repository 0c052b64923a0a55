// SPDX-License-Identifier: Apache-2.0
#include "probe_discovery.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "probe_wire.h"

/* Field offsets, as in the table of probe_discovery.h. */
enum {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_TYPE = 5,
	OFF_FLAGS = 6,
	OFF_PORT = 7,
	OFF_NONCE = 8,
	OFF_GID = 16,
	OFF_QPN = 32,
	OFF_QKEY = 36,
	OFF_LID = 40,
	OFF_LINK_LAYER = 42,
	OFF_RESERVED1 = 43,
	OFF_SESSION = 44,
	OFF_RESERVED2 = 48,
};

_Static_assert(OFF_RESERVED2 + 16 == PROBE_DISC_LEN, "layout and length disagree");

/* A QP number is 24 bits on the wire of every transport (BTH DestQP). */
#define QPN_MASK 0xffffffu

static bool valid_type(uint8_t type)
{
	return type == PROBE_DISC_QUERY || type == PROBE_DISC_ANSWER;
}

/* QP0 and QP1 are the SMI and GSI management QPs: never a probe target. */
static bool valid_qpn(uint32_t qpn)
{
	return qpn <= QPN_MASK && qpn > 1;
}

static bool valid_link(uint8_t link_layer)
{
	return link_layer == PROBE_DISC_LINK_IB || link_layer == PROBE_DISC_LINK_ETH;
}

int probe_disc_encode(const struct probe_disc *d, void *buf, size_t size)
{
	uint8_t *b = buf;

	if (size < PROBE_DISC_LEN)
		return -EMSGSIZE;
	if (!valid_type(d->type))
		return -EINVAL;
	if (d->type == PROBE_DISC_ANSWER && (!valid_qpn(d->qpn) || !valid_link(d->link_layer)))
		return -EINVAL;

	/* Zeroed first: reserved bytes, and all answer-only fields of a query. */
	memset(b, 0, PROBE_DISC_LEN);
	put_be(b + OFF_MAGIC, PROBE_DISC_MAGIC, 4);
	b[OFF_VERSION] = PROBE_DISC_VERSION;
	b[OFF_TYPE] = d->type;
	put_be(b + OFF_NONCE, d->nonce, 8);
	put_be(b + OFF_SESSION, d->session, 4);
	if (d->type != PROBE_DISC_ANSWER)
		return PROBE_DISC_LEN;
	b[OFF_FLAGS] = d->flags;
	b[OFF_PORT] = d->port;
	memcpy(b + OFF_GID, d->gid, sizeof(d->gid));
	put_be(b + OFF_QPN, d->qpn, 4);
	put_be(b + OFF_QKEY, d->qkey, 4);
	put_be(b + OFF_LID, d->lid, 2);
	b[OFF_LINK_LAYER] = d->link_layer;
	return PROBE_DISC_LEN;
}

/* The checks of decode, in the documented order, without filling anything.
 * The version comes before the length: a later version may be longer. */
static int check(const uint8_t *b, size_t len)
{
	if (len < 4 || get_be(b + OFF_MAGIC, 4) != PROBE_DISC_MAGIC)
		return -EBADMSG;
	if (len <= OFF_VERSION)
		return -EMSGSIZE;
	if (b[OFF_VERSION] != PROBE_DISC_VERSION)
		return -EPROTO;
	if (len != PROBE_DISC_LEN)
		return -EMSGSIZE;
	if (!valid_type(b[OFF_TYPE]))
		return -EPROTO;
	if (b[OFF_TYPE] != PROBE_DISC_ANSWER)
		return 0;
	if (!valid_qpn((uint32_t)get_be(b + OFF_QPN, 4)) || !valid_link(b[OFF_LINK_LAYER]))
		return -EPROTO;
	return 0;
}

int probe_disc_decode(const void *buf, size_t len, struct probe_disc *d)
{
	const uint8_t *b = buf;
	int rc = check(b, len);

	if (rc)
		return rc;
	/* A query's answer-only fields are not checked and read as 0, as its
	 * encoding writes them: what a prober left there means nothing. */
	memset(d, 0, sizeof(*d));
	d->type = b[OFF_TYPE];
	d->nonce = get_be(b + OFF_NONCE, 8);
	d->session = (uint32_t)get_be(b + OFF_SESSION, 4);
	if (d->type != PROBE_DISC_ANSWER)
		return 0;
	d->flags = b[OFF_FLAGS];
	d->port = b[OFF_PORT];
	memcpy(d->gid, b + OFF_GID, sizeof(d->gid));
	d->qpn = (uint32_t)get_be(b + OFF_QPN, 4);
	d->qkey = (uint32_t)get_be(b + OFF_QKEY, 4);
	d->lid = (uint16_t)get_be(b + OFF_LID, 2);
	d->link_layer = b[OFF_LINK_LAYER];
	return 0;
}
