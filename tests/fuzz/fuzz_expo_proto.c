// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the protobuf exposition (expo_proto.c) and the native
 * buckets behind it (histogram.c, metrics.c). The input is a list of
 * operations, each one byte then its operands:
 *
 *   op & 3       0 counter, 1 gauge, 2 untyped, 3 histogram
 *   op >> 2 & 3  which of four families of that type
 *   op & 0x80    (counter, gauge, untyped) an integer, else a double value
 *   then         a length byte (at most 16) and that many bytes of label value
 *   then         a value of 8 bytes, or for a histogram a count byte (at most 32)
 *                and that many 8-byte doubles to observe (any bits: NaN,
 *                negative, infinite, huge, subnormal)
 *
 * The sink gets every operation (duplicates and bad values rejected as
 * usual), is encoded, and the bytes are decoded again with protobuf-c's
 * unpack: one message per family with samples, as many metrics as the sink
 * accepted, every histogram consistent (native bucket counts plus the zero
 * count add up to the sample count, indices in the preallocated range, classic
 * buckets cumulative), and each metric equal to what was added (label value
 * where the input was valid UTF-8, value, count and sum).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "exposition/expo_proto.h"
#include "exposition/histogram.h"
#include "exposition/metrics.h"
#include "fuzz.h"
#include "metrics.pb-c.h"

#define MAX_OPS 64

typedef Io__Prometheus__Client__MetricFamily pb_family;

struct added {
	char family[8];
	char value[17];
	int kind;
	double v;	/* scalar value as the wire carries it */
	uint64_t count; /* histogram */
	double sum;
};

struct input {
	const uint8_t *p;
	size_t n;
};

