// SPDX-License-Identifier: Apache-2.0
/* The flaps check (check_state.h): the state file's parser and serializer,
 * and the evaluation of runs against the history, with the clock given. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check/check_state.h"

#define HDR "rdma_exporter check state 1\n"

/* --- the file format ----------------------------------------------------- */

static void test_state_roundtrip(void **state)
{
	const char *text =
		HDR "p mlx5_0/1 seen=1795000000 counter=7 state=4 flap_at=1795000000 "
		    "hold_until=1795000600 cause=rose from=5 to=7\n"
		    "n eth%202 seen=1795000000 counter=3\n"
		    "p rxe0/1 seen=12 state=1 flap_at=10 hold_until=20 cause=state from=4 "
		    "to=1\n";
	struct check_state s;
	struct buf out = BUF_INIT;
	const struct check_state_entry *e;
	size_t bad;

	(void)state;
	assert_int_equal(check_state_parse(&s, text, strlen(text), &bad), 0);
	assert_int_equal(s.n, 3);
	e = check_state_find(&s, CHECK_STATE_PORT, "mlx5_0/1");
	assert_non_null(e);
	assert_true(e->has_counter && e->counter == 7 && e->has_state && e->state == 4);
	assert_int_equal(e->cause, CHECK_FLAP_ROSE);
	assert_true(e->from == 5 && e->to == 7 && e->hold_until == 1795000600);
	e = check_state_find(&s, CHECK_STATE_NETDEV, "eth 2");
	assert_non_null(e);
	assert_false(e->has_state);
	assert_int_equal(e->cause, CHECK_FLAP_NONE);
	assert_null(check_state_find(&s, CHECK_STATE_NETDEV, "mlx5_0/1"));
	assert_int_equal(check_state_format(&s, &out), 0);
	assert_int_equal(out.len, strlen(text));
	assert_memory_equal(out.data, text, out.len);
	check_state_free(&s);
	check_state_free(NULL);
	buf_free(&out);
}

static void test_state_unknown_keys(void **state)
{
	const char *text = HDR "p a/1 seen=1 colour=blue counter=2\n";
	struct check_state s;
	size_t bad;

	(void)state;
	assert_int_equal(check_state_parse(&s, text, strlen(text), &bad), 0);
	assert_int_equal(s.n, 1);
	assert_true(s.v[0].counter == 2);
	check_state_free(&s);
}

static void test_state_reject(void **state)
{
	static const struct {
		const char *text;
		size_t line;
	} bad_texts[] = {
		{"", 1},
		{"rdma_exporter check state 2\n", 1},
		{HDR "p a/1 seen=1", 2}, /* cut short */
		{HDR "x a/1 seen=1\n", 2},
		{HDR "p  seen=1\n", 2},
		{HDR "p a/1 seen=x\n", 2},
		{HDR "p a/1 seen=-1\n", 2},
		{HDR "p a/1 seen=18446744073709551616\n", 2},
		{HDR "p a%2/1 seen=1\n", 2},
		{HDR "p a%00/1 seen=1\n", 2},
		{HDR "p a\x01/1 seen=1\n", 2},
		{HDR "p a/1 seen\n", 2},
		{HDR "p a/1 seen=1 cause=sideways\n", 2},
		{HDR "p a/1 cause=rose from=7 to=5\n", 2},
		{HDR "p a/1 seen=1\n\n", 3},
		{HDR "p a/1 seen=1\np a/1 seen=2\n", 3},
	};
	struct check_state s;
	size_t bad;

	(void)state;
	for (size_t k = 0; k < sizeof(bad_texts) / sizeof(bad_texts[0]); k++) {
		bad = 99;
		assert_int_equal(
			check_state_parse(&s, bad_texts[k].text, strlen(bad_texts[k].text), &bad),
			-EINVAL);
		assert_int_equal(s.n, 0);
		assert_int_equal(bad, bad_texts[k].line);
	}
}

static void test_state_bounds(void **state)
{
	struct buf text = BUF_INIT;
	struct check_state s;
	size_t bad;

	(void)state;
	buf_puts(&text, HDR);
	for (unsigned i = 0; i <= CHECK_STATE_MAX_ENTRIES; i++)
		buf_printf(&text, "n eth%u seen=1\n", i);
	assert_false(buf_failed(&text));
	assert_int_equal(check_state_parse(&s, text.data, text.len, &bad), -E2BIG);
	assert_int_equal(bad, CHECK_STATE_MAX_ENTRIES + 2);
	assert_int_equal(s.n, 0);
	buf_reset(&text);
	buf_puts(&text, HDR);
	while (text.len <= CHECK_STATE_MAX_BYTES)
		buf_puts(&text, "p a/1 seen=1\n");
	assert_int_equal(check_state_parse(&s, text.data, text.len, &bad), -EFBIG);
	buf_free(&text);
}

/* --- the flaps check over runs ------------------------------------------ */

#define T0   1795000000ull /* 2026-11-18T11:06:40Z */
#define HOLD 600

