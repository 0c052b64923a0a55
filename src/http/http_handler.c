// SPDX-License-Identifier: Apache-2.0
/*
 * The server's access handler: refuses ambiguous framing, checks the client
 * certificate and basic auth (http_auth.c), routes (http_request.c) and
 * answers: /metrics from the current snapshot in the negotiated format and
 * encoding, the landing page, /healthz, errors. Runs on the HTTP thread.
 */
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "base/log.h"
#include "exposition/expo_proto.h"
#include "http/http_internal.h"
#include "http/webauth.h"

#define CONTENT_TYPE_METRICS "text/plain; version=0.0.4; charset=utf-8"

/* Queues r with the headers of the web configuration (wc may be NULL), and drops r. */
static enum MHD_Result queue(const struct webconfig *wc, struct MHD_Connection *c, unsigned status,
			     struct MHD_Response *r)
{
	enum MHD_Result ret;

	for (unsigned i = 0; wc && i < wc->n_headers; i++)
		MHD_add_response_header(r, wc->headers[i].name, wc->headers[i].value);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result queue_static(const struct webconfig *wc, struct MHD_Connection *c,
				    unsigned status, const char *body, const char *content_type,
				    const char *allow)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	return queue(wc, c, status, r);
}

#if MHD_VERSION >= 0x00097300 && !defined(RDMA_EXPORTER_MHD_NO_FREE_CLS)
static void unref_cb(void *cls)
{
	snapshot_unref(cls);
}

/* A response that borrows BODY (LEN bytes) from S and drops S's reference when done. */
static struct MHD_Response *response_borrowing(size_t len, const char *body, struct snapshot *s)
{
	return MHD_create_response_from_buffer_with_free_callback_cls(len, (void *)body, unref_cb,
								      s);
}
#else
/*
 * libmicrohttpd before 0.9.73 (Debian 11's and RHEL 9's 0.9.72, which the release
 * packages are built against) has no ..._with_free_callback_cls: the body is read
 * out of the snapshot through a content reader instead, in blocks, with the same
 * Content-Length, and the reader's free callback drops the reference.
 */
struct borrowed_body {
	struct snapshot *s;
	const char *body;
	size_t len;
};

static ssize_t borrowed_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	const struct borrowed_body *b = cls;
	size_t n;

	if (pos >= b->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = b->len - (size_t)pos;
	if (n > max)
		n = max;
	memcpy(buf, b->body + pos, n);
	return (ssize_t)n;
}

static void borrowed_free(void *cls)
{
	struct borrowed_body *b = cls;

	snapshot_unref(b->s);
	free(b);
}

static struct MHD_Response *response_borrowing(size_t len, const char *body, struct snapshot *s)
{
	struct borrowed_body *b = malloc(sizeof(*b));
	struct MHD_Response *r;

	if (!b)
		return NULL;
	*b = (struct borrowed_body){.s = s, .body = body, .len = len};
	r = MHD_create_response_from_callback(len, 64 * 1024, borrowed_read, b, borrowed_free);
	if (!r)
		free(b);
	return r;
}
#endif
/*
 * Tells the poller a scraper came (it learns when to poll from that). A
 * scraper is its IP address and User-Agent: the two Prometheus servers of an
 * HA pair have different addresses, and a curl beside Prometheus on the same
 * host has another User-Agent.
 */
static void note_scrape(struct http_server *srv, const struct webconfig *wc,
			struct MHD_Connection *c, const struct snapshot *s, unsigned wants)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const char *ua =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_USER_AGENT);
	const struct sockaddr *sa = info ? info->client_addr : NULL;
	const void *addr = NULL;
	size_t len = 0;

	if (!srv->cfg.on_scrape)
		return;
	if (sa && sa->sa_family == AF_INET) {
		addr = &((const struct sockaddr_in *)sa)->sin_addr;
		len = sizeof(struct in_addr);
	} else if (sa && sa->sa_family == AF_INET6) {
		addr = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		len = sizeof(struct in6_addr);
	}
	srv->cfg.on_scrape(srv->cfg.on_scrape_arg,
			   &(struct http_scrape){.addr = addr,
						 .addr_len = len,
						 .user_agent = ua,
						 .authenticated = http_request_authenticated(wc, c),
						 .data_age_s = (double)snapshot_age_ms(s) / 1000.0,
						 .wants = wants});
}

/* A /metrics body (r, NULL when it could not be made) with its headers, queued. */
static enum MHD_Result queue_metrics(const struct webconfig *wc, struct MHD_Connection *c,
				     struct MHD_Response *r, const char *type, bool gz)
{
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	return queue(wc, c, MHD_HTTP_OK, r);
}

