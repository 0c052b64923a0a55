// SPDX-License-Identifier: Apache-2.0
/*
 * Request routing, content negotiation, the descriptor budget and the
 * accept policy without sockets; then the server itself on a loopback
 * socket: keep-alive, the request deadline, the per-client and global
 * limits (an idle connection replaced for a trusted client, the connections
 * reserved for trusted clients) and the gzip body; and whether its thread
 * is stuck (clients left in the accept queue), for the watchdog.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition/snapshot.h"
#include "http/http.h"

static void test_routes(void **state)
{
	assert_int_equal(http_route("GET", "/metrics", "/metrics"), HTTP_ROUTE_METRICS);
	assert_int_equal(http_route("HEAD", "/metrics", "/metrics"), HTTP_ROUTE_METRICS);
	assert_int_equal(http_route("GET", "/", "/metrics"), HTTP_ROUTE_LANDING);
	assert_int_equal(http_route("GET", "/healthz", "/metrics"), HTTP_ROUTE_HEALTH);
	assert_int_equal(http_route("POST", "/metrics", "/metrics"), HTTP_ROUTE_METHOD_NOT_ALLOWED);
	assert_int_equal(http_route("DELETE", "/", "/metrics"), HTTP_ROUTE_METHOD_NOT_ALLOWED);
	assert_int_equal(http_route("GET", "/metricsx", "/metrics"), HTTP_ROUTE_NOT_FOUND);
	assert_int_equal(http_route("POST", "/nope", "/metrics"), HTTP_ROUTE_NOT_FOUND);
	assert_int_equal(http_route("GET", "/x/y", "/x/y"), HTTP_ROUTE_METRICS);
	/* telemetry path "/" replaces the landing page */
	assert_int_equal(http_route("GET", "/", "/"), HTTP_ROUTE_METRICS);
}

/* Basic auth guards every route but /healthz (issue 34: the kubelet's probes). */
static void test_routes_needing_auth(void **state)
{
	(void)state;
	assert_false(http_route_needs_auth(http_route("GET", "/healthz", "/metrics")));
	assert_false(http_route_needs_auth(http_route("HEAD", "/healthz", "/metrics")));
	assert_true(http_route_needs_auth(http_route("POST", "/healthz", "/metrics")));
	assert_true(http_route_needs_auth(http_route("GET", "/metrics", "/metrics")));
	assert_true(http_route_needs_auth(http_route("GET", "/", "/metrics")));
	assert_true(http_route_needs_auth(http_route("GET", "/nope", "/metrics")));
	/* a telemetry path of /healthz is refused at start; it would still ask */
	assert_true(http_route_needs_auth(http_route("GET", "/healthz", "/healthz")));
}

static void test_gzip_negotiation(void **state)
{
	assert_true(http_accepts_gzip("gzip"));
	assert_true(http_accepts_gzip("gzip, deflate, br"));
	assert_true(http_accepts_gzip("deflate,gzip"));
	assert_true(http_accepts_gzip("GZIP"));
	assert_true(http_accepts_gzip("x-gzip"));
	assert_true(http_accepts_gzip("gzip;q=0.5"));
	assert_true(http_accepts_gzip(" gzip ; q=1"));
	assert_true(http_accepts_gzip("*"));
	assert_true(http_accepts_gzip("identity;q=1, *;q=0.1"));
	assert_false(http_accepts_gzip(NULL));
	assert_false(http_accepts_gzip(""));
	assert_false(http_accepts_gzip("identity"));
	assert_false(http_accepts_gzip("deflate, br"));
	assert_false(http_accepts_gzip("gzip;q=0"));
	assert_false(http_accepts_gzip("gzip;q=0.000"));
	assert_false(http_accepts_gzip("*;q=0"));
	assert_false(http_accepts_gzip("gzipx"));
	assert_false(http_accepts_gzip("xgzip"));
	/* an explicit gzip entry wins over * */
	assert_false(http_accepts_gzip("*, gzip;q=0"));
}

#define PROM_PROTO "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily"

