// SPDX-License-Identifier: Apache-2.0
/*
 * The sysfs collector with devices whose reads block (a hung firmware),
 * through the read seam of struct sysfs_seams: a blocked device's
 * hw_counters reads wait until the test releases them. The other devices are
 * read on time, the blocked one is reported unresponsive and not read again
 * while its read still blocks, the blocked reader threads stay within their
 * limit, and every device recovers on its own once released.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "base/clock.h"
#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "exposition/metrics.h"
#include "sysfs.h"
#include "sysfs_pool.h"
#include "sysfs_scan.h"

#define MAX_DEVS    16
#define DEADLINE_MS 200
/* A generous bound for one poll with blocked devices: the deadline plus a
 * slow (sanitized, loaded) machine's margin. The bound is "within
 * the usual time", not "never blocks for 90 s". */
#define POLL_BOUND_MS 5000

/* What the seam does: per device, whether its hw_counters reads block. */
struct world {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool block[MAX_DEVS];	       /* reads of this device's hw_counters wait */
	unsigned entered[MAX_DEVS];    /* blocking reads that started */
	uint64_t entered_ms[MAX_DEVS]; /* when the last one started, clock_mono_ms() */
	unsigned inside;	       /* reads waiting right now */
	unsigned reads;		       /* every read */
};

static struct world world = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* "class/infiniband/mlx5_3/ports/1/hw_counters" -> 3; -1 for other paths. */
static int device_of(const char *dir)
{
	static const char prefix[] = "class/infiniband/mlx5_";
	char *end;
	long n;

	if (strncmp(dir, prefix, sizeof(prefix) - 1) != 0 || !strstr(dir, "hw_counters"))
		return -1;
	n = strtol(dir + sizeof(prefix) - 1, &end, 10);
	return *end == '/' && n >= 0 && n < MAX_DEVS ? (int)n : -1;
}

