// SPDX-License-Identifier: Apache-2.0
/*
 * What the server tells the poll schedule about each /metrics request
 * (struct http_scrape, on_scrape), on a loopback socket: issue 29, a
 * request that passed basic auth is marked authenticated (the schedule
 * follows such a scraper before any other), one without auth configured
 * is not. Under basic auth, /healthz answers without credentials (issue 34:
 * the kubelet's probes carry none) and every other path still asks for them.
 */
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition/snapshot.h"
#include "http/http.h"
#include "http/websettings.h"

/* alice's password is "secret" (cost 4: the check takes milliseconds) */
#define USERS                                                                                      \
	"basic_auth_users:\n"                                                                      \
	"  alice: $2y$04$fERX.LxZMtEMPJVyc1htvuFO/y8HXO2hNPH1ZjckJqxve2YzPGYzG\n"

struct seen {
	atomic_uint scrapes;
	atomic_bool authenticated;
	atomic_bool has_agent;
};

static void on_scrape(void *arg, const struct http_scrape *s)
{
	struct seen *seen = arg;

	atomic_store(&seen->authenticated, s->authenticated);
	atomic_store(&seen->has_agent, s->user_agent && strcmp(s->user_agent, "test/1") == 0);
	atomic_fetch_add(&seen->scrapes, 1);
}

struct server {
	struct snapshot_slot slot;
	struct http_server *srv;
	uint16_t port;
};

/* A server on a loopback port with web settings ws (may be NULL). */
static void start(struct server *sv, struct web_settings *ws, struct seen *seen)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof(a);
	const char *text = "# TYPE a gauge\na 1\n";
	struct http_config cfg = {
		.telemetry_path = "/metrics",
		.max_connections = 8,
		.max_connections_per_client = 8,
		.connection_timeout_s = 10,
		.request_header_timeout_ms = 5000,
		.stale_after_ms = 60000,
		.web = ws,
		.on_scrape = on_scrape,
		.on_scrape_arg = seen,
	};
	char err[256];
	int fd;

	snapshot_slot_init(&sv->slot);
	snapshot_slot_publish(&sv->slot, snapshot_new(strdup(text), strlen(text)));
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	sv->port = ntohs(a.sin_port);
	cfg.listen_fd = fd;
	sv->srv = http_server_start(&cfg, &sv->slot, err, sizeof(err));
	assert_non_null(sv->srv);
}

static void stop(struct server *sv)
{
	http_server_stop(sv->srv);
	snapshot_slot_destroy(&sv->slot);
}

/* One GET of path on a new connection; the status code of its answer. */
static int request_path(const struct server *sv, const char *path, const char *headers)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons(sv->port)};
	struct timeval tv = {.tv_sec = 5};
	char req[512], buf[512];
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), code = -1;

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: x\r\nUser-Agent: test/1\r\n%sConnection: "
		 "close\r\n\r\n",
		 path, headers);
	assert_int_equal(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	sscanf(buf, "HTTP/1.1 %d", &code);
	close(fd);
	return code;
}

static int request(const struct server *sv, const char *headers)
{
	return request_path(sv, "/metrics", headers);
}

/* A server whose web config has the user alice. */
static void start_with_users(struct server *sv, struct seen *seen)
{
	char path[] = "/tmp/rdma-exporter-web-XXXXXX", err[256];
	struct web_settings *ws;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, USERS, strlen(USERS)), (ssize_t)strlen(USERS));
	close(fd);
	ws = web_settings_load(path, err, sizeof(err));
	unlink(path);
	assert_non_null(ws);
	start(sv, ws, seen);
	web_settings_unref(ws); /* the server holds its own */
}

static void test_basic_auth_marks_authenticated(void **state)
{
	struct seen seen = {0};
	struct server sv;

	(void)state;
	start_with_users(&sv, &seen);
	/* refused: not a scrape */
	assert_int_equal(request(&sv, ""), 401);
	assert_int_equal(atomic_load(&seen.scrapes), 0);
	/* alice:secret */
	assert_int_equal(request(&sv, "Authorization: Basic YWxpY2U6c2VjcmV0\r\n"), 200);
	assert_int_equal(atomic_load(&seen.scrapes), 1);
	assert_true(atomic_load(&seen.authenticated));
	assert_true(atomic_load(&seen.has_agent));
	stop(&sv);
}

/* The kubelet probes /healthz with no password: it answers, the rest asks. */
static void test_healthz_needs_no_credentials(void **state)
{
	struct seen seen = {0};
	struct server sv;

	(void)state;
	start_with_users(&sv, &seen);
	assert_int_equal(request_path(&sv, "/healthz", ""), 200);
	/* credentials, right or wrong, change nothing there */
	assert_int_equal(request_path(&sv, "/healthz", "Authorization: Basic YWxpY2U6c2VjcmV0\r\n"),
			 200);
	assert_int_equal(request_path(&sv, "/healthz", "Authorization: Basic YWxpY2U6bm9wZQ==\r\n"),
			 200);
	assert_int_equal(request_path(&sv, "/metrics", ""), 401);
	assert_int_equal(request_path(&sv, "/", ""), 401);
	assert_int_equal(request_path(&sv, "/nope", ""), 401);
	/* not a scrape */
	assert_int_equal(atomic_load(&seen.scrapes), 0);
	stop(&sv);
}

static void test_no_auth_is_not_authenticated(void **state)
{
	struct seen seen = {0};
	struct server sv;

	(void)state;
	atomic_store(&seen.authenticated, true);
	start(&sv, NULL, &seen);
	assert_int_equal(request(&sv, "Authorization: Basic YWxpY2U6c2VjcmV0\r\n"), 200);
	assert_int_equal(atomic_load(&seen.scrapes), 1);
	assert_false(atomic_load(&seen.authenticated));
	assert_true(atomic_load(&seen.has_agent));
	stop(&sv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_auth_marks_authenticated),
		cmocka_unit_test(test_healthz_needs_no_credentials),
		cmocka_unit_test(test_no_auth_is_not_authenticated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
