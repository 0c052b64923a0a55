// SPDX-License-Identifier: Apache-2.0
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int open_regular_at(int dirfd, const char *path)
{
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}
