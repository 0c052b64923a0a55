// SPDX-License-Identifier: Apache-2.0
/* The metric sink: escaping in place, grouping, exact integers, what it refuses (names and
 * numbers on their own: test_metric_text.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition/histogram.h"
#include "exposition/metrics.h"

static char *render(struct metric_sink *s)
{
	struct buf b = BUF_INIT;

	assert_int_equal(metric_sink_render(s, &b), 0);
	if (!b.data)
		buf_puts(&b, "");
	return buf_steal(&b, NULL);
}

static void test_u64_exact(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* 2^64-1 and 2^53+1 are not representable as doubles */
	assert_int_equal(metric_sink_add_u64(s, "x_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"a", "1"}), UINT64_MAX),
			 0);
	assert_int_equal(metric_sink_add_u64(s, "x_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"a", "2"}), 9007199254740993ULL),
			 0);
	out = render(s);
	assert_string_equal(out, "# HELP x_total h\n"
				 "# TYPE x_total counter\n"
				 "x_total{a=\"1\"} 18446744073709551615\n"
				 "x_total{a=\"2\"} 9007199254740993\n");
	free(out);
	metric_sink_free(s);
}

static void test_label_escaping(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	assert_int_equal(metric_sink_add_u64(s, "m", "help with \\ and\nnewline", METRIC_GAUGE,
					     METRIC_LABELS({"v", "a\\b\"c\nd"}), 1),
			 0);
	out = render(s);
	assert_string_equal(out, "# HELP m help with \\\\ and\\nnewline\n"
				 "# TYPE m gauge\n"
				 "m{v=\"a\\\\b\\\"c\\nd\"} 1\n");
	free(out);
	metric_sink_free(s);
}

static void test_invalid_utf8_replaced(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* a lone continuation byte, a truncated sequence, an overlong '/' and valid "é" */
	assert_int_equal(metric_sink_add_u64(s, "m", "h", METRIC_GAUGE,
					     METRIC_LABELS({"v", "\x80x\xc3\xc0\xaf\xc3\xa9"}), 1),
			 0);
	out = render(s);
	assert_non_null(strstr(
		out, "m{v=\"\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\"} 1\n"));
	free(out);
	metric_sink_free(s);
}

static void test_grouping_and_order(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* interleaved adds come out as contiguous families sorted by name */
	metric_sink_add_u64(s, "b_total", "B", METRIC_COUNTER, METRIC_LABELS({"d", "1"}), 1);
	metric_sink_add_u64(s, "a", "A", METRIC_GAUGE, METRIC_NO_LABELS, 5);
	metric_sink_add_u64(s, "b_total", "B", METRIC_COUNTER, METRIC_LABELS({"d", "2"}), 2);
	out = render(s);
	assert_string_equal(out, "# HELP a A\n# TYPE a gauge\na 5\n"
				 "# HELP b_total B\n# TYPE b_total counter\n"
				 "b_total{d=\"1\"} 1\nb_total{d=\"2\"} 2\n");
	assert_int_equal(metric_sink_samples(s), 3);
	free(out);
	metric_sink_free(s);
}

static void test_rejects(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out;

	assert_int_equal(metric_sink_add_u64(s, "9bad", "h", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "bad-name", "h", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "", "h", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE,
					     METRIC_LABELS({"__reserved", "x"}), 1),
			 -EINVAL);
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE, METRIC_LABELS({"a-b", "x"}), 1),
		-EINVAL);
	assert_int_equal(metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE,
					     METRIC_LABELS({"a", "x"}, {"a", "y"}), 1),
			 -EINVAL);
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE, METRIC_LABELS({"a", "x"}), 1), 0);
	/* same series twice */
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_GAUGE, METRIC_LABELS({"a", "x"}), 2),
		-EEXIST);
	/* same family, other type */
	assert_int_equal(
		metric_sink_add_u64(s, "ok", "h", METRIC_COUNTER, METRIC_LABELS({"a", "y"}), 2),
		-EPROTO);
	assert_int_equal(metric_sink_errors(s), 8);
	out = render(s);
	assert_string_equal(out, "# HELP ok h\n# TYPE ok gauge\nok{a=\"x\"} 1\n");
	free(out);
	metric_sink_free(s);
}

