// SPDX-License-Identifier: Apache-2.0
/*
 * The netlink collector's policy layer (netlink.c over netlink_sock.c's
 * request engine) run end to end through netlink_collector_init_with() with
 * fake seams: a scripted transport that answers each request with the
 * recorded Soft-RoCE replies ($FIXTURES/netlink/rxe-busy, rxe-pingpong) or
 * with built messages, and can interrupt, truncate, overrun, time out or
 * fail them; a fake device-limits query and a fake pid -> comm look-up.
 * Asserts on the rendered exposition text and on what was asked of the
 * fakes. With NETLINK_SERIES_OUT=FILE set, the node-shape case (8 mlx5
 * devices of one port, InfiniBand, then RoCE) writes its text exposition to
 * FILE.ib and FILE.roce, for tests/bench/series-per-node.sh, and the
 * InfiniBand one with --collector.netlink.qp-states=all and
 * --collector.netlink.top-processes=10 to FILE.ib.flags, for
 * tests/monitoring/gated-check.py to tell the families and rows those flags
 * bring.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "netlink.h"
#include "nl_build.h"
#include "rdmanl/sysfs_names.h"

#define FAKE_PORTID 4242u
#define MAX_QUEUE   512
#define MAX_REQ	    4096

/* ---- the fake world: devices, scripted faults, what was asked ---------------------------- */

enum fault {
	F_NONE,
	F_DUMP_INTR, /* every message of the reply flagged NLM_F_DUMP_INTR */
	F_EMSGSIZE,  /* recv: the first datagram did not fit (MSG_TRUNC) */
	F_ENOBUFS,   /* recv: the socket overran */
	F_TIMEOUT,   /* no answer: recv waits out its time */
	F_DONE_ERR,  /* the reply is NLMSG_DONE carrying err */
	F_NLMSG_ERR, /* the reply is NLMSG_ERROR with err */
	F_REPLACE,   /* the reply is data */
};

struct rule {
	uint16_t cmd;
	uint32_t dev; /* NL_NO_DEVICE for the whole-host dumps */
	enum fault fault;
	int err;
	int times; /* requests it applies to; -1: all */
	unsigned char *data;
	size_t len;
};

/* The object shape of a node's device (default_reply): none, an
 * InfiniBand or a RoCE port of a ConnectX HCA with one training process. */
enum node_shape { NODE_NONE, NODE_IB, NODE_ROCE };

struct fake_dev {
	char name[NL_NAME_MAX];
	uint32_t index, ports;
	bool recorded; /* answered with the recorded files of rxe0 */
	unsigned qps;  /* otherwise: this many RC QPs in RTS on port 1 */
	enum node_shape node;
	uint32_t pid; /* the training process of a node shape */
};

struct request {
	uint16_t cmd, flags;
	uint32_t dev, port, seq;
};

struct world {
	char dir[4096];	    /* the recorded fixture directory */
	bool built_devlist; /* device and summary dumps built from devs[] */
	struct fake_dev devs[8];
	size_t n_devs;
	struct rule rules[8];
	size_t n_rules;
	int open_err;
	unsigned opens, frees, grows;
	struct request req[MAX_REQ];
	size_t n_req;
	int limits_err;
	bool mlx5_limits; /* the limits of a ConnectX-7 instead of rxe's */
	unsigned limits_calls;
	char limits_dev[64][NL_NAME_MAX];
	unsigned comm_calls;
};

struct datagram {
	int err;
	unsigned char *data;
	size_t len;
};

struct fake_transport {
	struct nl_transport t;
	struct world *w;
	struct datagram q[MAX_QUEUE];
	size_t head, tail;
};

static void set_fixture(struct world *w, const char *name)
{
	if (!nl_fixture_dir(name, w->dir, sizeof(w->dir)))
		fail_msg("FIXTURES is not set");
}

static struct world *world_new(const char *fixture)
{
	struct world *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	set_fixture(w, fixture);
	return w;
}

static void world_free(struct world *w)
{
	for (size_t i = 0; i < w->n_rules; i++)
		free(w->rules[i].data);
	free(w);
}

/* Adds a device; the device and summary dumps are built from then on. */
static struct fake_dev *add_dev(struct world *w, const char *name, uint32_t index, bool recorded,
				unsigned qps)
{
	struct fake_dev *d = &w->devs[w->n_devs++];

	assert_true(w->n_devs <= sizeof(w->devs) / sizeof(w->devs[0]));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->index = index;
	d->ports = 1;
	d->recorded = recorded;
	d->qps = qps;
	w->built_devlist = true;
	return d;
}

static struct rule *add_rule(struct world *w, uint16_t cmd, uint32_t dev, enum fault f, int times)
{
	struct rule *r = &w->rules[w->n_rules++];

	assert_true(w->n_rules <= sizeof(w->rules) / sizeof(w->rules[0]));
	memset(r, 0, sizeof(*r));
	r->cmd = cmd;
	r->dev = dev;
	r->fault = f;
	r->times = times;
	return r;
}

/* A rule whose reply is the datagram built in d. */
static void add_reply(struct world *w, uint16_t cmd, uint32_t dev, struct dg *d, int times)
{
	struct rule *r = add_rule(w, cmd, dev, F_REPLACE, times);

	r->len = dg_len(d);
	r->data = malloc(r->len);
	assert_non_null(r->data);
	memcpy(r->data, d->buf, r->len);
}

static struct rule *match_rule(struct world *w, const struct request *rq)
{
	for (size_t i = 0; i < w->n_rules; i++) {
		struct rule *r = &w->rules[i];

		if (r->times == 0 || r->cmd != rq->cmd || r->dev != rq->dev)
			continue;
		if (r->times > 0)
			r->times--;
		return r;
	}
	return NULL;
}

static void push(struct fake_transport *ft, int err, const void *data, size_t len)
{
	struct datagram *g;

	assert_true(ft->tail < MAX_QUEUE);
	g = &ft->q[ft->tail++];
	g->err = err;
	g->len = len;
	g->data = NULL;
	if (len) {
		g->data = malloc(len);
		assert_non_null(g->data);
		memcpy(g->data, data, len);
	}
}

/* Queues every message of d as one datagram, answering rq. */
static void push_msgs(struct fake_transport *ft, struct dg *d, const struct request *rq, bool intr)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)d->buf;
	int rem = (int)dg_len(d);

	while (mnl_nlmsg_ok(nlh, rem)) {
		nlh->nlmsg_seq = rq->seq;
		nlh->nlmsg_pid = FAKE_PORTID;
		if (intr)
			nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
		push(ft, 0, nlh, nlh->nlmsg_len);
		nlh = mnl_nlmsg_next(nlh, &rem);
	}
}

static bool load_into(struct dg *d, const struct world *w, const char *file)
{
	char path[8192];
	unsigned char *p;
	size_t len;

	snprintf(path, sizeof(path), "%s/%s", w->dir, file);
	p = nl_read_file(path, &len);
	if (!p)
		return false;
	dg_reset(d);
	assert_true(len < DG_CAP);
	memcpy(d->buf, p, len);
	d->len = len;
	free(p);
	return true;
}

static const struct fake_dev *dev_by_index(const struct world *w, uint32_t index)
{
	for (size_t i = 0; i < w->n_devs; i++)
		if (w->devs[i].index == index)
			return &w->devs[i];
	return NULL;
}

/* A node's device: the kernel's QP0 (SMI, InfiniBand only) and QP1 (GSI)
 * owned by ib_core with their CQs, on InfiniBand the IPoIB UD QP of
 * ib_ipoib, and one training process (an NCCL rank on the HCA next to its
 * GPU) with 128 RC QPs in RTS, 8 CQs, 16 MRs of 1 GiB and a PD. No rdma_cm
 * IDs (NCCL connects over its own sockets) and no SRQs. */
#define NODE_RC_QPS 128
#define NODE_MRS    16
#define NODE_CQS    8

static void node_summary(struct nlmsghdr *nlh, const struct fake_dev *dev)
{
	bool ib = dev->node == NODE_IB;

	/* the kernel's order (nldev fill_res_info) */
	put_summary(nlh, "pd", ib ? 3 : 2);
	put_summary(nlh, "cq", NODE_CQS + (ib ? 4 : 2));
	put_summary(nlh, "qp", NODE_RC_QPS + (ib ? 3 : 1));
	put_summary(nlh, "cm_id", 0);
	put_summary(nlh, "mr", NODE_MRS);
	put_summary(nlh, "ctx", 1);
	put_summary(nlh, "srq", 0);
}

static void node_reply(const struct fake_dev *dev, const struct request *rq, struct dg *d)
{
	bool ib = dev->node == NODE_IB;
	struct nlmsghdr *nlh;
	struct nlattr *t, *e;

	switch (rq->cmd) {
	case RDMA_NLDEV_CMD_RES_QP_GET:
		nlh = dg_dev_msg(d, rq->cmd, NLM_F_MULTI, dev->index, dev->name);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
		if (ib)
			put_qp(nlh, 1, QPT_SMI, QPS_RTS, 0, "ib_core");
		put_qp(nlh, 1, QPT_GSI, QPS_RTS, 0, "ib_core");
		if (ib)
			put_qp(nlh, 1, QPT_UD, QPS_RTS, 0, "ib_ipoib");
		for (unsigned i = 0; i < NODE_RC_QPS; i++)
			put_qp(nlh, 1, QPT_RC, QPS_RTS, dev->pid, NULL);
		mnl_attr_nest_end(nlh, t);
		break;
	case RDMA_NLDEV_CMD_RES_CQ_GET:
		nlh = dg_dev_msg(d, rq->cmd, NLM_F_MULTI, dev->index, dev->name);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_CQ);
		for (int i = 0; i < 2; i++)
			put_cq(nlh, 128, 0, "ib_core");
		for (int i = 0; ib && i < 2; i++)
			put_cq(nlh, 512, 0, "ib_ipoib");
		for (int i = 0; i < NODE_CQS; i++)
			put_cq(nlh, 4096, dev->pid, NULL);
		mnl_attr_nest_end(nlh, t);
		break;
	case RDMA_NLDEV_CMD_RES_MR_GET:
		nlh = dg_dev_msg(d, rq->cmd, NLM_F_MULTI, dev->index, dev->name);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_MR);
		for (int i = 0; i < NODE_MRS; i++)
			put_mr(nlh, true, 1ull << 30, dev->pid, NULL);
		mnl_attr_nest_end(nlh, t);
		break;
	case RDMA_NLDEV_CMD_RES_PD_GET:
		nlh = dg_dev_msg(d, rq->cmd, NLM_F_MULTI, dev->index, dev->name);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_PD);
		for (int i = 0; i < 3; i++) {
			static const char *const kern[] = {"ib_core", "ib_ipoib", NULL};

			if (!ib && i == 1)
				continue; /* no IPoIB on RoCE */
			e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_PD_ENTRY);
			mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PDN, (uint32_t)i + 1);
			put_owner(nlh, kern[i] ? 0 : dev->pid, kern[i]);
			mnl_attr_nest_end(nlh, e);
		}
		mnl_attr_nest_end(nlh, t);
		break;
	case RDMA_NLDEV_CMD_STAT_GET:
		/* the port's hw counters, all of them in sysfs's hw_counters/
		 * (mlx5 without optional counters): none is netlink's own */
		nlh = dg_dev_msg(d, rq->cmd, 0, dev->index, dev->name);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, rq->port);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
		mnl_attr_nest_end(nlh, t);
		return;
	default:
		/* cm_id, srq: none */
		break;
	}
	dg_done(d, 0);
}

