/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Driver statistics through the SIOCETHTOOL ioctl on one AF_INET datagram
 * socket opened once: ETHTOOL_GDRVINFO, ETHTOOL_GSSET_INFO (ETH_SS_STATS),
 * ETHTOOL_GSTRINGS and ETHTOOL_GSTATS, and the module EEPROM of kernels
 * without ethtool netlink (ETHTOOL_GMODULEINFO, ETHTOOL_GMODULEEEPROM). Nothing
 * here logs.
 *
 * The kernel writes as many strings / values as the driver reports at the
 * time of each call, whatever length the caller asked for; a driver whose
 * count grew between two calls would write past a buffer sized for the old
 * count. Buffers here are allocated with room to spare (ETH_IOCTL_SLACK) and
 * the count the kernel returns is checked before anything is read.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_IOCTL_H
#define RDMA_EXPORTER_ETHTOOL_IOCTL_H

#include <stddef.h>
#include <stdint.h>

#define ETH_NAME_LEN	   32 /* ETH_GSTRING_LEN */
#define ETH_IOCTL_MAX	   65536
#define ETH_IOCTL_SLACK(n) ((n) + (n) / 2 + 256)

struct eth_drvinfo {
	char driver[32], version[32], fw_version[32], bus_info[32];
};

/* A socket for the ioctls: fd, or -errno. */
int eth_ioctl_socket(void);
int eth_ioctl_drvinfo(int fd, const char *ifname, struct eth_drvinfo *out);
/* Number of ETH_SS_STATS strings: 0, -EOPNOTSUPP (no driver stats), -ENODEV, -errno. */
int eth_ioctl_stats_count(int fd, const char *ifname, uint32_t *n);
/*
 * Reads the names. *names is malloc'd, *n entries of ETH_NAME_LEN bytes, each
 * NUL-terminated here. `expect` sizes the buffer (ETH_IOCTL_SLACK(expect)).
 * Returns 0, -EOVERFLOW when the driver now has more than the buffer held,
 * or -errno.
 */
int eth_ioctl_strings(int fd, const char *ifname, uint32_t expect, char **names, uint32_t *n);
/* Reads the values into vals (room for cap values): *n is what the kernel
 * returned. 0, -EOVERFLOW (more than cap), or -errno. */
int eth_ioctl_stats(int fd, const char *ifname, uint64_t *vals, uint32_t cap, uint32_t *n);

/* ETHTOOL_GMODULEINFO: the layout (ETH_MODULE_SFF_*) and length of the
 * module's flat EEPROM image. 0 or -errno (-EOPNOTSUPP: no module access). */
int eth_ioctl_module_info(int fd, const char *ifname, uint32_t *type, uint32_t *len);
/* ETHTOOL_GMODULEEEPROM: len (at most 256) bytes at offset of that image into out. */
int eth_ioctl_module_eeprom(int fd, const char *ifname, uint32_t offset, uint32_t len,
			    uint8_t *out);

#endif