static void test_empty_and_no_labels(void **state)
{
	struct metric_sink *s = metric_sink_new();
	char *out = render(s);

	assert_string_equal(out, "");
	free(out);
	metric_sink_add_double(s, "t_seconds", "", METRIC_GAUGE, METRIC_NO_LABELS, 0.25);
	metric_sink_add_u64(s, "u", "x", METRIC_UNTYPED, METRIC_LABELS({"l", ""}), 0);
	out = render(s);
	assert_string_equal(out, "# HELP t_seconds \n# TYPE t_seconds gauge\nt_seconds 0.25\n"
				 "# HELP u x\n# TYPE u untyped\nu{l=\"\"} 0\n");
	free(out);
	metric_sink_free(s);
	metric_sink_free(NULL);
}

static void test_many_series(void **state)
{
	/* exercises index growth and the arena across chunks */
	struct metric_sink *s = metric_sink_new();
	char name[32], val[32];
	struct buf b = BUF_INIT;

	for (unsigned i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "fam_%u_total", i % 97);
		snprintf(val, sizeof(val), "%u", i);
		assert_int_equal(metric_sink_add_u64(s, name, "h", METRIC_COUNTER,
						     METRIC_LABELS({"i", val}), i),
				 0);
	}
	assert_int_equal(metric_sink_add_u64(s, "fam_5_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"i", "5"}), 1),
			 -EEXIST);
	assert_int_equal(metric_sink_samples(s), 20000);
	assert_int_equal(metric_sink_render(s, &b), 0);
	assert_non_null(strstr(b.data, "fam_5_total{i=\"19987\"} 19987\n"));
	buf_free(&b);
	metric_sink_free(s);
}

/* label set with every character that needs escaping */
#define HL0 "dev=\"mlx5_0\",peer=\"a\\\"b\\\\c\\nd\""
#define HL1 "dev=\"mlx5_1\",peer=\"x\""

/* Absorbing sinks renders exactly what adding everything to one sink does. */
static void add_part(struct metric_sink *s, int part, int n)
{
	char v[16];

	for (int i = 0; i < n; i++) {
		snprintf(v, sizeof(v), "%d", i);
		assert_int_equal(
			metric_sink_add_u64(s, "shared_total", "h", METRIC_COUNTER,
					    METRIC_LABELS({"part", part ? "b" : "a"}, {"i", v}),
					    (uint64_t)i),
			0);
		assert_int_equal(metric_sink_add_double(s, part ? "only_b" : "only_a", "g",
							METRIC_GAUGE, METRIC_LABELS({"i", v}),
							i / 2.0),
				 0);
	}
}