/* What the kernel would answer: recorded files, or built from devs[]. */
static void default_reply(const struct world *w, const struct request *rq, struct dg *d)
{
	/* the recorded device of a world without devs[] */
	static const struct fake_dev rxe0 = {.name = "rxe0", .ports = 1, .recorded = true};
	const struct fake_dev *dev;
	struct nlmsghdr *nlh;
	struct nlattr *t;
	char file[64];

	if (rq->cmd == RDMA_NLDEV_CMD_GET || rq->cmd == RDMA_NLDEV_CMD_RES_GET) {
		if (!w->built_devlist) {
			snprintf(file, sizeof(file), "cmd%u.bin", rq->cmd);
			assert_true(load_into(d, w, file));
			return;
		}
		for (size_t i = 0; i < w->n_devs; i++) {
			dev = &w->devs[i];
			nlh = dg_dev_msg(d, rq->cmd, NLM_F_MULTI, dev->index, dev->name);
			if (rq->cmd == RDMA_NLDEV_CMD_GET) {
				mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, dev->ports);
				continue;
			}
			t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_SUMMARY);
			if (dev->node != NODE_NONE) {
				node_summary(nlh, dev);
			} else {
				put_summary(nlh, "pd", 1);
				put_summary(nlh, "qp", dev->recorded ? 133 : dev->qps);
			}
			mnl_attr_nest_end(nlh, t);
		}
		dg_done(d, 0);
		return;
	}
	dev = rq->dev == NL_NO_DEVICE ? NULL : dev_by_index(w, rq->dev);
	if (!w->built_devlist && rq->dev == 0)
		dev = &rxe0;
	if (!dev) {
		if (rq->flags & NLM_F_DUMP)
			dg_done(d, -ENODEV);
		else
			dg_error(d, -ENODEV);
		return;
	}
	/* a recorded device's requests that were not recorded (a port
	 * other than 1): built like the others' */
	snprintf(file, sizeof(file), "cmd%u-dev0-port%u.bin", rq->cmd, rq->port);
	if (dev->recorded && load_into(d, w, file))
		return;
	if (dev->node != NODE_NONE) {
		node_reply(dev, rq, d);
		return;
	}
	switch (rq->cmd) {
	case RDMA_NLDEV_CMD_RES_QP_GET:
		nlh = dg_dev_msg(d, rq->cmd, NLM_F_MULTI, dev->index, dev->name);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
		for (unsigned i = 0; i < dev->qps; i++)
			put_qp(nlh, 1, QPT_RC, QPS_RTS, 5000 + dev->index, NULL);
		mnl_attr_nest_end(nlh, t);
		dg_done(d, 0);
		break;
	case RDMA_NLDEV_CMD_STAT_GET:
		nlh = dg_dev_msg(d, rq->cmd, 0, dev->index, dev->name);
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, rq->port);
		t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
		put_stat(nlh, "sent_pkts", 1000 + dev->index);
		put_stat(nlh, "rcvd_pkts", 2000 + dev->index);
		mnl_attr_nest_end(nlh, t);
		break;
	default:
		dg_done(d, 0);
		break;
	}
}

static void respond(struct fake_transport *ft, const struct request *rq)
{
	struct rule *r = match_rule(ft->w, rq);
	enum fault f = r ? r->fault : F_NONE;
	struct dg d;

	dg_init(&d);
	switch (f) {
	case F_TIMEOUT:
		push(ft, -ETIMEDOUT, NULL, 0);
		dg_free(&d);
		return;
	case F_DONE_ERR:
		dg_done(&d, r->err);
		break;
	case F_NLMSG_ERR:
		dg_error(&d, r->err);
		break;
	case F_REPLACE:
		assert_true(r->len < DG_CAP);
		memcpy(d.buf, r->data, r->len);
		d.len = r->len;
		break;
	case F_EMSGSIZE:
	case F_ENOBUFS:
		/* the failure comes first, the answer after it is lost
		 * with the socket */
		push(ft, f == F_EMSGSIZE ? -EMSGSIZE : -ENOBUFS, NULL, 0);
		default_reply(ft->w, rq, &d);
		break;
	default:
		default_reply(ft->w, rq, &d);
		break;
	}
	push_msgs(ft, &d, rq, f == F_DUMP_INTR);
	dg_free(&d);
}

static int collect_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type < RDMA_NLDEV_ATTR_MAX)
		tb[type] = a;
	return MNL_CB_OK;
}

static int fake_send(struct nl_transport *t, const void *buf, size_t len)
{
	struct fake_transport *ft = (struct fake_transport *)t;
	struct world *w = ft->w;
	const struct nlmsghdr *nlh = buf;
	const struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = {0};
	struct request *rq;

	assert_true(len >= sizeof(*nlh));
	assert_int_equal(nlh->nlmsg_len, len);
	assert_int_equal(RDMA_NL_GET_CLIENT(nlh->nlmsg_type), RDMA_NL_NLDEV);
	assert_true(nlh->nlmsg_flags & NLM_F_REQUEST);
	assert_true(w->n_req < MAX_REQ);
	rq = &w->req[w->n_req++];
	rq->cmd = nlh->nlmsg_type & 0x3ff;
	rq->flags = nlh->nlmsg_flags;
	rq->seq = nlh->nlmsg_seq;
	assert_int_equal(mnl_attr_parse(nlh, 0, collect_attr, tb), MNL_CB_OK);
	rq->dev = tb[RDMA_NLDEV_ATTR_DEV_INDEX] ? mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX])
						: NL_NO_DEVICE;
	rq->port = tb[RDMA_NLDEV_ATTR_PORT_INDEX] ? mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX])
						  : 0;
	respond(ft, rq);
	return 0;
}

static ssize_t fake_recv(struct nl_transport *t, void *buf, size_t len, int timeout_ms)
{
	struct fake_transport *ft = (struct fake_transport *)t;
	struct datagram g;

	if (ft->head == ft->tail) {
		/* nothing more will come: wait it out, as poll() would */
		poll(NULL, 0, timeout_ms < 300 ? timeout_ms : 300);
		return -ETIMEDOUT;
	}
	g = ft->q[ft->head++];
	if (ft->head == ft->tail)
		ft->head = ft->tail = 0;
	if (g.err) {
		if (g.err == -ETIMEDOUT)
			poll(NULL, 0, timeout_ms < 300 ? timeout_ms : 300);
		return g.err;
	}
	if (g.len > len) {
		free(g.data);
		return -EMSGSIZE;
	}
	memcpy(buf, g.data, g.len);
	free(g.data);
	return (ssize_t)g.len;
}

static void fake_grow(struct nl_transport *t)
{
	((struct fake_transport *)t)->w->grows++;
}

static uint32_t fake_portid(struct nl_transport *t)
{
	return FAKE_PORTID;
}

static void fake_free(struct nl_transport *t)
{
	struct fake_transport *ft = (struct fake_transport *)t;

	if (!ft)
		return;
	for (size_t i = ft->head; i < ft->tail; i++)
		free(ft->q[i].data);
	ft->w->frees++;
	free(ft);
}

static const struct nl_transport_ops fake_ops = {
	.send = fake_send,
	.recv = fake_recv,
	.grow_rcvbuf = fake_grow,
	.portid = fake_portid,
	.free = fake_free,
};

static struct nl_transport *fake_open(void *data, int *err)
{
	struct world *w = data;
	struct fake_transport *ft;

	w->opens++;
	if (w->open_err) {
		*err = w->open_err;
		return NULL;
	}
	ft = calloc(1, sizeof(*ft));
	if (!ft) {
		*err = -ENOMEM;
		return NULL;
	}
	ft->t.ops = &fake_ops;
	ft->w = w;
	*err = 0;
	return &ft->t;
}

/* Limits as rxe reports them, but no SRQ limit (0: not exported). */
static int fake_limits(const char *device, struct nl_limits *out, void *data)
{
	struct world *w = data;

	snprintf(w->limits_dev[w->limits_calls % 64], NL_NAME_MAX, "%s", device);
	w->limits_calls++;
	memset(out, 0, sizeof(*out));
	if (w->limits_err)
		return w->limits_err;
	out->valid = true;
	if (w->mlx5_limits) {
		/* ibv_devinfo -v of a ConnectX-7 */
		out->max[NL_LIMIT_QP] = 131072;
		out->max[NL_LIMIT_CQ] = 16777216;
		out->max[NL_LIMIT_MR] = 16777216;
		out->max[NL_LIMIT_PD] = 16777216;
		out->max[NL_LIMIT_SRQ] = 8388608;
		return 0;
	}
	out->max[NL_LIMIT_QP] = 65536;
	out->max[NL_LIMIT_CQ] = 16384;
	out->max[NL_LIMIT_MR] = 262144;
	out->max[NL_LIMIT_PD] = 32764;
	out->max[NL_LIMIT_SRQ] = 0;
	return 0;
}

static unsigned limits_calls_for(const struct world *w, const char *device)
{
	unsigned n = 0;

	for (unsigned i = 0; i < w->limits_calls && i < 64; i++)
		n += strcmp(w->limits_dev[i], device) == 0;
	return n;
}

/* pid -> comm as in the recordings' JSON */
static int fake_comm(uint32_t pid, char *comm, size_t size, void *data)
{
	static const struct {
		uint32_t pid;
		const char *comm;
	} map[] = {
		{158, "ib_send_bw"},
		{167, "ib_send_bw"},
		{179, "ibv_rc_pingpong"},
		{181, "ibv_rc_pingpong"},
		{185, "rping"},
		{190, "rping"},
		{160, "ibv_rc_pingpong"},
		{166, "ibv_rc_pingpong"},
		{5001, "mpi_app"},
		/* the workload attribution test's processes */
		{100, "trainer"},
		{101, "trainer"},
		{102, "sidecar"},
		{200, "mpi_app"},
		{300, "nvmf_tgt"},
		{310, "user_tool"},
	};
	struct world *w = data;

	w->comm_calls++;
	if (pid >= 7000 && pid < 7008) { /* the node shape's training processes */
		snprintf(comm, size, "python3");
		return 0;
	}
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].pid == pid) {
			snprintf(comm, size, "%s", map[i].comm);
			return 0;
		}
	return -ESRCH;
}

