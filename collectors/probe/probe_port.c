// SPDX-License-Identifier: Apache-2.0
#include "probe_port.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "probe_packet.h"

/* UD receives start with a 40-byte GRH (present or not). */
#define GRH_LEN	    40
#define SLOT_LEN    (GRH_LEN + PROBE_PACKET_LEN)
#define SEND_OFFSET (PROBE_RECV_SLOTS * SLOT_LEN)
#define BUF_LEN	    (SEND_OFFSET + PROBE_SEND_SLOTS * PROBE_PACKET_LEN)
#define CQ_LEN	    (PROBE_RECV_SLOTS + PROBE_SEND_SLOTS + 8)

static int neg_errno(int fallback)
{
	return errno ? -errno : -fallback;
}

static int post_recv(struct probe_port *p, unsigned slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(p->buf + slot * SLOT_LEN),
		.length = SLOT_LEN,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = {.wr_id = slot, .sg_list = &sge, .num_sge = 1}, *bad;

	/* Zeroed so that a RoCE v2 IPv4 receive, which writes only the last
	 * 20 bytes of the GRH slot (the IPv4 header), is told from a GRH. */
	memset(p->buf + slot * SLOT_LEN, 0, GRH_LEN);
	return -ibv_post_recv(p->qp, &wr, &bad);
}

static int read_gids(struct probe_port *p)
{
	struct ibv_port_attr pa;

	p->n_gids = 0;
	if (ibv_query_port(p->ctx, p->port, &pa))
		return -EIO;
	for (int i = 0; i < pa.gid_tbl_len && p->n_gids < PROBE_GID_CACHE; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(p->ctx, p->port, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		memcpy(p->gids[p->n_gids].gid, e.gid.raw, 16);
		p->gids[p->n_gids].index = i;
		p->n_gids++;
	}
	return 0;
}

/* A RoCE v2 GID with an IPv4-mapped address if there is one, else any
 * RoCE v2, else index 0; -1 on InfiniBand (no GRH needed in a subnet). */
static int pick_gid(struct probe_port *p)
{
	if (!p->ethernet)
		return -1;
	for (unsigned i = 0; i < p->n_gids; i++) {
		const uint8_t *g = p->gids[i].gid;

		if (g[10] == 0xff && g[11] == 0xff)
			return p->gids[i].index;
	}
	return p->n_gids ? p->gids[0].index : 0;
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
		return neg_errno(EIO);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE))
		return neg_errno(EIO);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(p->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return neg_errno(EIO);
	return 0;
}

/*
 * An extended CQ with NIC timestamps and the fields a UD receive needs when
 * the device has a clock (and want_ts); else a plain CQ. Not an extended CQ
 * everywhere: rxe's (rdma-core 44) returned garbage completions in the VM
 * test, polled the standard way (start, next until ENOENT, end), so devices
 * without a clock keep the plain CQ that every test runs.
 */
static void create_cq(struct probe_port *p, bool want_ts)
{
	struct ibv_device_attr_ex dx;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = CQ_LEN,
		.channel = p->chan,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID |
			    IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS,
	};

	if (want_ts && ibv_query_device_ex(p->ctx, NULL, &dx) == 0 &&
	    dx.completion_timestamp_mask && dx.hca_core_clock) {
		ca.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		p->ts_mask = dx.completion_timestamp_mask;
		p->hca_khz = dx.hca_core_clock;
		p->cqx = ibv_create_cq_ex(p->ctx, &ca);
		p->hw_ts = p->cqx != NULL;
	}
	if (p->cqx)
		p->cq = ibv_cq_ex_to_cq(p->cqx);
	else
		p->cq = ibv_create_cq(p->ctx, CQ_LEN, NULL, p->chan, 0);
}

uint64_t probe_port_ts_delta_ns(const struct probe_port *p, uint64_t from, uint64_t to)
{
	uint64_t ticks = (to - from) & p->ts_mask;

	/* hca_core_clock is in kHz: ticks * 1e6 / kHz, without overflow for any
	 * realistic delta (a 1 GHz clock wraps uint64 after 584 years). */
	return p->hca_khz
		       ? ticks / p->hca_khz * 1000000u + ticks % p->hca_khz * 1000000u / p->hca_khz
		       : 0;
}

