// SPDX-License-Identifier: Apache-2.0
/*
 * netlink-scale: benchmark of the netlink collector's pure parsers on a
 * synthetic big host (prints figures; asserts nothing about time).
 *
 * It builds, with libmnl, the RDMA netlink dump replies a big host would
 * send: by default 100,000 QPs owned by 1,000 processes (pids 1000..1999,
 * Zipf-distributed so that a few processes own most QPs and top-N folding
 * matters, plus a few kernel-owned QPs: "ib_core" GSI QPs and "rdma_cm" RC
 * QPs) over 8 devices mlx5_0..mlx5_7 with ports 1 and 2, every QP type and
 * state; 1.6 MRs and 0.8 CQs per QP of each device (20,000 MRs and 10,000
 * CQs per device by default). The entries mirror what kernel 6.1 sends
 * (tests/fixtures/netlink/rxe-busy/cmd1[023]-dev0-port0.bin): the same
 * attributes in the same order, nests without NLA_F_NESTED, one NLM_F_MULTI
 * message per datagram of at most 32 KiB, the entry that does not fit moved
 * to the next datagram, then NLMSG_DONE alone. Generation is not timed.
 *
 * Timed, wall clock and CPU time, over --reps repetitions after one uncounted
 * first pass that grows the tables (min and median reported): feeding every
 * datagram of every device through nl_reply_feed into one struct nl_dev_agg
 * per device (nl_on_qp_msg, nl_on_mr_msg, nl_on_cq_msg; nl_dev_agg_reset
 * between repetitions), then nl_fold_processes with top 10 and a comm
 * function that names pid P "proc<P % 97>" so that processes fold by name.
 * Memory: the RSS growth while aggregating (VmHWM after, VmRSS before, the
 * high-water mark reset through /proc/self/clear_refs once the input is
 * built) and the size of the aggregates computed from their capacities,
 * apart from the memory that holds the synthetic input.
 *
 * Exits 1 when a parse call fails or the aggregates disagree with the counts
 * the generator synthesized (that checks the generator, not the speed).
 *
 *   cmake --build build --target netlink-scale
 *   tests/bench/netlink-scale.sh build/tests/bench/netlink-scale [--qps N] [--procs N]
 *                                [--devices N] [--reps N] [--mrs N] [--cqs N]
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <rdma/rdma_netlink.h>

#include "netlink_parse.h"

/*
 * A dump datagram: netlink_dump() allocates up to 32 KiB for a reader whose
 * buffer is that large (max_recvmsg_len is capped at SKB_WITH_OVERHEAD(32768)),
 * which leaves 32768 - 320 bytes of skb_shared_info on x86_64.
 */
#define DGRAM_MAX (32768 - 320)
#define PORTS	  2
#define PORTID	  0x5ca1ab1eu /* our socket's port id, echoed in every reply */
#define TOP	  10
#define COMM_MOD  97

/* enum ib_qp_type (include/rdma/ib_verbs.h): not in the uapi headers. */
enum { QPT_GSI = 1, QPT_RC = 2, QPT_UC = 3, QPT_UD = 4, QPT_XRC_TGT = 10, QPT_SLOTS = 16 };
/* enum ib_qp_state */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

/* Kernel owners come after the procs user owners in the expected tables. */
static const char *const kern_names[] = {"ib_core", "rdma_cm"};
#define KERN_IB_CORE 0
#define KERN_RDMA_CM 1
#define N_KERN	     2

/* ---- the synthetic input --------------------------------------------------------------- */

struct dgram {
	size_t off, len;
};

/* All datagrams of all dumps, back to back in one buffer. */
struct input {
	unsigned char *buf;
	size_t len, cap;
	struct dgram *dg;
	size_t n_dg, cap_dg;
};

/* One reply: datagrams [first, first + n) of the input. */
struct dump {
	uint16_t cmd;
	uint32_t seq;
	size_t first, n, bytes;
};

struct expect_owner {
	uint64_t qps, mrs, mr_bytes;
};

/* What the generator put in one device's dumps. */
struct expect {
	uint64_t qp[PORTS + 1][QPT_SLOTS][NL_QP_STATES];
	uint64_t qps, mrs, mr_bytes, cqs, cqes;
	struct expect_owner *owner; /* procs user owners, then N_KERN kernel owners */
};

struct device {
	uint32_t index;
	char name[NL_NAME_MAX];
	size_t n_qp, n_mr, n_cq;
	struct dump qp, mr, cq;
	struct expect exp;
	struct nl_dev_agg agg;
};

struct opts {
	uint64_t qps, procs, devices, reps;
	uint64_t mrs, cqs; /* per device; UINT64_MAX: 1.6 and 0.8 per QP of the device */
};

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A reproducible random value for object j of a kind on a device: an entry
 * that did not fit is built again, identical, in the next datagram. */
static uint64_t obj_hash(uint32_t kind, uint32_t dev, uint64_t j)
{
	return mix64(((uint64_t)kind << 56) ^ ((uint64_t)dev << 40) ^ j);
}

/*
 * Owner ranks (0 .. procs-1, pid 1000 + rank) of `total` user objects: rank
 * k owns a share proportional to 1/(k+1) (Zipf, s = 1), in shuffled order
 * as processes come and go.
 */
