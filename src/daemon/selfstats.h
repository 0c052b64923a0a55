/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exporter's own process_* metrics, read from procfs (root given, so
 * tests can point it at a fixture).
 */
#ifndef RDMA_EXPORTER_SELFSTATS_H
#define RDMA_EXPORTER_SELFSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "exposition/metrics.h"

struct proc_stat {
	uint64_t utime_ticks, stime_ticks;
	uint64_t starttime_ticks; /* since boot */
	uint64_t vsize_bytes;
	uint64_t rss_pages;
};

/* Parses the text of /proc/<pid>/stat. Pure. 0 or -EINVAL. */
int proc_stat_parse(const char *text, size_t len, struct proc_stat *out);
/* Parses "btime N" out of /proc/stat. Pure. 0 or -EINVAL. */
int proc_btime_parse(const char *text, size_t len, uint64_t *btime);

/*
 * Adds process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_open_fds, process_max_fds and
 * process_start_time_seconds (process_open_fds from the size of
 * /proc/self/fd where the kernel gives it, 6.2 and later, else by listing
 * it). Returns the number of values that could not
 * be read (each is skipped).
 */
unsigned selfstats_collect(const char *proc_root, struct metric_sink *sink);

#endif
