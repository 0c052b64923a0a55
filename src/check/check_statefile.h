/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The flaps check's state file (docs/check.md, "The state file") opened only
 * when it can be trusted. A history is trusted when only this user (or root)
 * can have written it: its directory owned by this user or root and writable
 * by no other user (unless sticky), and the file itself a regular file, not a
 * symbolic link (never followed), owned by this user, writable by no other
 * user. "Writable by another user": the world-writable bit, or the
 * group-writable bit of a group other than this process's own. A history that
 * is not trusted is never read nor written over: a link to an old history
 * would FAIL every run, a link elsewhere would blind the check for good, and
 * another user's file could hide a flap or invent one.
 */
#ifndef RDMA_EXPORTER_CHECK_STATEFILE_H
#define RDMA_EXPORTER_CHECK_STATEFILE_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Pure: the verdict on a history from its directory's stat (dir) and its own
 * lstat (file; NULL: there is none), for a process of euid and egid. 0
 * trusted, else -EPERM with why set to the reason, a clause that follows
 * the path ("is a symbolic link (refused, never followed)", "is owned by uid
 * 1000, not this user (uid 0)", "is in a directory writable by other users
 * without the sticky bit (mode 0777)", ...).
 */
int check_statefile_trust(const struct stat *dir, const struct stat *file, uid_t euid, gid_t egid,
			  char *why, size_t size);

/*
 * Opens the history at path read-only (O_NOFOLLOW, O_NONBLOCK, O_NOCTTY,
 * O_CLOEXEC) when check_statefile_trust() trusts it; the file is looked at
 * (lstat) before it is opened, so a FIFO or device there is never opened,
 * and must be the same inode after. Returns the fd; -ENOENT when there is
 * no file (in a trusted directory) or no directory; -EPERM with why set when
 * it is not trusted (or was swapped while opened); else -errno.
 */
int check_statefile_open(const char *path, uid_t euid, gid_t egid, char *why, size_t size);

#endif
