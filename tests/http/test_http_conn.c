// SPDX-License-Identifier: Apache-2.0
/*
 * The server's connections (http_conn.c): the descriptor budget and the
 * accept policy without sockets; then on a loopback socket the request
 * deadline, the per-client and global limits (an idle connection replaced
 * for a trusted client, the connections reserved for trusted clients), and
 * whether its thread is stuck (clients left in the accept queue), for the
 * watchdog.
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

#include "http_fixture.h"

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

/*
 * Issue 42: without basic auth, one /metrics makes a client trusted, so 8
 * clients that scraped once and then held 8 idle connections each filled
 * all 64, the reserve included, and the scraper was refused (2 to 4 of 60
 * scrapes served). At the global limit, a client holding at least 2 fewer
 * connections than another with an idle one takes that idle one, trusted
 * or not; never towards uneven shares, and one at a time.
 */
static void test_admit_fair_share(void **state)
{
	struct http_admission a = {.open = 64, .from_group = 0, .trusted = true, .other_most = 8};
	bool replace = false;

	(void)state;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_true(replace);
	/* not trusted: the same, at the reserve's edge as when full */
	a.trusted = false;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_true(replace);
	a.open = 48;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_true(replace);
	/* the shares only move towards even: 6 against 8 yes, 7 against 8 no */
	a.from_group = 6;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_true(replace);
	a.from_group = 7;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_REJECT_GLOBAL);
	assert_false(replace);
	/* 64 clients holding 1 each: no one to take from */
	a.from_group = 0;
	a.other_most = 1;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_REJECT_GLOBAL);
	assert_false(replace);
	/* one being closed already (65 open): MHD's backstop would refuse */
	a.other_most = 8;
	a.open = 65;
	a.trusted = true;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_REJECT_GLOBAL);
	assert_false(replace);
	/* below the limit nothing is replaced */
	a.open = 10;
	assert_int_equal(http_admit(&a, 8, 64, &replace), HTTP_ACCEPT);
	assert_false(replace);
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
 * (trusted) and holds 1; 127.0.0.2 to .6 open 1 idle one each: 6 open, the
 * most untrusted clients may make, and none holds 2 more than a newcomer
 * (whose share it could take), so 127.0.0.7 is refused while 127.0.0.1
 * still gets in.
 */
static void test_reserved_connections(void **state)
{
	struct fixture f;
	char buf[64], src[16];
	int kept, idle[5], late, again;

	(void)state;
	start_limits(&f, 8, 8, 5000);
	kept = client(&f);
	expect_status(kept, "/metrics", "200");
	for (int i = 0; i < 5; i++) {
		snprintf(src, sizeof(src), "127.0.0.%d", 2 + i);
		idle[i] = client_from(&f, src);
	}
	late = client_from(&f, "127.0.0.7");
	assert_int_equal(recv(late, buf, sizeof(buf), 0), 0);
	again = client(&f);
	expect_status(again, "/metrics", "200");
	expect_status(idle[0], "/healthz", "200");
	assert_int_equal(rejected(&f, HTTP_REJECT_GLOBAL), 1);
	assert_int_equal(rejected(&f, HTTP_REJECT_PER_CLIENT), 0);
	assert_int_equal(rejected(&f, HTTP_REJECT_IDLE), 0);
	for (int i = 0; i < 5; i++)
		close(idle[i]);
	close(late);
	close(again);
	close(kept);
	stop(&f);
}

/*
 * Live, issue 42's attack at a smaller scale: of 8 connections (2 reserved),
 * 127.0.0.2 and 127.0.0.3 each scrape once (trusted: no basic auth) and
 * hold 4 idle connections, the server full. The scraper 127.0.0.1, not
 * trusted yet, is served: the oldest idle connection never used of a client
 * holding 4 (127.0.0.2 sorts first) is closed for it, and its kept-alive
 * connection serves on. Before, it was refused at accept (global_limit).
 */
static void test_idle_replaced_across(void **state)
{
	const char *src[2] = {"127.0.0.2", "127.0.0.3"};
	struct fixture f;
	char buf[64];
	int held[8], scraper;

	(void)state;
	start_limits(&f, 8, 4, 5000);
	for (int i = 0; i < 8; i++) {
		held[i] = client_from(&f, src[i / 4]);
		if (i % 4 == 0)
			expect_status(held[i], "/metrics", "200");
	}
	scraper = client(&f);
	expect_status(scraper, "/metrics", "200");
	assert_int_equal(recv(held[1], buf, sizeof(buf), 0), 0);
	expect_status(scraper, "/metrics", "200");
	expect_status(held[2], "/healthz", "200");
	assert_int_equal(rejected(&f, HTTP_REJECT_GLOBAL), 0);
	assert_int_equal(rejected(&f, HTTP_REJECT_IDLE), 1);
	for (int i = 0; i < 8; i++)
		close(held[i]);
	close(scraper);
	stop(&f);
}

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
	start_scrape(&f, 16, 8, 5000, blocking_scrape);
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
		cmocka_unit_test(test_connection_cap),
		cmocka_unit_test(test_admit),
		cmocka_unit_test(test_admit_reserved),
		cmocka_unit_test(test_admit_idle_replaced),
		cmocka_unit_test(test_admit_fair_share),
		cmocka_unit_test(test_request_deadline),
		cmocka_unit_test(test_per_client_limit),
		cmocka_unit_test(test_global_limit),
		cmocka_unit_test(test_idle_replaced),
		cmocka_unit_test(test_reserved_connections),
		cmocka_unit_test(test_idle_replaced_across),
		cmocka_unit_test(test_stuck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
