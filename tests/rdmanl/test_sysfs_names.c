/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the well-known sysfs counter table (sysfs_names.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "exposition/metrics.h"
#include "metric_naming.h"
#include "rdmanl/sysfs_names.h"

#define ALL_SOURCES                                                                                \
	(SYSFS_SRC_COUNTERS | SYSFS_SRC_COUNTERS_EXT | SYSFS_SRC_HW_COUNTERS |                     \
	 SYSFS_SRC_DEV_HW_COUNTERS)

static const unsigned single_sources[] = {
	SYSFS_SRC_COUNTERS,
	SYSFS_SRC_COUNTERS_EXT,
	SYSFS_SRC_HW_COUNTERS,
	SYSFS_SRC_DEV_HW_COUNTERS,
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One line of printable ASCII, as the exposition HELP line needs. */
static bool help_is_plain(const char *help)
{
	if (!help || !*help)
		return false;
	for (const char *p = help; *p; p++) {
		if (*p < 0x20 || *p > 0x7e || *p == '\\')
			return false;
	}
	return true;
}

static void test_table_not_empty(void **state)
{
	(void)state;
	assert_true(sysfs_counter_names_len > 0);
}

static void test_every_entry_well_formed(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		const struct sysfs_counter_name *n = &sysfs_counter_names[i];

		assert_non_null(n->file);
		assert_non_null(n->metric);
		if (!metric_name_valid(n->metric))
			fail_msg("invalid metric name %s", n->metric);
		if (!starts_with(n->metric, "rdma_port_"))
			fail_msg("%s is not a port level family", n->metric);
		if (!help_is_plain(n->help))
			fail_msg("HELP of %s is not one plain ASCII line", n->file);
		assert_true(n->multiplier >= 1);
		assert_true(n->priority >= 1);
		/* Only known source bits; none at device level (families are per port). */
		assert_int_not_equal(n->sources, 0);
		assert_int_equal(n->sources & ~ALL_SOURCES, 0);
		assert_int_equal(n->sources & SYSFS_SRC_DEV_HW_COUNTERS, 0);
		if (n->type == METRIC_COUNTER && !ends_with(n->metric, "_total"))
			fail_msg("counter %s does not end in _total", n->metric);
		if (n->type != METRIC_COUNTER && ends_with(n->metric, "_total"))
			fail_msg("non-counter %s ends in _total", n->metric);
		/* Abbreviated units are not allowed in names. */
		assert_null(strstr(n->metric, "_sec"));
		assert_null(strstr(n->metric, "_ms_"));
		assert_null(strstr(n->metric, "_pkts"));
		/* Scaling only makes sense for byte counters (octets / 4). */
		if (n->multiplier != 1 && !ends_with(n->metric, "_bytes_total"))
			fail_msg("%s scales a non-byte counter", n->file);
	}
}

/* A file name may have only one meaning per directory. */
static void test_no_ambiguous_lookup(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		for (unsigned j = i + 1; j < sysfs_counter_names_len; j++) {
			const struct sysfs_counter_name *a = &sysfs_counter_names[i];
			const struct sysfs_counter_name *b = &sysfs_counter_names[j];

			if (strcmp(a->file, b->file) == 0 && (a->sources & b->sources))
				fail_msg("%s is listed twice for one source", a->file);
		}
	}
}

/*
 * Entries sharing a family must be interchangeable: same HELP, same type,
 * same final unit, and distinct priorities so one file wins per port.
 */
static void test_shared_families_consistent(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		for (unsigned j = i + 1; j < sysfs_counter_names_len; j++) {
			const struct sysfs_counter_name *a = &sysfs_counter_names[i];
			const struct sysfs_counter_name *b = &sysfs_counter_names[j];

			if (strcmp(a->metric, b->metric) != 0)
				continue;
			if (strcmp(a->help, b->help) != 0)
				fail_msg("%s: HELP differs between %s and %s", a->metric, a->file,
					 b->file);
			assert_int_equal(a->type, b->type);
			if (a->priority == b->priority)
				fail_msg("%s: %s and %s have the same priority", a->metric, a->file,
					 b->file);
			/* Different multipliers only for octets/4 vs plain bytes. */
			if (a->multiplier != b->multiplier)
				assert_true(ends_with(a->metric, "_bytes_total"));
		}
	}
}

