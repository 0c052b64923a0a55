// SPDX-License-Identifier: Apache-2.0
/*
 * Pure request logic of the server (http.h): which route a method and path
 * take, which routes ask for basic auth, content negotiation (gzip, and the
 * protobuf or text format) and the framing headers refused with 400.
 * Strings in, verdicts out: no I/O, no state, no logging.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "base/chars.h"
#include "http/http.h"

enum http_route http_route(const char *method, const char *url, const char *telemetry_path)
{
	enum http_route route;

	if (strcmp(url, telemetry_path) == 0)
		route = HTTP_ROUTE_METRICS;
	else if (strcmp(url, "/") == 0)
		route = HTTP_ROUTE_LANDING;
	else if (strcmp(url, "/healthz") == 0)
		route = HTTP_ROUTE_HEALTH;
	else
		return HTTP_ROUTE_NOT_FOUND;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return HTTP_ROUTE_METHOD_NOT_ALLOWED;
	return route;
}

bool http_route_needs_auth(enum http_route route)
{
	return route != HTTP_ROUTE_HEALTH;
}

/* [p, p+n) with the blanks around it trimmed. */
static void trim(const char **p, size_t *n)
{
	while (*n && ascii_is_blank(**p))
		(*p)++, (*n)--;
	while (*n && ascii_is_blank((*p)[*n - 1]))
		(*n)--;
}

/* Is the token [p, p+n) (surrounding blanks trimmed) equal to word? */
static bool token_is(const char *p, size_t n, const char *word)
{
	trim(&p, &n);
	return n == strlen(word) && strncasecmp(p, word, n) == 0;
}

/* q-value of one coding's parameters (";q=0.5"); 1 when absent. */
static bool q_positive(const char *params, size_t n)
{
	const char *q = NULL;

	for (size_t i = 0; i + 1 < n; i++) {
		if ((params[i] == 'q' || params[i] == 'Q') && params[i + 1] == '=') {
			q = params + i + 2;
			break;
		}
	}
	if (!q)
		return true;
	/* "0", "0.", "0.000" are zero; anything else with a non-zero digit is not */
	for (; q < params + n && *q != ';' && *q != ','; q++)
		if (*q >= '1' && *q <= '9')
			return true;
	return false;
}

bool http_accepts_gzip(const char *ae)
{
	bool star = false;

	if (!ae)
		return false;
	while (*ae) {
		const char *end = strchr(ae, ',');
		size_t len = end ? (size_t)(end - ae) : strlen(ae);
		const char *semi = memchr(ae, ';', len);
		size_t name_len = semi ? (size_t)(semi - ae) : len;
		bool pos = semi ? q_positive(semi, len - name_len) : true;

		if (token_is(ae, name_len, "gzip") || token_is(ae, name_len, "x-gzip"))
			return pos;
		if (token_is(ae, name_len, "*"))
			star = pos;
		ae += len;
		if (*ae == ',')
			ae++;
	}
	return star;
}

/* A q-value ("1", "0.8", "0.125") in thousandths; -1 when it is none. */
static int parse_q(const char *p, size_t n)
{
	int q = 0, scale = 1000;

	trim(&p, &n);
	if (!n || (*p != '0' && *p != '1'))
		return -1;
	q = (*p - '0') * 1000;
	p++, n--;
	if (n && *p == '.')
		p++, n--;
	for (; n && scale > 1; p++, n--) {
		if (!ascii_is_digit(*p))
			return -1;
		scale /= 10;
		q += (*p - '0') * scale;
	}
	return n || q > 1000 ? -1 : q;
}

/* Does parameter [p, p+n) ("key=value", blanks trimmed) have that key? Sets its value. */
static bool param_is(const char *p, size_t n, const char *key, const char **v, size_t *vn)
{
	const char *eq = memchr(p, '=', n);

	if (!eq || !token_is(p, (size_t)(eq - p), key))
		return false;
	*v = eq + 1;
	*vn = n - (size_t)(eq + 1 - p);
	trim(v, vn);
	if (*vn >= 2 && **v == '"' && (*v)[*vn - 1] == '"')
		(*v)++, *vn -= 2;
	return true;
}

/*
 * One media range [p, p+n) of an Accept header: its q in thousandths (-1
 * when malformed) and whether its parameters rule out the protobuf format.
 */
static int media_range_q(const char *p, size_t n, bool *proto_params_ok)
{
	const char *semi = memchr(p, ';', n);
	int q = 1000;

	*proto_params_ok = true;
	while (semi) {
		const char *param = semi + 1, *v;
		size_t pn, vn;

		semi = memchr(param, ';', n - (size_t)(param - p));
		pn = semi ? (size_t)(semi - param) : n - (size_t)(param - p);
		if (param_is(param, pn, "q", &v, &vn))
			q = parse_q(v, vn);
		else if (param_is(param, pn, "proto", &v, &vn))
			*proto_params_ok &= token_is(v, vn, "io.prometheus.client.MetricFamily");
		else if (param_is(param, pn, "encoding", &v, &vn))
			*proto_params_ok &= token_is(v, vn, "delimited");
	}
	return q;
}

enum http_format http_negotiate_format(const char *accept)
{
	int q_proto = 0, q_text = 0;

	if (!accept)
		return HTTP_FORMAT_TEXT;
	while (*accept) {
		const char *end = strchr(accept, ',');
		size_t len = end ? (size_t)(end - accept) : strlen(accept);
		const char *semi = memchr(accept, ';', len);
		size_t type_len = semi ? (size_t)(semi - accept) : len;
		bool params_ok;
		int q = media_range_q(accept, len, &params_ok);

		if (token_is(accept, type_len, "application/vnd.google.protobuf") && params_ok &&
		    q > q_proto)
			q_proto = q;
		if ((token_is(accept, type_len, "text/plain") ||
		     token_is(accept, type_len, "text/*") || token_is(accept, type_len, "*/*")) &&
		    q > q_text)
			q_text = q;
		accept += len;
		if (*accept == ',')
			accept++;
	}
	return q_proto > 0 && q_proto >= q_text ? HTTP_FORMAT_PROTO : HTTP_FORMAT_TEXT;
}

const char *http_framing_problem(const struct http_framing *f)
{
	if (f->content_length > 1)
		return "bad request: more than one Content-Length header\n";
	if (f->transfer_encoding && f->content_length)
		return "bad request: Transfer-Encoding together with Content-Length\n";
	if (f->transfer_encoding > 1)
		return "bad request: more than one Transfer-Encoding header\n";
	if (f->host > 1)
		return "bad request: more than one Host header\n";
	return NULL;
}
