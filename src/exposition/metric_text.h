/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lexical rules of the Prometheus text format (0.0.4) that the sink
 * (metrics.h) writes by, and other writers and tests use: metric and label
 * names checked, label values and HELP text escaped, doubles written
 * exactly, and a rendered label set read back pair by pair. Pure: no
 * globals, no I/O; any thread.
 */
#ifndef RDMA_EXPORTER_METRIC_TEXT_H
#define RDMA_EXPORTER_METRIC_TEXT_H

#include <stdbool.h>

#include "base/buf.h"

/* [a-zA-Z_:][a-zA-Z0-9_:]*; NULL and "" are not. */
bool metric_name_valid(const char *name);
/* [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__" (Prometheus' own). */
bool metric_label_name_valid(const char *name);
/* value as a label value, without the quotes: \\, \" and \n escaped,
 * invalid UTF-8 replaced by U+FFFD. 0 or -ENOMEM. */
int metric_escape_label_value(struct buf *out, const char *value);
/* HELP text: only backslash and newline escaped. Errors stay in out. */
void metric_escape_help(struct buf *out, const char *help);
/* NaN, +Inf, -Inf, or the shortest %g that reads back as v. 0 or -ENOMEM. */
int metric_format_double(struct buf *out, double v);

/*
 * Reads the next label pair of a rendered label set ("" or {a="b",...}, as
 * metric_sample_view.labels holds it) from *cursor into name and value
 * (unescaped; both reset first, NUL-terminated) and advances *cursor.
 * 1 with a pair, 0 at the end, -EINVAL for text the sink did not write,
 * -ENOMEM.
 */
int metric_labels_next(const char **cursor, struct buf *name, struct buf *value);

#endif