static uint32_t *zipf_owners(size_t total, uint32_t procs, uint64_t seed)
{
	uint32_t *v = malloc((total ? total : 1) * sizeof(*v));
	double w = 0;
	size_t n = 0;

	if (!v)
		return NULL;
	for (uint32_t k = 0; k < procs; k++)
		w += 1.0 / (k + 1);
	for (uint32_t k = 0; k < procs; k++) {
		size_t c = (size_t)((double)total / (k + 1) / w);

		for (size_t i = 0; i < c && n < total; i++)
			v[n++] = k;
	}
	for (uint32_t k = 0; n < total; k = (k + 1) % procs)
		v[n++] = k;
	for (size_t i = total; i > 1; i--) {
		size_t j = mix64(seed ^ i) % i;
		uint32_t t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
	return v;
}

static int input_reserve(struct input *in)
{
	if (in->cap - in->len < DGRAM_MAX) {
		size_t ncap = in->cap ? in->cap * 2 : 4 << 20;
		unsigned char *p = realloc(in->buf, ncap);

		if (!p)
			return -ENOMEM;
		in->buf = p;
		in->cap = ncap;
	}
	if (in->n_dg == in->cap_dg) {
		size_t ncap = in->cap_dg ? in->cap_dg * 2 : 1024;
		struct dgram *p = realloc(in->dg, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		in->dg = p;
		in->cap_dg = ncap;
	}
	return 0;
}

/* Starts a datagram holding one message at the end of the input. */
static struct nlmsghdr *dgram_begin(struct input *in, uint16_t type, uint32_t seq)
{
	struct nlmsghdr *nlh;

	if (input_reserve(in) < 0)
		return NULL;
	memset(in->buf + in->len, 0, MNL_NLMSG_HDRLEN);
	nlh = mnl_nlmsg_put_header(in->buf + in->len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_MULTI;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = PORTID;
	return nlh;
}

static void dgram_end(struct input *in, struct dump *d, const struct nlmsghdr *nlh)
{
	in->dg[in->n_dg].off = in->len;
	in->dg[in->n_dg].len = nlh->nlmsg_len;
	in->n_dg++;
	in->len += nlh->nlmsg_len;
	d->n++;
	d->bytes += nlh->nlmsg_len;
}

/* The kernel opens its nests with nla_nest_start_noflag(): no NLA_F_NESTED. */
static void nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	mnl_attr_nest_end(nlh, nest);
	nest->nla_type &= NLA_TYPE_MASK;
}

/* Builds one object's entry at the end of nlh, or returns false with nlh
 * unchanged when it does not fit in lim bytes. */
struct gen;
typedef bool (*put_entry_fn)(struct nlmsghdr *nlh, size_t lim, size_t j, struct gen *g);

struct gen {
	struct device *dev;
	const uint32_t *owners; /* user owner rank of each user object of this device */
	size_t n_kern;		/* kernel-owned objects come first */
	uint32_t procs;
	put_entry_fn put;
};

/* A resource dump the way res_get_common_dumpit() writes it. */
static int build_dump(struct input *in, struct gen *g, uint16_t cmd, uint16_t table, size_t n,
		      struct dump *d)
{
	struct nlmsghdr *nlh;
	size_t j = 0;

	memset(d, 0, sizeof(*d));
	d->cmd = cmd;
	d->seq = 1000 + g->dev->index * 100 + cmd;
	d->first = in->n_dg;
	while (j < n) {
		struct nlattr *nest;
		size_t before = j;

		nlh = dgram_begin(in, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), d->seq);
		if (!nlh)
			return -ENOMEM;
		mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, g->dev->index);
		mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, g->dev->name);
		nest = mnl_attr_nest_start(nlh, table);
		while (j < n && g->put(nlh, DGRAM_MAX, j, g))
			j++;
		if (j == before)
			return -EMSGSIZE; /* an entry larger than a datagram */
		nest_end(nlh, nest);
		dgram_end(in, d, nlh);
	}
	/* The call after the last entry fills nothing: NLMSG_DONE comes alone. */
	nlh = dgram_begin(in, NLMSG_DONE, d->seq);
	if (!nlh)
		return -ENOMEM;
	mnl_nlmsg_put_extra_header(nlh, sizeof(int32_t)); /* error 0 */
	dgram_end(in, d, nlh);
	return 0;
}

/* Owner of object j: a user rank (< procs) or procs + KERN_*. */
static uint32_t owner_of_obj(const struct gen *g, size_t j, uint32_t kern)
{
	return j < g->n_kern ? g->procs + kern : g->owners[j - g->n_kern];
}

static bool put_owner(struct nlmsghdr *nlh, size_t lim, const struct gen *g, uint32_t owner)
{
	if (owner >= g->procs)
		return mnl_attr_put_strz_check(nlh, lim, RDMA_NLDEV_ATTR_RES_KERN_NAME,
					       kern_names[owner - g->procs]);
	return mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_PID, 1000 + owner);
}

static bool entry_done(struct nlmsghdr *nlh, struct nlattr *e, bool ok)
{
	if (!ok) {
		mnl_attr_nest_cancel(nlh, e);
		return false;
	}
	nest_end(nlh, e);
	return true;
}

struct qp {
	uint32_t owner, port, lqpn;
	uint8_t type, state;
};

/* The first PORTS QPs are the GSI QPs of ib_core, then a few rdma_cm RC
 * QPs (an NFS/RDMA or iSER mount), then user QPs. */
