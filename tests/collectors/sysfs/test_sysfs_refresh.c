// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's device list over time (sysfs_refresh.c), on
 * temporary copies of the fixture trees (sysfs_run.h): devices removed,
 * added and renamed between polls, the rescan interval and SIGHUP, the
 * periodic re-check that keeps the files open, a RoCE port waiting for its
 * netdev, and the fd limit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "sysfs.h"
#include "rdmanl/sysfs_names.h"
#include "sysfs_run.h"

static void test_device_removed_and_added(void **state)
{
	char tmp[64], from[128], to[128];
	struct run r;

	copy_fixture("procfs-mixed", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 3);
	assert_non_null(strstr(r.text, "device=\"mlx5_0\""));

	snprintf(from, sizeof(from), "%s/class/infiniband/mlx5_0", tmp);
	rm_rf(from);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 2);
	assert_null(strstr(r.text, "device=\"mlx5_0\""));
	assert_non_null(strstr(r.text, "device=\"mlx4_0\""));
	assert_int_equal(r.sink_errors, 0);

	/* renamed: one gone, one new, found without waiting for a rescan */
	snprintf(from, sizeof(from), "%s/class/infiniband/mlx4_0", tmp);
	snprintf(to, sizeof(to), "%s/class/infiniband/mlx4_9", tmp);
	assert_int_equal(rename(from, to), 0);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_null(strstr(r.text, "device=\"mlx4_0\""));
	assert_line(r.text, "rdma_port_state{device=\"mlx4_9\",port=\"2\"} 4");
	run_stop(&r);
	rm_rf(tmp);
}

static void test_symlinked_device_removed(void **state)
{
	char tmp[64], path[128];
	struct run r;

	copy_fixture("rxe", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);
	/* hot unplug: the kernel removes the device directory and the class link */
	snprintf(path, sizeof(path), "%s/devices/virtual/infiniband/rxe0", tmp);
	rm_rf(path);
	snprintf(path, sizeof(path), "%s/class/infiniband/rxe0", tmp);
	assert_int_equal(unlink(path), 0);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 0);
	assert_null(strstr(r.text, "rxe0"));
	run_stop(&r);
	rm_rf(tmp);
}

static void test_rescan_and_reload(void **state)
{
	const char *line = "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
			   "source=\"hw_counters\",counter=\"brand_new\"} 9";
	char tmp[64];
	struct run r;

	copy_fixture("rxe", tmp, sizeof(tmp));
	run_start(&r, open_dir(tmp), NULL, NULL, 3600);
	run_poll(&r);
	write_file(tmp, "devices/virtual/infiniband/rxe0/ports/1/hw_counters/brand_new", "9\n");
	/* counter lists are cached until the rescan interval ... */
	run_poll(&r);
	assert_false(has_line(r.text, line));
	/* ... or a reload (SIGHUP) */
	sysfs_collector_ops.reload(r.state);
	run_poll(&r);
	assert_true(has_line(r.text, line));
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);

	/* rescan interval 0: every poll scans */
	run_start(&r, open_dir(tmp), NULL, NULL, 0);
	run_poll(&r);
	write_file(tmp, "devices/virtual/infiniband/rxe0/ports/1/hw_counters/newer", "1\n");
	run_poll(&r);
	assert_non_null(strstr(r.text, "counter=\"newer\"} 1"));
	run_stop(&r);
	rm_rf(tmp);
}

#define MAX_FDS 4096

static unsigned open_fds(bool open[MAX_FDS]);

/*
 * The periodic re-check of a device whose directories did not change keeps
 * its files open and re-reads only the scan-time text (netdevs, attributes);
 * a directory that changed sends the device through a full scan.
 */
static void test_recheck_keeps_files(void **state)
{
	static bool before[MAX_FDS], after[MAX_FDS];
	const char *port = "devices/virtual/infiniband/rxe0/ports/1";
	char tmp[64], rel[256];
	unsigned n_before;
	struct run r;

	copy_fixture("rxe", tmp, sizeof(tmp));
	/* Directory times within 2 s of the scan are not trusted (a change in
	 * the same timestamp tick would go unseen): such a device is scanned
	 * in full at each re-check. Past that, the re-check is cheap. */
	sleep(3);
	run_start(&r, open_dir(tmp), NULL, NULL, 0); /* interval 0: every poll re-checks */
	run_poll(&r);
	assert_line(r.text, "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	n_before = open_fds(before);
	run_poll(&r);
	assert_int_equal(open_fds(after), n_before);
	assert_memory_equal(before, after, MAX_FDS); /* the same fds: nothing re-opened */

	/* a renamed netdev and a new firmware: text, re-read in place */
	for (int i = 0; i < 3; i++) { /* every GID entry of the fixture names eth0 */
		snprintf(rel, sizeof(rel), "%s/gid_attrs/ndevs/%d", port, i);
		write_file(tmp, rel, "ens1f0\n");
	}
	write_file(tmp, "devices/virtual/infiniband/rxe0/fw_ver", "1.2.3\n");
	run_poll(&r);
	assert_line(r.text,
		    "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"ens1f0\"} 1");
	assert_no_line(r.text,
		       "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	assert_non_null(strstr(r.text, "fw_ver=\"1.2.3\""));
	open_fds(after);
	assert_memory_equal(before, after, MAX_FDS);
	assert_int_equal(r.stats.read_errors, 0);

	/* a file added to a listed directory: a full scan finds it */
	snprintf(rel, sizeof(rel), "%s/hw_counters/brand_new", port);
	write_file(tmp, rel, "9\n");
	run_poll(&r);
	assert_line(r.text, "rdma_port_statistic_total{device=\"rxe0\",port=\"1\","
			    "source=\"hw_counters\",counter=\"brand_new\"} 9");
	/* and one removed */
	snprintf(rel, sizeof(rel), "%s/%s/hw_counters/brand_new", tmp, port);
	assert_int_equal(unlink(rel), 0);
	run_poll(&r);
	assert_null(strstr(r.text, "counter=\"brand_new\""));
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	rm_rf(tmp);
}