/* Requests of cmd (for dev, or any with ANY_DEV) since request number from. */
#define ANY_DEV 0xfffffffeu
static unsigned req_count(const struct world *w, size_t from, uint16_t cmd, uint32_t dev)
{
	unsigned n = 0;

	for (size_t i = from; i < w->n_req; i++)
		if (w->req[i].cmd == cmd && (dev == ANY_DEV || w->req[i].dev == dev))
			n++;
	return n;
}

static unsigned req_for_dev(const struct world *w, size_t from, uint32_t dev)
{
	unsigned n = 0;

	for (size_t i = from; i < w->n_req; i++)
		n += w->req[i].dev == dev;
	return n;
}

/* ---- one collector instance ------------------------------------------------------------- */

struct opts {
	const char *include;
	unsigned top;
	uint64_t timeout_ms;
	double rescan_s;
	int sysfs_fd;
	bool sysfs_enabled;
	bool attribution;
	unsigned top_wl;
	enum netlink_qp_states qp_states;
	const char *proc_root; /* NULL: /nonexistent */
};

/* top 10 processes (the collector's default is 0) to see their rows; the
 * states holding a QP and ERR in rdma_qps, the collector's default */
static const struct opts defaults = {
	.top = 10,
	/* the fakes answer at once: a budget that a loaded machine under
	 * ASan never runs out of */
	.timeout_ms = 5000,
	.rescan_s = 60,
	.sysfs_fd = -1,
};

struct run {
	struct world *w;
	struct device_filter *filter;
	uint64_t flags[NETLINK_FLAG_COUNT];
	void *state;
	struct collector_stats stats;
	char *text;
	uint64_t sink_errors;
	int rc;
	size_t req_before; /* requests before the last poll */
};

static void run_start(struct run *r, struct world *w, const struct opts *o)
{
	const struct netlink_seams seams = {
		.open_transport = fake_open,
		.open_data = w,
		.query_limits = fake_limits,
		.limits_data = w,
		.comm_of = fake_comm,
		.comm_data = w,
	};
	unsigned opens = w->opens;
	struct collector_ctx ctx;
	char err[256];

	memset(r, 0, sizeof(*r));
	r->w = w;
	r->filter = device_filter_new(o->include, NULL, err, sizeof(err));
	assert_non_null(r->filter);
	r->flags[NETLINK_FLAG_TOP_PROCESSES] = o->top;
	r->flags[NETLINK_FLAG_TIMEOUT] = o->timeout_ms;
	r->flags[NETLINK_FLAG_ATTRIBUTION] = o->attribution;
	r->flags[NETLINK_FLAG_TOP_WORKLOADS] = o->top_wl;
	r->flags[NETLINK_FLAG_QP_STATES] = o->qp_states;
	memset(&ctx, 0, sizeof(ctx));
	ctx.sysfs_fd = o->sysfs_fd;
	ctx.filter = r->filter;
	ctx.rescan_interval_s = o->rescan_s;
	ctx.poll_interval_ms = 1000;
	ctx.proc_root = o->proc_root ? o->proc_root : "/nonexistent";
	ctx.sysfs_collector_enabled = o->sysfs_enabled;
	ctx.flags = r->flags;
	assert_int_equal(netlink_collector_init_with(&ctx, &seams, &r->state), 0);
	assert_non_null(r->state);
	/* the socket is opened at init, and kept */
	assert_int_equal(w->opens, opens + 1);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;

	assert_non_null(sink);
	memset(&r->stats, 0, sizeof(r->stats));
	r->req_before = r->w->n_req;
	r->rc = netlink_collector_ops.collect(r->state, sink, &r->stats);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	r->sink_errors = metric_sink_errors(sink);
	free(r->text);
	r->text = out.data ? buf_steal(&out, NULL) : strdup("");
	assert_non_null(r->text);
	buf_free(&out);
	metric_sink_free(sink);
}

/* A poll that must succeed without rejected samples. */
static void run_ok(struct run *r)
{
	run_poll(r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->sink_errors, 0);
}

static void run_stop(struct run *r)
{
	netlink_collector_ops.free(r->state);
	device_filter_free(r->filter);
	free(r->text);
}

/* Lines that start with prefix (and contain needle). */
static unsigned count_lines(const char *text, const char *prefix, const char *needle)
{
	size_t pl = strlen(prefix);
	unsigned n = 0;

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= pl && memcmp(p, prefix, pl) == 0 &&
		    (!needle || memmem(p, len, needle, strlen(needle))))
			n++;
		p += len + (eol ? 1 : 0);
	}
	return n;
}

static const char *const state_names[NL_QP_STATES] = {"RESET", "INIT", "RTR", "RTS",
						      "SQD",   "SQE",  "ERR"};

/* The rdma_qps rows of (device, port, type) at --collector.netlink.qp-states=all:
 * every state is a line with its value. */
static void assert_qps_all(const char *text, const char *dev, const char *port, const char *type,
			   const uint64_t n[NL_QP_STATES])
{
	for (int s = 0; s < NL_QP_STATES; s++)
		assert_line(text,
			    "rdma_qps{device=\"%s\",port=\"%s\",type=\"%s\",state=\"%s\"} %llu",
			    dev, port, type, state_names[s], (unsigned long long)n[s]);
}

/* At the default qp-states=active (issue 40): the states that hold a QP have
 * their line, ERR has one whatever its value, the other states none. */
static void assert_qps(const char *text, const char *dev, const char *port, const char *type,
		       const uint64_t n[NL_QP_STATES])
{
	for (int s = 0; s < NL_QP_STATES; s++) {
		char line[160];

		snprintf(line, sizeof(line),
			 "\nrdma_qps{device=\"%s\",port=\"%s\",type=\"%s\",state=\"%s\"} ", dev,
			 port, type, state_names[s]);
		if (n[s] || s == NL_QP_STATE_ERR)
			assert_line(text, "%s%llu", line + 1, (unsigned long long)n[s]);
		else if (strstr(text, line))
			fail_msg("a zero row of a state that holds no QP: %s", line + 1);
	}
}

static const char *const rxe_counters[] = {
	"sent_pkts",	       "rcvd_pkts",
	"duplicate_request",   "out_of_seq_request",
	"rcvd_rnr_err",	       "send_rnr_err",
	"rcvd_seq_err",	       "ack_deferred",
	"retry_exceeded_err",  "retry_rnr_exceeded_err",
	"completer_retry_err", "send_err",
	"link_downed",	       "rdma_sends",
	"rdma_recvs",
};
static const uint64_t busy_counter_values[] = {132141, 132141, 662, 0, 0, 0,	0,   1,
					       0,      0,      29,  0, 0, 8466, 8466};
#define N_RXE_COUNTERS (sizeof(rxe_counters) / sizeof(rxe_counters[0]))

/* A counter of port 1 of rxe0 as the collector exports it from netlink. */
static void assert_counter(const char *text, const char *name, uint64_t value)
{
	const struct sysfs_counter_name *known = sysfs_counter_lookup(name, SYSFS_SRC_HW_COUNTERS);

	if (known)
		assert_line(
			text, "%s{device=\"rxe0\",port=\"1\"} %llu", known->metric,
			(unsigned long long)(value * (known->multiplier ? known->multiplier : 1)));
	else
		assert_line(
			text,
			"rdma_port_statistic_total{device=\"rxe0\",port=\"1\",source=\"netlink\","
			"counter=\"%s\"} %llu",
			name, (unsigned long long)value);
}

static bool counter_exported(const char *text, const char *name)
{
	const struct sysfs_counter_name *known = sysfs_counter_lookup(name, SYSFS_SRC_HW_COUNTERS);
	char needle[256];

	if (known)
		snprintf(needle, sizeof(needle), "\n%s{device=\"rxe0\",port=\"1\"} ",
			 known->metric);
	else
		snprintf(
			needle, sizeof(needle),
			"\nrdma_port_statistic_total{device=\"rxe0\",port=\"1\",source=\"netlink\","
			"counter=\"%s\"} ",
			name);
	return strstr(text, needle) != NULL;
}

/* The QP numbers of the rxe-busy recording. */
static void assert_busy_qps(const char *text)
{
	const uint64_t rc[NL_QP_STATES] = {0, 0, 64, 68, 0, 0, 0};
	const uint64_t gsi[NL_QP_STATES] = {0, 0, 0, 1, 0, 0, 0};

	assert_qps(text, "rxe0", "1", "RC", rc);
	assert_qps(text, "rxe0", "1", "GSI", gsi);
	/* RC: RTR, RTS, ERR; GSI: RTS, ERR */
	assert_int_equal(count_lines(text, "rdma_qps{", "device=\"rxe0\""), 5);
}

static void assert_error_counts(const char *text, uint64_t timeout, uint64_t interrupted,
				uint64_t malformed, uint64_t kernel)
{
	assert_line(text, "rdma_exporter_netlink_errors_total{reason=\"timeout\"} %llu",
		    (unsigned long long)timeout);
	assert_line(text, "rdma_exporter_netlink_errors_total{reason=\"interrupted\"} %llu",
		    (unsigned long long)interrupted);
	assert_line(text, "rdma_exporter_netlink_errors_total{reason=\"malformed\"} %llu",
		    (unsigned long long)malformed);
	assert_line(text, "rdma_exporter_netlink_errors_total{reason=\"kernel\"} %llu",
		    (unsigned long long)kernel);
}

/* ---- the recorded replies, end to end ----------------------------------------------------- */

/* rxe-busy: the resource summary and limits */
static void assert_busy_resources(const char *text)
{
	/* the kernel's summary, and pd from it */
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"qp\"} 133");
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"cq\"} 9");
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"mr\"} 11");
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"pd\"} 9");
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"cm_id\"} 3");
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"ctx\"} 6");
	assert_line(text, "rdma_resources{device=\"rxe0\",resource=\"srq\"} 0");
	assert_int_equal(count_lines(text, "rdma_resources{", NULL), 7);
	assert_line(text, "rdma_pds{device=\"rxe0\"} 9");
	/* limits from the fake verbs query; a limit of 0 is not exported */
	assert_line(text, "rdma_resource_limit{device=\"rxe0\",resource=\"qp\"} 65536");
	assert_line(text, "rdma_resource_limit{device=\"rxe0\",resource=\"cq\"} 16384");
	assert_line(text, "rdma_resource_limit{device=\"rxe0\",resource=\"mr\"} 262144");
	assert_line(text, "rdma_resource_limit{device=\"rxe0\",resource=\"pd\"} 32764");
	assert_int_equal(count_lines(text, "rdma_resource_limit{", NULL), 4);
}

