// SPDX-License-Identifier: Apache-2.0
#include "ethtool_ioctl.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

int eth_ioctl_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

static int do_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return -ENODEV;
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static void copy_field(char *dst, size_t size, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int eth_ioctl_drvinfo(int fd, const char *ifname, struct eth_drvinfo *out)
{
	struct ethtool_drvinfo d;
	int r;

	memset(&d, 0, sizeof(d));
	d.cmd = ETHTOOL_GDRVINFO;
	r = do_ioctl(fd, ifname, &d);
	if (r < 0)
		return r;
	copy_field(out->driver, sizeof(out->driver), d.driver, sizeof(d.driver));
	copy_field(out->version, sizeof(out->version), d.version, sizeof(d.version));
	copy_field(out->fw_version, sizeof(out->fw_version), d.fw_version, sizeof(d.fw_version));
	copy_field(out->bus_info, sizeof(out->bus_info), d.bus_info, sizeof(d.bus_info));
	return 0;
}

int eth_ioctl_stats_count(int fd, const char *ifname, uint32_t *n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t data[1];
	} s;
	int r;

	memset(&s, 0, sizeof(s));
	s.hdr.cmd = ETHTOOL_GSSET_INFO;
	s.hdr.sset_mask = 1ull << ETH_SS_STATS;
	r = do_ioctl(fd, ifname, &s);
	if (r < 0)
		return r;
	/* The bit stays set only when the driver has that string set. */
	if (!(s.hdr.sset_mask & (1ull << ETH_SS_STATS)))
		return -EOPNOTSUPP;
	if (s.data[0] > ETH_IOCTL_MAX)
		return -E2BIG;
	*n = s.data[0];
	return 0;
}

int eth_ioctl_strings(int fd, const char *ifname, uint32_t expect, char **names, uint32_t *n)
{
	uint32_t cap = ETH_IOCTL_SLACK(expect);
	struct ethtool_gstrings *g;
	char *v;
	int r;

	*names = NULL;
	*n = 0;
	g = calloc(1, sizeof(*g) + (size_t)cap * ETH_GSTRING_LEN);
	if (!g)
		return -ENOMEM;
	g->cmd = ETHTOOL_GSTRINGS;
	g->string_set = ETH_SS_STATS;
	g->len = expect;
	r = do_ioctl(fd, ifname, g);
	if (r == 0 && g->len > cap)
		r = -EOVERFLOW;
	if (r < 0) {
		free(g);
		return r;
	}
	v = malloc((size_t)(g->len ? g->len : 1) * ETH_NAME_LEN);
	if (!v) {
		free(g);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < g->len; i++)
		copy_field(v + (size_t)i * ETH_NAME_LEN, ETH_NAME_LEN,
			   (const char *)g->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
	*names = v;
	*n = g->len;
	free(g);
	return 0;
}

int eth_ioctl_stats(int fd, const char *ifname, uint64_t *vals, uint32_t cap, uint32_t *n)
{
	struct ethtool_stats *s;
	uint32_t room = ETH_IOCTL_SLACK(cap);
	int r;

	*n = 0;
	s = calloc(1, sizeof(*s) + (size_t)room * sizeof(uint64_t));
	if (!s)
		return -ENOMEM;
	s->cmd = ETHTOOL_GSTATS;
	s->n_stats = cap;
	r = do_ioctl(fd, ifname, s);
	if (r == 0 && s->n_stats > cap)
		r = -EOVERFLOW;
	if (r == 0) {
		memcpy(vals, s->data, (size_t)s->n_stats * sizeof(uint64_t));
		*n = s->n_stats;
	}
	free(s);
	return r;
}

int eth_ioctl_module_info(int fd, const char *ifname, uint32_t *type, uint32_t *len)
{
	struct ethtool_modinfo mi;
	int r;

	memset(&mi, 0, sizeof(mi));
	mi.cmd = ETHTOOL_GMODULEINFO;
	r = do_ioctl(fd, ifname, &mi);
	if (r < 0)
		return r;
	*type = mi.type;
	*len = mi.eeprom_len;
	return 0;
}

int eth_ioctl_module_eeprom(int fd, const char *ifname, uint32_t offset, uint32_t len, uint8_t *out)
{
	/* The kernel writes the bytes right after the header. */
	struct {
		struct ethtool_eeprom hdr;
		uint8_t data[256];
	} e;
	int r;

	if (len > sizeof(e.data))
		return -EINVAL;
	memset(&e, 0, sizeof(e));
	e.hdr.cmd = ETHTOOL_GMODULEEEPROM;
	e.hdr.offset = offset;
	e.hdr.len = len;
	r = do_ioctl(fd, ifname, &e);
	if (r < 0)
		return r;
	memcpy(out, e.data, len);
	return 0;
}
