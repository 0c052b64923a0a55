/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The probe collector: active RDMA latency probes. An engine thread, started
 * by init() and stopped by free(), opens a UD QP on every ACTIVE port
 * (probe_port.h). Every --collector.probe.interval it pings each port in
 * loopback (a wedged HCA, firmware or driver shows as timeouts and errors
 * even when no traffic flows) and, with --collector.probe.targets-file or
 * --collector.probe.targets-dns, up to --collector.probe.max-targets peers of the pingmesh: each
 * peer's exporter is asked over a UDP sideband (probe_discovery.h) for its probe QP, then probed
 * over RDMA. The same QP answers other nodes' probes (the responder), rate-limited per source.
 * collect() only copies the engine's numbers under a lock, so probing never delays a poll. The
 * engine closes a port's verbs context as soon as its device leaves the verbs device list (checked
 * every second), so it never blocks `rdma link delete` of a driver without context disassociation.
 *
 * Series per target (loopback included) are few by default:
 * rdma_probe_rtt_seconds without its classic buckets in the text, sent,
 * replies, timeouts, resolve errors from 0, errors of the other reasons that
 * occurred (7 when healthy, 6 for the loopback);
 * the distributions are per port (rdma_probe_port_rtt_seconds,
 * rdma_probe_port_network_rtt_seconds, remote targets only). With
 * --collector.probe.target-histograms every target gets everything, classic
 * buckets included.
 *
 * Families: rdma_probe_rtt_seconds (histogram), rdma_probe_sent_total,
 * rdma_probe_replies_total, rdma_probe_timeouts_total, rdma_probe_errors_total,
 * rdma_probe_last_rtt_seconds, rdma_probe_timestamp_info,
 * rdma_probe_network_rtt_seconds, rdma_probe_responder_turnaround_seconds_total,
 * rdma_probe_responder_turnarounds_total, rdma_probe_wakeup_requests_total,
 * rdma_probe_responder_requests_total, rdma_probe_responder_dropped_total,
 * rdma_probe_targets, rdma_probe_targets_probed,
 * rdma_probe_targets_file_reload_success, rdma_probe_discovery_requests_total,
 * rdma_probe_discovery_dropped_total, rdma_probe_port_rtt_seconds,
 * rdma_probe_port_network_rtt_seconds, rdma_probe_local_address_info.
 */
#ifndef RDMA_EXPORTER_PROBE_H
#define RDMA_EXPORTER_PROBE_H

#include "collector.h"

extern const struct collector_ops probe_collector_ops;

enum {
	PROBE_FLAG_INTERVAL, /* ms */
	PROBE_FLAG_COUNT,
	PROBE_FLAG_TIMEOUT,	 /* ms */
	PROBE_FLAG_TARGETS_FILE, /* path, in flag_strs */
	PROBE_FLAG_MAX_TARGETS,
	PROBE_FLAG_PORT, /* UDP port of the discovery sideband */
	PROBE_FLAG_RESPONDER,
	PROBE_FLAG_LISTEN_ADDRESS,    /* ADDR[,ADDR...], in flag_strs (probe_bind.h) */
	PROBE_FLAG_SAMPLE_ROTATION,   /* ms, 0: a fixed sample */
	PROBE_FLAG_TARGETS_DNS,	      /* NAME[:PORT], in flag_strs (probe_dns.h) */
	PROBE_FLAG_SPIN_MAX,	      /* ms, 0: never spin, no wake-ups */
	PROBE_FLAG_TARGET_HISTOGRAMS, /* bool: classic buckets and detail per remote target */
	PROBE_FLAG_LOOPBACK_THREAD,   /* bool: a second thread answers loopback (probe_loop.h) */
	PROBE_FLAG_WARMUPS,	      /* uint: wake-up round trips before each probe */
	PROBE_FLAG_TARGET_DETAIL, /* bool: the text's per-target and per-port detail (issue 40) */
	PROBE_FLAG_COUNT_,
};

/* --collector.probe.warmups's default: wake-up round trips before each probe */
#define PROBE_WARMUPS_DEFAULT 2

#endif
