// SPDX-License-Identifier: Apache-2.0
/*
 * The ethtool collector's policy layer on fake seams: netdev selection (RDMA
 * netdevs published by the sysfs collector, include and exclude regexes),
 * mapped per-priority families with units, netlink pause statistics before
 * the driver's own, DCB PFC, raw statistics, and every failure the issue
 * names: unsupported sources, a netdev that vanishes or is renamed, a
 * statistics count that changes between the names and the values, a driver
 * with thousands of statistics; the carrier-down counter from a sysfs tree;
 * FEC over netlink before the drivers' own FEC and PHY counters (issue 32).
 * With ETHTOOL_SERIES_OUT=FILE set, the node-shape case (8 RoCE netdevs of a
 * ConnectX-7) writes its text exposition to FILE (default flags, no
 * CAP_NET_ADMIN) and FILE.module (the same with module reads allowed), for
 * tests/bench/series-per-node.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "base/log.h"
#include "ethtool.h"
#include "module_fake.h"

#define MAX_NAMES 4096

struct fake_dev {
	const char *name;
	const char *driver;
	int drvinfo_err, count_err, stats_err, pause_err, pfc_err;
	uint32_t n_names;
	char names[MAX_NAMES][ETH_NAME_LEN];
	uint64_t vals[MAX_NAMES];
	uint32_t stats_n_override; /* != 0: GSTATS returns this many values */
	struct eth_pause_stats pause;
	struct eth_pfc pfc;
	bool have_fec; /* else the FEC seam answers -EOPNOTSUPP, or fec_err */
	int fec_err;
	struct eth_fec fec;
	bool gone;
	struct fake_module *mod; /* its module, when the run reads modules */
	int mod_err;		 /* else the module seam's answer */
};

struct fake {
	struct fake_dev devs[8];
	int n_devs;
	int strings_calls, list_calls, fec_calls;
};

static struct fake_dev *find(struct fake *f, const char *name)
{
	for (int i = 0; i < f->n_devs; i++)
		if (!f->devs[i].gone && strcmp(f->devs[i].name, name) == 0)
			return &f->devs[i];
	return NULL;
}

static int f_list(void *io, char ***names, size_t *n)
{
	struct fake *f = io;
	char **v = calloc((size_t)f->n_devs + 1, sizeof(*v));
	size_t k = 0;

	f->list_calls++;
	assert_non_null(v);
	for (int i = 0; i < f->n_devs; i++)
		if (!f->devs[i].gone)
			v[k++] = strdup(f->devs[i].name);
	*names = v;
	*n = k;
	return 0;
}

static int f_drvinfo(void *io, const char *ifname, struct eth_drvinfo *out)
{
	struct fake_dev *d = find(io, ifname);

	if (!d)
		return -ENODEV;
	if (d->drvinfo_err)
		return d->drvinfo_err;
	memset(out, 0, sizeof(*out));
	snprintf(out->driver, sizeof(out->driver), "%s", d->driver);
	snprintf(out->version, sizeof(out->version), "24.10");
	snprintf(out->fw_version, sizeof(out->fw_version), "28.39.1002");
	snprintf(out->bus_info, sizeof(out->bus_info), "0000:%02x:00.0", (unsigned)strlen(ifname));
	return 0;
}

static int f_count(void *io, const char *ifname, uint32_t *n)
{
	struct fake_dev *d = find(io, ifname);

	if (!d)
		return -ENODEV;
	if (d->count_err)
		return d->count_err;
	*n = d->n_names;
	return 0;
}

static int f_strings(void *io, const char *ifname, uint32_t expect, char **names, uint32_t *n)
{
	struct fake *f = io;
	struct fake_dev *d = find(f, ifname);
	char *v;

	f->strings_calls++;
	if (!d)
		return -ENODEV;
	v = malloc((size_t)(d->n_names ? d->n_names : 1) * ETH_NAME_LEN);
	assert_non_null(v);
	memcpy(v, d->names, (size_t)d->n_names * ETH_NAME_LEN);
	*names = v;
	*n = d->n_names;
	return 0;
}

static int f_stats(void *io, const char *ifname, uint64_t *vals, uint32_t cap, uint32_t *n)
{
	struct fake_dev *d = find(io, ifname);
	uint32_t k;

	if (!d)
		return -ENODEV;
	if (d->stats_err)
		return d->stats_err;
	k = d->stats_n_override ? d->stats_n_override : d->n_names;
	if (k > cap)
		return -EOVERFLOW;
	memcpy(vals, d->vals, (size_t)k * sizeof(uint64_t));
	*n = k;
	return 0;
}

static int f_pause(void *io, const char *ifname, struct eth_pause_stats *out)
{
	struct fake_dev *d = find(io, ifname);

	if (!d)
		return -ENODEV;
	if (d->pause_err)
		return d->pause_err;
	*out = d->pause;
	return 0;
}

static int f_pfc(void *io, const char *ifname, struct eth_pfc *out)
{
	struct fake_dev *d = find(io, ifname);

	if (!d)
		return -ENODEV;
	if (d->pfc_err)
		return d->pfc_err;
	*out = d->pfc;
	return 0;
}