/* rxe-busy: QPs, CQs, MRs, CM IDs and SRQs */
static void assert_busy_objects(const char *text)
{
	/* QPs: the states holding one and ERR, for each (port, type) seen */
	assert_line(text, "rdma_qps{device=\"rxe0\",port=\"1\",type=\"RC\",state=\"RTR\"} 64");
	assert_busy_qps(text);
	assert_line(text, "rdma_cqs{device=\"rxe0\"} 9");
	assert_line(text, "rdma_cq_entries{device=\"rxe0\"} 133239");
	assert_line(text, "rdma_mrs{device=\"rxe0\"} 11");
	assert_line(text, "rdma_mr_registered_bytes{device=\"rxe0\"} 16785664");
	assert_line(text, "rdma_cm_ids{device=\"rxe0\",port=\"1\",ps=\"TCP\",state=\"LISTEN\"} 1");
	assert_line(text, "rdma_cm_ids{device=\"rxe0\",port=\"1\",ps=\"TCP\",state=\"CONNECT\"} 2");
	assert_int_equal(count_lines(text, "rdma_cm_ids{", NULL), 2);
	assert_line(text, "rdma_srqs{device=\"rxe0\"} 0");
}

/* rxe-busy: the per-process numbers */
static void assert_busy_processes(const char *text)
{
	/* per process, all four names within the top 10 */
	assert_line(text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 128");
	assert_line(text, "rdma_process_qps{device=\"rxe0\",comm=\"ibv_rc_pingpong\"} 2");
	assert_line(text, "rdma_process_qps{device=\"rxe0\",comm=\"rping\"} 2");
	assert_line(text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_core\"} 1");
	assert_int_equal(count_lines(text, "rdma_process_qps{", NULL), 4);
	assert_line(text, "rdma_process_mrs{device=\"rxe0\",comm=\"ib_send_bw\"} 2");
	assert_line(text, "rdma_process_mrs{device=\"rxe0\",comm=\"rping\"} 7");
	assert_line(text, "rdma_process_mrs{device=\"rxe0\",comm=\"ib_core\"} 0");
	assert_line(
		text,
		"rdma_process_mr_registered_bytes{device=\"rxe0\",comm=\"ib_send_bw\"} 16777216");
	assert_line(
		text,
		"rdma_process_mr_registered_bytes{device=\"rxe0\",comm=\"ibv_rc_pingpong\"} 8192");
	assert_line(text, "rdma_process_mr_registered_bytes{device=\"rxe0\",comm=\"rping\"} 256");
	assert_int_equal(count_lines(text, "rdma_process_", "comm=\"other\""), 0);
}

/* rxe-busy: hw counters and the netlink self metrics */
static void assert_busy_counters_and_self(const char *text)
{
	/* hw counters: the sysfs collector is off, so all of them from netlink */
	for (size_t i = 0; i < N_RXE_COUNTERS; i++)
		assert_counter(text, rxe_counters[i], busy_counter_values[i]);

	/* self metrics */
	assert_error_counts(text, 0, 0, 0, 0);
	assert_line(text, "rdma_exporter_netlink_requests_total 8");
	assert_line(text, "rdma_exporter_netlink_dump_retries_total 0");
	assert_line(text, "# TYPE rdma_qps gauge");
	assert_line(text, "# TYPE rdma_port_statistic_total counter");
	assert_line(text, "# TYPE rdma_exporter_netlink_errors_total counter");
}

/* rxe-busy, first poll: which requests were sent, and how */
static void assert_busy_requests(const struct world *w)
{
	uint32_t last_seq = 0;

	/* what was asked: two whole-host dumps, five resource dumps of
	 * device index 0, one STAT_GET of its port 1 */
	assert_int_equal(w->n_req, 8);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_GET, NL_NO_DEVICE), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_GET, NL_NO_DEVICE), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_QP_GET, 0), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_CQ_GET, 0), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_MR_GET, 0), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_CM_ID_GET, 0), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_SRQ_GET, 0), 1);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_STAT_GET, 0), 1);
	for (size_t i = 0; i < w->n_req; i++) {
		const struct request *q = &w->req[i];

		if (q->cmd == RDMA_NLDEV_CMD_STAT_GET) {
			assert_int_equal(q->port, 1);
			assert_int_equal(q->flags, NLM_F_REQUEST);
		} else {
			assert_int_equal(q->port, 0);
			assert_int_equal(q->flags, NLM_F_REQUEST | NLM_F_DUMP);
		}
		/* every request its own sequence number */
		assert_true(i == 0 || q->seq != last_seq);
		last_seq = q->seq;
	}
}

/* --collector.netlink.qp-states=all: every state of each (port, type) seen,
 * 0 included, as before issue 40; the flag table refuses other words
 * (src/daemon/config.c: exit 2 at start). */
static void test_qp_states_all(void **state)
{
	struct world *w = world_new("rxe-busy");
	const struct collector_flag *f = &netlink_collector_ops.flags[NETLINK_FLAG_QP_STATES];
	const uint64_t rc[NL_QP_STATES] = {0, 0, 64, 68, 0, 0, 0};
	const uint64_t gsi[NL_QP_STATES] = {0, 0, 0, 1, 0, 0, 0};
	struct opts o = defaults;
	struct run r;

	assert_int_equal(f->kind, COLLECTOR_FLAG_ENUM);
	assert_string_equal(f->name, "qp-states");
	assert_string_equal(f->values[f->def], "active");
	assert_string_equal(f->values[NETLINK_QP_STATES_ALL], "all");
	assert_null(f->values[2]);
	o.qp_states = NETLINK_QP_STATES_ALL;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_qps_all(r.text, "rxe0", "1", "RC", rc);
	assert_qps_all(r.text, "rxe0", "1", "GSI", gsi);
	assert_int_equal(count_lines(r.text, "rdma_qps{", NULL), 2 * NL_QP_STATES);
	run_stop(&r);
	world_free(w);
	(void)state;
}

/* The collector's defaults: no per-process rows (issue 40), per-workload on. */
static void test_flag_defaults(void **state)
{
	const struct collector_flag *f = netlink_collector_ops.flags;

	assert_int_equal(f[NETLINK_FLAG_TOP_PROCESSES].def, 0);
	assert_int_equal(f[NETLINK_FLAG_TOP_WORKLOADS].def, 10);
	assert_int_equal(f[NETLINK_FLAG_ATTRIBUTION].def, 1);
	assert_int_equal(f[NETLINK_FLAG_QP_STATES].def, NETLINK_QP_STATES_ACTIVE);
	(void)state;
}

static void test_busy(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);

	assert_busy_resources(r.text);
	assert_busy_objects(r.text);
	assert_busy_processes(r.text);
	assert_busy_counters_and_self(r.text);
	assert_busy_requests(w);
	assert_int_equal(w->opens, 1);
	assert_int_equal(w->limits_calls, 1);
	assert_string_equal(w->limits_dev[0], "rxe0");

	/* the next poll: same numbers, same socket, no new limits query */
	run_ok(&r);
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_mr_registered_bytes{device=\"rxe0\"} 16785664");
	assert_line(r.text, "rdma_exporter_netlink_requests_total 16");
	assert_int_equal(w->n_req, 16);
	assert_int_equal(w->opens, 1);
	assert_int_equal(w->frees, 0);
	assert_int_equal(w->limits_calls, 1);
	run_stop(&r);
	/* free closes the socket */
	assert_int_equal(w->frees, 1);
	world_free(w);
}

static void test_pingpong_then_busy(void **state)
{
	struct world *w = world_new("rxe-pingpong");
	const uint64_t rc_pp[NL_QP_STATES] = {0, 0, 0, 2, 0, 0, 0};
	struct run r;

	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_qps(r.text, "rxe0", "1", "RC", rc_pp);
	assert_line(r.text, "rdma_cq_entries{device=\"rxe0\"} 2045");
	assert_line(r.text, "rdma_mr_registered_bytes{device=\"rxe0\"} 8192");
	assert_null(strstr(r.text, "rdma_cm_ids{"));
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ibv_rc_pingpong\"} 2");

	/* the numbers follow the kernel's */
	set_fixture(w, "rxe-busy");
	run_ok(&r);
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_cq_entries{device=\"rxe0\"} 133239");

	/* and back: the (port, type) keys seen stay, with 0 */
	set_fixture(w, "rxe-pingpong");
	run_ok(&r);
	assert_qps(r.text, "rxe0", "1", "RC", rc_pp);
	/* cm_id buckets seen before stay too */
	assert_line(r.text,
		    "rdma_cm_ids{device=\"rxe0\",port=\"1\",ps=\"TCP\",state=\"LISTEN\"} 0");
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ibv_rc_pingpong\"} 2");
	/* processes that are gone are gone */
	assert_null(strstr(r.text, "comm=\"ib_send_bw\""));
	run_stop(&r);
	world_free(w);
}

static void test_top_processes(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct opts o = defaults;
	struct run r;

	/* top 2: ibv_rc_pingpong beats rping on MR bytes; the rest is "other" */
	o.top = 2;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 128");
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ibv_rc_pingpong\"} 2");
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"other\"} 3");
	assert_line(r.text, "rdma_process_mrs{device=\"rxe0\",comm=\"other\"} 7");
	assert_line(r.text, "rdma_process_mr_registered_bytes{device=\"rxe0\",comm=\"other\"} 256");
	assert_int_equal(count_lines(r.text, "rdma_process_qps{", NULL), 3);
	assert_int_equal(count_lines(r.text, "rdma_process_mrs{", NULL), 3);
	assert_int_equal(count_lines(r.text, "rdma_process_mr_registered_bytes{", NULL), 3);
	assert_null(strstr(r.text, "comm=\"rping\""));
	run_stop(&r);

	/* top 0: the families are off, and no comm look-ups happen */
	o.top = 0;
	w->comm_calls = 0;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_null(strstr(r.text, "rdma_process_"));
	assert_int_equal(w->comm_calls, 0);
	assert_busy_qps(r.text);
	run_stop(&r);
	world_free(w);
}

/* MR lengths hidden from an unprivileged reader: no byte sums at all. */
static void test_mr_length_hidden(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct nlmsghdr *nlh;
	struct nlattr *t;
	struct run r;
	struct dg d;

	dg_init(&d);
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_RES_MR_GET, NLM_F_MULTI, 0, "rxe0");
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_MR);
	put_mr(nlh, true, 4096, 179, NULL);
	put_mr(nlh, false, 0, 181, NULL);
	mnl_attr_nest_end(nlh, t);
	dg_done(&d, 0);
	add_reply(w, RDMA_NLDEV_CMD_RES_MR_GET, 0, &d, -1);
	dg_free(&d);

	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_line(r.text, "rdma_mrs{device=\"rxe0\"} 2");
	assert_null(strstr(r.text, "rdma_mr_registered_bytes{"));
	assert_null(strstr(r.text, "rdma_process_mr_registered_bytes{"));
	assert_line(r.text, "rdma_process_mrs{device=\"rxe0\",comm=\"ibv_rc_pingpong\"} 2");
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	world_free(w);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw);

/* ---- workload attribution -------------------------------------------------------------- */

#define POD_A  "2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b"
#define POD_AU "2f4a6b1e_8c3d_4e5f_9a0b_1c2d3e4f5a6b"
#define CID_1  "1111111111111111111111111111111111111111111111111111111111111111"
#define CID_2  "2222222222222222222222222222222222222222222222222222222222222222"
#define POD_SLICE                                                                                  \
	"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_AU ".slice/"

