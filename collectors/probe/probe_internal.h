/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the probe collector's files (probe*.c): the engine's state, the
 * local ports it holds (slots) and the peers it probes, and the functions the
 * files call across. Locking: the engine thread owns everything; what
 * collect() reads is changed under st->lock, and the functions below that
 * say "under lock" expect it held.
 *
 *   probe.c           collector ops: init, reload, free, the flag table
 *   probe_engine.c    the engine thread: event loop, rounds, sending, completions
 *   probe_slots.c     local ports: in line with the verbs device list, open, close
 *   probe_peers.c     the peer table, the targets file and its sample
 *   probe_dns_watch.c --collector.probe.targets-dns: the name re-resolved, its
 *                     addresses made the target list (probe_dns.h)
 *   probe_resolve.c   a peer's resolution: DNS, local port, discovery query
 *   probe_sideband.c  the UDP discovery sockets: bound to the RDMA netdevs'
 *                     addresses while a port is open, drained
 *   probe_responder.c answers to other nodes: probe requests, discovery queries
 *   probe_loop.c      a port's loopback responder thread (its own QP)
 *   probe_export.c    collect(): the numbers copied into the metric sink
 */
#ifndef RDMA_EXPORTER_PROBE_INTERNAL_H
#define RDMA_EXPORTER_PROBE_INTERNAL_H

#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "collector.h"
#include "exposition/histogram.h"
#include "probe_bind.h"
#include "probe_discovery.h"
#include "probe_dns.h"
#include "probe_loop.h"
#include "probe_pace.h"
#include "probe_packet.h"
#include "probe_port.h"
#include "probe_ratelimit.h"
#include "probe_targets.h"

#define MAX_SLOTS	64
#define MAX_FILE_LABELS PROBE_TARGETS_MAX_LABELS
/* A port's GID table is re-read when older than this (a RoCE address may come and go). */
#define GID_MAX_AGE_NS (5ull * 1000000000ull)

/* Indexes of pe->errors, s->dropped and st->disc_dropped; their label
 * values are in probe_export.c. */
enum reason { R_RESOLVE, R_OPEN, R_SEND, R_COMPLETION, R_POLL, R_REASONS };
enum drop { D_MALFORMED, D_RATELIMIT, D_UNEXPECTED, D_SEND, D_N };
enum ddrop { DD_MALFORMED, DD_RATELIMIT, DD_NOPORT, DD_UNEXPECTED, DD_N };

struct slot {
	bool used, open;
	char device[64];
	uint8_t port;
	char port_str[4];
	struct probe_port p;
	uint64_t responder_requests, dropped[D_N];
	/* The port's remote targets together (loopback excluded): their RTTs and
	 * network parts, wake-up requests. Monotonic while the port is known,
	 * whichever targets come and go. */
	struct histogram port_rtt, port_net_rtt;
	uint64_t wakeups_sent;
	uint64_t retry_at_ms; /* open failed: not before this */
	bool logged_fail;
	unsigned failures; /* times the QP failed and was rebuilt: logged once at warn */
	bool no_hw_ts;	   /* a port with NIC timestamps failed: the plain CQ from now on */
	int loop;	   /* index of its loopback peer */
	/* The thread that answers its loopback probes (probe_loop.h); NULL: the
	 * engine does (--collector.probe.loopback-thread off, one CPU, or it
	 * could not be made). Made and freed with the port, by the engine. */
	struct probe_loop *lr;
};

enum rstate {
	RS_NEW,	  /* to resolve now */
	RS_DNS,	  /* waiting for getaddrinfo_a */
	RS_QUERY, /* discovery query sent */
	RS_READY, /* AH and QPN known */
	RS_WAIT,  /* resolving failed: backing off until retry_at_ms */
};

