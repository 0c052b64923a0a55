// SPDX-License-Identifier: Apache-2.0
#include "probe_port.h"
#include "clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe_packet.h"

/* UD receives start with a 40-byte GRH (present or not). */
#define GRH_LEN	    40
#define SLOT_LEN    (GRH_LEN + PROBE_PACKET_LEN)
#define SEND_OFFSET (PROBE_RECV_SLOTS * SLOT_LEN)
#define BUF_LEN	    (SEND_OFFSET + 2 * PROBE_PACKET_LEN)
#define WR_SEND	    0xffffffffffffull

static int post_recv(struct probe_port *p, unsigned slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->buf + slot * SLOT_LEN),
		.length = SLOT_LEN,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;

	return -ibv_post_recv(p->qp, &wr, &bad);
}

/* A RoCE v2 GID with an IPv4-mapped address if there is one, else any
 * RoCE v2, else index 0; -1 on InfiniBand (no GRH needed on one port). */
static int pick_gid(struct probe_port *p, const struct ibv_port_attr *pa)
{
	int best = -1;

	if (pa->link_layer != IBV_LINK_LAYER_ETHERNET)
		return -1;
	for (int i = 0; i < pa->gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(p->ctx, p->port, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (e.gid.raw[10] == 0xff && e.gid.raw[11] == 0xff)
			return i;
		if (best < 0)
			best = i;
	}
	return best < 0 ? 0 : best;
}

static int to_rts(struct probe_port *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = p->port,
		.qkey = PROBE_QKEY,
	};

	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -errno ? -errno : -EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE))
		return -errno ? -errno : -EIO;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -errno ? -errno : -EIO;
	return 0;
}

int probe_port_open(struct probe_port *p, struct ibv_device *dev, uint8_t port, const char **what)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = {.max_send_wr = 4,
			.max_recv_wr = PROBE_RECV_SLOTS,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	struct ibv_port_attr pa;
	struct ibv_ah_attr ah = {.port_num = port};
	int r;

	memset(p, 0, sizeof(*p));
	snprintf(p->device, sizeof(p->device), "%s", ibv_get_device_name(dev));
	p->port = port;
	*what = "open";
	p->ctx = ibv_open_device(dev);
	if (!p->ctx)
		return errno ? -errno : -ENODEV;
	*what = "port";
	if (ibv_query_port(p->ctx, port, &pa)) {
		r = -EIO;
		goto fail;
	}
	*what = "pd";
	p->pd = ibv_alloc_pd(p->ctx);
	*what = "mr";
	p->buf = calloc(1, BUF_LEN);
	if (p->pd && p->buf)
		p->mr = ibv_reg_mr(p->pd, p->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!p->pd || !p->mr) {
		r = errno ? -errno : -ENOMEM;
		goto fail;
	}
	*what = "cq";
	p->cq = ibv_create_cq(p->ctx, PROBE_RECV_SLOTS + 8, NULL, NULL, 0);
	if (!p->cq) {
		r = errno ? -errno : -ENOMEM;
		goto fail;
	}
	*what = "qp";
	qa.send_cq = qa.recv_cq = p->cq;
	p->qp = ibv_create_qp(p->pd, &qa);
	if (!p->qp) {
		r = errno ? -errno : -ENOMEM;
		goto fail;
	}
	r = to_rts(p);
	if (r < 0)
		goto fail;
	*what = "post";
	for (unsigned i = 0; i < PROBE_RECV_SLOTS; i++) {
		r = post_recv(p, i);
		if (r < 0)
			goto fail;
	}
	*what = "gid";
	p->gid_index = pick_gid(p, &pa);
	if (p->gid_index >= 0) {
		union ibv_gid gid;

		if (ibv_query_gid(p->ctx, port, p->gid_index, &gid)) {
			r = -EIO;
			goto fail;
		}
		ah.is_global = 1;
		ah.grh.dgid = gid;
		ah.grh.sgid_index = (uint8_t)p->gid_index;
		ah.grh.hop_limit = 1;
	} else {
		ah.dlid = pa.lid;
	}
	*what = "ah";
	p->self_ah = ibv_create_ah(p->pd, &ah);
	if (!p->self_ah) {
		r = errno ? -errno : -EIO;
		goto fail;
	}
	return 0;
fail:
	probe_port_close(p);
	return r < 0 ? r : -EIO;
}

