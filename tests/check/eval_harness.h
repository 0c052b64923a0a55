/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The evaluator's tests' harness: two readings parsed from text, evaluated
 * and rendered, and the lines of the result looked up. For tests only; one
 * test thread.
 */
#ifndef RDMA_EXPORTER_TEST_EVAL_HARNESS_H
#define RDMA_EXPORTER_TEST_EVAL_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"

#define SUCCESS(c, v)		"rdma_exporter_collector_success{collector=\"" c "\"} " #v "\n"
#define PORT(fam, dev, port, v) "rdma_port_" fam "{device=\"" dev "\",port=\"" port "\"} " #v "\n"

/* Two healthy 400G ports, as the sysfs collector renders them. */
#define HEALTHY                                                                                    \
	SUCCESS("sysfs", 1)                                                                        \
	"rdma_device_info{device=\"mlx5_0\"} 1\n"                                                  \
	"rdma_device_info{device=\"mlx5_1\"} 1\n" PORT("state", "mlx5_0", "1", 4)                  \
		PORT("phys_state", "mlx5_0", "1", 5) PORT("rate_bytes_per_second", "mlx5_0", "1",  \
							  50000000000)                             \
			PORT("state", "mlx5_1", "1", 4) PORT("phys_state", "mlx5_1", "1", 5)       \
				PORT("rate_bytes_per_second", "mlx5_1", "1", 50000000000)

struct eval {
	struct check_table r1, r2;
	struct check_results res;
	struct check_config cfg;
	struct buf text;
};

static inline enum check_status run(struct eval *e, const char *t1, const char *t2)
{
	size_t bad;

	assert_int_equal(check_table_parse(&e->r1, t1, strlen(t1), &bad), 0);
	assert_int_equal(check_table_parse(&e->r2, t2, strlen(t2), &bad), 0);
	assert_int_equal(check_evaluate(&e->cfg, &e->r1, &e->r2, &e->res), 0);
	assert_int_equal(check_render_text(&e->res, &e->text), 0);
	return check_overall(&e->res);
}

static inline void done(struct eval *e)
{
	check_table_free(&e->r1);
	check_table_free(&e->r2);
	check_results_free(&e->res);
	buf_free(&e->text);
}

static inline void has_line(const struct eval *e, const char *line)
{
	if (!strstr(e->text.data, line)) {
		fprintf(stderr, "missing line \"%s\" in:\n%s", line, e->text.data);
		fail();
	}
}

#endif
