// SPDX-License-Identifier: Apache-2.0
#include "http/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/strparse.h"
#include "exposition/expo_proto.h"
#include "exposition/metrics.h"
#include "http/authlimit.h"
#include "http/clientgroup.h"
#include "http/tlslimit.h"
#include "http/webauth.h"

#define CONTENT_TYPE_METRICS "text/plain; version=0.0.4; charset=utf-8"

/*
 * One accepted connection (its MHD socket context), from NOTIFY_STARTED to
 * NOTIFY_CLOSED. MHD has no deadline for a whole request, only an idle
 * timeout that every byte restarts, so a client sending one header byte at
 * a time would keep its slot forever: the reaper thread shuts down a
 * connection whose request is not complete by its deadline.
 */
struct http_conn {
	struct http_conn *prev, *next; /* http_server.conns, under conn_lock */
	int fd;
	bool waiting;	      /* no complete request yet (first, or next on keep-alive) */
	bool shut;	      /* shut down (the reaper, or replaced by its client's new one) */
	uint64_t deadline_ms; /* CLOCK_MONOTONIC; meaningful while waiting */
	uint64_t since_ms;    /* waiting since (accepted, or its last response sent) */
	bool granted;	      /* a request on it passed the access control */
	/* TLS: the settings its handshake ran under (a reference); else NULL */
	struct web_settings *ws;
	/* the client's group, for the per-client limit; none when not IP */
	bool grouped;
	struct client_group group;
};

/* The access handler's per-request marker: the request head was seen. */
static char request_started;

/*
 * Basic auth checks that miss the cache run their bcrypt on AUTH_WORKERS
 * threads, never on the HTTP thread: the connection is suspended meanwhile
 * and the access handler, called again when it resumes, answers. At most
 * AUTH_QUEUE checks wait; more are answered 503 at once. So wrong passwords
 * cost at most AUTH_WORKERS cores and never delay a cached check, whatever
 * their number (docs/security.md).
 */
#define AUTH_WORKERS 2
#define AUTH_QUEUE   8
/*
 * Of the AUTH_QUEUE places, AUTH_QUEUE_RESERVED are only for clients whose
 * address gave a right password within WEBAUTH_CACHE_TTL_MS: a scraper
 * whose grant went (its password changed, the cache flooded with grants)
 * still gets a check while guessers from other addresses fill the rest.
 */
#define AUTH_QUEUE_RESERVED 2

bool http_auth_queue_admits(unsigned queued, bool recent)
{
	return queued < (recent ? AUTH_QUEUE : AUTH_QUEUE - AUTH_QUEUE_RESERVED);
}

/* A request whose check went to a worker (*req_cls from then on). */
struct http_req {
	struct http_req *next; /* http_server.auth_head, under auth_lock */
	struct MHD_Connection *c;
	bool checked; /* the worker is done: granted holds the result */
	bool granted;
	bool aborted;	 /* not checked: the server stops */
	uint8_t key[32]; /* what was checked: the cache key of user, hash and password */
	struct webauth_job job;
};

enum auth_outcome {
	AUTH_GRANTED,
	AUTH_DENIED,
	AUTH_SUSPENDED, /* a worker checks it; the handler is called again */
	AUTH_LIMITED,	/* this client is out of checks: 429 */
	AUTH_BUSY,	/* the queue is full (or the server stops): 503 */
};

