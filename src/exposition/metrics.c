// SPDX-License-Identifier: Apache-2.0
/* The metric sink: families and samples gathered in an arena, merged, rendered as text and visited.
 */
#include "exposition/metrics.h"
#include "exposition/histogram.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Strings and samples live in a chunked arena owned by the sink: a poll adds
 * thousands of small objects and frees them all at once.
 */
#define ARENA_CHUNK (64 * 1024)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	max_align_t data[];
};

/*
 * A histogram label set is a struct metric_histogram_view (metrics.h): bounds
 * ascending, counts cumulative, native buckets, all in the arena.
 */

/* What metric_sink_add_histogram() was given, validated, counts per bucket. */
struct hist_in {
	const double *bounds;
	const uint64_t *counts;
	size_t n_bounds;
	uint64_t count;
	double sum;
	const struct histogram *native; /* NULL: classic only */
	bool proto_only;		/* not in the text exposition */
};

struct sample {
	struct sample *next; /* next sample of the same family, insertion order */
	struct family *family;
	const char *labels; /* rendered "{a=\"b\"}" or "" */
	uint64_t hash;
	uint32_t labels_len; /* strlen(labels), for rendering */
	bool is_u64;
	bool proto_only; /* metric_sink_add_histogram_proto_from(), metric_sink_proto_only() */
	union {
		uint64_t u;
		double d;
		const struct metric_histogram_view *h; /* family of type METRIC_HISTOGRAM */
	} v;
};

struct family {
	const char *name;
	const char *help;
	enum metric_type type;
	uint64_t hash;
	struct sample *head, *tail;
	size_t n_samples;
};

struct metric_sink {
	struct arena_chunk *chunks;
	void **fam_index; /* struct family *, open addressing, cap fam_cap (power of 2) */
	size_t fam_cap, fam_len;
	struct family **fams; /* insertion order, for rendering */
	size_t fams_cap;
	void **smp_index; /* struct sample *, open addressing set */
	size_t smp_cap, smp_len;
	struct buf scratch;
	uint64_t errors;
	bool proto_only; /* metric_sink_proto_only(): what is added now is not in the text */
};

