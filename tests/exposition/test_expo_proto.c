// SPDX-License-Identifier: Apache-2.0
/*
 * The protobuf exposition: encode a sink, decode the bytes with protobuf-c's
 * own unpack, and check every field; the native bucket index and the span
 * and delta encoding on their own; the label reader the encoder relies on.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exposition/expo_proto.h"
#include "exposition/histogram.h"
#include "exposition/metrics.h"
#include "metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily pb_family;

/* Splits delimited bytes into up to max families; returns how many. */
static size_t decode_all(const struct buf *b, pb_family **out, size_t max)
{
	const uint8_t *p = (const uint8_t *)b->data, *end = p + b->len;
	size_t n = 0;

	while (p < end) {
		uint64_t len = 0;
		unsigned shift = 0;

		do {
			assert_true(p < end && shift < 64);
			len |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		assert_true(len <= (uint64_t)(end - p));
		assert_true(n < max);
		out[n] = io__prometheus__client__metric_family__unpack(NULL, len, p);
		assert_non_null(out[n]);
		n++;
		p += len;
	}
	return n;
}

static void free_all(pb_family **f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(f[i], NULL);
}

static void assert_label(const Io__Prometheus__Client__Metric *m, size_t i, const char *name,
			 const char *value)
{
	assert_true(i < m->n_label);
	assert_string_equal(m->label[i]->name, name);
	assert_string_equal(m->label[i]->value, value);
}

static void test_scalar_families(void **state)
{
	struct metric_sink *s = metric_sink_new();
	struct buf b = BUF_INIT;
	pb_family *f[8];
	size_t n;

	/* added out of order: the output is sorted by name, as the text is */
	assert_int_equal(metric_sink_add_double(
				 s, "z_gauge", "A gauge.\nSecond line \\.", METRIC_GAUGE,
				 METRIC_LABELS({"dev", "mlx5_0"}, {"odd", "a\"b\\c\nd\xff"}), -2.5),
			 0);
	assert_int_equal(metric_sink_add_u64(s, "a_total", "A counter.", METRIC_COUNTER,
					     METRIC_NO_LABELS, 9007199254740992ULL),
			 0);
	assert_int_equal(metric_sink_add_u64(s, "a_total", "A counter.", METRIC_COUNTER,
					     METRIC_LABELS({"port", "1"}), 3),
			 0);
	assert_int_equal(metric_sink_add_double(s, "m_untyped", "", METRIC_UNTYPED,
						METRIC_LABELS({"e", ""}), NAN),
			 0);
	assert_int_equal(expo_proto_render(s, &b), 0);
	n = decode_all(&b, f, 8);
	assert_int_equal(n, 3);

	assert_string_equal(f[0]->name, "a_total");
	assert_string_equal(f[0]->help, "A counter.");
	assert_true(f[0]->has_type);
	assert_int_equal(f[0]->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER);
	assert_int_equal(f[0]->n_metric, 2);
	assert_int_equal(f[0]->metric[0]->n_label, 0);
	assert_non_null(f[0]->metric[0]->counter);
	assert_null(f[0]->metric[0]->gauge);
	assert_true(f[0]->metric[0]->counter->has_value);
	assert_true(f[0]->metric[0]->counter->value == 9007199254740992.0);
	assert_false(f[0]->metric[0]->has_timestamp_ms);
	assert_label(f[0]->metric[1], 0, "port", "1");
	assert_true(f[0]->metric[1]->counter->value == 3);

	assert_string_equal(f[1]->name, "m_untyped");
	assert_string_equal(f[1]->help, "");
	assert_int_equal(f[1]->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED);
	assert_int_equal(f[1]->metric[0]->n_label, 1);
	assert_label(f[1]->metric[0], 0, "e", "");
	assert_non_null(f[1]->metric[0]->untyped);
	assert_true(isnan(f[1]->metric[0]->untyped->value));

	/* HELP and label values unescaped; invalid UTF-8 replaced, as in the text */
	assert_string_equal(f[2]->name, "z_gauge");
	assert_string_equal(f[2]->help, "A gauge.\nSecond line \\.");
	assert_int_equal(f[2]->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
	assert_int_equal(f[2]->metric[0]->n_label, 2);
	assert_label(f[2]->metric[0], 0, "dev", "mlx5_0");
	assert_label(f[2]->metric[0], 1, "odd", "a\"b\\c\nd\xef\xbf\xbd");
	assert_non_null(f[2]->metric[0]->gauge);
	assert_null(f[2]->metric[0]->counter);
	assert_null(f[2]->metric[0]->histogram);
	assert_true(f[2]->metric[0]->gauge->value == -2.5);

	free_all(f, n);
	buf_free(&b);
	metric_sink_free(s);
}

/* Absolute counts by native index, from the decoded spans and deltas. */
static void native_counts(const Io__Prometheus__Client__Histogram *h, int32_t *idx, uint64_t *cnt,
			  size_t max, size_t *n)
{
	size_t d = 0;
	int32_t i = 0;
	int64_t c = 0;

	*n = 0;
	for (size_t s = 0; s < h->n_positive_span; s++) {
		assert_true(h->positive_span[s]->has_offset && h->positive_span[s]->has_length);
		i += h->positive_span[s]->offset;
		for (uint32_t k = 0; k < h->positive_span[s]->length; k++, i++) {
			assert_true(d < h->n_positive_delta);
			c += h->positive_delta[d++];
			assert_true(c >= 0);
			if (c) {
				assert_true(*n < max);
				idx[*n] = i;
				cnt[(*n)++] = (uint64_t)c;
			}
		}
	}
	assert_int_equal(d, h->n_positive_delta);
}

static const double obs[] = {0, 1e-9, 1e-6, 1e-6, 2e-6, 5e-3, 1.0, 100};
#define N_OBS (sizeof(obs) / sizeof(obs[0]))

/* A native histogram of obs, an empty one, and a classic-only one. */
static struct metric_sink *histogram_sink(void)
{
	struct metric_sink *s = metric_sink_new();
	struct histogram h;

	assert_int_equal(histogram_init(&h, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS), 0);
	for (size_t i = 0; i < N_OBS; i++)
		assert_int_equal(histogram_observe(&h, obs[i]), 0);
	assert_int_equal(metric_sink_add_histogram_from(s, "rdma_probe_rtt_seconds", "RTT.",
							METRIC_LABELS({"target", "10.0.0.2"}), &h),
			 0);
	histogram_reset(&h);
	/* an empty one: native still, with a no-op span */
	assert_int_equal(metric_sink_add_histogram_from(s, "rdma_probe_rtt_seconds", "RTT.",
							METRIC_LABELS({"target", "10.0.0.3"}), &h),
			 0);
	histogram_free(&h);
	/* classic only */
	assert_int_equal(metric_sink_add_histogram(s, "c_seconds", "Classic.", METRIC_NO_LABELS,
						   (const double[]){0.5, 1}, 2,
						   (const uint64_t[]){1, 2}, 4, 3.25),
			 0);
	return s;
}

static void check_classic_only(const pb_family *f)
{
	const Io__Prometheus__Client__Histogram *ph;

	assert_string_equal(f->name, "c_seconds");
	assert_int_equal(f->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	ph = f->metric[0]->histogram;
	assert_non_null(ph);
	assert_true(ph->has_sample_count && ph->has_sample_sum);
	assert_int_equal(ph->sample_count, 4);
	assert_true(ph->sample_sum == 3.25);
	assert_int_equal(ph->n_bucket, 2);
	assert_true(ph->bucket[0]->upper_bound == 0.5);
	assert_int_equal(ph->bucket[0]->cumulative_count, 1);
	assert_true(ph->bucket[1]->upper_bound == 1);
	assert_int_equal(ph->bucket[1]->cumulative_count, 3);
	assert_false(ph->has_schema || ph->has_zero_threshold || ph->has_zero_count);
	assert_int_equal(ph->n_positive_span, 0);
	assert_int_equal(ph->n_positive_delta, 0);
}

static void check_native(const Io__Prometheus__Client__Histogram *ph)
{
	double sum = 0;
	int32_t idx[16];
	uint64_t cnt[16];
	size_t nn;

	for (size_t k = 0; k < N_OBS; k++)
		sum += obs[k];
	assert_int_equal(ph->sample_count, N_OBS);
	assert_true(ph->sample_sum == sum);
	/* classic: every bound, cumulative */
	assert_int_equal(ph->n_bucket, HISTOGRAM_RTT_N_BOUNDS);
	for (size_t i = 0; i < HISTOGRAM_RTT_N_BOUNDS; i++) {
		uint64_t want = 0;

		for (size_t k = 0; k < N_OBS; k++)
			want += obs[k] <= histogram_rtt_bounds[i];
		assert_true(ph->bucket[i]->upper_bound == histogram_rtt_bounds[i]);
		assert_int_equal(ph->bucket[i]->cumulative_count, want);
	}
	assert_true(ph->has_schema && ph->has_zero_threshold && ph->has_zero_count);
	assert_int_equal(ph->schema, 3);
	assert_true(ph->zero_threshold == 0x1p-24);
	assert_int_equal(ph->zero_count, 2); /* 0 and 1e-9 */
	native_counts(ph, idx, cnt, 16, &nn);
	assert_int_equal(nn, 5);
	assert_int_equal(idx[0], histogram_native_index(1e-6));
	assert_int_equal(cnt[0], 2);
	assert_int_equal(idx[1], histogram_native_index(2e-6));
	assert_int_equal(idx[1], idx[0] + 8); /* twice the value, 8 buckets up */
	assert_int_equal(cnt[1], 1);
	assert_int_equal(idx[2], histogram_native_index(5e-3));
	assert_int_equal(cnt[2], 1);
	/* 1.0 is the upper edge of bucket 0; 100 s is clamped into the top one */
	assert_int_equal(idx[3], 0);
	assert_int_equal(cnt[3], 1);
	assert_int_equal(idx[4], HISTOGRAM_NATIVE_MAX_INDEX);
	assert_int_equal(cnt[4], 1);
	assert_int_equal(ph->n_positive_span, 5); /* all far apart */
}

static void test_histograms(void **state)
{
	struct metric_sink *s = histogram_sink();
	const Io__Prometheus__Client__Histogram *ph;
	struct buf b = BUF_INIT;
	pb_family *f[4];
	size_t n;

	assert_int_equal(expo_proto_render(s, &b), 0);
	n = decode_all(&b, f, 4);
	assert_int_equal(n, 2);
	check_classic_only(f[0]);
	assert_string_equal(f[1]->name, "rdma_probe_rtt_seconds");
	assert_string_equal(f[1]->help, "RTT.");
	assert_int_equal(f[1]->type, IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	assert_int_equal(f[1]->n_metric, 2);
	assert_label(f[1]->metric[0], 0, "target", "10.0.0.2");
	check_native(f[1]->metric[0]->histogram);
	assert_label(f[1]->metric[1], 0, "target", "10.0.0.3");
	ph = f[1]->metric[1]->histogram;
	assert_int_equal(ph->sample_count, 0);
	assert_int_equal(ph->zero_count, 0);
	assert_int_equal(ph->n_positive_span, 1);
	assert_int_equal(ph->positive_span[0]->offset, 0);
	assert_int_equal(ph->positive_span[0]->length, 0);
	assert_int_equal(ph->n_positive_delta, 0);
	free_all(f, n);
	buf_free(&b);
	metric_sink_free(s);
}

static void test_native_index(void **state)
{
	/* bucket i is (2^((i-1)/8), 2^(i/8)]: powers of two are upper edges */
	assert_int_equal(histogram_native_index(1), 0);
	assert_int_equal(histogram_native_index(nextafter(1, 2)), 1);
	assert_int_equal(histogram_native_index(2), 8);
	assert_int_equal(histogram_native_index(0.5), -8);
	assert_int_equal(histogram_native_index(nextafter(0.5, 0)), -8);
	assert_int_equal(histogram_native_index(nextafter(0.5, 1)), -7);
	assert_int_equal(histogram_native_index(1.0905077326652577), 1); /* 2^(1/8) */
	assert_int_equal(histogram_native_index(nextafter(1.0905077326652577, 2)), 2);
	assert_int_equal(histogram_native_index(0x1p-24), -192);
	assert_int_equal(histogram_native_index(nextafter(0x1p-24, 1)), HISTOGRAM_NATIVE_MIN_INDEX);
	assert_int_equal(histogram_native_index(16), HISTOGRAM_NATIVE_MAX_INDEX);
	/* the relative width of every bucket is 2^(1/8) - 1 */
	for (int i = -191; i <= 32; i++) {
		double hi = exp2(i / 8.0), lo = exp2((i - 1) / 8.0);

		assert_int_equal(histogram_native_index(hi * 0.99999), i);
		assert_int_equal(histogram_native_index(lo * 1.00001), i);
		assert_true(hi / lo - 1 < 0.091);
	}
}

static void test_native_spans(void **state)
{
	static const uint64_t c[] = {0, 5, 0, 0, 7, 0, 0, 0, 1, 1, 0};
	struct expo_span sp[11];
	int64_t d[11];
	size_t nd, ns;

	/* gap of 2 zeros is bridged, gap of 3 starts a new span */
	ns = expo_native_spans(-10, c, 11, sp, d, &nd);
	assert_int_equal(ns, 2);
	assert_int_equal(sp[0].offset, -9);
	assert_int_equal(sp[0].length, 4);
	assert_int_equal(sp[1].offset, 3);
	assert_int_equal(sp[1].length, 2);
	assert_int_equal(nd, 6);
	assert_int_equal(d[0], 5);
	assert_int_equal(d[1], -5);
	assert_int_equal(d[2], 0);
	assert_int_equal(d[3], 7);
	assert_int_equal(d[4], -6);
	assert_int_equal(d[5], 0);
	ns = expo_native_spans(0, c, 1, sp, d, &nd);
	assert_int_equal(ns, 0);
	assert_int_equal(nd, 0);
}

static void test_labels_next(void **state)
{
	const char *p = "{a=\"x\\\"y\",b_2=\"\",c=\"\\\\\\n=,}\"}";
	struct buf name = BUF_INIT, value = BUF_INIT;

	assert_int_equal(metric_labels_next(&p, &name, &value), 1);
	assert_string_equal(name.data, "a");
	assert_string_equal(value.data, "x\"y");
	assert_int_equal(metric_labels_next(&p, &name, &value), 1);
	assert_string_equal(name.data, "b_2");
	assert_string_equal(value.data, "");
	assert_int_equal(metric_labels_next(&p, &name, &value), 1);
	assert_string_equal(name.data, "c");
	assert_string_equal(value.data, "\\\n=,}");
	assert_int_equal(metric_labels_next(&p, &name, &value), 0);
	p = "";
	assert_int_equal(metric_labels_next(&p, &name, &value), 0);
	p = "{a=\"x";
	assert_int_equal(metric_labels_next(&p, &name, &value), -EINVAL);
	p = "{a=x}";
	assert_int_equal(metric_labels_next(&p, &name, &value), -EINVAL);
	p = "{a=\"\\t\"}";
	assert_int_equal(metric_labels_next(&p, &name, &value), -EINVAL);
	p = "a";
	assert_int_equal(metric_labels_next(&p, &name, &value), -EINVAL);
	buf_free(&name);
	buf_free(&value);
}

static void test_empty_sink(void **state)
{
	struct metric_sink *s = metric_sink_new();
	struct buf b = BUF_INIT;

	assert_int_equal(expo_proto_render(s, &b), 0);
	assert_int_equal(b.len, 0);
	buf_free(&b);
	metric_sink_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalar_families), cmocka_unit_test(test_histograms),
		cmocka_unit_test(test_native_index),	cmocka_unit_test(test_native_spans),
		cmocka_unit_test(test_labels_next),	cmocka_unit_test(test_empty_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