static int blocking_read(void *data, int root, const char *dir, struct sysfs_file *f, char *buf,
			 size_t size)
{
	struct world *w = data;
	int dev = device_of(dir);

	pthread_mutex_lock(&w->lock);
	w->reads++;
	if (dev >= 0 && w->block[dev]) {
		w->entered[dev]++;
		w->entered_ms[dev] = clock_mono_ms();
		w->inside++;
		pthread_cond_broadcast(&w->cond);
		while (w->block[dev])
			pthread_cond_wait(&w->cond, &w->lock);
		w->inside--;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return sysfs_file_read(root, dir, f, buf, size);
}

static void set_block(int dev, bool on)
{
	pthread_mutex_lock(&world.lock);
	world.block[dev] = on;
	pthread_cond_broadcast(&world.cond);
	pthread_mutex_unlock(&world.lock);
}

static unsigned entered(int dev)
{
	unsigned n;

	pthread_mutex_lock(&world.lock);
	n = world.entered[dev];
	pthread_mutex_unlock(&world.lock);
	return n;
}

/* Waits until no read is blocked in the seam (the released ones returned). */
static void wait_released(void)
{
	pthread_mutex_lock(&world.lock);
	while (world.inside)
		pthread_cond_wait(&world.cond, &world.lock);
	pthread_mutex_unlock(&world.lock);
}

struct run {
	int root;
	struct device_filter *filter;
	uint64_t flags[SYSFS_FLAG_COUNT];
	void *state;
	char *text;
	uint64_t poll_ms; /* how long the last collect() took */
	char tmp[64];	  /* a tree of symlinks, or "" for a fixture */
};

static void run_start(struct run *r, int root, unsigned readers)
{
	const struct sysfs_seams seams = {.read = blocking_read, .read_data = &world};
	struct collector_ctx ctx = {0};
	char err[256];

	pthread_mutex_lock(&world.lock);
	memset(world.block, 0, sizeof(world.block));
	memset(world.entered, 0, sizeof(world.entered));
	pthread_mutex_unlock(&world.lock);
	r->root = root;
	r->filter = device_filter_new(NULL, NULL, err, sizeof(err));
	assert_non_null(r->filter);
	r->flags[SYSFS_FLAG_HW_COUNTERS_NETLINK] = 0;
	r->flags[SYSFS_FLAG_DEVICE_TIMEOUT] = DEADLINE_MS;
	r->flags[SYSFS_FLAG_READERS] = readers;
	ctx.sysfs_fd = root;
	ctx.filter = r->filter;
	ctx.rescan_interval_s = 3600;
	ctx.flags = r->flags;
	assert_int_equal(sysfs_collector_init_with(&ctx, &seams, &r->state), 0);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};
	struct buf out = BUF_INIT;
	uint64_t t0 = clock_mono_ms();

	assert_non_null(sink);
	assert_int_equal(sysfs_collector_ops.collect(r->state, sink, &stats), 0);
	r->poll_ms = clock_mono_ms() - t0;
	assert_int_equal(metric_sink_render(sink, &out), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	free(r->text);
	r->text = out.data ? buf_steal(&out, NULL) : strdup("");
	assert_non_null(r->text);
	buf_free(&out);
	metric_sink_free(sink);
}

static void run_stop(struct run *r)
{
	sysfs_collector_ops.free(r->state);
	device_filter_free(r->filter);
	free(r->text);
	close(r->root);
}

/* The value of one series in the last poll, or -1 when it is not there. */
static long long value(const struct run *r, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = r->text; p && *p;) {
		const char *eol = strchr(p, '\n');

		if (strncmp(p, series, n) == 0 && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
		p = eol ? eol + 1 : NULL;
	}
	return -1;
}

static long long responsive(const struct run *r, int dev)
{
	char s[64];

	snprintf(s, sizeof(s), "rdma_device_responsive{device=\"mlx5_%d\"}", dev);
	return value(r, s);
}

/* Whether the poll has port 1's state of the device: its values were read. */
static bool has_values(const struct run *r, int dev)
{
	char s[96];

	snprintf(s, sizeof(s), "rdma_port_state{device=\"mlx5_%d\",port=\"1\"}", dev);
	return value(r, s) >= 0;
}

/* Lines of the device's values: all but its scan-time and responsive samples. */
static unsigned values_of(const struct run *r, int dev)
{
	static const char *const scanned[] = {"rdma_device_info{", "rdma_port_info{",
					      "rdma_port_netdev_info{", "rdma_device_responsive{"};
	char needle[64];
	unsigned n = 0;

	snprintf(needle, sizeof(needle), "device=\"mlx5_%d\"", dev);
	for (const char *p = r->text; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		bool info = false;

		for (size_t i = 0; i < sizeof(scanned) / sizeof(scanned[0]); i++)
			info |= strncmp(p, scanned[i], strlen(scanned[i])) == 0;
		if (*p != '#' && !info && memmem(p, len, needle, strlen(needle)))
			n++;
		p = eol ? eol + 1 : NULL;
	}
	return n;
}

/* Reader threads of the collector alive in this process (by their name:
 * sanitizers start threads of their own). */
static unsigned threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue; /* exited meanwhile */
		if (fgets(comm, sizeof(comm), f) && strcmp(comm, "rdma-sysfs-read\n") == 0)
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* The reader threads once those on their way out are gone: a thread that
 * was let go still shows for a moment (bounded wait). */
static unsigned threads_settled(unsigned want)
{
	unsigned n = threads();

	for (int attempt = 0; attempt < 300 && n != want; attempt++) {
		usleep(10 * 1000);
		n = threads();
	}
	return n;
}

/* Polls until every device in [0, n) answers again; bounded (a reader
 * thread must get scheduled after its release). */
static void poll_until_all_answer(struct run *r, int n)
{
	for (int attempt = 0; attempt < 200; attempt++) {
		int ok = 0;

		run_poll(r);
		for (int d = 0; d < n; d++)
			ok += responsive(r, d) == 1 && has_values(r, d);
		if (ok == n)
			return;
		usleep(20 * 1000);
	}
	fail_msg("the devices did not all answer again:\n%s", r->text);
}

static int open_fixture(const char *name)
{
	char path[PATH_MAX];
	const char *f = getenv("FIXTURES");
	int fd;

	assert_non_null(f);
	snprintf(path, sizeof(path), "%s/sysfs/%s", f, name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* A tree of n devices mlx5_0..: symlinks to the mlx5-roce fixture's mlx5_0,
 * as class/infiniband's entries are links in sysfs. */
static int symlink_tree(struct run *r, int n)
{
	char path[PATH_MAX], target[PATH_MAX], *real;
	int fd;

	snprintf(target, sizeof(target), "%s/sysfs/mlx5-roce/class/infiniband/mlx5_0",
		 getenv("FIXTURES"));
	real = realpath(target, NULL);
	assert_non_null(real);
	snprintf(r->tmp, sizeof(r->tmp), "/tmp/test_sysfs_blocking_XXXXXX");
	assert_non_null(mkdtemp(r->tmp));
	snprintf(path, sizeof(path), "%s/class", r->tmp);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/class/infiniband", r->tmp);
	assert_int_equal(mkdir(path, 0755), 0);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_%d", r->tmp, i);
		assert_int_equal(symlink(real, path), 0);
	}
	free(real);
	fd = open(r->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static void symlink_tree_remove(struct run *r, int n)
{
	char path[PATH_MAX];

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/class/infiniband/mlx5_%d", r->tmp, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/class/infiniband", r->tmp);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/class", r->tmp);
	rmdir(path);
	rmdir(r->tmp);
}

/* One of two devices blocks: the other is read on time, the blocked one is
 * unresponsive and read no more until its read returns, then answers again. */
static void test_one_device_blocks(void **state)
{
	char *logbuf = NULL;
	size_t loglen = 0;
	FILE *logf = open_memstream(&logbuf, &loglen);
	struct run r = {0};
	unsigned base_threads = threads_settled(0);

	assert_non_null(logf);
	log_set_output(logf);
	log_set_level(LOG_INFO);
	run_start(&r, open_fixture("mlx5-roce"), 2);
	run_poll(&r);
	assert_int_equal(responsive(&r, 0), 1);
	assert_int_equal(responsive(&r, 1), 1);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_readers"), 2);

	set_block(1, true);
	for (int poll = 0; poll < 3; poll++) {
		run_poll(&r);
		assert_true(r.poll_ms < POLL_BOUND_MS);
		/* mlx5_0 is read as always */
		assert_int_equal(responsive(&r, 0), 1);
		assert_true(has_values(&r, 0));
		/* mlx5_1: unresponsive, none of its values, one read in all */
		assert_int_equal(responsive(&r, 1), 0);
		assert_false(has_values(&r, 1));
		assert_int_equal(values_of(&r, 1), 0);
		/* ... but what its scan found stays */
		assert_true(value(&r, "rdma_port_info{device=\"mlx5_1\",port=\"1\","
				      "link_layer=\"Ethernet\"}") == 1);
		assert_non_null(strstr(r.text, "\nrdma_device_info{device=\"mlx5_1\","));
		assert_int_equal(entered(1), 1);
		assert_int_equal(value(&r, "rdma_exporter_sysfs_blocked_readers"), 1);
		/* the blocked reader was replaced: two read, one waits */
		assert_int_equal(value(&r, "rdma_exporter_sysfs_readers"), 2);
		assert_int_equal(threads(), base_threads + 3);
		assert_int_equal(value(&r, "rdma_exporter_sysfs_devices_skipped_total"), 0);
	}

	set_block(1, false);
	wait_released();
	poll_until_all_answer(&r, 2);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_blocked_readers"), 0);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_readers"), 2);
	run_stop(&r);
	log_set_level(LOG_ERR);
	log_set_output(stderr);
	fclose(logf);
	/* said once each, with the device and the deadline */
	assert_non_null(
		strstr(logbuf, "level=warn msg=\"device does not answer: its reads block; "));
	assert_non_null(strstr(logbuf, "device=mlx5_1 timeout_ms=200"));
	assert_null(strstr(strstr(logbuf, "device does not answer") + 1, "device does not answer"));
	assert_non_null(strstr(logbuf, "level=info msg=\"device answers again\" collector=sysfs "
				       "device=mlx5_1 unresponsive_ms="));
	free(logbuf);
	(void)state;
}

/* Every device blocks: the blocked readers are replaced up to the limit,
 * then the pool shrinks; the devices left are skipped (and said so), never
 * more than readers + SYSFS_BLOCKED_READERS_MAX threads; all recover. */
static void test_blocked_reader_limit(void **state)
{
	enum { N = 12, READERS = 2 };
	unsigned base_threads = threads_settled(0), max_threads = 0;
	struct run r = {0};

	run_start(&r, symlink_tree(&r, N), READERS);
	run_poll(&r);
	for (int d = 0; d < N; d++)
		assert_int_equal(responsive(&r, d), 1);
	for (int d = 0; d < N; d++)
		set_block(d, true);
	for (int poll = 0; poll < 10; poll++) {
		unsigned t;
		long long blocked;

		run_poll(&r);
		assert_true(r.poll_ms < POLL_BOUND_MS);
		t = threads() - base_threads;
		max_threads = t > max_threads ? t : max_threads;
		blocked = value(&r, "rdma_exporter_sysfs_blocked_readers");
		assert_true(blocked >= 1 && blocked <= READERS + SYSFS_BLOCKED_READERS_MAX);
		assert_true(t <= READERS + SYSFS_BLOCKED_READERS_MAX);
		/* at most one blocked read per device */
		for (int d = 0; d < N; d++)
			assert_true(entered(d) <= 1);
	}
	/* the limit was reached: every thread blocked, the rest skipped */
	assert_int_equal(max_threads, READERS + SYSFS_BLOCKED_READERS_MAX);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_blocked_readers"),
			 READERS + SYSFS_BLOCKED_READERS_MAX);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_readers"), 0);
	assert_true(value(&r, "rdma_exporter_sysfs_devices_skipped_total") > 0);
	for (int d = 0; d < N; d++) {
		/* blocked: 0; skipped (never read since): no sample at all */
		long long v = responsive(&r, d);

		assert_true(entered(d) ? v == 0 : v == -1);
		assert_int_equal(values_of(&r, d), 0);
	}

	for (int d = 0; d < N; d++)
		set_block(d, false);
	wait_released();
	poll_until_all_answer(&r, N);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_blocked_readers"), 0);
	assert_int_equal(value(&r, "rdma_exporter_sysfs_readers"), READERS);
	run_stop(&r);
	/* the threads past the pool size exited */
	assert_int_equal(threads_settled(base_threads), base_threads);
	symlink_tree_remove(&r, N);
	(void)state;
}