/* <root>/<pid>/stat (with start time) and, unless NULL, <root>/<pid>/cgroup. */
static void put_proc(const char *root, uint32_t pid, uint64_t start, const char *cgroup)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/stat", root, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%u (x y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 %llu 1 2\n", pid,
		(unsigned long long)start);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%u/cgroup", root, pid);
	if (!cgroup) {
		unlink(path);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(cgroup, f);
	fclose(f);
}

/* QPs, CQs, MRs and PDs of the processes of two containers of one pod, a
 * Slurm job, a service, a user session, a process without /proc entries
 * and a kernel owner. */
static void add_workload_replies(struct world *w, bool pd)
{
	static const struct {
		uint32_t pid;
		const char *kern;
		unsigned qps, cqs, mrs, pds;
	} owners[] = {
		{100, NULL, 2, 2, 1, 1}, {101, NULL, 1, 1, 1, 1},    {102, NULL, 1, 0, 0, 1},
		{200, NULL, 4, 8, 2, 1}, {300, NULL, 1, 1, 0, 1},    {310, NULL, 1, 1, 1, 1},
		{400, NULL, 1, 0, 0, 0}, {0, "ib_core", 1, 1, 1, 1},
	};
	static const struct {
		uint16_t cmd, table;
	} dumps[] = {{RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP},
		     {RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ},
		     {RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR},
		     {RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD}};

	for (size_t k = 0; k < (pd ? 4u : 3u); k++) {
		struct nlmsghdr *nlh;
		struct nlattr *t;
		struct dg d;

		dg_init(&d);
		nlh = dg_dev_msg(&d, dumps[k].cmd, NLM_F_MULTI, 0, "rxe0");
		t = mnl_attr_nest_start(nlh, dumps[k].table);
		for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
			const unsigned n[] = {owners[i].qps, owners[i].cqs, owners[i].mrs,
					      owners[i].pds};

			for (unsigned j = 0; j < n[k]; j++) {
				struct nlattr *e;

				switch (k) {
				case 0:
					put_qp(nlh, 1, QPT_RC, QPS_RTS, owners[i].pid,
					       owners[i].kern);
					break;
				case 1:
					put_cq(nlh, 16, owners[i].pid, owners[i].kern);
					break;
				case 2:
					put_mr(nlh, true, 4096, owners[i].pid, owners[i].kern);
					break;
				default:
					e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_PD_ENTRY);
					put_owner(nlh, owners[i].pid, owners[i].kern);
					mnl_attr_nest_end(nlh, e);
				}
			}
		}
		mnl_attr_nest_end(nlh, t);
		dg_done(&d, 0);
		add_reply(w, dumps[k].cmd, 0, &d, -1);
		dg_free(&d);
	}
}

static void make_proc_tree(const char *root)
{
	put_proc(root, 100, 1000, POD_SLICE "cri-containerd-" CID_1 ".scope\n");
	put_proc(root, 101, 1001, POD_SLICE "cri-containerd-" CID_1 ".scope\n");
	put_proc(root, 102, 1002, POD_SLICE "cri-containerd-" CID_2 ".scope\n");
	put_proc(root, 200, 2000, "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n");
	put_proc(root, 300, 3000, "0::/system.slice/nvmf.service\n");
	put_proc(root, 310, 3100, "0::/user.slice/user-1000.slice/session-3.scope\n");
}

static void assert_workload_processes(const char *t)
{
	// clang-format off
	assert_line(t, "rdma_process_mrs{device=\"rxe0\",comm=\"mpi_app\",slurm_job_id=\"42\"} 2");
	assert_line(t, "rdma_process_mr_registered_bytes{device=\"rxe0\",comm=\"mpi_app\",slurm_job_id=\"42\"} 8192");
	assert_line(t, "rdma_process_mrs{device=\"rxe0\",comm=\"nvmf_tgt\",systemd_unit=\"nvmf.service\"} 0");
	// clang-format on
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"trainer\",pod_uid=\"" POD_A
		       "\",container_id=\"" CID_1 "\"} 3");
	assert_line(t, "rdma_process_mrs{device=\"rxe0\",comm=\"trainer\",pod_uid=\"" POD_A
		       "\",container_id=\"" CID_1 "\"} 2");
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"sidecar\",pod_uid=\"" POD_A
		       "\",container_id=\"" CID_2 "\"} 1");
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"mpi_app\",slurm_job_id=\"42\"} 4");
	assert_line(t, "rdma_process_mr_registered_bytes{device=\"rxe0\",comm=\"mpi_app\","
		       "slurm_job_id=\"42\"} 8192");
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"nvmf_tgt\",systemd_unit=\"nvmf."
		       "service\"} 1");
	/* a user session, a process gone from /proc, a kernel owner: no labels */
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"user_tool\"} 1");
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"unknown\"} 1");
	assert_line(t, "rdma_process_qps{device=\"rxe0\",comm=\"ib_core\"} 1");
}

static void assert_workloads(const char *t)
{
	/* Whole series literals (tests/monitoring checks the synthetic fixtures'
	 * label sets against them), longer than a line. */
	// clang-format off
	assert_line(t, "rdma_workload_qps{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"1111111111111111111111111111111111111111111111111111111111111111\"} 3");
	assert_line(t, "rdma_workload_cqs{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"1111111111111111111111111111111111111111111111111111111111111111\"} 3");
	assert_line(t, "rdma_workload_mrs{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"1111111111111111111111111111111111111111111111111111111111111111\"} 2");
	assert_line(t, "rdma_workload_mr_registered_bytes{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"1111111111111111111111111111111111111111111111111111111111111111\"} 8192");
	assert_line(t, "rdma_workload_pds{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"1111111111111111111111111111111111111111111111111111111111111111\"} 2");
	/* holds a QP and a PD, no CQ or MR: zeros, not absent */
	assert_line(t, "rdma_workload_qps{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"2222222222222222222222222222222222222222222222222222222222222222\"} 1");
	assert_line(t, "rdma_workload_cqs{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"2222222222222222222222222222222222222222222222222222222222222222\"} 0");
	assert_line(t, "rdma_workload_mrs{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"2222222222222222222222222222222222222222222222222222222222222222\"} 0");
	assert_line(t, "rdma_workload_pds{device=\"rxe0\",pod_uid=\"2f4a6b1e-8c3d-4e5f-9a0b-1c2d3e4f5a6b\",container_id=\"2222222222222222222222222222222222222222222222222222222222222222\"} 1");
	// clang-format on
	assert_line(t, "rdma_workload_qps{device=\"rxe0\",slurm_job_id=\"42\"} 4");
	assert_line(t, "rdma_workload_cqs{device=\"rxe0\",slurm_job_id=\"42\"} 8");
	assert_line(t, "rdma_workload_mrs{device=\"rxe0\",slurm_job_id=\"42\"} 2");
	assert_line(t,
		    "rdma_workload_mr_registered_bytes{device=\"rxe0\",slurm_job_id=\"42\"} 8192");
	assert_line(t, "rdma_workload_pds{device=\"rxe0\",slurm_job_id=\"42\"} 1");
	// clang-format off
	assert_line(t, "rdma_workload_qps{device=\"rxe0\",systemd_unit=\"nvmf.service\"} 1");
	assert_line(t, "rdma_workload_cqs{device=\"rxe0\",systemd_unit=\"nvmf.service\"} 1");
	assert_line(t, "rdma_workload_mrs{device=\"rxe0\",systemd_unit=\"nvmf.service\"} 0");
	assert_line(t, "rdma_workload_mr_registered_bytes{device=\"rxe0\",systemd_unit=\"nvmf.service\"} 0");
	assert_line(t, "rdma_workload_pds{device=\"rxe0\",systemd_unit=\"nvmf.service\"} 1");
	// clang-format on
	/* the user session, pid 400 and ib_core: one series, no identity */
	assert_line(t, "rdma_workload_qps{device=\"rxe0\"} 3");
	assert_line(t, "rdma_workload_cqs{device=\"rxe0\"} 2");
	assert_line(t, "rdma_workload_mrs{device=\"rxe0\"} 2");
	assert_line(t, "rdma_workload_mr_registered_bytes{device=\"rxe0\"} 8192");
	assert_line(t, "rdma_workload_pds{device=\"rxe0\"} 2");
	assert_int_equal(count_lines(t, "rdma_workload_qps{", NULL), 5);
}

static void test_workload_attribution(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct opts o = defaults;
	char root[] = "/tmp/test_netlink_proc_XXXXXX";
	struct run r;

	assert_non_null(mkdtemp(root));
	make_proc_tree(root);
	add_workload_replies(w, true);
	o.attribution = true;
	o.top_wl = 10;
	o.proc_root = root;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_workload_processes(r.text);
	assert_workloads(r.text);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_PD_GET, 0), 1);

	/* Same pid, same start time: the cached workload, not the file. */
	put_proc(root, 200, 2000, "0::/system.slice/slurmstepd.scope/job_43/step_0\n");
	run_ok(&r);
	assert_line(r.text, "rdma_workload_qps{device=\"rxe0\",slurm_job_id=\"42\"} 4");
	/* A re-used pid (another start time) is another process. */
	put_proc(root, 200, 2500, "0::/system.slice/slurmstepd.scope/job_43/step_0\n");
	run_ok(&r);
	assert_line(r.text, "rdma_workload_qps{device=\"rxe0\",slurm_job_id=\"43\"} 4");
	assert_null(strstr(r.text, "slurm_job_id=\"42\""));
	run_stop(&r);

	/* top-workloads 1: the largest workload, the rest under no identity */
	o.top_wl = 1;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_line(r.text, "rdma_workload_qps{device=\"rxe0\",slurm_job_id=\"43\"} 4");
	assert_line(r.text, "rdma_workload_qps{device=\"rxe0\"} 8");
	assert_line(r.text, "rdma_workload_pds{device=\"rxe0\"} 6");
	assert_int_equal(count_lines(r.text, "rdma_workload_qps{", NULL), 2);
	run_stop(&r);

	/* attribution off: no labels, no workload families, no PD dump */
	o.attribution = false;
	run_start(&r, w, &o);
	w->n_req = 0;
	run_ok(&r);
	assert_null(strstr(r.text, "rdma_workload_"));
	assert_null(strstr(r.text, "pod_uid="));
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"trainer\"} 3");
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_PD_GET, ANY_DEV), 0);
	run_stop(&r);
	assert_int_equal(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	world_free(w);
	(void)state;
}

