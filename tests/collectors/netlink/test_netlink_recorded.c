// SPDX-License-Identifier: Apache-2.0
/*
 * Replays the raw RDMA netlink replies recorded on Soft-RoCE
 * ($FIXTURES/netlink/rxe-busy and rxe-pingpong, see their README.md)
 * through nl_reply_feed() and the message handlers, and checks the
 * aggregates against what `rdma -j res show` / `rdma -j statistic` (the
 * JSON files next to them) said, where the two agree: the JSON was taken
 * right after the recording, so numbers that moved in between are checked
 * against the binary dump itself (each such case says so).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netlink_parse.h"
#include "nl_agg_query.h"
#include "nl_build.h"

/* One recorded reply file. */
struct rec {
	unsigned char *data;
	size_t len;
};

static struct rec load(const char *fixture, const char *file)
{
	char dir[4096], path[8192];
	struct rec r;

	if (!nl_fixture_dir(fixture, dir, sizeof(dir)))
		fail_msg("FIXTURES is not set");
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	r.data = nl_read_file(path, &r.len);
	if (!r.data)
		fail_msg("cannot read %s", path);
	return r;
}

/*
 * Replays one file as the kernel could have sent it: one message per
 * datagram; every datagram but the last asks for more, the last completes
 * the reply. Returns the number of messages.
 */
static unsigned replay(const char *fixture, const char *file, uint16_t cmd,
		       int (*on_msg)(const struct nlmsghdr *, void *), void *data)
{
	struct rec rec = load(fixture, file);
	/* the recordings have seq and pid zeroed: they answer any request */
	struct nl_reply r = {
		.seq = 0x1234, .portid = 99, .cmd = cmd, .on_msg = on_msg, .data = data};
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)rec.data;
	int rem = (int)rec.len;
	unsigned n = 0;

	while (mnl_nlmsg_ok(nlh, rem)) {
		const struct nlmsghdr *next = mnl_nlmsg_next(nlh, &rem);
		int ret = feed(&r, nlh, nlh->nlmsg_len);

		n++;
		if (rem > 0)
			assert_int_equal(ret, 1);
		else
			assert_int_equal(ret, 0);
		nlh = next;
	}
	assert_true(rem <= 0);
	assert_int_equal(r.bad_messages, 0);
	free(rec.data);
	return n;
}

/* The same file as one datagram: complete, no stray bytes. */
static void replay_whole(const char *fixture, const char *file, uint16_t cmd,
			 int (*on_msg)(const struct nlmsghdr *, void *), void *data)
{
	struct rec rec = load(fixture, file);
	struct nl_reply r = {.cmd = cmd, .on_msg = on_msg, .data = data};

	assert_int_equal(feed(&r, rec.data, rec.len), 0);
	assert_int_equal(r.bad_messages, 0);
	free(rec.data);
}

static uint64_t summary(const struct nl_res_summary *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (strcmp(s->e[i].name, name) == 0)
			return s->e[i].curr;
	fail_msg("no summary entry %s", name);
	return UINT64_MAX;
}

/* pid -> comm as rdma-res-qp.json / rdma-res-mr.json of the recordings name them */
static int json_comm(uint32_t pid, char *comm, size_t size, void *data)
{
	static const struct {
		uint32_t pid;
		const char *comm;
	} map[] = {
		{158, "ib_send_bw"},	  {167, "ib_send_bw"},	    {179, "ibv_rc_pingpong"},
		{181, "ibv_rc_pingpong"}, {185, "rping"},	    {190, "rping"},
		{160, "ibv_rc_pingpong"}, {166, "ibv_rc_pingpong"},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].pid == pid) {
			snprintf(comm, size, "%s", map[i].comm);
			return 0;
		}
	return -ESRCH;
}

/* Entries of one table in a dump the collector does not read (PD, CTX): to
 * cross-check the summary. */
struct table_count {
	uint16_t table, entry;
	unsigned n;
};

static int count_table(const struct nlmsghdr *nlh, void *data)
{
	struct table_count *c = data;
	const struct nlattr *a, *e;

	mnl_attr_for_each(a, nlh, 0)
	{
		if (mnl_attr_get_type(a) != c->table)
			continue;
		mnl_attr_for_each_nested(e, a)
		{
			if (mnl_attr_get_type(e) == c->entry)
				c->n++;
		}
	}
	return 0;
}

