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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/log.h"
#include "exposition_assert.h"
#include "probe.h"
#include "probe_discovery.h"
#include "probe_internal.h"

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

/* The file replaced at once (written aside, its times set, renamed over):
 * the engine's look at the file never finds it half written or with the
 * times still to be set, each of which was a load of its own. */
static void write_file(const char *path, const char *text, time_t mtime)
{
	char tmp[PATH_MAX];
	FILE *f;
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(utimensat(AT_FDCWD, tmp, ts, 0), 0);
	assert_int_equal(rename(tmp, path), 0);
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

/* UDP sockets this process holds: /proc/self/fd socket inodes found in
 * /proc/self/net/udp or udp6. */
static int udp_sockets(void)
{
	static const char *const tables[] = {"/proc/self/net/udp", "/proc/self/net/udp6"};
	unsigned long inodes[256];
	int n_inodes = 0, n = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) && n_inodes < 256) {
		char link[300], target[64];
		ssize_t l;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		l = readlink(link, target, sizeof(target) - 1);
		if (l <= 0)
			continue;
		target[l] = '\0';
		if (sscanf(target, "socket:[%lu]", &inodes[n_inodes]) == 1)
			n_inodes++;
	}
	closedir(d);
	for (int t = 0; t < 2; t++) {
		FILE *f = fopen(tables[t], "r");
		char line[512];

		if (!f)
			continue; /* no IPv6 */
		while (fgets(line, sizeof(line), f)) {
			unsigned long ino;

			/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
			if (sscanf(line, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %lu", &ino) != 1)
				continue;
			for (int i = 0; i < n_inodes; i++)
				n += inodes[i] == ino;
		}
		fclose(f);
	}
	return n;
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
	assert_int_equal(udp_sockets(), 0);

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

	/* A bad file (here one cut short while written) keeps the previous list. */
	write_file(path, "[{\"targets\": [\"10.0.0.1\"]", t0 + 10);
	assert_true(wait_line(st, "rdma_probe_targets_file_reload_success 0"));
	assert_true(wait_line(st, "rdma_probe_targets 3"));

	/* A good one replaces it, YAML as well as JSON; the one target left
	 * keeps its labels. */
	write_file(path, "- targets: [10.0.0.9]\n  labels:\n    pod: p\n", t0 + 20);
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

	/* No RDMA port: no discovery socket, but its counters are there. */
	assert_true(wait_line(st, "rdma_probe_discovery_dropped_total{reason=\"malformed\"} 0"));
	assert_int_equal(udp_sockets(), 0);

	probe_collector_ops.free(st);
	unlink(path);
	rmdir(dir);
}

/* Lines of the log file at path containing needle (read apart from the writer). */
static int log_lines(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* At least n loads of the targets file, each with its warning (the load is
 * said first, then the labels it dropped). */
static bool loads_warned(const char *path, int n)
{
	int warned = log_lines(path, "labels dropped");

	return warned >= n && warned == log_lines(path, "probe targets-file loaded");
}

/*
 * A Prometheus file_sd file as it is: job, instance and __meta_* labels are
 * dropped from the series with one warning per load; the sample (2 of 4) is
 * the same whatever the order of the file, load after load.
 */
static void test_targets_file_sd_labels_and_stable_sample(void **state)
{
	char dir[] = "/tmp/probe-test-XXXXXX", path[64], logpath[64], probed[2][512];
	uint64_t flags[PROBE_FLAG_COUNT_] = {
		[PROBE_FLAG_INTERVAL] = 100,	     [PROBE_FLAG_COUNT] = 2,
		[PROBE_FLAG_TIMEOUT] = 10,	     [PROBE_FLAG_MAX_TARGETS] = 2,
		[PROBE_FLAG_PORT] = free_udp_port(),
	};
	const char *strs[PROBE_FLAG_COUNT_] = {0};
	struct collector_ctx ctx = {.sysfs_fd = -1, .flags = flags, .flag_strs = strs};
	static const char *const files[2] = {
		"[{\"targets\": [\"10.0.0.1\", \"10.0.0.2\", \"10.0.0.3\", \"10.0.0.4\"], "
		"\"labels\": {\"job\": \"rdma\", \"instance\": \"x:9879\", \"__meta_filepath\": "
		"\"/sd.json\", \"rack\": \"r1\"}}]",
		"[{\"targets\": [\"10.0.0.4\", \"10.0.0.3\", \"10.0.0.2\", \"10.0.0.1\"], "
		"\"labels\": {\"rack\": \"r1\", \"__meta_filepath\": \"/sd.json\", \"job\": "
		"\"rdma\"}}]"};
	FILE *logf;
	time_t t0 = time(NULL) - 100;
	void *st = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/targets.json", dir);
	snprintf(logpath, sizeof(logpath), "%s/log", dir);
	logf = fopen(logpath, "a");
	assert_non_null(logf);
	setvbuf(logf, NULL, _IOLBF, 0);
	strs[PROBE_FLAG_TARGETS_FILE] = path;
	log_set_output(logf);
	log_set_level(LOG_INFO);
	for (int f = 0; f < 2; f++) {
		struct buf out;
		size_t n = 0;

		write_file(path, files[f], t0 + f * 10);
		if (!st)
			assert_int_equal(probe_collector_ops.init(&ctx, &st), 0);
		else
			probe_collector_ops.reload(st);
		/* one warning per load: the engine's own look at the changed file
		 * and the reload may each load it, in either order */
		for (int i = 0; i < 200 && !loads_warned(logpath, f + 1); i++)
			nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
		assert_true(log_lines(logpath, "labels dropped") >= f + 1);
		assert_int_equal(log_lines(logpath, "labels dropped"),
				 log_lines(logpath, "probe targets-file loaded"));
		assert_true(wait_line(st, "rdma_probe_targets_probed 2"));
		scrape(st, &out);
		assert_null(strstr(out.data, "job="));
		assert_null(strstr(out.data, "instance="));
		assert_null(strstr(out.data, "__meta"));
		/* the sampled targets, in the order of the page */
		probed[f][0] = 0;
		for (const char *p = out.data; (p = strstr(p, "\nrdma_probe_sent_total{")); p++) {
			const char *t = strstr(p, "target=\"10.0.0.");

			if (t && t < strchr(p + 1, '\n') && n++ < 2)
				strncat(probed[f], t, 18);
		}
		assert_int_equal(n, 2);
		assert_non_null(strstr(out.data, ",rack=\"r1\""));
		buf_free(&out);
	}
	assert_string_equal(probed[0], probed[1]);
	probe_collector_ops.free(st);
	log_set_output(NULL);
	log_set_level(LOG_ERR);
	fclose(logf);
	unlink(logpath);
	unlink(path);
	rmdir(dir);
}

/* A valid targets file is loaded before init returns: the first poll
 * already shows its targets and a successful load. */
static void test_targets_file_in_first_scrape(void **state)
{
	char dir[] = "/tmp/probe-test-XXXXXX", path[64];
	const uint64_t flags[PROBE_FLAG_COUNT_] = {
		[PROBE_FLAG_INTERVAL] = 100, [PROBE_FLAG_COUNT] = 1,
		[PROBE_FLAG_TIMEOUT] = 10,   [PROBE_FLAG_MAX_TARGETS] = 64,
		[PROBE_FLAG_PORT] = 9879,    [PROBE_FLAG_RESPONDER] = 1};
	const char *strs[PROBE_FLAG_COUNT_] = {0};
	struct collector_ctx ctx = {.sysfs_fd = -1, .flags = flags, .flag_strs = strs};
	struct buf out;
	void *st = NULL;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/targets.json", dir);
	strs[PROBE_FLAG_TARGETS_FILE] = path;
	write_file(path, "[{\"targets\": [\"10.0.0.1\", \"10.0.0.2\"]}]", time(NULL) - 100);
	assert_int_equal(probe_collector_ops.init(&ctx, &st), 0);
	scrape(st, &out);
	assert_line(out.data, "rdma_probe_targets 2");
	assert_line(out.data, "rdma_probe_targets_file_reload_success 1");
	buf_free(&out);
	/* No RDMA port here: no discovery socket, not even the client's. */
	assert_int_equal(udp_sockets(), 0);
	probe_collector_ops.free(st);
	unlink(path);
	rmdir(dir);
}

/* Takes what came to the sideband socket sb of st. */
static void sideband_take(struct probe_state *st)
{
	struct pollfd p = {.fd = st->sb[0].fd, .events = POLLIN};

	assert_int_equal(poll(&p, 1, 2000), 1);
	pthread_mutex_lock(&st->lock);
	probe_sideband_input(st, &st->sb[0]);
	pthread_mutex_unlock(&st->lock);
}

/* The sideband's input through its seam (a socket bound to 127.0.0.1, no
 * engine, no RDMA port): garbage is malformed, a query finds no port, an
 * answer to no query in flight is unexpected, one to ours is taken. */
static void test_sideband_input(void **state)
{
	struct probe_state *st = calloc(1, sizeof(*st));
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t al = sizeof(a);
	struct probe_disc q = {.type = PROBE_DISC_QUERY, .nonce = 42};
	struct probe_disc ans = {
		.type = PROBE_DISC_ANSWER, .nonce = 7, .qpn = 5, .link_layer = PROBE_DISC_LINK_ETH};
	unsigned char pkt[PROBE_DISC_LEN];
	int fd;

	assert_non_null(st);
	pthread_mutex_init(&st->lock, NULL);
	st->responder = true;
	st->interval_ms = 1000;
	st->n_peers = 1;
	st->peers = calloc(1, sizeof(*st->peers));
	assert_non_null(st->peers);
	assert_int_equal(probe_ratelimit_init(&st->disc_rl, 16, 100.0, 100.0), 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	st->sb[0].fd = fd;
	st->sb[0].a.addr[10] = st->sb[0].a.addr[11] = 0xff;
	memcpy(st->sb[0].a.addr + 12, &a.sin_addr, 4);
	st->n_sb = 1;

	send_udp(ntohs(a.sin_port), "garbage", 7);
	sideband_take(st);
	assert_int_equal(st->disc_dropped[DD_MALFORMED], 1);

	assert_int_equal(probe_disc_encode(&q, pkt, sizeof(pkt)), PROBE_DISC_LEN);
	send_udp(ntohs(a.sin_port), pkt, sizeof(pkt));
	sideband_take(st);
	assert_int_equal(st->disc_dropped[DD_NOPORT], 1);
	assert_int_equal(st->disc_requests, 0);

	/* Unsolicited: no peer has a query in flight. */
	assert_int_equal(probe_disc_encode(&ans, pkt, sizeof(pkt)), PROBE_DISC_LEN);
	send_udp(ntohs(a.sin_port), pkt, sizeof(pkt));
	sideband_take(st);
	assert_int_equal(st->disc_dropped[DD_UNEXPECTED], 1);

	/* Ours (same nonce, query in flight): taken, not counted; with no local
	 * port to probe from, the peer backs off. */
	st->peers[0] = (struct peer){.used = true, .slot = -1, .rs = RS_QUERY, .nonce = 7};
	send_udp(ntohs(a.sin_port), pkt, sizeof(pkt));
	sideband_take(st);
	assert_int_equal(st->disc_dropped[DD_UNEXPECTED], 1);
	assert_int_equal(st->peers[0].rs, RS_WAIT);
	assert_int_equal(st->disc_dropped[DD_MALFORMED], 1);

	probe_sideband_close_all(st);
	assert_int_equal(st->n_sb, 0);
	probe_ratelimit_free(&st->disc_rl);
	free(st->peers);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* --collector.probe.listen-address values. */
static void test_bind_parse(void **state)
{
	struct probe_bind_addr a[PROBE_BIND_MAX];
	char why[160] = "", many[PROBE_BIND_MAX * 16 + 32] = "";
	static const uint8_t v4[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};

	assert_int_equal(probe_bind_parse("192.0.2.1", a, why, sizeof(why)), 1);
	assert_memory_equal(a[0].addr, v4, 16);
	assert_true(probe_bind_is_v4(&a[0]));
	assert_int_equal(probe_bind_parse("192.0.2.1,2001:db8::1", a, why, sizeof(why)), 2);
	assert_false(probe_bind_is_v4(&a[1]));
	assert_int_equal(a[1].addr[0], 0x20);
	assert_int_equal(a[1].addr[15], 1);
	assert_int_equal(probe_bind_check("::1", why, sizeof(why)), 0);

	assert_int_equal(probe_bind_parse("", a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "is empty"));
	assert_int_equal(probe_bind_parse("192.0.2.1,", a, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_bind_parse("192.0.2.1:9879", a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no port"));
	assert_int_equal(probe_bind_parse("[2001:db8::1]", a, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_bind_parse("0.0.0.0", a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "wildcard"));
	assert_int_equal(probe_bind_parse("::", a, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_bind_parse("::ffff:0.0.0.0", a, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_bind_parse("::ffff:192.0.2.1", a, why, sizeof(why)), 1);
	assert_memory_equal(a[0].addr, v4, 16);
	assert_int_equal(probe_bind_parse("239.1.1.1", a, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_bind_parse("fe80::1", a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "link-local"));
	assert_int_equal(probe_bind_parse("host.example", a, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_bind_parse("10.0.0.1,10.0.0.1", a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "twice"));
	for (int i = 0; i <= PROBE_BIND_MAX; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s10.0.0.%d",
			 i ? "," : "", i + 1);
	assert_int_equal(probe_bind_parse(many, a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "more than 16"));
	assert_int_equal(probe_bind_check("10.0.0.1,,10.0.0.2", why, sizeof(why)), -EINVAL);
}

static struct probe_bind_cand cand4(uint8_t last, bool ipoib)
{
	struct probe_bind_cand c = {.ipoib = ipoib};

	c.a.addr[10] = c.a.addr[11] = 0xff;
	c.a.addr[12] = 10;
	c.a.addr[15] = last;
	return c;
}

/* The sideband's addresses from the interfaces' and the ports' GIDs. */
static void test_bind_select(void **state)
{
	struct probe_bind_cand c[5] = {cand4(1, false), cand4(2, false), cand4(3, true),
				       cand4(1, false)};
	struct probe_bind_addr out[PROBE_BIND_MAX];
	uint8_t gids[2][16];

	/* fe80::1 on interface 7: a link-local RoCE GID keeps its scope */
	c[4].a.addr[0] = 0xfe;
	c[4].a.addr[1] = 0x80;
	c[4].a.addr[15] = 1;
	c[4].a.scope = 7;
	memcpy(gids[0], c[1].a.addr, 16);
	memcpy(gids[1], c[4].a.addr, 16);

	/* No port open: nothing (the caller does not even ask); no GID, no IB: nothing. */
	assert_int_equal(probe_bind_select(c, 5, NULL, 0, false, out, PROBE_BIND_MAX), 0);
	/* RoCE: only the addresses that are GIDs of a port. */
	assert_int_equal(
		probe_bind_select(c, 5, (const uint8_t(*)[16])gids, 2, false, out, PROBE_BIND_MAX),
		2);
	assert_memory_equal(out[0].addr, c[1].a.addr, 16);
	assert_memory_equal(out[1].addr, c[4].a.addr, 16);
	assert_int_equal(out[1].scope, 7);
	/* InfiniBand: the IPoIB interfaces' addresses too; a duplicate once. */
	memcpy(gids[1], c[0].a.addr, 16);
	assert_int_equal(
		probe_bind_select(c, 5, (const uint8_t(*)[16])gids, 2, true, out, PROBE_BIND_MAX),
		3);
	assert_int_equal(out[0].addr[15], 1);
	assert_int_equal(out[1].addr[15], 2);
	assert_int_equal(out[2].addr[15], 3);
	/* Capped. */
	assert_int_equal(probe_bind_select(c, 5, (const uint8_t(*)[16])gids, 2, true, out, 1), 1);
}

/* The value of the sample line that starts with prefix (name and labels). */
static double sample_value(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p && strncmp(p, prefix, n) != 0) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	assert_non_null(p);
	return strtod(p + n, NULL);
}

/* A reply built the way the responder builds it, as the requester decodes it. */
static struct probe_packet reply_with(uint64_t rx_ns, uint64_t tx_ns)
{
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST, .seq = 1}, rep;
	uint8_t pkt[PROBE_PACKET_LEN];

	assert_int_equal(probe_packet_encode(&req, pkt, sizeof(pkt)), PROBE_PACKET_LEN);
	assert_int_equal(probe_packet_make_reply(pkt, sizeof(pkt), 5, rx_ns, tx_ns, 0), 0);
	assert_int_equal(probe_packet_decode(pkt, sizeof(pkt), &rep), 0);
	return rep;
}

/* Replies split into network RTT and responder turnaround, as exported. */
static void test_network_rtt_export(void **state)
{
	struct probe_state *st = calloc(1, sizeof(*st));
	struct metric_sink *sink = metric_sink_new();
	struct collector_stats stats = {0};
	struct buf out = BUF_INIT;
	struct probe_packet rep;
	struct peer *pe;
	const char *lb = "{device=\"rxe0\",port=\"1\",target=\"node-b:4791\"";

	assert_non_null(st);
	assert_non_null(sink);
	pthread_mutex_init(&st->lock, NULL);
	st->n_peers = 1;
	st->peers = calloc(1, sizeof(*st->peers));
	assert_non_null(st->peers);
	st->target_histograms = true; /* the per-target buckets */
	pe = probe_peer_new(st);
	assert_non_null(pe);
	pe->target = strdup("node-b:4791");
	snprintf(pe->device, sizeof(pe->device), "rxe0");
	snprintf(pe->port_str, sizeof(pe->port_str), "1");

	/* 10 us, 3 us of it the responder's (its clock far from ours). */
	rep = reply_with(7000000000000ull, 7000000003000ull);
	probe_peer_record_reply(pe, NULL, 10000, &rep);
	/* 20 us with a 50 us turnaround: cut to 20 us, network 0. */
	rep = reply_with(100, 50100);
	probe_peer_record_reply(pe, NULL, 20000, &rep);
	/* 4 us with the readings backwards: all network. */
	rep = reply_with(900, 100);
	probe_peer_record_reply(pe, NULL, 4000, &rep);

	assert_int_equal(probe_collect(st, sink, &stats), 0);
	assert_int_equal(metric_sink_render(sink, &out), 0);
	assert_int_equal(buf_append(&out, "", 1), 0);
	{
		char k[256];

		snprintf(k, sizeof(k), "rdma_probe_rtt_seconds_count%s} ", lb);
		assert_true(sample_value(out.data, k) == 3);
		snprintf(k, sizeof(k), "rdma_probe_network_rtt_seconds_count%s} ", lb);
		assert_true(sample_value(out.data, k) == 3);
		snprintf(k, sizeof(k), "rdma_probe_network_rtt_seconds_sum%s} ", lb);
		assert_float_equal(sample_value(out.data, k), 11e-6, 1e-12);
		snprintf(k, sizeof(k), "rdma_probe_responder_turnaround_seconds_total%s} ", lb);
		assert_float_equal(sample_value(out.data, k), 23e-6, 1e-12);
		/* network 7 us and 4 us below 10 us, the clamped 0 in the first bucket */
		snprintf(k, sizeof(k), "rdma_probe_network_rtt_seconds_bucket%s,le=\"1e-06\"} ",
			 lb);
		assert_true(sample_value(out.data, k) == 1);
		snprintf(k, sizeof(k), "rdma_probe_network_rtt_seconds_bucket%s,le=\"1e-05\"} ",
			 lb);
		assert_true(sample_value(out.data, k) == 3);
		snprintf(k, sizeof(k), "rdma_probe_rtt_seconds_sum%s} ", lb);
		assert_float_equal(sample_value(out.data, k), 34e-6, 1e-12);
	}
	assert_true(
		strstr(out.data, "# TYPE rdma_probe_responder_turnaround_seconds_total counter"));
	buf_free(&out);
	metric_sink_free(sink);
	probe_peer_free(st, pe);
	free(st->peers);
	pthread_mutex_destroy(&st->lock);
	free(st);
}

/* After answering a wake-up request the engine keeps polling until the time
 * the wake-ups asked for (probe_pace_responder_spin_ns), then sleeps again. */
static void test_responder_spin(void **state)
{
	struct probe_state st = {0};

	assert_false(probe_responder_spin(&st, 1000000000ull)); /* never answered */
	st.spin_until_ns = 1000000000ull + probe_pace_responder_spin_ns(0);
	assert_true(probe_responder_spin(&st, 1000000000ull));
	assert_true(probe_responder_spin(&st, 1000499999ull));
	assert_false(probe_responder_spin(&st, 1000500000ull));
	assert_false(probe_responder_spin(&st, 2000000000ull));
}

/* --collector.probe.targets-dns through the engine: a literal name resolves
 * at once (getaddrinfo_a), its address becomes the one target, with the
 * name's port, and no targets file numbers are exported. */
static void test_targets_dns_engine(void **state)
{
	uint64_t flags[PROBE_FLAG_COUNT_] = {
		[PROBE_FLAG_INTERVAL] = 100,	     [PROBE_FLAG_COUNT] = 2,
		[PROBE_FLAG_TIMEOUT] = 10,	     [PROBE_FLAG_MAX_TARGETS] = 2,
		[PROBE_FLAG_PORT] = free_udp_port(), [PROBE_FLAG_RESPONDER] = 0,
	};
	const char *strs[PROBE_FLAG_COUNT_] = {[PROBE_FLAG_TARGETS_DNS] = "10.0.0.7:7000"};
	struct collector_ctx ctx = {.sysfs_fd = -1, .flags = flags, .flag_strs = strs};
	struct buf out;
	void *st = NULL;

	/* An address literal is answered without getaddrinfo_a's thread (which
	 * ThreadSanitizer never sees, and crashes in): this runs under TSan too. */
	assert_int_equal(probe_collector_ops.init(&ctx, &st), 0);
	assert_true(wait_line(st, "rdma_probe_targets 1"));
	assert_true(wait_line(st, "rdma_probe_targets_probed 1"));
	scrape(st, &out);
	assert_non_null(strstr(out.data, "target=\"10.0.0.7:7000\""));
	assert_null(strstr(out.data, "rdma_probe_targets_file_reload_success"));
	buf_free(&out);
	probe_collector_ops.free(st);

	/* a targets file and a DNS name exclude each other */
	strs[PROBE_FLAG_TARGETS_FILE] = "/nonexistent/targets.json";
	st = NULL;
	assert_int_equal(probe_collector_ops.init(&ctx, &st), -EINVAL);
	assert_null(st);
}

static void dns_addr(const char *ip, uint8_t *out)
{
	memset(out, 0, 16);
	out[10] = out[11] = 0xff;
	assert_int_equal(inet_pton(AF_INET, ip, out + 12), 1);
}

static size_t remote_peers_named(const struct probe_state *st, const char *target)
{
	size_t n = 0;

	for (size_t i = 0; i < st->n_peers; i++)
		n += st->peers[i].used && !st->peers[i].loopback &&
		     strcmp(st->peers[i].target, target) == 0;
	return n;
}

/* The seam: answers fed to probe_dns_apply on a state without an engine.
 * This node's address is left out, the sample is max-targets of the rest,
 * a peer that stays keeps its numbers, and an unchanged answer changes
 * nothing. */
static void test_targets_dns_apply(void **state)
{
	struct probe_state *st = calloc(1, sizeof(*st));
	const char *ips[] = {"10.0.0.4", "10.0.0.1", "10.0.0.3", "10.0.0.2"};
	uint8_t addrs[4][16], own[1][16];
	size_t kept = 0, was;

	assert_non_null(st);
	pthread_mutex_init(&st->lock, NULL);
	st->max_targets = 2;
	st->n_peers = st->max_targets + MAX_SLOTS;
	st->peers = calloc(st->n_peers, sizeof(*st->peers));
	assert_non_null(st->peers);
	st->node_key = 7;
	st->pace = (struct probe_pace_cfg){
		.interval_ns = 1000000000ull, .timeout_ns = 1000000ull, .count = 1};
	st->dns_port = 7000;
	snprintf(st->dns_host, sizeof(st->dns_host), "rdma-exporter");
	for (int i = 0; i < 4; i++)
		dns_addr(ips[i], addrs[i]);
	dns_addr("10.0.0.2", own[0]);

	assert_int_equal(
		probe_dns_apply(st, (const uint8_t(*)[16])addrs, 4, (const uint8_t(*)[16])own, 1),
		0);
	assert_int_equal(st->list.n_targets, 3);
	assert_string_equal(st->list.targets[0].raw, "10.0.0.1:7000");
	assert_string_equal(st->list.targets[2].raw, "10.0.0.4:7000");
	assert_int_equal(probe_remote_peers(st), 2);
	assert_int_equal(remote_peers_named(st, "10.0.0.2:7000"), 0);
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			st->peers[i].sent = 5; /* numbers to keep */

	/* the same answer in another order: nothing moves */
	for (int i = 0; i < 4; i++)
		dns_addr(ips[3 - i], addrs[i]);
	assert_int_equal(
		probe_dns_apply(st, (const uint8_t(*)[16])addrs, 4, (const uint8_t(*)[16])own, 1),
		0);
	assert_int_equal(probe_remote_peers(st), 2);
	for (size_t i = 0; i < st->n_peers; i++)
		kept += st->peers[i].used && st->peers[i].sent == 5;
	assert_int_equal(kept, 2);

	/* one node left: one target, sampled; its numbers kept if it was before */
	was = remote_peers_named(st, "10.0.0.4:7000");
	dns_addr("10.0.0.4", addrs[0]);
	assert_int_equal(
		probe_dns_apply(st, (const uint8_t(*)[16])addrs, 1, (const uint8_t(*)[16])own, 1),
		0);
	assert_int_equal(st->list.n_targets, 1);
	assert_int_equal(probe_remote_peers(st), 1);
	assert_int_equal(remote_peers_named(st, "10.0.0.4:7000"), 1);
	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			assert_int_equal(st->peers[i].sent, was ? 5 : 0);

	for (size_t i = 0; i < st->n_peers; i++)
		if (st->peers[i].used)
			probe_peer_free(st, &st->peers[i]);
	probe_target_list_free(&st->list);
	free(st->peers);
	pthread_mutex_destroy(&st->lock);
	free(st);
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
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_LISTEN_ADDRESS].name,
			    "listen-address");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_LISTEN_ADDRESS].kind,
			 COLLECTOR_FLAG_TEXT);
	assert_non_null(probe_collector_ops.flags[PROBE_FLAG_LISTEN_ADDRESS].check);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_SAMPLE_ROTATION].name,
			    "sample-rotation");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_SAMPLE_ROTATION].kind,
			 COLLECTOR_FLAG_DURATION);
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_SAMPLE_ROTATION].def, 0);
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_SAMPLE_ROTATION].min, 0);
	assert_string_equal(probe_collector_ops.flags[PROBE_FLAG_TARGETS_DNS].name, "targets-dns");
	assert_int_equal(probe_collector_ops.flags[PROBE_FLAG_TARGETS_DNS].kind,
			 COLLECTOR_FLAG_TEXT);
	assert_non_null(probe_collector_ops.flags[PROBE_FLAG_TARGETS_DNS].check);
	assert_true(probe_collector_ops.default_enabled);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle_without_devices),
		cmocka_unit_test(test_targets_file_and_sideband),
		cmocka_unit_test(test_targets_file_in_first_scrape),
		cmocka_unit_test(test_targets_file_sd_labels_and_stable_sample),
		cmocka_unit_test(test_sideband_input),
		cmocka_unit_test(test_bind_parse),
		cmocka_unit_test(test_bind_select),
		cmocka_unit_test(test_targets_dns_engine),
		cmocka_unit_test(test_targets_dns_apply),
		cmocka_unit_test(test_flags_declared),
		cmocka_unit_test(test_network_rtt_export),
		cmocka_unit_test(test_responder_spin),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