int probe_port_clock_ticks(struct probe_port *p, uint64_t *ticks)
{
	struct ibv_values_ex v = {.comp_mask = IBV_VALUES_MASK_RAW_CLOCK};
	int r = ibv_query_rt_values_ex(p->ctx, &v);

	if (r)
		return -r;
	if (!(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return -EOPNOTSUPP;
	/* raw_clock is a timespec holding the free-running counter in tv_nsec
	 * (rdma-core's convention), not a time of day. */
	*ticks = (uint64_t)v.raw_clock.tv_nsec;
	return 0;
}

/* The port's link layer and LID. */
static int query_link(struct probe_port *p)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(p->ctx, p->port, &pa))
		return -EIO;
	p->ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	p->lid = p->ethernet ? 0 : pa.lid;
	return 0;
}

/* The completion channel, non-blocking: the engine polls its fd. */
static int open_channel(struct probe_port *p)
{
	int fl;

	p->chan = ibv_create_comp_channel(p->ctx);
	if (!p->chan)
		return neg_errno(ENOMEM);
	fl = fcntl(p->chan->fd, F_GETFL);
	if (fl < 0 || fcntl(p->chan->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return neg_errno(EIO);
	return 0;
}

/* The PD (a sibling has its parent's) and the registered buffer every
 * message is sent from and received into. */
static int register_buffer(struct probe_port *p, const char **what)
{
	*what = "pd";
	if (!p->pd)
		p->pd = ibv_alloc_pd(p->ctx);
	*what = "mr";
	p->buf = calloc(1, BUF_LEN);
	if (p->pd && p->buf)
		p->mr = ibv_reg_mr(p->pd, p->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!p->pd || !p->mr)
		return neg_errno(ENOMEM);
	return 0;
}

/* The CQ and the UD QP on it, brought to RTS with every receive posted. */
static int create_qp(struct probe_port *p, bool want_ts, const char **what)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = {.max_send_wr = PROBE_SEND_SLOTS,
			.max_recv_wr = PROBE_RECV_SLOTS,
			.max_send_sge = 1,
			.max_recv_sge = 1},
	};
	int r;

	*what = "cq";
	create_cq(p, want_ts);
	if (!p->cq)
		return neg_errno(ENOMEM);
	*what = "qp";
	qa.send_cq = qa.recv_cq = p->cq;
	p->qp = ibv_create_qp(p->pd, &qa);
	if (!p->qp)
		return neg_errno(ENOMEM);
	r = to_rts(p);
	if (r < 0)
		return r;
	*what = "post";
	for (unsigned i = 0; i < PROBE_RECV_SLOTS; i++) {
		r = post_recv(p, i);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The port's own GID, and the AH to itself that loopback probes use. */
static int own_address(struct probe_port *p, const char **what)
{
	union ibv_gid gid;

	*what = "gid";
	if (p->ethernet)
		read_gids(p);
	p->gid_index = pick_gid(p);
	if (ibv_query_gid(p->ctx, p->port, p->gid_index < 0 ? 0 : p->gid_index, &gid))
		return -EIO;
	memcpy(p->gid, gid.raw, 16);
	*what = "ah";
	return probe_port_peer_ah(p, p->gid, p->lid, -1, &p->self_ah);
}

int probe_port_open(struct probe_port *p, struct ibv_device *dev, uint8_t port, bool want_ts,
		    const char **what)
{
	int r;

	memset(p, 0, sizeof(*p));
	snprintf(p->device, sizeof(p->device), "%s", ibv_get_device_name(dev));
	p->port = port;
	*what = "open";
	errno = 0;
	p->ctx = ibv_open_device(dev);
	if (!p->ctx)
		return neg_errno(ENODEV);
	*what = "port";
	r = query_link(p);
	if (r < 0)
		goto fail;
	*what = "channel";
	r = open_channel(p);
	if (r < 0)
		goto fail;
	r = register_buffer(p, what);
	if (r < 0)
		goto fail;
	r = create_qp(p, want_ts, what);
	if (r < 0)
		goto fail;
	r = own_address(p, what);
	if (r < 0)
		goto fail;
	r = probe_port_arm(p);
	if (r < 0)
		goto fail;
	return 0;
fail:
	probe_port_close(p);
	return r < 0 ? r : -EIO;
}

int probe_port_open_sibling(struct probe_port *p, const struct probe_port *parent,
			    const char **what)
{
	int r;

	memset(p, 0, sizeof(*p));
	p->sibling = true;
	snprintf(p->device, sizeof(p->device), "%s", parent->device);
	p->port = parent->port;
	p->ctx = parent->ctx;
	p->pd = parent->pd;
	p->self_ah = parent->self_ah;
	p->ethernet = parent->ethernet;
	p->gid_index = parent->gid_index;
	memcpy(p->gid, parent->gid, sizeof(p->gid));
	p->lid = parent->lid;
	errno = 0;
	*what = "channel";
	r = open_channel(p);
	if (r == 0)
		r = register_buffer(p, what);
	if (r == 0)
		r = create_qp(p, false, what);
	if (r == 0)
		r = probe_port_arm(p);
	if (r < 0)
		probe_port_close(p);
	return r;
}

void probe_port_close(struct probe_port *p)
{
	if (p->sibling) {
		/* borrowed from the parent */
		p->self_ah = NULL;
		p->pd = NULL;
		p->ctx = NULL;
	}
	for (unsigned i = 0; i < PROBE_AH_CACHE; i++)
		if (p->ahs[i].ah)
			ibv_destroy_ah(p->ahs[i].ah);
	if (p->self_ah)
		ibv_destroy_ah(p->self_ah);
	if (p->qp)
		ibv_destroy_qp(p->qp);
	if (p->cq) {
		if (p->cq_events)
			ibv_ack_cq_events(p->cq, p->cq_events);
		ibv_destroy_cq(p->cq);
	}
	if (p->chan)
		ibv_destroy_comp_channel(p->chan);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->ctx)
		ibv_close_device(p->ctx);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

int probe_port_fd(const struct probe_port *p)
{
	return p->chan ? p->chan->fd : -1;
}

int probe_port_send(struct probe_port *p, struct ibv_ah *ah, uint32_t qpn, const void *pkt,
		    uint64_t wr_id, uint64_t *posted_ns)
{
	unsigned char *slot;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	int r;

	if (p->send_busy >= PROBE_SEND_SLOTS)
		return -ENOBUFS;
	/* Sends complete in order: with fewer than PROBE_SEND_SLOTS in flight
	 * the slot after the newest one is free. */
	slot = p->buf + SEND_OFFSET + (size_t)p->send_next * PROBE_PACKET_LEN;
	memcpy(slot, pkt, PROBE_PACKET_LEN);
	sge = (struct ibv_sge){
		.addr = (uintptr_t)slot, .length = PROBE_PACKET_LEN, .lkey = p->mr->lkey};
	wr = (struct ibv_send_wr){
		.wr_id = wr_id | PROBE_WR_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = {.ah = ah, .remote_qpn = qpn, .remote_qkey = PROBE_QKEY},
	};
	if (posted_ns)
		*posted_ns = clock_mono_ns();
	r = ibv_post_send(p->qp, &wr, &bad);
	if (r)
		return -r;
	p->send_next = (p->send_next + 1) % PROBE_SEND_SLOTS;
	p->send_busy++;
	return 0;
}

int probe_port_reply(struct probe_port *p, const struct probe_rx *rx, const void *pkt)
{
	uint8_t key[18];
	struct ibv_ah *ah = NULL;

	memcpy(key, rx->sgid, 16);
	key[16] = (uint8_t)(rx->slid >> 8);
	key[17] = (uint8_t)rx->slid;
	for (unsigned i = 0; i < PROBE_AH_CACHE && !ah; i++)
		if (p->ahs[i].ah && memcmp(p->ahs[i].key, key, sizeof(key)) == 0)
			ah = p->ahs[i].ah;
	if (!ah) {
		struct probe_ah_entry *e = &p->ahs[p->ah_next];

		/* Fill from the WC and GRH as received: the kernel resolves the
		 * RoCE source MAC and GID index. */
		ah = ibv_create_ah_from_wc(p->pd, (struct ibv_wc *)rx->wc,
					   (struct ibv_grh *)rx->grh, p->port);
		if (!ah)
			return neg_errno(EIO);
		if (e->ah)
			ibv_destroy_ah(e->ah);
		memcpy(e->key, key, sizeof(key));
		e->ah = ah;
		p->ah_next = (p->ah_next + 1) % PROBE_AH_CACHE;
	}
	return probe_port_send(p, ah, rx->src_qp, pkt, PROBE_WR_REPLY, NULL);
}

/*
 * The sender's GID from the 40-byte GRH slot of a receive: an IB/RoCE v1/
 * RoCE v2 IPv6 GRH (version 6) has the SGID at byte 8; RoCE v2 over IPv4
 * puts the IPv4 header in bytes 20..39 (source address at 32), which maps to
 * the GID ::ffff:a.b.c.d. The slot was zeroed before the receive was posted.
 */
static void source_gid(const unsigned char *grh, uint8_t *gid)
{
	memset(gid, 0, 16);
	if ((grh[0] >> 4) == 6) {
		memcpy(gid, grh + 8, 16);
	} else if ((grh[20] >> 4) == 4) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, grh + 32, 4);
	}
}