/* The collector is freed while a read blocks (SIGTERM during a hang): free()
 * returns at once; the reader frees the job when the read returns. */
static void test_free_while_blocked(void **state)
{
	unsigned base_threads = threads_settled(0);
	struct run r = {0};

	run_start(&r, open_fixture("mlx5-roce"), 2);
	set_block(0, true);
	run_poll(&r);
	assert_int_equal(responsive(&r, 0), 0);
	assert_int_equal(responsive(&r, 1), 1);
	run_stop(&r);
	/* only the blocked reader is left */
	assert_int_equal(threads_settled(base_threads + 1), base_threads + 1);
	set_block(0, false);
	wait_released();
	assert_int_equal(threads_settled(base_threads), base_threads);
	(void)state;
}

/* The default device deadline: from the collector's own, else the poll
 * interval; always below the collector's. */
static void test_device_timeout(void **state)
{
	/* a quarter of the interval, within 500ms..5s */
	assert_int_equal(sysfs_device_timeout_ms(0, 0, 5000), 1250);
	assert_int_equal(sysfs_device_timeout_ms(0, 0, 1000), 500);
	assert_int_equal(sysfs_device_timeout_ms(0, 0, 0), 500);
	assert_int_equal(sysfs_device_timeout_ms(0, 0, 60000), 5000);
	/* half the collector's deadline */
	assert_int_equal(sysfs_device_timeout_ms(0, 4000, 5000), 2000);
	assert_int_equal(sysfs_device_timeout_ms(0, 600, 5000), 300);
	/* the flag as given, but never at or past the collector's deadline */
	assert_int_equal(sysfs_device_timeout_ms(200, 0, 5000), 200);
	assert_int_equal(sysfs_device_timeout_ms(200, 1000, 5000), 200);
	assert_int_equal(sysfs_device_timeout_ms(3000, 1000, 5000), 500);
	/* a hung device's retry: an eighth, at least 100 ms, at most the deadline */
	assert_int_equal(sysfs_retry_timeout_ms(4000), 500);
	assert_int_equal(sysfs_retry_timeout_ms(1250), 156);
	assert_int_equal(sysfs_retry_timeout_ms(600), SYSFS_RETRY_TIMEOUT_MIN_MS);
	assert_int_equal(sysfs_retry_timeout_ms(60), 60);
	(void)state;
}