/*
 * Plain text for a client without gzip from a snapshot that kept only the
 * gzip copy (no such client lately): inflated for this response. The next
 * polls keep the text again.
 */
static enum MHD_Result serve_inflated(const struct webconfig *wc, struct MHD_Connection *c,
				      struct snapshot *s)
{
	struct MHD_Response *r;
	size_t len;
	char *text = snapshot_text_copy(s, &len);

	snapshot_unref(s);
	if (!text)
		return queue_static(wc, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n",
				    "text/plain; charset=utf-8", NULL);
	r = MHD_create_response_from_buffer_with_free_callback(len, text, free);
	if (!r)
		free(text);
	return queue_metrics(wc, c, r, CONTENT_TYPE_METRICS, false);
}

static enum MHD_Result serve_metrics(struct http_server *srv, const struct webconfig *wc,
				     struct MHD_Connection *c)
{
	const char *ae =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	const char *accept =
		MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	struct snapshot *s = snapshot_slot_get(srv->slot);
	struct MHD_Response *r;
	const char *body = NULL, *type = CONTENT_TYPE_METRICS;
	bool gz = false, wants_proto, accepts_gz = http_accepts_gzip(ae);
	size_t len = 0;

	if (!s)
		return queue_static(wc, c, MHD_HTTP_SERVICE_UNAVAILABLE,
				    "no poll has completed yet\n", "text/plain; charset=utf-8",
				    NULL);
	wants_proto = http_negotiate_format(accept) == HTTP_FORMAT_PROTO;
	note_scrape(srv, wc, c, s,
		    (wants_proto ? SNAPSHOT_WANTS_PROTO : 0) |
			    (wants_proto || accepts_gz ? 0 : SNAPSHOT_WANTS_PLAIN));
	/* protobuf when asked for and this poll has it (encoded once per poll) */
	if (wants_proto && snapshot_proto(s, &len)) {
		type = EXPO_PROTO_CONTENT_TYPE;
		body = accepts_gz ? snapshot_proto_gzip(s, &len) : NULL;
		gz = body != NULL;
		if (!gz)
			body = snapshot_proto(s, &len);
	} else {
		body = accepts_gz ? snapshot_gzip(s, &len) : NULL;
		gz = body != NULL;
		if (!gz)
			body = snapshot_text(s, &len);
		if (!body)
			return serve_inflated(wc, c, s);
	}
	/* The response borrows the snapshot's buffer and drops its reference when done. */
	r = response_borrowing(len, body, s);
	if (!r)
		snapshot_unref(s);
	return queue_metrics(wc, c, r, type, gz);
}

static enum MHD_Result serve_health(struct http_server *srv, const struct webconfig *wc,
				    struct MHD_Connection *c)
{
	struct snapshot *s = snapshot_slot_get(srv->slot);
	bool fresh = s && snapshot_age_ms(s) <= srv->cfg.stale_after_ms;

	snapshot_unref(s);
	if (fresh)
		return queue_static(wc, c, MHD_HTTP_OK, "ok\n", "text/plain; charset=utf-8", NULL);
	return queue_static(wc, c, MHD_HTTP_SERVICE_UNAVAILABLE,
			    "stale: the poller has not published a snapshot recently\n",
			    "text/plain; charset=utf-8", NULL);
}

static enum MHD_Result route(struct http_server *srv, const struct webconfig *wc,
			     struct MHD_Connection *c, const char *url, const char *method)
{
	switch (http_route(method, url, srv->cfg.telemetry_path)) {
	case HTTP_ROUTE_METRICS:
		return serve_metrics(srv, wc, c);
	case HTTP_ROUTE_LANDING: {
		struct MHD_Response *r = MHD_create_response_from_buffer(
			srv->landing_len, srv->landing, MHD_RESPMEM_PERSISTENT);

		if (!r)
			return MHD_NO;
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/html; charset=utf-8");
		return queue(wc, c, MHD_HTTP_OK, r);
	}
	case HTTP_ROUTE_HEALTH:
		return serve_health(srv, wc, c);
	case HTTP_ROUTE_METHOD_NOT_ALLOWED:
		return queue_static(wc, c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n",
				    "text/plain; charset=utf-8", "GET, HEAD");
	case HTTP_ROUTE_NOT_FOUND:
		break;
	}
	return queue_static(wc, c, MHD_HTTP_NOT_FOUND, "not found\n", "text/plain; charset=utf-8",
			    NULL);
}

