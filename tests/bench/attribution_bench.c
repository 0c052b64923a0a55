// SPDX-License-Identifier: Apache-2.0
/*
 * netlink-attribution: what workload attribution (issue 22) costs the
 * netlink collector per poll (prints figures; asserts nothing about time).
 *
 * A procfs tree in a temporary directory holds N processes (default 1,000),
 * each in its own Kubernetes-shaped cgroup (systemd driver, containerd: a pod
 * and a container per process): <root>/<pid>/{stat,comm,cgroup}. The whole
 * collector (netlink.c) runs on it through its seams: ctx.proc_root, and a
 * transport that answers every RDMA netlink request from memory with one
 * device whose QP, CQ, MR and PD dumps hold Q objects of each kind per
 * process (default 4). Generation is not timed.
 *
 * Timed, wall clock over --polls polls after one uncounted warm-up (min and
 * median), for three runs of a fresh collector: attribution off; on, first
 * poll (every cgroup file read and parsed: the cold cache); on, later polls
 * (the pid + start time cache: one stat read per process). The attribution
 * cost is the difference to "off"; the dump itself is the "off" figure
 * (parsing replies from memory, so a real kernel dump costs more).
 *
 * Exits 1 when the exposition misses a workload series (that checks the
 * setup, not the speed).
 *
 *   cmake --build build --target netlink-attribution
 *   build/tests/bench/netlink-attribution [--procs N] [--objects Q] [--polls N]
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "netlink.h"
#include "nl_fake.h"

#define DGRAM_MAX (32768 - 320)
#define PER_MSG	  200 /* entries per reply message */
#define FIRST_PID 10000

static unsigned n_procs = 1000, n_objects = 4, n_polls = 20;

static struct nlmsghdr *msg_start(char *buf, uint16_t cmd, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
	return nlh;
}

/* Queues nlh as one datagram and frees it. */
static void push(struct nl_fake *f, struct nlmsghdr *nlh)
{
	if (nl_fake_push(f, nlh, nlh->nlmsg_seq) < 0) {
		fprintf(stderr, "netlink-attribution: out of memory\n");
		exit(1);
	}
	free(nlh);
}

static void push_done(struct nl_fake *f, uint32_t seq, int err)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(calloc(1, 64));
	int32_t e = err;

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	memcpy(mnl_nlmsg_put_extra_header(nlh, sizeof(e)), &e, sizeof(e));
	push(f, nlh);
}

static void put_entry(struct nlmsghdr *nlh, uint16_t cmd, uint32_t pid)
{
	uint16_t type = cmd == RDMA_NLDEV_CMD_RES_QP_GET   ? RDMA_NLDEV_ATTR_RES_QP_ENTRY
			: cmd == RDMA_NLDEV_CMD_RES_CQ_GET ? RDMA_NLDEV_ATTR_RES_CQ_ENTRY
			: cmd == RDMA_NLDEV_CMD_RES_MR_GET ? RDMA_NLDEV_ATTR_RES_MR_ENTRY
							   : RDMA_NLDEV_ATTR_RES_PD_ENTRY;
	struct nlattr *e = mnl_attr_nest_start(nlh, type);

	if (cmd == RDMA_NLDEV_CMD_RES_QP_GET) {
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, pid);
		mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_TYPE, 2 /* RC */);
		mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_STATE, 3 /* RTS */);
	} else if (cmd == RDMA_NLDEV_CMD_RES_CQ_GET) {
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_CQE, 256);
	} else if (cmd == RDMA_NLDEV_CMD_RES_MR_GET) {
		mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_RES_MRLEN, 1 << 20);
	}
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, pid);
	mnl_attr_nest_end(nlh, e);
}

/* n_objects objects of every process, PER_MSG entries a datagram. */
static void push_table(struct nl_fake *f, uint16_t cmd, uint16_t table, uint32_t seq)
{
	unsigned total = n_procs * n_objects;

	for (unsigned i = 0; i < total; i += PER_MSG) {
		struct nlmsghdr *nlh = msg_start(calloc(1, DGRAM_MAX), cmd, NLM_F_MULTI, seq);
		struct nlattr *t = mnl_attr_nest_start(nlh, table);

		for (unsigned j = i; j < total && j < i + PER_MSG; j++)
			put_entry(nlh, cmd, FIRST_PID + j / n_objects);
		mnl_attr_nest_end(nlh, t);
		push(f, nlh);
	}
	push_done(f, seq, 0);
}

