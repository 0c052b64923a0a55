// SPDX-License-Identifier: Apache-2.0
/*
 * Who a request's client is: basic auth (webauth.h) with its bcrypt checks
 * on AUTH_WORKERS worker threads, the connection suspended meanwhile, and
 * the failed-login limit (authlimit.h) in front of them; and the client
 * certificate its TLS handshake showed. The queue is under auth_lock.
 */
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "http/http_internal.h"
#include "http/webauth.h"

char http_request_started;

/*
 * Defined only in a test build of the daemon (tests/tools/hangtest_main.c):
 * the refill rate of the per-client limit (authlimit.per_s), so that
 * tests/e2e/bruteforce.sh sees its 429s however slowly it runs. In
 * rdma_exporter the weak reference is NULL.
 */
#pragma weak http_test_authlimit_per_s

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

/*
 * Whether the request being served authenticated: it passed basic auth (the
 * configuration has users: nothing is served without), or its connection's
 * handshake ran under a policy that verifies client certificates and the
 * client sent one (http_client_cert_ok() checked it before the request was routed).
 */
bool http_request_authenticated(const struct webconfig *wc, struct MHD_Connection *c)
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

int http_auth_start(struct http_server *srv)
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
void http_auth_stop(struct http_server *srv)
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
	struct http_req *req = *req_cls == &http_request_started ? NULL : *req_cls;

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
enum auth_outcome http_authorize(struct http_server *srv, const struct webconfig *wc,
				 struct MHD_Connection *c, void **req_cls)
{
	const union MHD_ConnectionInfo *info;
	struct http_req *req = *req_cls == &http_request_started ? NULL : *req_cls;
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
	if (http_test_authlimit_per_s)
		srv->limit.per_s = http_test_authlimit_per_s();
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
 * The handshake enforces client_auth_type (http_notify_connection); checked again
 * here so that no request is served if a session escaped that policy.
 */
bool http_client_cert_ok(const struct http_server *srv, struct MHD_Connection *c)
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
