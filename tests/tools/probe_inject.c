// SPDX-License-Identifier: Apache-2.0
/*
 * probe_inject DEVICE PORT DEST_IPV4 QPN KIND [N]: sends N (default 1) UD
 * SENDs of one kind to the probe responder at QP QPN behind the RoCE v2 GID
 * ::ffff:DEST_IPV4. Test helper, run inside the Soft-RoCE VM (tests/vm) to
 * check how the exporter's responder treats hostile or odd input:
 *
 *   garbage     64 bytes without the magic       (dropped, reason malformed)
 *   short       a valid request cut to 20 bytes   (dropped, reason malformed)
 *   badversion  a request with version 9          (dropped, reason malformed)
 *   reply       a well-formed reply nobody asked for (dropped, reason unexpected)
 *   request     valid requests, sent as fast as the send queue allows
 *               (answered up to the rate limit, then dropped, reason ratelimit)
 *
 * It uses plain libibverbs, like the exporter: a UD QP with Q_Key PROBE_QKEY
 * and an address handle whose source is the port's own IPv4-mapped RoCE v2
 * GID. It waits for every send completion (a UD send completes once it is
 * on the wire, answered or not), counts the replies that come back to its
 * QP within a second of the last send, prints what it did and exits 0, or 1
 * on any error (2 on bad usage).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "probe_packet.h"

#define GRH_LEN	   40
#define SQ_DEPTH   128 /* sends in flight; each owns one send slot */
#define RQ_DEPTH   512 /* receive slots for replies (GRH + packet) */
#define RECV_SLOT  (GRH_LEN + PROBE_PACKET_LEN)
#define MAX_COUNT  1000000
#define DRAIN_MS   1000	 /* how long replies are awaited after the last send */
#define TIMEOUT_MS 10000 /* for all send completions after the last post */

enum kind { K_GARBAGE, K_SHORT, K_BADVERSION, K_REPLY, K_REQUEST };

/* Indexed by enum kind. */
static const char *const kind_names[] = {"garbage", "short", "badversion", "reply", "request"};

struct inject {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	unsigned char *buf; /* SQ_DEPTH send slots, then RQ_DEPTH receive slots */
	uint8_t port;
	int gid_index;
	uint32_t dest_qpn;
	uint64_t posted, completed, replies;
	uint64_t start_ns, done_ns; /* first post, last send completion */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Checked unsigned parsing: the whole string, within [min, max]. */
static int parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_kind(const char *s)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(s, kind_names[i]))
			return (int)i;
	return -EINVAL;
}

/* Bytes of packet number i of kind k into slot; returns its length. */
static uint32_t build_packet(enum kind k, uint64_t i, uint32_t session, unsigned char *slot)
{
	struct probe_packet p = {
		.type = k == K_REPLY ? PROBE_PACKET_REPLY : PROBE_PACKET_REQUEST,
		.seq = (k == K_REPLY ? 1ull << 62 : 0) + i,
		.send_ns = now_ns(),
		.session = session,
		.responder = k == K_REPLY ? 0x1badull : 0,
	};

	if (k == K_GARBAGE) {
		/* Anything but "RDXP" in the first four bytes. */
		for (unsigned j = 0; j < PROBE_PACKET_LEN; j++)
			slot[j] = (unsigned char)(0xa5 ^ (i + j));
		slot[0] = 'J';
		return PROBE_PACKET_LEN;
	}
	probe_packet_encode(&p, slot, PROBE_PACKET_LEN);
	if (k == K_SHORT)
		return 20;
	if (k == K_BADVERSION)
		slot[4] = 9; /* the version byte, see probe_packet.h */
	return PROBE_PACKET_LEN;
}

