// SPDX-License-Identifier: Apache-2.0
#include "exposition/expo_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.pb-c.h"

typedef Io__Prometheus__Client__MetricFamily pb_family;
typedef Io__Prometheus__Client__Metric pb_metric;
typedef Io__Prometheus__Client__LabelPair pb_label;
typedef Io__Prometheus__Client__Histogram pb_histogram;
typedef Io__Prometheus__Client__Bucket pb_bucket;
typedef Io__Prometheus__Client__BucketSpan pb_span;

/*
 * The message tree of one family lives in a scratch arena, emptied after the
 * family is packed: a family of 10,000 series is 10,000 small structs.
 */
struct scratch_chunk {
	struct scratch_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct enc {
	struct buf *out;
	struct scratch_chunk *chunks;
	struct buf name, value; /* label pair being read */
};

static void *scratch_alloc(struct enc *e, size_t n)
{
	struct scratch_chunk *c = e->chunks;
	size_t align = sizeof(max_align_t);
	void *p;

	n = (n + align - 1) / align * align;
	if (!c || c->size - c->used < n) {
		size_t size = n > 32 * 1024 ? n : 32 * 1024;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = e->chunks;
		e->chunks = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static void scratch_free(struct enc *e)
{
	struct scratch_chunk *c, *next;

	for (c = e->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	e->chunks = NULL;
}

static char *scratch_strdup(struct enc *e, const struct buf *b)
{
	char *p = scratch_alloc(e, b->len + 1);

	if (p) {
		memcpy(p, b->data ? b->data : "", b->len);
		p[b->len] = '\0';
	}
	return p;
}

size_t expo_native_spans(int32_t first_index, const uint64_t *counts, size_t n,
			 struct expo_span *spans, int64_t *deltas, size_t *n_deltas)
{
	size_t n_spans = 0, nd = 0, last = 0;
	uint64_t prev = 0;
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (!counts[i])
			continue;
		if (!any) {
			spans[n_spans++] = (struct expo_span){first_index + (int32_t)i, 1};
		} else if (i - last - 1 <= 2) {
			/* a short gap: its empty buckets as zero deltas */
			for (size_t k = last + 1; k < i; k++) {
				deltas[nd++] = (int64_t)(0 - prev);
				prev = 0;
			}
			spans[n_spans - 1].length += (uint32_t)(i - last);
		} else {
			spans[n_spans++] = (struct expo_span){(int32_t)(i - last - 1), 1};
		}
		/* in uint64_t, as the reader adds it back: no overflow past 2^63 */
		deltas[nd++] = (int64_t)(counts[i] - prev);
		prev = counts[i];
		last = i;
		any = true;
	}
	*n_deltas = nd;
	return n_spans;
}

static int set_classic(struct enc *e, pb_histogram *ph, const struct metric_histogram_view *h)
{
	pb_bucket *b = scratch_alloc(e, h->n_bounds * sizeof(*b) + 1);

	ph->bucket = scratch_alloc(e, h->n_bounds * sizeof(*ph->bucket) + 1);
	if (!b || !ph->bucket)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_bounds; i++) {
		io__prometheus__client__bucket__init(&b[i]);
		b[i].has_cumulative_count = b[i].has_upper_bound = 1;
		b[i].cumulative_count = h->cum[i];
		b[i].upper_bound = h->bounds[i];
		ph->bucket[i] = &b[i];
	}
	ph->n_bucket = h->n_bounds;
	return 0;
}

static int set_native(struct enc *e, pb_histogram *ph, const struct metric_histogram_view *h)
{
	size_t n = h->n_buckets ? h->n_buckets : 1, n_spans, nd;
	struct expo_span *spans = scratch_alloc(e, n * sizeof(*spans));
	pb_span *ps = scratch_alloc(e, n * sizeof(*ps));

	ph->positive_span = scratch_alloc(e, n * sizeof(*ph->positive_span));
	ph->positive_delta = scratch_alloc(e, n * sizeof(*ph->positive_delta));
	if (!spans || !ps || !ph->positive_span || !ph->positive_delta)
		return -ENOMEM;
	ph->has_schema = ph->has_zero_threshold = ph->has_zero_count = 1;
	ph->schema = h->schema;
	ph->zero_threshold = h->zero_threshold;
	ph->zero_count = h->zero_count;
	n_spans = expo_native_spans(h->first_index, h->buckets, h->n_buckets, spans,
				    ph->positive_delta, &nd);
	/* No populated bucket: a no-op span, which marks the histogram native
	 * even to a reader that does not look at the zero threshold. */
	if (!n_spans)
		spans[n_spans++] = (struct expo_span){0, 0};
	for (size_t i = 0; i < n_spans; i++) {
		io__prometheus__client__bucket_span__init(&ps[i]);
		ps[i].has_offset = ps[i].has_length = 1;
		ps[i].offset = spans[i].offset;
		ps[i].length = spans[i].length;
		ph->positive_span[i] = &ps[i];
	}
	ph->n_positive_span = n_spans;
	ph->n_positive_delta = nd;
	return 0;
}

static int set_histogram(struct enc *e, pb_metric *m, const struct metric_histogram_view *h)
{
	pb_histogram *ph = scratch_alloc(e, sizeof(*ph));

	if (!ph)
		return -ENOMEM;
	io__prometheus__client__histogram__init(ph);
	ph->has_sample_count = ph->has_sample_sum = 1;
	ph->sample_count = h->count;
	ph->sample_sum = h->sum;
	m->histogram = ph;
	if (set_classic(e, ph, h) < 0)
		return -ENOMEM;
	return h->native ? set_native(e, ph, h) : 0;
}

static int set_value(struct enc *e, pb_metric *m, enum metric_type type,
		     const struct metric_sample_view *v)
{
	double d = v->is_u64 ? (double)v->u : v->d;

	if (type == METRIC_COUNTER) {
		m->counter = scratch_alloc(e, sizeof(*m->counter));
		if (!m->counter)
			return -ENOMEM;
		io__prometheus__client__counter__init(m->counter);
		m->counter->has_value = 1;
		m->counter->value = d;
	} else if (type == METRIC_GAUGE) {
		m->gauge = scratch_alloc(e, sizeof(*m->gauge));
		if (!m->gauge)
			return -ENOMEM;
		io__prometheus__client__gauge__init(m->gauge);
		m->gauge->has_value = 1;
		m->gauge->value = d;
	} else {
		m->untyped = scratch_alloc(e, sizeof(*m->untyped));
		if (!m->untyped)
			return -ENOMEM;
		io__prometheus__client__untyped__init(m->untyped);
		m->untyped->has_value = 1;
		m->untyped->value = d;
	}
	return 0;
}

static int set_labels(struct enc *e, pb_metric *m, const char *labels)
{
	pb_label *pairs[METRIC_MAX_LABELS];
	size_t n = 0;
	int r;

	while ((r = metric_labels_next(&labels, &e->name, &e->value)) > 0) {
		pb_label *l = scratch_alloc(e, sizeof(*l));

		if (n == METRIC_MAX_LABELS)
			return -EINVAL;
		if (!l)
			return -ENOMEM;
		io__prometheus__client__label_pair__init(l);
		l->name = scratch_strdup(e, &e->name);
		l->value = scratch_strdup(e, &e->value);
		if (!l->name || !l->value)
			return -ENOMEM;
		pairs[n++] = l;
	}
	if (r < 0)
		return r;
	m->label = scratch_alloc(e, n * sizeof(*m->label) + 1);
	if (!m->label)
		return -ENOMEM;
	memcpy(m->label, pairs, n * sizeof(*pairs));
	m->n_label = n;
	return 0;
}

static int set_metric(struct enc *e, pb_metric *m, enum metric_type type,
		      const struct metric_sample_view *v)
{
	int r;

	io__prometheus__client__metric__init(m);
	r = set_labels(e, m, v->labels);
	if (r < 0)
		return r;
	if (type == METRIC_HISTOGRAM)
		return set_histogram(e, m, v->h);
	return set_value(e, m, type, v);
}

static Io__Prometheus__Client__MetricType pb_type(enum metric_type t)
{
	switch (t) {
	case METRIC_COUNTER:
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__COUNTER;
	case METRIC_GAUGE:
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE;
	case METRIC_HISTOGRAM:
		return IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM;
	case METRIC_UNTYPED:
		break;
	}
	return IO__PROMETHEUS__CLIENT__METRIC_TYPE__UNTYPED;
}

/* The varint length prefix of the delimited format, then the message. */
static int pack_delimited(struct buf *out, const pb_family *mf)
{
	size_t size = io__prometheus__client__metric_family__get_packed_size(mf);
	uint8_t len[10];
	size_t n = 0;

	for (uint64_t v = size; n == 0 || v; v >>= 7)
		len[n++] = (uint8_t)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
	if (buf_append(out, len, n) < 0 || buf_reserve(out, size) < 0)
		return -ENOMEM;
	out->len +=
		io__prometheus__client__metric_family__pack(mf, (uint8_t *)out->data + out->len);
	out->data[out->len] = '\0';
	return 0;
}

static int encode_family(void *ctx, const struct metric_family_view *f,
			 const struct metric_sample_view *samples)
{
	struct enc *e = ctx;
	pb_family mf = IO__PROMETHEUS__CLIENT__METRIC_FAMILY__INIT;
	pb_metric *metrics = scratch_alloc(e, f->n_samples * sizeof(*metrics));
	int r = 0;

	mf.metric = scratch_alloc(e, f->n_samples * sizeof(*mf.metric));
	if (!metrics || !mf.metric) {
		scratch_free(e);
		return -ENOMEM;
	}
	/* pack only reads them */
	mf.name = (char *)(uintptr_t)f->name;
	mf.help = (char *)(uintptr_t)f->help;
	mf.has_type = 1;
	mf.type = pb_type(f->type);
	for (size_t i = 0; i < f->n_samples && r >= 0; i++) {
		r = set_metric(e, &metrics[i], f->type, &samples[i]);
		mf.metric[i] = &metrics[i];
	}
	mf.n_metric = f->n_samples;
	if (r >= 0)
		r = pack_delimited(e->out, &mf);
	scratch_free(e);
	return r;
}

int expo_proto_render(const struct metric_sink *s, struct buf *out)
{
	struct enc e = {.out = out};
	int r = metric_sink_visit(s, encode_family, &e);

	buf_free(&e.name);
	buf_free(&e.value);
	scratch_free(&e);
	if (r == 0 && buf_failed(out))
		r = -ENOMEM;
	return r;
}