static void test_format_negotiation(void **state)
{
	/* what Prometheus 2.42 sends with --enable-feature=native-histograms */
	assert_int_equal(http_negotiate_format(PROM_PROTO
					       ";encoding=delimited;q=0.8,"
					       "application/openmetrics-text;version=1.0.0;"
					       "q=0.5,text/plain;version=0.0.4;q=0.2,*/*;q=0.1"),
			 HTTP_FORMAT_PROTO);
	/* and without it */
	assert_int_equal(http_negotiate_format("application/openmetrics-text;version=1.0.0,"
					       "application/openmetrics-text;version=0.0.1;q=0.75,"
					       "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
			 HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(NULL), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(""), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format("*/*"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format("text/plain"), HTTP_FORMAT_TEXT);
	/* the header curl's users write, blanks and quotes and case as they come */
	assert_int_equal(http_negotiate_format("application/vnd.google.protobuf; "
					       "proto=io.prometheus.client.MetricFamily; "
					       "encoding=delimited"),
			 HTTP_FORMAT_PROTO);
	assert_int_equal(http_negotiate_format(" Application/Vnd.Google.Protobuf ; "
					       "proto=\"io.prometheus.client.MetricFamily\""),
			 HTTP_FORMAT_PROTO);
	assert_int_equal(http_negotiate_format("application/vnd.google.protobuf"),
			 HTTP_FORMAT_PROTO);
	/* text preferred, q=0, other messages or encodings, bad q */
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0.5,text/plain;q=0.6"),
			 HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0.5,*/*"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0.5,text/*;q=0.5"),
			 HTTP_FORMAT_PROTO);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0.000"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=2"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=x"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0.0001"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";q=0.001"), HTTP_FORMAT_PROTO);
	assert_int_equal(http_negotiate_format(PROM_PROTO ";encoding=text"), HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format("application/vnd.google.protobuf;proto=other"),
			 HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format("application/vnd.google.protobufx"),
			 HTTP_FORMAT_TEXT);
	assert_int_equal(http_negotiate_format(";;,,=;q=,"), HTTP_FORMAT_TEXT);
}

/*
 * The last 2 of the 8 queue places are only for clients with a recent
 * grant (issue 29: a scraper whose grant lapsed queued with the guessers
 * and got 503).
 */
static void test_auth_queue_reserved(void **state)
{
	(void)state;
	assert_true(http_auth_queue_admits(0, false));
	assert_true(http_auth_queue_admits(5, false));
	assert_false(http_auth_queue_admits(6, false));
	assert_false(http_auth_queue_admits(7, false));
	assert_true(http_auth_queue_admits(6, true));
	assert_true(http_auth_queue_admits(7, true));
	assert_false(http_auth_queue_admits(8, true));
	assert_false(http_auth_queue_admits(8, false));
}

static void test_connection_cap(void **state)
{
	/* half of what the reserve of 64 leaves */
	assert_int_equal(http_connection_cap(1024), 480);
	assert_int_equal(http_connection_cap(256), 96);
	assert_int_equal(http_connection_cap(65536), 32736);
	/* never 0, never above the flag's range */
	assert_int_equal(http_connection_cap(0), 1);
	assert_int_equal(http_connection_cap(64), 1);
	assert_int_equal(http_connection_cap(66), 1);
	assert_int_equal(http_connection_cap(68), 2);
	assert_int_equal(http_connection_cap(UINT64_MAX), 100000);
}

/* --- the server on 127.0.0.1 */

struct fixture {
	struct http_counters counters;
	struct snapshot_slot slot;
	struct http_server *srv;
	uint16_t port;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The on_scrape of the next server started (NULL: none). */
static void (*fixture_on_scrape)(void *arg, const struct http_scrape *scrape);

static void start_limits(struct fixture *f, unsigned max, unsigned per_client,
			 uint64_t header_timeout_ms)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	const char *text = "# TYPE a gauge\na 1\n";
	struct http_config cfg = {
		.telemetry_path = "/metrics",
		.max_connections = max,
		.max_connections_per_client = per_client,
		.connection_timeout_s = 10,
		.request_header_timeout_ms = header_timeout_ms,
		.stale_after_ms = 60000,
		.counters = &f->counters,
		.on_scrape = fixture_on_scrape,
	};
	struct snapshot *s;
	char err[256];
	int fd;

	memset(&f->counters, 0, sizeof(f->counters));
	snapshot_slot_init(&f->slot);
	s = snapshot_new(strdup(text), strlen(text));
	assert_int_equal(snapshot_compress(s), 0);
	snapshot_slot_publish(&f->slot, s);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	f->port = ntohs(a.sin_port);
	cfg.listen_fd = fd;
	f->srv = http_server_start(&cfg, &f->slot, err, sizeof(err));
	assert_non_null(f->srv);
}

static void start(struct fixture *f, unsigned per_client, uint64_t header_timeout_ms)
{
	start_limits(f, 16, per_client, header_timeout_ms);
}

static uint64_t rejected(const struct fixture *f, enum http_reject reason)
{
	return atomic_load(&f->counters.rejected[reason]);
}

static void stop(struct fixture *f)
{
	http_server_stop(f->srv);
	snapshot_slot_destroy(&f->slot);
}

/* A connection to the server from the loopback address src (127.0.0.0/8). */
static int client_from(const struct fixture *f, const char *src)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons(f->port)};
	struct sockaddr_in from = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = 3};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, src, &from.sin_addr), 1);
	assert_int_equal(bind(fd, (struct sockaddr *)&from, sizeof(from)), 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int client(const struct fixture *f)
{
	return client_from(f, "127.0.0.1");
}

/* Sends req and reads one response (head and Content-Length body) into buf. */
static size_t exchange(int fd, const char *req, char *buf, size_t size)
{
	size_t n = 0, want = 0;

	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	for (;;) {
		char *end;
		ssize_t r = recv(fd, buf + n, size - 1 - n, 0);

		assert_true(r > 0);
		n += (size_t)r;
		buf[n] = '\0';
		end = strstr(buf, "\r\n\r\n");
		if (end && !want) {
			const char *cl = strcasestr(buf, "\r\nContent-Length: ");

			assert_non_null(cl);
			want = (size_t)(end + 4 - buf) + strtoul(cl + 18, NULL, 10);
		}
		if (want && n >= want)
			return n;
	}
}

static void test_keep_alive(void **state)
{
	struct fixture f;
	char buf[4096];
	int fd;

	start(&f, 8, 5000);
	fd = client(&f);
	/* HTTP/1.1: three requests on one connection, none answered with close */
	for (int i = 0; i < 3; i++) {
		exchange(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf));
		assert_true(strncmp(buf, "HTTP/1.1 200", 12) == 0);
		assert_null(strcasestr(buf, "Connection: close"));
		assert_non_null(strstr(buf, "\r\n\r\n# TYPE a gauge\na 1\n"));
	}
	/* the gzip body is the snapshot's */
	exchange(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n", buf,
		 sizeof(buf));
	assert_non_null(strcasestr(buf, "\r\nContent-Encoding: gzip\r\n"));
	assert_non_null(strstr(buf, "\r\n\r\n\x1f\x8b"));
	close(fd);
	/* HTTP/1.0 only when it asks */
	fd = client(&f);
	exchange(fd, "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", buf, sizeof(buf));
	exchange(fd, "GET /healthz HTTP/1.0\r\n\r\n", buf, sizeof(buf));
	assert_true(strncmp(buf, "HTTP/1.1 200", 12) == 0);
	assert_int_equal(recv(fd, buf, sizeof(buf), 0), 0);
	close(fd);
	stop(&f);
}

