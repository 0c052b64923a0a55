// SPDX-License-Identifier: Apache-2.0
#include "daemon/selfstats.h"
#include "base/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/strparse.h"

int proc_stat_parse(const char *text, size_t len, struct proc_stat *out)
{
	/* comm (field 2) may hold spaces and ')': fields resume after the last ')' */
	const char *end = text + len, *p = NULL;
	uint64_t v[25] = {0};
	int field = 3;

	for (const char *q = text; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p)
		return -EINVAL;
	p++;
	while (p < end && field <= 24) {
		const char *tok;

		while (p < end && *p == ' ')
			p++;
		tok = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		if (p == tok)
			break;
		/* field 3 is the state letter; the ones used here are all unsigned */
		if (field >= 14 && parse_u64_dec(tok, (size_t)(p - tok), &v[field]) < 0)
			return -EINVAL;
		field++;
	}
	if (field <= 24)
		return -EINVAL;
	out->utime_ticks = v[14];
	out->stime_ticks = v[15];
	out->starttime_ticks = v[22];
	out->vsize_bytes = v[23];
	out->rss_pages = v[24];
	return 0;
}

int proc_btime_parse(const char *text, size_t len, uint64_t *btime)
{
	const char *end = text + len, *p = text;

	while (p < end) {
		const char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - line) : (size_t)(end - line);

		p = nl ? nl + 1 : end;
		if (l > 6 && strncmp(line, "btime ", 6) == 0) {
			const char *num = line + 6;
			size_t nlen = l - 6;

			str_trim(&num, &nlen);
			return parse_u64_dec(num, nlen, btime);
		}
	}
	return -EINVAL;
}

/*
 * open_regular_at, but a regular file whose open gives another inode than the
 * look before it is taken too: under qemu-user (the arm64 build run on an
 * amd64 machine, tests/cross/) /proc/self/stat opens as a copy the emulator
 * writes for the guest (a memfd), which open_regular_at refuses as swapped.
 * Only the procfs files of selfstats_collect come here; anything that is not a
 * regular file is still refused before it is opened.
 */
static int open_proc_file(const char *path)
{
	struct stat st;
	int fd = open_regular_at(AT_FDCWD, path);

	if (fd != -EINVAL)
		return fd;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open_proc_file(path);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/*
 * Linux 6.2 and later give the number of open descriptors as the st_size
 * of /proc/PID/fd, counted from the descriptor bitmap: two path lookups
 * instead of listing the directory, which with the 1,768 counter files the
 * sysfs collector keeps open on a 16-device host was 18% of a poll's CPU.
 * Only on procfs (a fixture tree's directory has a size of its own) and
 * when not 0 (older kernels, or no descriptor at all: the listing says).
 */
static bool count_fds_stat(const char *path, uint64_t *out)
{
	struct statfs sf;
	struct stat st;

	if (statfs(path, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC)
		return false;
	if (stat(path, &st) < 0 || st.st_size <= 0)
		return false;
	*out = (uint64_t)st.st_size;
	return true;
}

static int count_fds(const char *proc_root, uint64_t *out)
{
	char path[512];
	struct dirent *de;
	uint64_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/self/fd", proc_root);
	if (count_fds_stat(path, out))
		return 0;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	*out = n ? n - 1 : 0; /* minus the fd of the opendir itself */
	return 0;
}

unsigned selfstats_collect(const char *proc_root, struct metric_sink *sink)
{
	long ticks = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char path[512], text[4096];
	struct proc_stat st;
	unsigned failed = 0;
	struct rlimit rl;
	uint64_t btime, fds = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/self/stat", proc_root);
	n = read_small(path, text, sizeof(text));
	if (n > 0 && proc_stat_parse(text, (size_t)n, &st) == 0 && ticks > 0) {
		metric_sink_add_double(sink, "process_cpu_seconds_total",
				       "Total user and system CPU time spent in seconds.",
				       METRIC_COUNTER, METRIC_NO_LABELS,
				       (double)(st.utime_ticks + st.stime_ticks) / (double)ticks);
		metric_sink_add_u64(sink, "process_resident_memory_bytes",
				    "Resident memory size in bytes.", METRIC_GAUGE,
				    METRIC_NO_LABELS, st.rss_pages * (uint64_t)page);
		metric_sink_add_u64(sink, "process_virtual_memory_bytes",
				    "Virtual memory size in bytes.", METRIC_GAUGE, METRIC_NO_LABELS,
				    st.vsize_bytes);
		snprintf(path, sizeof(path), "%s/stat", proc_root);
		n = read_small(path, text, sizeof(text));
		if (n > 0 && proc_btime_parse(text, (size_t)n, &btime) == 0)
			metric_sink_add_double(
				sink, "process_start_time_seconds",
				"Start time of the process since unix epoch in seconds.",
				METRIC_GAUGE, METRIC_NO_LABELS,
				(double)btime + (double)st.starttime_ticks / (double)ticks);
		else
			failed++;
	} else {
		failed += 4;
	}
	if (count_fds(proc_root, &fds) == 0)
		metric_sink_add_u64(sink, "process_open_fds", "Number of open file descriptors.",
				    METRIC_GAUGE, METRIC_NO_LABELS, fds);
	else
		failed++;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		metric_sink_add_u64(sink, "process_max_fds",
				    "Maximum number of open file descriptors.", METRIC_GAUGE,
				    METRIC_NO_LABELS, (uint64_t)rl.rlim_cur);
	else
		failed++;
	return failed;
}
