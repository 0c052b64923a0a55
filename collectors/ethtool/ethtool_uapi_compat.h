/* SPDX-License-Identifier: Apache-2.0 */
/*
 * <linux/ethtool_netlink.h>, plus the numbers of ETHTOOL_MSG_FEC_GET and
 * ETHTOOL_MSG_MODULE_EEPROM_GET where the build's kernel headers predate them
 * (Linux 5.14 and 5.13; Debian 11's linux-libc-dev is 5.10): the release
 * packages are built on Debian 11 and run on newer kernels, which answer them
 * (older ones answer -EOPNOTSUPP, which the collector expects). uapi numbers
 * never change: these are the kernel's own, and the anchor below fails the
 * build if an old header is not the 5.10 one. CMake defines
 * RDMA_EXPORTER_HAVE_ETHTOOL_FEC and RDMA_EXPORTER_HAVE_ETHTOOL_MODULE_EEPROM
 * (1 or 0) from the header it finds.
 */
#ifndef ETHTOOL_UAPI_COMPAT_H
#define ETHTOOL_UAPI_COMPAT_H

#include <linux/ethtool_netlink.h>

#if !RDMA_EXPORTER_HAVE_ETHTOOL_FEC
_Static_assert(ETHTOOL_MSG_TUNNEL_INFO_GET == 28 && ETHTOOL_MSG_TUNNEL_INFO_GET_REPLY == 29,
	       "ethtool_netlink.h is neither Linux 5.10's nor has ETHTOOL_MSG_FEC_GET");
#define ETHTOOL_MSG_FEC_GET	     29
#define ETHTOOL_MSG_FEC_GET_REPLY    30
#define ETHTOOL_A_FEC_HEADER	     1
#define ETHTOOL_A_FEC_ACTIVE	     4
#define ETHTOOL_A_FEC_STATS	     5
#define ETHTOOL_A_FEC_STAT_PAD	     1
#define ETHTOOL_A_FEC_STAT_CORRECTED 2
#define ETHTOOL_A_FEC_STAT_UNCORR    3
#define ETHTOOL_A_FEC_STAT_CORR_BITS 4
#endif

#if !RDMA_EXPORTER_HAVE_ETHTOOL_MODULE_EEPROM
#define ETHTOOL_MSG_MODULE_EEPROM_GET	    31
#define ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY 32
#define ETHTOOL_A_MODULE_EEPROM_HEADER	    1
#define ETHTOOL_A_MODULE_EEPROM_OFFSET	    2
#define ETHTOOL_A_MODULE_EEPROM_LENGTH	    3
#define ETHTOOL_A_MODULE_EEPROM_PAGE	    4
#define ETHTOOL_A_MODULE_EEPROM_BANK	    5
#define ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS 6
#define ETHTOOL_A_MODULE_EEPROM_DATA	    7
#endif

#endif
