/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A fake module EEPROM behind the page reader seam, shared by the module
 * tests: pages of one module built from the standards' field tables, handed
 * out the way the kernel does, as an ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY
 * built here and decoded by the real reply parser; errors per page.
 */
#ifndef RDMA_EXPORTER_TEST_MODULE_FAKE_H
#define RDMA_EXPORTER_TEST_MODULE_FAKE_H

#include <stdint.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "ethtool_nl.h"
#include "module_eeprom.h"

#define FAKE_MAX_READS 64

struct fake_module {
	uint8_t lower[MODULE_PAGE_LEN];
	uint8_t page[MODULE_PG_COUNT][MODULE_PAGE_LEN];
	int lower_err;		       /* answer to the lower page */
	int page_err[MODULE_PG_COUNT]; /* answer to each further page */
	int n_reads;
	struct module_page_addr reads[FAKE_MAX_READS];
};

static inline void fm_put8(uint8_t *page, unsigned off, uint8_t v)
{
	page[off & 0x7f] = v;
}

static inline void fm_put16(uint8_t *page, unsigned off, uint16_t v)
{
	page[off & 0x7f] = (uint8_t)(v >> 8);
	page[(off + 1) & 0x7f] = (uint8_t)v;
}

static inline void fm_put_str(uint8_t *page, unsigned off, unsigned len, const char *s)
{
	size_t n = strlen(s);

	for (unsigned i = 0; i < len; i++)
		fm_put8(page, off + i, i < n ? (uint8_t)s[i] : ' ');
}

/* A QSFP28 SR4 (SFF-8636, paged): 40 C, 3.3 V, lanes with Rx 0.5 mW + i, bias 7 mA,
 * Tx 0.6 mW; temperature thresholds 80/75/-5/-10 C. */
static inline void fm_qsfp28(struct fake_module *m)
{
	uint8_t *lo = m->lower, *up = m->page[MODULE_PG_UPPER00], *p3 = m->page[MODULE_PG_03];

	memset(m, 0, sizeof(*m));
	fm_put8(lo, 0, 0x11);
	fm_put16(lo, 22, 40 * 256);
	fm_put16(lo, 26, 33000);
	for (unsigned i = 0; i < 4; i++) {
		fm_put16(lo, 34 + 2 * i, (uint16_t)(5000 + i));
		fm_put16(lo, 42 + 2 * i, 3500);
		fm_put16(lo, 50 + 2 * i, 6000);
	}
	fm_put8(up, 128, 0x11);
	fm_put8(up, 130, 0x0c);
	fm_put_str(up, 148, 16, "Mellanox");
	fm_put_str(up, 168, 16, "MMA1B00-C100D");
	fm_put_str(up, 184, 2, "B2");
	fm_put_str(up, 196, 16, "MT2101FT00123");
	fm_put8(up, 220, 0x3c);
	fm_put16(p3, 128, 80 * 256);
	fm_put16(p3, 130, (uint16_t)(-10 * 256));
	fm_put16(p3, 132, 75 * 256);
	fm_put16(p3, 134, (uint16_t)(-5 * 256));
}

static inline int fm_page_index(const struct module_page_addr *a)
{
	if (a->i2c == 0x50 && a->page == 0 && a->offset == 0)
		return -1;
	for (int i = 0; i < MODULE_PG_COUNT; i++)
		if (memcmp(a, &module_page_addrs[i], sizeof(*a)) == 0)
			return i;
	return -2;
}

/* The page reader: the bytes travel through a built netlink reply. */
static inline int fm_read_page(void *io, const char *ifname, const struct module_page_addr *a,
			       uint8_t *buf)
{
	struct fake_module *m = io;
	union {
		unsigned char b[1024];
		uint64_t align;
	} u;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct nlattr *hdr;
	struct eth_module_data d;
	int i = fm_page_index(a), r;
	const uint8_t *src;

	if (m->n_reads < FAKE_MAX_READS)
		m->reads[m->n_reads] = *a;
	m->n_reads++;
	if (i == -2)
		return -EINVAL;
	r = i < 0 ? m->lower_err : m->page_err[i];
	if (r)
		return r;
	src = i < 0 ? m->lower : m->page[i];
	memset(&u, 0, sizeof(u));
	nlh = mnl_nlmsg_put_header(u.b);
	nlh->nlmsg_type = 27;
	g = mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN);
	g->cmd = ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_MODULE_EEPROM_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_nest_end(nlh, hdr);
	mnl_attr_put(nlh, ETHTOOL_A_MODULE_EEPROM_DATA, MODULE_PAGE_LEN, src);
	r = eth_parse_module_eeprom_reply(nlh, &d);
	if (r < 0)
		return r;
	if (d.len != MODULE_PAGE_LEN)
		return -EBADMSG;
	memcpy(buf, d.data, d.len);
	return 0;
}

#endif