struct http_server {
	struct MHD_Daemon *mhd;
	struct http_config cfg;
	struct snapshot_slot *slot;
	char *landing;
	size_t landing_len;
	char address[300];
	/* --web.config.file: the settings in force (swapped on SIGHUP under
	 * web_lock), those TLS was set up with at start, and the auth cache */
	pthread_mutex_t web_lock;
	struct web_settings *web;
	struct web_settings *tls_web;
	struct webauth *auth;
	/* --web.request-header-timeout: the connections (a circular list,
	 * conns itself is the head) and the reaper thread that enforces it */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_cond;
	struct http_conn conns;
	uint64_t reaper_wake_ms; /* when the reaper looks next (0: not waiting; UINT64_MAX: idle) */
	bool reaper_stop;
	bool reaper_running;
	pthread_t reaper;
	uint64_t requests_timed_out; /* under conn_lock; for the debug log */
	/* bcrypt workers and their queue (a list from auth_head), under auth_lock */
	pthread_mutex_t auth_lock;
	pthread_cond_t auth_cond;
	struct http_req *auth_head, **auth_tail;
	unsigned auth_queued;
	bool auth_stop;
	unsigned auth_threads;
	pthread_t auth_thread[AUTH_WORKERS];
	/* uncached checks and grants per client group; the HTTP thread's own */
	struct authlimit limit;
	/* TLS handshakes per client group; the HTTP thread's own */
	struct tlslimit tls_limit;
	/* http_server_stuck(): the listening socket, when the HTTP thread last
	 * accepted a connection (clock_mono_ms(), atomic), and since when
	 * clients wait unaccepted (0: none; its caller's own) */
	int listen_fd;
	uint64_t last_accept_ms;
	uint64_t backlog_since_ms;
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

bool http_route_needs_auth(enum http_route route)
{
	return route != HTTP_ROUTE_HEALTH;
}

unsigned http_connection_cap(uint64_t nofile)
{
	uint64_t cap;

	if (nofile <= HTTP_FD_RESERVE + 2)
		return 1;
	cap = (nofile - HTTP_FD_RESERVE) / 2;
	return cap > 100000 ? 100000 : (unsigned)cap;
}

static const char *const reject_reason[HTTP_REJECT_N] = {
	[HTTP_REJECT_PER_CLIENT] = "per_client_limit",
	[HTTP_REJECT_GLOBAL] = "global_limit",
	[HTTP_REJECT_DEADLINE] = "header_deadline",
	[HTTP_REJECT_TLS_RATE] = "tls_handshake_rate",
	[HTTP_REJECT_IDLE] = "idle_replaced",
};

void http_counters_add_metrics(const struct http_counters *counters, struct metric_sink *sink)
{
	for (unsigned r = 0; r < HTTP_REJECT_N; r++)
		metric_sink_add_u64(
			sink, "rdma_exporter_http_connections_rejected_total",
			"HTTP connections refused at accept (per_client_limit, "
			"global_limit, tls_handshake_rate) or cut before their request was "
			"complete (header_deadline; idle_replaced: closed for a new "
			"connection of the same client).",
			METRIC_COUNTER, METRIC_LABELS({"reason", reject_reason[r]}),
			atomic_load_explicit(&counters->rejected[r], memory_order_relaxed));
}

enum http_reject http_admit(const struct http_admission *a, unsigned max_per_client,
			    unsigned max_connections, bool *replace)
{
	*replace = false;
	if (a->from_group >= max_per_client) {
		if (!a->trusted || !a->group_idle || a->group_closing || a->open > max_connections)
			return HTTP_REJECT_PER_CLIENT;
		*replace = true;
		return HTTP_ACCEPT;
	}
	if (a->open >= max_connections - (a->trusted ? 0 : max_connections / 4))
		return HTTP_REJECT_GLOBAL;
	return HTTP_ACCEPT;
}

static void count_reject(struct http_server *srv, enum http_reject reason, unsigned n)
{
	if (srv->cfg.counters)
		atomic_fetch_add_explicit(&srv->cfg.counters->rejected[reason], n,
					  memory_order_relaxed);
}

/*
 * Which of a group's idle connections to close for its new one: first one
 * that never had a request let in (what a flood of idle connections
 * holds), then the one waiting longest.
 */
static bool rather_replace(const struct http_conn *c, const struct http_conn *than)
{
	if (c->granted != than->granted)
		return !c->granted;
	return c->since_ms < than->since_ms;
}

/*
 * Whether the web configuration in force lets in only clients that prove
 * who they are: basic auth users, or client certificates verified against
 * the client CA. Then a recent grant means the client did.
 */
static bool authenticates(struct http_server *srv)
{
	const struct web_settings *ws, *tls;
	bool r;

	pthread_mutex_lock(&srv->web_lock);
	ws = srv->web;
	/* the TLS of the start stays when a reload drops it (setup_tls_session) */
	tls = ws && ws->wc->tls ? ws : srv->tls_web;
	r = (ws && ws->wc->n_users) ||
	    (tls && tls->wc->client_auth == WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT);
	pthread_mutex_unlock(&srv->web_lock);
	return r;
}

/*
 * MHD's accept policy: counts the open connections (all, and this client
 * group's), asks http_admit, and on TLS takes a handshake from the group's
 * allowance (tlslimit.h) unless it authenticated recently; refuses over a
 * limit, counting why, or closes the idle connection the new one replaces. MHD keeps its own limits
 * one above ours, as a backstop only: it would refuse silently, and without telling the per-client
 * limit from the global one. Runs on the HTTP thread, like the handlers that fill srv->limit.
 */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct http_server *srv = cls;
	struct http_admission a = {0};
	struct http_conn *idle = NULL;
	struct client_group group;
	bool grouped = addrlen > 0 && client_group_of(addr, &group), replace;
	uint64_t now = clock_mono_ms();
	enum http_reject verdict;

