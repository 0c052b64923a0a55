// SPDX-License-Identifier: Apache-2.0
/*
 * The server's life (http.h): start (the listening socket, bound here or
 * passed by systemd, the landing page, the reaper and auth threads, then
 * libmicrohttpd with its callbacks from http_conn.c and http_handler.c), stop,
 * and the web settings a SIGHUP installs. The rest of the server is in the
 * files http_internal.h lists.
 */
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/strparse.h"
#include "http/http_internal.h"
#include "http/webauth.h"

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

/* Starts MHD on fd, with TLS when the web configuration asks for it. */
static struct MHD_Daemon *start_mhd(struct http_server *srv, int fd, char *err, size_t errlen)
{
	const struct http_config *cfg = &srv->cfg;
	const struct web_settings *tls = srv->tls_web;
	struct MHD_OptionItem tls_opts[HTTP_TLS_OPTIONS + 1];
	/* suspend/resume: basic auth checks wait for a bcrypt worker */
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
			 MHD_ALLOW_SUSPEND_RESUME;
	struct MHD_Daemon *d;
	int n = 0;

	if (tls) {
		/* what MHD needs to start; each session then gets the settings in
		 * force when it begins (http_notify_connection) */
		n = http_tls_options(srv, tls_opts, err, errlen);
		if (n < 0)
			return NULL;
		flags |= MHD_USE_TLS;
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
	d = MHD_start_daemon(flags, 0, http_accept_policy, srv,
			     /* the logger first, so that option errors are logged through it too */
			     http_handle, srv, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
			     cfg->max_connections + 1, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     cfg->max_connections_per_client + 1, MHD_OPTION_CONNECTION_TIMEOUT,
			     cfg->connection_timeout_s, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
			     (size_t)(32 * 1024), MHD_OPTION_NOTIFY_CONNECTION,
			     http_notify_connection, srv, MHD_OPTION_NOTIFY_COMPLETED,
			     http_request_done, srv, MHD_OPTION_ARRAY, tls_opts, MHD_OPTION_END);
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
	r = http_reaper_start(srv);
	if (r < 0) {
		snprintf(err, errlen, "cannot start the HTTP reaper thread: %s", strerror(-r));
		close(fd);
		goto fail;
	}
	r = http_auth_start(srv);
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
void http_server_stop(struct http_server *srv)
{
	if (!srv)
		return;
	/* no shutdown() from here on: MHD closes every connection below */
	http_reaper_stop(srv);
	http_auth_stop(srv);
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
