// SPDX-License-Identifier: Apache-2.0
/*
 * The server's connections: the accept policy (the per-client and global
 * limits, the connections reserved for trusted clients, an idle connection
 * replaced for a new one of its client or of a client holding fewer, the
 * TLS handshake allowance), the
 * request deadline of --web.request-header-timeout and the reaper thread
 * that enforces it, the refusal counters, and whether the HTTP thread is
 * stuck. State in struct http_server (http_internal.h), under conn_lock.
 */
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "exposition/metrics.h"
#include "http/http_internal.h"
#include "http/webauth.h"

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
			"connection of the same client, or of a client holding fewer when "
			"full).",
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
	if (a->open < max_connections - (a->trusted ? 0 : max_connections / 4))
		return HTTP_ACCEPT;
	/* one at a time, as above: the closing one still counts in open */
	if (a->other_most < a->from_group + 2 || a->open > max_connections)
		return HTTP_REJECT_GLOBAL;
	*replace = true;
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

static int by_group(const void *x, const void *y)
{
	const struct http_conn *a = *(struct http_conn *const *)x;
	const struct http_conn *b = *(struct http_conn *const *)y;

	return memcmp(a->group.b, b->group.b, CLIENT_GROUP_LEN);
}

/*
 * The connection to close if http_admit says to replace one. A group at its
 * own limit: own_idle, its own. Else, of the groups other than own (none:
 * not grouped), the one holding the most connections with one idle and not
 * being closed: that idle connection (rather_replace), and in a->other_most
 * how many the group holds; NULL when there is none, or no memory, or the
 * open ones are below the reserve (http_admit takes no other's there).
 * Under conn_lock; it sorts, so only near the limit.
 */
static struct http_conn *to_replace(struct http_server *srv, const struct client_group *own,
				    struct http_admission *a, struct http_conn *own_idle)
{
	unsigned max = srv->cfg.max_connections;
	struct http_conn **v, *best = NULL;
	size_t n = 0;

	if (a->from_group >= srv->cfg.max_connections_per_client)
		return own_idle;
	if (a->open < max - max / 4 || !(v = malloc(a->open * sizeof(*v))))
		return NULL;
	for (struct http_conn *conn = srv->conns.next; conn != &srv->conns; conn = conn->next)
		if (n < a->open && conn->grouped && !(own && client_group_equal(&conn->group, own)))
			v[n++] = conn;
	qsort(v, n, sizeof(*v), by_group);
	for (size_t i = 0, j; i < n; i = j) {
		struct http_conn *idle = NULL;

		for (j = i; j < n && client_group_equal(&v[j]->group, &v[i]->group); j++)
			if (v[j]->waiting && !v[j]->shut && (!idle || rather_replace(v[j], idle)))
				idle = v[j];
		if (idle && j - i > a->other_most) {
			a->other_most = (unsigned)(j - i);
			best = idle;
		}
	}
	free(v);
	return best;
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
	/* the TLS of the start stays when a reload drops it (http_tls_session_setup) */
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
enum MHD_Result http_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
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
	idle = to_replace(srv, grouped ? &group : NULL, &a, idle);
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
		log_debug("idle connection closed for a new one",
			  "open=%u from_client=%u other_most=%u", a.open, a.from_group,
			  a.other_most);
	}
	if (verdict == HTTP_ACCEPT)
		return MHD_YES;
	count_reject(srv, verdict, 1);
	log_debug("connection refused", "reason=%s open=%u from_client=%u trusted=%d",
		  reject_reason[verdict], a.open, a.from_group, a.trusted);
	return MHD_NO;
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

/*
 * A request passed the access control in force: its connection is one to
 * keep (rather_replace) and, without basic auth, a /metrics request is what
 * vouches for its client group (http_authorize notes grants with basic auth):
 * http_admit reserves connections for such groups.
 */
void http_note_granted(struct http_server *srv, const struct webconfig *wc,
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

/* The whole request (head and body) is in: the deadline no longer applies. */
void http_request_complete(struct http_server *srv, struct MHD_Connection *c)
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
void http_request_done(void *cls, struct MHD_Connection *c, void **req_cls,
		       enum MHD_RequestTerminationCode toe)
{
	struct http_server *srv = cls;
	struct http_conn *conn = conn_of(c);
	uint64_t now;

	/* a request that went to a worker; never freed while queued: suspended
	 * connections end only after http_auth_stop resumed them */
	if (*req_cls && *req_cls != &http_request_started)
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
void http_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
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
		/* no deadline for this one; without TLS settings http_client_cert_ok refuses it */
		free(conn);
		return;
	}
	conn->fd = info->connect_fd;
	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	conn->grouped = info && client_group_of(info->client_addr, &conn->group);
	if (srv->tls_web)
		conn->ws = http_tls_session_setup(srv, c);
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

int http_reaper_start(struct http_server *srv)
{
	int r = pthread_create(&srv->reaper, NULL, reaper_thread, srv);

	if (r != 0)
		return -r;
	srv->reaper_running = true;
	return 0;
}

void http_reaper_stop(struct http_server *srv)
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