static void *arena_alloc(struct metric_sink *s, size_t n)
{
	struct arena_chunk *c = s->chunks;
	size_t align = sizeof(max_align_t);
	void *p;

	n = (n + align - 1) / align * align;
	if (!c || c->size - c->used < n) {
		size_t size = n > ARENA_CHUNK ? n : ARENA_CHUNK;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = s->chunks;
		s->chunks = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

static char *arena_strndup(struct metric_sink *s, const char *str, size_t len)
{
	char *p = arena_alloc(s, len + 1);

	if (!p)
		return NULL;
	memcpy(p, str, len);
	p[len] = '\0';
	return p;
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ULL

struct metric_sink *metric_sink_new(void)
{
	return calloc(1, sizeof(struct metric_sink));
}

void metric_sink_free(struct metric_sink *s)
{
	struct arena_chunk *c, *next;

	if (!s)
		return;
	for (c = s->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s->fam_index);
	free(s->fams);
	free(s->smp_index);
	buf_free(&s->scratch);
	free(s);
}

uint64_t metric_sink_errors(const struct metric_sink *s)
{
	return s->errors;
}

size_t metric_sink_samples(const struct metric_sink *s)
{
	return s->smp_len;
}

static int grow_index(void ***index, size_t *cap, size_t len, uint64_t (*hash_of)(const void *))
{
	size_t ncap = *cap ? *cap * 2 : 64;
	void **n;

	if (len + 1 <= *cap / 2)
		return 0;
	n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < *cap; i++) {
		void *e = (*index)[i];
		size_t j;

		if (!e)
			continue;
		for (j = hash_of(e) & (ncap - 1); n[j]; j = (j + 1) & (ncap - 1))
			;
		n[j] = e;
	}
	free(*index);
	*index = n;
	*cap = ncap;
	return 0;
}

static uint64_t family_hash(const void *f)
{
	return ((const struct family *)f)->hash;
}

static uint64_t sample_hash(const void *smp)
{
	return ((const struct sample *)smp)->hash;
}

static const char *type_name(enum metric_type t)
{
	switch (t) {
	case METRIC_COUNTER:
		return "counter";
	case METRIC_GAUGE:
		return "gauge";
	case METRIC_HISTOGRAM:
		return "histogram";
	case METRIC_UNTYPED:
		break;
	}
	return "untyped";
}

static struct family *find_family(const struct metric_sink *s, const char *name, uint64_t h)
{
	struct family *f;

	if (!s->fam_cap)
		return NULL;
	for (size_t i = h & (s->fam_cap - 1); (f = s->fam_index[i]); i = (i + 1) & (s->fam_cap - 1))
		if (f->hash == h && strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

static struct sample *find_sample(const struct metric_sink *s, const struct family *f,
				  const char *labels, uint64_t h)
{
	struct sample *e;

	if (!s->smp_cap)
		return NULL;
	for (size_t i = h & (s->smp_cap - 1); (e = s->smp_index[i]); i = (i + 1) & (s->smp_cap - 1))
		if (e->hash == h && e->family == f && strcmp(e->labels, labels) == 0)
			return e;
	return NULL;
}

static int get_family(struct metric_sink *s, const char *name, const char *help,
		      enum metric_type type, struct family **out)
{
	uint64_t h = fnv1a(name, FNV_OFFSET);
	struct family *f;
	size_t i;

	f = find_family(s, name, h);
	if (f) {
		if (f->type != type)
			return -EPROTO;
		*out = f;
		return 0;
	}
	/* Validated once, when the family is made: every later sample finds it. */
	if (!metric_name_valid(name))
		return -EINVAL;
	if (grow_index(&s->fam_index, &s->fam_cap, s->fam_len, family_hash) < 0)
		return -ENOMEM;
	if (s->fam_len == s->fams_cap) {
		size_t ncap = s->fams_cap ? s->fams_cap * 2 : 64;
		struct family **n = realloc(s->fams, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->fams = n;
		s->fams_cap = ncap;
	}
	f = arena_alloc(s, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->name = arena_strndup(s, name, strlen(name));
	f->help = arena_strndup(s, help ? help : "", help ? strlen(help) : 0);
	if (!f->name || !f->help)
		return -ENOMEM;
	f->type = type;
	f->hash = h;
	f->head = f->tail = NULL;
	f->n_samples = 0;
	for (i = h & (s->fam_cap - 1); s->fam_index[i]; i = (i + 1) & (s->fam_cap - 1))
		;
	s->fam_index[i] = f;
	s->fams[s->fam_len++] = f;
	*out = f;
	return 0;
}

static int render_labels(struct buf *b, const struct metric_label *labels, size_t n)
{
	buf_reset(b);
	if (n > METRIC_MAX_LABELS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!metric_label_name_valid(labels[i].name))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (strcmp(labels[i].name, labels[j].name) == 0)
				return -EINVAL;
		buf_puts(b, i ? "," : "{");
		buf_puts(b, labels[i].name);
		buf_puts(b, "=\"");
		metric_escape_label_value(b, labels[i].value ? labels[i].value : "");
		buf_putc(b, '"');
	}
	if (n)
		buf_putc(b, '}');
	if (!b->data)
		buf_puts(b, "");
	return buf_failed(b) ? -ENOMEM : 0;
}

/* Keeps the populated index range of the native buckets, trimmed of empty ends. */
static int copy_native(struct metric_sink *s, struct metric_histogram_view *h,
		       const struct histogram *src)
{
	size_t lo = 0, hi = HISTOGRAM_NATIVE_N_BUCKETS;
	uint64_t *b;

	while (lo < hi && !src->native[lo])
		lo++;
	while (hi > lo && !src->native[hi - 1])
		hi--;
	h->native = true;
	h->schema = HISTOGRAM_NATIVE_SCHEMA;
	h->zero_threshold = HISTOGRAM_NATIVE_ZERO_THRESHOLD;
	h->zero_count = src->zero_count;
	h->first_index = (int32_t)lo + HISTOGRAM_NATIVE_MIN_INDEX;
	h->n_buckets = hi - lo;
	if (!h->n_buckets)
		return 0;
	b = arena_alloc(s, h->n_buckets * sizeof(*b));
	if (!b)
		return -ENOMEM;
	memcpy(b, src->native + lo, h->n_buckets * sizeof(*b));
	h->buckets = b;
	return 0;
}

/*
 * Copies a validated histogram into the arena. Label sets of one family
 * usually share one layout, so the bounds of the previous label set are
 * reused when they are the same.
 */
static const struct metric_histogram_view *copy_hist(struct metric_sink *s, const struct family *f,
						     const struct hist_in *in)
{
	const struct metric_histogram_view *prev = f->tail ? f->tail->v.h : NULL;
	size_t n = in->n_bounds;
	struct metric_histogram_view *h;
	uint64_t *cum = NULL, acc = 0;

	h = arena_alloc(s, sizeof(*h));
	if (!h)
		return NULL;
	memset(h, 0, sizeof(*h));
	if (n && prev && prev->n_bounds == n &&
	    memcmp(prev->bounds, in->bounds, n * sizeof(*in->bounds)) == 0) {
		h->bounds = prev->bounds;
	} else if (n) {
		double *b = arena_alloc(s, n * sizeof(*b));

		if (!b)
			return NULL;
		memcpy(b, in->bounds, n * sizeof(*b));
		h->bounds = b;
	}
	if (n) {
		cum = arena_alloc(s, n * sizeof(*cum));
		if (!cum)
			return NULL;
		for (size_t i = 0; i < n; i++)
			cum[i] = acc += in->counts[i];
	}
	h->cum = cum;
	h->n_bounds = n;
	h->count = in->count;
	h->sum = in->sum;
	h->native = false;
	h->n_buckets = 0;
	h->buckets = NULL;
	if (in->native && copy_native(s, h, in->native) < 0)
		return NULL;
	return h;
}

static void index_put(void **index, size_t cap, void *e, uint64_t h)
{
	size_t i;

	for (i = h & (cap - 1); index[i]; i = (i + 1) & (cap - 1))
		;
	index[i] = e;
}

/* Links smp at the end of dst's family f and into dst's sample set. */
static void adopt_sample(struct metric_sink *dst, struct family *f, struct sample *smp)
{
	smp->next = NULL;
	smp->family = f;
	index_put(dst->smp_index, dst->smp_cap, smp, smp->hash);
	dst->smp_len++;
	if (f->tail)
		f->tail->next = smp;
	else
		f->head = smp;
	f->tail = smp;
	f->n_samples++;
}

/* One sample whose labels are rendered already (text, len bytes, NUL-terminated). */
static int add_sample_rendered(struct metric_sink *s, const char *family, const char *help,
			       enum metric_type type, const char *text, size_t len, bool is_u64,
			       uint64_t u, double d, const struct hist_in *hist)
{
	struct family *f;
	struct sample *smp;
	uint64_t h;
	int r;

	r = get_family(s, family, help, type, &f);
	if (r < 0)
		goto err;

	h = fnv1a(text, f->hash);
	if (find_sample(s, f, text, h)) {
		r = -EEXIST;
		goto err;
	}
	if (grow_index(&s->smp_index, &s->smp_cap, s->smp_len, sample_hash) < 0) {
		r = -ENOMEM;
		goto err;
	}
	smp = arena_alloc(s, sizeof(*smp));
	if (!smp) {
		r = -ENOMEM;
		goto err;
	}
	smp->labels = arena_strndup(s, text, len);
	if (!smp->labels) {
		r = -ENOMEM;
		goto err;
	}
	smp->hash = h;
	smp->labels_len = (uint32_t)len;
	smp->is_u64 = is_u64;
	smp->proto_only = s->proto_only || (hist && hist->proto_only);
	if (hist) {
		smp->v.h = copy_hist(s, f, hist);
		if (!smp->v.h) {
			r = -ENOMEM;
			goto err;
		}
	} else if (is_u64) {
		smp->v.u = u;
	} else {
		smp->v.d = d;
	}
	adopt_sample(s, f, smp);
	return 0;
err:
	s->errors++;
	return r;
}

static int add_sample(struct metric_sink *s, const char *family, const char *help,
		      enum metric_type type, const struct metric_label *labels, size_t n_labels,
		      bool is_u64, uint64_t u, double d, const struct hist_in *hist)
{
	int r = render_labels(&s->scratch, labels, n_labels);

	if (r < 0) {
		s->errors++;
		return r;
	}
	return add_sample_rendered(s, family, help, type, s->scratch.data, s->scratch.len, is_u64,
				   u, d, hist);
}

int metric_labels_render(const struct metric_label *labels, size_t n_labels, char **out)
{
	struct buf b = BUF_INIT;
	size_t len;
	int r = render_labels(&b, labels, n_labels);

	if (r < 0) {
		buf_free(&b);
		return r;
	}
	*out = buf_steal(&b, &len);
	return *out ? 0 : -ENOMEM;
}

int metric_sink_add_u64_rendered(struct metric_sink *s, const char *family, const char *help,
				 enum metric_type type, const char *labels, uint64_t value)
{
	if (type == METRIC_HISTOGRAM) {
		s->errors++;
		return -EINVAL;
	}
	return add_sample_rendered(s, family, help, type, labels, strlen(labels), true, value, 0,
				   NULL);
}

bool metric_sink_has(struct metric_sink *s, const char *family, const struct metric_label *labels,
		     size_t n_labels)
{
	struct family *f = find_family(s, family, fnv1a(family, FNV_OFFSET));

	if (!f || render_labels(&s->scratch, labels, n_labels) < 0)
		return false;
	return find_sample(s, f, s->scratch.data, fnv1a(s->scratch.data, f->hash)) != NULL;
}

/* Grows an index until it holds len entries at most half full. */
static int reserve_index(void ***index, size_t *cap, size_t len, uint64_t (*hash_of)(const void *))
{
	while (len > *cap / 2)
		if (grow_index(index, cap, *cap / 2, hash_of) < 0)
			return -ENOMEM;
	return 0;
}

int metric_sink_absorb(struct metric_sink *dst, struct metric_sink *src)
{
	struct arena_chunk *last;

	/* Every allocation first: past this point nothing can fail. */
	if (reserve_index(&dst->fam_index, &dst->fam_cap, dst->fam_len + src->fam_len + 1,
			  family_hash) < 0 ||
	    reserve_index(&dst->smp_index, &dst->smp_cap, dst->smp_len + src->smp_len + 1,
			  sample_hash) < 0)
		return -ENOMEM;
	if (dst->fam_len + src->fam_len > dst->fams_cap) {
		size_t ncap = dst->fam_len + src->fam_len;
		struct family **n = realloc(dst->fams, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		dst->fams = n;
		dst->fams_cap = ncap;
	}
	/* src's strings and samples now live in dst's arena; dst keeps
	 * allocating from its own current chunk. */
	if (src->chunks) {
		for (last = src->chunks; last->next; last = last->next)
			;
		if (dst->chunks) {
			last->next = dst->chunks->next;
			dst->chunks->next = src->chunks;
		} else {
			dst->chunks = src->chunks;
		}
		src->chunks = NULL;
	}
	for (size_t i = 0; i < src->fam_len; i++) {
		struct family *sf = src->fams[i], *df = find_family(dst, sf->name, sf->hash);
		struct sample *smp = sf->head, *next;
		/* A family new to dst brings samples src already told apart:
		 * none can be a duplicate, and the look-up is skipped (most
		 * families: each collector writes its own). */
		bool fresh = !df;

		if (!df) {
			df = sf;
			df->head = df->tail = NULL;
			df->n_samples = 0;
			index_put(dst->fam_index, dst->fam_cap, df, df->hash);
			dst->fams[dst->fam_len++] = df;
		} else if (df->type != sf->type) {
			dst->errors += sf->n_samples; /* as adding them would have */
			continue;
		}
		for (; smp; smp = next) {
			next = smp->next;
			if (!fresh && find_sample(dst, df, smp->labels, smp->hash))
				dst->errors++;
			else
				adopt_sample(dst, df, smp);
		}
	}
	dst->errors += src->errors;
	free(src->fam_index);
	free(src->fams);
	free(src->smp_index);
	src->fam_index = NULL;
	src->fams = NULL;
	src->smp_index = NULL;
	src->fam_cap = src->fam_len = src->fams_cap = src->smp_cap = src->smp_len = 0;
	src->errors = 0;
	return 0;
}

int metric_sink_add_u64(struct metric_sink *s, const char *family, const char *help,
			enum metric_type type, const struct metric_label *labels, size_t n_labels,
			uint64_t value)
{
	if (type == METRIC_HISTOGRAM) {
		s->errors++;
		return -EINVAL;
	}
	return add_sample(s, family, help, type, labels, n_labels, true, value, 0, NULL);
}

int metric_sink_add_double(struct metric_sink *s, const char *family, const char *help,
			   enum metric_type type, const struct metric_label *labels,
			   size_t n_labels, double value)
{
	if (type == METRIC_HISTOGRAM) {
		s->errors++;
		return -EINVAL;
	}
	return add_sample(s, family, help, type, labels, n_labels, false, 0, value, NULL);
}

/* Everything about a histogram that the label and family checks do not cover. */
static int hist_valid(const struct metric_label *labels, size_t n_labels, const struct hist_in *in)
{
	uint64_t acc = 0;

	/* le is the bucket label the writer adds */
	for (size_t i = 0; i < n_labels; i++)
		if (labels[i].name && strcmp(labels[i].name, "le") == 0)
			return -EINVAL;
	if (in->n_bounds && (!in->bounds || !in->counts))
		return -EINVAL;
	if (in->n_bounds > SIZE_MAX / sizeof(uint64_t) / 2)
		return -EINVAL;
	if (!histogram_bounds_valid(in->bounds, in->n_bounds))
		return -EINVAL;
	/* Cumulative counts must not pass count (nor wrap on the way). */
	for (size_t i = 0; i < in->n_bounds; i++) {
		if (in->counts[i] > in->count - acc)
			return -EINVAL;
		acc += in->counts[i];
	}
	return 0;
}

int metric_sink_add_histogram(struct metric_sink *s, const char *family, const char *help,
			      const struct metric_label *labels, size_t n_labels,
			      const double *upper_bounds, size_t n_bounds,
			      const uint64_t *bucket_counts, uint64_t count, double sum)
{
	const struct hist_in in = {
		.bounds = upper_bounds,
		.counts = bucket_counts,
		.n_bounds = n_bounds,
		.count = count,
		.sum = sum,
	};
	int r = hist_valid(labels, n_labels, &in);

	if (r < 0) {
		s->errors++;
		return r;
	}
	return add_sample(s, family, help, METRIC_HISTOGRAM, labels, n_labels, false, 0, 0, &in);
}

static int add_histogram_from(struct metric_sink *s, const char *family, const char *help,
			      const struct metric_label *labels, size_t n_labels,
			      const struct histogram *h, bool classic, bool proto_only)
{
	/* counts[n_bounds], the +Inf bucket, is implied by count */
	const struct hist_in in = {
		.bounds = classic ? h->bounds : NULL,
		.counts = classic ? h->counts : NULL,
		.n_bounds = classic ? h->n_bounds : 0,
		.count = h->count,
		.sum = h->sum,
		.native = h->native ? h : NULL,
		.proto_only = proto_only,
	};
	int r = hist_valid(labels, n_labels, &in);

	if (r < 0) {
		s->errors++;
		return r;
	}
	return add_sample(s, family, help, METRIC_HISTOGRAM, labels, n_labels, false, 0, 0, &in);
}

int metric_sink_add_histogram_from(struct metric_sink *s, const char *family, const char *help,
				   const struct metric_label *labels, size_t n_labels,
				   const struct histogram *h)
{
	return add_histogram_from(s, family, help, labels, n_labels, h, true, false);
}

int metric_sink_add_histogram_native_from(struct metric_sink *s, const char *family,
					  const char *help, const struct metric_label *labels,
					  size_t n_labels, const struct histogram *h)
{
	return add_histogram_from(s, family, help, labels, n_labels, h, false, false);
}

int metric_sink_add_histogram_proto_from(struct metric_sink *s, const char *family,
					 const char *help, const struct metric_label *labels,
					 size_t n_labels, const struct histogram *h)
{
	return add_histogram_from(s, family, help, labels, n_labels, h, false, true);
}

void metric_sink_proto_only(struct metric_sink *s, bool on)
{
	s->proto_only = on;
}

/* Whether the text exposition has a sample of f. */
static bool family_in_text(const struct family *f)
{
	for (const struct sample *smp = f->head; smp; smp = smp->next)
		if (!smp->proto_only)
			return true;
	return false;
}

static int cmp_family(const void *a, const void *b)
{
	const struct family *fa = *(struct family *const *)a;
	const struct family *fb = *(struct family *const *)b;

	return strcmp(fa->name, fb->name);
}

/* NAME_bucket{labels...,le="bound"}: labels is "" or "{...}" as rendered. */
static void put_bucket(struct buf *out, const char *name, const char *labels, size_t labels_len)
{
	buf_puts(out, name);
	buf_puts(out, "_bucket");
	if (labels_len) {
		buf_append(out, labels, labels_len - 1); /* without the closing brace */
		buf_puts(out, ",le=\"");
	} else {
		buf_puts(out, "{le=\"");
	}
}

static void render_histogram(struct buf *out, const char *name, const struct sample *smp)
{
	const struct metric_histogram_view *h = smp->v.h;
	size_t labels_len = strlen(smp->labels);

	/*
	 * le in the shortest form that reads back as the same double, as the
	 * Go and Python client libraries print it ("1e-06", "0.00015", "1").
	 */
	for (size_t i = 0; i < h->n_bounds; i++) {
		put_bucket(out, name, smp->labels, labels_len);
		metric_format_double(out, h->bounds[i]);
		buf_printf(out, "\"} %llu\n", (unsigned long long)h->cum[i]);
	}
	put_bucket(out, name, smp->labels, labels_len);
	buf_printf(out, "+Inf\"} %llu\n", (unsigned long long)h->count);
	buf_printf(out, "%s_sum%s ", name, smp->labels);
	metric_format_double(out, h->sum);
	buf_printf(out, "\n%s_count%s %llu\n", name, smp->labels, (unsigned long long)h->count);
}

/* The families in exposition order (by name), malloc'ed; NULL without families or memory. */
static struct family **sorted_families(const struct metric_sink *s)
{
	struct family **sorted;

	if (!s->fam_len)
		return NULL;
	sorted = malloc(s->fam_len * sizeof(*sorted));
	if (!sorted)
		return NULL;
	memcpy(sorted, s->fams, s->fam_len * sizeof(*sorted));
	qsort(sorted, s->fam_len, sizeof(*sorted), cmp_family);
	return sorted;
}

int metric_sink_render(const struct metric_sink *s, struct buf *out)
{
	struct family **sorted;

	if (!s->fam_len)
		return 0;
	sorted = sorted_families(s);
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < s->fam_len; i++) {
		const struct family *f = sorted[i];
		size_t name_len;

		/* left behind only by an add that ran out of memory; or protobuf only */
		if (!f->head || !family_in_text(f))
			continue;
		buf_printf(out, "# HELP %s ", f->name);
		metric_escape_help(out, f->help);
		buf_printf(out, "\n# TYPE %s %s\n", f->name, type_name(f->type));
		name_len = strlen(f->name);
		for (const struct sample *smp = f->head; smp; smp = smp->next) {
			if (smp->proto_only)
				continue;
			if (f->type == METRIC_HISTOGRAM) {
				render_histogram(out, f->name, smp);
				continue;
			}
			buf_append(out, f->name, name_len);
			buf_append(out, smp->labels, smp->labels_len);
			buf_putc(out, ' ');
			if (smp->is_u64)
				buf_put_u64(out, smp->v.u);
			else
				metric_format_double(out, smp->v.d);
			buf_putc(out, '\n');
		}
	}
	free(sorted);
	return buf_failed(out) ? -ENOMEM : 0;
}

static void view_sample(const struct family *f, const struct sample *smp,
			struct metric_sample_view *v)
{
	v->labels = smp->labels;
	v->is_u64 = smp->is_u64;
	v->proto_only = smp->proto_only;
	v->u = 0;
	v->d = 0;
	v->h = NULL;
	if (f->type == METRIC_HISTOGRAM)
		v->h = smp->v.h;
	else if (smp->is_u64)
		v->u = smp->v.u;
	else
		v->d = smp->v.d;
}

int metric_sink_visit(const struct metric_sink *s, metric_family_fn fn, void *ctx)
{
	struct metric_sample_view *views = NULL;
	struct family **sorted;
	size_t cap = 0;
	int r = 0;

	if (!s->fam_len)
		return 0;
	sorted = sorted_families(s);
	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < s->fam_len && r >= 0; i++) {
		const struct family *f = sorted[i];
		struct metric_family_view fv = {f->name, f->help, f->type, f->n_samples};
		size_t k = 0;

		if (!f->head)
			continue;
		if (f->n_samples > cap) {
			struct metric_sample_view *n = realloc(views, f->n_samples * sizeof(*n));

			if (!n) {
				r = -ENOMEM;
				break;
			}
			views = n;
			cap = f->n_samples;
		}
		for (const struct sample *smp = f->head; smp; smp = smp->next)
			view_sample(f, smp, &views[k++]);
		r = fn(ctx, &fv, views);
	}
	free(views);
	free(sorted);
	return r < 0 ? r : 0;
}