/* ---- rxe-busy ----------------------------------------------------------------------------- */

static void test_busy_devices(void **state)
{
	struct nl_dev_list l = {0};

	assert_int_equal(replay("rxe-busy", "cmd1.bin", RDMA_NLDEV_CMD_GET, nl_on_dev_msg, &l), 2);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.bad_objects, 0);
	assert_string_equal(l.v[0].name, "rxe0");
	assert_int_equal(l.v[0].index, 0);
	assert_int_equal(l.v[0].ports, 1);
	nl_dev_list_free(&l);
}

static void test_busy_summary(void **state)
{
	struct nl_summary_list l = {0};
	struct table_count pd = {RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY, 0};
	struct table_count ctx = {RDMA_NLDEV_ATTR_RES_CTX, RDMA_NLDEV_ATTR_RES_CTX_ENTRY, 0};

	assert_int_equal(
		replay("rxe-busy", "cmd9.bin", RDMA_NLDEV_CMD_RES_GET, nl_on_summary_msg, &l), 2);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.bad_objects, 0);
	assert_string_equal(l.v[0].name, "rxe0");
	assert_int_equal(l.v[0].index, 0);
	assert_int_equal(l.v[0].n, 7);
	/*
	 * rdma-res.json says pd 8, cq 6, qp 5, mr 10, ctx 5: it was taken after
	 * most of the perftest pair had finished. The binary summary agrees
	 * with the binary dumps of the same moment instead (checked here and
	 * in the tests below), and cm_id 3 and srq 0 agree with the JSON.
	 */
	assert_int_equal(summary(&l.v[0], "qp"), 133);
	assert_int_equal(summary(&l.v[0], "cq"), 9);
	assert_int_equal(summary(&l.v[0], "mr"), 11);
	assert_int_equal(summary(&l.v[0], "pd"), 9);
	assert_int_equal(summary(&l.v[0], "ctx"), 6);
	assert_int_equal(summary(&l.v[0], "cm_id"), 3);
	assert_int_equal(summary(&l.v[0], "srq"), 0);
	/* in kernel order */
	assert_string_equal(l.v[0].e[0].name, "pd");
	assert_string_equal(l.v[0].e[6].name, "srq");
	nl_summary_list_free(&l);

	/* PD and CTX dumps of the same moment: 9 and 6 entries, as
	 * rdma-res-pd.json (9) and rdma-res-ctx.json (6) list */
	replay("rxe-busy", "cmd14-dev0-port0.bin", RDMA_NLDEV_CMD_RES_PD_GET, count_table, &pd);
	assert_int_equal(pd.n, 9);
	replay("rxe-busy", "cmd22-dev0-port0.bin", RDMA_NLDEV_CMD_RES_CTX_GET, count_table, &ctx);
	assert_int_equal(ctx.n, 6);
}