void probe_port_take_events(struct probe_port *p)
{
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	while (ibv_get_cq_event(p->chan, &ev_cq, &ev_ctx) == 0)
		p->cq_events++;
	if (p->cq_events >= 64) {
		ibv_ack_cq_events(p->cq, p->cq_events);
		p->cq_events = 0;
	}
}

/* One completion, from either kind of CQ. Returns 0 or -EIO with *what. */
static int complete(struct probe_port *p, const struct probe_port_handler *h,
		    const struct ibv_wc *c, uint64_t ts, uint64_t poll_ns, const char **what)
{
	unsigned char *slot;
	struct probe_rx rx;

	if (c->wr_id & PROBE_WR_SEND) {
		if (p->send_busy)
			p->send_busy--;
		if (c->status != IBV_WC_SUCCESS) {
			if (h->send_error)
				h->send_error(h->arg, p, c->wr_id);
		} else if (p->hw_ts && h->send_done && !(c->wr_id & PROBE_WR_REPLY)) {
			h->send_done(h->arg, p, c->wr_id, ts);
		}
		return 0;
	}
	if (c->status != IBV_WC_SUCCESS || c->wr_id >= PROBE_RECV_SLOTS) {
		*what = "completion";
		return -EIO;
	}
	slot = p->buf + c->wr_id * SLOT_LEN;
	memset(&rx, 0, sizeof(rx));
	rx.data = slot + GRH_LEN;
	rx.len = c->byte_len > GRH_LEN ? c->byte_len - GRH_LEN : 0;
	rx.src_qp = c->src_qp;
	rx.has_grh = c->wc_flags & IBV_WC_GRH;
	if (rx.has_grh)
		source_gid(slot, rx.sgid);
	rx.slid = c->slid;
	rx.wc = c;
	rx.grh = slot;
	rx.ts = ts;
	rx.poll_ns = poll_ns;
	if (h->recv)
		h->recv(h->arg, p, &rx);
	if (post_recv(p, (unsigned)c->wr_id) < 0) {
		*what = "post";
		return -EIO;
	}
	return 0;
}