static void test_request_deadline(void **state)
{
	struct fixture f;
	uint64_t t0;
	char buf[4096];
	int fd;

	start(&f, 8, 300);
	fd = client(&f);
	t0 = now_ms();
	/* a byte every 50 ms keeps the idle timeout happy, not the deadline */
	for (int i = 0; i < 40; i++) {
		char c = i == 0 ? 'G' : 'x';

		if (send(fd, &c, 1, MSG_NOSIGNAL) != 1)
			break;
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == 0)
			break;
		usleep(50000);
	}
	assert_int_equal(recv(fd, buf, sizeof(buf), 0), 0);
	assert_true(now_ms() - t0 >= 250);
	assert_true(now_ms() - t0 < 1500);
	close(fd);
	assert_int_equal(rejected(&f, HTTP_REJECT_DEADLINE), 1);
	/* a complete request in time is served, and the kept-alive connection
	 * outlives the header timeout while idle (idle timeout 10 s) */
	fd = client(&f);
	exchange(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf));
	usleep(600000);
	exchange(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf));
	assert_true(strncmp(buf, "HTTP/1.1 200", 12) == 0);
	close(fd);
	/* the kept-alive connection was not cut, the other limits never hit */
	assert_int_equal(rejected(&f, HTTP_REJECT_DEADLINE), 1);
	assert_int_equal(rejected(&f, HTTP_REJECT_PER_CLIENT), 0);
	assert_int_equal(rejected(&f, HTTP_REJECT_GLOBAL), 0);
	stop(&f);
}

