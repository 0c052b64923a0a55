// SPDX-License-Identifier: Apache-2.0
#include "daemon/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/devfilter.h"
#include "base/log.h"
#include "collector.h"
#include "daemon/config.h"
#include "daemon/config_usage.h"
#include "daemon/poller.h"
#include "daemon/pollsched.h"
#include "daemon/sdnotify.h"
#include "exposition/snapshot.h"
#include "http/http.h"
#include "http/websettings.h"

#define EXIT_BAD_FLAGS 2

/*
 * Thousands of counter files stay open on a big host: take the hard limit.
 * The sysfs collector falls back to open-per-read when even that runs out.
 */
static void raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		log_warn("cannot raise the open file limit", "err=%s", strerror(errno));
}

/*
 * The descriptor budget (http.h): HTTP connections get at most half of what
 * RLIMIT_NOFILE leaves after HTTP_FD_RESERVE, and the collectors are told
 * to leave the reserve and the connections' share free. Returns the
 * connection limit to use; *fd_reserve is what collectors must leave free.
 */
static unsigned fd_budget(unsigned max_connections, unsigned *fd_reserve)
{
	struct rlimit rl;
	uint64_t nofile = UINT64_MAX;
	unsigned cap;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		nofile = rl.rlim_cur;
	cap = http_connection_cap(nofile);
	if (max_connections > cap) {
		log_warn("--web.max-connections is above the descriptor budget; using the budget",
			 "requested=%u used=%u nofile=%llu", max_connections, cap,
			 (unsigned long long)nofile);
		max_connections = cap;
	}
	*fd_reserve = HTTP_FD_RESERVE + max_connections;
	log_debug("descriptor budget", "nofile=%llu reserve=%u connections=%u",
		  (unsigned long long)nofile, HTTP_FD_RESERVE, max_connections);
	return max_connections;
}

/*
 * Once a stop signal came, the process ends within SHUTDOWN_TIMEOUT_S
 * whatever the orderly path does (the poller's own bound is shorter): a
 * thread that logs and exits if stopping the web server, the poller or
 * anything after them hangs. A daemon must never be unkillable but by
 * SIGKILL.
 */
#define SHUTDOWN_TIMEOUT_S 10

/* The HTTP server's counters: they outlive it, so the first poll (before it
 * starts) and the last one (while it stops) read them safely. */
static struct http_counters http_counters;
/* SIGHUP's reloads of the web config, by result; exported with or without one */
static struct web_reload_counters web_reloads;

static void add_http_metrics(void *arg, struct metric_sink *sink)
{
	http_counters_add_metrics(arg, sink);
	web_reload_counters_add_metrics(&web_reloads, sink);
}

static void count_reload(enum web_reload_result r)
{
	atomic_fetch_add_explicit(&web_reloads.n[r], 1, memory_order_relaxed);
}

static void *shutdown_watchdog(void *arg)
{
	struct timespec left = {.tv_sec = SHUTDOWN_TIMEOUT_S};

	(void)arg;
	pthread_setname_np(pthread_self(), "rdma-shutdown");
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &left, &left) == EINTR)
		;
	log_error("shutdown did not finish in time; exiting", "timeout_s=%d", SHUTDOWN_TIMEOUT_S);
	_exit(1);
}

static void start_shutdown_watchdog(void)
{
	pthread_attr_t attr;
	pthread_t t;

	if (pthread_attr_init(&attr) != 0)
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, shutdown_watchdog, NULL) != 0)
		log_warn("cannot start the shutdown watchdog thread");
	pthread_attr_destroy(&attr);
}

static bool any_collector_enabled(const struct exporter_config *cfg)
{
	for (unsigned i = 0; i < collector_table_len; i++)
		if (cfg->collector_enabled[i])
			return true;
	return false;
}

static bool sysfs_enabled(const struct exporter_config *cfg)
{
	for (unsigned i = 0; i < collector_table_len; i++)
		if (strcmp(collector_table[i]->name, "sysfs") == 0)
			return cfg->collector_enabled[i];
	return false;
}