struct peer {
	bool used, loopback;
	int slot; /* local slot, -1: none yet */
	char *target;
	char host[PROBE_TARGETS_MAX_HOST + 1];
	uint16_t dport;
	char device[64], port_str[4]; /* labels: the local port, "" until known */
	struct metric_label file_labels[MAX_FILE_LABELS];
	size_t n_file_labels;
	/* resolution */
	enum rstate rs;
	struct gaicb *gai;
	struct sockaddr_in6 addr; /* IPv4 as v4-mapped */
	uint8_t src[16];	  /* the route's source address (as a GID) */
	bool have_src;
	uint64_t nonce, query_deadline_ms, retry_at_ms;
	unsigned query_tries, fails;
	struct ibv_ah *ah; /* remote peers only; loopback uses the port's */
	uint32_t qpn;
	int sgid_index;
	/* the current round, the probe in flight, the unanswered ones (probe_pace.h) */
	struct probe_pace pace;
	bool have_sent_ts;
	uint64_t seq;
	uint64_t sent_ts; /* NIC time the request left, when the port has a clock */
	/* numbers */
	struct histogram rtt;
	struct histogram net_rtt; /* rtt less the responder's turnaround */
	double turnaround_sum;	  /* seconds, of the replies in rtt */
	uint64_t sent, replies, timeouts, errors[R_REASONS];
	double last_rtt;
	bool have_last;
	uint64_t recent_rtt_ns; /* probe_pace_recent_rtt: sizes the spin window */
	/* The wake-up request sent before each remote probe (probe_engine.c). */
	struct probe_wake wake;	 /* the wake-up before each probe (probe_pace.h) */
	uint64_t wake_seq;	 /* its sequence number while in flight */
	uint64_t turnarounds[2]; /* replies by the clock of their turnaround: software, NIC */
};

struct probe_state {
	const struct device_filter *filter;
	int sysfs_fd; /* -1: ask the device for its ports */
	uint64_t interval_ms, count, timeout_ms, max_targets;
	uint64_t rotation_ms; /* --collector.probe.sample-rotation; 0: a fixed sample */
	struct probe_pace_cfg pace;
	uint16_t udp_port;
	bool responder;
	char *targets_path;

	pthread_mutex_t lock; /* everything the collector reads */
	pthread_t thread;
	bool started;
	int stop_fd; /* eventfd: stop or reload requested */
	int stop;    /* under lock */
	int hup;     /* under lock: re-read the targets file */
	/* Discovery sideband: one socket per address, open only while a probe
	 * port is; the addresses from --collector.probe.listen-address (fixed)
	 * or the RDMA netdevs' (probe_sideband_sync). */
	struct sideband {
		int fd;
		struct probe_bind_addr a;
		/* the port its discovery queries are answered for (probe_slot_pick),
		 * as of the last sync; "" when none is open */
		char device[64], port_str[4];
		char addr_txt[48]; /* the address as a target names it, without port */
	} sb[PROBE_BIND_MAX];
	size_t n_sb;
	struct probe_bind_addr fixed[PROBE_BIND_MAX];
	int n_fixed;				     /* 0: the RDMA netdevs' addresses */
	struct probe_bind_addr want[PROBE_BIND_MAX]; /* the last set wanted */
	size_t n_want;
	bool want_valid;
	uint32_t session;
	uint64_t seq;
	uint64_t node_key; /* this node's identity in the sample (a hash of its host name) */
	struct slot slots[MAX_SLOTS];
	struct peer *peers; /* n_peers = max_targets + MAX_SLOTS */
	size_t n_peers;
	struct probe_ratelimit rl, disc_rl;

	/* targets file */
	struct probe_target_list list;
	bool have_list;
	struct stat file_st;
	bool file_seen; /* file_st valid */
	int file_err;	/* errno of the last failed stat, for logging once */
	bool reload_ok;
	uint64_t window; /* rotation epoch of the sample in use; 0 without rotation */

	/* targets DNS name (--collector.probe.targets-dns); the list above is its */
	char *dns_spec; /* NAME[:PORT] as given; NULL: no name */
	char dns_host[PROBE_TARGETS_MAX_HOST + 1];
	uint16_t dns_port;
	struct gaicb *dns_gai; /* the look-up in flight */
	bool dns_literal;      /* dns_gai holds an address literal's answer (no thread) */
	uint64_t dns_next_ms;  /* when to resolve again */
	int dns_err;	       /* the last failure logged (EAI_*), 0: none */
	uint64_t rounds;