	a.trusted = grouped && authlimit_recent(&srv->limit, addr, now, WEBAUTH_CACHE_TTL_MS);
	__atomic_store_n(&srv->last_accept_ms, now, __ATOMIC_RELAXED);
	pthread_mutex_lock(&srv->conn_lock);
	for (struct http_conn *conn = srv->conns.next; conn != &srv->conns; conn = conn->next) {
		a.open++;
		if (!grouped || !conn->grouped || !client_group_equal(&conn->group, &group))
			continue;
		a.from_group++;
		if (conn->shut)
			a.group_closing = true;
		else if (conn->waiting && (!idle || rather_replace(conn, idle)))
			idle = conn;
	}
	a.group_idle = idle != NULL;
	verdict = http_admit(&a, srv->cfg.max_connections_per_client, srv->cfg.max_connections,
			     &replace);
	if (verdict == HTTP_ACCEPT && srv->tls_web && !(a.trusted && authenticates(srv)) &&
	    !tlslimit_take(&srv->tls_limit, addr, now))
		verdict = HTTP_REJECT_TLS_RATE;
	if (verdict == HTTP_ACCEPT && replace) {
		/* as the reaper does: MHD sees the end of the stream and closes it */
		shutdown(idle->fd, SHUT_RDWR);
		idle->shut = true;
	}
	pthread_mutex_unlock(&srv->conn_lock);
	if (verdict == HTTP_ACCEPT && replace) {
		count_reject(srv, HTTP_REJECT_IDLE, 1);
		log_debug("idle connection closed for a new one of its client",
			  "open=%u from_client=%u", a.open, a.from_group);
	}
	if (verdict == HTTP_ACCEPT)
		return MHD_YES;
	count_reject(srv, verdict, 1);
	log_debug("connection refused", "reason=%s open=%u from_client=%u trusted=%d",
		  reject_reason[verdict], a.open, a.from_group, a.trusted);
	return MHD_NO;
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

/* [p, p+n) with the blanks around it trimmed. */
static void trim(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t'))
		(*p)++, (*n)--;
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
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
		if (*p < '0' || *p > '9')
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
 * Whether the request being served authenticated: it passed basic auth (the
 * configuration has users: nothing is served without), or its connection's
 * handshake ran under a policy that verifies client certificates and the
 * client sent one (client_cert_ok() checked it before the request was routed).
 */
static bool request_authenticated(const struct webconfig *wc, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info;
	const struct http_conn *conn;
	enum webconfig_client_auth a;
	unsigned n = 0;

	if (wc && wc->n_users > 0)
		return true;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn = info ? info->socket_context : NULL;
	if (!conn || !conn->ws)
		return false;
	a = conn->ws->wc->client_auth;
	if (a != WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN &&
	    a != WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT)
		return false;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	return info && info->tls_session && gnutls_certificate_get_peers(info->tls_session, &n) &&
	       n > 0;
}

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
						 .authenticated = request_authenticated(wc, c),
						 .data_age_s = (double)snapshot_age_ms(s) / 1000.0,
						 .wants = wants});
}

/*
 * Plain text for a client without gzip from a snapshot that kept only the
 * gzip copy (no such client lately): inflated for this response. The next
 * polls keep the text again.
 */
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

static void *auth_worker(void *arg)
{
	struct http_server *srv = arg;

	pthread_setname_np(pthread_self(), "rdma-auth");
	pthread_mutex_lock(&srv->auth_lock);
	for (;;) {
		struct http_req *req;
		bool stop;

		while (!srv->auth_head && !srv->auth_stop)
			pthread_cond_wait(&srv->auth_cond, &srv->auth_lock);
		req = srv->auth_head;
		if (!req)
			break; /* stopping, and nothing queued */
		srv->auth_head = req->next;
		if (!srv->auth_head)
			srv->auth_tail = &srv->auth_head;
		srv->auth_queued--;
		stop = srv->auth_stop;
		pthread_mutex_unlock(&srv->auth_lock);
		req->aborted = stop;
		if (!stop) {
			req->granted = webauth_job_run(srv->auth, &req->job, clock_mono_ms());
			log_debug("basic auth checked with bcrypt", "ok=%d cache_ttl=%ds",
				  req->granted, WEBAUTH_CACHE_TTL_MS / 1000);
		}
		webauth_job_wipe(&req->job);
		req->checked = true;
		/* the handler runs again; MHD's lock orders these writes before it */
		MHD_resume_connection(req->c);
		pthread_mutex_lock(&srv->auth_lock);
	}
	pthread_mutex_unlock(&srv->auth_lock);
	return NULL;
}

static int start_auth_workers(struct http_server *srv)
{
	for (unsigned i = 0; i < AUTH_WORKERS; i++) {
		int r = pthread_create(&srv->auth_thread[i], NULL, auth_worker, srv);

		if (r != 0)
			return -r;
		srv->auth_threads++;
	}
	return 0;
}

/*
 * Before MHD stops (it must find no connection suspended): checks still
 * queued are answered 503 without their bcrypt, the ones running finish,
 * one bcrypt each at most (about a second at WEBCONFIG_BCRYPT_MAX_COST).
 */
static void stop_auth_workers(struct http_server *srv)
{
	pthread_mutex_lock(&srv->auth_lock);
	srv->auth_stop = true;
	pthread_cond_broadcast(&srv->auth_cond);
	pthread_mutex_unlock(&srv->auth_lock);
	for (unsigned i = 0; i < srv->auth_threads; i++)
		pthread_join(srv->auth_thread[i], NULL);
	srv->auth_threads = 0;
}