static uint64_t entered_ms(int dev)
{
	uint64_t ms;

	pthread_mutex_lock(&world.lock);
	ms = world.entered_ms[dev];
	pthread_mutex_unlock(&world.lock);
	return ms;
}

/*
 * Polls until the device's job is queued again and its read entered the
 * seam (a returned read's job is busy until its thread is done with it; a
 * poll meanwhile leaves it out and returns at once). Returns when the poll
 * that queued it started; bounded.
 */
static uint64_t poll_until_entered(struct run *r, int dev, unsigned n)
{
	for (int attempt = 0; attempt < 500; attempt++) {
		uint64_t t = clock_mono_ms();

		run_poll(r);
		if (entered(dev) == n)
			return t;
		assert_true(entered(dev) < n);
		usleep(10 * 1000);
	}
	fail_msg("the device was not read again");
	return 0;
}

/*
 * A hung device is tried again, once its late read returns, with the short
 * retry deadline; one whose late read returned within the device deadline
 * (slow, not hung) gets the whole deadline again. What the collector
 * decides from, a late read's time from its job's start to its return, is
 * set here from the clock: a read released a deadline after it entered
 * took longer than the deadline whatever the machine's speed. The device
 * deadline is long (4 s) so that the upper bound below holds on a loaded
 * machine: a poll that waited the retry deadline (500 ms) has 3.5 s to
 * spare, while one that waited the device deadline took at least that long
 * (a lower bound the clock guarantees).
 */