static void test_absorb(void **state)
{
	struct metric_sink *one = metric_sink_new(), *dst = metric_sink_new(),
			   *src = metric_sink_new();
	static const double bounds[] = {1, 2};
	static const uint64_t counts[] = {1, 2};
	char *want, *got;

	(void)state;
	add_part(one, 0, 700);
	add_part(one, 1, 700);
	assert_int_equal(metric_sink_add_histogram(one, "h_seconds", "x", METRIC_NO_LABELS, bounds,
						   2, counts, 4, 5.5),
			 0);
	add_part(dst, 0, 700);
	add_part(src, 1, 700);
	assert_int_equal(metric_sink_add_histogram(src, "h_seconds", "x", METRIC_NO_LABELS, bounds,
						   2, counts, 4, 5.5),
			 0);
	assert_int_equal(metric_sink_absorb(dst, src), 0);
	assert_int_equal(metric_sink_samples(dst), metric_sink_samples(one));
	assert_int_equal(metric_sink_samples(src), 0);
	want = render(one);
	got = render(dst);
	assert_string_equal(got, want);
	free(got);

	/* src is reusable; a duplicate series and a type clash are dropped
	 * and counted, the rest moves */
	assert_int_equal(metric_sink_add_u64(src, "shared_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"part", "a"}, {"i", "0"}), 99),
			 0);
	assert_int_equal(metric_sink_add_u64(src, "only_a", "g", METRIC_COUNTER,
					     METRIC_LABELS({"i", "new"}), 1),
			 0);
	assert_int_equal(
		metric_sink_add_u64(src, "late_total", "l", METRIC_COUNTER, METRIC_NO_LABELS, 7),
		0);
	assert_int_equal(
		metric_sink_add_u64(src, "late_total", "l", METRIC_COUNTER, METRIC_NO_LABELS, 8),
		-EEXIST);
	assert_int_equal(metric_sink_absorb(dst, src), 0);
	assert_int_equal(metric_sink_errors(dst), 3);
	assert_int_equal(metric_sink_samples(dst), metric_sink_samples(one) + 1);
	got = render(dst);
	assert_non_null(strstr(got, "late_total 7\n"));
	assert_non_null(strstr(got, "shared_total{part=\"a\",i=\"0\"} 0\n"));
	assert_null(strstr(got, "only_a{i=\"new\"}"));
	free(got);

	/* into an empty sink, and an empty one into a full one */
	metric_sink_free(src);
	src = metric_sink_new();
	assert_int_equal(metric_sink_absorb(src, dst), 0);
	assert_int_equal(metric_sink_samples(dst), 0);
	assert_int_equal(metric_sink_absorb(src, dst), 0);
	assert_int_equal(metric_sink_samples(src), metric_sink_samples(one) + 1);
	assert_int_equal(metric_sink_add_u64(dst, "again", "a", METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 0);
	got = render(dst);
	assert_string_equal(got, "# HELP again a\n# TYPE again gauge\nagain 1\n");
	free(got);
	free(want);
	metric_sink_free(one);
	metric_sink_free(dst);
	metric_sink_free(src);
}

/* Labels rendered once (metric_labels_render()) and added again poll after
 * poll: the same text, escaping and duplicate check as metric_sink_add_u64(). */
static void test_rendered_labels(void **state)
{
	struct metric_sink *a = metric_sink_new(), *b = metric_sink_new();
	char *dp = NULL, *none = NULL, *esc = NULL, *bad = NULL, *want, *got;

	(void)state;
	assert_int_equal(
		metric_labels_render(METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"}), &dp), 0);
	assert_string_equal(dp, "{device=\"mlx5_0\",port=\"1\"}");
	assert_int_equal(metric_labels_render(METRIC_NO_LABELS, &none), 0);
	assert_string_equal(none, "");
	assert_int_equal(metric_labels_render(METRIC_LABELS({"v", "a\\b\"c\nd\xff"}), &esc), 0);
	assert_string_equal(esc, "{v=\"a\\\\b\\\"c\\nd\xef\xbf\xbd\"}");
	assert_int_equal(metric_labels_render(METRIC_LABELS({"__x", "1"}), &bad), -EINVAL);
	assert_null(bad);

	assert_int_equal(metric_sink_add_u64(a, "x_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"}), 7),
			 0);
	assert_int_equal(metric_sink_add_u64(a, "y", "g", METRIC_GAUGE, METRIC_NO_LABELS, 1), 0);
	assert_int_equal(metric_sink_add_u64(a, "z", "g", METRIC_GAUGE,
					     METRIC_LABELS({"v", "a\\b\"c\nd\xff"}), 2),
			 0);
	assert_int_equal(metric_sink_add_u64_rendered(b, "x_total", "h", METRIC_COUNTER, dp, 7), 0);
	assert_int_equal(metric_sink_add_u64_rendered(b, "y", "g", METRIC_GAUGE, none, 1), 0);
	assert_int_equal(metric_sink_add_u64_rendered(b, "z", "g", METRIC_GAUGE, esc, 2), 0);
	want = render(a);
	got = render(b);
	assert_string_equal(got, want);
	free(got);

	/* a duplicate either way, a type clash and a histogram are refused and counted */
	assert_int_equal(metric_sink_add_u64_rendered(b, "x_total", "h", METRIC_COUNTER, dp, 8),
			 -EEXIST);
	assert_int_equal(metric_sink_add_u64(b, "x_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"}), 8),
			 -EEXIST);
	assert_int_equal(metric_sink_add_u64_rendered(b, "y", "g", METRIC_COUNTER, none, 1),
			 -EPROTO);
	assert_int_equal(metric_sink_add_u64_rendered(b, "h", "g", METRIC_HISTOGRAM, none, 1),
			 -EINVAL);
	assert_int_equal(metric_sink_errors(b), 4);

	/* absorbed as families new to the sink: their samples are still found */
	metric_sink_free(a);
	a = metric_sink_new();
	assert_int_equal(metric_sink_absorb(a, b), 0);
	assert_int_equal(metric_sink_add_u64_rendered(a, "x_total", "h", METRIC_COUNTER, dp, 9),
			 -EEXIST);
	assert_int_equal(metric_sink_add_u64(a, "z", "g", METRIC_GAUGE,
					     METRIC_LABELS({"v", "a\\b\"c\nd\xff"}), 3),
			 -EEXIST);
	assert_int_equal(metric_sink_samples(a), 3);
	free(want);
	free(dp);
	free(none);
	free(esc);
	metric_sink_free(a);
	metric_sink_free(b);
}