/* Hands the check of job to a worker and suspends c until it is done. */
static enum auth_outcome submit_check(struct http_server *srv, struct MHD_Connection *c,
				      void **req_cls, struct webauth_job *job, bool recent)
{
	struct http_req *req = *req_cls == &request_started ? NULL : *req_cls;

	pthread_mutex_lock(&srv->auth_lock);
	if (srv->auth_stop || !http_auth_queue_admits(srv->auth_queued, recent) ||
	    !srv->auth_threads) {
		pthread_mutex_unlock(&srv->auth_lock);
		return AUTH_BUSY;
	}
	if (!req) {
		req = malloc(sizeof(*req));
		if (!req) {
			pthread_mutex_unlock(&srv->auth_lock);
			return AUTH_BUSY;
		}
		*req_cls = req;
	}
	req->next = NULL;
	req->c = c;
	req->checked = false;
	req->granted = false;
	req->aborted = false;
	memcpy(req->key, job->key, sizeof(req->key));
	req->job = *job;
	/* suspended before a worker can see it, so that its resume follows */
	MHD_suspend_connection(c);
	*srv->auth_tail = req;
	srv->auth_tail = &req->next;
	srv->auth_queued++;
	pthread_cond_signal(&srv->auth_cond);
	pthread_mutex_unlock(&srv->auth_lock);
	return AUTH_SUSPENDED;
}

/*
 * Basic auth when the web configuration has users: every path, as the
 * toolkit does. Cached results answer here; anything else costs a token of
 * the client's (authlimit.h) and goes to a worker.
 */
static enum auth_outcome authorize(struct http_server *srv, const struct webconfig *wc,
				   struct MHD_Connection *c, void **req_cls)
{
	const union MHD_ConnectionInfo *info;
	struct http_req *req = *req_cls == &request_started ? NULL : *req_cls;
	struct webauth_job job;
	enum auth_outcome out;
	const char *h;
	char user[256], pass[256];
	int r;

	if (!wc || wc->n_users == 0)
		return AUTH_GRANTED;
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	if (webauth_parse_basic(h, user, sizeof(user), pass, sizeof(pass)) < 0)
		return AUTH_DENIED;
	r = webauth_job_init(srv->auth, wc, user, pass, &job);
	explicit_bzero(pass, sizeof(pass));
	/* without a cache key (HMAC failed) nothing can be remembered: refuse */
	if (r < 0 || !job.have_key) {
		out = AUTH_DENIED;
		goto out;
	}
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (info && !info->client_addr)
		info = NULL;
	/* back from a worker, and the users did not change meanwhile */
	if (req && req->checked && memcmp(req->key, job.key, sizeof(job.key)) == 0) {
		out = req->aborted ? AUTH_BUSY : req->granted ? AUTH_GRANTED : AUTH_DENIED;
		/* only failures count against the client */
		if (out == AUTH_GRANTED && info) {
			authlimit_refund(&srv->limit, info->client_addr, clock_mono_ms());
			authlimit_granted(&srv->limit, info->client_addr, clock_mono_ms());
		}
		goto out;
	}
	switch (webauth_cached(srv->auth, &job, clock_mono_ms())) {
	case WEBAUTH_GRANTED:
		if (info)
			authlimit_granted(&srv->limit, info->client_addr, clock_mono_ms());
		out = AUTH_GRANTED;
		goto out;
	case WEBAUTH_DENIED:
		out = AUTH_DENIED;
		goto out;
	case WEBAUTH_UNCACHED:
		break;
	}
	if (info && !authlimit_take(&srv->limit, info->client_addr, clock_mono_ms())) {
		log_debug("basic auth refused: too many uncached checks from this client",
			  "rate=%d/s burst=%d", AUTHLIMIT_PER_S, AUTHLIMIT_BURST);
		out = AUTH_LIMITED;
		goto out;
	}
	out = submit_check(srv, c, req_cls, &job,
			   info && authlimit_recent(&srv->limit, info->client_addr, clock_mono_ms(),
						    WEBAUTH_CACHE_TTL_MS));
	if (out == AUTH_BUSY)
		log_debug("basic auth refused: the bcrypt queue is full", "queue=%d workers=%d",
			  AUTH_QUEUE, AUTH_WORKERS);
out:
	webauth_job_wipe(&job);
	return out;
}

/*
 * The handshake enforces client_auth_type (notify_connection); checked again
 * here so that no request is served if a session escaped that policy.
 */