/* A kernel that refuses PD dumps: the other workload families stay. */
static void test_workload_no_pd_dump(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct opts o = defaults;
	char root[] = "/tmp/test_netlink_proc_XXXXXX";
	struct run r;

	assert_non_null(mkdtemp(root));
	make_proc_tree(root);
	add_workload_replies(w, false);
	add_rule(w, RDMA_NLDEV_CMD_RES_PD_GET, 0, F_DONE_ERR, -1)->err = -EOPNOTSUPP;
	o.attribution = true;
	o.top_wl = 10;
	o.proc_root = root;
	run_start(&r, w, &o);
	run_ok(&r);
	run_ok(&r);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_PD_GET, ANY_DEV), 1);
	assert_null(strstr(r.text, "rdma_workload_pds"));
	assert_line(r.text, "rdma_workload_qps{device=\"rxe0\",slurm_job_id=\"42\"} 4");
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	assert_int_equal(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	world_free(w);
	(void)state;
}

/* Outside the initial PID namespace: said once at start, never per poll. */
static void test_pid_namespace_note(void **state)
{
	static const struct {
		const char *link;
		unsigned notes;
	} cases[] = {{"pid:[4026532999]", 1}, {"pid:[4026531836]", 0}, {"garbage", 0}};
	struct world *w = world_new("rxe-busy");
	char root[] = "/tmp/test_netlink_proc_XXXXXX", path[512];
	struct opts o = defaults;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/self", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/self/ns", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/self/ns/pid", root);
	o.attribution = true;
	o.top_wl = 10;
	o.proc_root = root;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *logbuf = NULL;
		size_t loglen = 0;
		FILE *f = open_memstream(&logbuf, &loglen);
		struct run r;

		assert_non_null(f);
		unlink(path);
		assert_int_equal(symlink(cases[i].link, path), 0);
		log_set_output(f);
		log_set_level(LOG_INFO);
		run_start(&r, w, &o);
		run_ok(&r);
		run_ok(&r);
		run_stop(&r);
		log_set_level(LOG_ERR);
		log_set_output(stderr);
		fclose(f);
		assert_int_equal(count_lines(logbuf, "", "outside the initial PID namespace"),
				 cases[i].notes);
		if (cases[i].notes)
			assert_non_null(strstr(logbuf, "pid_ns=4026532999"));
		free(logbuf);
	}
	assert_int_equal(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	world_free(w);
	(void)state;
}

/* ---- robustness ------------------------------------------------------------------------- */

static void test_no_rdma_netlink(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct opts o = defaults;
	struct run r;

	w->open_err = -EPROTONOSUPPORT;
	run_start(&r, w, &o);
	run_poll(&r);
	/* not a failure: no devices, no samples */
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 0);
	assert_int_equal(r.stats.read_errors, 0);
	assert_null(strstr(r.text, "rdma_"));
	assert_int_equal(w->opens, 1);
	/* not tried again before the re-scan interval */
	for (int i = 0; i < 3; i++) {
		run_poll(&r);
		assert_int_equal(r.rc, 0);
		assert_int_equal(r.stats.devices, 0);
		assert_null(strstr(r.text, "rdma_"));
	}
	assert_int_equal(w->opens, 1);
	assert_int_equal(w->n_req, 0);
	assert_int_equal(w->limits_calls, 0);
	/* SIGHUP: tried again */
	netlink_collector_ops.reload(r.state);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(w->opens, 2);
	assert_null(strstr(r.text, "rdma_"));
	/* the module got loaded: SIGHUP finds the devices */
	w->open_err = 0;
	netlink_collector_ops.reload(r.state);
	run_ok(&r);
	assert_int_equal(w->opens, 3);
	assert_int_equal(r.stats.devices, 1);
	assert_busy_qps(r.text);
	run_stop(&r);

	/* re-scan interval 0: tried at every poll */
	w->open_err = -EAFNOSUPPORT;
	w->opens = 0;
	o.rescan_s = 0;
	run_start(&r, w, &o);
	run_poll(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(w->opens, 1 + 2);
	run_stop(&r);
	world_free(w);
}

static void test_dump_intr_every_time(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_busy_qps(r.text);

	/* the QP table changes during every dump */
	add_rule(w, RDMA_NLDEV_CMD_RES_QP_GET, 0, F_DUMP_INTR, -1);
	run_ok(&r);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_RES_QP_GET, 0), 3);
	assert_int_equal(r.stats.read_errors, 1);
	assert_int_equal(r.stats.devices, 1);
	assert_error_counts(r.text, 0, 1, 0, 0);
	assert_line(r.text, "rdma_exporter_netlink_dump_retries_total 2");
	/* the previous numbers are served, all of them */
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_cq_entries{device=\"rxe0\"} 133239");
	assert_line(r.text, "rdma_mr_registered_bytes{device=\"rxe0\"} 16785664");
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 128");
	assert_counter(r.text, "sent_pkts", 132141);
	assert_line(r.text, "rdma_resources{device=\"rxe0\",resource=\"qp\"} 133");

	/* and again: the counters add up */
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 1);
	assert_error_counts(r.text, 0, 2, 0, 0);
	assert_line(r.text, "rdma_exporter_netlink_dump_retries_total 4");
	assert_busy_qps(r.text);
	run_stop(&r);

	/* interrupted from the first poll on: no QP numbers yet, the rest is there */
	w->n_req = 0;
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 1);
	assert_null(strstr(r.text, "rdma_qps{"));
	assert_line(r.text, "rdma_resources{device=\"rxe0\",resource=\"qp\"} 133");
	run_stop(&r);
	world_free(w);
}

static void test_dump_intr_once(void **state)
{
	struct world *w = world_new("rxe-pingpong");
	struct run r;

	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_line(r.text, "rdma_qps{device=\"rxe0\",port=\"1\",type=\"RC\",state=\"RTS\"} 2");

	/* interrupted once: retried, and the fresh numbers are served */
	set_fixture(w, "rxe-busy");
	add_rule(w, RDMA_NLDEV_CMD_RES_QP_GET, 0, F_DUMP_INTR, 1);
	run_ok(&r);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_RES_QP_GET, 0), 2);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_exporter_netlink_dump_retries_total 1");
	assert_error_counts(r.text, 0, 0, 0, 0);
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 128");
	/* an interrupted dump leaves the socket mid-reply: a new one */
	assert_int_equal(w->opens, 2);
	run_stop(&r);
	world_free(w);
}

/*
 * BUG (reported): collectors/netlink/netlink.c poll_resources() collects all
 * resource dumps of a device into one aggregate (d->scratch), but the retry
 * of any one dump calls reset_agg() = nl_dev_agg_reset() on that whole
 * aggregate (dump() on NLM_F_DUMP_INTR, and nl_conn_request() after
 * -EMSGSIZE / -ENOBUFS). A retried CQ, MR, CM_ID or SRQ dump therefore wipes
 * the QP counts and process owners gathered by the dumps before it, and the
 * poll then serves rdma_qps 0 and no rdma_process_qps. Expected: only the
 * retried dump's own numbers start over.
 */
static void test_intr_retry_of_cq_dump_keeps_qps(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	add_rule(w, RDMA_NLDEV_CMD_RES_CQ_GET, 0, F_DUMP_INTR, 1);
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_exporter_netlink_dump_retries_total 1");
	assert_line(r.text, "rdma_cq_entries{device=\"rxe0\"} 133239");
	/* fails while the bug is there: rdma_qps all 0, no process rows */
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 128");
	run_stop(&r);
	world_free(w);
}

/* BUG (reported), the same through nl_conn_request()'s own retry. */
static void test_emsgsize_retry_of_mr_dump_keeps_qps_cqs(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	add_rule(w, RDMA_NLDEV_CMD_RES_MR_GET, 0, F_EMSGSIZE, 1);
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_mr_registered_bytes{device=\"rxe0\"} 16785664");
	/* fails while the bug is there: 0 CQs, rdma_qps all 0 */
	assert_line(r.text, "rdma_cq_entries{device=\"rxe0\"} 133239");
	assert_busy_qps(r.text);
	run_stop(&r);
	world_free(w);
}

static void test_emsgsize_once(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	/* the first QP datagram did not fit: a larger buffer, the dump again */
	add_rule(w, RDMA_NLDEV_CMD_RES_QP_GET, 0, F_EMSGSIZE, 1);
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_QP_GET, 0), 2);
	assert_int_equal(w->opens, 2);
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 128");
	assert_error_counts(r.text, 0, 0, 0, 0);
	/* not an NLM_F_DUMP_INTR retry */
	assert_line(r.text, "rdma_exporter_netlink_dump_retries_total 0");
	run_stop(&r);
	world_free(w);
}

static void test_enobufs_once(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	/* the socket overran: reopened with a larger receive buffer, asked again */
	add_rule(w, RDMA_NLDEV_CMD_RES_QP_GET, 0, F_ENOBUFS, 1);
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_int_equal(w->grows, 1);
	assert_int_equal(w->opens, 2);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_QP_GET, 0), 2);
	assert_busy_qps(r.text);
	assert_error_counts(r.text, 0, 0, 0, 0);
	run_stop(&r);
	world_free(w);
}

/*
 * BUG (reported): collectors/netlink/netlink.c sync_devices() sets the
 * taken-over entry of st->devs to NULL, and the next find_device() of the
 * same loop dereferences it (strcmp(st->devs[i]->name, ...)): the second
 * poll of a host with two or more devices crashes with SIGSEGV as soon as a
 * device that sorts before another one is kept.
 */
static void test_two_devices_two_polls(void **state)
{
	struct world *w = world_new("rxe-busy");
	const uint64_t rxe1[NL_QP_STATES] = {0, 0, 0, 2, 0, 0, 0};
	struct run r;

	add_dev(w, "rxe0", 0, true, 0);
	add_dev(w, "rxe1", 1, false, 2);
	run_start(&r, w, &defaults);
	for (int i = 0; i < 3; i++) {
		run_ok(&r);
		assert_int_equal(r.stats.devices, 2);
		assert_int_equal(r.stats.read_errors, 0);
		assert_busy_qps(r.text);
		assert_qps(r.text, "rxe1", "1", "RC", rxe1);
		assert_line(r.text,
			    "rdma_port_packets_transmitted_total{device=\"rxe1\",port=\"1\"} 1001");
	}
	/* each device's limits once */
	assert_int_equal(limits_calls_for(w, "rxe0"), 1);
	assert_int_equal(limits_calls_for(w, "rxe1"), 1);
	run_stop(&r);
	world_free(w);
}

