// SPDX-License-Identifier: Apache-2.0
/*
 * Module EEPROM reads, page by page (module_read.h): the lower page tells
 * whether a module is there and which further pages it has; nothing beyond
 * those is asked for.
 */
#include "module_read.h"

#include <errno.h>
#include <string.h>

#include <linux/ethtool.h>

#include "ethtool_ioctl.h"

enum module_error_kind module_lower_error_kind(int r)
{
	switch (r) {
	case -EOPNOTSUPP:
		return MODULE_ERR_UNSUPPORTED;
	case -EPERM:
	case -EACCES:
		return MODULE_ERR_NOT_PERMITTED;
	case -ENODEV:
	case -ENXIO:
	case -EIO:
	case -EREMOTEIO:
	case -EINVAL:
	case -ENODATA:
	case -EAGAIN:
	case -EBUSY:
		return MODULE_ERR_NO_MODULE;
	default:
		return MODULE_ERR_FAILURE;
	}
}

int module_read(module_page_fn read_page, void *io, const char *ifname, struct module_info *out,
		unsigned *failed_pages)
{
	static const struct module_page_addr lower_addr = {0x50, 0, 0, 0};
	uint8_t lower[MODULE_PAGE_LEN], pages[MODULE_PG_COUNT][MODULE_PAGE_LEN];
	struct module_pages p = {.lower = lower};
	unsigned wanted;
	int r;

	*failed_pages = 0;
	memset(out, 0, sizeof(*out));
	r = read_page(io, ifname, &lower_addr, lower);
	if (r < 0) {
		switch (module_lower_error_kind(r)) {
		case MODULE_ERR_UNSUPPORTED:
			return -EOPNOTSUPP;
		case MODULE_ERR_NOT_PERMITTED:
			return -EPERM;
		case MODULE_ERR_NO_MODULE:
			return -ENODATA;
		default:
			return r;
		}
	}
	if (!module_present(lower))
		return -ENODATA;
	wanted = module_pages_wanted(lower);
	for (int i = 0; i < MODULE_PG_COUNT; i++) {
		if (!(wanted & 1u << i))
			continue;
		r = read_page(io, ifname, &module_page_addrs[i], pages[i]);
		if (r == 0)
			p.page[i] = pages[i];
		else if (r != -EOPNOTSUPP && r != -EINVAL)
			(*failed_pages)++;
	}
	return module_parse(&p, out);
}

int module_flat_offset(uint32_t type, uint32_t len, const struct module_page_addr *a, uint32_t *off)
{
	uint32_t o;

	if (a->bank != 0)
		return -EOPNOTSUPP;
	switch (type) {
	case ETH_MODULE_SFF_8079:
	case ETH_MODULE_SFF_8472:
		if (a->page != 0 || (a->i2c != 0x50 && a->i2c != 0x51))
			return -EOPNOTSUPP;
		o = (a->i2c == 0x51 ? 256u : 0u) + a->offset;
		break;
	case ETH_MODULE_SFF_8436:
	case ETH_MODULE_SFF_8636:
		if (a->i2c != 0x50 || (a->page != 0 && a->offset < 128))
			return -EOPNOTSUPP;
		o = a->page == 0 ? a->offset : 128u * (a->page + 1u) + (a->offset - 128u);
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (o + MODULE_PAGE_LEN > len)
		return -EOPNOTSUPP;
	*off = o;
	return 0;
}

static int read_page_ioctl(int fd, const char *ifname, const struct module_page_addr *a,
			   uint8_t *buf)
{
	uint32_t type, len, off;
	int r = eth_ioctl_module_info(fd, ifname, &type, &len);

	if (r < 0)
		return r;
	r = module_flat_offset(type, len, a, &off);
	if (r < 0)
		return r;
	return eth_ioctl_module_eeprom(fd, ifname, off, MODULE_PAGE_LEN, buf);
}

int module_read_page_real(struct eth_nl *nl, int fd, const char *ifname,
			  const struct module_page_addr *a, uint8_t *buf, int timeout_ms)
{
	struct eth_module_req req = {
		.i2c = a->i2c,
		.page = a->page,
		.bank = a->bank,
		.offset = a->offset,
		.length = MODULE_PAGE_LEN,
	};
	int r = eth_nl_module_eeprom(nl, ifname, &req, buf, timeout_ms);

	/* No netlink command (before 5.13) or no ethtool netlink at all. */
	if (r == -EOPNOTSUPP && fd >= 0)
		r = read_page_ioctl(fd, ifname, a, buf);
	return r;
}
