// SPDX-License-Identifier: Apache-2.0
/*
 * The LLDP collector's policy (lldp.h): which netdevs to watch (the
 * gid_attrs/ndevs of every RDMA port, read from sysfs at each rescan: the
 * labels need the device and port, which the published netdev set does not
 * carry; a change in that set, which the sysfs collector publishes every
 * poll, brings the rescan forward), the bounded neighbour table with its
 * TTLs, and the samples.
 */
#include "lldp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/netdevs.h"
#include "lldp_parse.h"
#include "lldp_sock.h"
#include "lldp_table.h"

#define FAM_NEIGHBOR "rdma_port_neighbor_info"
#define FAM_RX	     "rdma_lldp_frames_received_total"
#define FAM_INVALID  "rdma_lldp_frames_invalid_total"

static const char help_neighbor[] =
	"Neighbour at the other end of the port's cable, from the LLDP frames it sends "
	"(chassis ID, port ID, system name, port description TLVs); 1 until the frame's TTL "
	"runs out.";
static const char help_rx[] = "LLDP frames received on the netdev and decoded.";
static const char help_invalid[] =
	"LLDP frames received on the netdev and discarded as malformed (truncated TLVs, "
	"mandatory TLVs missing or out of order).";

struct lldp_port {
	char device[64], port[16], netdev[IF_NAMESIZE];
	int h; /* receive handle, -1 when not open */
	bool seen;
	uint64_t rx, invalid;
	struct lldp_table nb;
};

struct lldp_state {
	struct lldp_seams seams;
	int sysfs_fd;
	const struct device_filter *filter;
	double rescan_interval_s, last_scan;
	bool scanned, logged_perm, logged_none;
	int reload_requested;
	/* the sysfs collector's published RDMA netdevs (NULL: none), and the
	 * publication the last rescan it brought forward saw */
	struct netdev_set *rdma_netdevs;
	struct netdev_set last_pub;
	struct lldp_port *ports[LLDP_MAX_PORTS];
	size_t n_ports;
	uint8_t frame[LLDP_FRAME_MAX + 1]; /* one more: a longer frame is cut, seen, counted */
};

/* ---- which netdevs to watch (sysfs) ----------------------------------------------------- */

static struct lldp_port *find_port(struct lldp_state *st, const char *dev, const char *port,
				   const char *netdev)
{
	for (size_t i = 0; i < st->n_ports; i++) {
		struct lldp_port *p = st->ports[i];

		if (!strcmp(p->device, dev) && !strcmp(p->port, port) && !strcmp(p->netdev, netdev))
			return p;
	}
	return NULL;
}

/* One (device, port, netdev): marked seen, added when new. 0 or -ENOMEM. */
static int note_port(struct lldp_state *st, const char *dev, const char *port, const char *netdev)
{
	struct lldp_port *p = find_port(st, dev, port, netdev);

	if (p) {
		p->seen = true;
		return 0;
	}
	if (st->n_ports == LLDP_MAX_PORTS || strlen(dev) >= sizeof(p->device) ||
	    strlen(port) >= sizeof(p->port) || strlen(netdev) >= sizeof(p->netdev))
		return 0; /* bounded: the rest is not watched */
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	snprintf(p->device, sizeof(p->device), "%s", dev);
	snprintf(p->port, sizeof(p->port), "%s", port);
	snprintf(p->netdev, sizeof(p->netdev), "%s", netdev);
	p->h = -1;
	p->seen = true;
	st->ports[st->n_ports++] = p;
	return 0;
}

/* ports/PORT/gid_attrs/ndevs/N of one device: each netdev named there. */
static int scan_port(struct lldp_state *st, int portsfd, const char *dev, const char *port)
{
	char path[300], name[IF_NAMESIZE + 2];
	struct dirent *e;
	DIR *d;
	int r = 0;

	snprintf(path, sizeof(path), "%s/gid_attrs/ndevs", port);
	d = open_dir_at(portsfd, path);
	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d))) {
		int f = e->d_name[0] == '.' ? -1 : open_regular_at(dirfd(d), e->d_name);
		ssize_t n;

		if (f < 0)
			continue;
		n = read(f, name, sizeof(name) - 1);
		close(f);
		if (n <= 0)
			continue; /* unused GID entries read as errors */
		name[n] = '\0';
		name[strcspn(name, "\n")] = '\0';
		if (name[0])
			r = note_port(st, dev, port, name);
	}
	closedir(d);
	return r;
}

static int scan_device(struct lldp_state *st, const char *dev)
{
	char path[300];
	struct dirent *e;
	DIR *d;
	int r = 0;

	snprintf(path, sizeof(path), "class/infiniband/%s/ports", dev);
	d = open_dir_at(st->sysfs_fd, path);
	if (!d)
		return 0;
	while (r == 0 && (e = readdir(d)))
		if (e->d_name[0] != '.')
			r = scan_port(st, dirfd(d), dev, e->d_name);
	closedir(d);
	return r;
}

