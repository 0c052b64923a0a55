// SPDX-License-Identifier: Apache-2.0
/*
 * The transceiver part of the ethtool collector on fake seams: module pages
 * handed out as built ETHTOOL_MSG_MODULE_EEPROM_GET replies (module_fake.h),
 * every metric family with its labels and base units, reads at most every
 * --collector.ethtool.module-interval with the cache served in between, 0
 * turning reads off, an empty cage (no series, no read error), a netdev
 * without module access (not asked again until a full scan), a real failure
 * (one read error per failed read), no CAP_NET_ADMIN (-EPERM), a page that
 * fails, and a module pulled and plugged again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "exposition_assert.h"

#include "base/buf.h"
#include "ethtool.h"
#include "module_fake.h"

struct netdev_module {
	const char *name;
	struct fake_module mod;
};

struct run {
	struct netdev_module devs[3];
	int n_devs;
	uint64_t flags[ETHTOOL_FLAG_COUNT];
	const char *strs[ETHTOOL_FLAG_COUNT];
	struct collector_ctx ctx;
	struct netdev_set rdma;
	void *state;
	struct collector_stats stats;
	char *text;
};

static struct netdev_module *find(struct run *r, const char *name)
{
	for (int i = 0; i < r->n_devs; i++)
		if (strcmp(r->devs[i].name, name) == 0)
			return &r->devs[i];
	return NULL;
}

static int f_drvinfo(void *io, const char *ifname, struct eth_drvinfo *out)
{
	if (!find(io, ifname))
		return -ENODEV;
	memset(out, 0, sizeof(*out));
	snprintf(out->driver, sizeof(out->driver), "mlx5_core");
	return 0;
}

static int f_count(void *io, const char *ifname, uint32_t *n)
{
	(void)io;
	(void)ifname;
	*n = 0;
	return -EOPNOTSUPP;
}

static int f_pause(void *io, const char *ifname, struct eth_pause_stats *out)
{
	(void)io;
	(void)ifname;
	(void)out;
	return -EOPNOTSUPP;
}

static int f_pfc(void *io, const char *ifname, struct eth_pfc *out)
{
	(void)io;
	(void)ifname;
	(void)out;
	return -EOPNOTSUPP;
}

static int f_module_page(void *io, const char *ifname, const struct module_page_addr *a,
			 uint8_t *buf)
{
	struct netdev_module *d = find(io, ifname);

	if (!d)
		return -ENODEV;
	return fm_read_page(&d->mod, ifname, a, buf);
}

static struct fake_module *add(struct run *r, const char *name)
{
	struct netdev_module *d = &r->devs[r->n_devs++];

	d->name = name;
	fm_qsfp28(&d->mod);
	return &d->mod;
}

static void run_init(struct run *r, uint64_t interval_ms)
{
	struct ethtool_seams seams = {
		.io = r,
		.drvinfo = f_drvinfo,
		.stats_count = f_count,
		.pause = f_pause,
		.pfc = f_pfc,
		.module_page = f_module_page,
	};

	netdev_set_begin(&r->rdma);
	for (int i = 0; i < r->n_devs; i++)
		assert_int_equal(netdev_set_add(&r->rdma, r->devs[i].name), 0);
	netdev_set_commit(&r->rdma, 1);
	r->flags[ETHTOOL_FLAG_MODULE_INTERVAL] = interval_ms;
	r->ctx.sysfs_fd = -1;
	r->ctx.rescan_interval_s = 3600;
	r->ctx.poll_interval_ms = 1000;
	r->ctx.sysfs_collector_enabled = true;
	r->ctx.rdma_netdevs = &r->rdma;
	r->ctx.flags = r->flags;
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
	assert_int_equal(ethtool_collector_ops.collect(r->state, sink, &r->stats), 0);
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

/* Waits until the monotonic clock has moved by more than ms (a module interval of ms ends). */
static void pass_ms(unsigned ms)
{
	struct timespec t = {.tv_sec = 0, .tv_nsec = (long)(ms + 1) * 1000000L};

	while (nanosleep(&t, &t) != 0)
		;
}

