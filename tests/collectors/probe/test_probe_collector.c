// SPDX-License-Identifier: Apache-2.0
/*
 * The probe collector's life cycle on a host without RDMA devices (every build
 * machine here): init starts the engine thread, collect reports no device and
 * succeeds without blocking, free stops and joins the thread, repeatedly, with
 * every flag value taken. The targets file (read, re-read on change, a bad
 * file keeping the previous list, the sample) and the UDP discovery sideband
 * (garbage counted, a query with no port to offer counted) work without a
 * device too, and are tested here. The probing itself needs a real verbs
 * device and is tested in the Soft-RoCE VMs (tests/vm/guest-e2e.sh,
 * tests/vm/guest-mesh-*.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "exposition_assert.h"
#include "log.h"
#include "probe.h"
#include "probe_discovery.h"

static void test_lifecycle_without_devices(void **state)
{
	const uint64_t flags[PROBE_FLAG_COUNT_] = {
		[PROBE_FLAG_INTERVAL] = 100, [PROBE_FLAG_COUNT] = 3, [PROBE_FLAG_TIMEOUT] = 10};
	struct collector_ctx ctx = {.sysfs_fd = -1, .flags = flags};

	for (int round = 0; round < 5; round++) {
		struct metric_sink *sink = metric_sink_new();
		struct collector_stats stats = {0};
		struct timespec pause = {0, 20 * 1000 * 1000};
		struct buf out = BUF_INIT;
		void *st = NULL;

		assert_non_null(sink);
		assert_int_equal(probe_collector_ops.init(&ctx, &st), 0);
		assert_non_null(st);
		nanosleep(&pause, NULL); /* let the engine run a sync */
		assert_int_equal(probe_collector_ops.collect(st, sink, &stats), 0);
		assert_int_equal(stats.devices, 0);
		assert_int_equal(stats.read_errors, 0);
		assert_int_equal(metric_sink_samples(sink), 0);
		assert_int_equal(metric_sink_render(sink, &out), 0);
		assert_int_equal(out.len, 0);
		buf_free(&out);
		metric_sink_free(sink);
		probe_collector_ops.free(st);
	}
	probe_collector_ops.free(NULL);
}

/* Renders one collect() into out (freed by the caller with buf_free). */
static void scrape(void *st, struct buf *out)
{
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};

	assert_non_null(sink);
	assert_int_equal(probe_collector_ops.collect(st, sink, &stats), 0);
	*out = (struct buf)BUF_INIT;
	assert_int_equal(metric_sink_render(sink, out), 0);
	assert_int_equal(buf_append(out, "", 1), 0); /* NUL-terminated text */
	metric_sink_free(sink);
}

/* Scrapes until line is in the output, for up to 5 s (the engine looks at
 * the file once a second). */
static bool wait_line(void *st, const char *line)
{
	for (int i = 0; i < 100; i++) {
		struct timespec pause = {0, 50 * 1000 * 1000};
		struct buf out;
		bool ok;

		scrape(st, &out);
		ok = has_line(out.data, line);
		buf_free(&out);
		if (ok)
			return true;
		nanosleep(&pause, NULL);
	}
	return false;
}

/* Peer series with resolve errors: no local RDMA port to probe from. */
static int resolve_failures(void *st)
{
	struct buf out;
	int n = 0;

	scrape(st, &out);
	for (const char *p = out.data; (p = strstr(p, "\nrdma_probe_errors_total{")); p++) {
		const char *end = strchr(p + 1, '\n');
		const char *r = strstr(p, "reason=\"resolve\"} ");

		if (r && (!end || r < end) && r[18] != '0')
			n++;
	}
	buf_free(&out);
	return n;
}

static void write_file(const char *path, const char *text, time_t mtime)
{
	FILE *f = fopen(path, "w");
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* A free UDP port on the loopback address (bound, read, closed). */
static uint16_t free_udp_port(void)
{
	struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET6, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	close(fd);
	return ntohs(a.sin6_port);
}

static void send_udp(uint16_t port, const void *data, size_t len)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(sendto(fd, data, len, 0, (struct sockaddr *)&a, sizeof(a)), (ssize_t)len);
	close(fd);
}

