/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The two netlink sources of the ethtool collector:
 *  - standard pause statistics: the "ethtool" generic netlink family,
 *    ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS in the request header
 *    (ETHTOOL_A_PAUSE_STATS: ETHTOOL_A_PAUSE_STAT_TX_FRAMES / _RX_FRAMES);
 *  - PFC configuration and counters: DCB over rtnetlink, RTM_GETDCB with
 *    DCB_CMD_IEEE_GET (DCB_ATTR_IEEE -> DCB_ATTR_IEEE_PFC: struct ieee_pfc,
 *    pfc_en bitmap and requests[8] / indications[8]);
 *  - pluggable module EEPROM pages: ETHTOOL_MSG_MODULE_EEPROM_GET (Linux 5.13
 *    and later), one page (or half page) of at most 128 bytes per request.
 * Builders and parsers are pure (bytes in, structs out); eth_nl_* do the I/O on
 * sockets opened once. Nothing here logs.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_NL_H
#define RDMA_EXPORTER_ETHTOOL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#define ETH_PRIORITIES 8

struct eth_pause_stats {
	bool have_tx, have_rx; /* the driver reported that counter */
	uint64_t tx_frames, rx_frames;
};

struct eth_pfc {
	uint8_t pfc_en; /* bit i: PFC enabled on priority i */
	uint64_t requests[ETH_PRIORITIES];
	uint64_t indications[ETH_PRIORITIES];
};

/* One module EEPROM read: the kernel refuses reads that cross a half page
 * (offset < 128 and offset + length > 128) or a page (offset + length > 256). */
#define ETH_MODULE_READ_MAX 128

struct eth_module_req {
	uint8_t i2c;	 /* 7-bit I2C address: 0x50 (A0h), 0x51 (SFF-8472 A2h) */
	uint8_t page;	 /* page select */
	uint8_t bank;	 /* bank select (CMIS pages 10h-ffh) */
	uint32_t offset; /* 0..255 */
	uint32_t length; /* 1..ETH_MODULE_READ_MAX */
};

struct eth_module_data {
	uint32_t len; /* bytes in data */
	uint8_t data[ETH_MODULE_READ_MAX];
};

/* ---- pure builders and parsers ------------------------------------------------------- */

/* CTRL_CMD_GETFAMILY for "ethtool". Returns the length or -EMSGSIZE. */
int eth_build_genl_family_request(void *buf, size_t size, uint32_t seq);
/* The family id from a CTRL_CMD_NEWFAMILY reply: 0 and *id, or -errno. */
int eth_parse_genl_family_reply(const struct nlmsghdr *nlh, uint16_t *id);

/* ETHTOOL_MSG_PAUSE_GET for ifname with ETHTOOL_FLAG_STATS. Length or -EMSGSIZE. */
int eth_build_pause_request(void *buf, size_t size, uint16_t family, uint32_t seq,
			    const char *ifname);
/* An ETHTOOL_MSG_PAUSE_GET_REPLY: 0 (fields the driver lacks stay have_* false), or -EBADMSG. */
int eth_parse_pause_reply(const struct nlmsghdr *nlh, struct eth_pause_stats *out);

/* RTM_GETDCB DCB_CMD_IEEE_GET for ifname. Length or -EMSGSIZE. */
int eth_build_dcb_ieee_request(void *buf, size_t size, uint32_t seq, const char *ifname);
/*
 * An RTM_GETDCB DCB_CMD_IEEE_GET reply: 0 with *out filled, -ENODATA when it
 * carries no DCB_ATTR_IEEE_PFC (DCB without PFC), -EOPNOTSUPP when the reply
 * says the device has no DCB (DCB_ATTR_IEEE missing / dcbnl_ops absent), or
 * -EBADMSG.
 */
int eth_parse_dcb_ieee_reply(const struct nlmsghdr *nlh, struct eth_pfc *out);

/* ETHTOOL_MSG_MODULE_EEPROM_GET for ifname. Length, -EINVAL (a read the kernel
 * would refuse, a bad name) or -EMSGSIZE. */
int eth_build_module_eeprom_request(void *buf, size_t size, uint16_t family, uint32_t seq,
				    const char *ifname, const struct eth_module_req *req);
/* An ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY: 0 with out->len bytes of
 * ETHTOOL_A_MODULE_EEPROM_DATA, or -EBADMSG (no data, more than
 * ETH_MODULE_READ_MAX bytes, malformed). */
int eth_parse_module_eeprom_reply(const struct nlmsghdr *nlh, struct eth_module_data *out);

/* ---- I/O --------------------------------------------------------------------------- */

struct eth_nl;

/* Opens the generic netlink and rtnetlink sockets (SOCK_CLOEXEC) and resolves
 * the ethtool family. NULL only on ENOMEM; a kernel without the ethtool
 * family or DCB is reported by the calls below. */
struct eth_nl *eth_nl_open(void);
void eth_nl_free(struct eth_nl *n);

/* 0, or -EOPNOTSUPP (no ethtool netlink, or the driver has no pause stats),
 * -ENODEV (no such netdev), -ETIMEDOUT (no answer in timeout_ms), -errno. */
int eth_nl_pause(struct eth_nl *n, const char *ifname, struct eth_pause_stats *out, int timeout_ms);
/* 0, -EOPNOTSUPP (no DCB on the netdev or kernel), -ENODATA (DCB without PFC),
 * -ENODEV, -ETIMEDOUT, -errno. */
int eth_nl_pfc(struct eth_nl *n, const char *ifname, struct eth_pfc *out, int timeout_ms);

struct eth_fec; /* ethtool_fec.h */
/* ETHTOOL_MSG_FEC_GET with statistics (issue 32): 0, or -EOPNOTSUPP (no
 * get_fecparam in the driver, or a kernel without FEC over netlink), -ENODEV,
 * -ETIMEDOUT, -EBADMSG, -errno. */
int eth_nl_fec(struct eth_nl *n, const char *ifname, struct eth_fec *out, int timeout_ms);
/* Exactly req->length bytes into out: 0, -EOPNOTSUPP (no ethtool netlink,
 * a kernel without the command, a driver without module access), -ENODEV,
 * -ETIMEDOUT, -EBADMSG (a reply of another length), or the driver's -errno
 * (see module_read.h for what they mean). */
int eth_nl_module_eeprom(struct eth_nl *n, const char *ifname, const struct eth_module_req *req,
			 uint8_t *out, int timeout_ms);

#endif