/* The port's RoCE v2 GID with an IPv4-mapped address (::ffff:a.b.c.d). */
static int find_ipv4_gid(struct inject *in, int tbl_len, union ibv_gid *gid)
{
	for (int i = 0; i < tbl_len; i++) {
		struct ibv_gid_entry e;
		static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

		if (ibv_query_gid_ex(in->ctx, in->port, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2 || memcmp(e.gid.raw, prefix, 12))
			continue;
		*gid = e.gid;
		return i;
	}
	return -ENOENT;
}

static int post_recv(struct inject *in, unsigned slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(in->buf + SQ_DEPTH * PROBE_PACKET_LEN + slot * RECV_SLOT),
		.length = RECV_SLOT,
		.lkey = in->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;

	return -ibv_post_recv(in->qp, &wr, &bad);
}

static int to_rts(struct inject *in)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = in->port,
		.qkey = PROBE_QKEY,
	};

	if (ibv_modify_qp(in->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(in->qp, &a, IBV_QP_STATE))
		return -EIO;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(in->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -EIO;
	return 0;
}

static void inject_close(struct inject *in)
{
	if (in->ah)
		ibv_destroy_ah(in->ah);
	if (in->qp)
		ibv_destroy_qp(in->qp);
	if (in->recv_cq)
		ibv_destroy_cq(in->recv_cq);
	if (in->send_cq)
		ibv_destroy_cq(in->send_cq);
	if (in->mr)
		ibv_dereg_mr(in->mr);
	if (in->pd)
		ibv_dealloc_pd(in->pd);
	if (in->ctx)
		ibv_close_device(in->ctx);
	free(in->buf);
	memset(in, 0, sizeof(*in));
}

/* Opens the verbs device named DEVICE into in->ctx; prints why and returns -1 if it cannot. */
static int open_named_device(struct inject *in, const char *device)
{
	struct ibv_device **list;
	int n, err = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "probe_inject: ibv_get_device_list: %s\n", strerror(errno));
		return -1;
	}
	for (int i = 0; i < n && !in->ctx; i++) {
		if (strcmp(ibv_get_device_name(list[i]), device))
			continue;
		in->ctx = ibv_open_device(list[i]);
		if (!in->ctx)
			err = errno;
	}
	ibv_free_device_list(list);
	if (in->ctx)
		return 0;
	if (err)
		fprintf(stderr, "probe_inject: ibv_open_device %s: %s\n", device, strerror(err));
	else
		fprintf(stderr, "probe_inject: no RDMA device %s\n", device);
	return -1;
}

/*
 * The port must be RoCE with an IPv4-mapped GID (in->gid_index). -1 with
 * *what set when a verbs call failed (errno), -2 when the port does not
 * fit (already printed).
 */
static int check_roce_port(struct inject *in, const char *device, uint8_t port, const char **what)
{
	struct ibv_port_attr pa;
	union ibv_gid sgid;

	*what = "ibv_query_port";
	if (ibv_query_port(in->ctx, port, &pa))
		return -1;
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
		fprintf(stderr, "probe_inject: %s port %u is not RoCE (link layer %u)\n", device,
			port, pa.link_layer);
		return -2;
	}
	in->gid_index = find_ipv4_gid(in, pa.gid_tbl_len, &sgid);
	if (in->gid_index < 0) {
		fprintf(stderr, "probe_inject: %s port %u has no IPv4-mapped RoCE v2 GID\n", device,
			port);
		return -2;
	}
	return 0;
}