static void test_histogram_render(void **state)
{
	static const double bounds[] = {0.001, 0.5, 1};
	static const uint64_t c0[] = {1, 2, 3}, c1[] = {0, 0, 0};
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* interleaved with other families: each still comes out as one block */
	assert_int_equal(
		metric_sink_add_u64(s, "z_total", "Z", METRIC_COUNTER, METRIC_NO_LABELS, 7), 0);
	assert_int_equal(
		metric_sink_add_histogram(s, "lat_seconds", "RTT.",
					  METRIC_LABELS({"dev", "mlx5_0"}, {"peer", "a\"b\\c\nd"}),
					  bounds, 3, c0, 10, 12.5),
		0);
	assert_int_equal(metric_sink_add_u64(s, "a_up", "A", METRIC_GAUGE, METRIC_NO_LABELS, 1), 0);
	assert_int_equal(metric_sink_add_histogram(s, "lat_seconds", "RTT.",
						   METRIC_LABELS({"dev", "mlx5_1"}, {"peer", "x"}),
						   bounds, 3, c1, 0, 0),
			 0);
	assert_int_equal(metric_sink_samples(s), 4);
	assert_true(
		metric_sink_has(s, "lat_seconds", METRIC_LABELS({"dev", "mlx5_1"}, {"peer", "x"})));
	out = render(s);
	assert_string_equal(out, "# HELP a_up A\n"
				 "# TYPE a_up gauge\n"
				 "a_up 1\n"
				 "# HELP lat_seconds RTT.\n"
				 "# TYPE lat_seconds histogram\n"
				 "lat_seconds_bucket{" HL0 ",le=\"0.001\"} 1\n"
				 "lat_seconds_bucket{" HL0 ",le=\"0.5\"} 3\n"
				 "lat_seconds_bucket{" HL0 ",le=\"1\"} 6\n"
				 "lat_seconds_bucket{" HL0 ",le=\"+Inf\"} 10\n"
				 "lat_seconds_sum{" HL0 "} 12.5\n"
				 "lat_seconds_count{" HL0 "} 10\n"
				 "lat_seconds_bucket{" HL1 ",le=\"0.001\"} 0\n"
				 "lat_seconds_bucket{" HL1 ",le=\"0.5\"} 0\n"
				 "lat_seconds_bucket{" HL1 ",le=\"1\"} 0\n"
				 "lat_seconds_bucket{" HL1 ",le=\"+Inf\"} 0\n"
				 "lat_seconds_sum{" HL1 "} 0\n"
				 "lat_seconds_count{" HL1 "} 0\n"
				 "# HELP z_total Z\n"
				 "# TYPE z_total counter\n"
				 "z_total 7\n");
	free(out);
	metric_sink_free(s);
}

static void test_histogram_no_labels_no_bounds(void **state)
{
	static const double bounds[] = {0.25};
	static const uint64_t counts[] = {2};
	struct metric_sink *s = metric_sink_new();
	char *out;

	/* only the +Inf bucket; the arrays may be NULL then */
	assert_int_equal(metric_sink_add_histogram(s, "only_inf", "h", METRIC_LABELS({"a", "1"}),
						   NULL, 0, NULL, 3, 0.75),
			 0);
	assert_int_equal(metric_sink_add_histogram(s, "plain", "", METRIC_NO_LABELS, bounds, 1,
						   counts, 2, 0.5),
			 0);
	out = render(s);
	assert_string_equal(out, "# HELP only_inf h\n"
				 "# TYPE only_inf histogram\n"
				 "only_inf_bucket{a=\"1\",le=\"+Inf\"} 3\n"
				 "only_inf_sum{a=\"1\"} 0.75\n"
				 "only_inf_count{a=\"1\"} 3\n"
				 "# HELP plain \n"
				 "# TYPE plain histogram\n"
				 "plain_bucket{le=\"0.25\"} 2\n"
				 "plain_bucket{le=\"+Inf\"} 2\n"
				 "plain_sum 0.5\n"
				 "plain_count 2\n");
	free(out);
	metric_sink_free(s);
}

static void test_histogram_u64_exact(void **state)
{
	static const double bounds[] = {1, 2};
	/* 2^53+1 is not a double; the cumulative 2^54+2 is not either */
	static const uint64_t counts[] = {9007199254740993ULL, 9007199254740993ULL};
	struct metric_sink *s = metric_sink_new();
	char *out;

	assert_int_equal(metric_sink_add_histogram(s, "big", "h", METRIC_NO_LABELS, bounds, 2,
						   counts, UINT64_MAX, 1e300),
			 0);
	out = render(s);
	assert_string_equal(out, "# HELP big h\n"
				 "# TYPE big histogram\n"
				 "big_bucket{le=\"1\"} 9007199254740993\n"
				 "big_bucket{le=\"2\"} 18014398509481986\n"
				 "big_bucket{le=\"+Inf\"} 18446744073709551615\n"
				 "big_sum 1e+300\n"
				 "big_count 18446744073709551615\n");
	free(out);
	metric_sink_free(s);
}