static void drop_port(struct lldp_state *st, size_t i)
{
	if (st->ports[i]->h >= 0)
		st->seams.close(st->seams.io, st->ports[i]->h);
	free(st->ports[i]);
	st->ports[i] = st->ports[--st->n_ports];
}

/* Rescan: new ports join, vanished ones go (with their neighbours). */
static int scan(struct lldp_state *st)
{
	struct dirent *e;
	DIR *d;
	int r = 0;

	for (size_t i = 0; i < st->n_ports; i++)
		st->ports[i]->seen = false;
	d = st->sysfs_fd >= 0 ? open_dir_at(st->sysfs_fd, "class/infiniband") : NULL;
	while (d && r == 0 && (e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    (!st->filter || device_filter_match(st->filter, e->d_name)))
			r = scan_device(st, e->d_name);
	if (d)
		closedir(d);
	if (r < 0)
		return r;
	for (size_t i = st->n_ports; i-- > 0;)
		if (!st->ports[i]->seen)
			drop_port(st, i);
	return 0;
}

/* ---- reading frames --------------------------------------------------------------------- */

/* Opens p's handle if needed: 0, or -errno (logged by the caller). */
static int ensure_open(struct lldp_state *st, struct lldp_port *p)
{
	int h;

	if (p->h >= 0)
		return 0;
	h = st->seams.open(st->seams.io, p->netdev);
	if (h < 0)
		return h;
	p->h = h;
	return 0;
}

/* p's frames until none waits, at most LLDP_READS_PER_CALL. 0, or -errno of
 * the handle (closed). */
static int drain(struct lldp_state *st, struct lldp_port *p, double now)
{
	for (int i = 0; i < LLDP_READS_PER_CALL; i++) {
		struct lldp_neighbor n;
		ssize_t len = st->seams.recv(st->seams.io, p->h, st->frame, sizeof(st->frame));

		if (len == -EAGAIN)
			return 0;
		if (len < 0) {
			st->seams.close(st->seams.io, p->h);
			p->h = -1;
			return (int)len;
		}
		if (len > LLDP_FRAME_MAX || lldp_parse_frame(st->frame, (size_t)len, &n)) {
			p->invalid++;
			continue;
		}
		p->rx++;
		(void)lldp_table_update(&p->nb, &n, now);
	}
	return 0;
}

/* ---- samples ---------------------------------------------------------------------------- */

/* Whether neighbour i of p prints like an earlier one (distinct IDs whose
 * labels were cut or sanitised alike): one series for both. */
static bool printed_before(const struct lldp_port *p, size_t i)
{
	const struct lldp_neighbor *n = &p->nb.e[i].n;

	for (size_t j = 0; j < i; j++) {
		const struct lldp_neighbor *o = &p->nb.e[j].n;

		if (!strcmp(o->chassis_id, n->chassis_id) && !strcmp(o->port_id, n->port_id) &&
		    !strcmp(o->system_name, n->system_name) &&
		    !strcmp(o->port_description, n->port_description))
			return true;
	}
	return false;
}

static int emit_port(struct metric_sink *sink, const struct lldp_port *p)
{
	int r;

	for (size_t i = 0; i < p->nb.n; i++) {
		const struct lldp_neighbor *n = &p->nb.e[i].n;

		if (printed_before(p, i))
			continue;
		r = metric_sink_add_u64(
			sink, FAM_NEIGHBOR, help_neighbor, METRIC_GAUGE,
			METRIC_LABELS({"device", p->device}, {"port", p->port},
				      {"netdev", p->netdev}, {"chassis_id", n->chassis_id},
				      {"port_id", n->port_id}, {"system_name", n->system_name},
				      {"port_description", n->port_description}),
			1);
		if (collector_sink_result(r))
			return r;
	}
	r = metric_sink_add_u64(
		sink, FAM_RX, help_rx, METRIC_COUNTER,
		METRIC_LABELS({"device", p->device}, {"port", p->port}, {"netdev", p->netdev}),
		p->rx);
	if (collector_sink_result(r))
		return r;
	r = metric_sink_add_u64(
		sink, FAM_INVALID, help_invalid, METRIC_COUNTER,
		METRIC_LABELS({"device", p->device}, {"port", p->port}, {"netdev", p->netdev}),
		p->invalid);
	return collector_sink_result(r);
}

/* One port's turn: open, read, expire. The handle's errors are counted; a
 * missing privilege is returned (-EPERM, -EACCES) so that collect() fails. */
static int poll_port(struct lldp_state *st, struct lldp_port *p, double now,
		     struct collector_stats *stats)
{
	char eb[96];
	int r = ensure_open(st, p);

	if (r == 0)
		r = drain(st, p, now);
	lldp_table_expire(&p->nb, now);
	if (r == -EPERM || r == -EACCES)
		return r;
	if (r < 0) {
		stats->read_errors++;
		log_debug("cannot read LLDP frames; trying again at the next poll",
			  "collector=lldp netdev=%s err=\"%s\"", p->netdev,
			  log_strerror(r, eb, sizeof(eb)));
	}
	return 0;
}

/*
 * Whether the RDMA netdevs published since the last call differ from the
 * last publication seen: a netdev bound to a port, or gone from one, is then
 * rescanned at this poll rather than at the next rescan interval. Remembering
 * the publication (not our ports) means one rescan per change, even where
 * the device filter makes our ports differ from it for good.
 */
static bool published_changed(struct lldp_state *st)
{
	struct netdev_set pub = {0};
	bool changed = false;
	int r = 0;

	if (!st->rdma_netdevs || netdev_set_get_published(st->rdma_netdevs, &pub) != 1) {
		netdev_set_free(&pub);
		return false;
	}
	if (!netdev_set_equal(&pub, &st->last_pub)) {
		changed = true;
		netdev_set_begin(&st->last_pub);
		for (size_t i = 0; i < pub.n && r == 0; i++)
			r = netdev_set_add(&st->last_pub, pub.names[i]);
		if (r < 0) /* compared again at the next call */
			netdev_set_begin(&st->last_pub);
	}
	netdev_set_free(&pub);
	return changed;
}

static int lldp_collect(void *state, struct metric_sink *sink, struct collector_stats *stats)
{
	struct lldp_state *st = state;
	double now = st->seams.now(st->seams.io);
	int r, denied = 0;

	if (__atomic_exchange_n(&st->reload_requested, 0, __ATOMIC_ACQ_REL))
		st->scanned = false;
	if (published_changed(st))
		st->scanned = false;
	if (!st->scanned || now - st->last_scan >= st->rescan_interval_s) {
		r = scan(st);
		if (r < 0)
			return r;
		st->scanned = true;
		st->last_scan = now;
	}
	for (size_t i = 0; i < st->n_ports; i++) {
		r = poll_port(st, st->ports[i], now, stats);
		if (r < 0)
			denied = r;
		r = emit_port(sink, st->ports[i]);
		if (r < 0)
			return r;
	}
	stats->devices = st->n_ports;
	if (denied && !st->logged_perm)
		log_warn("cannot open LLDP packet sockets: the collector needs CAP_NET_RAW",
			 "collector=lldp");
	st->logged_perm = denied != 0;
	if (!st->n_ports && !st->logged_none)
		log_info("no netdevs to watch (none bound to an RDMA port)", "collector=lldp");
	st->logged_none = st->n_ports == 0;
	return denied;
}

/* ---- life cycle ------------------------------------------------------------------------- */

static void lldp_free(void *state)
{
	struct lldp_state *st = state;

	if (!st)
		return;
	while (st->n_ports)
		drop_port(st, st->n_ports - 1);
	netdev_set_free(&st->last_pub);
	if (st->seams.free_io)
		st->seams.free_io(st->seams.io);
	free(st);
}

int lldp_collector_init_with(const struct collector_ctx *ctx, const struct lldp_seams *seams,
			     void **state)
{
	struct lldp_state *st = calloc(1, sizeof(*st));

	if (!st) {
		if (seams->free_io)
			seams->free_io(seams->io);
		return -ENOMEM;
	}
	st->seams = *seams;
	st->sysfs_fd = ctx->sysfs_fd;
	st->filter = ctx->filter;
	st->rescan_interval_s = ctx->rescan_interval_s;
	if (ctx->sysfs_collector_enabled)
		st->rdma_netdevs = ctx->rdma_netdevs;
	*state = st;
	return 0;
}

static int real_open(void *io, const char *ifname)
{
	(void)io;
	return lldp_sock_open(ifname);
}

static ssize_t real_recv(void *io, int h, uint8_t *buf, size_t cap)
{
	(void)io;
	return lldp_sock_recv(h, buf, cap);
}

static void real_close(void *io, int h)
{
	(void)io;
	close(h);
}

static double real_now(void *io)
{
	(void)io;
	return clock_mono_s();
}

static int lldp_init(const struct collector_ctx *ctx, void **state)
{
	static const struct lldp_seams real = {
		.open = real_open,
		.recv = real_recv,
		.close = real_close,
		.now = real_now,
	};

	return lldp_collector_init_with(ctx, &real, state);
}

static void lldp_reload(void *state)
{
	struct lldp_state *st = state;

	if (st)
		__atomic_store_n(&st->reload_requested, 1, __ATOMIC_RELEASE);
}

const struct collector_ops lldp_collector_ops = {
	.name = "lldp",
	.help = "Neighbours (switch and port) of RDMA netdevs from received LLDP frames; needs "
		"CAP_NET_RAW, off by default",
	.default_enabled = false,
	.init = lldp_init,
	.collect = lldp_collect,
	.reload = lldp_reload,
	.free = lldp_free,
};