/* PD, buffer, MR, CQs and a UD QP in RTS with its receives posted; -1 with *what set. */
static int create_queues(struct inject *in, const char **what)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = {.max_send_wr = SQ_DEPTH,
			.max_recv_wr = RQ_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	size_t len = SQ_DEPTH * PROBE_PACKET_LEN + RQ_DEPTH * RECV_SLOT;
	int err;

	*what = "ibv_alloc_pd";
	in->pd = ibv_alloc_pd(in->ctx);
	if (!in->pd)
		return -1;
	*what = "buffer";
	in->buf = calloc(1, len);
	if (!in->buf)
		return -1;
	*what = "ibv_reg_mr";
	in->mr = ibv_reg_mr(in->pd, in->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!in->mr)
		return -1;
	*what = "ibv_create_cq";
	in->send_cq = ibv_create_cq(in->ctx, SQ_DEPTH, NULL, NULL, 0);
	in->recv_cq = in->send_cq ? ibv_create_cq(in->ctx, RQ_DEPTH, NULL, NULL, 0) : NULL;
	if (!in->recv_cq)
		return -1;
	*what = "ibv_create_qp";
	qa.send_cq = in->send_cq;
	qa.recv_cq = in->recv_cq;
	in->qp = ibv_create_qp(in->pd, &qa);
	if (!in->qp)
		return -1;
	*what = "ibv_modify_qp (INIT/RTR/RTS)";
	if (to_rts(in) < 0)
		return -1;
	*what = "ibv_post_recv";
	for (unsigned i = 0; i < RQ_DEPTH; i++) {
		err = post_recv(in, i);
		if (err < 0) {
			errno = -err;
			return -1;
		}
	}
	return 0;
}

/* The address handle towards DEST; -1 with *what set. */
static int create_dest_ah(struct inject *in, struct in_addr dest, const char **what)
{
	struct ibv_ah_attr aa = {.port_num = in->port, .is_global = 1};

	/* The destination's RoCE v2 GID is its IPv4 address, mapped. */
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	memcpy(&aa.grh.dgid.raw[12], &dest.s_addr, 4);
	aa.grh.sgid_index = (uint8_t)in->gid_index;
	aa.grh.hop_limit = 64;
	*what = "ibv_create_ah";
	in->ah = ibv_create_ah(in->pd, &aa);
	return in->ah ? 0 : -1;
}

/* Opens DEVICE and sets up everything up to the address handle. Prints
 * the failing step and returns -1 (everything released) on error. */
static int inject_open(struct inject *in, const char *device, uint8_t port, struct in_addr dest)
{
	const char *what = "";
	int r;

	in->port = port;
	if (open_named_device(in, device) < 0)
		return -1;
	r = check_roce_port(in, device, port, &what);
	if (r == 0)
		r = create_queues(in, &what);
	if (r == 0)
		r = create_dest_ah(in, dest, &what);
	if (r == 0)
		return 0;
	if (r == -1)
		fprintf(stderr, "probe_inject: %s on %s port %u: %s\n", what, device, port,
			strerror(errno ? errno : EIO));
	inject_close(in);
	return -1;
}

/* Polls both CQs once: counts send completions (any error fails) and
 * replies (a valid reply packet to our QP; its receive slot is posted again). */
static int poll_once(struct inject *in)
{
	struct ibv_wc wc[32];
	int n;

	n = ibv_poll_cq(in->send_cq, 32, wc);
	if (n < 0) {
		fprintf(stderr, "probe_inject: ibv_poll_cq (send): %d\n", n);
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "probe_inject: send completion %" PRIu64 ": %s\n",
				(uint64_t)wc[i].wr_id, ibv_wc_status_str(wc[i].status));
			return -EIO;
		}
		in->completed++;
	}
	n = ibv_poll_cq(in->recv_cq, 32, wc);
	if (n < 0) {
		fprintf(stderr, "probe_inject: ibv_poll_cq (recv): %d\n", n);
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		const unsigned char *data =
			in->buf + SQ_DEPTH * PROBE_PACKET_LEN + wc[i].wr_id * RECV_SLOT + GRH_LEN;
		struct probe_packet p;

		if (wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len >= GRH_LEN &&
		    probe_packet_decode(data, wc[i].byte_len - GRH_LEN, &p) == 0 &&
		    p.type == PROBE_PACKET_REPLY)
			in->replies++;
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR)
			continue;
		if (post_recv(in, (unsigned)wc[i].wr_id) < 0) {
			fprintf(stderr, "probe_inject: ibv_post_recv failed\n");
			return -EIO;
		}
	}
	return 0;
}

