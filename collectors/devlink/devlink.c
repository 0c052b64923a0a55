// SPDX-License-Identifier: Apache-2.0
/*
 * The devlink collector (devlink.h): policy. One health reporter dump per
 * poll over a generic netlink socket opened once (nl_conn, shared with the
 * RDMA netlink collector), the family id resolved once, the PCI map of the
 * RDMA devices read from sysfs each poll (devices come and go).
 *
 * Privileges: none. DEVLINK_CMD_HEALTH_REPORTER_GET has no GENL_ADMIN_PERM
 * (net/devlink/netlink_gen.c since 6.6, net/core/devlink.c before: "can be
 * retrieved by unprivileged users"); tests/collectors/devlink runs the real
 * dump as nobody to hold that claim against the running kernel.
 */
#include "devlink.h"

#include "base/clock.h"
#include "base/log.h"
#include "rdmanl/genl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/devlink.h>
#include <linux/genetlink.h>

#define IB_CLASS_DIR "class/infiniband"
/* IB_DEVICE_NAME_MAX with the NUL. */
#define IB_NAME_MAX 64

struct pci_dev_map {
	char pci[DL_DEV_MAX];
	char device[IB_NAME_MAX];
};

struct devlink_state {
	struct devlink_seams seams;
	int sysfs_fd;
	const struct device_filter *filter;
	uint64_t timeout_ms;
	struct nl_conn *conn;
	uint16_t family; /* devlink genl family id; 0: not resolved yet */
	int logged_err;	 /* the collect() error logged last; 0: none */
	uint64_t logged_unmapped, logged_dropped;
	bool logged_map_full;
	struct dl_table *table;
	struct pci_dev_map *map; /* DEVLINK_RDMA_DEVICES_MAX entries */
	unsigned n_map;
};

/* ---- generic netlink ------------------------------------------------------------------- */

static int build_family(void *buf, size_t size, uint32_t seq, const void *arg)
{
	(void)arg;
	return genl_build_family_request(buf, size, seq, DEVLINK_GENL_NAME);
}

static int on_family(const struct nlmsghdr *nlh, void *data)
{
	genl_parse_family_reply(nlh, DEVLINK_GENL_NAME, data);
	return 0;
}

static int build_dump(void *buf, size_t size, uint32_t seq, const void *arg)
{
	return dl_build_reporter_dump(buf, size, *(const uint16_t *)arg, seq);
}

static void on_reset(void *data)
{
	dl_table_reset(data);
}

/* 0 with st->family set, -EOPNOTSUPP for a kernel without devlink, -errno. */
static int resolve_family(struct devlink_state *st, uint64_t deadline)
{
	uint16_t id = 0;
	const struct nl_msg_request rq = {
		.build = build_family,
		.reply_type = GENL_ID_CTRL,
		.on_msg = on_family,
		.data = &id,
	};
	uint64_t bad = 0;
	int r;

	if (st->family)
		return 0;
	r = nl_conn_request_msg(st->conn, &rq, deadline, &bad);
	/* The controller's answer for a family it does not have
	 * (CONFIG_NET_DEVLINK off). */
	if (r == -ENOENT)
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
	if (!id)
		return -EBADMSG;
	st->family = id;
	return 0;
}

/* The whole dump into st->table: 0 or -errno. */
static int dump_reporters(struct devlink_state *st)
{
	uint64_t deadline = clock_mono_ms() + st->timeout_ms, bad = 0;
	const struct nl_msg_request rq = {
		.build = build_dump,
		.arg = &st->family,
		.on_msg = dl_table_on_msg,
		.data = st->table,
		.on_reset = on_reset,
	};
	int r = resolve_family(st, deadline);

	if (r < 0)
		return r;
	/* A dump that the kernel interrupted (a reporter came or went) is
	 * read again from the start, once. */
	for (int i = 0; i < 2; i++) {
		struct nl_msg_request q = rq;

		q.reply_type = st->family;
		dl_table_reset(st->table);
		r = nl_conn_request_msg(st->conn, &q, deadline, &bad);
		if (r != -EINTR)
			break;
	}
	st->table->bad += bad;
	return r;
}

