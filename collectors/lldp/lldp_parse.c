// SPDX-License-Identifier: Apache-2.0
/* The pure LLDP decoder (lldp_parse.h). */
#include "lldp_parse.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

enum {
	TLV_END = 0,
	TLV_CHASSIS_ID = 1,
	TLV_PORT_ID = 2,
	TLV_TTL = 3,
	TLV_PORT_DESC = 4,
	TLV_SYSTEM_NAME = 5,
};

/* IANA address family numbers used by the network address subtypes. */
enum { IANA_AF_IPV4 = 1, IANA_AF_IPV6 = 2 };

static bool printable(const uint8_t *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (v[i] < 0x20 || v[i] > 0x7e)
			return false;
	return true;
}

void lldp_format_text(const uint8_t *v, size_t len, char *out)
{
	size_t n = len < LLDP_LABEL_MAX ? len : LLDP_LABEL_MAX;

	for (size_t i = 0; i < n; i++)
		out[i] = v[i] >= 0x20 && v[i] <= 0x7e ? (char)v[i] : '?';
	out[n] = '\0';
}

/* Colon-separated hex, cut at LLDP_LABEL_MAX on a whole byte. */
static void format_hex(const uint8_t *v, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t o = 0;

	for (size_t i = 0; i < len && o + (i ? 3 : 2) <= LLDP_LABEL_MAX; i++) {
		if (i)
			out[o++] = ':';
		out[o++] = digits[v[i] >> 4];
		out[o++] = digits[v[i] & 15];
	}
	out[o] = '\0';
}

static bool format_netaddr(const uint8_t *v, size_t len, char *out)
{
	char tmp[INET6_ADDRSTRLEN];

	if (len == 5 && v[0] == IANA_AF_IPV4)
		return inet_ntop(AF_INET, v + 1, tmp, sizeof(tmp)) &&
		       snprintf(out, LLDP_LABEL_MAX + 1, "%s", tmp) > 0;
	if (len == 17 && v[0] == IANA_AF_IPV6)
		return inet_ntop(AF_INET6, v + 1, tmp, sizeof(tmp)) &&
		       snprintf(out, LLDP_LABEL_MAX + 1, "%s", tmp) > 0;
	return false;
}

void lldp_format_id(const uint8_t *v, size_t len, int is_mac, int is_netaddr, char *out)
{
	if (is_mac && len == 6) {
		format_hex(v, len, out);
		return;
	}
	if (is_netaddr && format_netaddr(v, len, out))
		return;
	if (len && printable(v, len)) {
		lldp_format_text(v, len, out);
		return;
	}
	format_hex(v, len, out);
}

/* One ID TLV (subtype byte, then 1 to 255 bytes: 8.5.2, 8.5.3). */
static int parse_id(const uint8_t *v, size_t len, int mac_subtype, int net_subtype,
		    uint8_t *subtype, uint8_t *raw, uint8_t *raw_len, char *out)
{
	if (len < 2 || len > LLDP_ID_MAX + 1)
		return -EBADMSG;
	*subtype = v[0];
	*raw_len = (uint8_t)(len - 1);
	memcpy(raw, v + 1, len - 1);
	lldp_format_id(v + 1, len - 1, v[0] == mac_subtype, v[0] == net_subtype, out);
	return 0;
}

/* The TLV at pdu[*off]: its type, value and length; advances *off. */
static int next_tlv(const uint8_t *pdu, size_t len, size_t *off, unsigned *type, const uint8_t **v,
		    size_t *vlen)
{
	unsigned hdr;

	if (len - *off < 2)
		return -EBADMSG;
	hdr = (unsigned)pdu[*off] << 8 | pdu[*off + 1];
	*type = hdr >> 9;
	*vlen = hdr & 0x1ff;
	*off += 2;
	if (len - *off < *vlen)
		return -EBADMSG;
	*v = pdu + *off;
	*off += *vlen;
	return 0;
}

/* The optional TLVs after the mandatory three, up to End or the last byte. */
static int parse_optional(const uint8_t *pdu, size_t len, size_t off, struct lldp_neighbor *n)
{
	bool have_desc = false, have_name = false;

	while (off < len) {
		const uint8_t *v;
		unsigned type;
		size_t vlen;

		if (next_tlv(pdu, len, &off, &type, &v, &vlen))
			return -EBADMSG;
		if (type == TLV_END)
			return vlen == 0 ? 0 : -EBADMSG;
		if (type == TLV_CHASSIS_ID || type == TLV_PORT_ID || type == TLV_TTL)
			return -EBADMSG; /* mandatory TLVs appear once (8.2) */
		if (type == TLV_PORT_DESC) {
			if (have_desc)
				return -EBADMSG;
			have_desc = true;
			lldp_format_text(v, vlen, n->port_description);
		} else if (type == TLV_SYSTEM_NAME) {
			if (have_name)
				return -EBADMSG;
			have_name = true;
			lldp_format_text(v, vlen, n->system_name);
		}
	}
	return 0;
}

int lldp_parse_pdu(const uint8_t *pdu, size_t len, struct lldp_neighbor *out)
{
	struct lldp_neighbor n;
	const uint8_t *v;
	unsigned type;
	size_t off = 0, vlen;

	memset(&n, 0, sizeof(n));
	if (next_tlv(pdu, len, &off, &type, &v, &vlen) || type != TLV_CHASSIS_ID ||
	    parse_id(v, vlen, LLDP_CHASSIS_MAC, LLDP_CHASSIS_NETADDR, &n.chassis_subtype,
		     n.chassis_raw, &n.chassis_raw_len, n.chassis_id))
		return -EBADMSG;
	if (next_tlv(pdu, len, &off, &type, &v, &vlen) || type != TLV_PORT_ID ||
	    parse_id(v, vlen, LLDP_PORT_MAC, LLDP_PORT_NETADDR, &n.port_subtype, n.port_raw,
		     &n.port_raw_len, n.port_id))
		return -EBADMSG;
	/* TTL is two bytes (8.5.4); longer values are tolerated for extensions */
	if (next_tlv(pdu, len, &off, &type, &v, &vlen) || type != TLV_TTL || vlen < 2)
		return -EBADMSG;
	n.ttl_s = (uint16_t)(v[0] << 8 | v[1]);
	if (parse_optional(pdu, len, off, &n))
		return -EBADMSG;
	*out = n;
	return 0;
}

int lldp_parse_frame(const uint8_t *frame, size_t len, struct lldp_neighbor *out)
{
	/* 01:80:c2:00:00:{0e,03,00}: nearest bridge, non-TPMR bridge, customer bridge */
	static const uint8_t prefix[5] = {0x01, 0x80, 0xc2, 0x00, 0x00};

	if (len < 14 || memcmp(frame, prefix, sizeof(prefix)) != 0 ||
	    (frame[5] != 0x0e && frame[5] != 0x03 && frame[5] != 0x00))
		return -EPROTO;
	if (((unsigned)frame[12] << 8 | frame[13]) != LLDP_ETHERTYPE)
		return -EPROTO;
	return lldp_parse_pdu(frame + 14, len - 14, out);
}

int lldp_same_msap(const struct lldp_neighbor *a, const struct lldp_neighbor *b)
{
	return a->chassis_subtype == b->chassis_subtype && a->port_subtype == b->port_subtype &&
	       a->chassis_raw_len == b->chassis_raw_len && a->port_raw_len == b->port_raw_len &&
	       !memcmp(a->chassis_raw, b->chassis_raw, a->chassis_raw_len) &&
	       !memcmp(a->port_raw, b->port_raw, a->port_raw_len);
}
