/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pure LLDP decoder (IEEE 802.1AB-2016, clause 8): bytes of one received
 * Ethernet frame in, the neighbour's identity out, as label-safe text. No
 * I/O, no globals, no logging; fuzzed by tests/fuzz/fuzz_lldp.c.
 *
 * An LLDPDU is a run of TLVs, each a 16-bit header (7-bit type, 9-bit
 * length) and its value. The first three must be Chassis ID (type 1), Port ID
 * (type 2) and Time To Live (type 3), in that order (8.2); a frame without
 * them is discarded, as 802.1AB receivers do (9.2.7.7.1). Port Description
 * (4) and System Name (5) are optional; other TLVs (system description,
 * capabilities, management address, organisationally specific) are skipped.
 * The End TLV (type 0) or the end of the bytes at a TLV boundary ends it.
 */
#ifndef RDMA_EXPORTER_LLDP_PARSE_H
#define RDMA_EXPORTER_LLDP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define LLDP_ETHERTYPE 0x88cc
/* Longest label value we make of a TLV, in bytes (without the NUL). */
#define LLDP_LABEL_MAX 128
/* Longest ID value after the subtype byte (8.5.2.3, 8.5.3.3: 1 to 255). */
#define LLDP_ID_MAX 255

/* Chassis ID subtypes (802.1AB 8.5.2.2, table 8-2). */
enum lldp_chassis_subtype {
	LLDP_CHASSIS_COMPONENT = 1,
	LLDP_CHASSIS_IFALIAS = 2,
	LLDP_CHASSIS_PORT_COMPONENT = 3,
	LLDP_CHASSIS_MAC = 4,
	LLDP_CHASSIS_NETADDR = 5,
	LLDP_CHASSIS_IFNAME = 6,
	LLDP_CHASSIS_LOCAL = 7,
};

/* Port ID subtypes (802.1AB 8.5.3.2, table 8-3). */
enum lldp_port_subtype {
	LLDP_PORT_IFALIAS = 1,
	LLDP_PORT_COMPONENT = 2,
	LLDP_PORT_MAC = 3,
	LLDP_PORT_NETADDR = 4,
	LLDP_PORT_IFNAME = 5,
	LLDP_PORT_CIRCUIT_ID = 6,
	LLDP_PORT_LOCAL = 7,
};

struct lldp_neighbor {
	uint8_t chassis_subtype, port_subtype;
	uint16_t ttl_s; /* 0: the neighbour is shutting down, forget it now */
	/* The IDs as sent (subtype byte excluded, 1 to LLDP_ID_MAX bytes): the
	 * neighbour's identity (802.1AB's MSAP identifier). The labels below
	 * are cut and sanitised, so two distinct IDs can print alike. */
	uint8_t chassis_raw_len, port_raw_len;
	uint8_t chassis_raw[LLDP_ID_MAX], port_raw[LLDP_ID_MAX];
	/* NUL-terminated, printable ASCII only, at most LLDP_LABEL_MAX bytes */
	char chassis_id[LLDP_LABEL_MAX + 1];
	char port_id[LLDP_LABEL_MAX + 1];
	char port_description[LLDP_LABEL_MAX + 1]; /* "" when absent */
	char system_name[LLDP_LABEL_MAX + 1];	   /* "" when absent */
};

/*
 * Decodes an LLDPDU (the bytes after the Ethernet header). 0, or -EBADMSG
 * (malformed: truncated TLV, mandatory TLVs missing, out of order, repeated
 * or of a wrong length); out is untouched on error.
 */
int lldp_parse_pdu(const uint8_t *pdu, size_t len, struct lldp_neighbor *out);

/* Whether a and b are the same neighbour: the same chassis ID and port ID
 * subtypes and bytes, whatever their labels. */
int lldp_same_msap(const struct lldp_neighbor *a, const struct lldp_neighbor *b);

/*
 * Decodes a whole untagged Ethernet frame as a packet socket (SOCK_RAW)
 * delivers it: -EPROTO when it is not LLDP (ethertype other than 0x88cc, or a
 * destination other than the three LLDP multicast addresses of 802.1AB
 * 7.1), else as lldp_parse_pdu.
 */
int lldp_parse_frame(const uint8_t *frame, size_t len, struct lldp_neighbor *out);

/*
 * An ID TLV's value (subtype byte excluded) as label text into out (size >=
 * LLDP_LABEL_MAX + 1): a MAC address subtype of 6 bytes as aa:bb:cc:dd:ee:ff,
 * a network address (IANA family 1 IPv4, 2 IPv6) as its usual text, printable
 * ASCII as it is, anything else as colon-separated hex; cut at
 * LLDP_LABEL_MAX. is_mac/is_netaddr say what the subtype means.
 */
void lldp_format_id(const uint8_t *v, size_t len, int is_mac, int is_netaddr, char *out);

/* Free text (names, descriptions): printable ASCII kept, every other byte
 * becomes '?', cut at LLDP_LABEL_MAX; out has LLDP_LABEL_MAX + 1 bytes. */
void lldp_format_text(const uint8_t *v, size_t len, char *out);

#endif