/* REJECT(want, call): call fails with want and counts one more error in s. */
#define REJECT(want, call)                                                                         \
	do {                                                                                       \
		assert_int_equal((call), (want));                                                  \
		assert_int_equal(metric_sink_errors(s), ++n_err);                                  \
	} while (0)

/* Histograms the sink refuses whatever else it holds; returns how many (each an error). */
static uint64_t reject_invalid_histograms(struct metric_sink *s)
{
	static const double ok_b[] = {1, 2};
	static const uint64_t ok_c[] = {1, 1};
	static const double same[] = {1, 1}, down[] = {2, 1}, nan_b[] = {1, NAN},
			    inf_b[] = {1, INFINITY}, ninf_b[] = {-INFINITY, 1};
	static const uint64_t wrap[] = {UINT64_MAX, 1};
	uint64_t n_err = 0;

	/* le belongs to the writer */
	REJECT(-EINVAL, metric_sink_add_histogram(s, "h", "h", METRIC_LABELS({"le", "1"}), ok_b, 2,
						  ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_LABELS({"a", "1"}, {"le", "1"}), ok_b,
					 2, ok_c, 2, 1));
	/* bounds */
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, same, 2, ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, down, 2, ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, nan_b, 2, ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, inf_b, 2, ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, ninf_b, 2, ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, NULL, 2, ok_c, 2, 1));
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, ok_b, 2, NULL, 2, 1));
	/* cumulative counts above count, and a sum that would wrap */
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, ok_b, 2, ok_c, 1, 1));
	REJECT(-EINVAL, metric_sink_add_histogram(s, "h", "h", METRIC_NO_LABELS, ok_b, 2, wrap,
						  UINT64_MAX, 1));
	/* names, as for other samples */
	REJECT(-EINVAL,
	       metric_sink_add_histogram(s, "9h", "h", METRIC_NO_LABELS, ok_b, 2, ok_c, 2, 1));
	REJECT(-EINVAL, metric_sink_add_histogram(s, "h", "h", METRIC_LABELS({"__x", "1"}), ok_b, 2,
						  ok_c, 2, 1));
	/* histograms only through their own call */
	REJECT(-EINVAL,
	       metric_sink_add_u64(s, "scalar", "h", METRIC_HISTOGRAM, METRIC_NO_LABELS, 1));
	REJECT(-EINVAL,
	       metric_sink_add_double(s, "scalar", "h", METRIC_HISTOGRAM, METRIC_NO_LABELS, 1));
	return n_err;
}

static void test_histogram_rejects(void **state)
{
	static const double ok_b[] = {1, 2};
	static const uint64_t ok_c[] = {1, 1};
	struct metric_sink *s = metric_sink_new();
	uint64_t n_err;
	char *out;

	n_err = reject_invalid_histograms(s);
	/* a good one; the counts may add up to less than count (the rest is above 2) */
	assert_int_equal(metric_sink_add_histogram(s, "h", "H", METRIC_LABELS({"a", "1"}), ok_b, 2,
						   ok_c, 5, 1),
			 0);
	/* same label set again, even with other counts */
	REJECT(-EEXIST, metric_sink_add_histogram(s, "h", "H", METRIC_LABELS({"a", "1"}), ok_b, 2,
						  ok_c, 9, 1));
	/* type clashes both ways */
	REJECT(-EPROTO,
	       metric_sink_add_u64(s, "h", "H", METRIC_GAUGE, METRIC_LABELS({"a", "2"}), 1));
	REJECT(-EPROTO,
	       metric_sink_add_double(s, "h", "H", METRIC_COUNTER, METRIC_LABELS({"a", "2"}), 1));
	assert_int_equal(metric_sink_add_u64(s, "g", "G", METRIC_GAUGE, METRIC_NO_LABELS, 4), 0);
	REJECT(-EPROTO, metric_sink_add_histogram(s, "g", "G", METRIC_LABELS({"a", "2"}), ok_b, 2,
						  ok_c, 2, 1));

	assert_int_equal(metric_sink_samples(s), 2);
	assert_int_equal(metric_sink_errors(s), 19);
	out = render(s);
	assert_string_equal(out, "# HELP g G\n# TYPE g gauge\ng 4\n"
				 "# HELP h H\n# TYPE h histogram\n"
				 "h_bucket{a=\"1\",le=\"1\"} 1\n"
				 "h_bucket{a=\"1\",le=\"2\"} 2\n"
				 "h_bucket{a=\"1\",le=\"+Inf\"} 5\n"
				 "h_sum{a=\"1\"} 1\n"
				 "h_count{a=\"1\"} 5\n");
	free(out);
	metric_sink_free(s);
}
#undef REJECT

