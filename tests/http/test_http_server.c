// SPDX-License-Identifier: Apache-2.0
/*
 * The server's life (http_server.c): started on a listen address it binds itself
 * (a clear error when the address is no address or is taken), named as
 * bound, serving its landing page with links to the telemetry path and
 * /healthz.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition/snapshot.h"
#include "http/http.h"

#include "http_fixture.h"

static void test_landing_page(void **state)
{
	struct fixture f;
	char buf[4096];
	int fd;

	(void)state;
	start(&f, 8, 5000);
	fd = client(&f);
	exchange(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf));
	assert_true(strncmp(buf, "HTTP/1.1 200", 12) == 0);
	assert_non_null(strcasestr(buf, "\r\nContent-Type: text/html; charset=utf-8\r\n"));
	assert_non_null(strstr(buf, "<a href=\"/metrics\">Metrics</a>"));
	assert_non_null(strstr(buf, "<a href=\"/healthz\">Health</a>"));
	close(fd);
	stop(&f);
}

/*
 * A listen address of its own: refused with a clear error when it is no
 * address or is taken, else bound and named as bound for the logs.
 */
static void test_listen_address(void **state)
{
	struct http_config cfg = {
		.telemetry_path = "/metrics",
		.max_connections = 4,
		.max_connections_per_client = 4,
		.connection_timeout_s = 10,
		.request_header_timeout_ms = 5000,
		.stale_after_ms = 60000,
	};
	struct snapshot_slot slot;
	struct http_server *srv;
	char addr[64], err[256] = "", want[128];
	uint16_t port;
	int held = listen_loopback(&port);

	(void)state;
	snapshot_slot_init(&slot);
	cfg.listen_address = "no address";
	assert_null(http_server_start(&cfg, &slot, err, sizeof(err)));
	assert_string_equal(err, "invalid listen address \"no address\"");
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	cfg.listen_address = addr;
	assert_null(http_server_start(&cfg, &slot, err, sizeof(err)));
	snprintf(want, sizeof(want), "cannot listen on %s: Address already in use", addr);
	assert_string_equal(err, want);
	close(held);
	srv = http_server_start(&cfg, &slot, err, sizeof(err));
	assert_non_null(srv);
	assert_string_equal(http_server_address(srv), addr);
	http_server_stop(srv);
	snapshot_slot_destroy(&slot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_landing_page),
		cmocka_unit_test(test_listen_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