static void qp_of(const struct gen *g, size_t j, struct qp *q)
{
	uint64_t h = obj_hash(1, g->dev->index, j);
	unsigned t = (unsigned)(h % 100), s = (unsigned)((h >> 8) % 100);

	q->lqpn = j < PORTS ? 1 : (uint32_t)(0x100 + j);
	if (j < PORTS) {
		q->owner = g->procs + KERN_IB_CORE;
		q->type = QPT_GSI;
		q->state = QPS_RTS;
		q->port = (uint32_t)j + 1;
		return;
	}
	q->owner = owner_of_obj(g, j, KERN_RDMA_CM);
	q->type = t < 70 ? QPT_RC : t < 82 ? QPT_UD : t < 88 ? QPT_UC : QPT_XRC_TGT;
	if (j < g->n_kern)
		q->type = QPT_RC;
	q->state = s < 80   ? QPS_RTS
		   : s < 85 ? QPS_RTR
		   : s < 88 ? QPS_INIT
		   : s < 90 ? QPS_RESET
		   : s < 92 ? QPS_SQD
		   : s < 94 ? QPS_SQE
			    : QPS_ERR;
	/* A QP in RESET has no port yet: the kernel leaves PORT_INDEX out. */
	q->port = q->state == QPS_RESET ? 0 : (uint32_t)((h >> 16) & 1) + 1;
}

/* fill_res_qp_entry() and fill_res_qp_entry_query() of kernel 6.1. */
static bool put_qp(struct nlmsghdr *nlh, size_t lim, size_t j, struct gen *g)
{
	uint64_t h = obj_hash(2, g->dev->index, j);
	bool kern, rc_uc, ok;
	struct nlattr *e;
	struct expect *x;
	struct qp q;

	qp_of(g, j, &q);
	kern = q.owner >= g->procs;
	rc_uc = q.type == QPT_RC || q.type == QPT_UC;
	e = mnl_attr_nest_start_check(nlh, lim, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	if (!e)
		return false;
	ok = (!q.port || mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_PORT_INDEX, q.port)) &&
	     mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_LQPN, q.lqpn) &&
	     (kern ||
	      mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_PDN, 1 + q.owner % 64)) &&
	     put_owner(nlh, lim, g, q.owner) &&
	     (!rc_uc || (mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_RQPN,
						(uint32_t)(h & 0xffffff)) &&
			 mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_RQ_PSN,
						(uint32_t)((h >> 24) & 0xffffff)))) &&
	     mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_SQ_PSN,
				    (uint32_t)((h >> 48) & 0xffff)) &&
	     (!(rc_uc || q.type == QPT_XRC_TGT) ||
	      mnl_attr_put_u8_check(nlh, lim, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0)) &&
	     mnl_attr_put_u8_check(nlh, lim, RDMA_NLDEV_ATTR_RES_TYPE, q.type) &&
	     mnl_attr_put_u8_check(nlh, lim, RDMA_NLDEV_ATTR_RES_STATE, q.state);
	if (!entry_done(nlh, e, ok))
		return false;
	x = &g->dev->exp;
	x->qp[q.port][q.type][q.state]++;
	x->qps++;
	x->owner[q.owner].qps++;
	return true;
}

/* fill_res_mr_entry() as CAP_NET_ADMIN sees it: keys, length, ids. */
static bool put_mr(struct nlmsghdr *nlh, size_t lim, size_t j, struct gen *g)
{
	static const uint64_t sizes[] = {4096, 65536, 2u << 20, 8u << 20, 1u << 30};
	uint64_t h = obj_hash(3, g->dev->index, j);
	uint32_t owner = owner_of_obj(g, j, KERN_RDMA_CM);
	uint64_t len = sizes[h % (sizeof(sizes) / sizeof(sizes[0]))];
	struct nlattr *e;
	struct expect *x;
	bool ok;

	e = mnl_attr_nest_start_check(nlh, lim, RDMA_NLDEV_ATTR_RES_MR_ENTRY);
	if (!e)
		return false;
	ok = mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_RKEY, (uint32_t)(h >> 32)) &&
	     mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_LKEY, (uint32_t)h) &&
	     mnl_attr_put_u64_check(nlh, lim, RDMA_NLDEV_ATTR_RES_MRLEN, len) &&
	     mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_MRN, (uint32_t)j) &&
	     (owner >= g->procs ||
	      mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_PDN, 1 + owner % 64)) &&
	     put_owner(nlh, lim, g, owner);
	if (!entry_done(nlh, e, ok))
		return false;
	x = &g->dev->exp;
	x->mrs++;
	x->mr_bytes += len;
	x->owner[owner].mrs++;
	x->owner[owner].mr_bytes += len;
	return true;
}