/*
 * Test seam (daemon.h): resolved only where a test binary defines it, so in
 * rdma_exporter the weak reference is NULL and each call site is one
 * untaken branch during shutdown.
 */
#pragma weak daemon_test_hook

static void test_hook(const char *stage)
{
	if (daemon_test_hook)
		daemon_test_hook(stage);
}

/*
 * SIGHUP: a good --web.config.file applies to the next request (users,
 * headers) and the next connection (TLS); a bad one leaves the one in force.
 * Turning TLS on waits for a restart. A reload that would weaken client
 * authentication relative to the settings in force (cur) is refused whole
 * (webconfig_reload_refusal: every user removed, TLS off, client
 * certificates no longer required or verified, the client CA removed), since
 * a file cut short by an in-place rewrite looks like that; a restart applies
 * such a file. Returns whether ws was installed.
 */
static bool apply_web_config(struct http_server *http, const char *path,
			     const struct web_settings *cur, struct web_settings *ws)
{
	const char *refusal = web_settings_reload_refusal(cur, ws);

	if (refusal) {
		count_reload(WEB_RELOAD_REFUSED);
		log_error("web config reload refused; keeping the previous config",
			  "file=%s reason=%s users=%u new_users=%u tls=%s new_tls=%s "
			  "client_auth=%s new_client_auth=%s",
			  path, refusal, cur->wc->n_users, ws->wc->n_users,
			  cur->wc->tls ? "on" : "off", ws->wc->tls ? "on" : "off",
			  webconfig_client_auth_name(cur->wc->client_auth),
			  webconfig_client_auth_name(ws->wc->client_auth));
		return false;
	}
	count_reload(WEB_RELOAD_OK);
	if (!http_server_set_web(http, ws))
		log_warn("web config reloaded, but its TLS change needs a restart",
			 "file=%s tls=%s", path, ws->wc->tls ? "on" : "off");
	else
		log_info("web config reloaded", "file=%s users=%u headers=%u tls=%s", path,
			 ws->wc->n_users, ws->wc->n_headers, ws->wc->tls ? "on" : "off");
	return true;
}

static struct web_settings *load_web_config(const char *path)
{
	struct web_settings *ws;
	char err[512];

	ws = web_settings_load(path, err, sizeof(err));
	if (!ws) {
		count_reload(WEB_RELOAD_ERROR);
		log_error("web config not reloaded, the previous one stays in force",
			  "file=%s err=%s", path, err);
	}
	return ws;
}

/*
 * Reloads of the web config run on a thread of their own, so that the
 * signal thread always takes the next signal: a stop is never held up by a
 * reload, whatever the reload waits on. SIGHUPs that come during a reload
 * make one more. The lock orders installing the new settings before the
 * web server stops, never after.
 */
struct web_reloader {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool started, pending, stopping;
	struct http_server *http;
	const char *path;
	struct web_settings *cur; /* the settings in force (a reference) */
};

/* How long the stop waits for a reload in progress before exiting without it. */
#define WEB_RELOAD_STOP_TIMEOUT_MS 2000

/* Installs ws unless refused; the reloader then holds it as the one in force. */
static void web_reloader_apply(struct web_reloader *r, struct web_settings *ws)
{
	if (ws && !r->stopping && apply_web_config(r->http, r->path, r->cur, ws)) {
		web_settings_unref(r->cur);
		r->cur = web_settings_ref(ws);
	}
	web_settings_unref(ws);
}

static void *web_reloader_main(void *arg)
{
	struct web_reloader *r = arg;
	struct web_settings *ws;

	pthread_setname_np(pthread_self(), "rdma-reload");
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->pending && !r->stopping)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->stopping)
			break;
		r->pending = false;
		pthread_mutex_unlock(&r->lock);
		test_hook("web_reload");
		ws = load_web_config(r->path);
		pthread_mutex_lock(&r->lock);
		web_reloader_apply(r, ws);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Without a thread (none could start), reloads run on the signal thread. */
