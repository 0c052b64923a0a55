/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading a module's EEPROM page by page: the lower page first, then only the
 * pages that module has (module_pages_wanted()), each a 128-byte read through
 * a page reader (the seam: netlink with the ioctl fallback in the daemon,
 * recorded pages in tests). Nothing here logs.
 *
 * What an error on the lower page means (drivers differ; the kernel passes
 * their errno on):
 *  - -EOPNOTSUPP: no module EEPROM access on this netdev (veth, lo, virtio,
 *    a driver without get_module_info), or no netlink command and no ioctl;
 *  - -EPERM, -EACCES: not permitted (the kernel asks CAP_NET_ADMIN for module
 *    EEPROM reads, netlink and ioctl alike): a setup matter, not a failure;
 *  - -ENODEV, -ENXIO, -EIO, -EREMOTEIO, -EINVAL, -ENODATA, -EAGAIN, -EBUSY:
 *    no module in the cage (mlx5 answers an empty cage with -EIO from its
 *    MCIA register, bnxt_en with -EINVAL, SFP cages on phylink with -ENODEV or
 *    -EIO), or one still powering up: not a failure;
 *  - anything else (-ETIMEDOUT, -EBADMSG, -ENOBUFS, -EMSGSIZE, -ENOMEM, ...):
 *    a real failure.
 * On a later page, -EOPNOTSUPP and -EINVAL mean that page cannot be read
 * through this driver (the kernel's emulation over get_module_eeprom ends at
 * eeprom_len); other errors are failures; the module is decoded from the pages
 * that were read either way.
 */
#ifndef RDMA_EXPORTER_MODULE_READ_H
#define RDMA_EXPORTER_MODULE_READ_H

#include <stdint.h>

#include "ethtool_nl.h"
#include "module_eeprom.h"

/* Reads MODULE_PAGE_LEN bytes at a into buf: 0 or -errno. */
typedef int (*module_page_fn)(void *io, const char *ifname, const struct module_page_addr *a,
			      uint8_t *buf);

enum module_error_kind {
	MODULE_ERR_UNSUPPORTED,	  /* no module access on the netdev */
	MODULE_ERR_NOT_PERMITTED, /* no CAP_NET_ADMIN */
	MODULE_ERR_NO_MODULE,	  /* an empty cage (or a module powering up) */
	MODULE_ERR_FAILURE,	  /* a real failure: counted */
};

/* What an errno from the lower page read means (above). */
enum module_error_kind module_lower_error_kind(int r);

/*
 * Reads and decodes the module of ifname. 0 with *out; -EOPNOTSUPP (no module
 * access), -EPERM (not permitted), -ENODATA (no module), or another -errno (a real failure of the
 * lower page). *failed_pages counts the later pages that failed for real.
 */
int module_read(module_page_fn read_page, void *io, const char *ifname, struct module_info *out,
		unsigned *failed_pages);

/*
 * Where a page lies in the flat image of ETHTOOL_GMODULEEEPROM, given
 * ETHTOOL_GMODULEINFO's type and length: 0 with *off, or -EOPNOTSUPP when
 * that image does not hold it (SFF-8079/8472: A0h 0-255 then A2h 256-511;
 * SFF-8436/8636: lower page, upper page 00h, then upper pages 01h-03h at
 * 256, 384, 512; no banks, no CMIS pages beyond 00h).
 */
int module_flat_offset(uint32_t type, uint32_t len, const struct module_page_addr *a,
		       uint32_t *off);

/* The daemon's page reader: ETHTOOL_MSG_MODULE_EEPROM_GET, and where netlink
 * says -EOPNOTSUPP, the ioctls on fd. */
int module_read_page_real(struct eth_nl *nl, int fd, const char *ifname,
			  const struct module_page_addr *a, uint8_t *buf, int timeout_ms);

#endif