	/* graveyard of getaddrinfo_a requests whose peer is gone */
	struct gaicb **graves;
	size_t n_graves;

	uint64_t disc_requests, disc_dropped[DD_N];
	uint64_t spin_until_ns; /* the responder polls until then (its last wake-ups) */
	uint64_t spin_max_ns;	/* --collector.probe.spin-max; 0: never spin after a probe */
	bool target_histograms; /* --collector.probe.target-histograms */
	bool target_detail;	/* --collector.probe.target-detail */
	bool loopback_thread;	/* --collector.probe.loopback-thread (probe_loop.h) */
	unsigned warmups;	/* --collector.probe.warmups: wake-ups before each probe */
};

/* probe_engine.c: the thread start routine; the sideband's datagrams of one
 * socket, drained under the lock (answers to the resolver, queries to the
 * responder). */
void *probe_engine(void *arg);
void probe_sideband_input(struct probe_state *st, const struct sideband *sb);

/* probe_slots.c */
int probe_sync_ports(struct probe_state *st);
void probe_slot_close(struct probe_state *st, struct slot *s);
void probe_slot_drop(struct probe_state *st, struct slot *s);
void probe_slot_free_numbers(struct slot *s);
int probe_slot_pick(struct probe_state *st, const uint8_t *gid, uint64_t now_ns, int *gid_index);

/* probe_peers.c */
struct peer *probe_peer_new(struct probe_state *st);
void probe_peer_free(struct probe_state *st, struct peer *pe);
void probe_peer_unresolve(struct probe_state *st, struct peer *pe);
void probe_peer_set_slot(struct probe_state *st, struct peer *pe, int slot);
void probe_reap_graves(struct probe_state *st, bool wait);
void probe_apply_sample(struct probe_state *st);
size_t probe_remote_peers(const struct probe_state *st);
void probe_check_targets_file(struct probe_state *st, bool force);

/* probe_dns_watch.c */
void probe_check_targets_dns(struct probe_state *st, uint64_t now_ms, bool force);
int probe_dns_apply(struct probe_state *st, const uint8_t (*addrs)[16], size_t n,
		    const uint8_t (*own)[16], size_t n_own);
void probe_dns_stop(struct probe_state *st);

/* probe_resolve.c */
void probe_backoff(struct probe_state *st, struct peer *pe, uint64_t now_ms);
void probe_start_resolve(struct probe_state *st, struct peer *pe, uint64_t now_ms);
void probe_check_dns(struct probe_state *st, struct peer *pe, uint64_t now_ms);
void probe_send_query(struct probe_state *st, struct peer *pe, uint64_t now_ms);
bool probe_take_answer(struct probe_state *st, const struct probe_disc *d);

/* probe_sideband.c; probe_local_candidates: the local interfaces' addresses, at most max */
size_t probe_local_candidates(struct probe_bind_cand *c, size_t max);
void probe_sideband_sync(struct probe_state *st);
void probe_sideband_close_all(struct probe_state *st);
int probe_sideband_for(const struct probe_state *st, const uint8_t *src, bool have_src, bool v4);

/* probe_responder.c */
void probe_answer_request(struct probe_state *st, struct slot *s, const struct probe_rx *rx,
			  uint64_t now, bool wakeup, uint32_t spin_us);
bool probe_responder_spin(const struct probe_state *st, uint64_t now_ns);
void probe_answer_query(struct probe_state *st, int fd, const struct probe_disc *q,
			const struct sockaddr *from, socklen_t fl, const uint8_t *dst_gid);

/* probe_export.c: a reply's round trip (ns) into pe's numbers and, for a
 * remote target, into those of its port s (NULL: none); collect(). */
void probe_peer_record_reply(struct peer *pe, struct slot *s, uint64_t rtt_ns,
			     const struct probe_packet *reply);
int probe_collect(void *state, struct metric_sink *sink, struct collector_stats *stats);

#endif