/* A short text answer with one more header (name may be NULL). */
static enum MHD_Result queue_text(const struct webconfig *wc, struct MHD_Connection *c,
				  unsigned status, const char *body, const char *name,
				  const char *value)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (name)
		MHD_add_response_header(r, name, value);
	return queue(wc, c, status, r);
}

static enum MHD_Result answer_auth(struct http_server *srv, const struct webconfig *wc,
				   struct MHD_Connection *c, const char *url, const char *method,
				   void **req_cls)
{
	/* No credentials asked, and no grant noted: a health check does not
	 * make its connection one to keep over others (http_note_granted). */
	if (wc && wc->n_users &&
	    !http_route_needs_auth(http_route(method, url, srv->cfg.telemetry_path)))
		return route(srv, wc, c, url, method);
	switch (http_authorize(srv, wc, c, req_cls)) {
	case AUTH_GRANTED:
		http_note_granted(srv, wc, c, url, method);
		return route(srv, wc, c, url, method);
	case AUTH_SUSPENDED:
		return MHD_YES;
	case AUTH_LIMITED:
		return queue_text(wc, c, MHD_HTTP_TOO_MANY_REQUESTS, "too many failed logins\n",
				  MHD_HTTP_HEADER_RETRY_AFTER, "1");
	case AUTH_BUSY:
		return queue_text(wc, c, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "too many logins in progress\n", MHD_HTTP_HEADER_RETRY_AFTER,
				  "1");
	case AUTH_DENIED:
		break;
	}
	return queue_text(wc, c, MHD_HTTP_UNAUTHORIZED, "unauthorized\n",
			  MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"" WEBAUTH_REALM "\"");
}

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	struct http_framing *f = cls;

	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		f->content_length++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
		f->transfer_encoding++;
	else if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		f->host++;
	return MHD_YES;
}

/* The request head's framing headers: NULL, or the 400 body. */
static const char *framing_problem(struct MHD_Connection *c)
{
	struct http_framing f = {0};

	MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
	return http_framing_problem(&f);
}

/* 400 at once (MHD then closes the connection, the body unread). */
static enum MHD_Result refuse_framing(struct http_server *srv, struct MHD_Connection *c,
				      const char *body)
{
	struct web_settings *ws;
	enum MHD_Result ret;

	pthread_mutex_lock(&srv->web_lock);
	ws = web_settings_ref(srv->web);
	pthread_mutex_unlock(&srv->web_lock);
	log_debug("request refused: ambiguous framing", "reason=\"%.*s\"", (int)strcspn(body, "\n"),
		  body);
	ret = queue_text(ws ? ws->wc : NULL, c, MHD_HTTP_BAD_REQUEST, body, NULL, NULL);
	web_settings_unref(ws);
	return ret;
}

enum MHD_Result http_handle(void *cls, struct MHD_Connection *c, const char *url,
			    const char *method, const char *version, const char *upload_data,
			    size_t *upload_data_size, void **req_cls)
{
	struct http_server *srv = cls;
	struct web_settings *ws;
	enum MHD_Result ret;

	/*
	 * MHD calls this first when the head is in and again after the body.
	 * A response queued in the first call makes MHD 0.9.75 discard the
	 * rest of the request and answer "Connection: close" (a new TCP
	 * connection, and TLS handshake, per scrape): answer in the last call.
	 * Methods we never serve are answered at once, and their body is not
	 * read (MHD closes the connection).
	 */
	if (!*req_cls) {
		const char *problem = framing_problem(c);

		if (problem)
			return refuse_framing(srv, c, problem);
	}
	if (!*req_cls && (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)) {
		*req_cls = &http_request_started;
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* a body on GET or HEAD means nothing here: drop it */
		*upload_data_size = 0;
		return MHD_YES;
	}
	http_request_complete(srv, c);
	/* the settings in force when the request came, even if SIGHUP swaps them */
	pthread_mutex_lock(&srv->web_lock);
	ws = web_settings_ref(srv->web);
	pthread_mutex_unlock(&srv->web_lock);
	if (!http_client_cert_ok(srv, c)) {
		ret = queue_static(ws ? ws->wc : NULL, c, MHD_HTTP_FORBIDDEN,
				   "a valid client certificate is required\n",
				   "text/plain; charset=utf-8", NULL);
	} else {
		ret = answer_auth(srv, ws ? ws->wc : NULL, c, url, method, req_cls);
	}
	web_settings_unref(ws);
	return ret;
}
