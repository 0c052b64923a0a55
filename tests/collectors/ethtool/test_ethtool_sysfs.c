// SPDX-License-Identifier: Apache-2.0
/* The ethtool collector's sysfs reads (ethtool_sysfs.c) on a tree made in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ethtool_sysfs.h"

static char root[] = "/tmp/ethtool_sysfs_XXXXXX";

/* ROOT/rel, its directories made, holding text. */
static void put(const char *rel, const char *text)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	if (!mkdtemp(root))
		return -1;
	put("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	put("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/1", "eth0\n");
	put("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/2", "");
	put("class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/0", "eth1");
	put("class/infiniband/ib0dev/ports/1/rate", "100 Gb/sec\n");
	put("class/net/eth0/carrier_down_count", " 7\n");
	put("class/net/eth1/carrier_down_count", "x\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

/* Each RDMA port's netdevs, once; ports without any add nothing. */
static void test_scan(void **state)
{
	struct netdev_set s = {0};
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	netdev_set_init(&s);
	assert_int_equal(ethtool_scan_rdma_netdevs(fd, &s), 0);
	assert_int_equal(s.n, 2);
	assert_true(netdev_set_contains(&s, "eth0"));
	assert_true(netdev_set_contains(&s, "eth1"));
	/* no sysfs root: none, and the set begun afresh */
	assert_int_equal(ethtool_scan_rdma_netdevs(-1, &s), 0);
	assert_int_equal(s.n, 0);
	netdev_set_free(&s);
	close(fd);
}

/* The counter trimmed and parsed; -ENOENT without one; a parse error otherwise. */
static void test_carrier_downs(void **state)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint64_t n = 0;

	assert_true(fd >= 0);
	assert_int_equal(ethtool_read_carrier_downs(fd, "eth0", &n), 0);
	assert_int_equal(n, 7);
	assert_int_equal(ethtool_read_carrier_downs(fd, "eth9", &n), -ENOENT);
	assert_int_equal(ethtool_read_carrier_downs(-1, "eth0", &n), -ENOENT);
	assert_int_equal(ethtool_read_carrier_downs(fd, "eth1", &n), -EINVAL);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_carrier_downs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