/*
 * rxe and mlx5 fill the GID table after the device registers, so a scan made
 * at once finds a RoCE port without a netdev: that device is re-checked five
 * times as often as the interval says (at most every minute), without a full
 * scan, until one shows; the other devices wait for the interval.
 */
static void test_recheck_pending_netdev(void **state)
{
	static bool before[MAX_FDS], after[MAX_FDS];
	const char *port = "devices/virtual/infiniband/rxe0/ports/1";
	char tmp[64], rel[512];
	unsigned n_before;
	struct run r;

	(void)state;
	copy_fixture("rxe", tmp, sizeof(tmp));
	for (int i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "%s/%s/gid_attrs/ndevs/%d", tmp, port, i);
		assert_int_equal(unlink(rel), 0);
	}
	sleep(3); /* directory times older than 2 s: a re-check, not a full scan */
	run_start(&r, open_dir(tmp), NULL, NULL, 10); /* a pending device: every 2 s */
	run_poll(&r);
	assert_null(strstr(r.text, "rdma_port_netdev_info{"));
	n_before = open_fds(before);

	write_file(tmp, "devices/virtual/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	usleep(2100 * 1000);
	run_poll(&r);
	assert_line(r.text, "rdma_port_netdev_info{device=\"rxe0\",port=\"1\",netdev=\"eth0\"} 1");
	assert_int_equal(open_fds(after), n_before);
	assert_memory_equal(before, after, MAX_FDS); /* re-checked in place, not scanned */
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	rm_rf(tmp);
}

/* Marks the open fds (but the one used to list them) in open[]; returns how many. */
static unsigned open_fds(bool open[MAX_FDS])
{
	struct dirent *de;
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	memset(open, 0, MAX_FDS);
	while ((de = readdir(d))) {
		long fd = strtol(de->d_name, NULL, 10);

		if (de->d_name[0] == '.' || fd == dirfd(d) || fd < 0 || fd >= MAX_FDS)
			continue;
		open[fd] = true;
		n++;
	}
	closedir(d);
	return n;
}

/* Few file descriptors: files past the limit are opened per read, same output. */
static void test_fd_limit_fallback(void **state)
{
	static bool before[MAX_FDS], after[MAX_FDS];
	struct rlimit old, low;
	struct run full, r;
	unsigned base;
	int probe;

	base = open_fds(before);
	run_once(&full, "node-exporter-mixed", NULL, NULL);
	/* every value file stays open between polls: root + 66 files */
	assert_int_equal(open_fds(after), base + 1 + 66);

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(probe >= 0);
	close(probe);
	/* room for the root fd, directory walks, and ~20 kept counter files
	 * (the fixture has 66) above the collector's reserve */
	low = old;
	low.rlim_cur = (rlim_t)probe + 64 + 24;
	open_fds(before);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	run_once(&r, "node-exporter-mixed", NULL, NULL);
	run_poll(&r);
	/* the reserve is left free */
	open_fds(after);
	for (rlim_t fd = low.rlim_cur - 64; fd < low.rlim_cur && fd < MAX_FDS; fd++)
		assert_false(after[fd] && !before[fd]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);

	assert_int_equal(r.stats.read_errors, full.stats.read_errors);
	assert_string_equal(r.text, full.text);
	run_stop(&r);
	run_stop(&full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_removed_and_added),
		cmocka_unit_test(test_symlinked_device_removed),
		cmocka_unit_test(test_rescan_and_reload),
		cmocka_unit_test(test_recheck_keeps_files),
		cmocka_unit_test(test_recheck_pending_netdev),
		cmocka_unit_test(test_fd_limit_fallback),
	};

	/* the tests provoke failures on purpose: keep the log quiet */
	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