static void assert_maps(const char *file, unsigned source, const char *metric, uint32_t mult)
{
	const struct sysfs_counter_name *n = sysfs_counter_lookup(file, source);

	if (!n)
		fail_msg("%s (source %u) is not mapped", file, source);
	assert_string_equal(n->metric, metric);
	assert_int_equal(n->multiplier, mult);
	assert_int_equal(n->type, METRIC_COUNTER);
}

static void test_required_names(void **state)
{
	(void)state;
	assert_maps("port_rcv_data", SYSFS_SRC_COUNTERS, "rdma_port_data_received_bytes_total", 4);
	assert_maps("port_xmit_data", SYSFS_SRC_COUNTERS, "rdma_port_data_transmitted_bytes_total",
		    4);
	assert_maps("port_rcv_data_64", SYSFS_SRC_COUNTERS_EXT,
		    "rdma_port_data_received_bytes_total", 4);
	assert_maps("port_xmit_data_64", SYSFS_SRC_COUNTERS_EXT,
		    "rdma_port_data_transmitted_bytes_total", 4);
	assert_maps("rx_bytes", SYSFS_SRC_HW_COUNTERS, "rdma_port_data_received_bytes_total", 1);
	assert_maps("tx_bytes", SYSFS_SRC_HW_COUNTERS, "rdma_port_data_transmitted_bytes_total", 1);
	assert_maps("port_rcv_packets", SYSFS_SRC_COUNTERS, "rdma_port_packets_received_total", 1);
	assert_maps("port_rcv_packets_64", SYSFS_SRC_COUNTERS_EXT,
		    "rdma_port_packets_received_total", 1);
	assert_maps("unicast_rcv_packets", SYSFS_SRC_COUNTERS,
		    "rdma_port_unicast_packets_received_total", 1);
	assert_maps("port_unicast_rcv_packets", SYSFS_SRC_COUNTERS_EXT,
		    "rdma_port_unicast_packets_received_total", 1);
	assert_maps("link_downed", SYSFS_SRC_COUNTERS, "rdma_port_link_downed_total", 1);
	assert_maps("link_downed", SYSFS_SRC_HW_COUNTERS, "rdma_port_link_downed_total", 1);
	assert_maps("VL15_dropped", SYSFS_SRC_COUNTERS, "rdma_port_vl15_packets_dropped_total", 1);
	assert_maps("port_xmit_discards", SYSFS_SRC_COUNTERS,
		    "rdma_port_discards_transmitted_total", 1);
	assert_maps("port_rcv_discards", SYSFS_SRC_COUNTERS, "rdma_port_discards_received_total",
		    1);
	assert_maps("port_rcv_errors", SYSFS_SRC_COUNTERS, "rdma_port_errors_received_total", 1);
	assert_maps("out_of_buffer", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_out_of_buffer_packets_dropped_total", 1);
	assert_maps("np_ecn_marked_roce_packets", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_ecn_marked_packets_received_total", 1);
}

/* Every counter file of a ConnectX port, as in tests/fixtures/sysfs/mlx5-roce. */
static void test_mlx5_names_all_mapped(void **state)
{
	static const char *const pma[] = {
		"symbol_error",
		"link_error_recovery",
		"link_downed",
		"port_rcv_errors",
		"port_rcv_remote_physical_errors",
		"port_rcv_switch_relay_errors",
		"port_xmit_discards",
		"port_xmit_constraint_errors",
		"port_rcv_constraint_errors",
		"local_link_integrity_errors",
		"excessive_buffer_overrun_errors",
		"VL15_dropped",
		"port_xmit_data",
		"port_rcv_data",
		"port_xmit_packets",
		"port_rcv_packets",
		"port_xmit_wait",
		"unicast_xmit_packets",
		"unicast_rcv_packets",
		"multicast_xmit_packets",
		"multicast_rcv_packets",
	};
	static const char *const hw[] = {
		"rx_write_requests",
		"rx_read_requests",
		"rx_atomic_requests",
		"rx_dct_connect",
		"out_of_buffer",
		"out_of_sequence",
		"rnr_nak_retry_err",
		"packet_seq_err",
		"implied_nak_seq_err",
		"local_ack_timeout_err",
		"resp_local_length_error",
		"resp_cqe_error",
		"req_cqe_error",
		"req_remote_invalid_request",
		"req_remote_access_errors",
		"resp_remote_access_errors",
		"resp_cqe_flush_error",
		"req_cqe_flush_error",
		"req_transport_retries_exceeded",
		"req_rnr_retries_exceeded",
		"roce_adp_retrans",
		"roce_adp_retrans_to",
		"roce_slow_restart",
		"roce_slow_restart_cnps",
		"roce_slow_restart_trans",
		"rp_cnp_ignored",
		"rp_cnp_handled",
		"np_ecn_marked_roce_packets",
		"np_cnp_sent",
		"rx_icrc_encapsulated",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pma) / sizeof(pma[0]); i++) {
		if (!sysfs_counter_lookup(pma[i], SYSFS_SRC_COUNTERS))
			fail_msg("counters/%s not mapped", pma[i]);
	}
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		if (!sysfs_counter_lookup(hw[i], SYSFS_SRC_HW_COUNTERS))
			fail_msg("hw_counters/%s not mapped", hw[i]);
	}
}

