// SPDX-License-Identifier: Apache-2.0
/* The ethtool collector's real seams: SIOCETHTOOL ioctls, ethtool and DCB netlink, module EEPROM
 * pages. */
#include "ethtool_real.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ethtool_ioctl.h"
#include "ethtool_nl.h"
#include "module_read.h"

/* How long a netlink request may take before the read counts as failed. */
#define NL_TIMEOUT_MS 1000

struct real_io {
	int fd;
	struct eth_nl *nl;
};

static int real_list(void *io, char ***names, size_t *n)
{
	struct if_nameindex *ifs = if_nameindex(), *p;
	size_t k = 0;
	char **v;

	*names = NULL;
	*n = 0;
	if (!ifs)
		return -errno;
	for (p = ifs; p->if_index; p++)
		k++;
	v = calloc(k + 1, sizeof(*v));
	if (!v) {
		if_freenameindex(ifs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k; i++) {
		v[i] = strdup(ifs[i].if_name);
		if (!v[i]) {
			for (size_t j = 0; j < i; j++)
				free(v[j]);
			free(v);
			if_freenameindex(ifs);
			return -ENOMEM;
		}
	}
	if_freenameindex(ifs);
	*names = v;
	*n = k;
	return 0;
}

static int real_drvinfo(void *io, const char *ifname, struct eth_drvinfo *out)
{
	return eth_ioctl_drvinfo(((struct real_io *)io)->fd, ifname, out);
}

static int real_count(void *io, const char *ifname, uint32_t *n)
{
	return eth_ioctl_stats_count(((struct real_io *)io)->fd, ifname, n);
}

static int real_strings(void *io, const char *ifname, uint32_t expect, char **names, uint32_t *n)
{
	return eth_ioctl_strings(((struct real_io *)io)->fd, ifname, expect, names, n);
}

static int real_stats(void *io, const char *ifname, uint64_t *vals, uint32_t cap, uint32_t *n)
{
	return eth_ioctl_stats(((struct real_io *)io)->fd, ifname, vals, cap, n);
}

static int real_pause(void *io, const char *ifname, struct eth_pause_stats *out)
{
	return eth_nl_pause(((struct real_io *)io)->nl, ifname, out, NL_TIMEOUT_MS);
}

static int real_pfc(void *io, const char *ifname, struct eth_pfc *out)
{
	return eth_nl_pfc(((struct real_io *)io)->nl, ifname, out, NL_TIMEOUT_MS);
}

static int real_fec(void *io, const char *ifname, struct eth_fec *out)
{
	return eth_nl_fec(((struct real_io *)io)->nl, ifname, out, NL_TIMEOUT_MS);
}

static int real_module_page(void *io, const char *ifname, const struct module_page_addr *a,
			    uint8_t *buf)
{
	struct real_io *r = io;

	return module_read_page_real(r->nl, r->fd, ifname, a, buf, NL_TIMEOUT_MS);
}

static void real_free(void *io)
{
	struct real_io *r = io;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	eth_nl_free(r->nl);
	free(r);
}

int ethtool_real_seams(struct ethtool_seams *out)
{
	struct real_io *io = calloc(1, sizeof(*io));

	if (!io)
		return -ENOMEM;
	io->fd = eth_ioctl_socket();
	io->nl = eth_nl_open();
	if (io->fd < 0 || !io->nl) {
		int r = io->fd < 0 ? io->fd : -ENOMEM;

		real_free(io);
		return r;
	}
	*out = (struct ethtool_seams){
		.io = io,
		.list_netdevs = real_list,
		.drvinfo = real_drvinfo,
		.stats_count = real_count,
		.strings = real_strings,
		.stats = real_stats,
		.pause = real_pause,
		.pfc = real_pfc,
		.fec = real_fec,
		.module_page = real_module_page,
		.free_io = real_free,
	};
	return 0;
}
