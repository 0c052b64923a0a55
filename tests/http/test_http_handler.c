// SPDX-License-Identifier: Apache-2.0
/*
 * The server's access handler (http_handler.c) on a loopback socket:
 * keep-alive, the gzip body, and requests whose framing a front proxy could
 * read differently, answered 400.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keep_alive),
		cmocka_unit_test(test_ambiguous_framing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