static bool client_cert_ok(const struct http_server *srv, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info;
	const struct http_conn *conn;
	const struct web_settings *ws;
	const gnutls_datum_t *peers;
	enum webconfig_client_auth a;
	unsigned n = 0, status = 0;

	if (!srv->tls_web)
		return true;
	/* the policy this connection's handshake ran under */
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conn = info ? info->socket_context : NULL;
	ws = conn ? conn->ws : NULL;
	if (!ws)
		return false;
	a = ws->wc->client_auth;
	if (a == WEBCONFIG_NO_CLIENT_CERT || a == WEBCONFIG_REQUEST_CLIENT_CERT)
		return true;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!info || !info->tls_session)
		return false;
	peers = gnutls_certificate_get_peers(info->tls_session, &n);
	if (!peers || n == 0)
		return a == WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN;
	if (a == WEBCONFIG_REQUIRE_ANY_CLIENT_CERT)
		return true;
	return gnutls_certificate_verify_peers2(info->tls_session, &status) == 0 && status == 0;
}

static void request_complete(struct http_server *srv, struct MHD_Connection *c);
static struct http_conn *conn_of(struct MHD_Connection *c);

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

/*
 * A request passed the access control in force: its connection is one to
 * keep (rather_replace) and, without basic auth, a /metrics request is what
 * vouches for its client group (authorize notes grants with basic auth):
 * http_admit reserves connections for such groups.
 */
static void note_granted(struct http_server *srv, const struct webconfig *wc,
			 struct MHD_Connection *c, const char *url, const char *method)
{
	struct http_conn *conn = conn_of(c);
	const union MHD_ConnectionInfo *info;

	if (conn) {
		pthread_mutex_lock(&srv->conn_lock);
		conn->granted = true;
		pthread_mutex_unlock(&srv->conn_lock);
	}
	if ((wc && wc->n_users) ||
	    http_route(method, url, srv->cfg.telemetry_path) != HTTP_ROUTE_METRICS)
		return;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (info && info->client_addr)
		authlimit_granted(&srv->limit, info->client_addr, clock_mono_ms());
}

static enum MHD_Result answer_auth(struct http_server *srv, const struct webconfig *wc,
				   struct MHD_Connection *c, const char *url, const char *method,
				   void **req_cls)
{
	/* No credentials asked, and no grant noted: a health check does not
	 * make its connection one to keep over others (note_granted). */
	if (wc && wc->n_users &&
	    !http_route_needs_auth(http_route(method, url, srv->cfg.telemetry_path)))
		return route(srv, wc, c, url, method);
	switch (authorize(srv, wc, c, req_cls)) {
	case AUTH_GRANTED:
		note_granted(srv, wc, c, url, method);
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

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
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
		*req_cls = &request_started;
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* a body on GET or HEAD means nothing here: drop it */
		*upload_data_size = 0;
		return MHD_YES;
	}
	request_complete(srv, c);
	/* the settings in force when the request came, even if SIGHUP swaps them */
	pthread_mutex_lock(&srv->web_lock);
	ws = web_settings_ref(srv->web);
	pthread_mutex_unlock(&srv->web_lock);
	if (!client_cert_ok(srv, c)) {
		ret = queue_static(ws ? ws->wc : NULL, c, MHD_HTTP_FORBIDDEN,
				   "a valid client certificate is required\n",
				   "text/plain; charset=utf-8", NULL);
	} else {
		ret = answer_auth(srv, ws ? ws->wc : NULL, c, url, method, req_cls);
	}
	web_settings_unref(ws);
	return ret;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* MHD messages end in a newline: the value stops before it */
	log_debug("libmicrohttpd", "err=%.*s", (int)strcspn(msg, "\n"), msg);
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

/* "host:port" of a listening socket for logs, else fallback. */
static void name_listener(int fd, const char *fallback, char *bound, size_t boundlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char hbuf[NI_MAXHOST], pbuf[NI_MAXSERV];

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, hbuf, sizeof(hbuf), pbuf, sizeof(pbuf),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(bound, boundlen, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", hbuf,
			 pbuf);
	else
		snprintf(bound, boundlen, "%s", fallback);
}

/* Resolves and binds the listening socket ourselves, to report clear errors. */
static int open_listener(const char *address, char *bound, size_t boundlen, char *err,
			 size_t errlen)
{
	struct addrinfo hints = {0}, *res = NULL;
	char host[256], portstr[8];
	uint16_t port;
	int fd = -1, one = 1, zero = 0, r;

	if (parse_listen_address(address, host, sizeof(host), &port) < 0) {
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
	name_listener(fd, address, bound, boundlen);
	return fd;
}

/*
 * Handshake check of VerifyClientCertIfGiven and RequireAndVerifyClientCert:
 * a certificate sent must chain to the client CA; none is for the request
 * mode (REQUEST or REQUIRE) to judge.
 */
static int verify_client_cert(gnutls_session_t s)
{
	unsigned n = 0, status = 0;

	if (!gnutls_certificate_get_peers(s, &n) || n == 0)
		return 0;
	if (gnutls_certificate_verify_peers2(s, &status) < 0 || status != 0)
		return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;
	return 0;
}

/* Each new TLS session gets the TLS settings in force now (certificate,
 * key, client CA, versions: a SIGHUP changes them for the next connections)
 * and the client certificate policy of client_auth_type. Returns the
 * settings (a reference the connection keeps until it closes: GnuTLS uses
 * the credentials for the whole session), or NULL. */
static struct web_settings *setup_tls_session(struct http_server *srv, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info;
	struct web_settings *ws;
	gnutls_session_t s;

	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (!info || !info->tls_session)
		return NULL;
	s = info->tls_session;
	pthread_mutex_lock(&srv->web_lock);
	ws = web_settings_ref(srv->web);
	pthread_mutex_unlock(&srv->web_lock);
	/* a reload without TLS cannot turn the listener into plain HTTP: the
	 * settings of the start serve until a restart */
	if (!ws || !ws->wc->tls) {
		web_settings_unref(ws);
		ws = web_settings_ref(srv->tls_web);
	}
	gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, ws->cred);
	gnutls_priority_set(s, ws->prio);
	switch (ws->wc->client_auth) {
	case WEBCONFIG_NO_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_IGNORE);
		break;
	case WEBCONFIG_REQUEST_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		break;
	case WEBCONFIG_REQUIRE_ANY_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		break;
	case WEBCONFIG_VERIFY_CLIENT_CERT_IF_GIVEN:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUEST);
		gnutls_session_set_verify_function(s, verify_client_cert);
		break;
	case WEBCONFIG_REQUIRE_AND_VERIFY_CLIENT_CERT:
		gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
		gnutls_session_set_verify_function(s, verify_client_cert);
		break;
	}
	return ws;
}

