/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opening the files the daemon reads (sysfs attributes and counters, procfs,
 * the probe's target file) so that nothing there can block it: a FIFO, a
 * socket or a device node at such a path (a wrong --path.sysfs, a bind
 * mount) would otherwise hang a read, or the open itself, forever.
 */
#ifndef RDMA_EXPORTER_FILEIO_H
#define RDMA_EXPORTER_FILEIO_H

/*
 * openat(dirfd, path) read-only with O_NONBLOCK (the open of a FIFO does not
 * wait for a writer), O_NOCTTY and O_CLOEXEC, then fstat: returns the fd of a
 * regular file, or -errno of the open, or -EINVAL for anything that is not a
 * regular file (closed again, nothing read). dirfd may be AT_FDCWD. Sysfs
 * attributes and procfs files are regular files; reads of regular files
 * ignore O_NONBLOCK.
 */
int open_regular_at(int dirfd, const char *path);

#endif