static void test_timeout(void **state)
{
	struct world *w = world_new("rxe-busy");
	const uint64_t rxe1[NL_QP_STATES] = {0, 0, 0, 2, 0, 0, 0};
	struct opts o = defaults;
	struct run r;

	add_dev(w, "rxe0", 0, true, 0);
	add_dev(w, "rxe1", 1, false, 2);
	/* long enough for three whole polls under ASan on a busy machine */
	o.timeout_ms = 250;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_busy_qps(r.text);
	assert_qps(r.text, "rxe1", "1", "RC", rxe1);
	assert_line(r.text, "rdma_process_qps{device=\"rxe1\",comm=\"mpi_app\"} 2");

	/* rxe0's QP dump never answers: the budget is spent there */
	add_rule(w, RDMA_NLDEV_CMD_RES_QP_GET, 0, F_TIMEOUT, 1);
	set_fixture(w, "rxe-pingpong");
	run_ok(&r);
	/* both devices still emitted, with their previous numbers */
	assert_int_equal(r.stats.devices, 2);
	assert_busy_qps(r.text);
	assert_qps(r.text, "rxe1", "1", "RC", rxe1);
	/* rxe1 was not asked anything after that */
	assert_int_equal(req_for_dev(w, r.req_before, 1), 0);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_STAT_GET, ANY_DEV), 0);
	/* one error for the dump that timed out, one for the device not reached */
	assert_int_equal(r.stats.read_errors, 2);
	assert_error_counts(r.text, 2, 0, 0, 0);

	/* the next poll starts on a new socket and is whole again */
	run_ok(&r);
	assert_int_equal(w->opens, 2);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_qps{device=\"rxe0\",port=\"1\",type=\"RC\",state=\"RTS\"} 2");
	assert_no_line(r.text, "rdma_qps{device=\"rxe0\",port=\"1\",type=\"RC\",state=\"RTR\"} 0");
	assert_qps(r.text, "rxe1", "1", "RC", rxe1);
	assert_error_counts(r.text, 2, 0, 0, 0);
	run_stop(&r);
	world_free(w);
}

static void test_device_vanishes(void **state)
{
	static const struct {
		enum fault f;
		int err;
	} cases[] = {{F_DONE_ERR, -EINVAL}, {F_NLMSG_ERR, -ENODEV}, {F_DONE_ERR, -ENODEV}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct world *w = world_new("rxe-busy");
		struct run r;

		add_dev(w, "rxe0", 0, true, 0);
		add_dev(w, "rxe1", 1, false, 2);
		/* listed by the device dump, gone by its QP dump */
		add_rule(w, RDMA_NLDEV_CMD_RES_QP_GET, 1, cases[i].f, -1)->err = cases[i].err;
		run_start(&r, w, &defaults);
		run_ok(&r);
		assert_int_equal(r.stats.devices, 1);
		assert_int_equal(r.stats.read_errors, 0);
		assert_null(strstr(r.text, "rxe1"));
		assert_busy_qps(r.text);
		assert_error_counts(r.text, 0, 0, 0, 0);
		/* its other dumps were not asked for */
		assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_RES_CQ_GET, 1), 0);
		run_stop(&r);
		world_free(w);
	}
}

static void test_malformed_qp_entry(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct nlmsghdr *nlh;
	struct nlattr *t;
	struct run r;
	struct dg d;

	dg_init(&d);
	nlh = dg_dev_msg(&d, RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_MULTI, 0, "rxe0");
	t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
	put_qp(nlh, 1, QPT_RC, QPS_RTS, 158, NULL);
	put_qp(nlh, 1, QPT_RC, 9, 158, NULL); /* no such state */
	put_qp(nlh, 1, QPT_RC, QPS_RTS, 158, NULL);
	put_qp(nlh, 1, QPT_UD, QPS_RTS, 0, "ib_core");
	mnl_attr_nest_end(nlh, t);
	dg_done(&d, 0);
	add_reply(w, RDMA_NLDEV_CMD_RES_QP_GET, 0, &d, -1);
	dg_free(&d);

	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 1);
	assert_error_counts(r.text, 0, 0, 1, 0);
	assert_line(r.text, "rdma_qps{device=\"rxe0\",port=\"1\",type=\"RC\",state=\"RTS\"} 2");
	assert_line(r.text, "rdma_qps{device=\"rxe0\",port=\"1\",type=\"UD\",state=\"RTS\"} 1");
	/* RTS and ERR of each */
	assert_int_equal(count_lines(r.text, "rdma_qps{", NULL), 2 * 2);
	assert_line(r.text, "rdma_process_qps{device=\"rxe0\",comm=\"ib_send_bw\"} 2");
	/* the other dumps of the device were not affected */
	assert_line(r.text, "rdma_cq_entries{device=\"rxe0\"} 133239");
	run_stop(&r);
	world_free(w);
}

static void test_device_dump_fails(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	run_start(&r, w, &defaults);
	run_ok(&r);
	/* the device dump answers with an error: the collector failed as a
	 * whole, and the devices it knew are still polled and served */
	add_rule(w, RDMA_NLDEV_CMD_GET, NL_NO_DEVICE, F_NLMSG_ERR, 1)->err = -EBUSY;
	run_poll(&r);
	assert_int_equal(r.rc, -EBUSY);
	assert_int_equal(r.sink_errors, 0);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 1);
	assert_error_counts(r.text, 0, 0, 0, 1);
	assert_busy_qps(r.text);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_RES_QP_GET, 0), 1);
	assert_line(r.text, "rdma_resources{device=\"rxe0\",resource=\"qp\"} 133");
	/* and whole again */
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	world_free(w);
}

static void test_srq_and_stat_unsupported(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	/* a kernel before SRQ dumps (5.15) and a device without hw counters */
	add_rule(w, RDMA_NLDEV_CMD_RES_SRQ_GET, 0, F_DONE_ERR, -1)->err = -EOPNOTSUPP;
	add_rule(w, RDMA_NLDEV_CMD_STAT_GET, 0, F_NLMSG_ERR, -1)->err = -EOPNOTSUPP;
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_int_equal(r.stats.devices, 1);
	assert_null(strstr(r.text, "rdma_srqs{"));
	assert_null(strstr(r.text, "source=\"netlink\""));
	assert_busy_qps(r.text);
	assert_error_counts(r.text, 0, 0, 0, 0);
	/* not asked again */
	run_ok(&r);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_RES_SRQ_GET, ANY_DEV), 0);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_STAT_GET, ANY_DEV), 0);
	assert_null(strstr(r.text, "rdma_srqs{"));
	run_stop(&r);
	world_free(w);
}

/* ---- hw counters and sysfs ---------------------------------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path);
}

static void test_counters_left_to_sysfs(void **state)
{
	struct world *w = world_new("rxe-busy");
	char tmp[64], path[256];
	struct opts o = defaults;
	struct run r;
	FILE *f;
	int fd;

	snprintf(tmp, sizeof(tmp), "/tmp/test_netlink_XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/class/infiniband/rxe0/ports/1/hw_counters", tmp);
	for (char *p = path + strlen(tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_int_equal(mkdir(path, 0755), 0);
		*p = '/';
	}
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/sent_pkts");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("132141\n", f);
	assert_int_equal(fclose(f), 0);
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);

	/* sysfs exports sent_pkts: netlink leaves it out, and exports the rest */
	o.sysfs_fd = fd;
	o.sysfs_enabled = true;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_false(counter_exported(r.text, "sent_pkts"));
	assert_null(strstr(r.text, "counter=\"sent_pkts\""));
	for (size_t i = 1; i < N_RXE_COUNTERS; i++)
		assert_counter(r.text, rxe_counters[i], busy_counter_values[i]);
	assert_line(r.text, "rdma_port_packets_received_total{device=\"rxe0\",port=\"1\"} 132141");
	run_ok(&r);
	assert_false(counter_exported(r.text, "sent_pkts"));
	assert_counter(r.text, "rcvd_pkts", 132141);
	run_stop(&r);

	/* the sysfs collector off: netlink exports every counter */
	o.sysfs_enabled = false;
	run_start(&r, w, &o);
	run_ok(&r);
	for (size_t i = 0; i < N_RXE_COUNTERS; i++)
		assert_counter(r.text, rxe_counters[i], busy_counter_values[i]);
	assert_line(r.text,
		    "rdma_port_packets_transmitted_total{device=\"rxe0\",port=\"1\"} 132141");
	run_stop(&r);

	close(fd);
	assert_int_equal(nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	world_free(w);
}

/*
 * sysfs exports a counter's family from another file (rcvd_pkts and
 * counters/port_rcv_packets both make rdma_port_packets_received_total):
 * netlink leaves the family to sysfs and exports its counter by name. Each
 * collector has its own sink (they run on threads of their own), so this
 * is decided from the files, not from what the sink already holds.
 */
static void test_family_left_to_sysfs(void **state)
{
	struct world *w = world_new("rxe-busy");
	char tmp[64], path[256];
	struct opts o = defaults;
	struct run r;
	FILE *f;
	int fd;

	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test_netlink_XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(path, sizeof(path), "%s/class/infiniband/rxe0/ports/1/counters", tmp);
	for (char *p = path + strlen(tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		assert_int_equal(mkdir(path, 0755), 0);
		*p = '/';
	}
	assert_int_equal(mkdir(path, 0755), 0);
	strcat(path, "/port_rcv_packets");
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("7\n", f);
	assert_int_equal(fclose(f), 0);
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);

	o.sysfs_fd = fd;
	o.sysfs_enabled = true;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_null(strstr(r.text, "\nrdma_port_packets_received_total{"));
	assert_line(r.text,
		    "rdma_port_statistic_total{device=\"rxe0\",port=\"1\",source=\"netlink\","
		    "counter=\"rcvd_pkts\"} 132141");
	/* the other direction has no sysfs file: netlink's own */
	assert_line(r.text,
		    "rdma_port_packets_transmitted_total{device=\"rxe0\",port=\"1\"} 132141");
	run_stop(&r);

	close(fd);
	assert_int_equal(nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	world_free(w);
}

/* ---- devices: filter, SIGHUP, re-creation ------------------------------------------------- */

static void test_device_filter(void **state)
{
	struct world *w = world_new("rxe-busy");
	const uint64_t mlx[NL_QP_STATES] = {0, 0, 0, 4, 0, 0, 0};
	struct opts o = defaults;
	struct run r;

	add_dev(w, "rxe0", 0, true, 0);
	add_dev(w, "mlx5_0", 3, false, 4);
	o.include = "rxe.*";
	run_start(&r, w, &o);
	run_ok(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_null(strstr(r.text, "mlx5_0"));
	assert_busy_qps(r.text);
	assert_int_equal(req_for_dev(w, 0, 3), 0);
	assert_int_equal(limits_calls_for(w, "mlx5_0"), 0);
	assert_int_equal(limits_calls_for(w, "rxe0"), 1);
	run_stop(&r);

	o.include = "mlx5_0";
	w->n_req = 0;
	run_start(&r, w, &o);
	run_ok(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_null(strstr(r.text, "rxe0"));
	assert_qps(r.text, "mlx5_0", "1", "RC", mlx);
	assert_line(r.text, "rdma_resources{device=\"mlx5_0\",resource=\"qp\"} 4");
	assert_line(r.text, "rdma_port_packets_received_total{device=\"mlx5_0\",port=\"1\"} 2003");
	assert_int_equal(req_for_dev(w, 0, 0), 0);
	assert_int_equal(req_count(w, 0, RDMA_NLDEV_CMD_STAT_GET, 3), 1);
	run_stop(&r);

	/* filtered down to nothing is not an error */
	o.include = "nothing";
	run_start(&r, w, &o);
	run_ok(&r);
	assert_int_equal(r.stats.devices, 0);
	assert_null(strstr(r.text, "rdma_qps"));
	assert_line(r.text, "rdma_exporter_netlink_errors_total{reason=\"kernel\"} 0");
	run_stop(&r);
	world_free(w);
}

static void test_reload(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	run_start(&r, w, &defaults);
	run_ok(&r);
	run_ok(&r);
	assert_int_equal(w->limits_calls, 1);
	assert_int_equal(w->opens, 1);

	/* SIGHUP: a new socket, devices synced again, limits queried again */
	netlink_collector_ops.reload(r.state);
	run_ok(&r);
	assert_int_equal(w->opens, 2);
	assert_int_equal(w->frees, 1);
	assert_int_equal(w->limits_calls, 2);
	assert_int_equal(r.stats.devices, 1);
	assert_busy_qps(r.text);
	assert_line(r.text, "rdma_resource_limit{device=\"rxe0\",resource=\"qp\"} 65536");
	run_ok(&r);
	assert_int_equal(w->limits_calls, 2);
	/* reload(NULL) is harmless */
	netlink_collector_ops.reload(NULL);
	run_stop(&r);
	world_free(w);
}

static void test_rescan_interval(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct opts o = defaults;
	struct run r;

	/* every poll is a re-scan: limits queried every time */
	o.rescan_s = 0;
	run_start(&r, w, &o);
	run_ok(&r);
	run_ok(&r);
	run_ok(&r);
	assert_int_equal(w->limits_calls, 3);
	assert_int_equal(w->opens, 1);
	run_stop(&r);

	/* limits not available: none exported, the rest is */
	w->limits_err = -ENODEV;
	w->limits_calls = 0;
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(w->limits_calls, 1);
	assert_null(strstr(r.text, "rdma_resource_limit"));
	assert_busy_qps(r.text);
	assert_int_equal(r.stats.read_errors, 0);
	run_stop(&r);
	world_free(w);
}

static void test_device_recreated(void **state)
{
	struct world *w = world_new("rxe-busy");
	struct run r;

	add_dev(w, "rxe0", 0, true, 0);
	run_start(&r, w, &defaults);
	run_ok(&r);
	assert_int_equal(w->limits_calls, 1);

	/* rxe0 deleted and added again: a new index */
	w->devs[0].index = 5;
	run_ok(&r);
	assert_int_equal(limits_calls_for(w, "rxe0"), 2);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_RES_QP_GET, 5), 1);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_RES_QP_GET, 0), 0);
	assert_busy_qps(r.text);
	assert_int_equal(r.stats.read_errors, 0);
	run_ok(&r);
	assert_int_equal(w->limits_calls, 2);

	/* with more ports now: new again, and its new port polled */
	w->devs[0].ports = 2;
	run_ok(&r);
	assert_int_equal(w->limits_calls, 3);
	assert_int_equal(req_count(w, r.req_before, RDMA_NLDEV_CMD_STAT_GET, 5), 2);
	run_stop(&r);
	world_free(w);
}