/*
 * Three connections to a server that takes two: the third is closed without
 * an answer, the two are served, and the refusal is counted once, as want.
 */
static void third_refused(struct fixture *f, enum http_reject want, enum http_reject other)
{
	char buf[4096];
	int fds[3];

	for (int i = 0; i < 3; i++)
		fds[i] = client(f);
	assert_int_equal(recv(fds[2], buf, sizeof(buf), 0), 0);
	for (int i = 0; i < 2; i++) {
		exchange(fds[i], "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf));
		assert_true(strncmp(buf, "HTTP/1.1 200", 12) == 0);
	}
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	assert_int_equal(rejected(f, want), 1);
	assert_int_equal(rejected(f, other), 0);
}

static void test_per_client_limit(void **state)
{
	struct fixture f;

	start(&f, 2, 5000); /* 2 per client, 16 in all */
	third_refused(&f, HTTP_REJECT_PER_CLIENT, HTTP_REJECT_GLOBAL);
	stop(&f);
}

static void test_global_limit(void **state)
{
	struct fixture f;

	start_limits(&f, 2, 8, 5000); /* 2 in all, 8 per client */
	third_refused(&f, HTTP_REJECT_GLOBAL, HTTP_REJECT_PER_CLIENT);
	stop(&f);
}

static void test_framing_problem(void **state)
{
	struct http_framing f = {.content_length = 1, .host = 1};

	assert_null(http_framing_problem(&f));
	f.content_length = 2;
	assert_non_null(strstr(http_framing_problem(&f), "more than one Content-Length"));
	f = (struct http_framing){.transfer_encoding = 1, .content_length = 1, .host = 1};
	assert_non_null(strstr(http_framing_problem(&f), "Transfer-Encoding together"));
	f = (struct http_framing){.transfer_encoding = 1, .host = 1};
	assert_null(http_framing_problem(&f));
	f = (struct http_framing){.host = 2};
	assert_non_null(strstr(http_framing_problem(&f), "more than one Host"));
	f = (struct http_framing){0};
	assert_null(http_framing_problem(&f));
}

/* Requests a front proxy could frame differently: 400, never served. */
static void test_ambiguous_framing(void **state)
{
	static const char *const bad[] = {
		"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
		"Content-Length: 25\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
		"Content-Length: 3\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
	};
	struct fixture f;
	char buf[4096];
	int fd;

	start(&f, 8, 5000);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fd = client(&f);
		exchange(fd, bad[i], buf, sizeof(buf));
		if (strncmp(buf, "HTTP/1.1 400", 12) != 0)
			fail_msg("request %zu answered \"%.40s\", not 400", i, buf);
		assert_non_null(strstr(buf, "bad request: "));
		close(fd);
	}
	/* one of each is fine */
	fd = client(&f);
	exchange(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", buf,
		 sizeof(buf));
	assert_true(strncmp(buf, "HTTP/1.1 200", 12) == 0);
	close(fd);
	stop(&f);
}

/* http_admit of a connection from a client with from_group open (of open). */
static enum http_reject admit(unsigned from_group, unsigned open, unsigned max_per_client,
			      unsigned max_connections, bool trusted)
{
	struct http_admission a = {
		.open = open, .from_group = from_group, .group_idle = true, .trusted = trusted};
	bool replace = true;
	enum http_reject r = http_admit(&a, max_per_client, max_connections, &replace);

	/* only a trusted client at its own limit replaces an idle connection */
	assert_int_equal(replace, r == HTTP_ACCEPT && trusted && from_group >= max_per_client);
	return r;
}

static void test_admit(void **state)
{
	(void)state;
	/* under both limits */
	assert_int_equal(admit(0, 0, 8, 64, false), HTTP_ACCEPT);
	assert_int_equal(admit(7, 47, 8, 64, false), HTTP_ACCEPT);
	assert_int_equal(admit(7, 63, 8, 64, true), HTTP_ACCEPT);
	/* at a limit: refused, and why */
	assert_int_equal(admit(8, 10, 8, 64, false), HTTP_REJECT_PER_CLIENT);
	assert_int_equal(admit(1, 64, 8, 64, true), HTTP_REJECT_GLOBAL);
	/* both: the client's own limit is named */
	assert_int_equal(admit(8, 64, 8, 64, false), HTTP_REJECT_PER_CLIENT);
	/* a limit of 1, and 3: too small to reserve any */
	assert_int_equal(admit(0, 0, 1, 1, false), HTTP_ACCEPT);
	assert_int_equal(admit(0, 1, 1, 1, false), HTTP_REJECT_GLOBAL);
	assert_int_equal(admit(0, 2, 8, 3, false), HTTP_ACCEPT);
	assert_int_equal(admit(0, 3, 8, 3, true), HTTP_REJECT_GLOBAL);
}