/* The next double above a positive finite v; nextafter() without libm. */
static double next_up(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	u++;
	memcpy(&v, &u, sizeof(v));
	return v;
}

static void test_histogram_observe(void **state)
{
	static const double bounds[] = {1, 2, 5};
	struct metric_sink *s = metric_sink_new();
	struct histogram h;
	char *out;

	assert_int_equal(histogram_init(&h, bounds, 3), 0);
	assert_int_equal(h.n_bounds, 3);
	/* le is inclusive: a value equal to a bound is in that bound's bucket */
	assert_int_equal(histogram_observe(&h, 1), 0);
	assert_int_equal(histogram_observe(&h, 0.5), 0); /* below the first bound */
	assert_int_equal(histogram_observe(&h, 0), 0);
	assert_int_equal(histogram_observe(&h, -0.0), 0);
	assert_int_equal(histogram_observe(&h, next_up(1)), 0);
	assert_int_equal(histogram_observe(&h, 2), 0);
	assert_int_equal(histogram_observe(&h, 5), 0);
	assert_int_equal(histogram_observe(&h, next_up(5)), 0); /* only +Inf */
	assert_int_equal(histogram_observe(&h, 100), 0);
	/* ignored: the sum must stay finite and monotonic */
	assert_int_equal(histogram_observe(&h, NAN), -EINVAL);
	assert_int_equal(histogram_observe(&h, -1), -EINVAL);
	assert_int_equal(histogram_observe(&h, -1e-300), -EINVAL);
	assert_int_equal(histogram_observe(&h, INFINITY), -EINVAL);
	assert_int_equal(histogram_observe(&h, -INFINITY), -EINVAL);

	assert_int_equal(h.counts[0], 4);
	assert_int_equal(h.counts[1], 2);
	assert_int_equal(h.counts[2], 1);
	assert_int_equal(h.counts[3], 2);
	assert_int_equal(h.count, 9);
	assert_true(h.sum == 1 + 0.5 + next_up(1) + 2 + 5 + next_up(5) + 100);

	assert_int_equal(metric_sink_add_histogram_from(s, "o", "h", METRIC_NO_LABELS, &h), 0);
	histogram_reset(&h);
	assert_int_equal(h.count, 0);
	assert_true(h.sum == 0);
	for (size_t i = 0; i <= 3; i++)
		assert_int_equal(h.counts[i], 0);
	assert_ptr_equal(h.bounds, bounds);
	assert_int_equal(histogram_observe(&h, 3), 0);
	assert_int_equal(h.counts[2], 1);
	assert_int_equal(metric_sink_add_histogram_from(s, "o", "h", METRIC_LABELS({"r", "1"}), &h),
			 0);
	out = render(s);
	assert_non_null(strstr(out, "o_bucket{le=\"1\"} 4\n"
				    "o_bucket{le=\"2\"} 6\n"
				    "o_bucket{le=\"5\"} 7\n"
				    "o_bucket{le=\"+Inf\"} 9\n"
				    "o_sum 114.5\n"
				    "o_count 9\n"
				    "o_bucket{r=\"1\",le=\"1\"} 0\n"
				    "o_bucket{r=\"1\",le=\"2\"} 0\n"
				    "o_bucket{r=\"1\",le=\"5\"} 1\n"
				    "o_bucket{r=\"1\",le=\"+Inf\"} 1\n"
				    "o_sum{r=\"1\"} 3\n"
				    "o_count{r=\"1\"} 1\n"));
	free(out);
	metric_sink_free(s);

	histogram_free(&h);
	assert_null(h.counts);
	histogram_free(&h); /* twice is fine */
	histogram_free(NULL);

	/* invalid layouts leave an empty histogram */
	assert_int_equal(histogram_init(&h, (const double[]){2, 1}, 2), -EINVAL);
	assert_null(h.counts);
	histogram_reset(&h);
	histogram_free(&h);
	assert_int_equal(histogram_init(&h, NULL, 1), -EINVAL);
	/* no bounds: everything in +Inf */
	assert_int_equal(histogram_init(&h, NULL, 0), 0);
	assert_int_equal(histogram_observe(&h, 7), 0);
	assert_int_equal(h.counts[0], 1);
	assert_int_equal(h.count, 1);
	histogram_free(&h);
}

