/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Prometheus protobuf exposition: every family of a metric sink as
 * length-delimited io.prometheus.client.MetricFamily messages (a varint
 * length, then the message; proto/metrics.proto), the format a scraper asks
 * for with EXPO_PROTO_CONTENT_TYPE in its Accept header. It is the only format
 * that carries native histograms: a histogram from an accumulator
 * (metric_sink_add_histogram_from()) goes out with both its classic buckets and
 * its native ones (schema, zero threshold and count, positive spans and
 * deltas); one added with metric_sink_add_histogram() has classic buckets only.
 *
 * Pure: a sink in, bytes out; no I/O, no logging. Counter, gauge and untyped
 * values are doubles on the wire, so an integer above 2^53 is rounded, as in
 * every protobuf exposition.
 */
#ifndef RDMA_EXPORTER_EXPO_PROTO_H
#define RDMA_EXPORTER_EXPO_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "exposition/metrics.h"

#define EXPO_PROTO_CONTENT_TYPE                                                                    \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "               \
	"encoding=delimited"

/* Appends every family of s to out. 0, -ENOMEM, or -EINVAL (a sink label set
 * that does not parse, which would be a bug). */
int expo_proto_render(const struct metric_sink *s, struct buf *out);

/*
 * Native buckets as spans and deltas: counts[0..n) are the absolute counts of
 * the consecutive buckets first_index, first_index + 1, ... Empty buckets
 * start a new span when more than two of them lie between two populated ones
 * (fewer are cheaper as zero deltas, as Prometheus's Go client does).
 * Writes at most n spans (offset, length) and n deltas; returns the number of
 * spans and sets *n_deltas. Pure, for tests.
 */
struct expo_span {
	int32_t offset;
	uint32_t length;
};
size_t expo_native_spans(int32_t first_index, const uint64_t *counts, size_t n,
			 struct expo_span *spans, int64_t *deltas, size_t *n_deltas);

#endif