/*
 * Issue 29: 8 clients holding 8 idle connections each filled the 64 and
 * refused everyone else. A quarter of the connections is kept for clients
 * granted access recently: the others stop at 48.
 */
static void test_admit_reserved(void **state)
{
	unsigned open = 0;

	(void)state;
	for (unsigned client = 0; client < 8; client++)
		for (unsigned n = 0; n < 8; n++)
			if (admit(n, open, 8, 64, false) == HTTP_ACCEPT)
				open++;
	assert_int_equal(open, 48);
	assert_int_equal(admit(0, open, 8, 64, false), HTTP_REJECT_GLOBAL);
	/* a trusted client still gets in, up to the last one */
	assert_int_equal(admit(0, open, 8, 64, true), HTTP_ACCEPT);
	assert_int_equal(admit(1, 63, 8, 64, true), HTTP_ACCEPT);
	assert_int_equal(admit(1, 64, 8, 64, true), HTTP_REJECT_GLOBAL);
	/* a quarter, rounded down: 2 of 8, 1 of 4 */
	assert_int_equal(admit(0, 5, 8, 8, false), HTTP_ACCEPT);
	assert_int_equal(admit(0, 6, 8, 8, false), HTTP_REJECT_GLOBAL);
	assert_int_equal(admit(0, 3, 8, 4, false), HTTP_REJECT_GLOBAL);
	assert_int_equal(admit(0, 3, 8, 4, true), HTTP_ACCEPT);
}

/*
 * Issue 29: 8 idle connections from the scraper's own address refused 29 of
 * its 30 scrapes. A trusted client at its limit gets its new connection and
 * loses an idle one instead; untrusted, it is refused as before.
 */
static void test_admit_idle_replaced(void **state)
{
	struct http_admission a = {.open = 8, .from_group = 8, .group_idle = true, .trusted = true};
	bool replace = false;

	(void)state;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_true(replace);
	/* even when the server is full: the client's count does not grow */
	a.open = 64;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_true(replace);
	/* one at a time: MHD's backstop, one above the limit, would refuse silently */
	a.open = 8;
	a.group_closing = true;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_REJECT_PER_CLIENT);
	assert_false(replace);
	/* nothing idle (every connection has a request in progress) */
	a.group_closing = false;
	a.group_idle = false;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_REJECT_PER_CLIENT);
	assert_false(replace);
	/* not trusted */
	a.group_idle = true;
	a.trusted = false;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_REJECT_PER_CLIENT);
	assert_false(replace);
}

/* Sends a request on fd and expects status (e.g. "200") in the answer. */
static void expect_status(int fd, const char *path, const char *status)
{
	char req[128], buf[4096];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	exchange(fd, req, buf, sizeof(buf));
	if (strncmp(buf + 9, status, 3) != 0)
		fail_msg("GET %s answered \"%.40s\", not %s", path, buf, status);
}

/*
 * Live, issue 29's case: a client that scraped (trusted; no basic auth here)
 * keeps a connection alive and shares its address with one that holds 7
 * idle connections; at the limit of 8, its next connection is let in and
 * the oldest idle one, never used, is closed rather than the kept-alive
 * scrape connection. Before, the new connection was refused.
 */
static void test_idle_replaced(void **state)
{
	struct fixture f;
	char buf[64];
	int kept, idle[7], next;

	(void)state;
	start(&f, 8, 5000);
	kept = client(&f);
	expect_status(kept, "/metrics", "200");
	for (int i = 0; i < 7; i++)
		idle[i] = client(&f);
	next = client(&f);
	expect_status(next, "/metrics", "200");
	assert_int_equal(recv(idle[0], buf, sizeof(buf), 0), 0);
	expect_status(kept, "/healthz", "200");
	expect_status(idle[1], "/healthz", "200");
	assert_int_equal(rejected(&f, HTTP_REJECT_IDLE), 1);
	assert_int_equal(rejected(&f, HTTP_REJECT_PER_CLIENT), 0);
	for (int i = 0; i < 7; i++)
		close(idle[i]);
	close(next);
	close(kept);
	stop(&f);
}