static int f_fec(void *io, const char *ifname, struct eth_fec *out)
{
	struct fake *f = io;
	struct fake_dev *d = find(f, ifname);

	f->fec_calls++;
	if (!d)
		return -ENODEV;
	if (d->fec_err)
		return d->fec_err;
	if (!d->have_fec)
		return -EOPNOTSUPP;
	*out = d->fec;
	return 0;
}

static int f_module_page(void *io, const char *ifname, const struct module_page_addr *a,
			 uint8_t *buf)
{
	struct fake_dev *d = find(io, ifname);

	if (!d)
		return -ENODEV;
	if (!d->mod)
		return d->mod_err;
	return fm_read_page(d->mod, ifname, a, buf);
}

static void add_stat(struct fake_dev *d, const char *name, uint64_t v)
{
	assert_true(d->n_names < MAX_NAMES);
	snprintf(d->names[d->n_names], ETH_NAME_LEN, "%s", name);
	d->vals[d->n_names++] = v;
}

static struct fake_dev *add_dev(struct fake *f, const char *name, const char *driver)
{
	struct fake_dev *d = &f->devs[f->n_devs++];

	memset(d, 0, sizeof(*d));
	d->name = name;
	d->driver = driver;
	return d;
}

/* An mlx5 port with PFC on priority 3 and pause storms. */
static struct fake_dev *add_mlx5(struct fake *f, const char *name)
{
	struct fake_dev *d = add_dev(f, name, "mlx5_core");
	char n[ETH_NAME_LEN];

	add_stat(d, "rx_packets", 1000);
	for (int p = 0; p < 8; p++) {
		snprintf(n, sizeof(n), "rx_prio%d_pause", p);
		add_stat(d, n, p == 3 ? 42 : 0);
		snprintf(n, sizeof(n), "tx_prio%d_pause", p);
		add_stat(d, n, p == 3 ? 7 : 0);
		snprintf(n, sizeof(n), "rx_prio%d_pause_duration", p);
		add_stat(d, n, p == 3 ? 2500000 : 0); /* microseconds */
		snprintf(n, sizeof(n), "rx_prio%d_bytes", p);
		add_stat(d, n, 100u * (unsigned)p);
	}
	add_stat(d, "rx_pause_ctrl_phy", 11);
	add_stat(d, "tx_pause_ctrl_phy", 12);
	add_stat(d, "tx_pause_storm_warning_events", 2);
	add_stat(d, "tx_pause_storm_error_events", 1);
	add_stat(d, "rx_out_of_buffer", 5);
	d->pause.have_rx = d->pause.have_tx = true;
	d->pause.rx_frames = 111;
	d->pause.tx_frames = 222;
	d->pfc.pfc_en = 1u << 3;
	d->pfc.requests[3] = 9;
	d->pfc.indications[3] = 8;
	return d;
}

struct run {
	struct fake fake;
	struct collector_ctx ctx;
	int sysfs_root; /* a directory fd when has_sysfs_root */
	bool has_sysfs_root;
	bool modules; /* the module EEPROM seam is there (f_module_page) */
	struct netdev_set rdma;
	const char *strs[ETHTOOL_FLAG_COUNT];
	void *state;
	struct collector_stats stats;
	char *text;
	int rc;
};

