// SPDX-License-Identifier: Apache-2.0
/*
 * sysfs-hwnl-fds: the file descriptors the sysfs collector holds when RDMA
 * netlink serves the ports' hw counters (prints figures; asserts nothing).
 *
 * The daemon asks netlink only when --path.sysfs is /sys, so on a fixture
 * tree (tests/bench/lib.sh bench_tree) this runs the collector itself with a
 * scripted transport: the device dump names every device of the tree, and a
 * port's STAT_GET answers one entry per file of its hw_counters/ (value 1),
 * as the kernel does. Phases, each after its polls, with this process's open
 * fds (as `ls /proc/PID/fd | wc -l`) and those open on a hw_counters file:
 *
 *   netlink    3 polls with netlink serving every port
 *   fallback   1 poll whose STAT_GETs fail: every port reads its files
 *   reload     netlink again after a reload (a new scan)
 *   files      a collector without a transport (--no-...hw-counters-netlink)
 *
 *   cmake --build build --target sysfs-hwnl-fds
 *   tests/bench/sysfs-hwnl-fds.sh build/tests/bench/sysfs-hwnl-fds [DEVICES] [PORTS]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl_build.h"
#include "nl_fake.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "sysfs.h"

#define PORTID	 4242u
#define MAX_DEVS 256

struct world {
	int root;
	char *devs[MAX_DEVS]; /* index i + 1 over netlink */
	size_t n_devs;
	bool fail; /* STAT_GET answers -EIO */
};

static void die(const char *what)
{
	fprintf(stderr, "sysfs-hwnl-fds: %s\n", what);
	exit(1);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of root/path but "." and ".."; into names (caller frees). */
static size_t list(int root, const char *path, char **names, size_t max)
{
	int fd = openat(root, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd)))
		die(path);
	while ((de = readdir(d)) && n < max)
		if (de->d_name[0] != '.' && !(names[n++] = strdup(de->d_name)))
			die("out of memory");
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	return n;
}

static void answer_stat(struct world *w, struct dg *d, uint32_t dev, uint32_t port)
{
	char path[512], *names[512];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	size_t n;

	if (w->fail || dev < 1 || dev > w->n_devs) {
		dg_error(d, -EIO);
		return;
	}
	snprintf(path, sizeof(path), "class/infiniband/%s/ports/%u/hw_counters", w->devs[dev - 1],
		 port);
	n = list(w->root, path, names, 512);
	nlh = dg_dev_msg(d, RDMA_NLDEV_CMD_STAT_GET, 0, dev, w->devs[dev - 1]);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	nest = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	for (size_t i = 0; i < n; i++) {
		put_stat(nlh, names[i], 1);
		free(names[i]);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* The device dump names every device; a STAT_GET answers from the tree. */
static int fake_reply(struct nl_fake *f, const struct nlmsghdr *nlh, void *data)
{
	struct world *w = data;
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {0};
	uint16_t cmd = nlh->nlmsg_type & 0x3ff;
	struct dg d;

	nl_fake_attrs(nlh, tb);
	dg_init(&d);
	if (cmd == RDMA_NLDEV_CMD_GET) {
		for (size_t i = 0; i < w->n_devs; i++)
			dg_dev_msg(&d, cmd, NLM_F_MULTI, (uint32_t)i + 1, w->devs[i]);
		dg_done(&d, 0);
	} else if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] && tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		answer_stat(w, &d, mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]),
			    mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]));
	} else {
		dg_error(&d, -EOPNOTSUPP);
	}
	if (nl_fake_push_dg(f, &d, nlh->nlmsg_seq) < 0)
		die("out of memory");
	dg_free(&d);
	return 0;
}

static struct nl_transport *fake_open(void *data, int *err)
{
	struct nl_transport *t = nl_fake_new(fake_reply, data, PORTID);

	*err = t ? 0 : -ENOMEM;
	return t;
}

/* Open fds (the listing's own left out), and how many name a hw_counters file. */
static void count_fds(unsigned *all, unsigned *hw)
{
	char target[4096];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	*all = *hw = 0;
	if (!d)
		die("/proc/self/fd");
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.' || strtol(de->d_name, NULL, 10) == dirfd(d))
			continue;
		(*all)++;
		n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			*hw += strstr(target, "/hw_counters/") != NULL;
		}
	}
	closedir(d);
}

/* One collect(); returns the sample lines of the exposition. */
static unsigned poll_once(void *state)
{
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};
	struct buf out = BUF_INIT;
	unsigned lines = 0;

	if (!sink || sysfs_collector_ops.collect(state, sink, &stats) < 0 ||
	    metric_sink_render(sink, &out) < 0)
		die("collect failed");
	for (size_t i = 0; i < out.len; i++)
		lines += out.data[i] == '\n' && (i + 1 == out.len || out.data[i + 1] != '#');
	buf_free(&out);
	metric_sink_free(sink);
	return lines;
}

static void report(const char *phase, unsigned lines)
{
	unsigned all, hw;

	count_fds(&all, &hw);
	printf("%-9s fds=%u hw_counters_fds=%u lines=%u\n", phase, all, hw, lines);
}

int main(int argc, char **argv)
{
	struct world w = {0};
	struct sysfs_seams seams = {.open_transport = fake_open, .open_data = &w};
	struct collector_ctx ctx = {0};
	struct device_filter *filter;
	char err[256];
	void *state;
	unsigned lines = 0;

	if (argc != 2)
		die("usage: sysfs-hwnl-fds SYSFS_ROOT");
	log_set_level(LOG_ERR);
	w.root = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w.root < 0)
		die(argv[1]);
	w.n_devs = list(w.root, "class/infiniband", w.devs, MAX_DEVS);
	filter = device_filter_new(NULL, NULL, err, sizeof(err));
	if (!filter)
		die(err);
	ctx.sysfs_fd = w.root;
	ctx.filter = filter;
	ctx.rescan_interval_s = 3600;
	report("start", 0);
	if (sysfs_collector_init_with(&ctx, &seams, &state) < 0)
		die("init");
	for (int i = 0; i < 3; i++)
		lines = poll_once(state);
	report("netlink", lines);
	w.fail = true;
	report("fallback", poll_once(state));
	w.fail = false;
	sysfs_collector_ops.reload(state);
	report("reload", poll_once(state));
	sysfs_collector_ops.free(state);

	seams.open_transport = NULL;
	if (sysfs_collector_init_with(&ctx, &seams, &state) < 0)
		die("init");
	report("files", poll_once(state));
	sysfs_collector_ops.free(state);
	device_filter_free(filter);
	for (size_t i = 0; i < w.n_devs; i++)
		free(w.devs[i]);
	close(w.root);
	return 0;
}