static void test_targets_file_and_sideband(void **state)
{
	char dir[] = "/tmp/probe-test-XXXXXX", path[64], line[256];
	uint16_t port = free_udp_port();
	uint64_t flags[PROBE_FLAG_COUNT_] = {
		[PROBE_FLAG_INTERVAL] = 100,  [PROBE_FLAG_COUNT] = 2,	[PROBE_FLAG_TIMEOUT] = 10,
		[PROBE_FLAG_MAX_TARGETS] = 2, [PROBE_FLAG_PORT] = port, [PROBE_FLAG_RESPONDER] = 1,
	};
	const char *strs[PROBE_FLAG_COUNT_] = {0};
	struct collector_ctx ctx = {.sysfs_fd = -1, .flags = flags, .flag_strs = strs};
	struct probe_disc q = {.type = PROBE_DISC_QUERY, .nonce = 42};
	unsigned char pkt[PROBE_DISC_LEN];
	time_t t0 = time(NULL) - 100;
	struct buf out;
	void *st = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/targets.json", dir);
	strs[PROBE_FLAG_TARGETS_FILE] = path;

	/* Missing at start: no targets, reload failed, the engine runs on. */
	assert_int_equal(probe_collector_ops.init(&ctx, &st), 0);
	nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL); /* a sync or two */
	assert_true(wait_line(st, "rdma_probe_targets_file_reload_success 0"));
	assert_true(wait_line(st, "rdma_probe_targets 0"));

	/* Three targets, at most two probed. With no RDMA port here, every probed
	 * peer fails to resolve (no local port), with its file labels. */
	write_file(path,
		   "[{\"targets\": [\"10.0.0.1\", \"10.0.0.2:7000\"], \"labels\": {\"rack\": "
		   "\"r1\"}},\n"
		   " {\"targets\": [\"10.0.0.3\"]}]\n",
		   t0);
	assert_true(wait_line(st, "rdma_probe_targets 3"));
	assert_true(wait_line(st, "rdma_probe_targets_probed 2"));
	assert_true(wait_line(st, "rdma_probe_targets_file_reload_success 1"));
	for (int i = 0; i < 100 && resolve_failures(st) < 2; i++)
		nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
	assert_int_equal(resolve_failures(st), 2);
	scrape(st, &out);
	assert_line(out.data, "# TYPE rdma_probe_errors_total counter");
	assert_non_null(strstr(out.data, ",rack=\"r1\",reason=\"resolve\"}"));
	assert_null(strstr(out.data,
			   "rdma_probe_sent_total{device=\"\",port=\"\",target=\"10.0.0.3\"} 1"));
	buf_free(&out);

	/* A bad file keeps the previous list. */
	write_file(path, "[{\"targets\": [\"10.0.0.1\"],}]", t0 + 10);
	assert_true(wait_line(st, "rdma_probe_targets_file_reload_success 0"));
	assert_true(wait_line(st, "rdma_probe_targets 3"));

	/* A good one replaces it; the one target left keeps its labels. */
	write_file(path, "[{\"targets\": [\"10.0.0.9\"], \"labels\": {\"pod\": \"p\"}}]", t0 + 20);
	assert_true(wait_line(st, "rdma_probe_targets 1"));
	assert_true(wait_line(st, "rdma_probe_targets_probed 1"));
	assert_true(wait_line(st, "rdma_probe_targets_file_reload_success 1"));
	snprintf(line, sizeof(line),
		 "rdma_probe_sent_total{device=\"\",port=\"\",target=\"10.0.0.9\",pod=\"p\"} 0");
	assert_true(wait_line(st, line));
	scrape(st, &out);
	assert_null(strstr(out.data, "10.0.0.1"));
	buf_free(&out);

	/* SIGHUP re-reads at once. */
	probe_collector_ops.reload(st);
	assert_true(wait_line(st, "rdma_probe_targets 1"));

	/* Sideband: garbage is counted as malformed; a query finds no port. */
	assert_true(wait_line(st, "rdma_probe_discovery_dropped_total{reason=\"malformed\"} 0"));
	send_udp(port, "garbage", 7);
	assert_true(wait_line(st, "rdma_probe_discovery_dropped_total{reason=\"malformed\"} 1"));
	assert_int_equal(probe_disc_encode(&q, pkt, sizeof(pkt)), PROBE_DISC_LEN);
	send_udp(port, pkt, sizeof(pkt));
	assert_true(wait_line(st, "rdma_probe_discovery_dropped_total{reason=\"noport\"} 1"));
	assert_true(wait_line(st, "rdma_probe_discovery_requests_total 0"));

	probe_collector_ops.free(st);
	unlink(path);
	rmdir(dir);
}

static void test_flags_declared(void **state)
{
	assert_int_equal(probe_collector_ops.n_flags, PROBE_FLAG_COUNT_);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_INTERVAL].name, "interval");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_INTERVAL].def, 10000);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_COUNT].name, "count");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_COUNT].def, 5);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_TIMEOUT].name, "timeout");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_TIMEOUT].def, 1000);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_TARGETS_FILE].name,
			    "targets-file");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_TARGETS_FILE].kind,
			 COLLECTOR_FLAG_PATH);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_MAX_TARGETS].name, "max-targets");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_MAX_TARGETS].def, 64);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_PORT].name, "port");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_PORT].def, 9879);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_RESPONDER].name, "responder");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_RESPONDER].kind, COLLECTOR_FLAG_BOOL);
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_RESPONDER].def, 1);
	assert_true(probe_collector_ops.default_enabled);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle_without_devices),
		cmocka_unit_test(test_targets_file_and_sideband),
		cmocka_unit_test(test_flags_declared),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