static void test_histogram_rtt_bounds(void **state)
{
	static const char *const want[HISTOGRAM_RTT_N_BOUNDS] = {
		"1e-06",  "2e-06",  "3e-06", "5e-06", "1e-05", "2e-05", "3e-05", "5e-05", "0.0001",
		"0.0002", "0.0005", "0.001", "0.002", "0.005", "0.01",	"0.1",	 "1",
	};

	struct histogram h;
	size_t dense = 0;

	assert_true(histogram_bounds_valid(histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS));
	assert_true(histogram_rtt_bounds[0] == 1e-6);
	assert_true(histogram_rtt_bounds[HISTOGRAM_RTT_N_BOUNDS - 1] == 1.0);
	for (size_t i = 0; i < HISTOGRAM_RTT_N_BOUNDS; i++) {
		struct buf b = BUF_INIT;

		/* the le text: shortest round trip, as the Go client prints it */
		metric_format_double(&b, histogram_rtt_bounds[i]);
		assert_string_equal(b.data, want[i]);
		assert_true(strtod(b.data, NULL) == histogram_rtt_bounds[i]);
		buf_free(&b);
		dense += histogram_rtt_bounds[i] <= 100e-6;
	}
	assert_int_equal(dense, 9);

	/* each bound lands in its own bucket, the next double above it in the next */
	assert_int_equal(histogram_init(&h, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS), 0);
	for (size_t i = 0; i < HISTOGRAM_RTT_N_BOUNDS; i++)
		assert_int_equal(histogram_observe(&h, histogram_rtt_bounds[i]), 0);
	for (size_t i = 0; i < HISTOGRAM_RTT_N_BOUNDS; i++)
		assert_int_equal(h.counts[i], 1);
	assert_int_equal(h.counts[HISTOGRAM_RTT_N_BOUNDS], 0);
	histogram_reset(&h);
	for (size_t i = 0; i < HISTOGRAM_RTT_N_BOUNDS; i++)
		assert_int_equal(histogram_observe(&h, next_up(histogram_rtt_bounds[i])), 0);
	assert_int_equal(h.counts[0], 0);
	for (size_t i = 1; i <= HISTOGRAM_RTT_N_BOUNDS; i++)
		assert_int_equal(h.counts[i], 1);
	histogram_free(&h);
}

/* A realistic scrape through `promtool check metrics`, as Prometheus would lint it. */
static void test_histogram_promtool(void **state)
{
	static const char *const peers[] = {"10.0.0.2", "fe80::1%eth0"};
	struct metric_sink *s = metric_sink_new();
	char path[] = "/tmp/test_metrics_promtool.XXXXXX";
	char cmd[256], line[512];
	struct buf b = BUF_INIT;
	struct histogram h;
	size_t n_out = 0;
	FILE *p;
	int fd, st;

	assert_int_equal(histogram_init(&h, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS), 0);
	for (size_t i = 0; i < 2; i++) {
		histogram_reset(&h);
		/* mostly 2..9 µs, a tail to a few ms, one timeout-sized outlier */
		for (unsigned k = 0; k < 5000; k++)
			histogram_observe(&h, (2 + (k % 8) + (double)i * 3) * 1e-6);
		for (unsigned k = 0; k < 50; k++)
			histogram_observe(&h, (k + 1) * 80e-6);
		histogram_observe(&h, 2.5);
		assert_int_equal(
			metric_sink_add_histogram_from(
				s, "rdma_probe_rtt_seconds",
				"Round-trip time of RDMA probe messages, from the latency probe.",
				METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"},
					      {"peer", peers[i]}),
				&h),
			0);
		assert_int_equal(
			metric_sink_add_u64(s, "rdma_probe_timeouts_total",
					    "Probes without a reply within the timeout.",
					    METRIC_COUNTER,
					    METRIC_LABELS({"device", "mlx5_0"}, {"port", "1"},
							  {"peer", peers[i]}),
					    i),
			0);
	}
	assert_int_equal(metric_sink_add_u64(s, "rdma_probe_up", "Whether the probe runs.",
					     METRIC_GAUGE, METRIC_NO_LABELS, 1),
			 0);
	histogram_free(&h);
	assert_int_equal(metric_sink_render(s, &b), 0);
	metric_sink_free(s);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b.data, b.len), (ssize_t)b.len);
	assert_int_equal(close(fd), 0);
	buf_free(&b);

	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		print_message("promtool not on PATH: skipping `promtool check metrics`\n");
		unlink(path);
		return;
	}
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		print_message("promtool: %s", line);
		n_out++;
	}
	st = pclose(p);
	unlink(path);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(n_out, 0);
}

struct proto_seen {
	size_t samples, proto_only, native, bounds;
};