/*
 * The extended CQ: up to 16 completions at a time are read into struct
 * ibv_wc (what ibv_create_ah_from_wc needs) with their timestamps, and
 * handled after ibv_end_poll, so that no receive is reposted and no reply
 * posted while the provider holds the CQ.
 */
static int drain_ex(struct probe_port *p, const struct probe_port_handler *h, const char **what)
{
	int total = 0;

	for (;;) {
		struct ibv_poll_cq_attr pa = {0};
		struct ibv_wc wc[16];
		uint64_t ts[16], poll_ns;
		int n = 0, r = ibv_start_poll(p->cqx, &pa);

		if (r == ENOENT)
			return total;
		if (r) {
			*what = "poll";
			return -EIO;
		}
		do {
			struct ibv_wc *c = &wc[n];

			memset(c, 0, sizeof(*c));
			c->wr_id = p->cqx->wr_id;
			c->status = p->cqx->status;
			ts[n] = 0;
			if (c->status == IBV_WC_SUCCESS && !(c->wr_id & PROBE_WR_SEND)) {
				c->opcode = ibv_wc_read_opcode(p->cqx);
				c->byte_len = ibv_wc_read_byte_len(p->cqx);
				c->src_qp = ibv_wc_read_src_qp(p->cqx);
				c->slid = (uint16_t)ibv_wc_read_slid(p->cqx);
				c->sl = ibv_wc_read_sl(p->cqx);
				c->dlid_path_bits = ibv_wc_read_dlid_path_bits(p->cqx);
				c->wc_flags = ibv_wc_read_wc_flags(p->cqx);
			}
			if (c->status == IBV_WC_SUCCESS && p->hw_ts)
				ts[n] = ibv_wc_read_completion_ts(p->cqx);
			n++;
		} while (n < 16 && (r = ibv_next_poll(p->cqx)) == 0);
		ibv_end_poll(p->cqx);
		poll_ns = clock_mono_ns();
		if (r != 0 && r != ENOENT) {
			*what = "poll";
			return -EIO;
		}
		total += n;
		for (int i = 0; i < n; i++) {
			r = complete(p, h, &wc[i], ts[i], poll_ns, what);
			if (r < 0)
				return r;
		}
		if (n < 16)
			return total;
	}
}

