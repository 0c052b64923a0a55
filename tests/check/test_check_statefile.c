// SPDX-License-Identifier: Apache-2.0
/* The flaps check's state file opened only when trusted (check_statefile.h):
 * the verdict on given stats, then real files in a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "check/check_statefile.h"

#define USER  1000
#define GROUP 1000

static struct stat st_of(mode_t mode, uid_t uid, gid_t gid)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = mode;
	st.st_uid = uid;
	st.st_gid = gid;
	return st;
}

/* The verdict on dir and file (NULL: none) for USER: 0, or -EPERM and why has want. */
static void verdict(const struct stat *dir, const struct stat *file, uid_t euid, const char *want)
{
	char why[160] = "";
	int r = check_statefile_trust(dir, file, euid, GROUP, why, sizeof(why));

	if (!want) {
		assert_int_equal(r, 0);
		return;
	}
	assert_int_equal(r, -EPERM);
	if (!strstr(why, want))
		fail_msg("why \"%s\" lacks \"%s\"", why, want);
}

static void test_trust_verdict(void **state)
{
	struct stat mine = st_of(S_IFDIR | 0755, USER, GROUP), roots = st_of(S_IFDIR | 0755, 0, 0),
		    others = st_of(S_IFDIR | 0755, 2000, 2000), world = st_of(S_IFDIR | 0777, 0, 0),
		    tmp = st_of(S_IFDIR | 01777, 0, 0),
		    grp_own = st_of(S_IFDIR | 0775, USER, GROUP),
		    grp_other = st_of(S_IFDIR | 0775, 0, 4),
		    file = st_of(S_IFREG | 0644, USER, GROUP),
		    link = st_of(S_IFLNK | 0777, USER, GROUP),
		    fifo = st_of(S_IFIFO | 0644, USER, GROUP),
		    theirs = st_of(S_IFREG | 0644, 2000, 2000),
		    root_file = st_of(S_IFREG | 0644, 0, 0),
		    open_file = st_of(S_IFREG | 0666, USER, GROUP),
		    grp_file = st_of(S_IFREG | 0664, USER, GROUP),
		    grp_file_other = st_of(S_IFREG | 0664, USER, 4);

	(void)state;
	verdict(&mine, &file, USER, NULL);
	verdict(&roots, &file, USER, NULL);
	verdict(&roots, NULL, USER, NULL);	  /* the first run */
	verdict(&tmp, &file, USER, NULL);	  /* sticky: no one else can replace it */
	verdict(&grp_own, &grp_file, USER, NULL); /* a user's private group */
	verdict(&roots, &root_file, 0, NULL);	  /* root's own */
	verdict(&roots, &link, USER, "is a symbolic link (refused, never followed)");
	verdict(&roots, &fifo, USER, "is a FIFO, not a regular file");
	verdict(&roots, &theirs, USER, "is owned by uid 2000, not this user (uid 1000)");
	verdict(&roots, &theirs, 0, "is owned by uid 2000, not this user (uid 0)");
	/* the non-root check with root's history: not its own either */
	verdict(&roots, &root_file, USER, "is owned by uid 0, not this user (uid 1000)");
	verdict(&roots, &open_file, USER, "is writable by other users (mode 0666)");
	verdict(&roots, &grp_file_other, USER, "is writable by other users (mode 0664)");
	verdict(&world, &file, USER, "without the sticky bit (mode 0777)");
	verdict(&world, NULL, USER, "without the sticky bit (mode 0777)");
	verdict(&grp_other, NULL, USER, "without the sticky bit (mode 0775)");
	verdict(&others, &file, USER, "in a directory owned by uid 2000, neither this user");
}

/* --- real files ---------------------------------------------------------- */

static char dir[PATH_MAX], path[PATH_MAX + 32];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/statefile.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/check-state", dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *p, const char *text, mode_t mode)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
}

/* check_statefile_open of path as this process: the fd is closed. */
static int open_as(uid_t euid, gid_t egid, char *why, size_t size)
{
	int fd = check_statefile_open(path, euid, egid, why, size);

	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : fd;
}

static void refused(uid_t euid, const char *want)
{
	char why[160] = "";

	assert_int_equal(open_as(euid, getegid(), why, sizeof(why)), -EPERM);
	if (!strstr(why, want))
		fail_msg("why \"%s\" lacks \"%s\"", why, want);
}

static void test_open_own_and_missing(void **state)
{
	char why[160];
	int fd;

	(void)state;
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(open_as(geteuid(), getegid(), why, sizeof(why)), -ENOENT);
	write_file(path, "rdma_exporter check state 1\n", 0644);
	fd = check_statefile_open(path, geteuid(), getegid(), why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	/* not this user's (the file, or as non-root the directory too): the uid
	 * given is the one judged */
	refused(geteuid() + 1, "this user (uid ");
}

/* A link to an old history would FAIL every run (it is read, never
 * rewritten); a link elsewhere would blind the check: both refused. */
static void test_open_symlinks(void **state)
{
	char old[PATH_MAX + 32];

	(void)state;
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(old, sizeof(old), "%s/old-history", dir);
	write_file(old, "rdma_exporter check state 1\np mlx5_0/1 seen=1 counter=1 state=4\n", 0644);
	assert_int_equal(symlink(old, path), 0);
	refused(geteuid(), "is a symbolic link (refused, never followed)");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/nonexistent/elsewhere", path), 0);
	refused(geteuid(), "is a symbolic link");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	refused(geteuid(), "is a FIFO, not a regular file");
	assert_int_equal(unlink(path), 0);
}

static void test_open_other_owner_and_modes(void **state)
{
	(void)state;
	assert_int_equal(chmod(dir, 0700), 0);
	write_file(path, "rdma_exporter check state 1\n", 0644);
	if (geteuid() == 0) { /* a real other owner */
		assert_int_equal(chown(path, 65534, 65534), 0);
		refused(0, "is owned by uid 65534, not this user (uid 0)");
		assert_int_equal(chown(path, 0, 0), 0);
	}
	assert_int_equal(chmod(path, 0666), 0);
	refused(geteuid(), "is writable by other users (mode 0666)");
	assert_int_equal(chmod(path, 0644), 0);
	/* a world-writable directory: refused with a file or without */
	assert_int_equal(chmod(dir, 0777), 0);
	refused(geteuid(), "is in a directory writable by other users without the sticky bit");
	assert_int_equal(unlink(path), 0);
	refused(geteuid(), "without the sticky bit (mode 0777)");
	/* sticky (as /tmp): others cannot replace this user's file */
	assert_int_equal(chmod(dir, 01777), 0);
	write_file(path, "rdma_exporter check state 1\n", 0644);
	assert_int_equal(open_as(geteuid(), getegid(), (char[160]){0}, 160), 0);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(unlink(path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trust_verdict),
		cmocka_unit_test_setup_teardown(test_open_own_and_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_other_owner_and_modes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