/* ---- the PCI address of each RDMA device ----------------------------------------------- */

/* The PCI function under class/infiniband/<name>/device, or "" (rxe, siw:
 * no parent; a parent that is no PCI function). */
static void read_pci_address(int root, const char *name, char *out, size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	out[0] = '\0';
	if (snprintf(path, sizeof(path), IB_CLASS_DIR "/%s/device", name) >= (int)sizeof(path))
		return;
	n = readlinkat(root, path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (dl_is_pci_address(base, strlen(base)) && strlen(base) < size)
		snprintf(out, size, "%s", base);
}

/* Fills st->map from class/infiniband: 0, or -errno when the directory
 * cannot be listed (a missing one is no devices). */
static int scan_devices(struct devlink_state *st, struct collector_stats *stats)
{
	int fd = openat(st->sysfs_fd, IB_CLASS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	st->n_map = 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct pci_dev_map *m;

		if (e->d_name[0] == '.' || len >= IB_NAME_MAX ||
		    !device_filter_match(st->filter, e->d_name))
			continue;
		if (st->n_map >= DEVLINK_RDMA_DEVICES_MAX) {
			stats->read_errors++;
			if (!st->logged_map_full)
				log_warn("too many RDMA devices; the rest are not matched to "
					 "devlink",
					 "collector=devlink max=%u", DEVLINK_RDMA_DEVICES_MAX);
			st->logged_map_full = true;
			break;
		}
		m = &st->map[st->n_map];
		read_pci_address(st->sysfs_fd, e->d_name, m->pci, sizeof(m->pci));
		if (!m->pci[0])
			continue;
		memcpy(m->device, e->d_name, len + 1);
		st->n_map++;
	}
	closedir(d);
	return 0;
}

/* ---- samples --------------------------------------------------------------------------- */

static const struct {
	const char *name, *help;
	enum metric_type type;
} families[] = {
	{"rdma_devlink_health_errors_total",
	 "Errors the devlink health reporter of the device's PCI function has seen "
	 "(DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT).",
	 METRIC_COUNTER},
	{"rdma_devlink_health_recoveries_total",
	 "Recoveries the devlink health reporter of the device's PCI function has run "
	 "(DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT).",
	 METRIC_COUNTER},
	{"rdma_devlink_health_state",
	 "State of the devlink health reporter of the device's PCI function: 0 healthy, 1 error "
	 "(DEVLINK_ATTR_HEALTH_REPORTER_STATE).",
	 METRIC_GAUGE},
};

static int add_samples(struct metric_sink *sink, const char *device, const struct dl_reporter *r)
{
	const uint64_t v[] = {r->errors, r->recoveries, r->state};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int rc = collector_sink_result(metric_sink_add_u64(
			sink, families[i].name, families[i].help, families[i].type,
			METRIC_LABELS({"device", device}, {"reporter", r->name}), v[i]));

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Samples of the reporters whose handle is the PCI function of an RDMA
 * device; the others are counted in *unmapped. */
static int emit(struct devlink_state *st, struct metric_sink *sink, struct collector_stats *stats,
		uint64_t *unmapped)
{
	for (unsigned i = 0; i < st->table->n; i++) {
		const struct dl_reporter *r = &st->table->rows[i];
		bool mapped = false;

		for (unsigned j = 0; j < st->n_map && strcmp(r->bus, "pci") == 0; j++) {
			int rc;

			if (strcmp(st->map[j].pci, r->dev) != 0)
				continue;
			rc = add_samples(sink, st->map[j].device, r);
			if (rc < 0)
				return rc;
			mapped = true;
		}
		*unmapped += !mapped;
	}
	for (unsigned j = 0; j < st->n_map; j++)
		for (unsigned i = 0; i < st->table->n; i++)
			if (strcmp(st->table->rows[i].dev, st->map[j].pci) == 0) {
				stats->devices++;
				break;
			}
	return 0;
}

/* One line when the error changes (and when it ends), not one per poll. */
static void log_result(struct devlink_state *st, int r)
{
	char eb[128];

	if (r == st->logged_err)
		return;
	if (r == 0)
		log_info("devlink health reporters readable again", "collector=devlink");
	else if (r == -EOPNOTSUPP)
		log_info("no devlink in this kernel; no health reporters", "collector=devlink");
	else
		log_warn("devlink health reporter dump failed", "collector=devlink err=%s errno=%d",
			 log_strerror(r, eb, sizeof(eb)), -r);
	st->logged_err = r;
}

static int devlink_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct devlink_state *st = state;
	uint64_t unmapped = 0;
	int r;

	if (!st->conn)
		return 0;
	r = dump_reporters(st);
	log_result(st, r);
	if (r == -EOPNOTSUPP) {
		/* No devlink in this kernel: no driver can have a health
		 * reporter, so there is nothing to report (not a failure: a
		 * node without mlx5 must not open a ticket). Asked again next
		 * poll, one small request. */
		st->family = 0;
		return 0;
	}
	if (r < 0) {
		/* Resolve the family again next time: a kernel error may mean
		 * it is gone or was never there. */
		st->family = 0;
		return r;
	}
	r = scan_devices(st, stats);
	if (r < 0)
		return r;
	r = emit(st, sink, stats, &unmapped);
	stats->read_errors += st->table->bad + st->table->dropped;
	if (st->table->dropped && !st->logged_dropped)
		log_warn(
			"more devlink health reporters than the table holds; some are not exported",
			"collector=devlink handles_max=%u per_handle_max=%u", DL_HANDLES_MAX,
			DL_REPORTERS_PER_HANDLE);
	st->logged_dropped = st->table->dropped;
	if (unmapped != st->logged_unmapped)
		log_debug("devlink health reporters without an RDMA device skipped",
			  "collector=devlink reporters=%llu", (unsigned long long)unmapped);
	st->logged_unmapped = unmapped;
	return r;
}

/* ---- life cycle ------------------------------------------------------------------------ */

static void devlink_free(void *state)
{
	struct devlink_state *st = state;

	if (!st)
		return;
	nl_conn_free(st->conn);
	free(st->table);
	free(st->map);
	free(st);
}

int devlink_collector_init_with(const struct collector_ctx *ctx, const struct devlink_seams *seams,
				void **state)
{
	struct devlink_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	st->seams = *seams;
	st->sysfs_fd = ctx->sysfs_fd;
	st->filter = ctx->filter;
	/* Below the poller's deadline, so that a slow dump ends here. */
	st->timeout_ms = ctx->collector_timeout_ms ? ctx->collector_timeout_ms / 4 * 3
			 : ctx->poll_interval_ms   ? ctx->poll_interval_ms / 2
						   : 2500;
	st->table = calloc(1, sizeof(*st->table));
	st->map = calloc(DEVLINK_RDMA_DEVICES_MAX, sizeof(*st->map));
	if (seams->open_transport)
		st->conn = nl_conn_new(seams->open_transport, seams->open_data);
	if (!st->table || !st->map || (seams->open_transport && !st->conn)) {
		devlink_free(st);
		return -ENOMEM;
	}
	*state = st;
	return 0;
}

/* The real kernel only under the real sysfs: a fixture tree's PCI
 * addresses are not this host's devlink handles. */
static bool live_sysfs(const char *path)
{
	return path && (strcmp(path, "/sys") == 0 || strcmp(path, "/sys/") == 0);
}

static int devlink_init(const struct collector_ctx *ctx, void **state)
{
	const struct devlink_seams real = {
		.open_transport = live_sysfs(ctx->sysfs_path) ? nl_socket_open_genl : NULL,
	};

	return devlink_collector_init_with(ctx, &real, state);
}

static void devlink_reload(void *state)
{
	struct devlink_state *st = state;

	/* The family id is looked up again; the socket is kept. reload()
	 * runs on the collector's own thread (collector.h). */
	if (st)
		st->family = 0;
}

const struct collector_ops devlink_collector_ops = {
	.name = "devlink",
	.help = "Devlink health reporters (errors, recoveries, state) of the RDMA devices' PCI "
		"functions",
	.default_enabled = true,
	.init = devlink_init,
	.collect = devlink_collect,
	.reload = devlink_reload,
	.free = devlink_free,
};
