// SPDX-License-Identifier: Apache-2.0
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

/* A directory says so; anything else that is not a regular file is -EINVAL. */
static int not_regular(mode_t mode)
{
	return S_ISDIR(mode) ? -EISDIR : -EINVAL;
}

int open_regular_at(int dirfd, const char *path)
{
	struct stat before, st;
	int fd;

	/* Look before opening: opening a device node can have effects of its own
	 * (a tape rewinds, a tty becomes the controlling one) and can block. */
	if (fstatat(dirfd, path, &before, 0) < 0)
		return -errno;
	if (!S_ISREG(before.st_mode))
		return not_regular(before.st_mode);
	fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	/* Swapped for something else between the two looks: refused the same way. */
	if (!S_ISREG(st.st_mode) || st.st_dev != before.st_dev || st.st_ino != before.st_ino) {
		close(fd);
		return S_ISREG(st.st_mode) ? -EINVAL : not_regular(st.st_mode);
	}
	return fd;
}

const char *open_regular_strerror(int r, char *buf, size_t size)
{
	if (r == -EISDIR)
		return "is a directory";
	if (r == -EINVAL)
		return "not a regular file (a FIFO, a socket or a device node)";
	return log_strerror(r, buf, size);
}

DIR *open_dir_at(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}
