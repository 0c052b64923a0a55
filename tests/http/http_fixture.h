/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The server on a loopback socket for the tests of src/http/http*.c: start
 * and stop it on 127.0.0.1 with a one-line snapshot, connect from a
 * loopback address, exchange a request for a response, read the refusal
 * counters. Header-only (static inline), each test file its own copy; one
 * thread, the test's.
 */
#ifndef RDMA_EXPORTER_TEST_HTTP_FIXTURE_H
#define RDMA_EXPORTER_TEST_HTTP_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "exposition/snapshot.h"
#include "http/http.h"

struct fixture {
	struct http_counters counters;
	struct snapshot_slot slot;
	struct http_server *srv;
	uint16_t port;
};

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A socket listening on 127.0.0.1 at an ephemeral port (backlog 16); sets *port. */
static inline int listen_loopback(uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 16), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/*
 * Starts a server on 127.0.0.1 (an ephemeral port) serving a one-line
 * snapshot: max connections in all, per_client from one client, the
 * request header timeout, and on_scrape (NULL: none).
 */
static inline void start_scrape(struct fixture *f, unsigned max, unsigned per_client,
				uint64_t header_timeout_ms,
				void (*on_scrape)(void *arg, const struct http_scrape *scrape))
{
	const char *text = "# TYPE a gauge\na 1\n";
	struct http_config cfg = {
		.telemetry_path = "/metrics",
		.max_connections = max,
		.max_connections_per_client = per_client,
		.connection_timeout_s = 10,
		.request_header_timeout_ms = header_timeout_ms,
		.stale_after_ms = 60000,
		.counters = &f->counters,
		.on_scrape = on_scrape,
	};
	struct snapshot *s;
	char err[256];

	memset(&f->counters, 0, sizeof(f->counters));
	snapshot_slot_init(&f->slot);
	s = snapshot_new(strdup(text), strlen(text));
	assert_int_equal(snapshot_compress(s), 0);
	snapshot_slot_publish(&f->slot, s);
	cfg.listen_fd = listen_loopback(&f->port);
	f->srv = http_server_start(&cfg, &f->slot, err, sizeof(err));
	assert_non_null(f->srv);
}

static inline void start_limits(struct fixture *f, unsigned max, unsigned per_client,
				uint64_t header_timeout_ms)
{
	start_scrape(f, max, per_client, header_timeout_ms, NULL);
}

static inline void start(struct fixture *f, unsigned per_client, uint64_t header_timeout_ms)
{
	start_limits(f, 16, per_client, header_timeout_ms);
}

static inline uint64_t rejected(const struct fixture *f, enum http_reject reason)
{
	return atomic_load(&f->counters.rejected[reason]);
}

static inline void stop(struct fixture *f)
{
	http_server_stop(f->srv);
	snapshot_slot_destroy(&f->slot);
}

/* A connection to the server from the loopback address src (127.0.0.0/8). */
static inline int client_from(const struct fixture *f, const char *src)
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

static inline int client(const struct fixture *f)
{
	return client_from(f, "127.0.0.1");
}

/* Sends req and reads one response (head and Content-Length body) into buf. */
static inline size_t exchange(int fd, const char *req, char *buf, size_t size)
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

/* Sends a request on fd and expects status (e.g. "200") in the answer. */
static inline void expect_status(int fd, const char *path, const char *status)
{
	char req[128], buf[4096];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	exchange(fd, req, buf, sizeof(buf));
	if (strncmp(buf + 9, status, 3) != 0)
		fail_msg("GET %s answered \"%.40s\", not %s", path, buf, status);
}

#endif