static int count_views(void *ctx, const struct metric_family_view *f,
		       const struct metric_sample_view *smp)
{
	struct proto_seen *n = ctx;

	for (size_t i = 0; i < f->n_samples; i++) {
		n->samples++;
		n->proto_only += smp[i].proto_only;
		n->native += smp[i].h && smp[i].h->native;
		n->bounds += smp[i].h ? smp[i].h->n_bounds : 0;
	}
	return 0;
}

/* Without classic buckets: +Inf, _sum and _count in the text, the native
 * buckets for the protobuf writer; protobuf only: nothing in the text, not
 * even the family's HELP, while a visitor still sees it. */
static void test_histogram_native_and_proto_only(void **state)
{
	static const double bounds[] = {1, 2, 5};
	struct metric_sink *s = metric_sink_new();
	struct proto_seen n = {0};
	struct histogram h;
	char *out;

	assert_int_equal(histogram_init(&h, bounds, 3), 0);
	assert_int_equal(histogram_observe(&h, 1.5), 0);
	assert_int_equal(histogram_observe(&h, 3), 0);
	assert_int_equal(
		metric_sink_add_histogram_native_from(s, "a", "h", METRIC_LABELS({"t", "x"}), &h),
		0);
	assert_int_equal(metric_sink_add_histogram_proto_from(s, "b", "h", METRIC_NO_LABELS, &h),
			 0);
	/* the same label set twice is still refused */
	assert_int_equal(
		metric_sink_add_histogram_native_from(s, "a", "h", METRIC_LABELS({"t", "x"}), &h),
		-EEXIST);
	out = render(s);
	assert_string_equal(out, "# HELP a h\n"
				 "# TYPE a histogram\n"
				 "a_bucket{t=\"x\",le=\"+Inf\"} 2\n"
				 "a_sum{t=\"x\"} 4.5\n"
				 "a_count{t=\"x\"} 2\n");
	free(out);
	assert_int_equal(metric_sink_visit(s, count_views, &n), 0);
	assert_int_equal(n.samples, 2);
	assert_int_equal(n.proto_only, 1);
	assert_int_equal(n.native, 2);
	assert_int_equal(n.bounds, 0);
	metric_sink_free(s);
	histogram_free(&h);
}

/* Everything added while the sink is in protobuf-only mode (a counter, a
 * histogram with its classic buckets) is left out of the text and kept for
 * the protobuf writer, classic bounds included; samples added after it is
 * off again are in both, in the same family. */
static void test_proto_only_mode(void **state)
{
	static const double bounds[] = {1, 2};
	struct metric_sink *s = metric_sink_new();
	struct proto_seen n = {0};
	struct histogram h;
	char *out;

	assert_int_equal(histogram_init(&h, bounds, 2), 0);
	assert_int_equal(histogram_observe(&h, 1.5), 0);
	metric_sink_proto_only(s, true);
	assert_int_equal(metric_sink_add_u64(s, "c_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"t", "x"}), 3),
			 0);
	assert_int_equal(metric_sink_add_histogram_from(s, "hist", "h", METRIC_NO_LABELS, &h), 0);
	metric_sink_proto_only(s, false);
	assert_int_equal(metric_sink_add_u64(s, "c_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"t", "y"}), 4),
			 0);
	/* a label set is one whichever exposition it is for */
	assert_int_equal(metric_sink_add_u64(s, "c_total", "h", METRIC_COUNTER,
					     METRIC_LABELS({"t", "x"}), 5),
			 -EEXIST);
	out = render(s);
	assert_string_equal(out, "# HELP c_total h\n"
				 "# TYPE c_total counter\n"
				 "c_total{t=\"y\"} 4\n");
	free(out);
	assert_int_equal(metric_sink_visit(s, count_views, &n), 0);
	assert_int_equal(n.samples, 3);
	assert_int_equal(n.proto_only, 2);
	assert_int_equal(n.bounds, 2);
	metric_sink_free(s);
	histogram_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_exact),
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_invalid_utf8_replaced),
		cmocka_unit_test(test_grouping_and_order),
		cmocka_unit_test(test_absorb),
		cmocka_unit_test(test_rendered_labels),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_empty_and_no_labels),
		cmocka_unit_test(test_many_series),
		cmocka_unit_test(test_histogram_render),
		cmocka_unit_test(test_histogram_no_labels_no_bounds),
		cmocka_unit_test(test_histogram_u64_exact),
		cmocka_unit_test(test_histogram_rejects),
		cmocka_unit_test(test_histogram_observe),
		cmocka_unit_test(test_histogram_rtt_bounds),
		cmocka_unit_test(test_histogram_promtool),
		cmocka_unit_test(test_histogram_native_and_proto_only),
		cmocka_unit_test(test_proto_only_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
