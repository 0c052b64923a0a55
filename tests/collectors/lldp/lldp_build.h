/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Builds LLDP frames for the tests: an Ethernet header to 01:80:c2:00:00:0e
 * with ethertype 0x88cc, then TLVs appended one by one (802.1AB 8.4: 7-bit
 * type, 9-bit length, value).
 */
#ifndef RDMA_EXPORTER_TESTS_LLDP_BUILD_H
#define RDMA_EXPORTER_TESTS_LLDP_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct lldp_frame {
	uint8_t b[2400]; /* longer than the 1500-byte MTU: jumbo LLDPDUs (issue 42) */
	size_t len;
};

static inline void lf_start(struct lldp_frame *f)
{
	static const uint8_t hdr[14] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02,
					0x00, 0x00, 0x00, 0x00, 0x01, 0x88, 0xcc};

	memcpy(f->b, hdr, sizeof(hdr));
	f->len = sizeof(hdr);
}

static inline void lf_tlv(struct lldp_frame *f, unsigned type, const void *v, size_t len)
{
	f->b[f->len++] = (uint8_t)(type << 1 | len >> 8);
	f->b[f->len++] = (uint8_t)(len & 0xff);
	if (len)
		memcpy(f->b + f->len, v, len);
	f->len += len;
}

/* An ID TLV (type 1 or 2): subtype byte, then the value. */
static inline void lf_id(struct lldp_frame *f, unsigned type, uint8_t subtype, const void *v,
			 size_t len)
{
	uint8_t tmp[300];

	tmp[0] = subtype;
	memcpy(tmp + 1, v, len);
	lf_tlv(f, type, tmp, len + 1);
}

static inline void lf_ttl(struct lldp_frame *f, uint16_t ttl)
{
	uint8_t v[2] = {(uint8_t)(ttl >> 8), (uint8_t)ttl};

	lf_tlv(f, 3, v, 2);
}

static inline void lf_end(struct lldp_frame *f)
{
	lf_tlv(f, 0, NULL, 0);
}

/* An ID TLV's whole value (subtype and bytes) for neighbours that differ
 * in it only; then the TTL and the system name. */
static inline void lf_neighbor(struct lldp_frame *f, uint8_t chassis_subtype, const void *chassis,
			       size_t chassis_len, const char *port, uint16_t ttl,
			       const char *sysname)
{
	lf_start(f);
	lf_id(f, 1, chassis_subtype, chassis, chassis_len);
	lf_id(f, 2, 5, port, strlen(port));
	lf_ttl(f, ttl);
	lf_tlv(f, 4, "uplink to node", 14);
	lf_tlv(f, 5, sysname, strlen(sysname));
	lf_end(f);
}

/* The usual switch frame: chassis MAC, port ifname, TTL, description, name. */
static inline void lf_switch(struct lldp_frame *f, const char *sysname, const char *port,
			     uint16_t ttl)
{
	static const uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x01};

	lf_start(f);
	lf_id(f, 1, 4, mac, 6);
	lf_id(f, 2, 5, port, strlen(port));
	lf_ttl(f, ttl);
	lf_tlv(f, 4, "uplink to node", 14);
	lf_tlv(f, 5, sysname, strlen(sysname));
	lf_end(f);
}

#endif