static bool take(struct input *in, void *out, size_t len)
{
	if (in->n < len)
		return false;
	memcpy(out, in->p, len);
	in->p += len;
	in->n -= len;
	return true;
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int add_histogram(struct metric_sink *s, struct input *in, struct added *a,
			 const struct metric_label *l)
{
	struct histogram h;
	uint8_t k = 0;
	int r;

	if (histogram_init(&h, histogram_rtt_bounds, HISTOGRAM_RTT_N_BOUNDS) < 0)
		return -1;
	take(in, &k, 1);
	for (unsigned i = 0; i < k % 33; i++) {
		double v;

		if (!take(in, &v, sizeof(v)))
			break;
		histogram_observe(&h, v);
	}
	a->count = h.count;
	a->sum = h.sum;
	r = metric_sink_add_histogram_from(s, a->family, "h", l, 1, &h);
	histogram_free(&h);
	return r;
}

/* One operation; 1 when the sink took it, 0 when it refused, -1 at the end. */
static int add_one(struct metric_sink *s, struct input *in, struct added *a)
{
	static const enum metric_type types[] = {METRIC_COUNTER, METRIC_GAUGE, METRIC_UNTYPED};
	uint8_t op, len = 0;
	struct metric_label l = {"peer", a->value};
	uint64_t u = 0;
	int r;

	if (!take(in, &op, 1))
		return -1;
	a->kind = op & 3;
	snprintf(a->family, sizeof(a->family), "f%d_%d", a->kind, op >> 2 & 3);
	take(in, &len, 1);
	len %= 17;
	memset(a->value, 0, sizeof(a->value));
	if (!take(in, a->value, len))
		return -1;
	if (a->kind == 3) {
		r = add_histogram(s, in, a, &l);
		return r == 0;
	}
	if (!take(in, &u, sizeof(u)))
		return -1;
	if (op & 0x80) {
		a->v = (double)u;
		r = metric_sink_add_u64(s, a->family, "x", types[a->kind], &l, 1, u);
	} else {
		memcpy(&a->v, &u, sizeof(a->v));
		r = metric_sink_add_double(s, a->family, "x", types[a->kind], &l, 1, a->v);
	}
	return r == 0;
}

static void check_histogram(const Io__Prometheus__Client__Histogram *h, const struct added *a)
{
	uint64_t total = h->zero_count, prev = 0;
	int64_t c = 0;
	int32_t idx = 0;
	size_t d = 0;

	FUZZ_CHECK(h->has_schema && h->schema == HISTOGRAM_NATIVE_SCHEMA);
	FUZZ_CHECK(h->zero_threshold == HISTOGRAM_NATIVE_ZERO_THRESHOLD);
	FUZZ_CHECK(h->sample_count == a->count && same_double(h->sample_sum, a->sum));
	for (size_t i = 0; i < h->n_positive_span; i++) {
		idx += h->positive_span[i]->offset;
		for (uint32_t k = 0; k < h->positive_span[i]->length; k++, idx++) {
			FUZZ_CHECK(d < h->n_positive_delta);
			c += h->positive_delta[d++];
			FUZZ_CHECK(c >= 0);
			FUZZ_CHECK(idx >= HISTOGRAM_NATIVE_MIN_INDEX &&
				   idx <= HISTOGRAM_NATIVE_MAX_INDEX);
			total += (uint64_t)c;
		}
	}
	FUZZ_CHECK(d == h->n_positive_delta);
	FUZZ_CHECK(total == h->sample_count);
	FUZZ_CHECK(h->n_bucket == HISTOGRAM_RTT_N_BOUNDS);
	for (size_t i = 0; i < h->n_bucket; i++) {
		FUZZ_CHECK(h->bucket[i]->upper_bound == histogram_rtt_bounds[i]);
		FUZZ_CHECK(h->bucket[i]->cumulative_count >= prev);
		prev = h->bucket[i]->cumulative_count;
	}
	FUZZ_CHECK(prev <= h->sample_count);
}

static void check_metric(const pb_family *f, const Io__Prometheus__Client__Metric *m,
			 const struct added *added, size_t n_added)
{
	const struct added *a = NULL;

	FUZZ_CHECK(m->n_label == 1 && strcmp(m->label[0]->name, "peer") == 0);
	for (size_t i = 0; i < n_added && !a; i++)
		if (strcmp(added[i].family, f->name) == 0 &&
		    strcmp(added[i].value, m->label[0]->value) == 0)
			a = &added[i];
	/* found unless the value was rewritten (invalid UTF-8 made U+FFFD) */
	if (!a)
		return;
	if (a->kind == 3) {
		FUZZ_CHECK(m->histogram);
		check_histogram(m->histogram, a);
	} else if (a->kind == 0) {
		FUZZ_CHECK(m->counter && same_double(m->counter->value, a->v));
	} else if (a->kind == 1) {
		FUZZ_CHECK(m->gauge && same_double(m->gauge->value, a->v));
	} else {
		FUZZ_CHECK(m->untyped && same_double(m->untyped->value, a->v));
	}
}

static size_t check_bytes(const struct buf *b, const struct added *added, size_t n_added)
{
	const uint8_t *p = (const uint8_t *)b->data, *end = p;
	size_t n_metrics = 0;

	if (!p)
		return 0; /* nothing encoded */
	end += b->len;

	while (p < end) {
		uint64_t len = 0;
		unsigned shift = 0;
		pb_family *f;

		do {
			FUZZ_CHECK(p < end && shift < 64);
			len |= (uint64_t)(*p & 0x7f) << shift;
			shift += 7;
		} while (*p++ & 0x80);
		FUZZ_CHECK(len <= (uint64_t)(end - p));
		f = io__prometheus__client__metric_family__unpack(NULL, len, p);
		FUZZ_CHECK(f && f->name && f->n_metric > 0);
		for (size_t i = 0; i < f->n_metric; i++)
			check_metric(f, f->metric[i], added, n_added);
		n_metrics += f->n_metric;
		io__prometheus__client__metric_family__free_unpacked(f, NULL);
		p += len;
	}
	return n_metrics;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	struct added added[MAX_OPS];
	struct metric_sink *s = metric_sink_new();
	struct buf b = BUF_INIT;
	size_t n = 0;
	int r;

	if (!s)
		return 0;
	while (n < MAX_OPS && (r = add_one(s, &in, &added[n])) >= 0)
		n += (size_t)r;
	FUZZ_CHECK(metric_sink_samples(s) == n);
	FUZZ_CHECK(expo_proto_render(s, &b) == 0);
	FUZZ_CHECK(check_bytes(&b, added, n) == n);
	buf_free(&b);
	metric_sink_free(s);
	return 0;
}
