/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One probed RDMA port: a verbs context, a completion channel, a UD QP
 * (Q_Key PROBE_QKEY) that is both prober and responder, and a loopback
 * address handle to itself. Plain libibverbs, no librdmacm: librdmacm keeps
 * its own verbs context of a device open until the process exits, and a
 * driver without context disassociation (rxe) cannot be removed while one is
 * open. The owner closes the port as soon as its device leaves the verbs
 * device list. Nothing here logs; nothing here blocks.
 *
 * Sends go from a ring of PROBE_SEND_SLOTS buffers, all signalled; receives
 * into PROBE_RECV_SLOTS buffers, reposted after each completion. The
 * owner's event loop calls probe_port_drain() when the completion channel's
 * fd is readable (or while it spins for a reply), and probe_port_arm()
 * before it sleeps.
 */
#ifndef RDMA_EXPORTER_PROBE_PORT_H
#define RDMA_EXPORTER_PROBE_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define PROBE_RECV_SLOTS 64
#define PROBE_SEND_SLOTS 64
#define PROBE_AH_CACHE	 32 /* responder's address handles, one per recent source */
#define PROBE_GID_CACHE	 64 /* RoCE v2 GIDs of the port kept for address look-ups */

/* Work request ids of sends: bit 63 set; bit 62 for the responder's replies,
 * the low bits are the owner's (a probe's sequence number). */
#define PROBE_WR_SEND  (1ull << 63)
#define PROBE_WR_REPLY (1ull << 62)

struct probe_ah_entry {
	uint8_t key[18]; /* source GID, then LID (network order) */
	struct ibv_ah *ah;
};

struct probe_port {
	char device[64];
	uint8_t port;
	struct ibv_context *ctx;
	struct ibv_comp_channel *chan;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq_ex *cqx; /* the extended CQ behind cq, when the device has one */
	bool hw_ts;	       /* cqx reports NIC completion timestamps */
	uint64_t ts_mask;      /* width of the NIC clock */
	uint64_t hca_khz;      /* its frequency */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	unsigned char *buf; /* receive slots, then send slots */
	struct ibv_ah *self_ah;
	bool ethernet;	 /* RoCE: GRH on every packet */
	int gid_index;	 /* the port's own probe GID; -1: none (InfiniBand) */
	uint8_t gid[16]; /* that GID (InfiniBand: index 0) */
	uint16_t lid;	 /* InfiniBand LID, 0 on RoCE */
	unsigned send_next, send_busy;
	unsigned cq_events; /* got from the channel, not yet acked */
	struct probe_ah_entry ahs[PROBE_AH_CACHE];
	unsigned ah_next;
	struct {
		uint8_t gid[16];
		int index;
	} gids[PROBE_GID_CACHE];
	unsigned n_gids;
	uint64_t gids_at_ns; /* when gids[] was read */
	/* A second QP on another port's context (probe_port_open_sibling): ctx,
	 * pd and self_ah are borrowed from it, never destroyed here. */
	bool sibling;
};

/* A received message, valid during the on_recv callback only. */
struct probe_rx {
	const unsigned char *data; /* after the 40-byte GRH slot */
	uint32_t len;
	uint32_t src_qp;
	bool has_grh;
	uint8_t sgid[16]; /* the sender's GID from the GRH, zeros without one */
	uint16_t slid;
	const struct ibv_wc *wc;
	const void *grh;  /* the GRH bytes, for ibv_create_ah_from_wc */
	uint64_t ts;	  /* NIC completion timestamp (ticks), when p->hw_ts */
	uint64_t poll_ns; /* CLOCK_MONOTONIC right after the poll that returned it */
};

/*
 * Opens dev/port: context, completion channel (non-blocking), PD, CQ, UD QP
 * in RTS, receive slots posted, and the loopback AH. The CQ is an extended
 * one (ibv_create_cq_ex) with NIC completion timestamps where want_ts and the device reports a
 * clock (completion_timestamp_mask and hca_core_clock not 0); else a plain one. Returns 0, or
 * -errno with *what naming the failing step ("open", "port", "channel", "pd", "mr", "cq", "qp",
 * "post", "gid", "ah").
 */