static void run_init(struct run *r)
{
	struct ethtool_seams seams = {
		.io = &r->fake,
		.list_netdevs = f_list,
		.drvinfo = f_drvinfo,
		.stats_count = f_count,
		.strings = f_strings,
		.stats = f_stats,
		.pause = f_pause,
		.pfc = f_pfc,
		.fec = f_fec,
		.module_page = r->modules ? f_module_page : NULL,
	};

	r->ctx.sysfs_fd = r->has_sysfs_root ? r->sysfs_root : -1;
	if (r->ctx.rescan_interval_s == 0)
		r->ctx.rescan_interval_s = 60;
	r->ctx.poll_interval_ms = 1000;
	r->ctx.sysfs_collector_enabled = true;
	r->ctx.rdma_netdevs = &r->rdma;
	r->ctx.flag_strs = r->strs;
	assert_int_equal(ethtool_collector_init_with(&r->ctx, &seams, &r->state), 0);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf b = BUF_INIT;
	size_t len;

	assert_non_null(sink);
	free(r->text);
	memset(&r->stats, 0, sizeof(r->stats));
	r->rc = ethtool_collector_ops.collect(r->state, sink, &r->stats);
	assert_int_equal(metric_sink_render(sink, &b), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	metric_sink_free(sink);
	r->text = buf_steal(&b, &len);
}

static void run_free(struct run *r)
{
	ethtool_collector_ops.free(r->state);
	netdev_set_free(&r->rdma);
	free(r->text);
}

static void publish(struct run *r, const char *const *names)
{
	netdev_set_begin(&r->rdma);
	for (; *names; names++)
		assert_int_equal(netdev_set_add(&r->rdma, *names), 0);
	netdev_set_commit(&r->rdma, 1);
}

#define assert_no(text, needle)                                                                    \
	do {                                                                                       \
		if (strstr(text, needle))                                                          \
			fail_msg("unexpected: %s\n--- output:\n%s", needle, text);                 \
	} while (0)

static void test_mlx5_families(void **unused)
{
	static const char *const rdma[] = {"ens1f0", NULL};
	struct run r = {0};

	add_mlx5(&r.fake, "ens1f0");
	add_mlx5(&r.fake, "eth9"); /* not an RDMA netdev, not included */
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_netdev_info{netdev=\"ens1f0\",driver=\"mlx5_core\","
			    "driver_version=\"24.10\",firmware_version=\"28.39.1002\","
			    "bus_info=\"0000:06:00.0\"} 1");
	for (int p = 0; p < 8; p++) {
		char l[160];

		snprintf(l, sizeof(l),
			 "rdma_netdev_priority_pause_frames_total{netdev=\"ens1f0\","
			 "direction=\"rx\",priority=\"%d\"} %d",
			 p, p == 3 ? 42 : 0);
		assert_line(r.text, "%s", l);
		snprintf(l, sizeof(l),
			 "rdma_netdev_priority_bytes_total{netdev=\"ens1f0\",direction=\"rx\","
			 "priority=\"%d\"} %d",
			 p, 100 * p);
		assert_line(r.text, "%s", l);
	}
	assert_line(r.text, "rdma_netdev_priority_pause_frames_total{netdev=\"ens1f0\","
			    "direction=\"tx\",priority=\"3\"} 7");
	/* microseconds to seconds */
	assert_line(r.text, "rdma_netdev_priority_pause_duration_seconds_total{netdev=\"ens1f0\","
			    "direction=\"rx\",priority=\"3\"} 2.5");
	/* the standard netlink pause statistics win over rx/tx_pause_ctrl_phy */
	assert_line(r.text,
		    "rdma_netdev_pause_frames_total{netdev=\"ens1f0\",direction=\"rx\"} 111");
	assert_line(r.text,
		    "rdma_netdev_pause_frames_total{netdev=\"ens1f0\",direction=\"tx\"} 222");
	assert_line(r.text,
		    "rdma_netdev_pause_storm_events_total{netdev=\"ens1f0\",level=\"warning\"} 2");
	assert_line(r.text,
		    "rdma_netdev_pause_storm_events_total{netdev=\"ens1f0\",level=\"error\"} 1");
	assert_line(r.text, "rdma_netdev_out_of_buffer_packets_dropped_total{netdev=\"ens1f0\"} 5");
	assert_line(r.text, "rdma_netdev_pfc_enabled{netdev=\"ens1f0\",priority=\"3\"} 1");
	assert_line(r.text, "rdma_netdev_pfc_enabled{netdev=\"ens1f0\",priority=\"2\"} 0");
	assert_line(r.text, "rdma_netdev_pfc_requests_total{netdev=\"ens1f0\",priority=\"3\"} 9");
	assert_line(r.text,
		    "rdma_netdev_pfc_indications_total{netdev=\"ens1f0\",priority=\"3\"} 8");
	/* rx_packets is not in a table, and no stat-include was given */
	assert_no(r.text, "rdma_netdev_ethtool_statistic");
	assert_no(r.text, "eth9");
	run_free(&r);
}

static void test_driver_pause_without_netlink(void **unused)
{
	static const char *const rdma[] = {"ens1f0", NULL};
	struct run r = {0};
	struct fake_dev *d = add_mlx5(&r.fake, "ens1f0");

	d->pause_err = -EOPNOTSUPP;
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	/* the driver's global names stand in */
	assert_line(r.text,
		    "rdma_netdev_pause_frames_total{netdev=\"ens1f0\",direction=\"rx\"} 11");
	assert_line(r.text,
		    "rdma_netdev_pause_frames_total{netdev=\"ens1f0\",direction=\"tx\"} 12");
	run_free(&r);
}

static void test_include_exclude_raw(void **unused)
{
	static const char *const rdma[] = {"ens1f0", "ens1f1", NULL};
	struct run r = {0};
	struct fake_dev *v = add_dev(&r.fake, "veth0", "veth");

	add_mlx5(&r.fake, "ens1f0");
	add_mlx5(&r.fake, "ens1f1");
	add_stat(v, "peer_ifindex", 7);
	add_stat(v, "rx_queue_0_drops", 3);
	v->pause_err = -EOPNOTSUPP;
	v->pfc_err = -EOPNOTSUPP;
	publish(&r, rdma);
	r.strs[ETHTOOL_FLAG_NETDEV_INCLUDE] = "veth[0-9]+";
	r.strs[ETHTOOL_FLAG_NETDEV_EXCLUDE] = "ens1f1";
	r.strs[ETHTOOL_FLAG_STAT_INCLUDE] = "peer_ifindex|rx_packets";
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text,
		    "rdma_netdev_ethtool_statistic{netdev=\"veth0\",name=\"peer_ifindex\"} 7");
	assert_line(r.text,
		    "rdma_netdev_ethtool_statistic{netdev=\"ens1f0\",name=\"rx_packets\"} 1000");
	assert_no(r.text, "rx_queue_0_drops");
	assert_no(r.text, "ens1f1");
	assert_no(r.text, "rdma_netdev_pfc_enabled{netdev=\"veth0\"");
	/* unknown driver: identity only, no typed families */
	assert_line(r.text,
		    "rdma_netdev_info{netdev=\"veth0\",driver=\"veth\",driver_version=\"24.10\","
		    "firmware_version=\"28.39.1002\",bus_info=\"0000:05:00.0\"} 1");
	/* unsupported sources are asked once, not every poll */
	v->pause_err = -EIO; /* would count an error if it were asked again */
	v->pfc_err = -EIO;
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	run_free(&r);
}

