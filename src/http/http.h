/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Room http (src/http/): the front door. This server, --web.config.file
 * (webconfig.h parses, websettings.h loads files and TLS, webauth.h checks
 * basic auth) and the failed-login limits (authlimit.h). Uses exposition and
 * base; knows nothing of the poller or the collectors (the daemon wires them).
 *
 * HTTP server (libmicrohttpd, one internal epoll thread). Serves the
 * current snapshot at the telemetry path, a landing page at / and /healthz.
 * Requests only take a reference to the current snapshot: they never wait
 * for a poll. Basic auth checks that need a bcrypt run on two worker
 * threads, their connections suspended meanwhile (docs/security.md).
 */
#ifndef RDMA_EXPORTER_HTTP_H
#define RDMA_EXPORTER_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exposition/snapshot.h"
#include "http/websettings.h"

/* Why a connection was refused or cut (rdma_exporter_http_connections_rejected_total). */
enum http_reject {
	HTTP_REJECT_PER_CLIENT, /* --web.max-connections-per-client reached: refused */
	HTTP_REJECT_GLOBAL,   /* --web.max-connections (or its unreserved part) reached: refused */
	HTTP_REJECT_DEADLINE, /* --web.request-header-timeout passed: cut */
	HTTP_REJECT_TLS_RATE, /* the client's TLS handshakes over tlslimit.h's rate: refused */
	HTTP_REJECT_IDLE,     /* idle, closed for a new connection of its client (http_admit) */
	HTTP_REJECT_N,
	HTTP_ACCEPT = HTTP_REJECT_N,
};

/*
 * Counters the server updates from its threads and the poller reads for
 * each poll. Owned by the caller so that they exist (at 0) before the
 * server starts and the first poll can export them.
 */
struct http_counters {
	_Atomic uint64_t rejected[HTTP_REJECT_N];
};

struct metric_sink;
/* Adds rdma_exporter_http_connections_rejected_total, every reason. */
void http_counters_add_metrics(const struct http_counters *counters, struct metric_sink *sink);

/*
 * The headers that say where a request ends, as counted in one request
 * head. libmicrohttpd 0.9.75 accepts two Content-Length headers (serving the
 * leftover bytes as a second request), Transfer-Encoding with
 * Content-Length, and two Host headers; a front proxy may read such a
 * request differently, so the exporter refuses them with 400.
 */
struct http_framing {
	unsigned content_length, transfer_encoding, host;
};

/* Pure: NULL when f is unambiguous, else the 400 body naming the problem. */
const char *http_framing_problem(const struct http_framing *f);

/*
 * What the accept policy knows when a connection comes. A client is its
 * group (clientgroup.h: an IPv4 address or an IPv6 /64); trusted when the
 * group was granted access within WEBAUTH_CACHE_TTL_MS (a right password,
 * or without basic auth a /metrics served: authlimit_recent).
 */
struct http_admission {
	unsigned open;	     /* connections open in all, those being closed included */
	unsigned from_group; /* of them, the group's */
	bool group_closing;  /* one of the group's is being closed already */
	bool group_idle;     /* one of the group's waits for a request: it can be closed */
	bool trusted;
	/* the most connections another group holds, of the groups with one idle */
	unsigned other_most;
};

/*
 * The accept policy, pure. Per-client first: a group at its own limit is
 * told so even when the server is full, unless it is trusted and one of its
 * connections is idle: then the new one is taken and *replace set (close
 * that idle one; one at a time, as libmicrohttpd's own backstop, one above
 * each limit, would refuse more without a word). So connections that a
 * client sharing the scraper's address holds idle cannot lock the scraper
 * out. Of max_connections, a quarter (rounded down) is reserved for trusted
 * groups: the others are refused once the rest is open, so clients that
 * never authenticated cannot fill the server. At the global limit, a group
 * holding at least 2 fewer connections than another with one idle takes
 * that idle one (*replace set, from_group below max_per_client): clients
 * that hold many idle connections, trusted or not, cannot lock out one that
 * holds none, and the shares only move towards even, never back and forth.
 */
enum http_reject http_admit(const struct http_admission *a, unsigned max_per_client,
			    unsigned max_connections, bool *replace);

/* One /metrics request served from a snapshot (http_config.on_scrape). */
struct http_scrape {
	const void *addr; /* the client's IP address bytes (in_addr, in6_addr); NULL: unknown */
	size_t addr_len;
	const char *user_agent; /* NULL: none sent */
	double data_age_s;	/* the age of the data served */
	unsigned wants;		/* SNAPSHOT_WANTS_* */
	/* it passed basic auth, or its connection showed a verified client certificate */
	bool authenticated;
};

