// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector's tests' shared harness (sysfs_run.h): one collector
 * instance over a fixture tree, polled and rendered, and temporary copies of
 * the fixture trees that a test changes.
 */
#include "sysfs_run.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "exposition/metrics.h"
#include "sysfs.h"

const char *fixtures_dir(void)
{
	const char *f = getenv("FIXTURES");

	assert_non_null(f);
	return f;
}

int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

int open_fixture(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/sysfs/%s", fixtures_dir(), name);
	return open_dir(path);
}

void run_start(struct run *r, int root, const char *include, const char *exclude,
	       double rescan_interval_s)
{
	struct collector_ctx ctx = {0};
	char err[256];

	memset(r, 0, sizeof(*r));
	r->root = root;
	r->filter = device_filter_new(include, exclude, err, sizeof(err));
	assert_non_null(r->filter);
	ctx.sysfs_fd = root;
	ctx.filter = r->filter;
	ctx.rescan_interval_s = rescan_interval_s;
	ctx.rdma_netdevs = &r->netdevs;
	assert_int_equal(sysfs_collector_ops.init(&ctx, &r->state), 0);
	assert_non_null(r->state);
}

void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf out = BUF_INIT;

	assert_non_null(sink);
	memset(&r->stats, 0, sizeof(r->stats));
	r->rc = sysfs_collector_ops.collect(r->state, sink, &r->stats);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	r->sink_errors = metric_sink_errors(sink);
	free(r->text);
	r->text = out.data ? buf_steal(&out, NULL) : strdup("");
	assert_non_null(r->text);
	buf_free(&out);
	metric_sink_free(sink);
}

void run_stop(struct run *r)
{
	sysfs_collector_ops.free(r->state);
	netdev_set_free(&r->netdevs);
	device_filter_free(r->filter);
	free(r->text);
	close(r->root);
}

/* One poll of a fixture tree. */
void run_once(struct run *r, const char *fixture, const char *include, const char *exclude)
{
	run_start(r, open_fixture(fixture), include, exclude, 3600);
	run_poll(r);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->sink_errors, 0);
}

const struct sysfs_counter_name *lookup(const char *file, unsigned source)
{
	const struct sysfs_counter_name *e = sysfs_counter_lookup(file, source);

	assert_non_null(e);
	return e;
}

/* Lines of the family that mention the substring. */
unsigned count_lines(const char *text, const char *prefix, const char *needle)
{
	unsigned n = 0;
	size_t pl = strlen(prefix);

	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		if (len >= pl && memcmp(p, prefix, pl) == 0 &&
		    (!needle || memmem(p, len, needle, strlen(needle))))
			n++;
		p += len + (eol ? 1 : 0);
	}
	return n;
}

/* --- temporary copies of fixture trees ---------------------------------- */

static char copy_src[4096], copy_dst[4096];

static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char dst[4096], target[4096], buf[4096];
	ssize_t n;
	int in, out;

	snprintf(dst, sizeof(dst), "%s%s", copy_dst, path + strlen(copy_src));
	switch (type) {
	case FTW_D:
		return mkdir(dst, 0755) == 0 || errno == EEXIST ? 0 : -1;
	case FTW_SL:
	case FTW_SLN:
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return -1;
		target[n] = '\0';
		return symlink(target, dst);
	case FTW_F:
		in = open(path, O_RDONLY | O_CLOEXEC);
		out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (in < 0 || out < 0)
			return -1;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				return -1;
		close(in);
		close(out);
		return 0;
	default:
		return -1;
	}
}

/* Copies $FIXTURES/sysfs/<name> into a new temporary directory. */
void copy_fixture(const char *name, char *tmp, size_t size)
{
	snprintf(tmp, size, "/tmp/test_sysfs_XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(copy_src, sizeof(copy_src), "%s/sysfs/%s", fixtures_dir(), name);
	snprintf(copy_dst, sizeof(copy_dst), "%s", tmp);
	assert_int_equal(nftw(copy_src, copy_one, 16, FTW_PHYS), 0);
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	return remove(path);
}

void rm_rf(const char *path)
{
	assert_int_equal(nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

void write_file(const char *dir, const char *rel, const char *content)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	/* "w" truncates the same inode: an fd kept open sees the new text. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	assert_int_equal(fclose(f), 0);
}
