// SPDX-License-Identifier: Apache-2.0
/* open_regular_at: regular files open; FIFOs, directories and device nodes are
 * refused at once (a FIFO without a writer would block a plain open or read).
 * open_dir_at: a directory opens for readdir, anything else is NULL and errno. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"

static void test_kinds(void **state)
{
	char dir[] = "/tmp/fileio-test-XXXXXX", path[64];
	int dfd, fd;
	char c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);

	/* regular: opened, readable */
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	fd = open_regular_at(dfd, "file");
	assert_true(fd >= 0);
	assert_int_equal(read(fd, &c, 1), 1);
	assert_int_equal(c, 'x');
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(fd);
	fd = open_regular_at(AT_FDCWD, path);
	assert_true(fd >= 0);
	close(fd);

	/* FIFO without a writer: refused at once, not waited on */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(open_regular_at(dfd, "fifo"), -EINVAL);

	/* directory (says so) and character device: refused */
	assert_int_equal(open_regular_at(AT_FDCWD, dir), -EISDIR);
	assert_int_equal(open_regular_at(AT_FDCWD, "/dev/null"), -EINVAL);

	/* missing: the open's errno */
	assert_int_equal(open_regular_at(dfd, "missing"), -ENOENT);

	unlink(path);
	snprintf(path, sizeof(path), "%s/file", dir);
	unlink(path);
	close(dfd);
	rmdir(dir);
}

/* The texts for a file the operator named: never "Invalid argument". */
static void test_strerror(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(open_regular_strerror(-EISDIR, buf, sizeof(buf)), "is a directory");
	assert_string_equal(open_regular_strerror(-EINVAL, buf, sizeof(buf)),
			    "not a regular file (a FIFO, a socket or a device node)");
	assert_string_equal(open_regular_strerror(-ENOENT, buf, sizeof(buf)),
			    "No such file or directory");
}

/*
 * A FIFO and a directory are refused without being opened at all (a device
 * node is looked at the same way: opening one can have effects of its own).
 * inotify reports every open in the directory: only the regular file's.
 */
static void test_refused_unopened(void **state)
{
	char dir[] = "/tmp/fileio-test-XXXXXX", path[64];
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int dfd, fd, ino, opened_file = 0, opened_other = 0;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(mkfifoat(dfd, "fifo", 0600), 0);
	assert_int_equal(mkdirat(dfd, "sub", 0700), 0);
	fd = openat(dfd, "file", O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(ino >= 0);
	assert_true(inotify_add_watch(ino, dir, IN_OPEN) >= 0);

	assert_int_equal(open_regular_at(dfd, "fifo"), -EINVAL);
	assert_int_equal(open_regular_at(dfd, "sub"), -EISDIR);
	fd = open_regular_at(dfd, "file");
	assert_true(fd >= 0);
	close(fd);

	while ((n = read(ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->len && strcmp(ev->name, "file") == 0)
				opened_file++;
			else
				opened_other++;
			p += sizeof(*ev) + ev->len;
		}
	}
	assert_int_equal(opened_file, 1);
	assert_int_equal(opened_other, 0);

	close(ino);
	unlinkat(dfd, "fifo", 0);
	unlinkat(dfd, "file", 0);
	unlinkat(dfd, "sub", AT_REMOVEDIR);
	close(dfd);
	snprintf(path, sizeof(path), "%s", dir);
	rmdir(path);
}

/* open_dir_at: a directory lists, cloexec; a file or a missing path is NULL with errno. */
static void test_open_dir_at(void **state)
{
	char dir[] = "/tmp/fileio-test-XXXXXX";
	struct dirent *e;
	int dfd, fd, seen = 0;
	DIR *d;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(mkdirat(dfd, "sub", 0700), 0);
	fd = openat(dfd, "sub/entry", O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);

	d = open_dir_at(dfd, "sub");
	assert_non_null(d);
	assert_true(fcntl(dirfd(d), F_GETFD) & FD_CLOEXEC);
	while ((e = readdir(d)))
		seen += strcmp(e->d_name, "entry") == 0;
	assert_int_equal(seen, 1);
	closedir(d);

	errno = 0;
	assert_null(open_dir_at(dfd, "sub/entry"));
	assert_int_equal(errno, ENOTDIR);
	errno = 0;
	assert_null(open_dir_at(dfd, "missing"));
	assert_int_equal(errno, ENOENT);

	unlinkat(dfd, "sub/entry", 0);
	unlinkat(dfd, "sub", AT_REMOVEDIR);
	close(dfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_refused_unopened),
		cmocka_unit_test(test_strerror),
		cmocka_unit_test(test_open_dir_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