static void test_families(void **unused)
{
	struct run r = {0};

	(void)unused;
	add(&r, "ens1f0");
	run_init(&r, 60000);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_netdev_module_info{netdev=\"ens1f0\",identifier=\"QSFP28\","
			    "vendor=\"Mellanox\",part_number=\"MMA1B00-C100D\","
			    "serial_number=\"MT2101FT00123\",revision=\"B2\",media=\"optical\"} 1");
	assert_line(r.text, "# TYPE rdma_netdev_module_info gauge");
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"ens1f0\"} 40");
	assert_line(r.text, "rdma_netdev_module_supply_voltage_volts{netdev=\"ens1f0\"} 3.3");
	assert_line(r.text,
		    "rdma_netdev_module_lane_rx_power_watts{netdev=\"ens1f0\",lane=\"1\"} 0.0005");
	assert_line(
		r.text,
		"rdma_netdev_module_lane_rx_power_watts{netdev=\"ens1f0\",lane=\"4\"} 0.0005003");
	assert_line(r.text,
		    "rdma_netdev_module_lane_tx_power_watts{netdev=\"ens1f0\",lane=\"2\"} 0.0006");
	assert_line(r.text, "rdma_netdev_module_lane_tx_bias_current_amperes{netdev=\"ens1f0\","
			    "lane=\"3\"} 0.007");
	/* four lanes on a QSFP28 */
	assert_null(strstr(r.text, "lane=\"5\""));
	assert_line(r.text, "rdma_netdev_module_threshold{netdev=\"ens1f0\","
			    "quantity=\"temperature_celsius\",level=\"high_alarm\"} 80");
	assert_line(r.text, "rdma_netdev_module_threshold{netdev=\"ens1f0\","
			    "quantity=\"temperature_celsius\",level=\"high_warning\"} 75");
	assert_line(r.text, "rdma_netdev_module_threshold{netdev=\"ens1f0\","
			    "quantity=\"temperature_celsius\",level=\"low_warning\"} -5");
	assert_line(r.text, "rdma_netdev_module_threshold{netdev=\"ens1f0\","
			    "quantity=\"temperature_celsius\",level=\"low_alarm\"} -10");
	/* the other quantities' thresholds were zero in the built page 03h: still declared */
	assert_line(r.text, "rdma_netdev_module_threshold{netdev=\"ens1f0\","
			    "quantity=\"rx_power_watts\",level=\"low_alarm\"} 0");
	assert_line(r.text, "rdma_netdev_module_threshold{netdev=\"ens1f0\","
			    "quantity=\"tx_bias_current_amperes\",level=\"high_alarm\"} 0");
	run_free(&r);
}

static void test_interval_and_cache(void **unused)
{
	struct run r = {0};
	struct fake_module *m;

	(void)unused;
	m = add(&r, "ens1f0");
	run_init(&r, 60000);
	run_poll(&r);
	assert_int_equal(m->n_reads, 3);
	/* within the interval: no read, the same samples from the cache */
	fm_put16(m->lower, 22, 90 * 256);
	run_poll(&r);
	run_poll(&r);
	assert_int_equal(m->n_reads, 3);
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"ens1f0\"} 40");
	run_free(&r);

	/* a short interval: read again once it has passed */
	memset(&r, 0, sizeof(r));
	m = add(&r, "ens1f0");
	run_init(&r, 1);
	run_poll(&r);
	assert_int_equal(m->n_reads, 3);
	fm_put16(m->lower, 22, 90 * 256);
	pass_ms(1);
	run_poll(&r);
	assert_int_equal(m->n_reads, 6);
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"ens1f0\"} 90");
	run_free(&r);

	/* 0: module reads off */
	memset(&r, 0, sizeof(r));
	m = add(&r, "ens1f0");
	run_init(&r, 0);
	run_poll(&r);
	run_poll(&r);
	assert_int_equal(m->n_reads, 0);
	assert_null(strstr(r.text, "rdma_netdev_module_"));
	assert_line(r.text, "rdma_netdev_info{netdev=\"ens1f0\",driver=\"mlx5_core\","
			    "driver_version=\"\",firmware_version=\"\",bus_info=\"\"} 1");
	run_free(&r);
}