static void test_count_changes(void **unused)
{
	static const char *const rdma[] = {"ens1f0", NULL};
	struct run r = {0};
	struct fake_dev *d = add_mlx5(&r.fake, "ens1f0");

	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.fake.strings_calls, 1);
	/* The driver now returns one value more than it had names. */
	d->stats_n_override = d->n_names + 1;
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 1);
	assert_no(r.text, "rdma_netdev_priority_pause_frames_total");
	assert_line(r.text,
		    "rdma_netdev_pause_frames_total{netdev=\"ens1f0\",direction=\"rx\"} 111");
	/* Next poll reads the names again; with a consistent driver, all is back. */
	d->stats_n_override = 0;
	add_stat(d, "rx_prio3_buf_discard", 4);
	run_poll(&r);
	assert_int_equal(r.fake.strings_calls, 2);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_netdev_priority_pause_frames_total{netdev=\"ens1f0\","
			    "direction=\"rx\",priority=\"3\"} 42");
	run_free(&r);
}

static void test_vanish_and_rename(void **unused)
{
	static const char *const rdma[] = {"ens1f0", NULL};
	struct run r = {0};
	struct fake_dev *v;

	add_mlx5(&r.fake, "ens1f0");
	v = add_dev(&r.fake, "veth1", "veth");
	add_stat(v, "peer_ifindex", 2);
	publish(&r, rdma);
	r.strs[ETHTOOL_FLAG_NETDEV_INCLUDE] = "veth.*";
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	/* renamed between the list and the reads */
	v->name = "vethR";
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 1);
	assert_line(r.text,
		    "rdma_netdev_pause_frames_total{netdev=\"ens1f0\",direction=\"rx\"} 111");
	/* the next poll scans again and finds the new name */
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_no(r.text, "veth1");
	assert_line(r.text,
		    "rdma_netdev_info{netdev=\"vethR\",driver=\"veth\",driver_version=\"24.10\","
		    "firmware_version=\"28.39.1002\",bus_info=\"0000:05:00.0\"} 1");
	run_free(&r);
}

static void test_failures_keep_others(void **unused)
{
	static const char *const rdma[] = {"a", "b", NULL};
	struct run r = {0};
	struct fake_dev *a = add_mlx5(&r.fake, "a");

	add_mlx5(&r.fake, "b");
	a->stats_err = -EIO;
	a->pfc_err = -ETIMEDOUT;
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 2);
	assert_int_equal(r.stats.read_errors, 2);
	assert_line(r.text, "rdma_netdev_priority_pause_frames_total{netdev=\"b\",direction=\"rx\","
			    "priority=\"3\"} 42");
	assert_no(r.text, "rdma_netdev_priority_pause_frames_total{netdev=\"a\"");
	assert_line(r.text,
		    "rdma_netdev_info{netdev=\"a\",driver=\"mlx5_core\",driver_version=\"24.10\","
		    "firmware_version=\"28.39.1002\",bus_info=\"0000:01:00.0\"} 1");
	run_free(&r);
}

static void test_thousands_of_stats(void **unused)
{
	static const char *const rdma[] = {"big", NULL};
	struct run r = {0};
	struct fake_dev *d = add_dev(&r.fake, "big", "mlx5_core");
	char n[ETH_NAME_LEN];

	for (int q = 0; q < 4000; q++) {
		snprintf(n, sizeof(n), "rx%d_packets", q);
		add_stat(d, n, (uint64_t)q);
	}
	add_stat(d, "rx_prio5_pause", 55);
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text,
		    "rdma_netdev_priority_pause_frames_total{netdev=\"big\",direction=\"rx\","
		    "priority=\"5\"} 55");
	run_free(&r);
}

/* DIR/class/net/NETDEV/carrier_down_count holding text; NULL text: only the directory. */
static void make_carrier(const char *dir, const char *netdev, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/class", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/class/net", dir);
	mkdir(p, 0700);
	snprintf(p, sizeof(p), "%s/class/net/%s", dir, netdev);
	assert_int_equal(mkdir(p, 0700), 0);
	if (!text)
		return;
	snprintf(p, sizeof(p), "%s/class/net/%s/carrier_down_count", dir, netdev);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_carrier(const char *dir, const char *netdev)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/class/net/%s/carrier_down_count", dir, netdev);
	unlink(p);
	snprintf(p, sizeof(p), "%s/class/net/%s", dir, netdev);
	rmdir(p);
}