int probe_port_open(struct probe_port *p, struct ibv_device *dev, uint8_t port, bool want_ts,
		    const char **what);
/*
 * A second UD QP on parent's device port, with its own completion channel,
 * plain CQ (armed), receive slots and buffer, in parent's PD; it replies
 * through parent's loopback AH. Parent's context,
 * PD and AH are borrowed: close the sibling before the parent. Returns 0,
 * or -errno with *what as probe_port_open.
 */
int probe_port_open_sibling(struct probe_port *p, const struct probe_port *parent,
			    const char **what);

/* Destroys everything, the cached AHs included (a sibling: its own objects). Peers' AHs made with
 * probe_port_peer_ah() must have been destroyed before. */
void probe_port_close(struct probe_port *p);

/* The fd to wait on for completions. */
int probe_port_fd(const struct probe_port *p);

/*
 * Posts one PROBE_PACKET_LEN-byte send of pkt to qpn through ah, with
 * wr_id (PROBE_WR_SEND is or-ed in). *posted_ns (when not NULL) is
 * CLOCK_MONOTONIC read immediately before ibv_post_send, after the packet
 * was copied and the work request built, so a round trip measured from it
 * holds no preparation. Returns 0, -ENOBUFS when every send slot is still
 * in flight, or -errno of ibv_post_send.
 */
int probe_port_send(struct probe_port *p, struct ibv_ah *ah, uint32_t qpn, const void *pkt,
		    uint64_t wr_id, uint64_t *posted_ns);

/* Answers rx with the 64-byte pkt, through a cached AH to its source. */
int probe_port_reply(struct probe_port *p, const struct probe_rx *rx, const void *pkt);

struct probe_port_handler {
	void (*recv)(void *arg, struct probe_port *p, const struct probe_rx *rx);
	/* A send completed in error (wr_id as posted, PROBE_WR_* bits kept). */
	void (*send_error)(void *arg, struct probe_port *p, uint64_t wr_id);
	/* A probe's send completed at NIC time ts (only when p->hw_ts). */
	void (*send_done)(void *arg, struct probe_port *p, uint64_t wr_id, uint64_t ts);
	void *arg;
};

/* Takes (and in batches acks) the channel's pending events; call it when
 * the fd is readable. */
void probe_port_take_events(struct probe_port *p);

/*
 * Polls the CQ until it is empty:
 * receives go to h->recv and are reposted; failed sends to h->send_error.
 * Returns the number of completions, or -EIO with *what "poll" (the CQ
 * cannot be polled), "completion" (a receive failed: the QP is in error) or
 * "post" (a receive could not be reposted); the owner then closes the port.
 */
int probe_port_drain(struct probe_port *p, const struct probe_port_handler *h, const char **what);

/* Nanoseconds between two NIC timestamps (wrapping at ts_mask). */
uint64_t probe_port_ts_delta_ns(const struct probe_port *p, uint64_t from, uint64_t to);

/* The NIC clock now (ticks, the completion timestamps' time base), read
 * with ibv_query_rt_values_ex; 0, or -errno where the device cannot say. */
int probe_port_clock_ticks(struct probe_port *p, uint64_t *ticks);

/* Requests a completion event for the next completion; 0 or -errno. After
 * arming, drain once more before sleeping: a completion may have come in
 * between. */
int probe_port_arm(struct probe_port *p);

/*
 * Index of gid (16 bytes) among the port's RoCE v2 GIDs, or -1. The list is
 * re-read when older than max_age_ns (addresses come and go), at most once
 * per call.
 */
int probe_port_find_gid(struct probe_port *p, const uint8_t *gid, uint64_t now_ns,
			uint64_t max_age_ns);

/*
 * An address handle to a peer: RoCE with GRH to gid from local GID
 * sgid_index (< 0: the port's own probe GID); InfiniBand to lid. Returns 0
 * and the AH in *out (the caller destroys it), or -errno.
 */
int probe_port_peer_ah(struct probe_port *p, const uint8_t *gid, uint16_t lid, int sgid_index,
		       struct ibv_ah **out);

#endif