/* fill_res_cq_entry(): the kernel's CQs also say their poll context. */
static bool put_cq(struct nlmsghdr *nlh, size_t lim, size_t j, struct gen *g)
{
	static const uint32_t cqes[] = {255, 1023, 4095, 32767};
	uint64_t h = obj_hash(4, g->dev->index, j);
	uint32_t owner = owner_of_obj(g, j, KERN_IB_CORE);
	uint32_t cqe = cqes[h % (sizeof(cqes) / sizeof(cqes[0]))];
	bool kern = owner >= g->procs, ok;
	struct nlattr *e;

	e = mnl_attr_nest_start_check(nlh, lim, RDMA_NLDEV_ATTR_RES_CQ_ENTRY);
	if (!e)
		return false;
	ok = mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_CQE, cqe) &&
	     mnl_attr_put_u64_check(nlh, lim, RDMA_NLDEV_ATTR_RES_USECNT, 1 + (h >> 40) % 64) &&
	     (!kern || mnl_attr_put_u8_check(nlh, lim, RDMA_NLDEV_ATTR_RES_POLL_CTX, 2)) &&
	     mnl_attr_put_u8_check(nlh, lim, RDMA_NLDEV_ATTR_DEV_DIM, 0) &&
	     mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_CQN, (uint32_t)j) &&
	     (kern || mnl_attr_put_u32_check(nlh, lim, RDMA_NLDEV_ATTR_RES_CTXN, 1 + owner)) &&
	     put_owner(nlh, lim, g, owner);
	if (!entry_done(nlh, e, ok))
		return false;
	g->dev->exp.cqs++;
	g->dev->exp.cqes += cqe;
	return true;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

static size_t share(uint64_t total, uint64_t parts, uint64_t i)
{
	return (size_t)(total / parts + (i < total % parts));
}

/* Builds the QP, MR and CQ dumps of every device; returns 0 or -errno. */
static int generate(const struct opts *o, struct device *devs, struct input *in)
{
	size_t user_qps = 0, user_mrs = 0, user_cqs = 0, oq = 0, om = 0, oc = 0;
	uint32_t *own_qp = NULL, *own_mr = NULL, *own_cq = NULL;
	uint32_t procs = (uint32_t)o->procs;
	int err = -ENOMEM;

	for (uint32_t d = 0; d < o->devices; d++) {
		struct device *v = &devs[d];

		v->index = d;
		snprintf(v->name, sizeof(v->name), "mlx5_%u", d);
		v->n_qp = share(o->qps, o->devices, d);
		v->n_mr = o->mrs == UINT64_MAX ? v->n_qp * 8 / 5 : (size_t)o->mrs;
		v->n_cq = o->cqs == UINT64_MAX ? v->n_qp * 4 / 5 : (size_t)o->cqs;
		v->exp.owner = calloc(procs + N_KERN, sizeof(*v->exp.owner));
		if (!v->exp.owner)
			return -ENOMEM;
		user_qps += v->n_qp - min_size(v->n_qp, PORTS + 4);
		user_mrs += v->n_mr - min_size(v->n_mr, 2);
		user_cqs += v->n_cq - min_size(v->n_cq, PORTS);
	}
	own_qp = zipf_owners(user_qps, procs, 11);
	own_mr = zipf_owners(user_mrs, procs, 12);
	own_cq = zipf_owners(user_cqs, procs, 13);
	if (!own_qp || !own_mr || !own_cq)
		goto out;
	for (uint32_t d = 0; d < o->devices; d++) {
		struct device *v = &devs[d];
		struct gen g = {.dev = v, .procs = procs};

		g.n_kern = min_size(v->n_qp, PORTS + 4);
		g.owners = own_qp + oq;
		g.put = put_qp;
		oq += v->n_qp - g.n_kern;
		err = build_dump(in, &g, RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, v->n_qp,
				 &v->qp);
		if (err < 0)
			goto out;
		g.n_kern = min_size(v->n_mr, 2);
		g.owners = own_mr + om;
		g.put = put_mr;
		om += v->n_mr - g.n_kern;
		err = build_dump(in, &g, RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, v->n_mr,
				 &v->mr);
		if (err < 0)
			goto out;
		g.n_kern = min_size(v->n_cq, PORTS);
		g.owners = own_cq + oc;
		g.put = put_cq;
		oc += v->n_cq - g.n_kern;
		err = build_dump(in, &g, RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, v->n_cq,
				 &v->cq);
		if (err < 0)
			goto out;
	}
	err = 0;
out:
	free(own_cq);
	free(own_mr);
	free(own_qp);
	return err;
}

/* ---- the measured work ----------------------------------------------------------------- */

typedef int (*on_msg_fn)(const struct nlmsghdr *nlh, void *data);

/* Feeds one reply; on failure *at is the datagram that failed. */
static int feed_dump(const struct input *in, const struct dump *d, on_msg_fn on_msg,
		     struct nl_dev_agg *a, size_t *at)
{
	struct nl_reply r = {
		.seq = d->seq, .portid = PORTID, .cmd = d->cmd, .on_msg = on_msg, .data = a};

	for (size_t i = 0; i < d->n; i++) {
		const struct dgram *g = &in->dg[d->first + i];
		int ret = nl_reply_feed(&r, in->buf + g->off, g->len);

		*at = i;
		if (ret < 0)
			return ret;
		/* 0 exactly at the last datagram: the reply ends where it does. */
		if ((ret == 0) != (i + 1 == d->n))
			return -EPROTO;
	}
	return r.bad_messages ? -EBADMSG : 0;
}

static int comm_of_pid(uint32_t pid, char *comm, size_t size, void *data)
{
	snprintf(comm, size, "proc%u", pid % COMM_MOD);
	return 0;
}