static void test_carrier_down_count(void **unused)
{
	static const char *const rdma[] = {"a", "b", "c", NULL};
	char dir[] = "/tmp/ethtool-carrier-XXXXXX", p[512];
	struct run r = {0};

	assert_non_null(mkdtemp(dir));
	make_carrier(dir, "a", "3\n");
	make_carrier(dir, "b", "lots\n"); /* unreadable: one read error, no sample */
	make_carrier(dir, "c", NULL);	  /* a kernel before 4.16: nothing, no error */
	r.sysfs_root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(r.sysfs_root >= 0);
	r.has_sysfs_root = true;
	add_mlx5(&r.fake, "a");
	add_mlx5(&r.fake, "b");
	add_mlx5(&r.fake, "c");
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 3);
	assert_int_equal(r.stats.read_errors, 1);
	assert_line(r.text, "rdma_netdev_carrier_down_events_total{netdev=\"a\"} 3");
	assert_no(r.text, "rdma_netdev_carrier_down_events_total{netdev=\"b\"}");
	assert_no(r.text, "rdma_netdev_carrier_down_events_total{netdev=\"c\"}");
	/* b's other families are still there */
	assert_line(r.text, "rdma_netdev_priority_pause_frames_total{netdev=\"b\",direction=\"rx\","
			    "priority=\"3\"} 42");
	run_free(&r);
	close(r.sysfs_root);
	remove_carrier(dir, "a");
	remove_carrier(dir, "b");
	remove_carrier(dir, "c");
	snprintf(p, sizeof(p), "%s/class/net", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/class", dir);
	rmdir(p);
	assert_int_equal(rmdir(dir), 0);
}

static void test_rdma_set_changes(void **unused)
{
	static const char *const one[] = {"a", NULL};
	static const char *const two[] = {"a", "b", NULL};
	struct run r = {0};

	add_mlx5(&r.fake, "a");
	add_mlx5(&r.fake, "b");
	publish(&r, one);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);
	publish(&r, two);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	publish(&r, one);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_no(r.text, "netdev=\"b\"");
	/* reload: everything read again */
	ethtool_collector_ops.reload(r.state);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.fake.strings_calls, 3);
	run_free(&r);
}

/* An RDMA port's netdev that is not in this namespace: counted and logged once. */
static void test_rdma_netdev_elsewhere(void **unused)
{
	static const char *const rdma[] = {"a", "ghost", NULL};
	struct run r = {0};

	add_mlx5(&r.fake, "a");
	publish(&r, rdma);
	r.ctx.rescan_interval_s = 1e-9; /* a full scan at every poll */
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 1);
	assert_int_equal(r.stats.read_errors, 1);
	assert_no(r.text, "ghost");
	for (int i = 0; i < 3; i++) {
		run_poll(&r);
		assert_int_equal(r.stats.devices, 1);
		assert_int_equal(r.stats.read_errors, 0);
	}
	/* it appears: served from the next scan on */
	add_mlx5(&r.fake, "ghost");
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_line(r.text, "rdma_netdev_pfc_enabled{netdev=\"ghost\",priority=\"3\"} 1");
	run_free(&r);
}

/* mlx5 on RS-FEC: netlink totals, the driver's PHY counters and lanes. */
static void test_fec_mlx5(void **unused)
{
	static const char *const rdma[] = {"ens1f0", NULL};
	struct run r = {0};
	struct fake_dev *d = add_mlx5(&r.fake, "ens1f0");

	d->have_fec = true;
	d->fec.have_active = true;
	d->fec.active_bit = 50; /* ETHTOOL_LINK_MODE_FEC_RS_BIT */
	d->fec.corrected = (struct eth_fec_stat){.have = true, .total = 4000};
	d->fec.uncorrectable = (struct eth_fec_stat){.have = true, .total = 2};
	d->fec.corrected_bits = (struct eth_fec_stat){.have = true, .total = 17750739};
	add_stat(d, "rx_bits_phy", 1000000000000ull);
	add_stat(d, "rx_pcs_symbol_err_phy", 386);
	/* the same register as the netlink total, read a moment later */
	add_stat(d, "rx_corrected_bits_phy", 17750800);
	add_stat(d, "rx_err_lane_0_phy", 28116);
	add_stat(d, "rx_err_lane_1_phy", 0);
	add_stat(d, "rx_err_lane_2_phy", 0);
	add_stat(d, "rx_err_lane_3_phy", 17722623);
	add_stat(d, "rx_symbol_err_phy", 1);
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_netdev_fec_mode_info{netdev=\"ens1f0\",mode=\"rs\"} 1");
	assert_line(r.text, "rdma_netdev_fec_corrected_blocks_total{netdev=\"ens1f0\"} 4000");
	assert_line(r.text, "rdma_netdev_fec_uncorrectable_blocks_total{netdev=\"ens1f0\"} 2");
	/* netlink first: the driver's rx_corrected_bits_phy does not double it */
	assert_line(r.text,
		    "rdma_netdev_fec_corrected_bit_errors_total{netdev=\"ens1f0\"} 17750739");
	assert_no(r.text, "17750800");
	assert_line(r.text, "rdma_netdev_fec_lane_corrected_bit_errors_total{netdev=\"ens1f0\","
			    "lane=\"0\"} 28116");
	assert_line(r.text, "rdma_netdev_fec_lane_corrected_bit_errors_total{netdev=\"ens1f0\","
			    "lane=\"3\"} 17722623");
	assert_line(r.text,
		    "rdma_netdev_phy_bit_count_received_total{netdev=\"ens1f0\"} 1000000000000");
	assert_line(r.text, "rdma_netdev_phy_symbol_errors_total{netdev=\"ens1f0\"} 386");
	assert_line(r.text, "rdma_netdev_symbol_errors_total{netdev=\"ens1f0\"} 1");
	/* RS-FEC counts no blocks per lane */
	assert_no(r.text, "rdma_netdev_fec_lane_corrected_blocks_total");
	run_free(&r);
}