/* One device, mlx5_0 (index 0, one port), with the dumps of make_tree's processes. */
static int fake_reply(struct nl_fake *f, const struct nlmsghdr *rq, void *data)
{
	uint16_t cmd = RDMA_NL_GET_OP(rq->nlmsg_type);
	struct nlmsghdr *nlh;

	(void)data;
	switch (cmd) {
	case RDMA_NLDEV_CMD_GET:
		nlh = msg_start(calloc(1, 256), cmd, NLM_F_MULTI, rq->nlmsg_seq);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		push(f, nlh);
		push_done(f, rq->nlmsg_seq, 0);
		break;
	case RDMA_NLDEV_CMD_RES_QP_GET:
		push_table(f, cmd, RDMA_NLDEV_ATTR_RES_QP, rq->nlmsg_seq);
		break;
	case RDMA_NLDEV_CMD_RES_CQ_GET:
		push_table(f, cmd, RDMA_NLDEV_ATTR_RES_CQ, rq->nlmsg_seq);
		break;
	case RDMA_NLDEV_CMD_RES_MR_GET:
		push_table(f, cmd, RDMA_NLDEV_ATTR_RES_MR, rq->nlmsg_seq);
		break;
	case RDMA_NLDEV_CMD_RES_PD_GET:
		push_table(f, cmd, RDMA_NLDEV_ATTR_RES_PD, rq->nlmsg_seq);
		break;
	case RDMA_NLDEV_CMD_STAT_GET:
		push_done(f, rq->nlmsg_seq, -EOPNOTSUPP);
		break;
	default: /* summary, CM_ID, SRQ: none */
		push_done(f, rq->nlmsg_seq, 0);
	}
	return 0;
}

static struct nl_transport *fake_open(void *data, int *err)
{
	struct nl_transport *t = nl_fake_new(fake_reply, data, 0);

	*err = t ? 0 : -ENOMEM;
	return t;
}

