// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the flaps check's state file (check_state.h), read as
 * the check reads it, then used as the history of one evaluation.
 *
 * Invariants: an error is -EINVAL, -EFBIG, -E2BIG or -ENOMEM with an empty
 * history (and a line inside the text for -EINVAL); a parsed history has at
 * most CHECK_STATE_MAX_ENTRIES distinct objects with non-empty names, and
 * formats to a text that parses back to the same text. Any parsed history
 * evaluates against a reading without error, and the next history stays
 * within the bound.
 */
#include <errno.h>
#include <string.h>

#include "check/check_state.h"
#include "fuzz.h"

static const char reading[] = "rdma_exporter_collector_success{collector=\"sysfs\"} 1\n"
			      "rdma_exporter_collector_success{collector=\"ethtool\"} 1\n"
			      "rdma_port_state{device=\"mlx5_0\",port=\"1\"} 4\n"
			      "rdma_port_state{device=\"a\",port=\"1\"} 1\n"
			      "rdma_port_link_downed_total{device=\"mlx5_0\",port=\"1\"} 3\n"
			      "rdma_netdev_carrier_down_events_total{netdev=\"eth0\"} 2\n";

static size_t lines_of(const uint8_t *data, size_t size)
{
	size_t lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	return lines;
}

static void evaluate(const struct check_state *s)
{
	struct check_config c;
	struct check_table t;
	struct check_results res = {0};
	struct check_state next;
	size_t bad;

	check_config_defaults(&c);
	FUZZ_CHECK(check_table_parse(&t, reading, sizeof(reading) - 1, &bad) == 0);
	FUZZ_CHECK(check_flaps_evaluate(&c, s, 1795000000, &t, &res, &next) == 0);
	FUZZ_CHECK(res.n == 3 && next.n <= CHECK_STATE_MAX_ENTRIES && next.n >= 3);
	check_state_free(&next);
	check_results_free(&res);
	check_table_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct check_state s, again;
	struct buf out = BUF_INIT, out2 = BUF_INIT;
	size_t bad = 0;
	int r = check_state_parse(&s, (const char *)data, size, &bad);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -EFBIG || r == -E2BIG || r == -ENOMEM);
	if (r) {
		FUZZ_CHECK(s.n == 0 && s.v == NULL);
		FUZZ_CHECK(r != -EINVAL || (bad >= 1 && bad <= lines_of(data, size)));
		return 0;
	}
	FUZZ_CHECK(s.n <= CHECK_STATE_MAX_ENTRIES);
	for (size_t i = 0; i < s.n; i++) {
		FUZZ_CHECK(s.v[i].name[0] != '\0');
		FUZZ_CHECK(check_state_find(&s, s.v[i].kind, s.v[i].name) == &s.v[i]);
	}
	FUZZ_CHECK(check_state_format(&s, &out) == 0);
	FUZZ_CHECK(check_state_parse(&again, out.data, out.len, &bad) == 0);
	FUZZ_CHECK(again.n == s.n);
	FUZZ_CHECK(check_state_format(&again, &out2) == 0);
	FUZZ_CHECK(out.len == out2.len && memcmp(out.data, out2.data, out.len) == 0);
	evaluate(&s);
	check_state_free(&again);
	check_state_free(&s);
	buf_free(&out);
	buf_free(&out2);
	return 0;
}