/* A kernel or driver without FEC over netlink: the driver's names stand in,
 * no read error, and the netlink request is not repeated every poll. */
static void test_fec_unsupported(void **unused)
{
	static const char *const rdma[] = {"ens1f0", "eth3", NULL};
	struct run r = {0};
	struct fake_dev *b = add_dev(&r.fake, "ens1f0", "bnxt_en");
	struct fake_dev *v = add_dev(&r.fake, "eth3", "veth");

	add_stat(b, "rx_fec_corrected_blocks", 77);
	add_stat(b, "rx_fec_uncorrectable_blocks", 1);
	add_stat(b, "rx_corrected_bits", 900);
	add_stat(b, "rx_bits", 123456789);
	add_stat(b, "rx_pcs_symbol_err", 4);
	add_stat(v, "rx_packets", 5);
	b->pause_err = v->pause_err = -EOPNOTSUPP;
	b->pfc_err = v->pfc_err = -EOPNOTSUPP;
	publish(&r, rdma);
	run_init(&r);
	for (int i = 0; i < 3; i++) {
		run_poll(&r);
		assert_int_equal(r.rc, 0);
		assert_int_equal(r.stats.read_errors, 0);
		assert_int_equal(r.stats.devices, 2);
	}
	/* asked once per netdev, then remembered until the next re-scan */
	assert_int_equal(r.fake.fec_calls, 2);
	assert_no(r.text, "rdma_netdev_fec_mode_info");
	assert_no(r.text, "netdev=\"eth3\"}");
	assert_line(r.text, "rdma_netdev_fec_corrected_blocks_total{netdev=\"ens1f0\"} 77");
	assert_line(r.text, "rdma_netdev_fec_uncorrectable_blocks_total{netdev=\"ens1f0\"} 1");
	assert_line(r.text, "rdma_netdev_fec_corrected_bit_errors_total{netdev=\"ens1f0\"} 900");
	assert_line(r.text,
		    "rdma_netdev_phy_bit_count_received_total{netdev=\"ens1f0\"} 123456789");
	assert_line(r.text, "rdma_netdev_symbol_errors_total{netdev=\"ens1f0\"} 4");
	run_free(&r);
}

/* A FEC request that fails otherwise: counted, retried, the rest served. */
static void test_fec_failure(void **unused)
{
	static const char *const rdma[] = {"a", NULL};
	struct run r = {0};
	struct fake_dev *a = add_mlx5(&r.fake, "a");

	a->fec_err = -ETIMEDOUT;
	publish(&r, rdma);
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 1);
	assert_int_equal(r.stats.devices, 1);
	assert_no(r.text, "rdma_netdev_fec_");
	assert_line(r.text, "rdma_netdev_pfc_enabled{netdev=\"a\",priority=\"3\"} 1");
	/* it comes back */
	a->fec_err = 0;
	a->have_fec = true;
	a->fec.corrected =
		(struct eth_fec_stat){.have = true, .total = 6, .n_lanes = 2, .lanes = {2, 4}};
	a->fec.have_active = true;
	a->fec.active_bit = 51; /* ETHTOOL_LINK_MODE_FEC_BASER_BIT */
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_int_equal(r.fake.fec_calls, 2);
	assert_line(r.text, "rdma_netdev_fec_mode_info{netdev=\"a\",mode=\"baser\"} 1");
	assert_line(r.text, "rdma_netdev_fec_corrected_blocks_total{netdev=\"a\"} 6");
	assert_line(r.text,
		    "rdma_netdev_fec_lane_corrected_blocks_total{netdev=\"a\",lane=\"1\"} 4");
	run_free(&r);
}

/* A ConnectX-7 RoCE port as mlx5_core prints it (en_stats.c, see
 * ethtool_names.c): the per-priority traffic groups for the 8 priorities,
 * the PFC group for the one priority with PFC enabled (3, the usual RoCE
 * setting; the driver prints rx/tx_prioN_pause* only for those), the
 * shared-buffer and congestion groups (sbcam_reg), the 802.3, 2863, phy and
 * extended groups, the statistical PHY groups (4 lanes), and a few names
 * the collector has no family for (not exported without stat-include).
 * Netlink pause statistics, DCB PFC on priority 3, RS-FEC over netlink. */
