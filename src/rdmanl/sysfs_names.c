/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The table of well-known sysfs counter files.
 *
 * Sources of the names (read for facts only):
 *  - drivers/infiniband/core/sysfs.c: the ports/N/counters/ group is built
 *    from the PMA PortCounters / PortCountersExtended attributes. When the
 *    PMA declares extended width (mlx5 always does), port_{xmit,rcv}_data and
 *    port_{xmit,rcv}_packets in counters/ are the 64 bit PortCountersExtended
 *    values and unicast_* / multicast_* appear; otherwise they are the 32 bit
 *    PortCounters fields, which saturate instead of wrapping (IBA spec).
 *    The data counters count octets divided by 4.
 *  - The same file: every hw_counters/ directory (port or device level) gets
 *    a writable "lifespan" file, the cache lifetime of the values in ms.
 *  - drivers/infiniband/hw/mlx5/counters.c: the q counters, congestion
 *    counters and rx_icrc_encapsulated shown in ports/N/hw_counters/.
 *    The optional (netlink-only) counters are not in sysfs.
 *  - drivers/infiniband/hw/efa/efa_verbs.c: port stats tx_bytes, tx_pkts,
 *    rx_bytes, rx_pkts, rx_drops. drivers/infiniband/hw/bnxt_re/hw_counters.c
 *    uses rx_bytes/rx_pkts/tx_bytes/tx_pkts for its RoCE traffic too (and
 *    Broadcom's out-of-tree bnxt_re reuses many mlx5 names, same meaning).
 *  - drivers/infiniband/sw/rxe/rxe_hw_counters.c: link_downed, rcvd_pkts
 *    and sent_pkts (every RoCE packet the port received or sent, counted in
 *    rxe_rcv() and rxe_xmit_packet()) are mapped, so a generic throughput
 *    panel shows Soft-RoCE packets too. The rxe counter "duplicate_request"
 *    has the same name as the mlx5 one but counts something else; the other
 *    rxe counters stay in the generic family, so duplicate_request is
 *    deliberately not in this table (it is still exported, as
 *    rdma_port_statistic_total{counter="duplicate_request"}).
 *  - Newer drivers' hw_counters (facts looked up in the kernel sources):
 *    bnxt_re, drivers/infiniband/hw/bnxt_re/hw_counters.c: the Thor2 (gen
 *    P7) congestion counters tx_cnp_pkts, rx_cnp_pkts, rx_ecn_marked_pkts
 *    (Broadcom patch to linux-rdma, July 2023, for gen P5/P7). Broadcom's
 *    patch "RDMA/bnxt_re: RoCE related hardware counters update" (rdma-next,
 *    August 2025, the Linux 6.18 cycle) renamed them np_cnp_pkts,
 *    rp_cnp_handled, np_ecn_marked_roce_packets and renamed its transport
 *    counters to the mlx5 names (to_retransmits -> local_ack_timeout_err,
 *    seq_err_naks_rcvd -> packet_seq_err, rnr_naks_rcvd -> rnr_nak_retry_err,
 *    missing_resp -> implied_nak_seq_err, oos_drop_count -> out_of_sequence,
 *    rx_out_of_buffer -> out_of_buffer, rx_*_req -> rx_*_requests, ...):
 *    the vendor's own statement that the meanings match, so both names feed
 *    one family. rx_cnp_pkts counts every CNP received, which Broadcom calls
 *    rp_cnp_handled; mana's received_cnps is mapped the same way.
 *    mana, drivers/infiniband/hw/mana/counters.c (mana_ib_port_stats_desc,
 *    mana_ib_device_stats_desc): the port counters with an mlx5 twin are
 *    mapped; the device-level ones (sent_cnps, received_ecns, ...) have no
 *    port and stay generic, as does current_rate (a rate, not a counter).
 *    erdma, drivers/infiniband/hw/erdma/erdma_verbs.c (erdma_descs): bytes
 *    and packets; its drops split by cause stay generic.
 *    ionic (drivers/infiniband/hw/ionic/ionic_hw_stats.c): the names come
 *    from the device firmware at run time (IONIC_V1_ADMIN_STATS_HDRS), the
 *    kernel source has none, so none is listed here.
 *  - counters/port_rcv_discards: not a PMA attribute of the upstream core,
 *    but some drivers (MLNX_OFED mlx4, seen in node_exporter's fixtures) have
 *    it next to port_xmit_discards; node_exporter exports it, so do we.
 *  - counters_ext/ (MLNX_OFED mlx4): *_64 and port_{unicast,multicast}_*.
 *  - Widths (bits) of the PMA counters, for rdma_port_statistic_saturated: IBA
 *    vol 1 PortCounters, as the kernel's PORT_PMA_ATTR() entries give them:
 *    symbol_error 16, link_error_recovery 8, link_downed 8, port_rcv_errors
 *    16, port_rcv_remote_physical_errors 16, port_rcv_switch_relay_errors 16,
 *    port_xmit_discards 16, port_xmit_constraint_errors 8,
 *    port_rcv_constraint_errors 8, local_link_integrity_errors 4,
 *    excessive_buffer_overrun_errors 4, VL15_dropped 16, port_xmit_wait 32
 *    (also in the extended group), port_{xmit,rcv}_{data,packets} 32, or 64
 *    with PortCountersExtended. The unicast/multicast files exist only in
 *    the extended group (64). hw_counters and counters_ext are 64 bit or
 *    wrap (mlx5 q counters): never saturated.
 *
 * Several files may feed one family (e.g. the received data bytes): the
 * priority decides which one a port exports under the named family when it
 * has more than one of them; counters_ext/ beats counters/, which beats
 * hw_counters/.
 */
#include <stddef.h>
#include <string.h>

#include "rdmanl/sysfs_names.h"

/* Priorities: higher wins when one port has several files of one family. */
enum {
	/* hw_counters: one driver's name each (a port has one driver) */
	PRIO_HW_ERDMA = 1,
	PRIO_HW_MANA,
	PRIO_HW_BNXT_OLD, /* bnxt_re names before Linux 6.18 */
	PRIO_HW_BNXT,	  /* bnxt_re names that mlx5 does not have */
	PRIO_HW_RXE,	  /* rxe's rcvd_pkts/sent_pkts */
	PRIO_HW,	  /* mlx5, efa, the names several drivers share */
	PRIO_COUNTERS,
	PRIO_COUNTERS_EXT,
};

#define SRC_C  SYSFS_SRC_COUNTERS
#define SRC_CX SYSFS_SRC_COUNTERS_EXT
#define SRC_HW SYSFS_SRC_HW_COUNTERS

/* HELP texts of the families that more than one table entry feeds. */
static const char help_rx_data[] =
	"Data received on the port in bytes (IB PortRcvData x4 from counters/ or mlx4 "
	"counters_ext/; efa, bnxt_re and mana hw_counters rx_bytes; erdma rx_bytes_cnt).";
static const char help_tx_data[] =
	"Data transmitted on the port in bytes (IB PortXmitData x4 from counters/ or mlx4 "
	"counters_ext/; efa, bnxt_re and mana hw_counters tx_bytes; erdma tx_bytes_cnt).";
static const char help_rx_packets[] =
	"Packets received on the port, may include packets with errors (IB PortRcvPkts from "
	"counters/ or mlx4 counters_ext/; efa and bnxt_re hw_counters rx_pkts; rxe "
	"hw_counters rcvd_pkts; mana rx_packets; erdma rx_packets_cnt).";
static const char help_tx_packets[] =
	"Packets transmitted on the port, may include packets with errors (IB PortXmitPkts "
	"from counters/ or mlx4 counters_ext/; efa and bnxt_re hw_counters tx_pkts; rxe "
	"hw_counters sent_pkts; mana tx_packets; erdma tx_packets_cnt).";
static const char help_rx_discards[] =
	"Inbound packets the port or device discarded, e.g. because the port was down or "
	"congested (counters/port_rcv_discards where the driver has it; efa hw_counters "
	"rx_drops).";
static const char help_rx_unicast[] =
	"Unicast packets received on the port (IB PortUnicastRcvPkts from counters/ or mlx4 "
	"counters_ext/).";
static const char help_tx_unicast[] =
	"Unicast packets transmitted on the port (IB PortUnicastXmitPkts from counters/ or mlx4 "
	"counters_ext/).";
static const char help_rx_multicast[] =
	"Multicast packets received on the port (IB PortMulticastRcvPkts from counters/ or "
	"mlx4 counters_ext/).";
static const char help_tx_multicast[] =
	"Multicast packets transmitted on the port (IB PortMulticastXmitPkts from counters/ or "
	"mlx4 counters_ext/).";
static const char help_link_downed[] =
	"Times the link error recovery failed and the link went down (IB LinkDownedCounter "
	"from counters/; rxe hw_counters link_downed).";

/* Families that the hw_counters of several drivers feed (same meaning, other names). */
static const char help_rx_write[] =
	"RDMA WRITE requests received by the port's QPs (mlx5, bnxt_re and mana rx_write_requests; "
	"bnxt_re before Linux 6.18 rx_write_req).";
static const char help_rx_read[] =
	"RDMA READ requests received by the port's QPs (mlx5, bnxt_re and mana rx_read_requests; "
	"bnxt_re before Linux 6.18 rx_read_req).";
static const char help_rx_atomic[] =
	"ATOMIC requests received by the port's QPs (mlx5 and bnxt_re rx_atomic_requests; "
	"bnxt_re before Linux 6.18 rx_atomic_req).";
static const char help_out_of_buffer[] =
	"Packets dropped because no receive WQE was posted on the QP (mlx5 and bnxt_re "
	"out_of_buffer; bnxt_re before Linux 6.18 rx_out_of_buffer).";
static const char help_out_of_sequence[] =
	"Out of sequence packets received by the port's QPs as responders (mlx5 and bnxt_re "
	"out_of_sequence; bnxt_re before Linux 6.18 oos_drop_count; mana responder_oos).";
static const char help_rnr_naks[] =
	"RNR NAKs received by requesters before the QP retry limit was exceeded (mlx5 and bnxt_re "
	"rnr_nak_retry_err; bnxt_re before Linux 6.18 rnr_naks_rcvd; mana requester_rnr_nak).";
static const char help_seq_naks[] =
	"NAK sequence error packets received by requesters before the QP retry limit was "
	"exceeded (mlx5 and bnxt_re packet_seq_err; bnxt_re before Linux 6.18 seq_err_naks_rcvd; "
	"mana requester_oos_nak).";
static const char help_implied_nak[] =
	"Times a requester got an ACK with a PSN above the expected one for an RDMA READ or "
	"response, an implied NAK (mlx5 and bnxt_re implied_nak_seq_err; bnxt_re before Linux "
	"6.18 missing_resp; mana requester_implicit_nak).";
static const char help_ack_timeouts[] =
	"Times a sender QP's ACK timer expired before the QP retry limit was exceeded (mlx5 and "
	"bnxt_re local_ack_timeout_err; bnxt_re before Linux 6.18 to_retransmits; mana "
	"requester_timeout).";
static const char help_rnr_retries_exceeded[] =
	"Times a requester QP exceeded its RNR retry limit (mlx5 req_rnr_retries_exceeded; mana "
	"requester_rnr_nak_retries_exceeded).";
static const char help_transport_retries_exceeded[] =
	"Times a requester QP exceeded its transport retry limit (mlx5 "
	"req_transport_retries_exceeded; mana requester_retries_exceeded).";
static const char help_req_remote_invalid[] =
	"Remote invalid request NAKs received by requesters (mlx5 and bnxt_re "
	"req_remote_invalid_request; bnxt_re before Linux 6.18 remote_invalid_req_err).";
static const char help_req_remote_access[] =
	"Remote access error NAKs received by requesters, e.g. a bad rkey (mlx5 and bnxt_re "
	"req_remote_access_errors; bnxt_re before Linux 6.18 remote_access_err).";
static const char help_resp_local_length[] =
	"Local length errors detected by responders, e.g. a message longer than the receive "
	"buffer (mlx5 and bnxt_re resp_local_length_error; bnxt_re before Linux 6.18 "
	"res_length_mismatch; mana responder_local_len_error).";
static const char help_cnp_sent[] =
	"Congestion notification packets sent by the notification point after receiving ECN "
	"marked RoCEv2 packets (mlx5 np_cnp_sent; bnxt_re np_cnp_pkts, before Linux 6.18 "
	"tx_cnp_pkts).";
static const char help_ecn_marked[] =
	"RoCEv2 packets received with the ECN congestion experienced mark (mlx5 and bnxt_re "
	"np_ecn_marked_roce_packets; bnxt_re before Linux 6.18 rx_ecn_marked_pkts).";
static const char help_cnp_handled[] =
	"Congestion notification packets handled by the reaction point to throttle the send "
	"rate (mlx5 and bnxt_re rp_cnp_handled; bnxt_re before Linux 6.18 rx_cnp_pkts and mana "
	"received_cnps, which count every CNP received).";

#define ENTRY_W(_file, _src, _metric, _help, _mult, _prio, _bits, _ext64)                          \
	{                                                                                          \
		.file = (_file), .sources = (_src), .metric = (_metric), .help = (_help),          \
		.multiplier = (_mult), .type = METRIC_COUNTER, .priority = (_prio),                \
		.bits = (_bits), .ext_64 = (_ext64),                                               \
	}
#define ENTRY(_file, _src, _metric, _help, _mult, _prio)                                           \
	ENTRY_W(_file, _src, _metric, _help, _mult, _prio, 0, false)

/* A PMA PortCounters file of counters/ with its width in bits (IBA vol 1,
 * PortCounters; the kernel's PORT_PMA_ATTR widths): it saturates there. */
#define IB_COUNTER(_file, _metric, _help, _bits)                                                   \
	ENTRY_W(_file, SRC_C, _metric, _help, 1, PRIO_COUNTERS, _bits, false)
/* 32 bits in PortCounters, 64 in PortCountersExtended. */
#define IB_COUNTER_EXT(_file, _metric, _help, _mult)                                               \
	ENTRY_W(_file, SRC_C, _metric, _help, _mult, PRIO_COUNTERS, 32, true)
/* counters/ of some drivers only, not a PMA attribute: width unknown. */
#define C_COUNTER(_file, _metric, _help)  ENTRY(_file, SRC_C, _metric, _help, 1, PRIO_COUNTERS)
#define HW_COUNTER(_file, _metric, _help) ENTRY(_file, SRC_HW, _metric, _help, 1, PRIO_HW)
/* Another driver's hw_counters name for a family: its own priority. */
#define HW_ALT(_file, _metric, _help, _prio) ENTRY(_file, SRC_HW, _metric, _help, 1, _prio)

const struct sysfs_counter_name sysfs_counter_names[] = {
	/* ports/N/counters/: IB PortCounters and PortCountersExtended (PMA). */
	IB_COUNTER("symbol_error", "rdma_port_symbol_errors_total",
		   "Minor link errors detected on one or more physical lanes (IB "
		   "SymbolErrorCounter, counters/, all PMA drivers).",
		   16),
	IB_COUNTER("link_error_recovery", "rdma_port_link_error_recoveries_total",
		   "Times the link error recovery process completed successfully (IB "
		   "LinkErrorRecoveryCounter, counters/, all PMA drivers).",
		   8),
	IB_COUNTER("link_downed", "rdma_port_link_downed_total", help_link_downed, 8),
	IB_COUNTER("port_rcv_errors", "rdma_port_errors_received_total",
		   "Packets with errors received on the port (IB PortRcvErrors, counters/, all "
		   "PMA drivers).",
		   16),
	IB_COUNTER("port_rcv_remote_physical_errors",
		   "rdma_port_remote_physical_errors_received_total",
		   "Packets received with the EBP delimiter marking a remote physical error (IB "
		   "PortRcvRemotePhysicalErrors, counters/, all PMA drivers).",
		   16),
	IB_COUNTER("port_rcv_switch_relay_errors", "rdma_port_switch_relay_errors_received_total",
		   "Packets received that the switch relay could not forward and discarded (IB "
		   "PortRcvSwitchRelayErrors, counters/, all PMA drivers).",
		   16),
	IB_COUNTER("port_xmit_discards", "rdma_port_discards_transmitted_total",
		   "Outbound packets discarded because the port was down or congested (IB "
		   "PortXmitDiscards, counters/, all PMA drivers).",
		   16),
	C_COUNTER("port_rcv_discards", "rdma_port_discards_received_total", help_rx_discards),
	IB_COUNTER("port_xmit_constraint_errors", "rdma_port_constraint_errors_transmitted_total",
		   "Packets not transmitted due to outbound raw filtering or partition checks (IB "
		   "PortXmitConstraintErrors, counters/, all PMA drivers).",
		   8),
	IB_COUNTER("port_rcv_constraint_errors", "rdma_port_constraint_errors_received_total",
		   "Received packets discarded due to inbound raw filtering or partition checks "
		   "(IB PortRcvConstraintErrors, counters/, all PMA drivers).",
		   8),
	IB_COUNTER("local_link_integrity_errors", "rdma_port_local_link_integrity_errors_total",
		   "Times the local physical errors exceeded the LocalPhyErrors threshold (IB "
		   "LocalLinkIntegrityErrors, counters/, all PMA drivers).",
		   4),
	IB_COUNTER("excessive_buffer_overrun_errors",
		   "rdma_port_excessive_buffer_overrun_errors_total",
		   "Times the port detected excessive input buffer overruns (IB "
		   "ExcessiveBufferOverrunErrors, counters/, all PMA drivers).",
		   4),
	IB_COUNTER("VL15_dropped", "rdma_port_vl15_packets_dropped_total",
		   "Incoming VL15 (subnet management) packets dropped for lack of resources (IB "
		   "VL15Dropped, counters/, all PMA drivers).",
		   16),
	IB_COUNTER("port_xmit_wait", "rdma_port_transmit_wait_ticks_total",
		   "Sample ticks during which the port had data to send but sent none, a tick is "
		   "device defined (IB PortXmitWait, counters/, all PMA drivers).",
		   32),
	/* 32 or 64 bit, see above; units of 4 octets. */
	IB_COUNTER_EXT("port_rcv_data", "rdma_port_data_received_bytes_total", help_rx_data, 4),
	IB_COUNTER_EXT("port_xmit_data", "rdma_port_data_transmitted_bytes_total", help_tx_data, 4),
	IB_COUNTER_EXT("port_rcv_packets", "rdma_port_packets_received_total", help_rx_packets, 1),
	IB_COUNTER_EXT("port_xmit_packets", "rdma_port_packets_transmitted_total", help_tx_packets,
		       1),
	C_COUNTER("unicast_rcv_packets", "rdma_port_unicast_packets_received_total",
		  help_rx_unicast),
	C_COUNTER("unicast_xmit_packets", "rdma_port_unicast_packets_transmitted_total",
		  help_tx_unicast),
	C_COUNTER("multicast_rcv_packets", "rdma_port_multicast_packets_received_total",
		  help_rx_multicast),
	C_COUNTER("multicast_xmit_packets", "rdma_port_multicast_packets_transmitted_total",
		  help_tx_multicast),

	/* ports/N/counters_ext/ (mlx4, MLNX_OFED): 64 bit, preferred over counters/. */
	ENTRY("port_rcv_data_64", SRC_CX, "rdma_port_data_received_bytes_total", help_rx_data, 4,
	      PRIO_COUNTERS_EXT),
	ENTRY("port_xmit_data_64", SRC_CX, "rdma_port_data_transmitted_bytes_total", help_tx_data,
	      4, PRIO_COUNTERS_EXT),
	ENTRY("port_rcv_packets_64", SRC_CX, "rdma_port_packets_received_total", help_rx_packets, 1,
	      PRIO_COUNTERS_EXT),
	ENTRY("port_xmit_packets_64", SRC_CX, "rdma_port_packets_transmitted_total",
	      help_tx_packets, 1, PRIO_COUNTERS_EXT),
	ENTRY("port_unicast_rcv_packets", SRC_CX, "rdma_port_unicast_packets_received_total",
	      help_rx_unicast, 1, PRIO_COUNTERS_EXT),
	ENTRY("port_unicast_xmit_packets", SRC_CX, "rdma_port_unicast_packets_transmitted_total",
	      help_tx_unicast, 1, PRIO_COUNTERS_EXT),
	ENTRY("port_multicast_rcv_packets", SRC_CX, "rdma_port_multicast_packets_received_total",
	      help_rx_multicast, 1, PRIO_COUNTERS_EXT),
	ENTRY("port_multicast_xmit_packets", SRC_CX,
	      "rdma_port_multicast_packets_transmitted_total", help_tx_multicast, 1,
	      PRIO_COUNTERS_EXT),

	/*
	 * ports/N/hw_counters/ of mlx5. The q counters are 32 bit in the device
	 * (they wrap); the congestion counters and rx_icrc_encapsulated are 64 bit.
	 * bnxt_re uses many of these names since Linux 6.18 and mana some of
	 * them, with the same meaning (see the top of this file).
	 */
	HW_COUNTER("rx_write_requests", "rdma_port_write_requests_received_total", help_rx_write),
	HW_COUNTER("rx_read_requests", "rdma_port_read_requests_received_total", help_rx_read),
	HW_COUNTER("rx_atomic_requests", "rdma_port_atomic_requests_received_total",
		   help_rx_atomic),
	HW_COUNTER("rx_dct_connect", "rdma_port_dct_connect_requests_received_total",
		   "Connection requests received by the port's DC targets (mlx5)."),
	HW_COUNTER("out_of_buffer", "rdma_port_out_of_buffer_packets_dropped_total",
		   help_out_of_buffer),
	HW_COUNTER("out_of_sequence", "rdma_port_out_of_sequence_packets_received_total",
		   help_out_of_sequence),
	HW_COUNTER("rnr_nak_retry_err", "rdma_port_rnr_naks_received_total", help_rnr_naks),
	HW_COUNTER("packet_seq_err", "rdma_port_sequence_error_naks_received_total", help_seq_naks),
	HW_COUNTER("implied_nak_seq_err", "rdma_port_implied_nak_sequence_errors_total",
		   help_implied_nak),
	HW_COUNTER("local_ack_timeout_err", "rdma_port_local_ack_timeouts_total",
		   help_ack_timeouts),
	HW_COUNTER("req_rnr_retries_exceeded", "rdma_port_requester_rnr_retries_exceeded_total",
		   help_rnr_retries_exceeded),
	HW_COUNTER("req_transport_retries_exceeded",
		   "rdma_port_requester_transport_retries_exceeded_total",
		   help_transport_retries_exceeded),
	HW_COUNTER("req_cqe_error", "rdma_port_requester_cqe_errors_total",
		   "Requester completions (CQEs) with an error status (mlx5; bnxt_re since Linux "
		   "6.18, the sum of its requester error counters)."),
	HW_COUNTER("resp_cqe_error", "rdma_port_responder_cqe_errors_total",
		   "Responder completions (CQEs) with an error status (mlx5; bnxt_re since Linux "
		   "6.18)."),
	HW_COUNTER("req_cqe_flush_error", "rdma_port_requester_cqe_flush_errors_total",
		   "Requester completions (CQEs) flushed with error, e.g. after the QP entered the "
		   "error state (mlx5)."),
	HW_COUNTER("resp_cqe_flush_error", "rdma_port_responder_cqe_flush_errors_total",
		   "Responder completions (CQEs) flushed with error, e.g. receive WQEs left at QP "
		   "teardown (mlx5)."),
	HW_COUNTER("req_remote_access_errors", "rdma_port_requester_remote_access_errors_total",
		   help_req_remote_access),
	HW_COUNTER("resp_remote_access_errors", "rdma_port_responder_remote_access_errors_total",
		   "Remote access errors detected by responders, e.g. a request with a bad rkey "
		   "(mlx5; bnxt_re since Linux 6.18)."),
	HW_COUNTER("req_remote_invalid_request",
		   "rdma_port_requester_remote_invalid_request_errors_total",
		   help_req_remote_invalid),
	HW_COUNTER("resp_local_length_error", "rdma_port_responder_local_length_errors_total",
		   help_resp_local_length),
	HW_COUNTER("rx_icrc_encapsulated", "rdma_port_icrc_error_packets_received_total",
		   "RoCE packets received with an invalid ICRC (mlx5)."),
	HW_COUNTER("np_cnp_sent", "rdma_port_cnp_packets_sent_total", help_cnp_sent),
	HW_COUNTER("np_ecn_marked_roce_packets", "rdma_port_ecn_marked_packets_received_total",
		   help_ecn_marked),
	HW_COUNTER("rp_cnp_handled", "rdma_port_cnp_packets_handled_total", help_cnp_handled),
	HW_COUNTER("rp_cnp_ignored", "rdma_port_cnp_packets_ignored_total",
		   "Congestion notification packets received and ignored by the reaction point, "
		   "e.g. with congestion control off (mlx5)."),
	HW_COUNTER("roce_adp_retrans", "rdma_port_roce_adaptive_retransmissions_total",
		   "Adaptive retransmissions of RoCE traffic (mlx5)."),
	HW_COUNTER("roce_adp_retrans_to", "rdma_port_roce_adaptive_retransmission_timeouts_total",
		   "Times RoCE traffic hit a timeout during adaptive retransmission (mlx5)."),
	HW_COUNTER("roce_slow_restart", "rdma_port_roce_slow_restarts_total",
		   "Times RoCE slow restart was used (mlx5)."),
	HW_COUNTER("roce_slow_restart_cnps", "rdma_port_roce_slow_restart_cnps_total",
		   "Congestion notification packets generated by RoCE slow restart (mlx5)."),
	HW_COUNTER("roce_slow_restart_trans", "rdma_port_roce_slow_restart_transitions_total",
		   "Times a RoCE QP changed state to slow restart (mlx5)."),

	/* ports/N/hw_counters/ of efa (and bnxt_re, which has counters/ as well). */
	ENTRY("rx_bytes", SRC_HW, "rdma_port_data_received_bytes_total", help_rx_data, 1, PRIO_HW),
	ENTRY("tx_bytes", SRC_HW, "rdma_port_data_transmitted_bytes_total", help_tx_data, 1,
	      PRIO_HW),
	ENTRY("rx_pkts", SRC_HW, "rdma_port_packets_received_total", help_rx_packets, 1, PRIO_HW),
	ENTRY("tx_pkts", SRC_HW, "rdma_port_packets_transmitted_total", help_tx_packets, 1,
	      PRIO_HW),
	ENTRY("rx_drops", SRC_HW, "rdma_port_discards_received_total", help_rx_discards, 1,
	      PRIO_HW),

	/* ports/N/hw_counters/ of rxe: same meaning as the PMA counters. */
	ENTRY("link_downed", SRC_HW, "rdma_port_link_downed_total", help_link_downed, 1, PRIO_HW),
	ENTRY("rcvd_pkts", SRC_HW, "rdma_port_packets_received_total", help_rx_packets, 1,
	      PRIO_HW_RXE),
	ENTRY("sent_pkts", SRC_HW, "rdma_port_packets_transmitted_total", help_tx_packets, 1,
	      PRIO_HW_RXE),

	/*
	 * bnxt_re (drivers/infiniband/hw/bnxt_re/hw_counters.c): the Thor2 (gen
	 * P7) congestion counters, np_cnp_pkts since Linux 6.18, and the names
	 * bnxt_re used before Broadcom renamed them to the mlx5 names (its patch
	 * "RoCE related hardware counters update", rdma-next, August 2025): the
	 * old and the new name of one counter feed one family.
	 */
	HW_ALT("np_cnp_pkts", "rdma_port_cnp_packets_sent_total", help_cnp_sent, PRIO_HW_BNXT),
	HW_ALT("tx_cnp_pkts", "rdma_port_cnp_packets_sent_total", help_cnp_sent, PRIO_HW_BNXT_OLD),
	HW_ALT("rx_cnp_pkts", "rdma_port_cnp_packets_handled_total", help_cnp_handled,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("rx_ecn_marked_pkts", "rdma_port_ecn_marked_packets_received_total", help_ecn_marked,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("rx_write_req", "rdma_port_write_requests_received_total", help_rx_write,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("rx_read_req", "rdma_port_read_requests_received_total", help_rx_read,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("rx_atomic_req", "rdma_port_atomic_requests_received_total", help_rx_atomic,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("rx_out_of_buffer", "rdma_port_out_of_buffer_packets_dropped_total",
	       help_out_of_buffer, PRIO_HW_BNXT_OLD),
	HW_ALT("oos_drop_count", "rdma_port_out_of_sequence_packets_received_total",
	       help_out_of_sequence, PRIO_HW_BNXT_OLD),
	HW_ALT("rnr_naks_rcvd", "rdma_port_rnr_naks_received_total", help_rnr_naks,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("seq_err_naks_rcvd", "rdma_port_sequence_error_naks_received_total", help_seq_naks,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("missing_resp", "rdma_port_implied_nak_sequence_errors_total", help_implied_nak,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("to_retransmits", "rdma_port_local_ack_timeouts_total", help_ack_timeouts,
	       PRIO_HW_BNXT_OLD),
	HW_ALT("remote_invalid_req_err", "rdma_port_requester_remote_invalid_request_errors_total",
	       help_req_remote_invalid, PRIO_HW_BNXT_OLD),
	HW_ALT("remote_access_err", "rdma_port_requester_remote_access_errors_total",
	       help_req_remote_access, PRIO_HW_BNXT_OLD),
	HW_ALT("res_length_mismatch", "rdma_port_responder_local_length_errors_total",
	       help_resp_local_length, PRIO_HW_BNXT_OLD),

	/*
	 * mana (drivers/infiniband/hw/mana/counters.c, mana_ib_port_stats_desc):
	 * port counters whose meaning matches a family. Its device-level
	 * counters (sent_cnps, received_ecns, ...) stay in the generic device
	 * family: the named families here are per port.
	 */
	HW_ALT("rx_packets", "rdma_port_packets_received_total", help_rx_packets, PRIO_HW_MANA),
	HW_ALT("tx_packets", "rdma_port_packets_transmitted_total", help_tx_packets, PRIO_HW_MANA),
	HW_ALT("received_cnps", "rdma_port_cnp_packets_handled_total", help_cnp_handled,
	       PRIO_HW_MANA),
	HW_ALT("responder_oos", "rdma_port_out_of_sequence_packets_received_total",
	       help_out_of_sequence, PRIO_HW_MANA),
	HW_ALT("requester_rnr_nak", "rdma_port_rnr_naks_received_total", help_rnr_naks,
	       PRIO_HW_MANA),
	HW_ALT("requester_oos_nak", "rdma_port_sequence_error_naks_received_total", help_seq_naks,
	       PRIO_HW_MANA),
	HW_ALT("requester_implicit_nak", "rdma_port_implied_nak_sequence_errors_total",
	       help_implied_nak, PRIO_HW_MANA),
	HW_ALT("requester_timeout", "rdma_port_local_ack_timeouts_total", help_ack_timeouts,
	       PRIO_HW_MANA),
	HW_ALT("requester_rnr_nak_retries_exceeded",
	       "rdma_port_requester_rnr_retries_exceeded_total", help_rnr_retries_exceeded,
	       PRIO_HW_MANA),
	HW_ALT("requester_retries_exceeded", "rdma_port_requester_transport_retries_exceeded_total",
	       help_transport_retries_exceeded, PRIO_HW_MANA),
	HW_ALT("responder_local_len_error", "rdma_port_responder_local_length_errors_total",
	       help_resp_local_length, PRIO_HW_MANA),

	/*
	 * erdma (drivers/infiniband/hw/erdma/erdma_verbs.c, erdma_descs, port 1):
	 * its traffic counters. The drops (tx/rx disable, bps and pps limit) are
	 * three causes each, no one family: generic.
	 */
	HW_ALT("rx_bytes_cnt", "rdma_port_data_received_bytes_total", help_rx_data, PRIO_HW_ERDMA),
	HW_ALT("tx_bytes_cnt", "rdma_port_data_transmitted_bytes_total", help_tx_data,
	       PRIO_HW_ERDMA),
	HW_ALT("rx_packets_cnt", "rdma_port_packets_received_total", help_rx_packets,
	       PRIO_HW_ERDMA),
	HW_ALT("tx_packets_cnt", "rdma_port_packets_transmitted_total", help_tx_packets,
	       PRIO_HW_ERDMA),
};

const unsigned sysfs_counter_names_len =
	sizeof(sysfs_counter_names) / sizeof(sysfs_counter_names[0]);

/* Linear scan: the table is small and this only runs when ports are scanned. */
const struct sysfs_counter_name *sysfs_counter_lookup(const char *file, unsigned source)
{
	if (!file)
		return NULL;

	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		const struct sysfs_counter_name *n = &sysfs_counter_names[i];

		if ((n->sources & source) && strcmp(n->file, file) == 0)
			return n;
	}
	return NULL;
}

uint64_t sysfs_counter_max(const struct sysfs_counter_name *n, unsigned source, bool pma_ext)
{
	if (!n || !(n->sources & source) || !n->bits || n->bits >= 64 ||
	    source != SYSFS_SRC_COUNTERS || (n->ext_64 && pma_ext))
		return 0;
	return (UINT64_C(1) << n->bits) - 1;
}

bool sysfs_counter_is_setting(const char *file, unsigned source)
{
	if (!file)
		return false;

	/* The core adds "lifespan" to every hw_counters group (ms, 0..10000). */
	return (source & (SYSFS_SRC_HW_COUNTERS | SYSFS_SRC_DEV_HW_COUNTERS)) &&
	       strcmp(file, "lifespan") == 0;
}