#define SUCCESS(c, v)		"rdma_exporter_collector_success{collector=\"" c "\"} " #v "\n"
#define PORT(fam, dev, port, v) "rdma_port_" fam "{device=\"" dev "\",port=\"" port "\"} " #v "\n"
#define READING(state, downed)                                                                     \
	SUCCESS("sysfs", 1)                                                                        \
	PORT("state", "mlx5_0", "1", state) PORT("link_downed_total", "mlx5_0", "1", downed)

/* One run of the check: the reading in, the result lines and the next
 * history out; history becomes the next one, as the file would. */
struct runs {
	struct check_config cfg;
	struct check_state history;
	struct buf text;
};

static enum check_status run_at(struct runs *x, uint64_t now, const char *reading)
{
	struct check_table t;
	struct check_results res = {0};
	struct check_state next;
	struct buf file = BUF_INIT;
	enum check_status st;
	size_t bad;

	assert_int_equal(check_table_parse(&t, reading, strlen(reading), &bad), 0);
	assert_int_equal(check_flaps_evaluate(&x->cfg, &x->history, now, &t, &res, &next), 0);
	buf_reset(&x->text);
	assert_int_equal(check_render_text(&res, &x->text), 0);
	st = check_overall(&res);
	/* through the file format, as between two processes */
	assert_int_equal(check_state_format(&next, &file), 0);
	check_state_free(&x->history);
	assert_int_equal(check_state_parse(&x->history, file.data, file.len, &bad), 0);
	check_state_free(&next);
	check_results_free(&res);
	check_table_free(&t);
	buf_free(&file);
	return st;
}

static void has_line(const struct runs *x, const char *line)
{
	if (!strstr(x->text.data, line)) {
		fprintf(stderr, "missing line \"%s\" in:\n%s", line, x->text.data);
		fail();
	}
}

static void runs_init(struct runs *x)
{
	*x = (struct runs){0};
	check_config_defaults(&x->cfg);
	assert_int_equal(x->cfg.flap_hold_s, HOLD);
}

static void runs_done(struct runs *x)
{
	check_state_free(&x->history);
	buf_free(&x->text);
}

/* The "done when": check fails after a flap and recovers after its hold time. */
static void test_flap_fails_then_recovers(void **state)
{
	struct runs x;

	(void)state;
	runs_init(&x);
	assert_int_equal(run_at(&x, T0, READING(4, 5)), CHECK_OK);
	has_line(&x, "OK      flaps mlx5_0/1: no history yet: these readings (link_downed 5) start "
		     "it (flaps before this check cannot be known)\n");
	/* down and up between the checks: ACTIVE both times, the counter rose */
	assert_int_equal(run_at(&x, T0 + 300, READING(4, 7)), CHECK_FAIL);
	has_line(&x, "FAIL    flaps mlx5_0/1: link went down 2 times since the last check "
		     "(link_downed 5 -> 7) at 2026-11-18T11:11:40Z, held FAIL until "
		     "2026-11-18T11:21:40Z\n");
	/* held: the next check, no new flap, still fails */
	assert_int_equal(run_at(&x, T0 + 899, READING(4, 7)), CHECK_FAIL);
	has_line(&x, "FAIL    flaps mlx5_0/1: link went down 2 times (link_downed 5 -> 7) at "
		     "2026-11-18T11:11:40Z, held FAIL until 2026-11-18T11:21:40Z\n");
	/* the hold time elapsed */
	assert_int_equal(run_at(&x, T0 + 900, READING(4, 7)), CHECK_OK);
	has_line(&x, "OK      flaps mlx5_0/1: no flap since the check at 2026-11-18T11:21:39Z "
		     "(link_downed 7)\n");
	runs_done(&x);
}

static void test_flap_state_and_back(void **state)
{
	struct runs x;

	(void)state;
	runs_init(&x);
	x.cfg.flap_hold_s = 0; /* each flap fails the check that sees it, no longer */
	assert_int_equal(run_at(&x, T0, READING(4, 5)), CHECK_OK);
	assert_int_equal(run_at(&x, T0 + 1, READING(4, 5)), CHECK_OK);
	/* the state moved (no counter in this reading) */
	assert_int_equal(run_at(&x, T0 + 2, SUCCESS("sysfs", 1) PORT("state", "mlx5_0", "1", 2)),
			 CHECK_FAIL);
	has_line(&x, "FAIL    flaps mlx5_0/1: state changed ACTIVE -> INIT since the last check at "
		     "2026-11-18T11:06:42Z, held FAIL until 2026-11-18T11:06:42Z\n");
	/* still INIT: the ports check fails it, the flaps check does not again */
	assert_int_equal(run_at(&x, T0 + 3, SUCCESS("sysfs", 1) PORT("state", "mlx5_0", "1", 2)),
			 CHECK_OK);
	has_line(&x, "OK      flaps mlx5_0/1: no flap since the check at 2026-11-18T11:06:42Z; "
		     "state INIT now\n");
	assert_int_equal(run_at(&x, T0 + 4, READING(4, 5)), CHECK_FAIL);
	has_line(&x, "state changed INIT -> ACTIVE since the last check");
	assert_int_equal(run_at(&x, T0 + 5, READING(4, 5)), CHECK_OK);
	/* a driver reload: the counter went back to 0 */
	assert_int_equal(run_at(&x, T0 + 6, READING(4, 0)), CHECK_FAIL);
	has_line(&x, "FAIL    flaps mlx5_0/1: link_downed went back since the last check (5 -> 0: "
		     "driver reloaded or device reset, counted as a flap) at "
		     "2026-11-18T11:06:46Z, held FAIL until 2026-11-18T11:06:46Z\n");
	assert_int_equal(run_at(&x, T0 + 7, READING(4, 0)), CHECK_OK);
	runs_done(&x);
}

