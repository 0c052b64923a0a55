/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Samples read back from a Prometheus text exposition (format 0.0.4, what
 * the exporter's own writer produces): family name, labels, value. The check
 * subcommand (check.h) evaluates its checks on two polls' renderings, so it
 * sees exactly what a scrape would and needs no second path into the
 * collectors. Pure: text in, table out; no I/O, no logging.
 *
 * Values are doubles: the checks compare counters' increases over a few
 * seconds, exact up to 2^53.
 */
#ifndef RDMA_EXPORTER_CHECK_TABLE_H
#define RDMA_EXPORTER_CHECK_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "exposition/metrics.h"

struct check_sample {
	char *name;
	struct metric_label *labels; /* owned copies, unescaped */
	size_t n_labels;
	double value;
	size_t line; /* 1-based line in the text, for stable order */
};

struct check_table {
	struct check_sample *v; /* sorted by name, then by line */
	size_t n, cap;
};

/*
 * Parses text into t (which must be zeroed or freed). Comment and empty
 * lines are skipped. Returns 0, -ENOMEM, or -EINVAL with *bad_line set to
 * the 1-based line that is not a sample (t then holds nothing).
 */
int check_table_parse(struct check_table *t, const char *text, size_t len, size_t *bad_line);
void check_table_free(struct check_table *t);

/* The value of label name of s, or NULL. */
const char *check_sample_label(const struct check_sample *s, const char *name);

/* The first sample of family name (index into t->v) and how many there are;
 * *count 0 when none. */
size_t check_table_family(const struct check_table *t, const char *name, size_t *count);

/* The first sample of family name whose labels include every pair of match;
 * NULL when none. */
const struct check_sample *check_table_find(const struct check_table *t, const char *name,
					    const struct metric_label *match, size_t n_match);

/* The sample of t with the name and exactly the label set of s; NULL when none. */
const struct check_sample *check_table_same(const struct check_table *t,
					    const struct check_sample *s);

/* The exporter's own verdicts, which several checks read first. */
/* rdma_exporter_collector_success of a collector: 1, 0, or -1 when it did not run. */
int check_table_collector_state(const struct check_table *t, const char *name);
/* rdma_device_responsive 0: the device's reads did not finish within the
 * sysfs collector's device deadline (they block: hung firmware), and its
 * ports are left out of the reading. */
bool check_table_device_unresponsive(const struct check_table *t, const char *dev);

#endif