static int feed_all(const struct input *in, struct device *devs, size_t n_dev, int which)
{
	for (size_t d = 0; d < n_dev; d++) {
		struct device *v = &devs[d];
		const struct dump *dump = which == 0 ? &v->qp : which == 1 ? &v->mr : &v->cq;
		on_msg_fn fn = which == 0 ? nl_on_qp_msg : which == 1 ? nl_on_mr_msg : nl_on_cq_msg;
		size_t at = 0;
		int r = feed_dump(in, dump, fn, &v->agg, &at);

		if (r < 0) {
			fprintf(stderr, "netlink-scale: %s: command %u: datagram %zu of %zu: %s\n",
				v->name, dump->cmd, at + 1, dump->n, strerror(-r));
			return r;
		}
	}
	return 0;
}

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Reads every byte of the input once before the clock starts: on a
 * Firecracker VM the first read of the freshly generated 20 MiB cost 9 ms
 * (the next one 0.7 ms), which belongs to the generator, not to the parser. */
static void touch_input(const struct input *in)
{
	volatile unsigned char sink = 0;
	unsigned char x = 0;

	for (size_t i = 0; i < in->len; i++)
		x ^= in->buf[i];
	sink = x;
	(void)sink;
}

/* ---- checks ---------------------------------------------------------------------------- */

