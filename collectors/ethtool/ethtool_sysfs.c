// SPDX-License-Identifier: Apache-2.0
/* The ethtool collector's reads under the sysfs root: RDMA ports' netdevs, carrier-down counts. */
#include "ethtool_sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/strparse.h"

/* One gid_attrs/ndevs/N file: the netdev name it holds, if any, joins out. */
static int add_ndev_file(int nfd, const char *name, struct netdev_set *out)
{
	char buf[64];
	ssize_t n;
	int f;

	f = open_regular_at(nfd, name);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (buf[0] && netdev_set_add(out, buf) < 0)
		return -ENOMEM;
	return 0;
}

/* class/infiniband/DEV/ports/PORT/gid_attrs/ndevs/: 0 or -ENOMEM. */
static int scan_port_ndevs(int sysfs_fd, const char *ports_path, const char *port,
			   struct netdev_set *out)
{
	char npath[1400];
	struct dirent *ne;
	DIR *nd;
	int r = 0;

	snprintf(npath, sizeof(npath), "%s/%s/gid_attrs/ndevs", ports_path, port);
	nd = open_dir_at(sysfs_fd, npath);
	if (!nd)
		return 0;
	while (r == 0 && (ne = readdir(nd)))
		if (ne->d_name[0] != '.')
			r = add_ndev_file(dirfd(nd), ne->d_name, out);
	closedir(nd);
	return r;
}

/* Every port of class/infiniband/DEV: 0 or -ENOMEM. */
static int scan_device_ports(int sysfs_fd, const char *dev, struct netdev_set *out)
{
	char path[512];
	struct dirent *pe;
	DIR *ports;
	int r = 0;

	snprintf(path, sizeof(path), "class/infiniband/%s/ports", dev);
	ports = open_dir_at(sysfs_fd, path);
	if (!ports)
		return 0;
	while (r == 0 && (pe = readdir(ports)))
		if (pe->d_name[0] != '.')
			r = scan_port_ndevs(sysfs_fd, path, pe->d_name, out);
	closedir(ports);
	return r;
}

int ethtool_scan_rdma_netdevs(int sysfs_fd, struct netdev_set *out)
{
	struct dirent *de;
	DIR *devs;
	int r = 0;

	netdev_set_begin(out);
	if (sysfs_fd < 0)
		return 0;
	devs = open_dir_at(sysfs_fd, "class/infiniband");
	if (!devs)
		return errno == ENOENT ? 0 : -errno;
	while (r == 0 && (de = readdir(devs)))
		if (de->d_name[0] != '.')
			r = scan_device_ports(sysfs_fd, de->d_name, out);
	closedir(devs);
	return r;
}

int ethtool_read_carrier_downs(int sysfs_fd, const char *netdev, uint64_t *out)
{
	char path[64 + IF_NAMESIZE], buf[32];
	const char *s = buf;
	size_t len;
	ssize_t n;
	int f, e;

	if (sysfs_fd < 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "class/net/%s/carrier_down_count", netdev);
	f = open_regular_at(sysfs_fd, path);
	if (f < 0)
		return f;
	n = read(f, buf, sizeof(buf) - 1);
	e = errno;
	close(f);
	if (n < 0)
		return -e;
	len = (size_t)n;
	str_trim(&s, &len);
	return parse_u64_dec(s, len, out);
}