static struct fake_dev *add_cx7_roce(struct fake *f, const char *name)
{
	/* "rx_prio" N suffix for the 8 priorities; the PFC group for priority 3 */
	static const char *const prio[][2] = {
		{"rx_prio", "_bytes"},	      {"rx_prio", "_packets"}, {"rx_prio", "_discards"},
		{"tx_prio", "_bytes"},	      {"tx_prio", "_packets"}, {"rx_prio", "_buf_discard"},
		{"rx_prio", "_cong_discard"}, {"rx_prio", "_marked"}};
	static const char *const pfc[][2] = {{"rx_prio", "_pause"},
					     {"rx_prio", "_pause_duration"},
					     {"tx_prio", "_pause"},
					     {"tx_prio", "_pause_duration"},
					     {"rx_prio", "_pause_transition"}};
	static const char *const port[] = {"rx_packets",
					   "rx_bytes",
					   "tx_packets",
					   "tx_bytes",
					   "rx_vport_rdma_unicast_packets",
					   "tx_vport_rdma_unicast_packets",
					   "tx_pause_storm_warning_events",
					   "tx_pause_storm_error_events",
					   "rx_crc_errors_phy",
					   "rx_symbol_err_phy",
					   "rx_pause_ctrl_phy",
					   "tx_pause_ctrl_phy",
					   "rx_discards_phy",
					   "tx_discards_phy",
					   "link_down_events_phy",
					   "rx_buffer_passed_thres_phy",
					   "rx_out_of_buffer",
					   "rx_bits_phy",
					   "rx_pcs_symbol_err_phy",
					   "rx_corrected_bits_phy",
					   "rx_err_lane_0_phy",
					   "rx_err_lane_1_phy",
					   "rx_err_lane_2_phy",
					   "rx_err_lane_3_phy"};
	struct fake_dev *d = add_dev(f, name, "mlx5_core");
	char n[ETH_NAME_LEN];

	for (int p = 0; p < 8; p++)
		for (size_t i = 0; i < sizeof(prio) / sizeof(prio[0]); i++) {
			snprintf(n, sizeof(n), "%s%d%s", prio[i][0], p, prio[i][1]);
			add_stat(d, n, 0);
		}
	for (size_t i = 0; i < sizeof(pfc) / sizeof(pfc[0]); i++) {
		snprintf(n, sizeof(n), "%s%d%s", pfc[i][0], 3, pfc[i][1]);
		add_stat(d, n, 0);
	}
	for (size_t i = 0; i < sizeof(port) / sizeof(port[0]); i++)
		add_stat(d, port[i], 0);
	d->pause.have_rx = d->pause.have_tx = true;
	d->pfc.pfc_en = 1u << 3;
	d->have_fec = true;
	d->fec.have_active = true;
	d->fec.active_bit = 50; /* ETHTOOL_LINK_MODE_FEC_RS_BIT */
	d->fec.corrected = (struct eth_fec_stat){.have = true};
	d->fec.uncorrectable = (struct eth_fec_stat){.have = true};
	d->fec.corrected_bits = (struct eth_fec_stat){.have = true};
	return d;
}

