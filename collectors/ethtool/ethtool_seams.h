/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ethtool collector's seams: every outside input it reads, as a table of
 * functions over one io handle, the real ones (ethtool_real.h) or a test's.
 * The collector owns the io handle it is given and frees it with free_io;
 * the functions are called from the collector's thread only.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_SEAMS_H
#define RDMA_EXPORTER_ETHTOOL_SEAMS_H

#include <stddef.h>
#include <stdint.h>

#include "ethtool_fec.h"
#include "ethtool_ioctl.h"
#include "ethtool_nl.h"
#include "module_eeprom.h"

/* Every outside input of the collector, replaceable in tests. Functions
 * return 0 or -errno like their real counterparts. */
struct ethtool_seams {
	void *io;
	/* Names of all netdevs of this network namespace; *names NULL-terminated,
	 * freed by the caller with free() on each and on the array. */
	int (*list_netdevs)(void *io, char ***names, size_t *n);
	int (*drvinfo)(void *io, const char *ifname, struct eth_drvinfo *out);
	int (*stats_count)(void *io, const char *ifname, uint32_t *n);
	int (*strings)(void *io, const char *ifname, uint32_t expect, char **names, uint32_t *n);
	int (*stats)(void *io, const char *ifname, uint64_t *vals, uint32_t cap, uint32_t *n);
	int (*pause)(void *io, const char *ifname, struct eth_pause_stats *out);
	int (*pfc)(void *io, const char *ifname, struct eth_pfc *out);
	/* ETHTOOL_MSG_FEC_GET with statistics; NULL: no FEC source. */
	int (*fec)(void *io, const char *ifname, struct eth_fec *out);
	/* One 128-byte module EEPROM page (module_read.h); NULL: no module reads. */
	int (*module_page)(void *io, const char *ifname, const struct module_page_addr *a,
			   uint8_t *buf);
	void (*free_io)(void *io);
};

#endif