/* Series of one node device by family at default flags (no process rows,
 * attribution on, top 10 workloads, the QP states that hold one and ERR), for
 * an InfiniBand and a RoCE port. */
static const struct {
	const char *family;
	unsigned ib, roce;
} node_dev_series[] = {
	{"rdma_resources", 7, 7}, /* the kernel's summary: pd cq qp cm_id mr ctx srq */
	{"rdma_pds", 1, 1},	     {"rdma_resource_limit", 5, 5}, /* qp cq mr pd srq */
	{"rdma_qps", 8, 4}, /* RTS and ERR of SMI GSI UD RC, of GSI RC */
	{"rdma_cqs", 1, 1},	     {"rdma_cq_entries", 1, 1},
	{"rdma_mrs", 1, 1},	     {"rdma_mr_registered_bytes", 1, 1},
	{"rdma_cm_ids", 0, 0},	     {"rdma_srqs", 1, 1},
	{"rdma_process_qps", 0, 0}, /* top-processes 0 */
	{"rdma_process_mrs", 0, 0},  {"rdma_process_mr_registered_bytes", 0, 0},
	{"rdma_workload_qps", 2, 2}, /* the Slurm job, and the kernel's (no identity) */
	{"rdma_workload_mrs", 2, 2}, {"rdma_workload_mr_registered_bytes", 2, 2},
	{"rdma_workload_cqs", 2, 2}, {"rdma_workload_pds", 2, 2},
};

/* The node shape again with the flags that bring rows back: every QP state,
 * 10 processes; the InfiniBand one written to NETLINK_SERIES_OUT.ib.flags. */
static void node_shape_with_flags(struct world *w, struct opts *o, int shape, const char *path)
{
	struct run r;

	o->qp_states = NETLINK_QP_STATES_ALL;
	o->top = 10;
	run_start(&r, w, o);
	run_ok(&r);
	run_ok(&r);
	assert_int_equal(count_lines(r.text, "rdma_qps{", "device=\"mlx5_0\""),
			 (shape == NODE_IB ? 4 : 2) * NL_QP_STATES);
	assert_line(r.text,
		    "rdma_process_qps{device=\"mlx5_0\",comm=\"python3\",slurm_job_id=\"4242\"} %u",
		    NODE_RC_QPS);
	/* python3, ib_core, ib_ipoib on IB */
	assert_int_equal(count_lines(r.text, "rdma_process_qps{", "device=\"mlx5_0\""),
			 shape == NODE_IB ? 3 : 2);
	if (path && shape == NODE_IB)
		write_exposition(path, ".ib.flags", r.text);
	run_stop(&r);
}

/* Issue 31's node shapes: 8 mlx5 devices of one port (InfiniBand for the
 * H100 node, then RoCE), each with the kernel's QPs and one NCCL rank of a
 * Slurm job (node_reply), at default flags. Every device has exactly the
 * series of node_dev_series, and the collector 7 of its own. */
static void test_node_shape_series(void **state)
{
	const char *path = getenv("NETLINK_SERIES_OUT");

	for (int shape = NODE_IB; shape <= NODE_ROCE; shape++) {
		struct world *w = calloc(1, sizeof(*w));
		char root[] = "/tmp/test_netlink_proc_XXXXXX";
		struct opts o = defaults;
		unsigned per_dev = 0;
		struct run r;

		assert_non_null(w);
		assert_non_null(mkdtemp(root));
		w->mlx5_limits = true;
		for (uint32_t i = 0; i < 8; i++) {
			char name[NL_NAME_MAX], cg[128];
			struct fake_dev *d;

			snprintf(name, sizeof(name), "mlx5_%u", i);
			d = add_dev(w, name, i, false, 0);
			d->node = (enum node_shape)shape;
			d->pid = 7000 + i;
			snprintf(cg, sizeof(cg),
				 "0::/system.slice/slurmstepd.scope/job_4242/step_0/user/task_%u\n",
				 i);
			put_proc(root, d->pid, 70000 + i, cg);
		}
		/* the collector's own defaults, from its flag table */
		o.top = (unsigned)netlink_collector_ops.flags[NETLINK_FLAG_TOP_PROCESSES].def;
		o.attribution = netlink_collector_ops.flags[NETLINK_FLAG_ATTRIBUTION].def != 0;
		o.top_wl = (unsigned)netlink_collector_ops.flags[NETLINK_FLAG_TOP_WORKLOADS].def;
		o.qp_states =
			(enum netlink_qp_states)netlink_collector_ops.flags[NETLINK_FLAG_QP_STATES]
				.def;
		o.sysfs_enabled = true;
		o.proc_root = root;
		run_start(&r, w, &o);
		run_ok(&r);
		run_ok(&r);
		for (size_t k = 0; k < sizeof(node_dev_series) / sizeof(node_dev_series[0]); k++)
			per_dev +=
				shape == NODE_IB ? node_dev_series[k].ib : node_dev_series[k].roce;
		for (int i = 0; i < 8; i++) {
			char dev[32];
			unsigned all = 0;

			snprintf(dev, sizeof(dev), "device=\"mlx5_%d\"", i);
			for (size_t k = 0; k < sizeof(node_dev_series) / sizeof(node_dev_series[0]);
			     k++) {
				char prefix[64];
				unsigned want = shape == NODE_IB ? node_dev_series[k].ib
								 : node_dev_series[k].roce;
				unsigned n;

				snprintf(prefix, sizeof(prefix), "%s{", node_dev_series[k].family);
				n = count_lines(r.text, prefix, dev);
				if (n != want)
					fail_msg("%s %s: %u series, expected %u", dev,
						 node_dev_series[k].family, n, want);
				all += n;
			}
			/* nothing else of this device: no netlink-only counter */
			assert_int_equal(count_lines(r.text, "rdma_", dev), all);
		}
		assert_line(r.text,
			    "rdma_qps{device=\"mlx5_0\",port=\"1\",type=\"RC\",state=\"ERR\"} 0");
		assert_int_equal(count_lines(r.text, "rdma_exporter_netlink_", NULL), 7);
		assert_int_equal(count_lines(r.text, "rdma_", NULL), 8 * per_dev + 7);
		print_message("netlink collector, 8 %s devices: %u series (%u per device)\n",
			      shape == NODE_IB ? "InfiniBand" : "RoCE",
			      count_lines(r.text, "rdma_", NULL), per_dev);
		if (path)
			write_exposition(path, shape == NODE_IB ? ".ib" : ".roce", r.text);
		run_stop(&r);
		node_shape_with_flags(w, &o, shape, path);
		assert_int_equal(nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
		world_free(w);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_qp_states_all),
		cmocka_unit_test(test_flag_defaults),
		cmocka_unit_test(test_node_shape_series),
		cmocka_unit_test(test_pingpong_then_busy),
		cmocka_unit_test(test_top_processes),
		cmocka_unit_test(test_mr_length_hidden),
		cmocka_unit_test(test_workload_attribution),
		cmocka_unit_test(test_workload_no_pd_dump),
		cmocka_unit_test(test_pid_namespace_note),
		cmocka_unit_test(test_no_rdma_netlink),
		cmocka_unit_test(test_dump_intr_every_time),
		cmocka_unit_test(test_dump_intr_once),
		cmocka_unit_test(test_intr_retry_of_cq_dump_keeps_qps),
		cmocka_unit_test(test_emsgsize_retry_of_mr_dump_keeps_qps_cqs),
		cmocka_unit_test(test_emsgsize_once),
		cmocka_unit_test(test_enobufs_once),
		cmocka_unit_test(test_two_devices_two_polls),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_device_vanishes),
		cmocka_unit_test(test_malformed_qp_entry),
		cmocka_unit_test(test_device_dump_fails),
		cmocka_unit_test(test_srq_and_stat_unsupported),
		cmocka_unit_test(test_counters_left_to_sysfs),
		cmocka_unit_test(test_family_left_to_sysfs),
		cmocka_unit_test(test_device_filter),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_rescan_interval),
		cmocka_unit_test(test_device_recreated),
	};

	/* the tests provoke failures on purpose: keep the log quiet */
	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