static void test_flap_netdev(void **state)
{
	const char *r1 =
		SUCCESS("ethtool", 1) "rdma_netdev_carrier_down_events_total{netdev=\"eth2\"} 3\n";
	const char *r2 =
		SUCCESS("ethtool", 1) "rdma_netdev_carrier_down_events_total{netdev=\"eth2\"} 4\n";
	struct runs x;

	(void)state;
	runs_init(&x);
	assert_int_equal(run_at(&x, T0, r1), CHECK_OK);
	assert_int_equal(run_at(&x, T0 + 60, r2), CHECK_FAIL);
	has_line(&x, "FAIL    flaps eth2: carrier went down 1 time since the last check "
		     "(carrier_down_count 3 -> 4) at 2026-11-18T11:07:40Z, held FAIL until "
		     "2026-11-18T11:17:40Z\n");
	/* the ethtool collector off: the netdev is not judged, its history kept */
	assert_int_equal(run_at(&x, T0 + 120, SUCCESS("sysfs", 1)), CHECK_UNKNOWN);
	assert_int_equal(x.history.n, 1);
	/* a shorter hold applies to a flap already held */
	x.cfg.flap_hold_s = 60;
	assert_int_equal(run_at(&x, T0 + 121, r2), CHECK_OK);
	runs_done(&x);
}

static void test_flap_expect_and_forget(void **state)
{
	struct check_expect e;
	char why[100];
	struct runs x;

	(void)state;
	runs_init(&x);
	assert_int_equal(check_expect_parse("mlx5_1", &e, why, sizeof(why)), 0);
	x.cfg.expect = &e;
	/* only expected ports are judged: mlx5_0/1 is DOWN but not expected */
	assert_int_equal(run_at(&x, T0, READING(1, 5) PORT("state", "mlx5_1", "1", 4)), CHECK_OK);
	assert_int_equal(x.history.n, 1);
	assert_non_null(check_state_find(&x.history, CHECK_STATE_PORT, "mlx5_1/1"));
	/* mlx5_1 gone: kept for a week, then forgotten */
	assert_int_equal(run_at(&x, T0 + CHECK_STATE_FORGET_S, SUCCESS("sysfs", 1)), CHECK_UNKNOWN);
	assert_int_equal(x.history.n, 1);
	assert_int_equal(run_at(&x, T0 + CHECK_STATE_FORGET_S + 1, SUCCESS("sysfs", 1)),
			 CHECK_UNKNOWN);
	assert_int_equal(x.history.n, 0);
	/* the sysfs collector failed: no port judged */
	x.cfg.expect = NULL;
	assert_int_equal(run_at(&x, T0, SUCCESS("sysfs", 0) PORT("state", "mlx5_0", "1", 1)),
			 CHECK_UNKNOWN);
	check_expect_free(&e);
	runs_done(&x);
}

/* More objects than the bound: all judged, the first CHECK_STATE_MAX_ENTRIES kept. */
static void test_flap_bound(void **state)
{
	struct buf reading = BUF_INIT;
	struct runs x;

	(void)state;
	runs_init(&x);
	buf_puts(&reading, SUCCESS("ethtool", 1));
	for (unsigned i = 0; i < CHECK_STATE_MAX_ENTRIES + 5; i++)
		buf_printf(&reading, "rdma_netdev_carrier_down_events_total{netdev=\"e%u\"} 1\n",
			   i);
	assert_false(buf_failed(&reading));
	assert_int_equal(run_at(&x, T0, reading.data), CHECK_OK);
	assert_int_equal(x.history.n, CHECK_STATE_MAX_ENTRIES);
	buf_free(&reading);
	runs_done(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_roundtrip),
		cmocka_unit_test(test_state_unknown_keys),
		cmocka_unit_test(test_state_reject),
		cmocka_unit_test(test_state_bounds),
		cmocka_unit_test(test_flap_fails_then_recovers),
		cmocka_unit_test(test_flap_state_and_back),
		cmocka_unit_test(test_flap_netdev),
		cmocka_unit_test(test_flap_expect_and_forget),
		cmocka_unit_test(test_flap_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