static void test_efa_names(void **state)
{
	(void)state;
	assert_maps("rx_pkts", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_received_total", 1);
	assert_maps("tx_pkts", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_transmitted_total", 1);
	assert_maps("rx_drops", SYSFS_SRC_HW_COUNTERS, "rdma_port_discards_received_total", 1);
}

/*
 * rxe: link_downed, rcvd_pkts and sent_pkts have named families; the VM test
 * expects every other rxe hw_counter under the generic family, so none of
 * them may be mapped.
 */
static void test_rxe_only_link_downed(void **state)
{
	static const char *const rxe[] = {
		"duplicate_request",   "out_of_seq_request",
		"rcvd_rnr_err",	       "send_rnr_err",
		"rcvd_seq_err",	       "ack_deferred",
		"retry_exceeded_err",  "retry_rnr_exceeded_err",
		"completer_retry_err", "send_err",
		"rdma_sends",	       "rdma_recvs",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rxe) / sizeof(rxe[0]); i++) {
		if (sysfs_counter_lookup(rxe[i], SYSFS_SRC_HW_COUNTERS))
			fail_msg("rxe counter %s must stay generic", rxe[i]);
		assert_false(sysfs_counter_is_setting(rxe[i], SYSFS_SRC_HW_COUNTERS));
	}
	assert_maps("link_downed", SYSFS_SRC_HW_COUNTERS, "rdma_port_link_downed_total", 1);
	assert_maps("rcvd_pkts", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_received_total", 1);
	assert_maps("sent_pkts", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_transmitted_total", 1);
	/* rxe has no counters/ directory: these are hw_counters names only */
	assert_null(sysfs_counter_lookup("rcvd_pkts", SYSFS_SRC_COUNTERS));
}

/* Every family the table feeds follows the naming rule of docs/metric-naming.md. */
static void test_naming_rule(void **state)
{
	(void)state;
	for (unsigned i = 0; i < sysfs_counter_names_len; i++) {
		const char *why = metric_name_problem(sysfs_counter_names[i].metric);

		if (why)
			fail_msg("%s: %s", sysfs_counter_names[i].metric, why);
	}
	/* the rule itself, on names it must refuse */
	assert_non_null(metric_name_problem("rdma_port_received_packets_total"));
	assert_non_null(metric_name_problem("rdma_port_receive_errors_total"));
	assert_non_null(metric_name_problem("rdma_port_cnp_sent_packets_total"));
	assert_null(metric_name_problem("rdma_port_data_received_bytes_total"));
	assert_null(metric_name_problem("rdma_port_transmit_wait_ticks_total"));
}

static void test_unknown_names(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(single_sources) / sizeof(single_sources[0]); s++) {
		assert_null(sysfs_counter_lookup("no_such_counter", single_sources[s]));
		assert_null(sysfs_counter_lookup("", single_sources[s]));
		assert_null(sysfs_counter_lookup(NULL, single_sources[s]));
		assert_null(sysfs_counter_lookup("PORT_RCV_DATA", single_sources[s]));
		assert_null(sysfs_counter_lookup("port_rcv_data ", single_sources[s]));
	}
	/* A name is only known in the directory where it has that meaning. */
	assert_null(sysfs_counter_lookup("port_rcv_data", SYSFS_SRC_COUNTERS_EXT));
	assert_null(sysfs_counter_lookup("port_rcv_data", SYSFS_SRC_HW_COUNTERS));
	assert_null(sysfs_counter_lookup("port_rcv_data_64", SYSFS_SRC_COUNTERS));
	assert_null(sysfs_counter_lookup("out_of_buffer", SYSFS_SRC_COUNTERS));
	assert_null(sysfs_counter_lookup("rx_bytes", SYSFS_SRC_COUNTERS));
	/* Device level hw_counters all go to the generic device family. */
	assert_null(sysfs_counter_lookup("out_of_buffer", SYSFS_SRC_DEV_HW_COUNTERS));
	assert_null(sysfs_counter_lookup("rx_bytes", SYSFS_SRC_DEV_HW_COUNTERS));
	assert_null(sysfs_counter_lookup("port_rcv_data", 0));
}

static void test_lifespan_is_setting(void **state)
{
	(void)state;
	assert_true(sysfs_counter_is_setting("lifespan", SYSFS_SRC_HW_COUNTERS));
	assert_true(sysfs_counter_is_setting("lifespan", SYSFS_SRC_DEV_HW_COUNTERS));
	assert_false(sysfs_counter_is_setting("lifespan", SYSFS_SRC_COUNTERS));
	assert_false(sysfs_counter_is_setting("lifespan", SYSFS_SRC_COUNTERS_EXT));
	assert_false(sysfs_counter_is_setting("lifespan_x", SYSFS_SRC_HW_COUNTERS));
	assert_false(sysfs_counter_is_setting("out_of_buffer", SYSFS_SRC_HW_COUNTERS));
	assert_false(sysfs_counter_is_setting(NULL, SYSFS_SRC_HW_COUNTERS));
	/* A setting is never a well-known counter. */
	for (size_t s = 0; s < sizeof(single_sources) / sizeof(single_sources[0]); s++)
		assert_null(sysfs_counter_lookup("lifespan", single_sources[s]));
}

static uint8_t prio(const char *file, unsigned source)
{
	const struct sysfs_counter_name *n = sysfs_counter_lookup(file, source);

	if (!n)
		fail_msg("%s not mapped", file);
	return n->priority;
}

static void test_priorities(void **state)
{
	(void)state;
	/* counters_ext/ (mlx4) beats counters/ ... */
	assert_true(prio("port_rcv_data_64", SYSFS_SRC_COUNTERS_EXT) >
		    prio("port_rcv_data", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_xmit_data_64", SYSFS_SRC_COUNTERS_EXT) >
		    prio("port_xmit_data", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_rcv_packets_64", SYSFS_SRC_COUNTERS_EXT) >
		    prio("port_rcv_packets", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_xmit_packets_64", SYSFS_SRC_COUNTERS_EXT) >
		    prio("port_xmit_packets", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_unicast_rcv_packets", SYSFS_SRC_COUNTERS_EXT) >
		    prio("unicast_rcv_packets", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_unicast_xmit_packets", SYSFS_SRC_COUNTERS_EXT) >
		    prio("unicast_xmit_packets", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_multicast_rcv_packets", SYSFS_SRC_COUNTERS_EXT) >
		    prio("multicast_rcv_packets", SYSFS_SRC_COUNTERS));
	assert_true(prio("port_multicast_xmit_packets", SYSFS_SRC_COUNTERS_EXT) >
		    prio("multicast_xmit_packets", SYSFS_SRC_COUNTERS));
	/* ... which beats the driver's hw_counters. */
	assert_true(prio("port_rcv_data", SYSFS_SRC_COUNTERS) >
		    prio("rx_bytes", SYSFS_SRC_HW_COUNTERS));
	assert_true(prio("port_xmit_packets", SYSFS_SRC_COUNTERS) >
		    prio("tx_pkts", SYSFS_SRC_HW_COUNTERS));
	assert_true(prio("link_downed", SYSFS_SRC_COUNTERS) >
		    prio("link_downed", SYSFS_SRC_HW_COUNTERS));
}

/*
 * bnxt_re: the Thor2 congestion counters under their names before and since
 * Linux 6.18 (hw_counters.c), and the transport counters Broadcom renamed to
 * the mlx5 names: old and new name land in one family.
 */
static void test_bnxt_re_names(void **state)
{
	static const struct {
		const char *old_name, *new_name, *metric;
	} pairs[] = {
		{"tx_cnp_pkts", "np_cnp_pkts", "rdma_port_cnp_packets_sent_total"},
		{"rx_cnp_pkts", "rp_cnp_handled", "rdma_port_cnp_packets_handled_total"},
		{"rx_ecn_marked_pkts", "np_ecn_marked_roce_packets",
		 "rdma_port_ecn_marked_packets_received_total"},
		{"to_retransmits", "local_ack_timeout_err", "rdma_port_local_ack_timeouts_total"},
		{"seq_err_naks_rcvd", "packet_seq_err",
		 "rdma_port_sequence_error_naks_received_total"},
		{"rnr_naks_rcvd", "rnr_nak_retry_err", "rdma_port_rnr_naks_received_total"},
		{"missing_resp", "implied_nak_seq_err",
		 "rdma_port_implied_nak_sequence_errors_total"},
		{"oos_drop_count", "out_of_sequence",
		 "rdma_port_out_of_sequence_packets_received_total"},
		{"rx_out_of_buffer", "out_of_buffer",
		 "rdma_port_out_of_buffer_packets_dropped_total"},
		{"rx_write_req", "rx_write_requests", "rdma_port_write_requests_received_total"},
		{"rx_read_req", "rx_read_requests", "rdma_port_read_requests_received_total"},
		{"rx_atomic_req", "rx_atomic_requests", "rdma_port_atomic_requests_received_total"},
		{"remote_invalid_req_err", "req_remote_invalid_request",
		 "rdma_port_requester_remote_invalid_request_errors_total"},
		{"remote_access_err", "req_remote_access_errors",
		 "rdma_port_requester_remote_access_errors_total"},
		{"res_length_mismatch", "resp_local_length_error",
		 "rdma_port_responder_local_length_errors_total"},
	};
	/* no mlx5 twin, or a sum of several causes: generic */
	static const char *const generic[] = {
		"max_retry_exceeded", "dup_req",	   "rx_roce_errors",	"rx_roce_discards",
		"tx_roce_discards",   "tx_roce_only_pkts", "rx_roce_good_pkts", "rx_send_req",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		assert_maps(pairs[i].old_name, SYSFS_SRC_HW_COUNTERS, pairs[i].metric, 1);
		assert_maps(pairs[i].new_name, SYSFS_SRC_HW_COUNTERS, pairs[i].metric, 1);
		/* the name since 6.18 wins should a port ever have both */
		assert_true(prio(pairs[i].new_name, SYSFS_SRC_HW_COUNTERS) >
			    prio(pairs[i].old_name, SYSFS_SRC_HW_COUNTERS));
	}
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (sysfs_counter_lookup(generic[i], SYSFS_SRC_HW_COUNTERS))
			fail_msg("bnxt_re counter %s must stay generic", generic[i]);
	}
}

/* mana (counters.c): port counters with an mlx5 twin; device level stays generic. */
static void test_mana_names(void **state)
{
	static const char *const generic_port[] = {
		"responder_dup_request",      "dup_rx_requests",  "nak_inv_req",
		"nak_access_error",	      "rx_send_requests", "current_rate",
		"num_qps_congested",	      "general_hw_error", "total_fatal_error",
		"responder_rem_access_error",
	};
	static const char *const device_level[] = {
		"sent_cnps",	       "received_ecns",	      "received_cnp_count",
		"qp_congested_events", "qp_recovered_events", "rate_inc_events",
	};

	(void)state;
	assert_maps("rx_bytes", SYSFS_SRC_HW_COUNTERS, "rdma_port_data_received_bytes_total", 1);
	assert_maps("tx_bytes", SYSFS_SRC_HW_COUNTERS, "rdma_port_data_transmitted_bytes_total", 1);
	assert_maps("rx_packets", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_received_total", 1);
	assert_maps("tx_packets", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_transmitted_total", 1);
	assert_maps("received_cnps", SYSFS_SRC_HW_COUNTERS, "rdma_port_cnp_packets_handled_total",
		    1);
	assert_maps("responder_oos", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_out_of_sequence_packets_received_total", 1);
	assert_maps("requester_oos_nak", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_sequence_error_naks_received_total", 1);
	assert_maps("requester_rnr_nak", SYSFS_SRC_HW_COUNTERS, "rdma_port_rnr_naks_received_total",
		    1);
	assert_maps("requester_implicit_nak", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_implied_nak_sequence_errors_total", 1);
	assert_maps("requester_timeout", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_local_ack_timeouts_total", 1);
	assert_maps("requester_rnr_nak_retries_exceeded", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_requester_rnr_retries_exceeded_total", 1);
	assert_maps("requester_retries_exceeded", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_requester_transport_retries_exceeded_total", 1);
	assert_maps("responder_local_len_error", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_responder_local_length_errors_total", 1);
	assert_maps("rx_write_requests", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_write_requests_received_total", 1);
	assert_maps("rx_read_requests", SYSFS_SRC_HW_COUNTERS,
		    "rdma_port_read_requests_received_total", 1);
	for (size_t i = 0; i < sizeof(generic_port) / sizeof(generic_port[0]); i++) {
		if (sysfs_counter_lookup(generic_port[i], SYSFS_SRC_HW_COUNTERS))
			fail_msg("mana counter %s must stay generic", generic_port[i]);
	}
	for (size_t i = 0; i < sizeof(device_level) / sizeof(device_level[0]); i++) {
		if (sysfs_counter_lookup(device_level[i], SYSFS_SRC_DEV_HW_COUNTERS))
			fail_msg("mana device counter %s must stay generic", device_level[i]);
	}
}

/* erdma (erdma_verbs.c): bytes and packets; the drops by cause stay generic. */
static void test_erdma_names(void **state)
{
	static const char *const generic[] = {
		"tx_reqs_cnt",		 "tx_disable_drop_cnt", "tx_bps_limit_drop_cnt",
		"tx_pps_limit_drop_cnt", "rx_disable_drop_cnt", "rx_bps_limit_drop_cnt",
		"rx_pps_limit_drop_cnt",
	};

	(void)state;
	assert_maps("rx_bytes_cnt", SYSFS_SRC_HW_COUNTERS, "rdma_port_data_received_bytes_total",
		    1);
	assert_maps("tx_bytes_cnt", SYSFS_SRC_HW_COUNTERS, "rdma_port_data_transmitted_bytes_total",
		    1);
	assert_maps("rx_packets_cnt", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_received_total", 1);
	assert_maps("tx_packets_cnt", SYSFS_SRC_HW_COUNTERS, "rdma_port_packets_transmitted_total",
		    1);
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++) {
		if (sysfs_counter_lookup(generic[i], SYSFS_SRC_HW_COUNTERS))
			fail_msg("erdma counter %s must stay generic", generic[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_not_empty),
		cmocka_unit_test(test_every_entry_well_formed),
		cmocka_unit_test(test_no_ambiguous_lookup),
		cmocka_unit_test(test_shared_families_consistent),
		cmocka_unit_test(test_required_names),
		cmocka_unit_test(test_mlx5_names_all_mapped),
		cmocka_unit_test(test_efa_names),
		cmocka_unit_test(test_rxe_only_link_downed),
		cmocka_unit_test(test_naming_rule),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_lifespan_is_setting),
		cmocka_unit_test(test_priorities),
		cmocka_unit_test(test_bnxt_re_names),
		cmocka_unit_test(test_mana_names),
		cmocka_unit_test(test_erdma_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