/* Prints why device v failed its check; returns -1. */
static int check_fail(const struct device *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int check_fail(const struct device *v, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "netlink-scale: %s: ", v->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* QP buckets, CQ and MR totals against the generated ones. */
static int check_totals(const struct device *v)
{
	const struct nl_dev_agg *a = &v->agg;
	const struct expect *x = &v->exp;
	uint64_t got[PORTS + 1][QPT_SLOTS][NL_QP_STATES] = {{{0}}};

	if (a->bad_objects)
		return check_fail(v, "%" PRIu64 " objects did not parse", a->bad_objects);
	for (size_t i = 0; i < a->n_qp; i++) {
		if (a->qp[i].port > PORTS || a->qp[i].type >= QPT_SLOTS)
			return check_fail(v, "QP bucket port %u type %u was never generated",
					  a->qp[i].port, a->qp[i].type);
		memcpy(got[a->qp[i].port][a->qp[i].type], a->qp[i].n, sizeof(a->qp[i].n));
	}
	if (memcmp(got, x->qp, sizeof(got)) != 0)
		return check_fail(
			v, "QP counts by port, type and state differ from the generated ones");
	if (a->cqs != x->cqs || a->cqes != x->cqes)
		return check_fail(v,
				  "%" PRIu64 " CQs (%" PRIu64 " CQEs), generated %" PRIu64
				  " (%" PRIu64 ")",
				  a->cqs, a->cqes, x->cqs, x->cqes);
	if (a->mrs != x->mrs || a->mr_bytes != x->mr_bytes || a->mrs_with_len != x->mrs)
		return check_fail(v,
				  "%" PRIu64 " MRs of %" PRIu64 " bytes, generated %" PRIu64
				  " of %" PRIu64,
				  a->mrs, a->mr_bytes, x->mrs, x->mr_bytes);
	return 0;
}

/* The generated owner an aggregated one stands for, or NULL. */
static const struct expect_owner *expected_owner(const struct expect *x, const struct nl_owner *o,
						 uint32_t procs)
{
	const struct expect_owner *e = NULL;

	if (o->pid >= 1000 && o->pid - 1000 < procs && !o->kern[0])
		e = &x->owner[o->pid - 1000];
	for (uint32_t k = 0; k < N_KERN && !o->pid; k++)
		if (strcmp(o->kern, kern_names[k]) == 0)
			e = &x->owner[procs + k];
	return e;
}

/* Every owner against the generated ones; *distinct: how many command names they have. */
static int check_owners(const struct device *v, uint32_t procs, size_t *distinct)
{
	const struct nl_dev_agg *a = &v->agg;
	const struct expect *x = &v->exp;
	bool names[COMM_MOD + N_KERN] = {false};
	size_t owners = 0, used = 0;

	for (size_t i = 0; i < a->cap_owners; i++) {
		const struct nl_owner *o = &a->owners[i];
		const struct expect_owner *e;

		if (!o->used)
			continue;
		owners++;
		used++;
		e = expected_owner(x, o, procs);
		if (!e)
			return check_fail(v, "owner pid %u kern \"%s\" was never generated", o->pid,
					  o->kern);
		if (e->qps != o->qps || e->mrs != o->mrs || e->mr_bytes != o->mr_bytes)
			return check_fail(v,
					  "owner pid %u kern \"%s\": %" PRIu64 " QPs %" PRIu64
					  " MRs, generated %" PRIu64 " %" PRIu64,
					  o->pid, o->kern, o->qps, o->mrs, e->qps, e->mrs);
	}
	*distinct = 0;
	for (uint32_t k = 0; k < procs + N_KERN; k++) {
		size_t name = k < procs ? (1000 + k) % COMM_MOD : COMM_MOD + (k - procs);

		if (!x->owner[k].qps && !x->owner[k].mrs)
			continue;
		owners--;
		if (!names[name])
			(*distinct)++;
		names[name] = true;
	}
	if (owners != 0 || a->n_owners != used)
		return check_fail(v, "%zu owners, generated %zu", a->n_owners, used - owners);
	return 0;
}

/* The folded top-N rows add up to the generated totals, one row per name up to TOP. */
static int check_folded(const struct device *v, size_t distinct)
{
	const struct expect *x = &v->exp;
	uint64_t row_qps = 0, row_mrs = 0, row_bytes = 0;
	struct nl_proc_row *rows = NULL;
	size_t n_rows = 0;
	int r = 0;

	if (nl_fold_processes(&v->agg, TOP, comm_of_pid, NULL, &rows, &n_rows) < 0)
		return check_fail(v, "nl_fold_processes: out of memory");
	for (size_t i = 0; i < n_rows; i++) {
		row_qps += rows[i].qps;
		row_mrs += rows[i].mrs;
		row_bytes += rows[i].mr_bytes;
	}
	if (row_qps != x->qps || row_mrs != x->mrs || row_bytes != x->mr_bytes)
		r = check_fail(v,
			       "folded rows add up to %" PRIu64 " QPs %" PRIu64
			       " MRs, generated %" PRIu64 " %" PRIu64,
			       row_qps, row_mrs, x->qps, x->mrs);
	else if (n_rows != (distinct > TOP ? TOP + 1 : distinct))
		r = check_fail(v, "%zu folded rows for %zu names", n_rows, distinct);
	free(rows);
	return r;
}

static int check_device(const struct device *v, uint32_t procs)
{
	size_t distinct = 0;

	if (check_totals(v) < 0 || check_owners(v, procs, &distinct) < 0)
		return -1;
	return check_folded(v, distinct);
}

/* ---- figures --------------------------------------------------------------------------- */

/* VmHWM or VmRSS of this process in KiB, or -1. */
static long status_kib(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':') {
			char *end;

			v = strtol(line + n + 1, &end, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Resets VmHWM to the current RSS (Linux 4.0+); false where refused. */
static bool reset_hwm(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, "5", 1) == 1;
	close(fd);
	return ok;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* Sorts v in place; returns its median. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { PH_RESET, PH_QP, PH_MR, PH_CQ, PH_FOLD, PH_WALL, PH_CPU, PH_N };

static void usage(FILE *f)
{
	fprintf(f, "usage: netlink-scale [--qps N] [--procs N] [--devices N] [--reps N]\n"
		   "                     [--mrs N] [--cqs N]\n"
		   "  defaults: 100000 QPs over 1000 processes and 8 devices, 7 repetitions;\n"
		   "  --mrs and --cqs are per device (default 1.6 and 0.8 per QP of the device)\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		static const char *const names[] = {"--qps",  "--procs", "--devices",
						    "--reps", "--mrs",	 "--cqs"};
		uint64_t *dst[] = {&o->qps, &o->procs, &o->devices, &o->reps, &o->mrs, &o->cqs};
		size_t k;
		char *end;

		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(argv[i], names[k]) == 0)
				break;
		if (k == sizeof(names) / sizeof(names[0]) || i + 1 == argc)
			return -EINVAL;
		errno = 0;
		*dst[k] = strtoull(argv[++i], &end, 10);
		if (errno || end == argv[i] || *end || argv[i][0] == '-' || *dst[k] > UINT32_MAX)
			return -EINVAL;
	}
	if (!o->procs || !o->devices || !o->reps || o->procs > UINT32_MAX - 1000)
		return -EINVAL;
	return 0;
}

static void print_phase(const char *name, double *v, size_t reps, uint64_t objs, const char *unit)
{
	double med = median(v, reps);

	printf("  %-28s %9.3f %10.3f", name, v[0] / 1e6, med / 1e6);
	if (objs && med > 0)
		printf(" %8.1f ns/%-2s %7.2f M%s/s", med / (double)objs, unit,
		       (double)objs / med * 1e3, unit);
	printf("\n");
}

static uint64_t agg_qps(const struct nl_dev_agg *a)
{
	uint64_t n = 0;

	for (size_t i = 0; i < a->n_qp; i++)
		for (int s = 0; s < NL_QP_STATES; s++)
			n += a->qp[i].n[s];
	return n;
}

/* Bytes the aggregates hold, from their capacities. */
struct agg_mem {
	size_t owners, buckets, structs, transient;
};

static void agg_memory(const struct device *devs, size_t n_dev, struct agg_mem *m)
{
	memset(m, 0, sizeof(*m));
	for (size_t d = 0; d < n_dev; d++) {
		const struct nl_dev_agg *a = &devs[d].agg;
		size_t ob = a->cap_owners * sizeof(struct nl_owner);
		size_t rows = (a->n_owners + 1) * sizeof(struct nl_proc_row);

		m->owners += ob;
		m->buckets += a->cap_qp * sizeof(struct nl_qp_bucket) +
			      a->cap_cm * sizeof(struct nl_cm_bucket);
		m->structs += sizeof(*a);
		/* Alive for a moment on top of the rest: the old owner table
		 * while it grows (half the final one), or nl_fold_processes' rows. */
		if (ob / 2 > m->transient)
			m->transient = ob / 2;
		if (rows > m->transient)
			m->transient = rows;
	}
}

static void print_devices(const struct device *devs, size_t n_dev)
{
	printf("%-7s %8s %8s %8s %11s %7s %7s %8s %8s %7s\n", "device", "QPs", "MRs", "CQs",
	       "reply_B", "dgrams", "owners", "own_cap", "qp_bkts", "bad_obj");
	for (size_t d = 0; d < n_dev; d++) {
		const struct device *v = &devs[d];

		printf("%-7s %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %11zu %7zu %7zu %8zu %8zu %7" PRIu64 "\n",
		       v->name, agg_qps(&v->agg), v->agg.mrs, v->agg.cqs,
		       v->qp.bytes + v->mr.bytes + v->cq.bytes, v->qp.n + v->mr.n + v->cq.n,
		       v->agg.n_owners, v->agg.cap_owners, v->agg.n_qp, v->agg.bad_objects);
	}
}

/* Prints mlx5_0's folded rows, the way the collector would label them. */
static int print_rows(const struct device *v)
{
	struct nl_proc_row *rows;
	size_t n_rows;

	if (nl_fold_processes(&v->agg, TOP, comm_of_pid, NULL, &rows, &n_rows) < 0)
		return -ENOMEM;
	printf("\n%s per-process QPs (top %d, pids folded by name):\n ", v->name, TOP);
	for (size_t i = 0; i < n_rows; i++)
		printf(" %s=%" PRIu64, rows[i].comm, rows[i].qps);
	printf("\n");
	free(rows);
	return 0;
}

/* One repetition: every reply of every device, then the per-process rows. */
static int run_once(const struct input *in, struct device *devs, size_t n_dev, double *t)
{
	double c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID), w[PH_FOLD + 2];

	w[PH_RESET] = now_ns(CLOCK_MONOTONIC);
	for (size_t d = 0; d < n_dev; d++)
		nl_dev_agg_reset(&devs[d].agg);
	w[PH_QP] = now_ns(CLOCK_MONOTONIC);
	for (int which = 0; which < 3; which++) {
		int r = feed_all(in, devs, n_dev, which);

		if (r < 0)
			return r;
		w[PH_MR + which] = now_ns(CLOCK_MONOTONIC);
	}
	for (size_t d = 0; d < n_dev; d++) {
		struct nl_proc_row *rows;
		size_t n_rows;

		if (nl_fold_processes(&devs[d].agg, TOP, comm_of_pid, NULL, &rows, &n_rows) < 0) {
			fprintf(stderr, "netlink-scale: nl_fold_processes: out of memory\n");
			return -ENOMEM;
		}
		free(rows);
	}
	w[PH_FOLD + 1] = now_ns(CLOCK_MONOTONIC);
	t[PH_CPU] = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	for (int p = PH_RESET; p <= PH_FOLD; p++)
		t[p] = w[p + 1] - w[p];
	t[PH_WALL] = w[PH_FOLD + 1] - w[PH_RESET];
	return 0;
}

/* One run of the benchmark: what it generated, measured and found. */
struct bench {
	struct opts o;
	struct device *devs;
	struct input in;
	double *t[PH_N];
	uint64_t qps, mrs, cqs, bytes, dgrams;
	long rss_gen, rss_before, hwm_after, rss_after;
	double first_wall, wall_med, cpu_med;
	size_t peak;
	bool hwm_reset;
};

static int bench_alloc(struct bench *b)
{
	b->devs = calloc(b->o.devices, sizeof(*b->devs));
	for (int p = 0; p < PH_N; p++)
		b->t[p] = calloc(b->o.reps, sizeof(double));
	for (int p = 0; p < PH_N; p++)
		if (!b->t[p])
			return -ENOMEM;
	return b->devs ? 0 : -ENOMEM;
}

static void bench_free(struct bench *b)
{
	for (size_t d = 0; b->devs && d < b->o.devices; d++) {
		nl_dev_agg_free(&b->devs[d].agg);
		free(b->devs[d].exp.owner);
	}
	for (int p = 0; p < PH_N; p++)
		free(b->t[p]);
	free(b->devs);
	free(b->in.buf);
	free(b->in.dg);
}

/* Totals of the generated input, and the lines that say what it is. */
static void describe_input(struct bench *b)
{
	for (size_t d = 0; d < b->o.devices; d++) {
		const struct device *v = &b->devs[d];

		b->qps += v->exp.qps;
		b->mrs += v->exp.mrs;
		b->cqs += v->exp.cqs;
		b->bytes += v->qp.bytes + v->mr.bytes + v->cq.bytes;
		b->dgrams += v->qp.n + v->mr.n + v->cq.n;
	}
	b->rss_gen = status_kib("VmRSS");
	printf("netlink-scale: %" PRIu64 " QPs, %" PRIu64 " MRs, %" PRIu64 " CQs of %" PRIu64
	       " processes on %" PRIu64 " devices, %" PRIu64 " repetitions\n",
	       b->qps, b->mrs, b->cqs, b->o.procs, b->o.devices, b->o.reps);
	printf("input: %" PRIu64 " datagrams of at most %d bytes, %" PRIu64
	       " bytes (%.1f MiB) of reply per repetition\n\n",
	       b->dgrams, DGRAM_MAX, b->bytes, (double)b->bytes / 1048576);
}

/* The timed part. */
static int run_timed(struct bench *b)
{
	touch_input(&b->in);
	b->rss_before = status_kib("VmRSS");
	b->hwm_reset = reset_hwm();
	/* A first pass grows the tables, as the collector's first poll does;
	 * the repetitions measure the steady state that every later poll sees. */
	for (uint64_t r = 0; r <= b->o.reps; r++) {
		double one[PH_N];

		if (run_once(&b->in, b->devs, b->o.devices, one) < 0)
			return -1;
		for (int p = 0; r && p < PH_N; p++)
			b->t[p][r - 1] = one[p];
		if (r == 0)
			b->first_wall = one[PH_WALL];
	}
	b->hwm_after = status_kib("VmHWM");
	b->rss_after = status_kib("VmRSS");
	return 0;
}

static void print_times(struct bench *b)
{
	uint64_t reps = b->o.reps;
	double **t = b->t;

	print_devices(b->devs, b->o.devices);
	printf("\ntime per repetition, all %" PRIu64
	       " devices  min_ms  median_ms  (median) per object\n",
	       b->o.devices);
	print_phase("nl_dev_agg_reset", t[PH_RESET], reps, 0, "");
	print_phase("QP dumps (nl_on_qp_msg)", t[PH_QP], reps, b->qps, "QP");
	print_phase("MR dumps (nl_on_mr_msg)", t[PH_MR], reps, b->mrs, "MR");
	print_phase("CQ dumps (nl_on_cq_msg)", t[PH_CQ], reps, b->cqs, "CQ");
	print_phase("nl_fold_processes, top 10", t[PH_FOLD], reps, 0, "");
	print_phase("total, wall clock", t[PH_WALL], reps, 0, "");
	print_phase("total, CPU time", t[PH_CPU], reps, 0, "");
	b->wall_med = median(t[PH_WALL], reps);
	b->cpu_med = median(t[PH_CPU], reps);
	printf("  first pass, not counted (tables grow): %.3f ms; CPU/wall %.2f\n",
	       b->first_wall / 1e6, b->wall_med > 0 ? b->cpu_med / b->wall_med : 0);
	printf("  throughput (median): %.0f QPs/s, %.0f objects/s, %.1f MiB/s of reply parsed\n",
	       (double)b->qps / b->wall_med * 1e9,
	       (double)(b->qps + b->mrs + b->cqs) / b->wall_med * 1e9,
	       (double)b->bytes / 1048576 / (b->wall_med / 1e9));
}

static void print_memory(struct bench *b)
{
	const struct input *in = &b->in;
	struct agg_mem m;

	agg_memory(b->devs, b->o.devices, &m);
	b->peak = m.owners + m.buckets + m.structs + m.transient;
	printf("\nmemory, KiB\n");
	printf("  synthetic input (not aggregation):\n");
	printf("    %-46s %9.1f\n", "reply datagrams, bytes used", (double)in->len / 1024);
	printf("    %-46s %9.1f\n", "reply buffer + datagram index, allocated",
	       (double)(in->cap + in->cap_dg * sizeof(struct dgram)) / 1024);
	printf("    %-46s %9ld\n", "RSS once generated", b->rss_gen);
	printf("  aggregation:\n");
	printf("    %-46s %9ld\n", "RSS before the first repetition", b->rss_before);
	printf("    %-46s %9ld%s\n", "peak RSS over the repetitions (VmHWM)", b->hwm_after,
	       b->hwm_reset ? "" : "  (clear_refs refused: the peak includes generation)");
	printf("    %-46s %9ld\n", "RSS growth caused by aggregating (HWM - before)",
	       b->hwm_after - b->rss_before);
	printf("    %-46s %9ld\n", "RSS after the repetitions", b->rss_after);
	printf("  aggregates, computed from their capacities:\n");
	printf("    %-46s %9.1f  (%zu B per struct nl_owner)\n", "owner hash tables",
	       (double)m.owners / 1024, sizeof(struct nl_owner));
	printf("    %-46s %9.1f\n", "QP and CM buckets", (double)m.buckets / 1024);
	printf("    %-46s %9.1f\n", "struct nl_dev_agg", (double)m.structs / 1024);
	printf("    %-46s %9.1f\n", "largest transient (table growth, fold rows)",
	       (double)m.transient / 1024);
	printf("    %-46s %9.1f\n", "peak", (double)b->peak / 1024);
}

/* Checks every device; -1 (printed) on a mismatch, -ENOMEM when out of memory. */
static int check_and_summarise(const struct bench *b)
{
	for (size_t d = 0; d < b->o.devices; d++)
		if (check_device(&b->devs[d], (uint32_t)b->o.procs) < 0)
			return -1;
	if (print_rows(&b->devs[0]) < 0)
		return -ENOMEM;
	printf("aggregates match the generated counts on every device\n\n");
	printf("parse+aggregate of %" PRIu64 " QPs: %.1f ms (median of %" PRIu64
	       "), peak aggregate memory: %.0f KiB\n",
	       b->qps, b->wall_med / 1e6, b->o.reps, (double)b->peak / 1024);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = {.o = {.qps = 100000,
				.procs = 1000,
				.devices = 8,
				.reps = 7,
				.mrs = UINT64_MAX,
				.cqs = UINT64_MAX}};
	int ret, err;

	if (parse_opts(argc, argv, &b.o) < 0) {
		usage(stderr);
		return 2;
	}
	err = bench_alloc(&b);
	if (err == 0) {
		err = generate(&b.o, b.devs, &b.in);
		if (err < 0) {
			fprintf(stderr, "netlink-scale: generating the replies: %s\n",
				strerror(-err));
			err = -1;
		}
	}
	if (err == 0) {
		describe_input(&b);
		err = run_timed(&b);
	}
	if (err == 0) {
		print_times(&b);
		print_memory(&b);
		err = check_and_summarise(&b);
	}
	if (err == -ENOMEM)
		fprintf(stderr, "netlink-scale: out of memory\n");
	ret = err == 0 ? 0 : 1;
	bench_free(&b);
	return ret;
}