/* Sample lines of family (exactly; "": any) for netdev. */
static unsigned series_of(const char *text, const char *family, const char *netdev)
{
	char needle[64];
	size_t fl = strlen(family);
	unsigned n = 0;

	snprintf(needle, sizeof(needle), "netdev=\"%s\"", netdev);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (*p != '#' && len > fl && memcmp(p, family, fl) == 0 && (!fl || p[fl] == '{') &&
		    memmem(p, len, needle, strlen(needle)))
			n++;
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

static unsigned sample_lines(const char *text)
{
	unsigned n = 0;

	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');

		n += *p != '#' && *p != '\n';
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

/* Series of one RoCE netdev, by family, at default flags. */
static const struct {
	const char *family;
	unsigned n;
} roce_port_series[] = {
	{"rdma_netdev_info", 1},
	{"rdma_netdev_priority_bytes_total", 16},	      /* rx, tx x 8 priorities */
	{"rdma_netdev_priority_packets_total", 16},	      /* rx, tx x 8 */
	{"rdma_netdev_priority_packets_discarded_total", 24}, /* 3 reasons x 8 */
	{"rdma_netdev_priority_ecn_marked_packets_total", 8},
	{"rdma_netdev_priority_pause_frames_total", 2},		  /* rx, tx of priority 3 */
	{"rdma_netdev_priority_pause_duration_seconds_total", 2}, /* rx, tx of priority 3 */
	{"rdma_netdev_priority_pause_transitions_total", 1},
	{"rdma_netdev_pfc_enabled", 8}, /* DCB: the 8 priorities */
	{"rdma_netdev_pfc_requests_total", 8},
	{"rdma_netdev_pfc_indications_total", 8},
	{"rdma_netdev_pause_frames_total", 2},
	{"rdma_netdev_pause_storm_events_total", 2},
	{"rdma_netdev_packets_discarded_total", 2},
	{"rdma_netdev_crc_errors_total", 1},
	{"rdma_netdev_symbol_errors_total", 1},
	{"rdma_netdev_link_down_events_total", 1},
	{"rdma_netdev_carrier_down_events_total", 1},
	{"rdma_netdev_buffer_threshold_crossings_total", 1},
	{"rdma_netdev_out_of_buffer_packets_dropped_total", 1},
	{"rdma_netdev_fec_mode_info", 1},
	{"rdma_netdev_fec_corrected_blocks_total", 1},
	{"rdma_netdev_fec_uncorrectable_blocks_total", 1},
	{"rdma_netdev_fec_corrected_bit_errors_total", 1},
	{"rdma_netdev_fec_lane_corrected_bit_errors_total", 4},
	{"rdma_netdev_phy_bit_count_received_total", 1},
	{"rdma_netdev_phy_symbol_errors_total", 1},
};

/* Every family of roce_port_series has its count of series for netdev in
 * text; exact: nothing beyond the table either (no module, no raw statistic). */
static void assert_port_series(const char *text, const char *netdev, bool exact)
{
	unsigned fams = 0;

	for (size_t k = 0; k < sizeof(roce_port_series) / sizeof(roce_port_series[0]); k++) {
		unsigned n = series_of(text, roce_port_series[k].family, netdev);

		if (n != roce_port_series[k].n)
			fail_msg("%s %s: %u series, expected %u", netdev,
				 roce_port_series[k].family, n, roce_port_series[k].n);
		fams += n;
	}
	if (exact)
		assert_int_equal(series_of(text, "", netdev), fams);
}

/* Removes the carrier files of netdevs (NULL-terminated) and dir's tree. */
static void remove_node_tree(const char *dir, const char *const *netdevs)
{
	char p[512];

	for (int i = 0; netdevs[i]; i++)
		remove_carrier(dir, netdevs[i]);
	snprintf(p, sizeof(p), "%s/class/net", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/class", dir);
	rmdir(p);
	assert_int_equal(rmdir(dir), 0);
}

/* The node shape of issue 31's RoCE budget: 8 RoCE netdevs eth0..eth7, each
 * a ConnectX-7 port (add_cx7_roce) with a QSFP module and carrier_down_count
 * in sysfs. At default flags without CAP_NET_ADMIN (module reads answered
 * EPERM) every netdev has exactly the families of roce_port_series and
 * nothing else; with module reads allowed, the module families come on top. */
static void test_roce_node_series(void **unused)
{
	static const char *const rdma[] = {"eth0", "eth1", "eth2", "eth3", "eth4",
					   "eth5", "eth6", "eth7", NULL};
	const char *path = getenv("ETHTOOL_SERIES_OUT");
	char dir[] = "/tmp/ethtool-node-XXXXXX";
	struct fake_module *mods = calloc(8, sizeof(*mods));
	unsigned per_port = 0, with_module = 0;

	assert_non_null(mods);
	assert_non_null(mkdtemp(dir));
	for (size_t k = 0; k < sizeof(roce_port_series) / sizeof(roce_port_series[0]); k++)
		per_port += roce_port_series[k].n;
	for (int cap = 0; cap < 2; cap++) {
		struct run *r = calloc(1, sizeof(*r));

		assert_non_null(r);
		for (int i = 0; i < 8; i++) {
			struct fake_dev *d = add_cx7_roce(&r->fake, rdma[i]);

			if (cap) {
				fm_qsfp28(&mods[i]);
				d->mod = &mods[i];
			} else {
				d->mod_err = -EPERM;
			}
			if (!cap)
				make_carrier(dir, rdma[i], "2\n");
		}
		r->sysfs_root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(r->sysfs_root >= 0);
		r->has_sysfs_root = true;
		r->modules = true;
		publish(r, rdma);
		run_init(r);
		run_poll(r);
		assert_int_equal(r->rc, 0);
		assert_int_equal(r->stats.devices, 8);
		assert_int_equal(r->stats.read_errors, 0);
		for (int i = 0; i < 8; i++)
			assert_port_series(r->text, rdma[i], !cap);
		if (!cap) {
			assert_int_equal(sample_lines(r->text), 8 * per_port);
			assert_no(r->text, "rdma_netdev_module_");
			assert_no(r->text, "rdma_netdev_ethtool_statistic");
		} else {
			with_module = sample_lines(r->text);
			assert_true(strstr(r->text, "rdma_netdev_module_temperature_celsius{"));
			assert_true(with_module > 8 * per_port);
		}
		print_message("8 RoCE netdevs, %s: %u series\n",
			      cap ? "module reads allowed" : "default", sample_lines(r->text));
		if (path)
			write_exposition(path, cap ? ".module" : "", r->text);
		close(r->sysfs_root);
		run_free(r);
		free(r);
	}
	remove_node_tree(dir, rdma);
	free(mods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mlx5_families),
		cmocka_unit_test(test_driver_pause_without_netlink),
		cmocka_unit_test(test_include_exclude_raw),
		cmocka_unit_test(test_count_changes),
		cmocka_unit_test(test_vanish_and_rename),
		cmocka_unit_test(test_failures_keep_others),
		cmocka_unit_test(test_thousands_of_stats),
		cmocka_unit_test(test_rdma_netdev_elsewhere),
		cmocka_unit_test(test_rdma_set_changes),
		cmocka_unit_test(test_carrier_down_count),
		cmocka_unit_test(test_fec_mlx5),
		cmocka_unit_test(test_fec_unsupported),
		cmocka_unit_test(test_fec_failure),
		cmocka_unit_test(test_roce_node_series),
	};

	log_set_level(LOG_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