static int post_one(struct inject *in, enum kind k, uint32_t session)
{
	unsigned slot = (unsigned)(in->posted % SQ_DEPTH);
	unsigned char *pkt = in->buf + slot * PROBE_PACKET_LEN;
	struct ibv_sge sge = {.addr = (uintptr_t)pkt, .lkey = in->mr->lkey};
	struct ibv_send_wr wr = {
		.wr_id = in->posted,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = {.ah = in->ah, .remote_qpn = in->dest_qpn, .remote_qkey = PROBE_QKEY},
	};
	struct ibv_send_wr *bad;
	int r;

	sge.length = build_packet(k, in->posted, session, pkt);
	r = ibv_post_send(in->qp, &wr, &bad);
	if (r) {
		fprintf(stderr, "probe_inject: ibv_post_send: %s\n", strerror(r));
		return -r;
	}
	in->posted++;
	return 0;
}

/* Sends n packets of kind k, at most SQ_DEPTH in flight (a slot is written
 * again only after its send completed), then waits for the completions and
 * for replies. */
static int run(struct inject *in, enum kind k, uint64_t n)
{
	uint32_t session = (uint32_t)(now_ns() ^ ((uint64_t)getpid() << 16));
	uint64_t deadline;

	in->start_ns = now_ns();
	while (in->posted < n) {
		if (in->posted - in->completed < SQ_DEPTH) {
			if (post_one(in, k, session) < 0)
				return -EIO;
			continue;
		}
		if (poll_once(in) < 0)
			return -EIO;
	}
	deadline = now_ns() + TIMEOUT_MS * 1000000ull;
	while (in->completed < in->posted) {
		if (poll_once(in) < 0)
			return -EIO;
		if (now_ns() > deadline) {
			fprintf(stderr,
				"probe_inject: only %" PRIu64 " of %" PRIu64
				" sends completed within %d ms\n",
				in->completed, in->posted, TIMEOUT_MS);
			return -ETIMEDOUT;
		}
	}
	in->done_ns = now_ns();
	deadline = now_ns() + DRAIN_MS * 1000000ull;
	while (now_ns() < deadline) {
		struct timespec ts = {0, 1000000};

		if (poll_once(in) < 0)
			return -EIO;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s DEVICE PORT DEST_IPV4 QPN KIND [N]\n"
		"  KIND: garbage | short | badversion | reply | request; N: packets (default 1)\n",
		argv0);
}

int main(int argc, char **argv)
{
	struct inject in = {0};
	unsigned long port, qpn, count = 1;
	struct in_addr dest;
	int k, r;

	if (argc < 6 || argc > 7) {
		usage(argv[0]);
		return 2;
	}
	k = parse_kind(argv[5]);
	if (parse_ulong(argv[2], 1, 255, &port) < 0 || inet_pton(AF_INET, argv[3], &dest) != 1 ||
	    parse_ulong(argv[4], 2, 0xffffff, &qpn) < 0 || k < 0 ||
	    (argc == 7 && parse_ulong(argv[6], 1, MAX_COUNT, &count) < 0)) {
		usage(argv[0]);
		return 2;
	}
	if (inject_open(&in, argv[1], (uint8_t)port, dest) < 0)
		return 1;
	in.dest_qpn = (uint32_t)qpn;
	r = run(&in, (enum kind)k, count);
	if (!in.done_ns)
		in.done_ns = now_ns();
	printf("probe_inject: %s port %lu (gid index %d, qpn %u) -> %s qpn %lu: %" PRIu64
	       " of %lu %s packets sent in %.3f s, %" PRIu64 " replies received\n",
	       argv[1], port, in.gid_index, in.qp->qp_num, argv[3], qpn, in.completed, count,
	       kind_names[k], (double)(in.done_ns - in.start_ns) / 1e9, in.replies);
	inject_close(&in);
	return r < 0 ? 1 : 0;
}
