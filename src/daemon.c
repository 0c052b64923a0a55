// SPDX-License-Identifier: Apache-2.0
#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "config.h"
#include "devfilter.h"
#include "http.h"
#include "log.h"
#include "poller.h"
#include "sdnotify.h"
#include "snapshot.h"
#include "websettings.h"

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

static void add_http_metrics(void *arg, struct metric_sink *sink)
{
	http_counters_add_metrics(arg, sink);
}

static void *shutdown_watchdog(void *arg)
{
	struct timespec left = {.tv_sec = SHUTDOWN_TIMEOUT_S};

	(void)arg;
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
 * SIGHUP: a good --web.config.file applies to the next request (users,
 * headers) and the next connection (TLS); a bad one leaves the one in force.
 * Turning TLS on or off waits for a restart.
 */
static void reload_web_config(struct http_server *http, const char *path)
{
	struct web_settings *ws;
	char err[512];

	if (!path || !http)
		return;
	ws = web_settings_load(path, err, sizeof(err));
	if (!ws) {
		log_error("web config not reloaded, the previous one stays in force",
			  "file=%s err=%s", path, err);
		return;
	}
	if (!http_server_set_web(http, ws))
		log_warn("web config reloaded, but its TLS change needs a restart",
			 "file=%s tls=%s", path, ws->wc->tls ? "on" : "off");
	else
		log_info("web config reloaded", "file=%s users=%u headers=%u tls=%s", path,
			 ws->wc->n_users, ws->wc->n_headers, ws->wc->tls ? "on" : "off");
	web_settings_unref(ws);
}

int daemon_main(int argc, char *argv[])
{
	struct config_collector cc[CONFIG_MAX_COLLECTORS];
	struct exporter_config cfg;
	struct device_filter *filter = NULL;
	struct http_server *http = NULL;
	struct poller *poller = NULL;
	struct snapshot_slot slot;
	struct netdev_set rdma_netdevs = {0};
	struct poller_config pc;
	struct http_config hc;
	struct web_settings *web = NULL;
	sigset_t sigs;
	char err[512], *sysfs_abs = NULL;
	int sysfs_fd = -1, listen_fd, sig, rc = 1;
	unsigned max_connections, fd_reserve;
	int64_t watchdog_usec;

	for (unsigned i = 0; i < collector_table_len && i < CONFIG_MAX_COLLECTORS; i++) {
		cc[i].name = collector_table[i]->name;
		cc[i].help = collector_table[i]->help;
		cc[i].default_enabled = collector_table[i]->default_enabled;
		cc[i].flags = collector_table[i]->flags;
		cc[i].n_flags = collector_table[i]->n_flags;
	}
	if (config_parse(&cfg, argc, argv, cc, collector_table_len, err, sizeof(err)) < 0) {
		fprintf(stderr, "rdma_exporter: error: %s\n", err);
		return EXIT_BAD_FLAGS;
	}
	if (cfg.action == CONFIG_HELP) {
		config_usage(stdout, "rdma_exporter", cc, collector_table_len);
		return 0;
	}
	if (cfg.action == CONFIG_VERSION) {
		printf("rdma_exporter, version %s (revision: %s)\n", RDMA_EXPORTER_VERSION,
		       RDMA_EXPORTER_REVISION);
		return 0;
	}
	log_set_level(cfg.log_level);

	/* systemd: a watchdog that the poll interval cannot feed is a configuration
	 * error, reported now rather than as a kill loop later. */
	watchdog_usec = notify_watchdog_usec(err, sizeof(err));
	if (watchdog_usec < 0 ||
	    notify_watchdog_check((uint64_t)watchdog_usec, cfg.poll_interval_ms, err, sizeof(err)) <
		    0) {
		fprintf(stderr, "rdma_exporter: error: %s\n", err);
		return EXIT_BAD_FLAGS;
	}
	listen_fd = notify_listen_fd(err, sizeof(err));
	if (listen_fd < 0) {
		fprintf(stderr, "rdma_exporter: error: %s\n", err);
		return EXIT_BAD_FLAGS;
	}

	if (cfg.web_config_file) {
		web = web_settings_load(cfg.web_config_file, err, sizeof(err));
		if (!web) {
			fprintf(stderr, "rdma_exporter: error: --web.config.file: %s\n", err);
			return EXIT_BAD_FLAGS;
		}
	}
	filter = device_filter_new(cfg.device_include, cfg.device_exclude, err, sizeof(err));
	if (!filter) {
		fprintf(stderr, "rdma_exporter: error: %s\n", err);
		web_settings_unref(web);
		return EXIT_BAD_FLAGS;
	}
	sysfs_fd = open(cfg.sysfs_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sysfs_fd < 0) {
		fprintf(stderr, "rdma_exporter: error: --path.sysfs: cannot open \"%s\": %s\n",
			cfg.sysfs_path, strerror(errno));
		device_filter_free(filter);
		web_settings_unref(web);
		return EXIT_BAD_FLAGS;
	}

	/* Only for log lines: a relative --path.sysfs said in full. */
	sysfs_abs = realpath(cfg.sysfs_path, NULL);

	/* Signals are taken synchronously by this thread only (sigwait below);
	 * every thread started from here inherits the blocked mask. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGQUIT); /* like SIGTERM: a clean exit, no core dump */
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_nofile_limit();
	max_connections = fd_budget(cfg.max_connections, &fd_reserve);

	log_info("starting rdma_exporter", "version=%s revision=%s sysfs=%s poll_interval_ms=%llu",
		 RDMA_EXPORTER_VERSION, RDMA_EXPORTER_REVISION,
		 sysfs_abs ? sysfs_abs : cfg.sysfs_path, (unsigned long long)cfg.poll_interval_ms);
	if (!any_collector_enabled(&cfg))
		log_warn("every collector is disabled: only the exporter's own metrics are served");

	snapshot_slot_init(&slot);
	pc = (struct poller_config){
		.collectors = collector_table,
		.n_collectors = collector_table_len,
		.enabled = cfg.collector_enabled,
		.ctx =
			{
				.sysfs_fd = sysfs_fd,
				.sysfs_path = sysfs_abs ? sysfs_abs : cfg.sysfs_path,
				.filter = filter,
				.rescan_interval_s = (double)cfg.rescan_interval_ms / 1000.0,
				.poll_interval_ms = cfg.poll_interval_ms,
				.proc_root = "/proc",
				.sysfs_collector_enabled = sysfs_enabled(&cfg),
				.rdma_netdevs = &rdma_netdevs,
				.fd_reserve = fd_reserve,
			},
		.flag_values = (const uint64_t(*)[CONFIG_MAX_COLLECTOR_FLAGS])cfg.collector_flags,
		.flag_strs =
			(const char *const(*)[CONFIG_MAX_COLLECTOR_FLAGS])cfg.collector_flag_strs,
		.interval_ms = cfg.poll_interval_ms,
		.proc_root = "/proc",
		.self_metrics = add_http_metrics,
		.self_metrics_arg = &http_counters,
	};
	poller = poller_new(&pc, &slot);
	if (!poller) {
		log_error("out of memory");
		goto out;
	}
	/* The first poll runs before the server starts: no scrape ever sees an empty page. */
	if (poller_poll_once(poller) < 0) {
		log_error("first poll failed", "err=%s", "out of memory");
		goto out;
	}

	hc = (struct http_config){
		.listen_address = cfg.listen_address,
		.telemetry_path = cfg.telemetry_path,
		.max_connections = max_connections,
		.max_connections_per_client = cfg.max_connections_per_client,
		.connection_timeout_s = cfg.connection_timeout_s,
		.request_header_timeout_ms = cfg.request_header_timeout_ms,
		.stale_after_ms = 3 * cfg.poll_interval_ms + 30000,
		.listen_fd = listen_fd,
		.web = web,
		.counters = &http_counters,
	};
	http = http_server_start(&hc, &slot, err, sizeof(err));
	if (!http) {
		log_error("cannot start the web server", "err=%s", err);
		goto out;
	}
	log_info("listening", "address=%s path=%s tls=%s", http_server_address(http),
		 cfg.telemetry_path, web && web->wc->tls ? "on" : "off");
	if (poller_start(poller) < 0) {
		log_error("cannot start the poller thread");
		goto out;
	}
	notify_ready();

	for (;;) {
		if (sigwait(&sigs, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			log_info("re-scanning devices and reopening counter files",
				 "signal=SIGHUP");
			poller_request_reload(poller);
			reload_web_config(http, cfg.web_config_file);
			continue;
		}
		log_info("shutting down", "signal=%s",
			 sig == SIGTERM	  ? "SIGTERM"
			 : sig == SIGQUIT ? "SIGQUIT"
					  : "SIGINT");
		break;
	}
	start_shutdown_watchdog();
	notify_stopping();
	rc = 0;
out:
	http_server_stop(http);
	if (poller_free(poller) < 0) {
		/* A collector is stuck in a read: exit anyway, leaving what the
		 * poll thread still uses (the process exit ends it). */
		log_error("the poller did not stop in time; exiting without it", "timeout_ms=%d",
			  POLLER_STOP_TIMEOUT_MS);
		return 1;
	}
	netdev_set_free(&rdma_netdevs);
	snapshot_slot_destroy(&slot);
	device_filter_free(filter);
	web_settings_unref(web);
	if (sysfs_fd >= 0)
		close(sysfs_fd);
	free(sysfs_abs);
	return rc;
}
