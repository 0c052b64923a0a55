/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opening the files the daemon reads (sysfs attributes and counters, procfs,
 * the probe's target file, the web config and the PEM files it names) so that
 * nothing there can block it: a FIFO, a
 * socket or a device node at such a path (a wrong --path.sysfs, a bind
 * mount) would otherwise hang a read, or the open itself, forever.
 */
#ifndef RDMA_EXPORTER_FILEIO_H
#define RDMA_EXPORTER_FILEIO_H

#include <dirent.h>
#include <stddef.h>

/*
 * Looks first (fstatat, following symlinks like the open): anything that is
 * not a regular file is refused without being opened (-EISDIR for a
 * directory, -EINVAL for anything else), so a FIFO,
 * a socket or a device node is never opened at all. A regular file is then
 * opened read-only with O_NONBLOCK (should it have become a FIFO meanwhile,
 * the open does not wait for a writer), O_NOCTTY and O_CLOEXEC, and fstat
 * must find a regular file with the same device and inode as the first look
 * (else -EINVAL, closed again, nothing read). Returns the fd, or -errno of
 * the stat or the open. dirfd may be AT_FDCWD. Sysfs attributes and procfs
 * files are regular files; reads of regular files ignore O_NONBLOCK.
 */
int open_regular_at(int dirfd, const char *path);

/*
 * What an error of open_regular_at (or of reading its fd) means, for a
 * message about a file the operator named: "is a directory", "not a regular
 * file (...)" for -EINVAL (strerror would say "Invalid argument"), else the
 * strerror, written into buf when needed.
 */
const char *open_regular_strerror(int r, char *buf, size_t size);

/*
 * Opens the directory at dirfd/path (O_DIRECTORY, O_CLOEXEC) for readdir;
 * NULL with errno set (that of the open or of fdopendir) when it cannot.
 * dirfd may be AT_FDCWD. closedir() the result.
 */
DIR *open_dir_at(int dirfd, const char *path);

#endif
