/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Room exposition (src/exposition/): how samples become bytes. This sink and
 * the text writer, histograms, the protobuf encoder (expo_proto.h, from
 * proto/metrics.proto) and the published snapshots with their gzip copies
 * (snapshot.h). Uses base only; the collectors, HTTP and daemon use it.
 *
 * Metric sink and Prometheus text exposition writer (format 0.0.4).
 *
 * Collectors add samples in any order; the sink groups them by family so
 * that every family is rendered as one contiguous block with HELP and TYPE
 * first. Families are rendered sorted by name, samples in insertion order.
 * The sink owns copies of every string it is given.
 *
 * Integers are kept as uint64_t and printed exactly; they never pass
 * through a double.
 *
 * A histogram is one sample per label set that renders as the standard
 * series, together and in order: NAME_bucket{...,le="b"} for every finite
 * bound ascending (cumulative), NAME_bucket{...,le="+Inf"}, NAME_sum and
 * NAME_count. The sink does not check other families against those generated
 * names: a gauge called NAME_count or NAME_bucket next to histogram NAME
 * would produce a scrape Prometheus rejects, and avoiding that is the
 * caller's concern.
 */
#ifndef RDMA_EXPORTER_METRICS_H
#define RDMA_EXPORTER_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
/* names, escaping, numbers, label sets read back: the text format's rules */
#include "exposition/metric_text.h"

enum metric_type {
	METRIC_COUNTER,
	METRIC_GAUGE,
	METRIC_UNTYPED,
	METRIC_HISTOGRAM, /* only through metric_sink_add_histogram*() */
};

struct metric_label {
	const char *name;
	const char *value;
};

/* Expands to "array, count" for the label arguments of metric_sink_add_*(). */
#define METRIC_LABELS(...)                                                                         \
	((const struct metric_label[]){__VA_ARGS__}),                                              \
		(sizeof((const struct metric_label[]){__VA_ARGS__}) / sizeof(struct metric_label))
#define METRIC_NO_LABELS NULL, 0

struct metric_sink;

struct metric_sink *metric_sink_new(void);
void metric_sink_free(struct metric_sink *s);

/*
 * Add one sample. Returns 0, or
 *   -EINVAL  invalid metric or label name, too many labels, or METRIC_HISTOGRAM
 *   -EEXIST  a sample with the same family and label set was already added
 *   -EPROTO  the family exists with a different type
 *   -ENOMEM
 * Nothing is added on error; the error is also counted (metric_sink_errors()).
 * Label values may hold any bytes: invalid UTF-8 is replaced by U+FFFD and
 * \ " and newline are escaped.
 */
int metric_sink_add_u64(struct metric_sink *s, const char *family, const char *help,
			enum metric_type type, const struct metric_label *labels, size_t n_labels,
			uint64_t value);
int metric_sink_add_double(struct metric_sink *s, const char *family, const char *help,
			   enum metric_type type, const struct metric_label *labels,
			   size_t n_labels, double value);

/*
 * A label set rendered once, for a collector whose series come back poll
 * after poll with the same labels (a port's counters): the text is the
 * writer's own ("{a=\"b\"}", or "" without labels), validated and escaped as
 * metric_sink_add_u64() does, and *out is the caller's to free(). Rendering
 * the labels of every sample again was a third of the sysfs collector's CPU
 * a poll (docs/performance.md). 0, -EINVAL (as metric_sink_add_u64()) or
 * -ENOMEM.
 */
int metric_labels_render(const struct metric_label *labels, size_t n_labels, char **out);
/* As metric_sink_add_u64(), with labels from metric_labels_render(). */
int metric_sink_add_u64_rendered(struct metric_sink *s, const char *family, const char *help,
				 enum metric_type type, const char *labels, uint64_t value);

/*
 * Add one histogram series: the label set labels (which must not name "le")
 * with n_bounds finite upper bounds, per-bucket (not cumulative) counts
 * bucket_counts[0..n_bounds), the count of all observations (the +Inf bucket
 * included) and their sum. n_bounds may be 0 (only the +Inf bucket); the
 * arrays are copied. Returns 0, or
 *   -EINVAL  invalid family or label name, a label named "le", bounds not
 *            finite and strictly increasing, NULL arrays with n_bounds > 0,
 *            or finite bucket counts adding up to more than count
 *   -EEXIST  the family already has that label set
 *   -EPROTO  the family exists with another type
 *   -ENOMEM
 * Nothing is added on error; the error is counted. Label sets of one family
 * may use different bounds, though a family normally shares one layout.
 */
int metric_sink_add_histogram(struct metric_sink *s, const char *family, const char *help,
			      const struct metric_label *labels, size_t n_labels,
			      const double *upper_bounds, size_t n_bounds,
			      const uint64_t *bucket_counts, uint64_t count, double sum);