/*
 * conn waits for a request from now_ms: arms its deadline (under conn_lock)
 * and wakes the reaper if it sleeps past it.
 */
static void arm_deadline(struct http_server *srv, struct http_conn *conn, uint64_t now_ms,
			 uint64_t deadline_ms)
{
	conn->waiting = true;
	conn->since_ms = now_ms;
	conn->deadline_ms = deadline_ms;
	if (srv->reaper_wake_ms && deadline_ms < srv->reaper_wake_ms)
		pthread_cond_signal(&srv->conn_cond);
}

static struct http_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

/* The whole request (head and body) is in: the deadline no longer applies. */
static void request_complete(struct http_server *srv, struct MHD_Connection *c)
{
	struct http_conn *conn = conn_of(c);

	if (!conn)
		return;
	pthread_mutex_lock(&srv->conn_lock);
	conn->waiting = false;
	pthread_mutex_unlock(&srv->conn_lock);
}

/*
 * A response is sent (or the request ended): on a kept-alive connection
 * the next request gets a deadline again. It counts from the end of this
 * response plus the idle timeout, so a client may stay idle as long as MHD
 * lets it and then has the header timeout to send its next request.
 */
static void request_done(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_server *srv = cls;
	struct http_conn *conn = conn_of(c);
	uint64_t now;

	/* a request that went to a worker; never freed while queued: suspended
	 * connections end only after stop_auth_workers resumed them */
	if (*req_cls && *req_cls != &request_started)
		free(*req_cls);
	*req_cls = NULL;
	if (!conn || toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		return;
	now = clock_mono_ms();
	pthread_mutex_lock(&srv->conn_lock);
	arm_deadline(srv, conn, now,
		     now + (uint64_t)srv->cfg.connection_timeout_s * 1000 +
			     srv->cfg.request_header_timeout_ms);
	pthread_mutex_unlock(&srv->conn_lock);
}

/*
 * Connection start: its deadline (the request head, and on TLS the
 * handshake before it, within --web.request-header-timeout) and, under
 * TLS, the session's settings. Close: forget it. MHD calls CLOSED before
 * it closes the socket, so the reaper (which shuts sockets down under
 * conn_lock) never touches a descriptor that was closed or reused.
 */
static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			      enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *srv = cls;
	const union MHD_ConnectionInfo *info;
	struct http_conn *conn = *socket_context;
	uint64_t now;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!conn)
			return;
		pthread_mutex_lock(&srv->conn_lock);
		conn->prev->next = conn->next;
		conn->next->prev = conn->prev;
		pthread_mutex_unlock(&srv->conn_lock);
		web_settings_unref(conn->ws);
		free(conn);
		*socket_context = NULL;
		return;
	}
	if (toe != MHD_CONNECTION_NOTIFY_STARTED)
		return;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	conn = calloc(1, sizeof(*conn));
	if (!conn || !info) {
		/* no deadline for this one; without TLS settings client_cert_ok refuses it */
		free(conn);
		return;
	}
	conn->fd = info->connect_fd;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	conn->grouped = info && client_group_of(info->client_addr, &conn->group);
	if (srv->tls_web)
		conn->ws = setup_tls_session(srv, c);
	now = clock_mono_ms();
	pthread_mutex_lock(&srv->conn_lock);
	conn->next = &srv->conns;
	conn->prev = srv->conns.prev;
	conn->prev->next = conn;
	srv->conns.prev = conn;
	arm_deadline(srv, conn, now, now + srv->cfg.request_header_timeout_ms);
	pthread_mutex_unlock(&srv->conn_lock);
	*socket_context = conn;
}