struct http_config {
	const char *listen_address; /* HOST:PORT, :PORT, [V6]:PORT */
	const char *telemetry_path;
	unsigned max_connections;
	/* connections from one client at most (clientgroup.h; the accept policy refuses more) */
	unsigned max_connections_per_client;
	/* idle timeout (MHD restarts it on every byte) */
	unsigned connection_timeout_s;
	/*
	 * A request (its head, and on TLS the handshake before it) must be
	 * complete this long after the connection was accepted; on a kept-alive
	 * connection, this long plus the idle timeout after the previous
	 * response. Else the connection is shut down.
	 */
	uint64_t request_header_timeout_ms;
	/* /healthz turns 503 when the newest snapshot is older than this */
	uint64_t stale_after_ms;
	/*
	 * > 0: an already listening socket (systemd socket activation) served
	 * instead of binding listen_address; the server owns it from then on.
	 * 0: bind listen_address (passed sockets start at fd 3, never 0).
	 */
	int listen_fd;
	/*
	 * --web.config.file (TLS, basic auth, headers); NULL: plain HTTP, no
	 * auth. The server takes a reference of its own.
	 */
	struct web_settings *web;
	/* where refusals are counted; may be NULL (not counted) */
	struct http_counters *counters;
	/*
	 * Called for every /metrics request served from a snapshot, on the
	 * HTTP thread, with who asked and what it got (struct http_scrape);
	 * the daemon keys its scrape-aligned schedule on it. May be NULL.
	 */
	void (*on_scrape)(void *arg, const struct http_scrape *scrape);
	void *on_scrape_arg;
};

struct http_server;

/* NULL on failure with the reason in err (e.g. address in use). */
struct http_server *http_server_start(const struct http_config *cfg, struct snapshot_slot *slot,
				      char *err, size_t errlen);
void http_server_stop(struct http_server *srv);
/*
 * Whether the HTTP thread has been stuck for after_ms: clients have waited
 * in the listening socket's accept queue, with fewer than
 * --web.max-connections open, and it accepted none for that long. An idle
 * server (nobody connecting) is never stuck. Cheap (a getsockopt(TCP_INFO)
 * and a try-lock); for one caller thread at a time (the poller, before each
 * watchdog ping); false where it cannot tell (not a TCP socket).
 */
bool http_server_stuck(struct http_server *srv, uint64_t after_ms);
/* The address actually bound, "host:port", for logs. */
const char *http_server_address(const struct http_server *srv);
/*
 * Installs reloaded web settings (takes a reference): users and headers
 * apply to the next request, TLS settings (certificate, key, client CA,
 * client auth, versions) to the next connection. Whether the port speaks
 * TLS at all is fixed at start: returns false when ws would turn TLS on or
 * off (the server keeps its TLS, or its plain HTTP, until a restart).
 */
bool http_server_set_web(struct http_server *srv, struct web_settings *ws);

/*
 * The descriptor budget (docs/configuration.md, "Connections and descriptors"). Of RLIMIT_NOFILE,
 * HTTP_FD_RESERVE descriptors are for the process's own fixed and transient
 * ones (stdio, listener, epoll, collector sockets, per-read opens, /proc);
 * HTTP connections may take at most half of the rest; collectors keep files
 * open only below RLIMIT_NOFILE - HTTP_FD_RESERVE - connections. So neither
 * side can run the other out of descriptors.
 */
#define HTTP_FD_RESERVE 64
/* The most connections a limit of nofile descriptors allows (at least 1). */
unsigned http_connection_cap(uint64_t nofile);

/*
 * Whether a basic auth check may wait for a bcrypt thread with queued
 * already waiting: a client that gave a right password recently (recent)
 * may take the last places, reserved for such clients (docs/security.md).
 */
bool http_auth_queue_admits(unsigned queued, bool recent);

/*
 * A seam for tests only (a weak reference, NULL in rdma_exporter): the
 * refill rate of the per-client limit of failed logins, tokens a second;
 * 0 keeps the default, a negative value refills none.
 */
int http_test_authlimit_per_s(void);

/* Pure request logic, exposed for tests. */
enum http_route {
	HTTP_ROUTE_METRICS,
	HTTP_ROUTE_LANDING,
	HTTP_ROUTE_HEALTH,
	HTTP_ROUTE_NOT_FOUND,
	HTTP_ROUTE_METHOD_NOT_ALLOWED,
};
enum http_route http_route(const char *method, const char *url, const char *telemetry_path);
/*
 * Whether a route asks for basic auth when the web config has users: every
 * one but GET or HEAD /healthz, which says only "ok" or "stale" and which the
 * kubelet's probes must reach without a password (docs/security.md).
 */
bool http_route_needs_auth(enum http_route route);
/* True when an Accept-Encoding header value accepts gzip (q > 0). */
bool http_accepts_gzip(const char *accept_encoding);

/*
 * The exposition format an Accept header value asks for: protobuf
 * (expo_proto.h) when it names application/vnd.google.protobuf (with
 * proto=io.prometheus.client.MetricFamily and encoding=delimited, where those
 * parameters are given) at a q above 0 and at least that of the text format
 * (text/plain, text/ * or * / *); text otherwise, NULL and garbage included.
 * Prometheus with --enable-feature=native-histograms sends protobuf at q=0.8
 * and text at q=0.2 or less.
 */
enum http_format {
	HTTP_FORMAT_TEXT,
	HTTP_FORMAT_PROTO,
};
enum http_format http_negotiate_format(const char *accept);

#endif
