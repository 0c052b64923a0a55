/* SPDX-License-Identifier: Apache-2.0 */
/*
 * <rdma/rdma_netlink.h>, plus the numbers of the SRQ dump where the build's
 * kernel headers predate it (Linux 5.15; Debian 11's linux-libc-dev is 5.10):
 * the release packages are built on Debian 11 and run on newer kernels, which
 * answer the SRQ dump. uapi numbers never change: these are the kernel's own,
 * and the anchors below fail the build if the old header is not the 5.10 one.
 * CMake defines RDMA_EXPORTER_HAVE_NLDEV_SRQ (1 or 0) from the header it finds.
 * NL_ATTR_MAX: the size of an attribute table that covers the SRQ attributes.
 * Macros only. Room rdmanl (src/rdmanl/, nldev_parse.h).
 */
#ifndef NLDEV_COMPAT_H
#define NLDEV_COMPAT_H

#include <rdma/rdma_netlink.h>

#if RDMA_EXPORTER_HAVE_NLDEV_SRQ
#define NL_ATTR_MAX RDMA_NLDEV_ATTR_MAX
#else
#define RDMA_NLDEV_CMD_RES_SRQ_GET    23
#define RDMA_NLDEV_ATTR_RES_SRQ	      88
#define RDMA_NLDEV_ATTR_RES_SRQ_ENTRY 89
_Static_assert(RDMA_NLDEV_CMD_RES_MR_GET_RAW == 21 && RDMA_NLDEV_ATTR_RES_RAW == 85,
	       "rdma_netlink.h is neither Linux 5.10's nor has the SRQ dump");
#define NL_ATTR_MAX		      (RDMA_NLDEV_ATTR_RES_SRQ_ENTRY + 1)
#endif

#endif