static void web_reloader_start(struct web_reloader *r, struct http_server *http, const char *path,
			       struct web_settings *cur)
{
	*r = (struct web_reloader){.http = http, .path = path};
	if (!path)
		return;
	r->cur = web_settings_ref(cur);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->wake, NULL);
	r->started = pthread_create(&r->thread, NULL, web_reloader_main, r) == 0;
	if (!r->started)
		log_warn("cannot start the web config reload thread; reloading on the signal "
			 "thread");
}

static void web_reloader_request(struct web_reloader *r)
{
	if (!r->path)
		return;
	if (!r->started) {
		web_reloader_apply(r, load_web_config(r->path));
		return;
	}
	pthread_mutex_lock(&r->lock);
	r->pending = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

/* Before the web server stops: no reload installs anything after this. */
static void web_reloader_stop(struct web_reloader *r)
{
	if (!r->started)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

/* 0, or -ETIMEDOUT when a reload still runs (the process exits without it). */
static int web_reloader_join(struct web_reloader *r)
{
	struct timespec until;

	if (!r->started) {
		web_settings_unref(r->cur);
		r->cur = NULL;
		return 0;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WEB_RELOAD_STOP_TIMEOUT_MS / 1000;
	if (pthread_timedjoin_np(r->thread, NULL, &until) != 0)
		return -ETIMEDOUT;
	r->started = false;
	web_settings_unref(r->cur);
	r->cur = NULL;
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	return 0;
}

/* Everything daemon_main acquires, so that each step can hand it on. */
struct daemon {
	struct config_collector cc[CONFIG_MAX_COLLECTORS];
	struct exporter_config cfg;
	struct device_filter *filter;
	struct http_server *http;
	struct poller *poller;
	struct snapshot_slot slot;
	struct netdev_set rdma_netdevs;
	struct web_settings *web;
	struct web_reloader reloader;
	/* The web server as the watchdog sees it (web_stuck()): set once it
	 * listens, cleared before it stops, under watch_lock. */
	pthread_mutex_t watch_lock;
	struct http_server *watched_http;
	sigset_t sigs;
	char err[512];
	char *sysfs_abs;
	int sysfs_fd;
	int listen_fd;
	unsigned max_connections;
	unsigned fd_reserve;
	uint64_t watchdog_usec; /* WatchdogSec= in us; 0: none */
};

/*
 * One malloc arena for all threads: the poller allocates nearly everything
 * (the sink, the rendering, its gzip and protobuf copies), the HTTP threads
 * almost nothing, so per-thread arenas only kept a second heap's freed
 * pages resident. And a fixed mmap threshold: glibc raises it past the
 * largest block freed, after which a poll's 150 kB renderings come from
 * the heap and its peak stays resident; mapped, they go back at free()
 * (docs/performance.md).
 */
static void limit_malloc_arenas(void)
{
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 64 * 1024);
}

/* What a step tells daemon_main: go on, or return this exit status. */
#define DAEMON_CONTINUE (-1)

static const char *sysfs_display_path(const struct daemon *d)
{
	return d->sysfs_abs ? d->sysfs_abs : d->cfg.sysfs_path;
}

static void describe_collectors(struct config_collector *cc)
{
	for (unsigned i = 0; i < collector_table_len && i < CONFIG_MAX_COLLECTORS; i++) {
		cc[i].name = collector_table[i]->name;
		cc[i].help = collector_table[i]->help;
		cc[i].default_enabled = collector_table[i]->default_enabled;
		cc[i].flags = collector_table[i]->flags;
		cc[i].n_flags = collector_table[i]->n_flags;
	}
}

/* Flags, --help and --version. */
static int parse_command_line(struct daemon *d, int argc, char *argv[],
			      void (*more_usage)(FILE *out))
{
	describe_collectors(d->cc);
	if (config_parse(&d->cfg, argc, argv, d->cc, collector_table_len, d->err, sizeof(d->err)) <
	    0) {
		fprintf(stderr, "rdma_exporter: error: %s\n", d->err);
		return EXIT_BAD_FLAGS;
	}
	if (d->cfg.action == CONFIG_HELP) {
		config_usage(stdout, "rdma_exporter", d->cc, collector_table_len);
		if (more_usage)
			more_usage(stdout);
		return 0;
	}
	if (d->cfg.action == CONFIG_VERSION) {
		printf("rdma_exporter, version %s (revision: %s)\n", RDMA_EXPORTER_VERSION,
		       RDMA_EXPORTER_REVISION);
		return 0;
	}
	log_set_level(d->cfg.log_level);
	log_set_json(d->cfg.log_json);
	return DAEMON_CONTINUE;
}

/*
 * systemd: the watchdog interval, and a socket-activated listening socket.
 * No watchdog setting stops the exporter from starting: the poller pings
 * often enough for any poll interval (poller.h), and a malformed
 * WATCHDOG_USEC (systemd never sets one) is logged and ignored, since a
 * restart could not fix it and RestartPreventExitStatus=2 would keep the
 * service down.
 */
static int check_service_manager(struct daemon *d)
{
	int64_t watchdog_usec;

	watchdog_usec = notify_watchdog_usec(d->err, sizeof(d->err));
	if (watchdog_usec < 0)
		log_warn("ignoring the systemd watchdog", "err=%s", d->err);
	d->watchdog_usec = watchdog_usec > 0 ? (uint64_t)watchdog_usec : 0;
	d->listen_fd = notify_listen_fd(d->err, sizeof(d->err));
	if (d->listen_fd < 0) {
		fprintf(stderr, "rdma_exporter: error: %s\n", d->err);
		return EXIT_BAD_FLAGS;
	}
	return DAEMON_CONTINUE;
}

/* The web config, the device filter and the sysfs root; on failure nothing stays open. */
static int open_resources(struct daemon *d)
{
	if (d->cfg.web_config_file) {
		d->web = web_settings_load(d->cfg.web_config_file, d->err, sizeof(d->err));
		if (!d->web) {
			fprintf(stderr, "rdma_exporter: error: --web.config.file: %s\n", d->err);
			return EXIT_BAD_FLAGS;
		}
	}
	d->filter = device_filter_new(d->cfg.device_include, d->cfg.device_exclude, d->err,
				      sizeof(d->err));
	if (!d->filter) {
		fprintf(stderr, "rdma_exporter: error: %s\n", d->err);
		goto err_web;
	}
	d->sysfs_fd = open(d->cfg.sysfs_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->sysfs_fd < 0) {
		fprintf(stderr, "rdma_exporter: error: --path.sysfs: cannot open \"%s\": %s\n",
			d->cfg.sysfs_path, strerror(errno));
		goto err_filter;
	}
	/* Only for log lines: a relative --path.sysfs said in full. */
	d->sysfs_abs = realpath(d->cfg.sysfs_path, NULL);
	return DAEMON_CONTINUE;

err_filter:
	device_filter_free(d->filter);
	d->filter = NULL;
err_web:
	web_settings_unref(d->web);
	d->web = NULL;
	return EXIT_BAD_FLAGS;
}

/*
 * Signals are taken synchronously by the main thread only (wait_for_stop);
 * every thread started after this inherits the blocked mask.
 */
static void block_signals(struct daemon *d)
{
	sigemptyset(&d->sigs);
	sigaddset(&d->sigs, SIGTERM);
	sigaddset(&d->sigs, SIGINT);
	sigaddset(&d->sigs, SIGQUIT); /* like SIGTERM: a clean exit, no core dump */
	sigaddset(&d->sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &d->sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void set_process_limits(struct daemon *d)
{
	raise_nofile_limit();
	d->max_connections = fd_budget(d->cfg.max_connections, &d->fd_reserve);
}

static void log_startup(const struct daemon *d)
{
	log_info("starting rdma_exporter",
		 "version=%s revision=%s sysfs=%s poll_mode=%s poll_interval_ms=%llu "
		 "poll_min_interval_ms=%llu collector_timeout_ms=%llu",
		 RDMA_EXPORTER_VERSION, RDMA_EXPORTER_REVISION, sysfs_display_path(d),
		 d->cfg.poll_fixed ? "fixed" : "aligned",
		 (unsigned long long)d->cfg.poll_interval_ms,
		 (unsigned long long)d->cfg.poll_min_interval_ms,
		 (unsigned long long)d->cfg.poll_collector_timeout_ms);
	if (d->watchdog_usec)
		log_info("systemd watchdog enabled", "watchdog_ms=%llu ping_interval_ms=%llu",
			 (unsigned long long)(d->watchdog_usec / 1000),
			 (unsigned long long)notify_watchdog_ping_ms(d->watchdog_usec));
	if (!any_collector_enabled(&d->cfg))
		log_warn("every collector is disabled: only the exporter's own metrics are served");
}

/*
 * How long clients may wait in the accept queue, unaccepted, before the web
 * server counts as stuck and the watchdog goes unpinged: far beyond any
 * busy moment (the HTTP thread only hands out snapshot bytes), well inside
 * the unit's WatchdogSec=60s.
 */
#define WEB_STUCK_MS 10000

/* The poller asks before each watchdog ping (poller_config.stuck). */
static bool web_stuck(void *arg)
{
	struct daemon *d = arg;
	bool stuck;

	pthread_mutex_lock(&d->watch_lock);
	stuck = http_server_stuck(d->watched_http, WEB_STUCK_MS);
	pthread_mutex_unlock(&d->watch_lock);
	return stuck;
}

static void watch_http(struct daemon *d, struct http_server *http)
{
	pthread_mutex_lock(&d->watch_lock);
	d->watched_http = http;
	pthread_mutex_unlock(&d->watch_lock);
}

static int create_poller(struct daemon *d)
{
	const struct exporter_config *cfg = &d->cfg;
	struct poller_config pc = {
		.collectors = collector_table,
		.n_collectors = collector_table_len,
		.enabled = cfg->collector_enabled,
		.ctx =
			{
				.sysfs_fd = d->sysfs_fd,
				.sysfs_path = sysfs_display_path(d),
				.filter = d->filter,
				.rescan_interval_s = (double)cfg->rescan_interval_ms / 1000.0,
				.poll_interval_ms = cfg->poll_interval_ms,
				.collector_timeout_ms = cfg->poll_collector_timeout_ms,
				.proc_root = "/proc",
				.sysfs_collector_enabled = sysfs_enabled(cfg),
				.rdma_netdevs = &d->rdma_netdevs,
				.fd_reserve = d->fd_reserve,
			},
		.flag_values = (const uint64_t(*)[CONFIG_MAX_COLLECTOR_FLAGS])cfg->collector_flags,
		.flag_strs =
			(const char *const(*)[CONFIG_MAX_COLLECTOR_FLAGS])cfg->collector_flag_strs,
		.interval_ms = cfg->poll_interval_ms,
		.min_interval_ms = cfg->poll_min_interval_ms,
		.fixed_interval = cfg->poll_fixed,
		.watchdog_ping_ms = notify_watchdog_ping_ms(d->watchdog_usec),
		.proc_root = "/proc",
		.self_metrics = add_http_metrics,
		.self_metrics_arg = &http_counters,
		/* the watchdog also stands for the web server, when there is one */
		.stuck = d->watchdog_usec ? web_stuck : NULL,
		.stuck_arg = d,
	};

	netdev_set_init(&d->rdma_netdevs);
	d->poller = poller_new(&pc, &d->slot);
	if (!d->poller) {
		log_error("out of memory");
		return -ENOMEM;
	}
	/* The first poll runs before the server starts: no scrape ever sees an empty page. */
	if (poller_poll_once(d->poller) < 0) {
		log_error("first poll failed", "err=%s", "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static void note_scrape(void *arg, const struct http_scrape *s)
{
	struct daemon *d = arg;
	unsigned from = s->authenticated ? POLLSCHED_AUTHENTICATED : 0;

	if (config_follow_address(&d->cfg, s->addr, s->addr_len))
		from |= POLLSCHED_NAMED;
	poller_note_scrape(d->poller, pollsched_key(s->addr, s->addr_len, s->user_agent), from,
			   s->data_age_s, s->wants);
}

static int start_web_server(struct daemon *d)
{
	const struct exporter_config *cfg = &d->cfg;
	struct http_config hc = {
		.listen_address = cfg->listen_address,
		.telemetry_path = cfg->telemetry_path,
		.max_connections = d->max_connections,
		.max_connections_per_client = cfg->max_connections_per_client,
		.connection_timeout_s = cfg->connection_timeout_s,
		.request_header_timeout_ms = cfg->request_header_timeout_ms,
		/* in either mode no poll starts later than --poll.interval after the last one */
		.stale_after_ms = 3 * cfg->poll_interval_ms + 30000,
		.listen_fd = d->listen_fd,
		.web = d->web,
		.counters = &http_counters,
		.on_scrape = note_scrape,
		.on_scrape_arg = d,
	};

	d->http = http_server_start(&hc, &d->slot, d->err, sizeof(d->err));
	if (!d->http) {
		log_error("cannot start the web server", "err=%s", d->err);
		return -EIO;
	}
	log_info("listening", "address=%s path=%s tls=%s", http_server_address(d->http),
		 cfg->telemetry_path, d->web && d->web->wc->tls ? "on" : "off");
	watch_http(d, d->http);
	return 0;
}

/* First poll, web server, poller thread, then READY=1. */
static int start_serving(struct daemon *d)
{
	snapshot_slot_init(&d->slot);
	if (create_poller(d) < 0 || start_web_server(d) < 0)
		return -1;
	if (poller_start(d->poller) < 0) {
		log_error("cannot start the poller thread");
		return -1;
	}
	web_reloader_start(&d->reloader, d->http, d->cfg.web_config_file, d->web);
	/* The first poll ran here, before the poller thread pings. */
	notify_watchdog();
	notify_ready();
	return 0;
}

static const char *stop_signal_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" : sig == SIGQUIT ? "SIGQUIT" : "SIGINT";
}

/*
 * Serves SIGHUP until a stop signal comes. Nothing here blocks: the web
 * config is re-read on the reload thread, so a stop signal is always taken
 * at once and the shutdown watchdog armed.
 */
static void wait_for_stop(struct daemon *d)
{
	int sig;

	for (;;) {
		if (sigwait(&d->sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			log_info("re-scanning devices and reopening counter files",
				 "signal=SIGHUP");
			poller_request_reload(d->poller);
			web_reloader_request(&d->reloader);
			continue;
		}
		log_info("shutting down", "signal=%s", stop_signal_name(sig));
		return;
	}
}

/* Releases in reverse order what open_resources and start_serving took. */
static int teardown(struct daemon *d, int rc)
{
	web_reloader_stop(&d->reloader);
	test_hook("http_stop");
	watch_http(d, NULL);
	http_server_stop(d->http);
	test_hook("poller_stop");
	if (poller_free(d->poller) < 0) {
		/* A collector is stuck in a read: exit anyway, leaving what the
		 * poll thread still uses (the process exit ends it). */
		log_error("the poller did not stop in time; exiting without it", "timeout_ms=%d",
			  POLLER_STOP_TIMEOUT_MS);
		return 1;
	}
	if (web_reloader_join(&d->reloader) < 0) {
		log_error("a web config reload is still running; exiting without it",
			  "timeout_ms=%d", WEB_RELOAD_STOP_TIMEOUT_MS);
		return 1;
	}
	test_hook("release");
	netdev_set_free(&d->rdma_netdevs);
	snapshot_slot_destroy(&d->slot);
	device_filter_free(d->filter);
	web_settings_unref(d->web);
	if (d->sysfs_fd >= 0)
		close(d->sysfs_fd);
	free(d->sysfs_abs);
	return rc;
}

int daemon_main(int argc, char *argv[], void (*more_usage)(FILE *out))
{
	static struct daemon d;
	int rc;

	d = (struct daemon){.sysfs_fd = -1, .watch_lock = PTHREAD_MUTEX_INITIALIZER};
	rc = parse_command_line(&d, argc, argv, more_usage);
	if (rc == DAEMON_CONTINUE)
		rc = check_service_manager(&d);
	if (rc == DAEMON_CONTINUE)
		rc = open_resources(&d);
	if (rc != DAEMON_CONTINUE)
		return rc;

	block_signals(&d);
	set_process_limits(&d);
	limit_malloc_arenas();
	log_startup(&d);
	if (start_serving(&d) < 0)
		return teardown(&d, 1);

	wait_for_stop(&d);
	start_shutdown_watchdog();
	notify_stopping();
	return teardown(&d, 0);
}

/* --- one-shot polls for the check and once subcommands (daemon.h) --- */

static int oneshot_flags(struct daemon *d, int argc, char *argv[], const struct daemon_oneshot *ops)
{
	describe_collectors(d->cc);
	if (config_parse(&d->cfg, argc, argv, d->cc, collector_table_len, d->err, sizeof(d->err)) <
	    0) {
		fprintf(stderr, "rdma_exporter: error: %s\n", d->err);
		return EXIT_BAD_FLAGS;
	}
	if (d->cfg.action == CONFIG_HELP) {
		ops->usage(ops->arg);
		return 0;
	}
	if (d->cfg.action == CONFIG_VERSION)
		return parse_command_line(d, argc, argv, NULL);
	log_set_level(d->cfg.log_level);
	if (ops->configure)
		ops->configure(ops->arg, &d->cfg);
	return DAEMON_CONTINUE;
}

/* Polls until reading() is done with them: 0, or -errno. */
static int oneshot_polls(struct daemon *d, const struct daemon_oneshot *ops)
{
	struct snapshot *snap;
	char *text;
	size_t len;
	int r = 1;

	for (unsigned n = 0; r == 1; n++) {
		if (n > 0 && poller_poll_once(d->poller) < 0)
			return -ENOMEM;
		snap = snapshot_slot_get(&d->slot);
		if (!snap)
			return -ENOMEM;
		/* Polls after the first keep only the gzip copy: the text comes from it. */
		text = snapshot_text_copy(snap, &len);
		snapshot_unref(snap);
		if (!text)
			return -ENOMEM;
		r = ops->reading(ops->arg, n, text, len);
		free(text);
	}
	return r;
}

int daemon_oneshot(int argc, char *argv[], const struct daemon_oneshot *ops)
{
	static struct daemon d;
	int rc;

	d = (struct daemon){.sysfs_fd = -1, .watch_lock = PTHREAD_MUTEX_INITIALIZER};
	rc = oneshot_flags(&d, argc, argv, ops);
	if (rc == DAEMON_CONTINUE)
		rc = open_resources(&d);
	if (rc != DAEMON_CONTINUE)
		return rc;
	signal(SIGPIPE, SIG_IGN);
	set_process_limits(&d);
	snapshot_slot_init(&d.slot);
	if (create_poller(&d) < 0)
		return teardown(&d, 1);
	rc = oneshot_polls(&d, ops);
	if (rc < 0)
		log_error("one-shot poll failed", "err=%s", strerror(-rc));
	return teardown(&d, rc < 0 ? 1 : *ops->status);
}