/*
 * The reaper: shuts down (never closes: MHD owns the descriptor and sees
 * the end of the stream on its next read) every connection whose request
 * is not complete by its deadline, then sleeps until the earliest one.
 */
static void *reaper_thread(void *arg)
{
	struct http_server *srv = arg;
	struct timespec ts;

	pthread_setname_np(pthread_self(), "rdma-reaper");
	pthread_mutex_lock(&srv->conn_lock);
	while (!srv->reaper_stop) {
		uint64_t now = clock_mono_ms(), next = UINT64_MAX;
		unsigned shut = 0;

		for (struct http_conn *conn = srv->conns.next; conn != &srv->conns;
		     conn = conn->next) {
			if (!conn->waiting || conn->shut)
				continue;
			if (conn->deadline_ms <= now) {
				shutdown(conn->fd, SHUT_RDWR);
				conn->shut = true;
				shut++;
			} else if (conn->deadline_ms < next) {
				next = conn->deadline_ms;
			}
		}
		if (shut) {
			srv->requests_timed_out += shut;
			count_reject(srv, HTTP_REJECT_DEADLINE, shut);
			log_debug("request not complete in time: connections shut down",
				  "connections=%u total=%llu", shut,
				  (unsigned long long)srv->requests_timed_out);
		}
		srv->reaper_wake_ms = next;
		if (next == UINT64_MAX) { /* nothing to watch: sleep until a request comes */
			pthread_cond_wait(&srv->conn_cond, &srv->conn_lock);
			srv->reaper_wake_ms = 0;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (time_t)((next - now) / 1000);
		ts.tv_nsec += (long)((next - now) % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&srv->conn_cond, &srv->conn_lock, &ts);
		srv->reaper_wake_ms = 0;
	}
	pthread_mutex_unlock(&srv->conn_lock);
	return NULL;
}

static void stop_reaper(struct http_server *srv)
{
	if (!srv->reaper_running)
		return;
	pthread_mutex_lock(&srv->conn_lock);
	srv->reaper_stop = true;
	pthread_cond_signal(&srv->conn_cond);
	pthread_mutex_unlock(&srv->conn_lock);
	pthread_join(srv->reaper, NULL);
	srv->reaper_running = false;
}

/* Starts MHD on fd, with TLS when the web configuration asks for it. */
static struct MHD_Daemon *start_mhd(struct http_server *srv, int fd, char *err, size_t errlen)
{
	const struct http_config *cfg = &srv->cfg;
	const struct web_settings *tls = srv->tls_web;
	struct MHD_OptionItem tls_opts[5];
	/* suspend/resume: basic auth checks wait for a bcrypt worker */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME,
		 n = 0;
	struct MHD_Daemon *d;

	if (tls) {
		if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
			snprintf(err, errlen, "this libmicrohttpd is built without TLS support");
			return NULL;
		}
		/* what MHD needs to start; each session then gets the settings in
		 * force when it begins (notify_connection) */
		flags |= MHD_USE_TLS;
		tls_opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, tls->key_pem};
		tls_opts[n++] =
			(struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, tls->cert_pem};
		if (tls->ca_pem)
			tls_opts[n++] =
				(struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_TRUST, 0, tls->ca_pem};
		tls_opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0,
							(void *)tls->priorities};
	}
	tls_opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	/*
	 * 32 KiB per connection (half of it for the request head): MHD 0.9.75
	 * takes a pool above 32 KiB from mmap and gives it back with munmap
	 * at every close, and the munmap's TLB shootdown across this process's
	 * threads cost over half the CPU of a scrape without keep-alive
	 * (perf: 580 us per connection at 64 KiB). Bodies are sent from the
	 * snapshot, never copied into the pool.
	 */
	d = MHD_start_daemon(flags, 0, accept_policy, srv,
			     /* the logger first, so that option errors are logged through it too */
			     handle, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
			     cfg->max_connections + 1, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     cfg->max_connections_per_client + 1, MHD_OPTION_CONNECTION_TIMEOUT,
			     cfg->connection_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			     (size_t)(32 * 1024), MHD_OPTION_NOTIFY_CONNECTION, notify_connection,
			     srv, MHD_OPTION_NOTIFY_COMPLETED, request_done, srv, MHD_OPTION_ARRAY,
			     tls_opts, MHD_OPTION_END);
	if (!d)
		snprintf(err, errlen, "cannot start the HTTP%s server on %s", tls ? "S" : "",
			 srv->address);
	return d;
}