static void test_hung_device_retry(void **state)
{
	enum { LONG_MS = 4000 };
	struct run r = {0};
	uint64_t t_retry, t_next;

	run_start(&r, open_fixture("mlx5-roce"), 2);
	sysfs_collector_ops.free(r.state);
	r.flags[SYSFS_FLAG_DEVICE_TIMEOUT] = LONG_MS;
	{
		const struct sysfs_seams seams = {.read = blocking_read, .read_data = &world};
		struct collector_ctx ctx = {
			.sysfs_fd = r.root,
			.filter = r.filter,
			.rescan_interval_s = 3600,
			.flags = r.flags,
		};

		assert_int_equal(sysfs_collector_init_with(&ctx, &seams, &r.state), 0);
	}
	run_poll(&r);
	assert_int_equal(responsive(&r, 1), 1);

	/* hangs: the first late read waits the device deadline */
	set_block(1, true);
	run_poll(&r);
	assert_int_equal(responsive(&r, 1), 0);
	assert_true(r.poll_ms >= LONG_MS);
	/* the late read returns more than a deadline after it began, and the
	 * device still hangs: its retry waits the retry deadline only */
	while (clock_mono_ms() <= entered_ms(1) + LONG_MS)
		usleep(10 * 1000);
	set_block(1, false);
	wait_released();
	set_block(1, true);
	t_retry = poll_until_entered(&r, 1, 2);
	assert_int_equal(responsive(&r, 1), 0);
	assert_true(has_values(&r, 0));
	assert_true(r.poll_ms < LONG_MS);
	/* that late read returns at once: slow, not hung, so the next try
	 * waits the whole deadline again. Its time is at most from the poll
	 * that queued it to the one that queues it again; where this machine
	 * took a deadline or more for that, the read may count as hung and the
	 * check does not hold: it is left out then. */
	set_block(1, false);
	wait_released();
	set_block(1, true);
	t_next = poll_until_entered(&r, 1, 3);
	assert_int_equal(responsive(&r, 1), 0);
	if (t_next - t_retry < LONG_MS)
		assert_true(r.poll_ms >= LONG_MS);
	else
		print_message("slow machine: the slow-device case was not reached\n");
	set_block(1, false);
	wait_released();
	poll_until_all_answer(&r, 2);
	run_stop(&r);
	(void)state;
}

/* A task that notes the thread it ran on. */
struct where_task {
	struct sysfs_task task; /* first: the pool hands it back */
	pthread_t ran_on;
};

static void where_run(struct sysfs_task *t, void *reader)
{
	(void)reader;
	((struct where_task *)t)->ran_on = pthread_self();
}

static void where_release(struct sysfs_task *t)
{
	(void)t;
}

/*
 * Batches one after the other run on the reader idle most recently, not on
 * each reader in turn: each reader becomes idle for the first time once, so
 * the thread changes at most readers - 1 times (a reader that starts late),
 * however many batches; in turn it would change at every batch.
 */
static void test_pool_reuses_last_reader(void **state)
{
	const struct sysfs_pool_cfg cfg = {.readers = 4, .blocked_max = 2};
	struct sysfs_pool *p = sysfs_pool_new(&cfg);
	struct where_task w = {.task = {.run = where_run, .release = where_release}};
	struct sysfs_task *batch[] = {&w.task};
	pthread_t last = 0;
	unsigned changes = 0;

	(void)state;
	assert_non_null(p);
	for (int i = 0; i < 24; i++) {
		sysfs_pool_run(p, batch, 1, clock_mono_ms() + POLL_BOUND_MS);
		assert_int_equal(w.task.outcome, SYSFS_TASK_DONE);
		if (i && !pthread_equal(w.ran_on, last))
			changes++;
		last = w.ran_on;
	}
	assert_true(changes <= cfg.readers - 1);
	sysfs_pool_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_device_blocks),
		cmocka_unit_test(test_blocked_reader_limit),
		cmocka_unit_test(test_free_while_blocked),
		cmocka_unit_test(test_device_timeout),
		cmocka_unit_test(test_hung_device_retry),
		cmocka_unit_test(test_pool_reuses_last_reader),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