void probe_port_close(struct probe_port *p)
{
	if (p->self_ah)
		ibv_destroy_ah(p->self_ah);
	if (p->qp)
		ibv_destroy_qp(p->qp);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	free(p->buf);
	p->self_ah = NULL;
	p->qp = NULL;
	p->cq = NULL;
	p->mr = NULL;
	p->pd = NULL;
	p->ctx = NULL;
	p->buf = NULL;
}

static int post_send(struct probe_port *p, const void *pkt, struct ibv_ah *ah, uint32_t qpn,
		     uint64_t wr_id)
{
	unsigned char *slot = p->buf + SEND_OFFSET + (wr_id == WR_SEND ? 0 : PROBE_PACKET_LEN);
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot, .length = PROBE_PACKET_LEN, .lkey = p->mr->lkey};
	struct ibv_send_wr wr =
				   {
					   .wr_id = wr_id,
					   .sg_list = &sge,
					   .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED,
					   .wr.ud = {.ah = ah,
						     .remote_qpn = qpn,
						     .remote_qkey = PROBE_QKEY},
				   },
			   *bad;

	memcpy(slot, pkt, PROBE_PACKET_LEN);
	return -ibv_post_send(p->qp, &wr, &bad);
}

/* Answers a request found in a receive slot (loopback: to ourselves). */
static void respond(struct probe_port *p, unsigned char *pkt, uint32_t len)
{
	uint64_t t = clock_mono_ns();

	if (probe_packet_make_reply(pkt, len, p->qp->qp_num, t, t) < 0 ||
	    post_send(p, pkt, p->self_ah, p->qp->qp_num, WR_SEND - 1) < 0) {
		p->responder_dropped++;
		return;
	}
	p->responder_requests++;
}

int probe_port_ping(struct probe_port *p, uint64_t seq, int timeout_ms, uint64_t *rtt_ns,
		    const char **what)
{
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST, .seq = seq, .session = 1};
	unsigned char pkt[PROBE_PACKET_LEN];
	uint64_t deadline, nap_ns = 20000;
	int r;

	req.send_ns = clock_mono_ns();
	probe_packet_encode(&req, pkt, sizeof(pkt));
	*what = "send";
	r = post_send(p, pkt, p->self_ah, p->qp->qp_num, WR_SEND);
	if (r < 0)
		return r;
	deadline = req.send_ns + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		struct ibv_wc wc[4];
		int n = ibv_poll_cq(p->cq, 4, wc);

		if (n < 0) {
			*what = "poll";
			return -EIO;
		}
		for (int i = 0; i < n; i++) {
			unsigned char *data;
			struct probe_packet got;
			uint32_t len;

			if (wc[i].status != IBV_WC_SUCCESS) {
				*what = "completion";
				return -EIO;
			}
			if (!(wc[i].opcode & IBV_WC_RECV))
				continue;
			data = p->buf + wc[i].wr_id * SLOT_LEN + GRH_LEN;
			len = wc[i].byte_len > GRH_LEN ? wc[i].byte_len - GRH_LEN : 0;
			if (probe_packet_decode(data, len, &got) < 0) {
				p->responder_dropped++;
			} else if (got.type == PROBE_PACKET_REQUEST) {
				respond(p, data, len);
			} else if (got.seq == seq) {
				*rtt_ns = clock_mono_ns() - got.send_ns;
				post_recv(p, (unsigned)wc[i].wr_id);
				return 0;
			}
			r = post_recv(p, (unsigned)wc[i].wr_id);
			if (r < 0) {
				*what = "post";
				return r;
			}
		}
		if (n == 0) {
			uint64_t t = clock_mono_ns();

			if (t > deadline)
				return -ETIMEDOUT;
			/* Spin for the first 200 us (RTTs on hardware are a few us),
			 * then sleep in growing steps up to 1 ms: a dead port costs
			 * about a thousand wake-ups per second of timeout, not a core. */
			if (t - req.send_ns > 200000) {
				struct timespec ts = {0, (long)nap_ns};

				nanosleep(&ts, NULL);
				if (nap_ns < 1000000)
					nap_ns *= 2;
			}
		}
	}
}
