// SPDX-License-Identifier: Apache-2.0
/* The flaps check's state file, opened only when it is trusted (check_statefile.h). */
#include "check/check_statefile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int refuse(char *why, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -EPERM;
}

/* World-writable, or group-writable by a group not this process's own. */
static int writable_by_others(const struct stat *st, gid_t egid)
{
	return (st->st_mode & S_IWOTH) || ((st->st_mode & S_IWGRP) && st->st_gid != egid);
}

static const char *kind(mode_t mode)
{
	return S_ISDIR(mode)	? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISCHR(mode)	? "a character device"
	       : S_ISBLK(mode)	? "a block device"
	       : S_ISSOCK(mode) ? "a socket"
				: "not a regular file";
}

int check_statefile_trust(const struct stat *dir, const struct stat *file, uid_t euid, gid_t egid,
			  char *why, size_t size)
{
	unsigned dmode = (unsigned)(dir->st_mode & 07777);

	if (dir->st_uid != euid && dir->st_uid != 0)
		return refuse(why, size,
			      "is in a directory owned by uid %u, neither this user (uid %u) "
			      "nor root",
			      (unsigned)dir->st_uid, (unsigned)euid);
	if (writable_by_others(dir, egid) && !(dir->st_mode & S_ISVTX))
		return refuse(why, size,
			      "is in a directory writable by other users without the sticky bit "
			      "(mode %04o)",
			      dmode);
	if (!file)
		return 0;
	if (S_ISLNK(file->st_mode))
		return refuse(why, size, "is a symbolic link (refused, never followed)");
	if (!S_ISREG(file->st_mode))
		return refuse(why, size, "is %s, not a regular file", kind(file->st_mode));
	if (file->st_uid != euid)
		return refuse(why, size, "is owned by uid %u, not this user (uid %u)",
			      (unsigned)file->st_uid, (unsigned)euid);
	if (writable_by_others(file, egid))
		return refuse(why, size, "is writable by other users (mode %04o)",
			      (unsigned)(file->st_mode & 07777));
	return 0;
}

/* The directory of path opened (O_PATH), *base its last component: the fd or -errno. */
static int open_parent(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	*base = slash ? slash + 1 : path;
	if (!**base)
		return -EISDIR; /* "dir/": no file name */
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if ((size_t)(slash - path) >= sizeof(dir))
		return -ENAMETOOLONG;
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* base in dfd opened without following a link, the same inode as *before. */
static int open_same(int dfd, const char *base, const struct stat *before, char *why, size_t size)
{
	struct stat st;
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return errno == ELOOP ? refuse(why, size,
					       "is a symbolic link (refused, never "
					       "followed)")
				      : -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != before->st_dev || st.st_ino != before->st_ino) {
		close(fd);
		return refuse(why, size, "was replaced while being opened");
	}
	return fd;
}

int check_statefile_open(const char *path, uid_t euid, gid_t egid, char *why, size_t size)
{
	struct stat dir, file;
	const char *base;
	int dfd = open_parent(path, &base), r;

	if (dfd < 0)
		return dfd;
	r = fstat(dfd, &dir) < 0 ? -errno : 0;
	if (r == 0 && fstatat(dfd, base, &file, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	if (r == 0 || r == -ENOENT) {
		int t = check_statefile_trust(&dir, r == 0 ? &file : NULL, euid, egid, why, size);

		r = t < 0 ? t : r;
	}
	if (r == 0)
		r = open_same(dfd, base, &file, why, size);
	close(dfd);
	return r;
}
