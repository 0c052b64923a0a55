// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's file reads: a value file (struct sysfs_file) opened
 * once at scan time and kept, or opened per read past the fd limit, or
 * deferred; read with one pread() at offset 0 each poll; closed. And the
 * scan-time text files, read whole once. Paths are relative to the sysfs
 * root fd; nothing here logs.
 */
#include "sysfs_file.h"
#include "base/fileio.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysfs_parse.h"

/* "dir/name" into buf; -ENAMETOOLONG when it does not fit. */
static int dir_path(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Opens name of dir (relative to root) as open_regular_at() does. */
static int open_in_dir(int root, const char *dir, const char *name)
{
	char path[PATH_MAX];
	int r;

	if (!dir)
		return -ENOENT;
	r = dir_path(path, sizeof(path), dir, name);
	if (r < 0)
		return r;
	return open_regular_at(root, path);
}

int sysfs_file_open(int root, const char *dir, struct sysfs_file *f, int fd_limit,
		    unsigned *n_reopen_each)
{
	int fd;

	f->fd = -1;
	fd = open_in_dir(root, dir, f->name);
	if (fd >= fd_limit) {
		close(fd);
		f->reopen_each = true;
		(*n_reopen_each)++;
		return 0;
	}
	if (fd >= 0) {
		f->fd = fd;
		return 0;
	}
	switch (-fd) {
	case ENAMETOOLONG:
		return fd;
	case EMFILE:
	case ENFILE:
		f->reopen_each = true;
		(*n_reopen_each)++;
		break;
	case ENOENT:
		f->absent = true;
		break;
	default:
		break;
	}
	return 0;
}

int sysfs_file_defer(const char *dir, struct sysfs_file *f)
{
	char path[PATH_MAX];
	int r;

	f->fd = -1;
	r = dir_path(path, sizeof(path), dir, f->name);
	if (r == 0)
		f->deferred = true;
	return r;
}

void sysfs_file_close(struct sysfs_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->name_owned)
		free((char *)f->name);
	*f = (struct sysfs_file){.fd = -1};
}

int sysfs_file_read(int root, const char *dir, struct sysfs_file *f, char *buf, size_t size)
{
	ssize_t n;
	int fd, err;

	if (!f->name || f->absent)
		return -ENOENT;
	if (size < 2)
		return -EINVAL;
	fd = f->fd;
	if (fd < 0) {
		fd = open_in_dir(root, dir, f->name);
		if (fd < 0)
			return fd;
	}
	do {
		n = pread(fd, buf, size - 1, 0);
	} while (n < 0 && errno == EINTR);
	err = errno;
	if (f->fd < 0) {
		if (f->reopen_each || f->deferred)
			close(fd);
		else
			f->fd = fd; /* failed at scan time, works now: keep it */
	}
	if (n < 0)
		return -err;
	if ((size_t)n >= size - 1)
		return -EOVERFLOW;
	buf[n] = '\0';
	return (int)n;
}

const char *sysfs_file_path(const char *dir, const struct sysfs_file *f, char *buf, size_t size)
{
	if (!size)
		return "-";
	if (!f->name || !dir)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%s/%s", dir, f->name);
	return buf;
}

int sysfs_read_small(int root, const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd, r = 0;

	fd = open_regular_at(root, path);
	if (fd < 0)
		return fd;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r < 0)
		return r;
	buf[len] = '\0';
	return (int)len;
}

/* The file's text through parse, as a label value; "" when missing,
 * unreadable or refused by parse. */
static int read_label(int root, const char *path,
		      int (*parse)(const char *s, size_t len, const char **out, size_t *out_len),
		      char **out)
{
	char buf[SYSFS_TEXT_MAX];
	const char *s = "";
	size_t len = 0;
	int n;

	n = sysfs_read_small(root, path, buf, sizeof(buf));
	if (n >= 0 && parse(buf, (size_t)n, &s, &len) < 0) {
		s = "";
		len = 0;
	}
	*out = strndup(s, len);
	return *out ? 0 : -ENOMEM;
}

int sysfs_read_text(int root, const char *path, char **out)
{
	return read_label(root, path, sysfs_parse_text, out);
}

int sysfs_read_node_type(int root, const char *path, char **out)
{
	return read_label(root, path, sysfs_parse_node_type, out);
}