static void test_busy_qp(void **state)
{
	struct nl_dev_agg a = {0}, whole = {0};
	struct nl_proc_row *rows;
	size_t n;

	assert_int_equal(replay("rxe-busy", "cmd10-dev0-port0.bin", RDMA_NLDEV_CMD_RES_QP_GET,
				nl_on_qp_msg, &a),
			 2);
	/* rdma-res-qp.json: 133 QPs, all on port 1 */
	assert_int_equal(qp_total(&a), 133);
	assert_int_equal(a.bad_objects, 0);
	assert_int_equal(a.n_qp, 2);
	assert_int_equal(qp_n(&a, 1, QPT_RC, QPS_RTS), 68);
	assert_int_equal(qp_n(&a, 1, QPT_RC, QPS_RTR), 64);
	assert_int_equal(qp_n(&a, 1, QPT_GSI, QPS_RTS), 1);
	for (uint8_t s = 0; s < NL_QP_STATES; s++) {
		if (s != QPS_RTS && s != QPS_RTR)
			assert_int_equal(qp_n(&a, 1, QPT_RC, s), 0);
		if (s != QPS_RTS)
			assert_int_equal(qp_n(&a, 1, QPT_GSI, s), 0);
	}
	/* owners: the perftest pair, the pingpong pair, the rping pair, ib_core */
	assert_int_equal(a.n_owners, 7);
	assert_int_equal(owner(&a, 158, "")->qps, 64);
	assert_int_equal(owner(&a, 167, "")->qps, 64);
	assert_int_equal(owner(&a, 179, "")->qps, 1);
	assert_int_equal(owner(&a, 181, "")->qps, 1);
	assert_int_equal(owner(&a, 185, "")->qps, 1);
	assert_int_equal(owner(&a, 190, "")->qps, 1);
	assert_int_equal(owner(&a, 0, "ib_core")->qps, 1);

	assert_int_equal(nl_fold_processes(&a, 10, json_comm, NULL, &rows, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(rows[0].comm, "ib_send_bw");
	assert_int_equal(rows[0].qps, 128);
	assert_string_equal(rows[1].comm, "ibv_rc_pingpong");
	assert_int_equal(rows[1].qps, 2);
	assert_string_equal(rows[2].comm, "rping");
	assert_int_equal(rows[2].qps, 2);
	assert_string_equal(rows[3].comm, "ib_core");
	assert_int_equal(rows[3].qps, 1);
	free(rows);

	/* the whole file as one datagram: the same numbers */
	replay_whole("rxe-busy", "cmd10-dev0-port0.bin", RDMA_NLDEV_CMD_RES_QP_GET, nl_on_qp_msg,
		     &whole);
	assert_int_equal(qp_total(&whole), 133);
	assert_int_equal(qp_n(&whole, 1, QPT_RC, QPS_RTR), 64);
	assert_int_equal(whole.n_owners, 7);
	nl_dev_agg_free(&whole);
	nl_dev_agg_free(&a);
}

static void test_busy_cm_id(void **state)
{
	struct nl_dev_agg a = {0};

	replay("rxe-busy", "cmd11-dev0-port0.bin", RDMA_NLDEV_CMD_RES_CM_ID_GET, nl_on_cm_id_msg,
	       &a);
	/* rdma-res-cm_id.json: rping's LISTEN and two CONNECT, TCP, port 1 */
	assert_int_equal(a.cm_ids, 3);
	assert_int_equal(a.n_cm, 2);
	assert_int_equal(a.bad_objects, 0);
	for (size_t i = 0; i < a.n_cm; i++) {
		assert_int_equal(a.cm[i].port, 1);
		assert_int_equal(a.cm[i].ps, PS_TCP);
		assert_string_equal(nl_cm_ps_name(a.cm[i].ps), "TCP");
		if (a.cm[i].state == CM_LISTEN) {
			assert_int_equal(a.cm[i].n, 1);
		} else {
			assert_int_equal(a.cm[i].state, CM_CONNECT);
			assert_string_equal(nl_cm_state_name(a.cm[i].state), "CONNECT");
			assert_int_equal(a.cm[i].n, 2);
		}
	}
	/* cm_ids are not QPs, and have no owners here */
	assert_int_equal(a.n_qp, 0);
	nl_dev_agg_free(&a);
}

static void test_busy_cq(void **state)
{
	struct nl_dev_agg a = {0};

	replay("rxe-busy", "cmd12-dev0-port0.bin", RDMA_NLDEV_CMD_RES_CQ_GET, nl_on_cq_msg, &a);
	/*
	 * rdma-res-cq.json lists the same 9 CQs: ib_core's 1023, four of
	 * ib_send_bw's 32767, two of ibv_rc_pingpong's 511 and two of rping's
	 * 63 entries: 133239 in all (the summary in rdma-res.json, cq 6, was
	 * taken later).
	 */
	assert_int_equal(a.cqs, 9);
	assert_int_equal(a.cqes, 1023 + 4 * 32767 + 2 * 511 + 2 * 63);
	assert_int_equal(a.cqes, 133239);
	assert_int_equal(a.bad_objects, 0);
	nl_dev_agg_free(&a);
}

static void test_busy_mr(void **state)
{
	struct nl_dev_agg a = {0};
	struct nl_proc_row *rows;
	size_t n;

	replay("rxe-busy", "cmd13-dev0-port0.bin", RDMA_NLDEV_CMD_RES_MR_GET, nl_on_mr_msg, &a);
	/*
	 * rdma-res-mr.json lists the same 11 MRs: two of 8 MiB (ib_send_bw),
	 * two of 4 KiB (ibv_rc_pingpong), rping's 4 * (16, 16, 64, 64) and
	 * 3 * (16, 16, 64); every length shown (the recorder ran as root).
	 */
	assert_int_equal(a.mrs, 11);
	assert_int_equal(a.mrs_with_len, 11);
	assert_int_equal(a.mr_bytes, 2 * 8388608 + 2 * 4096 + 160 + 96);
	assert_int_equal(a.mr_bytes, 16785664);
	assert_int_equal(a.bad_objects, 0);
	assert_int_equal(owner(&a, 158, "")->mr_bytes, 8388608);
	assert_int_equal(owner(&a, 167, "")->mr_bytes, 8388608);
	assert_int_equal(owner(&a, 179, "")->mr_bytes, 4096);
	assert_int_equal(owner(&a, 181, "")->mr_bytes, 4096);
	assert_int_equal(owner(&a, 185, "")->mrs, 4);
	assert_int_equal(owner(&a, 185, "")->mr_bytes, 160);
	assert_int_equal(owner(&a, 190, "")->mrs, 3);
	assert_int_equal(owner(&a, 190, "")->mr_bytes, 96);

	assert_int_equal(nl_fold_processes(&a, 1, json_comm, NULL, &rows, &n), 0);
	assert_int_equal(n, 2);
	/* no QPs in this aggregate: MR bytes decide */
	assert_string_equal(rows[0].comm, "ib_send_bw");
	assert_int_equal(rows[0].mrs, 2);
	assert_int_equal(rows[0].mr_bytes, 16777216);
	assert_string_equal(rows[1].comm, "other");
	assert_int_equal(rows[1].mrs, 9);
	assert_int_equal(rows[1].mr_bytes, 8192 + 256);
	free(rows);
	nl_dev_agg_free(&a);
}

static void test_busy_srq(void **state)
{
	struct nl_dev_agg a = {0};

	/* an empty dump: NLMSG_DONE only; rdma-res-srq.json is [] */
	assert_int_equal(replay("rxe-busy", "cmd23-dev0-port0.bin", RDMA_NLDEV_CMD_RES_SRQ_GET,
				nl_on_srq_msg, &a),
			 1);
	assert_int_equal(a.srqs, 0);
	assert_int_equal(a.bad_objects, 0);
	nl_dev_agg_free(&a);
}

/* rxe's hw counters in kernel order, as rdma-statistic.json lists them */
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
#define N_RXE_COUNTERS (sizeof(rxe_counters) / sizeof(rxe_counters[0]))

static void test_busy_stat(void **state)
{
	/* the binary's values; the JSON's, taken later, are these or more */
	static const uint64_t recorded[N_RXE_COUNTERS] = {132141, 132141, 662, 0, 0, 0,	   0,	1,
							  0,	  0,	  29,  0, 0, 8466, 8466};
	static const uint64_t json[N_RXE_COUNTERS] = {160005, 160005, 813, 0, 0, 0,	0,    6,
						      0,      0,      38,  0, 0, 13486, 13486};
	struct nl_stat_list l = {0};

	/* a doit's answer: one message without NLM_F_MULTI, no NLMSG_DONE */
	assert_int_equal(replay("rxe-busy", "cmd17-dev0-port1.bin", RDMA_NLDEV_CMD_STAT_GET,
				nl_on_stat_msg, &l),
			 1);
	assert_int_equal(l.port, 1);
	assert_int_equal(l.bad_objects, 0);
	assert_int_equal(l.n, N_RXE_COUNTERS);
	for (size_t i = 0; i < N_RXE_COUNTERS; i++) {
		assert_string_equal(l.v[i].name, rxe_counters[i]);
		assert_int_equal(l.v[i].value, recorded[i]);
		assert_true(l.v[i].value <= json[i]);
	}
	nl_stat_list_free(&l);
}

/* ---- rxe-pingpong ------------------------------------------------------------------------- */

static void test_pingpong(void **state)
{
	struct nl_dev_list devs = {0};
	struct nl_summary_list sum = {0};
	struct nl_dev_agg a = {0};
	struct nl_stat_list st = {0};
	struct nl_proc_row *rows;
	size_t n;

	replay("rxe-pingpong", "cmd1.bin", RDMA_NLDEV_CMD_GET, nl_on_dev_msg, &devs);
	assert_int_equal(devs.n, 1);
	assert_string_equal(devs.v[0].name, "rxe0");
	assert_int_equal(devs.v[0].index, 0);
	assert_int_equal(devs.v[0].ports, 1);

	/* rdma-res.json agrees in full here: pd 3, cq 3, qp 3, cm_id 0, mr 2, ctx 2, srq 0 */
	replay("rxe-pingpong", "cmd9.bin", RDMA_NLDEV_CMD_RES_GET, nl_on_summary_msg, &sum);
	assert_int_equal(sum.n, 1);
	assert_int_equal(summary(&sum.v[0], "pd"), 3);
	assert_int_equal(summary(&sum.v[0], "cq"), 3);
	assert_int_equal(summary(&sum.v[0], "qp"), 3);
	assert_int_equal(summary(&sum.v[0], "cm_id"), 0);
	assert_int_equal(summary(&sum.v[0], "mr"), 2);
	assert_int_equal(summary(&sum.v[0], "ctx"), 2);
	assert_int_equal(summary(&sum.v[0], "srq"), 0);

	/* every resource dump into one aggregate, as the collector does */
	replay("rxe-pingpong", "cmd10-dev0-port0.bin", RDMA_NLDEV_CMD_RES_QP_GET, nl_on_qp_msg, &a);
	replay("rxe-pingpong", "cmd11-dev0-port0.bin", RDMA_NLDEV_CMD_RES_CM_ID_GET,
	       nl_on_cm_id_msg, &a);
	replay("rxe-pingpong", "cmd12-dev0-port0.bin", RDMA_NLDEV_CMD_RES_CQ_GET, nl_on_cq_msg, &a);
	replay("rxe-pingpong", "cmd13-dev0-port0.bin", RDMA_NLDEV_CMD_RES_MR_GET, nl_on_mr_msg, &a);
	replay("rxe-pingpong", "cmd23-dev0-port0.bin", RDMA_NLDEV_CMD_RES_SRQ_GET, nl_on_srq_msg,
	       &a);
	/* rdma-res-qp.json: two RC in RTS (pids 160, 166) and ib_core's GSI */
	assert_int_equal(qp_total(&a), 3);
	assert_int_equal(qp_n(&a, 1, QPT_RC, QPS_RTS), 2);
	assert_int_equal(qp_n(&a, 1, QPT_GSI, QPS_RTS), 1);
	assert_int_equal(a.n_qp, 2);
	assert_int_equal(a.cm_ids, 0);
	assert_int_equal(a.n_cm, 0);
	/* ib_core 1023 + two of 511 */
	assert_int_equal(a.cqs, 3);
	assert_int_equal(a.cqes, 2045);
	/* rdma-res-mr.json: two MRs of 4096 */
	assert_int_equal(a.mrs, 2);
	assert_int_equal(a.mrs_with_len, 2);
	assert_int_equal(a.mr_bytes, 8192);
	assert_int_equal(a.srqs, 0);
	assert_int_equal(a.bad_objects, 0);
	assert_int_equal(owner(&a, 160, "")->qps, 1);
	assert_int_equal(owner(&a, 166, "")->mr_bytes, 4096);
	assert_int_equal(owner(&a, 0, "ib_core")->qps, 1);
	assert_int_equal(nl_fold_processes(&a, 10, json_comm, NULL, &rows, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].comm, "ibv_rc_pingpong");
	assert_int_equal(rows[0].qps, 2);
	assert_int_equal(rows[0].mrs, 2);
	assert_int_equal(rows[0].mr_bytes, 8192);
	assert_string_equal(rows[1].comm, "ib_core");
	free(rows);

	replay("rxe-pingpong", "cmd17-dev0-port1.bin", RDMA_NLDEV_CMD_STAT_GET, nl_on_stat_msg,
	       &st);
	assert_int_equal(st.port, 1);
	assert_int_equal(st.n, N_RXE_COUNTERS);
	for (size_t i = 0; i < N_RXE_COUNTERS; i++)
		assert_string_equal(st.v[i].name, rxe_counters[i]);
	assert_int_equal(st.v[0].value, 253506);
	assert_int_equal(st.v[13].value, 50630);

	nl_stat_list_free(&st);
	nl_dev_agg_free(&a);
	nl_summary_list_free(&sum);
	nl_dev_list_free(&devs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_devices), cmocka_unit_test(test_busy_summary),
		cmocka_unit_test(test_busy_qp),	     cmocka_unit_test(test_busy_cm_id),
		cmocka_unit_test(test_busy_cq),	     cmocka_unit_test(test_busy_mr),
		cmocka_unit_test(test_busy_srq),     cmocka_unit_test(test_busy_stat),
		cmocka_unit_test(test_pingpong),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
