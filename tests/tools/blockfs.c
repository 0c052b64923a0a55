// SPDX-License-Identifier: Apache-2.0
/*
 * A FUSE file system for tests/e2e/hung-device.sh: a read-only mirror of a
 * fixture tree in which the reads of some files block, as the counters of
 * an HCA whose firmware hangs do (a sysfs read waits for the firmware
 * command's timeout, tens of seconds on mlx5, or longer).
 *
 *   blockfs --block=SUBSTRING --gate=FILE [--max-block=SECONDS] SOURCE MOUNTPOINT
 *
 * A read of a file whose path (under SOURCE, symlinks resolved by the
 * kernel) contains SUBSTRING waits while FILE exists, at most --max-block
 * seconds (120 by default), then returns the file's content; a reader killed
 * meanwhile gets EINTR. Each read that blocks is said on stderr. Every open is direct I/O: each
 * read reaches this process, as every read of a sysfs file reaches the driver. Runs in the
 * foreground, multithreaded, until unmounted or signalled.
 */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
	int src; /* O_PATH fd of SOURCE */
	const char *block, *gate;
	long max_block_s;
} cfg = {.max_block_s = 120};

/* "/a/b" -> "a/b"; "/" -> "." (paths relative to cfg.src). */
static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static int bfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	return fstatat(cfg.src, rel(path), st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int bfs_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(cfg.src, rel(path), buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int bfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	int fd = openat(cfg.src, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	(void)off;
	(void)fi;
	(void)flags;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((e = readdir(d)))
		if (fill(buf, e->d_name, NULL, 0, 0))
			break;
	closedir(d);
	return 0;
}

static int bfs_open(const char *path, struct fuse_file_info *fi)
{
	int fd;

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EROFS;
	fd = openat(cfg.src, rel(path), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t)fd;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

/* Waits while the gate file exists (bounded); -EINTR if the reader is gone. */
static int wait_gate(const char *path)
{
	struct timespec step = {.tv_nsec = 20 * 1000 * 1000};
	long waited_ms = 0;

	if (!cfg.block || !strstr(path, cfg.block) || access(cfg.gate, F_OK) != 0)
		return 0;
	/* one line per read that blocks: the test counts them */
	fprintf(stderr, "blockfs: read blocks: %s\n", path);
	while (access(cfg.gate, F_OK) == 0 && waited_ms < cfg.max_block_s * 1000) {
		if (fuse_interrupted())
			return -EINTR;
		nanosleep(&step, NULL);
		waited_ms += 20;
	}
	return 0;
}

static int bfs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	ssize_t n;
	int r = wait_gate(path);

	if (r < 0)
		return r;
	n = pread((int)fi->fh, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int bfs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

static void *bfs_init(struct fuse_conn_info *conn, struct fuse_config *c)
{
	(void)conn;
	/* no attribute or entry caching: the tree is read as it is */
	c->entry_timeout = 0;
	c->attr_timeout = 0;
	c->negative_timeout = 0;
	c->direct_io = 1;
	return NULL;
}

static const struct fuse_operations ops = {
	.init = bfs_init,
	.getattr = bfs_getattr,
	.readlink = bfs_readlink,
	.readdir = bfs_readdir,
	.open = bfs_open,
	.read = bfs_read,
	.release = bfs_release,
};

static int usage(void)
{
	fprintf(stderr, "usage: blockfs --block=SUBSTRING --gate=FILE [--max-block=SECONDS] "
			"SOURCE MOUNTPOINT\n");
	return 2;
}

int main(int argc, char *argv[])
{
	char *fargv[8];
	int fargc = 0, i;

	for (i = 1; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strncmp(argv[i], "--block=", 8) == 0)
			cfg.block = argv[i] + 8;
		else if (strncmp(argv[i], "--gate=", 7) == 0)
			cfg.gate = argv[i] + 7;
		else if (strncmp(argv[i], "--max-block=", 12) == 0)
			cfg.max_block_s = strtol(argv[i] + 12, NULL, 10);
		else
			return usage();
	}
	if (argc - i != 2 || !cfg.block || !cfg.gate || cfg.max_block_s <= 0)
		return usage();
	cfg.src = open(argv[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cfg.src < 0) {
		fprintf(stderr, "blockfs: %s: %s\n", argv[i], strerror(errno));
		return 1;
	}
	fargv[fargc++] = argv[0];
	fargv[fargc++] = (char *)"-f";
	fargv[fargc++] = (char *)"-o";
	fargv[fargc++] = (char *)"ro,fsname=blockfs,default_permissions";
	fargv[fargc++] = argv[i + 1];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &ops, NULL);
}
