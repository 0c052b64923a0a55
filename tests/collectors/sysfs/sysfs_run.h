/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sysfs collector's tests' shared harness: the collector run end to end
 * (init, collect, render, free) over a sysfs root, and temporary copies of
 * the fixture trees under $FIXTURES/sysfs. Each function fails the running
 * cmocka test on an error. One test thread.
 */
#ifndef RDMA_EXPORTER_TEST_SYSFS_RUN_H
#define RDMA_EXPORTER_TEST_SYSFS_RUN_H

#include <stdint.h>

#include "base/devfilter.h"
#include "collector.h"
#include "rdmanl/sysfs_names.h"

/* One collector instance over one sysfs root. */
struct run {
	int root;
	struct device_filter *filter;
	void *state;
	struct collector_stats stats;
	char *text;		   /* rendered exposition of the last poll */
	uint64_t sink_errors;	   /* samples the sink rejected (duplicates, bad names) */
	int rc;			   /* collect() result */
	struct netdev_set netdevs; /* what the collector publishes for later collectors */
};

/* $FIXTURES, set by ctest. */
const char *fixtures_dir(void);
/* An O_DIRECTORY fd of path. */
int open_dir(const char *path);
/* An fd of $FIXTURES/sysfs/<name>. */
int open_fixture(const char *name);
/* init() over root (owned by r from now on), with the device filter's flags. */
void run_start(struct run *r, int root, const char *include, const char *exclude,
	       double rescan_interval_s);
/* One collect(), rendered into r->text. */
void run_poll(struct run *r);
void run_stop(struct run *r);
/* One poll of a fixture tree, which must succeed with no sink error. */
void run_once(struct run *r, const char *fixture, const char *include, const char *exclude);
/* The name table's entry of a file, which must be there. */
const struct sysfs_counter_name *lookup(const char *file, unsigned source);
/* Lines of the family that mention the substring. */
unsigned count_lines(const char *text, const char *prefix, const char *needle);
/* Copies $FIXTURES/sysfs/<name> into a new temporary directory, its path
 * into tmp. */
void copy_fixture(const char *name, char *tmp, size_t size);
void rm_rf(const char *path);
/* Writes dir/rel, truncating the same inode (a kept fd sees the new text). */
void write_file(const char *dir, const char *rel, const char *content);

#endif