static void test_absent_unsupported_failed(void **unused)
{
	struct run r = {0};
	struct fake_module *empty, *veth, *broken;

	(void)unused;
	empty = add(&r, "a");
	veth = add(&r, "b");
	broken = add(&r, "c");
	empty->lower_err = -EIO; /* mlx5's answer for an empty cage */
	veth->lower_err = -EOPNOTSUPP;
	broken->lower_err = -ETIMEDOUT;
	run_init(&r, 1);
	run_poll(&r);
	assert_null(strstr(r.text, "rdma_netdev_module_"));
	/* only the real failure counts */
	assert_int_equal(r.stats.read_errors, 1);
	assert_int_equal(r.stats.devices, 3);
	assert_int_equal(empty->n_reads, 1);
	assert_int_equal(veth->n_reads, 1);
	pass_ms(1);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 1);
	/* the empty cage is looked at again; the netdev without module access is not */
	assert_int_equal(empty->n_reads, 2);
	assert_int_equal(veth->n_reads, 1);
	assert_int_equal(broken->n_reads, 2);
	/* a module plugged into the empty cage shows at the next read */
	empty->lower_err = 0;
	broken->lower_err = 0;
	pass_ms(1);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"a\"} 40");
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"c\"} 40");
	assert_null(strstr(r.text, "netdev=\"b\",identifier"));
	/* and pulled again: its series go */
	empty->lower_err = -EIO;
	pass_ms(1);
	run_poll(&r);
	assert_null(strstr(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"a\"}"));
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"c\"} 40");
	assert_int_equal(r.stats.read_errors, 0);
	/* a full scan (SIGHUP) asks the netdev without module access again */
	ethtool_collector_ops.reload(r.state);
	run_poll(&r);
	assert_int_equal(veth->n_reads, 2);
	run_free(&r);
}

/* Without CAP_NET_ADMIN the kernel answers -EPERM: no series, no read error,
 * not asked again until a full scan. */
static void test_not_permitted(void **unused)
{
	struct run r = {0};
	struct fake_module *a, *b;

	(void)unused;
	a = add(&r, "a");
	b = add(&r, "b");
	a->lower_err = -EPERM;
	b->lower_err = -EPERM;
	run_init(&r, 1);
	run_poll(&r);
	pass_ms(1);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	assert_int_equal(a->n_reads, 1);
	assert_int_equal(b->n_reads, 1);
	assert_null(strstr(r.text, "rdma_netdev_module_"));
	a->lower_err = 0;
	ethtool_collector_ops.reload(r.state);
	run_poll(&r);
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"a\"} 40");
	run_free(&r);
}

static void test_page_failure(void **unused)
{
	struct run r = {0};
	struct fake_module *m;

	(void)unused;
	m = add(&r, "ens1f0");
	m->page_err[MODULE_PG_03] = -EIO;
	run_init(&r, 60000);
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 1);
	assert_line(r.text, "rdma_netdev_module_temperature_celsius{netdev=\"ens1f0\"} 40");
	assert_null(strstr(r.text, "rdma_netdev_module_threshold"));
	/* served from the cache: the failure is not counted again */
	run_poll(&r);
	assert_int_equal(r.stats.read_errors, 0);
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_interval_and_cache),
		cmocka_unit_test(test_absent_unsupported_failed),
		cmocka_unit_test(test_not_permitted),
		cmocka_unit_test(test_page_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
