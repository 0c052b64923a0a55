// SPDX-License-Identifier: Apache-2.0
/*
 * The server's pure request logic (http_request.c), without sockets:
 * routing, which routes ask for basic auth, content negotiation (gzip, and
 * protobuf or text) and the framing headers refused with 400.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),		 cmocka_unit_test(test_routes_needing_auth),
		cmocka_unit_test(test_gzip_negotiation), cmocka_unit_test(test_format_negotiation),
		cmocka_unit_test(test_framing_problem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
