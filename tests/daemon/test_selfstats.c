// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/selfstats.h"

/* comm with a space and a ')' — the parser must use the last ')' */
static const char stat_line[] =
	"4242 (rdma exp) (x)) S 1 4242 4242 0 -1 4194560 1167 0 0 0 250 75 0 0 20 0 3 0 "
	"123456 22839296 1234 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0\n";

static void test_proc_stat(void **state)
{
	struct proc_stat st;

	assert_int_equal(proc_stat_parse(stat_line, strlen(stat_line), &st), 0);
	assert_int_equal(st.utime_ticks, 250);
	assert_int_equal(st.stime_ticks, 75);
	assert_int_equal(st.starttime_ticks, 123456);
	assert_int_equal(st.vsize_bytes, 22839296);
	assert_int_equal(st.rss_pages, 1234);
}

static void test_proc_stat_bad(void **state)
{
	struct proc_stat st;
	const char *cases[] = {"", "4242 (x S 1", "4242 (x) S 1 2 3",
			       "4242 (x) S 1 4242 4242 0 -1 "
			       "4194560 1167 0 0 0 abc 75 0 0 20 0 3 0 1 2 3"};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(proc_stat_parse(cases[i], strlen(cases[i]), &st), -EINVAL);
}

static void test_btime(void **state)
{
	const char *text = "cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n";
	uint64_t b = 0;

	assert_int_equal(proc_btime_parse(text, strlen(text), &b), 0);
	assert_int_equal(b, 1700000000);
	assert_int_equal(proc_btime_parse("cpu 1\n", 6, &b), -EINVAL);
	assert_int_equal(proc_btime_parse("btime x\n", 8, &b), -EINVAL);
}

static void test_collect_live(void **state)
{
	/* this process's own /proc: every family present, nothing failed */
	struct metric_sink *s = metric_sink_new();
	struct buf b = BUF_INIT;

	assert_int_equal(selfstats_collect("/proc", s), 0);
	assert_int_equal(metric_sink_render(s, &b), 0);
	assert_non_null(strstr(b.data, "\nprocess_cpu_seconds_total "));
	assert_non_null(strstr(b.data, "\nprocess_resident_memory_bytes "));
	assert_non_null(strstr(b.data, "\nprocess_open_fds "));
	assert_non_null(strstr(b.data, "\nprocess_max_fds "));
	assert_non_null(strstr(b.data, "\nprocess_start_time_seconds "));
	buf_free(&b);
	metric_sink_free(s);
}

/* process_open_fds (from the size of /proc/self/fd on Linux 6.2+) is the listing's count */
static void test_open_fds_exact(void **state)
{
	struct metric_sink *s = metric_sink_new();
	struct buf b = BUF_INIT;
	unsigned long long listed = 0, reported = 0;
	struct dirent *de;
	const char *line;
	int extra = open("/dev/null", O_RDONLY | O_CLOEXEC);
	DIR *d;

	(void)state;
	assert_true(extra >= 0);
	assert_int_equal(selfstats_collect("/proc", s), 0);
	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while ((de = readdir(d)))
		listed += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(metric_sink_render(s, &b), 0);
	line = strstr(b.data, "\nprocess_open_fds ");
	assert_non_null(line);
	assert_int_equal(sscanf(line, "\nprocess_open_fds %llu", &reported), 1);
	/* the listing counts the descriptor of its own opendir */
	assert_int_equal(reported, listed - 1);
	close(extra);
	buf_free(&b);
	metric_sink_free(s);
}

static void test_collect_missing_proc(void **state)
{
	struct metric_sink *s = metric_sink_new();

	/* a missing procfs costs values, never the poll */
	assert_true(selfstats_collect("/nonexistent-proc", s) >= 5);
	metric_sink_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proc_stat),      cmocka_unit_test(test_proc_stat_bad),
		cmocka_unit_test(test_btime),	       cmocka_unit_test(test_collect_live),
		cmocka_unit_test(test_open_fds_exact), cmocka_unit_test(test_collect_missing_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