static int no_limits(const char *dev, struct nl_limits *l, void *data)
{
	(void)dev;
	(void)l;
	(void)data;
	return -EOPNOTSUPP;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

/* <root>/<pid>/{stat,comm,cgroup}: one pod and container per process. */
static void make_tree(const char *root)
{
	for (unsigned i = 0; i < n_procs; i++) {
		unsigned pid = FIRST_PID + i;
		char dir[512], path[600], text[512];

		snprintf(dir, sizeof(dir), "%s/%u", root, pid);
		if (mkdir(dir, 0755) < 0) {
			perror(dir);
			exit(1);
		}
		snprintf(path, sizeof(path), "%s/stat", dir);
		snprintf(
			text, sizeof(text),
			"%u (worker) S 1 %u %u 0 -1 4194560 100 0 0 0 1 1 0 0 20 0 1 0 %u "
			"1000000 100 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
			pid, pid, pid, 5000 + i);
		write_file(path, text);
		snprintf(path, sizeof(path), "%s/comm", dir);
		write_file(path, "worker\n");
		snprintf(path, sizeof(path), "%s/cgroup", dir);
		snprintf(text, sizeof(text),
			 "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
			 "%08x_0000_4000_8000_%012x.slice/cri-containerd-%064x.scope\n",
			 i, i, i);
		write_file(path, text);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One poll: ms; the exposition checked for a workload series when on. */
static double poll_once(void *state, bool attribution)
{
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};
	struct buf out = BUF_INIT;
	double t0 = now_ms(), t;

	if (!sink || netlink_collector_ops.collect(state, sink, &stats) < 0) {
		fprintf(stderr, "netlink-attribution: poll failed\n");
		exit(1);
	}
	t = now_ms() - t0;
	if (metric_sink_render(sink, &out) < 0 || !out.data ||
	    (attribution !=
	     (strstr(out.data, "rdma_workload_qps{device=\"mlx5_0\",pod_uid=") != NULL))) {
		fprintf(stderr, "netlink-attribution: workload series %s\n",
			attribution ? "missing" : "present with attribution off");
		exit(1);
	}
	buf_free(&out);
	metric_sink_free(sink);
	return t;
}

static void *start(const char *root, bool attribution, struct device_filter *filter)
{
	const struct netlink_seams seams = {.open_transport = fake_open, .query_limits = no_limits};
	uint64_t flags[NETLINK_FLAG_COUNT] = {0};
	struct collector_ctx ctx = {0};
	void *state;

	flags[NETLINK_FLAG_TOP_PROCESSES] = 10;
	flags[NETLINK_FLAG_TIMEOUT] = 60000;
	flags[NETLINK_FLAG_ATTRIBUTION] = attribution;
	flags[NETLINK_FLAG_TOP_WORKLOADS] = 10;
	ctx.sysfs_fd = -1;
	ctx.filter = filter;
	ctx.rescan_interval_s = 3600;
	ctx.poll_interval_ms = 120000;
	ctx.proc_root = root;
	ctx.flags = flags;
	if (netlink_collector_init_with(&ctx, &seams, &state) < 0) {
		fprintf(stderr, "netlink-attribution: init failed\n");
		exit(1);
	}
	return state;
}

static void report(const char *what, double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("%-34s min %8.3f ms  median %8.3f ms  (%u polls)\n", what, v[0], v[n / 2], n);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i + 1 < argc; i += 2) {
		unsigned v = (unsigned)strtoul(argv[i + 1], NULL, 10);

		if (!v) {
			fprintf(stderr, "netlink-attribution: bad value %s\n", argv[i + 1]);
			exit(2);
		}
		if (strcmp(argv[i], "--procs") == 0)
			n_procs = v;
		else if (strcmp(argv[i], "--objects") == 0)
			n_objects = v;
		else if (strcmp(argv[i], "--polls") == 0)
			n_polls = v;
		else {
			fprintf(stderr, "usage: %s [--procs N] [--objects Q] [--polls N]\n",
				argv[0]);
			exit(2);
		}
	}
}

int main(int argc, char **argv)
{
	char root[] = "/tmp/netlink-attribution-XXXXXX", err[128];
	struct device_filter *filter;
	double *off, *on, *cold;
	void *st;

	parse_args(argc, argv);
	log_set_level(LOG_ERR);
	filter = device_filter_new(NULL, NULL, err, sizeof(err));
	off = calloc(n_polls, sizeof(double));
	on = calloc(n_polls, sizeof(double));
	cold = calloc(n_polls, sizeof(double));
	if (!filter || !off || !on || !cold || !mkdtemp(root))
		return 1;
	make_tree(root);
	printf("%u processes in %u cgroups, %u QPs, CQs, MRs and PDs each\n", n_procs, n_procs,
	       n_objects);
	st = start(root, false, filter);
	poll_once(st, false);
	for (unsigned i = 0; i < n_polls; i++)
		off[i] = poll_once(st, false);
	netlink_collector_ops.free(st);
	for (unsigned i = 0; i < n_polls; i++) {
		/* a fresh collector: its first poll reads every cgroup file */
		st = start(root, true, filter);
		cold[i] = poll_once(st, true);
		if (i == 0) {
			poll_once(st, true);
			for (unsigned j = 0; j < n_polls; j++)
				on[j] = poll_once(st, true);
		}
		netlink_collector_ops.free(st);
	}
	report("attribution off (the dump)", off, n_polls);
	report("attribution on, first poll", cold, n_polls);
	report("attribution on, later polls", on, n_polls);
	printf("attribution cost per poll: %.3f ms cached, %.3f ms cold (medians)\n",
	       on[n_polls / 2] - off[n_polls / 2], cold[n_polls / 2] - off[n_polls / 2]);
	nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	device_filter_free(filter);
	free(off);
	free(on);
	free(cold);
	return 0;
}