int probe_port_drain(struct probe_port *p, const struct probe_port_handler *h, const char **what)
{
	int total = 0;

	if (p->cqx)
		return drain_ex(p, h, what);
	for (;;) {
		struct ibv_wc wc[16];
		int n = ibv_poll_cq(p->cq, 16, wc);
		uint64_t poll_ns;

		if (n < 0) {
			*what = "poll";
			return -EIO;
		}
		if (n == 0)
			return total;
		/* the receive time of software timestamps: the poll that returned
		 * the completions, one reading for the batch */
		poll_ns = clock_mono_ns();
		total += n;
		for (int i = 0; i < n; i++) {
			int r = complete(p, h, &wc[i], 0, poll_ns, what);

			if (r < 0)
				return r;
		}
	}
}

int probe_port_arm(struct probe_port *p)
{
	return -ibv_req_notify_cq(p->cq, 0);
}

int probe_port_find_gid(struct probe_port *p, const uint8_t *gid, uint64_t now_ns,
			uint64_t max_age_ns)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < p->n_gids; i++)
			if (memcmp(p->gids[i].gid, gid, 16) == 0)
				return p->gids[i].index;
		if (pass || !p->ethernet || now_ns - p->gids_at_ns < max_age_ns)
			break;
		p->gids_at_ns = now_ns;
		read_gids(p);
	}
	return -1;
}

int probe_port_peer_ah(struct probe_port *p, const uint8_t *gid, uint16_t lid, int sgid_index,
		       struct ibv_ah **out)
{
	struct ibv_ah_attr ah = {.port_num = p->port};

	if (p->ethernet) {
		ah.is_global = 1;
		memcpy(ah.grh.dgid.raw, gid, 16);
		ah.grh.sgid_index = (uint8_t)(sgid_index >= 0 ? sgid_index : p->gid_index);
		ah.grh.hop_limit = 64;
	} else {
		ah.dlid = lid;
	}
	errno = 0;
	*out = ibv_create_ah(p->pd, &ah);
	return *out ? 0 : neg_errno(EIO);
}