/*
 * Live: of 8 connections, 2 are kept for trusted clients. 127.0.0.1 scraped
 * (trusted) and holds 1; 127.0.0.2 opens 5 idle ones: 6 open, the most an
 * untrusted client may make, so 127.0.0.3 is refused while 127.0.0.1 still
 * gets in.
 */
static void test_reserved_connections(void **state)
{
	struct fixture f;
	char buf[64];
	int kept, idle[5], late, again;

	(void)state;
	start_limits(&f, 8, 8, 5000);
	kept = client(&f);
	expect_status(kept, "/metrics", "200");
	for (int i = 0; i < 5; i++)
		idle[i] = client_from(&f, "127.0.0.2");
	late = client_from(&f, "127.0.0.3");
	assert_int_equal(recv(late, buf, sizeof(buf), 0), 0);
	again = client(&f);
	expect_status(again, "/metrics", "200");
	expect_status(idle[0], "/healthz", "200");
	assert_int_equal(rejected(&f, HTTP_REJECT_GLOBAL), 1);
	assert_int_equal(rejected(&f, HTTP_REJECT_PER_CLIENT), 0);
	for (int i = 0; i < 5; i++)
		close(idle[i]);
	close(late);
	close(again);
	close(kept);
	stop(&f);
}

/* A scrape that blocks the HTTP thread until a byte comes (a hung handler). */
static int scrape_entered[2] = {-1, -1}, scrape_release[2] = {-1, -1};

static void blocking_scrape(void *arg, const struct http_scrape *scrape)
{
	char c = 1;

	(void)arg;
	(void)scrape;
	assert_int_equal(write(scrape_entered[1], &c, 1), 1);
	assert_int_equal(read(scrape_release[0], &c, 1), 1);
}

/*
 * The HTTP thread blocked: a client that connects waits in the accept
 * queue, and once it has waited after_ms the server counts as stuck; an idle
 * server never does, and one that accepts again no longer does.
 */
static void test_stuck(void **state)
{
	const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	struct fixture f;
	char buf[4096], c = 1;
	int a, b;

	(void)state;
	assert_int_equal(pipe(scrape_entered), 0);
	assert_int_equal(pipe(scrape_release), 0);
	fixture_on_scrape = blocking_scrape;
	start(&f, 8, 5000);
	fixture_on_scrape = NULL;
	assert_false(http_server_stuck(f.srv, 0));
	a = client(&f);
	assert_int_equal(send(a, req, strlen(req), 0), (ssize_t)strlen(req));
	assert_int_equal(read(scrape_entered[0], &c, 1), 1);
	/* the thread is in the handler: b stays in the accept queue */
	b = client(&f);
	assert_false(http_server_stuck(f.srv, 60000));
	usleep(300 * 1000);
	assert_true(http_server_stuck(f.srv, 200));

	assert_int_equal(write(scrape_release[1], &c, 1), 1);
	for (int i = 0; i < 300 && http_server_stuck(f.srv, 0); i++)
		usleep(10 * 1000);
	assert_false(http_server_stuck(f.srv, 0));
	/* and the blocked request was answered */
	assert_true(recv(a, buf, sizeof(buf), 0) > 0);
	assert_int_equal(strncmp(buf, "HTTP/1.1 200", 12), 0);
	close(a);
	close(b);
	stop(&f);
	close(scrape_entered[0]);
	close(scrape_entered[1]);
	close(scrape_release[0]);
	close(scrape_release[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_routes_needing_auth),
		cmocka_unit_test(test_gzip_negotiation),
		cmocka_unit_test(test_format_negotiation),
		cmocka_unit_test(test_auth_queue_reserved),
		cmocka_unit_test(test_connection_cap),
		cmocka_unit_test(test_keep_alive),
		cmocka_unit_test(test_request_deadline),
		cmocka_unit_test(test_per_client_limit),
		cmocka_unit_test(test_global_limit),
		cmocka_unit_test(test_admit),
		cmocka_unit_test(test_admit_reserved),
		cmocka_unit_test(test_admit_idle_replaced),
		cmocka_unit_test(test_idle_replaced),
		cmocka_unit_test(test_reserved_connections),
		cmocka_unit_test(test_framing_problem),
		cmocka_unit_test(test_ambiguous_framing),
		cmocka_unit_test(test_stuck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
