// SPDX-License-Identifier: Apache-2.0
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "log.h"

#define CONTENT_TYPE_METRICS "text/plain; version=0.0.4; charset=utf-8"

struct http_server {
	struct MHD_Daemon *mhd;
	struct http_config cfg;
	struct snapshot_slot *slot;
	char *landing;
	size_t landing_len;
	char address[300];
};

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

/* Is the token [p, p+n) (surrounding blanks trimmed) equal to word? */
static bool token_is(const char *p, size_t n, const char *word)
{
	while (n && (*p == ' ' || *p == '\t'))
		p++, n--;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
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

static enum MHD_Result queue_static(struct MHD_Connection *c, unsigned status, const char *body,
				    const char *content_type, const char *allow)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static void unref_cb(void *cls)
{
	snapshot_unref(cls);
}

static enum MHD_Result serve_metrics(struct http_server *srv, struct MHD_Connection *c)
{
	const char *ae =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	struct snapshot *s = snapshot_slot_get(srv->slot);
	struct MHD_Response *r;
	const char *body = NULL;
	bool gz = false;
	enum MHD_Result ret;
	size_t len = 0;

	if (!s)
		return queue_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no poll has completed yet\n",
				    "text/plain; charset=utf-8", NULL);
	if (http_accepts_gzip(ae)) {
		body = snapshot_gzip(s, &len);
		gz = body != NULL;
	}
	if (!gz)
		body = snapshot_text(s, &len);
	/* The response borrows the snapshot's buffer and drops its reference when done. */
	r = MHD_create_response_from_buffer_with_free_callback_cls(len, (void *)body, unref_cb, s);
	if (!r) {
		snapshot_unref(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, CONTENT_TYPE_METRICS);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result serve_health(struct http_server *srv, struct MHD_Connection *c)
{
	struct snapshot *s = snapshot_slot_get(srv->slot);
	bool fresh = s && snapshot_age_ms(s) <= srv->cfg.stale_after_ms;

	snapshot_unref(s);
	if (fresh)
		return queue_static(c, MHD_HTTP_OK, "ok\n", "text/plain; charset=utf-8", NULL);
	return queue_static(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "stale: the poller has not published a snapshot recently\n",
			    "text/plain; charset=utf-8", NULL);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct http_server *srv = cls;

	switch (http_route(method, url, srv->cfg.telemetry_path)) {
	case HTTP_ROUTE_METRICS:
		return serve_metrics(srv, c);
	case HTTP_ROUTE_LANDING: {
		struct MHD_Response *r = MHD_create_response_from_buffer(
			srv->landing_len, srv->landing, MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret;

		if (!r)
			return MHD_NO;
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/html; charset=utf-8");
		ret = MHD_queue_response(c, MHD_HTTP_OK, r);
		MHD_destroy_response(r);
		return ret;
	}
	case HTTP_ROUTE_HEALTH:
		return serve_health(srv, c);
	case HTTP_ROUTE_METHOD_NOT_ALLOWED:
		return queue_static(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n",
				    "text/plain; charset=utf-8", "GET, HEAD");
	case HTTP_ROUTE_NOT_FOUND:
		break;
	}
	return queue_static(c, MHD_HTTP_NOT_FOUND, "not found\n", "text/plain; charset=utf-8",
			    NULL);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* MHD messages end in a newline; log_msg folds it */
	log_debug("http: %s", msg);
}

static void html_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			buf_puts(b, "&lt;");
			break;
		case '>':
			buf_puts(b, "&gt;");
			break;
		case '&':
			buf_puts(b, "&amp;");
			break;
		case '"':
			buf_puts(b, "&quot;");
			break;
		default:
			buf_putc(b, *s);
		}
	}
}

static int make_landing(struct http_server *srv)
{
	struct buf b = BUF_INIT;

	buf_puts(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		     "<title>RDMA Exporter</title></head>\n<body>\n<h1>RDMA Exporter</h1>\n"
		     "<p>Version " RDMA_EXPORTER_VERSION " (" RDMA_EXPORTER_REVISION ")</p>\n"
		     "<ul>\n<li><a href=\"");
	html_escape(&b, srv->cfg.telemetry_path);
	buf_puts(&b, "\">Metrics</a></li>\n<li><a href=\"/healthz\">Health</a></li>\n</ul>\n"
		     "</body></html>\n");
	if (buf_failed(&b)) {
		buf_free(&b);
		return -ENOMEM;
	}
	srv->landing = buf_steal(&b, &srv->landing_len);
	return 0;
}

/* Resolves and binds the listening socket ourselves, to report clear errors. */
static int open_listener(const char *address, char *bound, size_t boundlen, char *err,
			 size_t errlen)
{
	struct addrinfo hints = {0}, *res = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[256], portstr[8], hbuf[NI_MAXHOST], pbuf[NI_MAXSERV];
	uint16_t port;
	int fd = -1, one = 1, zero = 0, r;

	if (config_split_listen_address(address, host, sizeof(host), &port) < 0) {
		snprintf(err, errlen, "invalid listen address \"%s\"", address);
		return -EINVAL;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	/* ":PORT" listens on every interface, IPv6 and IPv4 */
	hints.ai_family = host[0] ? AF_UNSPEC : AF_INET6;
	r = getaddrinfo(host[0] ? host : NULL, portstr, &hints, &res);
	if (r != 0 && !host[0]) {
		hints.ai_family = AF_INET;
		r = getaddrinfo(NULL, portstr, &hints, &res);
	}
	if (r != 0) {
		snprintf(err, errlen, "cannot resolve listen address \"%s\": %s", address,
			 gai_strerror(r));
		return -EINVAL;
	}
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6 && !host[0])
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 128) == 0)
			break;
		r = errno;
		close(fd);
		fd = -1;
		errno = r;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		r = errno;
		snprintf(err, errlen, "cannot listen on %s: %s", address, strerror(r));
		return -r;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, hbuf, sizeof(hbuf), pbuf, sizeof(pbuf),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(bound, boundlen, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", hbuf,
			 pbuf);
	else
		snprintf(bound, boundlen, "%s", address);
	return fd;
}

struct http_server *http_server_start(const struct http_config *cfg, struct snapshot_slot *slot,
				      char *err, size_t errlen)
{
	struct http_server *srv = calloc(1, sizeof(*srv));
	int fd;

	if (!srv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	srv->cfg = *cfg;
	srv->slot = slot;
	if (make_landing(srv) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	fd = open_listener(cfg->listen_address, srv->address, sizeof(srv->address), err, errlen);
	if (fd < 0)
		goto fail;
	srv->mhd = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL,
		/* the logger first, so that option errors are logged through it too */
		handle, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET,
		fd, MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections,
		MHD_OPTION_CONNECTION_TIMEOUT, cfg->connection_timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
	if (!srv->mhd) {
		close(fd);
		snprintf(err, errlen, "cannot start the HTTP server on %s", srv->address);
		goto fail;
	}
	return srv;
fail:
	free(srv->landing);
	free(srv);
	return NULL;
}

void http_server_stop(struct http_server *srv)
{
	if (!srv)
		return;
	/* also closes the listening socket, ours or not */
	if (srv->mhd)
		MHD_stop_daemon(srv->mhd);
	free(srv->landing);
	free(srv);
}

const char *http_server_address(const struct http_server *srv)
{
	return srv->address;
}
