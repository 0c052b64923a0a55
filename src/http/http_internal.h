/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the server's files (src/http/http*.c): the server's state and
 * what they call of each other; no other room and no test includes it.
 *
 *   http_server.c   start and stop, the listener, the landing page
 *   http_request.c  pure request logic: routes, content negotiation, framing
 *   http_handler.c  the access handler and the responses
 *   http_conn.c     connections: admission, per-client limits, deadlines, reaper
 *   http_auth.c     basic auth on worker threads, client certificates
 *   http_tls.c      TLS: MHD's options and each session's settings
 *
 * Ownership: http_server.c allocates struct http_server and frees it in
 * http_server_stop(); http_conn.c allocates each struct http_conn (MHD's
 * socket context) at NOTIFY_STARTED and frees it at NOTIFY_CLOSED, with the
 * web_settings reference http_tls.c took for it; http_auth.c allocates a
 * request's struct http_req (MHD's request context) when its check goes to
 * a worker, and http_conn.c frees it when the request ends.
 *
 * Threads: MHD's one internal thread (the HTTP thread) runs the accept
 * policy, the connection notifications and the access handler; the reaper
 * thread (http_conn.c) and AUTH_WORKERS bcrypt threads (http_auth.c) run
 * their loops; the poller calls http_server_stuck(); the daemon's main
 * thread calls http_server_set_web(). Each field of struct http_server says
 * its lock, or whose it is.
 */
#ifndef RDMA_EXPORTER_HTTP_INTERNAL_H
#define RDMA_EXPORTER_HTTP_INTERNAL_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http/authlimit.h"
#include "http/clientgroup.h"
#include "http/http.h"
#include "http/tlslimit.h"
#include "http/webconfig.h"
#include "http/websettings.h"

struct http_req;
struct webauth;

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

/* What http_authorize() decided for a request. */
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

/* --- http_conn.c: connections, admission, deadlines, the reaper */

/* MHD's accept policy (MHD_AcceptPolicyCallback); cls is the server. */
enum MHD_Result http_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* MHD_OPTION_NOTIFY_CONNECTION: tracks a connection from start to close. */
void http_notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			    enum MHD_ConnectionNotificationCode toe);
/* MHD_OPTION_NOTIFY_COMPLETED: a request ended; re-arms the deadline. */
void http_request_done(void *cls, struct MHD_Connection *c, void **req_cls,
		       enum MHD_RequestTerminationCode toe);
/* The whole request (head and body) is in: the deadline no longer applies. */
void http_request_complete(struct http_server *srv, struct MHD_Connection *c);
/* A request on c passed the access control in force (see the definition). */
void http_note_granted(struct http_server *srv, const struct webconfig *wc,
		       struct MHD_Connection *c, const char *url, const char *method);
/* Starts the reaper thread: 0 or -errno. */
int http_reaper_start(struct http_server *srv);
/* Stops and joins it; a no-op when it does not run. */
void http_reaper_stop(struct http_server *srv);

/* --- http_auth.c: basic auth workers, client certificates */

/* The access handler's per-request marker (*req_cls): the request head was seen. */
extern char http_request_started;
/* Starts the AUTH_WORKERS bcrypt threads: 0 or -errno (those started run on). */
int http_auth_start(struct http_server *srv);
/* Answers the queued checks 503, lets the running ones finish, joins. */
void http_auth_stop(struct http_server *srv);
/* Basic auth for the request on c under wc (may be NULL: no auth). */
enum auth_outcome http_authorize(struct http_server *srv, const struct webconfig *wc,
				 struct MHD_Connection *c, void **req_cls);
/* Whether c's client certificate satisfies the policy its handshake ran under. */
bool http_client_cert_ok(const struct http_server *srv, struct MHD_Connection *c);
/* Whether the request on c authenticated (basic auth, or a verified client certificate). */
bool http_request_authenticated(const struct webconfig *wc, struct MHD_Connection *c);

/* --- http_tls.c: TLS */

/*
 * Fills opts (room for HTTP_TLS_OPTIONS items) with what MHD needs to start
 * TLS with srv->tls_web; returns how many, or -ENOTSUP with err set when this
 * libmicrohttpd has no TLS.
 */
#define HTTP_TLS_OPTIONS 4
int http_tls_options(const struct http_server *srv, struct MHD_OptionItem *opts, char *err,
		     size_t errlen);
/* A new TLS session's settings; returns the reference its connection keeps, or NULL. */
struct web_settings *http_tls_session_setup(struct http_server *srv, struct MHD_Connection *c);

/* --- http_handler.c: the access handler */

/* MHD_AccessHandlerCallback; cls is the server. */
enum MHD_Result http_handle(void *cls, struct MHD_Connection *c, const char *url,
			    const char *method, const char *version, const char *upload_data,
			    size_t *upload_data_size, void **req_cls);

#endif