/*
 * The same for an accumulator (histogram.h): its bounds, counts, count and
 * sum, and its native buckets (schema, zero threshold and count, the counts
 * of the populated index range), which only the protobuf exposition carries.
 */
struct histogram;
int metric_sink_add_histogram_from(struct metric_sink *s, const char *family, const char *help,
				   const struct metric_label *labels, size_t n_labels,
				   const struct histogram *h);

/*
 * As metric_sink_add_histogram_from(), without the classic buckets: the text
 * exposition gets only the +Inf bucket, _sum and _count (still a valid
 * histogram, 3 series), the protobuf exposition the native buckets in full
 * and no classic ones. For per-pair histograms whose classic buckets would
 * cost more series than a fleet can keep, while a scraper that takes native
 * histograms still gets the whole distribution in one series.
 */
int metric_sink_add_histogram_native_from(struct metric_sink *s, const char *family,
					  const char *help, const struct metric_label *labels,
					  size_t n_labels, const struct histogram *h);

/*
 * As metric_sink_add_histogram_native_from(), for the protobuf exposition
 * only: the text exposition has no series of it at all (a family of only
 * such samples has no HELP or TYPE line there either). For per-pair detail
 * that costs one series as a native histogram and none in the text.
 */
int metric_sink_add_histogram_proto_from(struct metric_sink *s, const char *family,
					 const char *help, const struct metric_label *labels,
					 size_t n_labels, const struct histogram *h);

/*
 * While on, every sample added (of any kind, a histogram with its classic
 * buckets included) is for the protobuf exposition only, as those of
 * metric_sink_add_histogram_proto_from(): the text exposition, where each
 * bucket and each label set is a series of its own for a Prometheus without
 * native histograms, leaves them out (a family of only such samples has no
 * HELP or TYPE line there). For detail that a collector's flag brings back
 * to the text (issue 40's series budget). Off when the sink is made.
 */
void metric_sink_proto_only(struct metric_sink *s, bool on);

/*
 * Whether a sample of that family with that label set was added already; for
 * collectors that can see one value two ways and must export it once. Counts
 * no error.
 */
bool metric_sink_has(struct metric_sink *s, const char *family, const struct metric_label *labels,
		     size_t n_labels);

/*
 * Moves every sample of src into dst, as if added there: a sample whose
 * family and label set dst has already, or whose family dst has with another
 * type, is dropped and counted as an error of dst, like src's own errors.
 * Moves memory, copies nothing: the cost is a few pointer writes a sample.
 * src is left empty and reusable (free it as usual). 0, or -ENOMEM with
 * neither sink changed.
 */
int metric_sink_absorb(struct metric_sink *dst, struct metric_sink *src);

/* Number of samples rejected so far. */
uint64_t metric_sink_errors(const struct metric_sink *s);
/* Number of samples added; a histogram label set counts as one. */
size_t metric_sink_samples(const struct metric_sink *s);

/* Appends the exposition text of every family to out. 0 or -ENOMEM. */
int metric_sink_render(const struct metric_sink *s, struct buf *out);

/*
 * Read access for other exposition writers (expo_proto.c): the families in the
 * order metric_sink_render() writes them, each with its samples in insertion
 * order. Everything points into the sink and lives as long as it.
 */
struct metric_histogram_view {
	const double *bounds;
	const uint64_t *cum; /* cum[i]: observations <= bounds[i] */
	size_t n_bounds;
	uint64_t count; /* the +Inf bucket */
	double sum;
	/* native buckets, only from metric_sink_add_histogram_from() */
	bool native;
	int32_t schema;
	double zero_threshold;
	uint64_t zero_count;
	int32_t first_index;	 /* index of buckets[0] */
	const uint64_t *buckets; /* n_buckets absolute counts, index first_index.. */
	size_t n_buckets;	 /* 0 when every observation is in the zero bucket */
};

struct metric_sample_view {
	const char *labels; /* as rendered: "" or {a="b",...}, see metric_labels_next() */
	bool is_u64;
	uint64_t u;
	double d;
	const struct metric_histogram_view *h; /* METRIC_HISTOGRAM only */
	bool proto_only; /* metric_sink_add_histogram_proto_from(): not in the text */
};

struct metric_family_view {
	const char *name;
	const char *help; /* unescaped */
	enum metric_type type;
	size_t n_samples;
};

/*
 * Calls fn once per family that has samples (sorted by name, as rendered),
 * with its samples; stops at and returns the first negative return of fn.
 * 0, -ENOMEM, or fn's error.
 */
typedef int (*metric_family_fn)(void *ctx, const struct metric_family_view *f,
				const struct metric_sample_view *samples);
int metric_sink_visit(const struct metric_sink *s, metric_family_fn fn, void *ctx);

/* 4 of a probe series (device, port, target, reason) + 32 from a file_sd group,
 * with room to spare. */
#define METRIC_MAX_LABELS 40

#endif