struct http_server *http_server_start(const struct http_config *cfg, struct snapshot_slot *slot,
				      char *err, size_t errlen)
{
	struct http_server *srv = calloc(1, sizeof(*srv));
	pthread_condattr_t ca;
	int fd, r;

	if (!srv) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	srv->cfg = *cfg;
	srv->slot = slot;
	pthread_mutex_init(&srv->web_lock, NULL);
	pthread_mutex_init(&srv->conn_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->conn_cond, &ca);
	pthread_condattr_destroy(&ca);
	srv->conns.next = srv->conns.prev = &srv->conns;
	pthread_mutex_init(&srv->auth_lock, NULL);
	pthread_cond_init(&srv->auth_cond, NULL);
	srv->auth_tail = &srv->auth_head;
	srv->web = web_settings_ref(cfg->web);
	if (cfg->web && cfg->web->wc->tls)
		srv->tls_web = web_settings_ref(cfg->web);
	srv->auth = webauth_new();
	if (!srv->auth) {
		snprintf(err, errlen, "cannot set up basic auth: out of memory or no random bytes");
		goto fail;
	}
	if (make_landing(srv) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (cfg->listen_fd > 0) {
		fd = cfg->listen_fd;
		name_listener(fd, "the socket systemd passed", srv->address, sizeof(srv->address));
	} else {
		fd = open_listener(cfg->listen_address, srv->address, sizeof(srv->address), err,
				   errlen);
	}
	if (fd < 0)
		goto fail;
	r = pthread_create(&srv->reaper, NULL, reaper_thread, srv);
	if (r != 0) {
		snprintf(err, errlen, "cannot start the HTTP reaper thread: %s", strerror(r));
		close(fd);
		goto fail;
	}
	srv->reaper_running = true;
	r = start_auth_workers(srv);
	if (r < 0) {
		snprintf(err, errlen, "cannot start the basic auth threads: %s", strerror(-r));
		close(fd);
		goto fail;
	}
	srv->listen_fd = fd;
	srv->mhd = start_mhd(srv, fd, err, errlen);
	if (!srv->mhd) {
		close(fd);
		goto fail;
	}
	return srv;
fail:
	/* srv->mhd is NULL here: stop only frees what was set up */
	http_server_stop(srv);
	return NULL;
}

/* Connections waiting in the accept queue of a listening TCP socket; 0 when it cannot tell. */
static unsigned accept_queue(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	/* for a listening socket the kernel reports its accept queue there */
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 || ti.tcpi_state != TCP_LISTEN)
		return 0;
	return ti.tcpi_unacked;
}

/* Below --web.max-connections (MHD stops accepting at its limit); true when busy. */
static bool below_limit(struct http_server *srv)
{
	unsigned open = 0;

	/* never wait here: the lock's holder may be what is stuck */
	if (pthread_mutex_trylock(&srv->conn_lock) != 0)
		return true;
	for (struct http_conn *conn = srv->conns.next; conn != &srv->conns; conn = conn->next)
		open++;
	pthread_mutex_unlock(&srv->conn_lock);
	return open < srv->cfg.max_connections;
}

bool http_server_stuck(struct http_server *srv, uint64_t after_ms)
{
	uint64_t now = clock_mono_ms(), last, since;

	if (!srv || !srv->mhd || accept_queue(srv->listen_fd) == 0) {
		if (srv)
			srv->backlog_since_ms = 0;
		return false;
	}
	if (!srv->backlog_since_ms)
		srv->backlog_since_ms = now;
	if (!below_limit(srv))
		return false;
	last = __atomic_load_n(&srv->last_accept_ms, __ATOMIC_RELAXED);
	since = last > srv->backlog_since_ms ? last : srv->backlog_since_ms;
	return now - since >= after_ms;
}

void http_server_stop(struct http_server *srv)
{
	if (!srv)
		return;
	/* no shutdown() from here on: MHD closes every connection below */
	stop_reaper(srv);
	stop_auth_workers(srv);
	/* also closes the listening socket, ours or not */
	if (srv->mhd)
		MHD_stop_daemon(srv->mhd);
	free(srv->landing);
	webauth_free(srv->auth);
	web_settings_unref(srv->web);
	web_settings_unref(srv->tls_web);
	pthread_cond_destroy(&srv->conn_cond);
	pthread_mutex_destroy(&srv->conn_lock);
	pthread_cond_destroy(&srv->auth_cond);
	pthread_mutex_destroy(&srv->auth_lock);
	pthread_mutex_destroy(&srv->web_lock);
	free(srv);
}

bool http_server_set_web(struct http_server *srv, struct web_settings *ws)
{
	struct web_settings *old;

	pthread_mutex_lock(&srv->web_lock);
	old = srv->web;
	srv->web = web_settings_ref(ws);
	pthread_mutex_unlock(&srv->web_lock);
	web_settings_unref(old);
	/* results cached for users the reload changed or removed must not
	 * answer; those of the ones it kept spare their scrapers a bcrypt */
	webauth_retain(srv->auth, ws ? ws->wc : NULL);
	/* TLS on or off is the listener's nature; the rest applies to new connections */
	return !srv->tls_web == !(ws && ws->wc->tls);
}

const char *http_server_address(const struct http_server *srv)
{
	return srv->address;
}
