// SPDX-License-Identifier: Apache-2.0
/* Request routing and content negotiation, without sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "http.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_gzip_negotiation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
