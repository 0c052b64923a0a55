/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The files the sysfs collector reads: a value file (its name, its fd kept
 * open from the scan on, and how it is read each poll), and the text files
 * read whole at scan time. Every path is relative to the
 * sysfs root fd; every fd is O_RDONLY|O_CLOEXEC. Nothing here logs. The
 * files belong to their owners (sysfs_scan.h, sysfs_pcie_scan.h); a file is
 * read by one thread at a time (the reader thread of its device's job).
 */
#ifndef RDMA_EXPORTER_SYSFS_FILE_H
#define RDMA_EXPORTER_SYSFS_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * One value file, re-read every poll. It is only its name: the directory
 * belongs to its owner (sysfs_port.dir for the port attributes,
 * sysfs_counter_dir() for counter files) and is passed to sysfs_file_read(),
 * so a host with thousands of counter files keeps no path per file.
 */
struct sysfs_file {
	/* File name inside its directory; NULL: not used. A string of the name
	 * table or a literal, or owned when name_owned. */
	const char *name;
	int fd;		      /* kept open; -1 when not open */
	bool absent : 1;      /* did not exist at scan time: reads fail with -ENOENT, no syscall */
	bool reopen_each : 1; /* openat() hit EMFILE/ENFILE: openat+pread+close per read */
	bool name_owned : 1;  /* name was allocated (not in the name table) */
	/* Not opened: netlink serves the value (sysfs_port_hw_close). A read
	 * opens and closes it; sysfs_port_hw_open() keeps it open. */
	bool deferred : 1;
};

/*
 * Opens f (its name set) in dir, kept open when its fd is below fd_limit.
 * An open that fails is retried per read (EMFILE, ENFILE, or an fd at or
 * past fd_limit: counted in *n_reopen_each), or remembered as absent
 * (ENOENT); only -ENAMETOOLONG is an error.
 */
int sysfs_file_open(int root, const char *dir, struct sysfs_file *f, int fd_limit,
		    unsigned *n_reopen_each);
/* Leaves f unopened until sysfs_port_hw_open() (sysfs_scan.h), with the
 * path checked as an open would (the same -ENAMETOOLONG). */
int sysfs_file_defer(const char *dir, struct sysfs_file *f);
/* Closes f and frees its name when owned; f is left unused (name NULL). */
void sysfs_file_close(struct sysfs_file *f);

/*
 * Reads value file f of directory dir into buf (NUL-terminated), at most
 * size - 1 bytes. Returns the length, or -errno; -EOVERFLOW when the
 * content does not fit.
 */
int sysfs_file_read(int root, const char *dir, struct sysfs_file *f, char *buf, size_t size);

/* "dir/name" of f into buf, for a log line: "-" when f is not used, and
 * cut short when it does not fit. Returns buf. */
const char *sysfs_file_path(const char *dir, const struct sysfs_file *f, char *buf, size_t size);

/* Scan-time text attributes (board_id can be long; sysfs caps at a page). */
#define SYSFS_TEXT_MAX 4096

/* The whole small file path (relative to root) into buf, NUL-terminated, at
 * most size - 1 bytes. Returns the length or -errno. */
int sysfs_read_small(int root, const char *path, char *buf, size_t size);
/* A text attribute as a label value (sysfs_parse_text()), owned by *out; ""
 * when missing or unreadable. 0 or -ENOMEM. */
int sysfs_read_text(int root, const char *path, char **out);
/* node_type as a label value (sysfs_parse_node_type()), as sysfs_read_text(). */
int sysfs_read_node_type(int root, const char *path, char **out);

#endif
