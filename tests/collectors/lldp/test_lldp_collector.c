// SPDX-License-Identifier: Apache-2.0
/*
 * The LLDP collector's policy on fake seams (a queue of frames per handle, a
 * clock the test moves) over a sysfs tree made in a temporary directory:
 * the neighbour series and its labels, removal when the TTL runs out, when
 * a frame from the same chassis and port replaces it and on TTL 0, the
 * bounded table, garbage frames counted, a missing CAP_NET_RAW, a netdev
 * that goes away, and the per-call read bound; and the blinding of issue
 * 42: a flood of junk and of fake neighbours must not hide the switch,
 * distinct IDs that print alike stay distinct, jumbo LLDPDUs are read.
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
#include "base/netdevs.h"
#include "lldp.h"
#include "lldp_build.h"

#define QMAX 64

struct fake {
	struct lldp_frame q[QMAX];
	size_t head, tail;
	int open_err, recv_err; /* next open / recv answers this once (recv_err) */
	size_t junk_left;	/* frames of junk answered before the queue */
	int opens, closes, open_now;
	double now;
};

struct run {
	char dir[64];
	int sysfs_fd;
	struct fake fake;
	struct collector_ctx ctx;
	void *state;
	struct collector_stats stats;
	int rc;
	char *text;
};

static int fake_open(void *io, const char *ifname)
{
	struct fake *f = io;

	assert_true(strcmp(ifname, "eth1") == 0 || strcmp(ifname, "eth2") == 0);
	if (f->open_err)
		return f->open_err;
	f->opens++;
	f->open_now++;
	return 3;
}

static ssize_t fake_recv(void *io, int h, uint8_t *buf, size_t cap)
{
	struct fake *f = io;
	struct lldp_frame *fr;

	assert_int_equal(h, 3);
	if (f->recv_err) {
		int e = f->recv_err;

		f->recv_err = 0;
		return e;
	}
	if (f->junk_left) {
		static const uint8_t junk[60] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0x00,
						 0x00, 0x00, 0x00, 0x02, 0x88, 0xcc, 0xff};

		f->junk_left--;
		memcpy(buf, junk, sizeof(junk) < cap ? sizeof(junk) : cap);
		return (ssize_t)(sizeof(junk) < cap ? sizeof(junk) : cap);
	}
	if (f->head == f->tail)
		return -EAGAIN;
	fr = &f->q[f->head++ % QMAX];
	memcpy(buf, fr->b, fr->len < cap ? fr->len : cap);
	return (ssize_t)(fr->len < cap ? fr->len : cap);
}

static void fake_close(void *io, int h)
{
	struct fake *f = io;

	assert_int_equal(h, 3);
	f->closes++;
	f->open_now--;
}

static double fake_now(void *io)
{
	return ((struct fake *)io)->now;
}

static void push(struct run *r, const struct lldp_frame *fr)
{
	assert_true(r->fake.tail - r->fake.head < QMAX);
	r->fake.q[r->fake.tail++ % QMAX] = *fr;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* sysfs: class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/{0,1} = eth1; published:
 * the sysfs collector's netdev set, or NULL (it does not run) */
static void run_init_published(struct run *r, struct netdev_set *published)
{
	static const struct lldp_seams seams = {
		.open = fake_open, .recv = fake_recv, .close = fake_close, .now = fake_now};
	struct lldp_seams s = seams;
	char p[256];

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "/tmp/lldp-test-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	snprintf(p, sizeof(p), "mkdir -p %s/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs",
		 r->dir);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", r->dir);
	write_file(p, "eth1\n");
	snprintf(p, sizeof(p), "%s/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/1", r->dir);
	write_file(p, "eth1\n");
	r->sysfs_fd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(r->sysfs_fd >= 0);
	r->ctx.sysfs_fd = r->sysfs_fd;
	r->ctx.rescan_interval_s = 60;
	r->ctx.rdma_netdevs = published;
	r->ctx.sysfs_collector_enabled = published != NULL;
	r->fake.now = 1000;
	s.io = &r->fake;
	assert_int_equal(lldp_collector_init_with(&r->ctx, &s, &r->state), 0);
}

static void run_init(struct run *r)
{
	run_init_published(r, NULL);
}

static void run_poll(struct run *r)
{
	struct metric_sink *sink = metric_sink_new();
	struct buf b = BUF_INIT;
	size_t len;

	assert_non_null(sink);
	free(r->text);
	memset(&r->stats, 0, sizeof(r->stats));
	r->rc = lldp_collector_ops.collect(r->state, sink, &r->stats);
	assert_int_equal(metric_sink_render(sink, &b), 0);
	assert_int_equal(metric_sink_errors(sink), 0);
	metric_sink_free(sink);
	r->text = buf_steal(&b, &len);
	if (!r->text) /* nothing rendered */
		r->text = strdup("");
	assert_non_null(r->text);
}

static void run_free(struct run *r)
{
	char cmd[128];

	lldp_collector_ops.free(r->state);
	assert_int_equal(r->fake.open_now, 0); /* every handle closed */
	close(r->sysfs_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", r->dir);
	assert_int_equal(system(cmd), 0);
	free(r->text);
}

#define SERIES(sys)                                                                                \
	"rdma_port_neighbor_info{device=\"mlx5_0\",port=\"1\",netdev=\"eth1\","                    \
	"chassis_id=\"0c:42:a1:00:00:01\",port_id=\"Ethernet1/7\",system_name=\"" sys "\","        \
	"port_description=\"uplink to node\"} 1"
#define COUNTER(fam, v) fam "{device=\"mlx5_0\",port=\"1\",netdev=\"eth1\"} " v

static void test_neighbor_and_ttl(void **unused)
{
	struct lldp_frame f;
	struct run r;

	(void)unused;
	run_init(&r);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.devices, 1); /* two GID entries, one netdev */
	assert_null(strstr(r.text, "rdma_port_neighbor_info{"));
	assert_line(r.text, COUNTER("rdma_lldp_frames_received_total", "0"));

	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, SERIES("leaf-sw-1"));
	assert_line(r.text, COUNTER("rdma_lldp_frames_received_total", "1"));
	assert_line(r.text, COUNTER("rdma_lldp_frames_invalid_total", "0"));

	r.fake.now += 119.5;
	run_poll(&r);
	assert_line(r.text, SERIES("leaf-sw-1"));
	r.fake.now += 0.5; /* TTL over */
	run_poll(&r);
	assert_null(strstr(r.text, "rdma_port_neighbor_info{"));
	assert_int_equal(r.rc, 0);
	run_free(&r);
}

static void test_replaced_and_shutdown(void **unused)
{
	struct lldp_frame f;
	struct run r;

	(void)unused;
	run_init(&r);
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	lf_switch(&f, "leaf-sw-1b", "Ethernet1/7", 120); /* same chassis and port */
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, SERIES("leaf-sw-1b"));
	assert_no_line(r.text, SERIES("leaf-sw-1"));
	lf_switch(&f, "leaf-sw-1b", "Ethernet1/7", 0); /* shutdown LLDPDU */
	push(&r, &f);
	run_poll(&r);
	assert_null(strstr(r.text, "rdma_port_neighbor_info{"));
	assert_line(r.text, COUNTER("rdma_lldp_frames_received_total", "3"));
	run_free(&r);
}

/* More neighbours than the table holds, each heard once: the table stays
 * bounded and the last newcomer is in (newcomers make room for newcomers). */
static void test_bounded_table(void **unused)
{
	struct lldp_frame f;
	struct run r;
	char port[32];
	size_t n = 0;

	(void)unused;
	run_init(&r);
	for (int i = 0; i < 20; i++) {
		snprintf(port, sizeof(port), "Eth%d", i);
		lf_switch(&f, "sw", port, (uint16_t)(100 + i));
		push(&r, &f);
	}
	run_poll(&r);
	for (const char *p = r.text; (p = strstr(p, "rdma_port_neighbor_info{")); p++)
		n++;
	assert_true(n >= 1 && n <= 16);
	assert_non_null(strstr(r.text, "port_id=\"Eth19\""));
	run_free(&r);
}

static void test_garbage_counted(void **unused)
{
	struct lldp_frame f;
	struct run r;

	(void)unused;
	run_init(&r);
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	f.len -= 6; /* truncated */
	push(&r, &f);
	memset(f.b + 14, 0xff, 200); /* noise after a valid header */
	f.len = 214;
	push(&r, &f);
	f.len = 3; /* runt */
	push(&r, &f);
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_line(r.text, COUNTER("rdma_lldp_frames_invalid_total", "3"));
	assert_line(r.text, COUNTER("rdma_lldp_frames_received_total", "1"));
	assert_line(r.text, SERIES("leaf-sw-1"));
	run_free(&r);
}

static void test_no_cap_net_raw(void **unused)
{
	struct run r;

	(void)unused;
	run_init(&r);
	r.fake.open_err = -EPERM;
	run_poll(&r);
	assert_int_equal(r.rc, -EPERM); /* rdma_exporter_collector_success 0 */
	assert_line(r.text, COUNTER("rdma_lldp_frames_received_total", "0"));
	r.fake.open_err = 0;
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.fake.opens, 1);
	run_free(&r);
}

static void test_read_error_and_vanished_netdev(void **unused)
{
	struct lldp_frame f;
	struct run r;
	char p[256];

	(void)unused;
	run_init(&r);
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	run_poll(&r);
	r.fake.recv_err = -ENETDOWN;
	run_poll(&r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.stats.read_errors, 1);
	assert_int_equal(r.fake.open_now, 0);
	assert_line(r.text, SERIES("leaf-sw-1")); /* kept until its TTL */
	run_poll(&r);
	assert_int_equal(r.fake.opens, 2); /* reopened */

	/* the netdev leaves the RDMA port: gone at the next rescan */
	snprintf(p, sizeof(p), "rm -rf %s/class/infiniband/mlx5_0", r.dir);
	assert_int_equal(system(p), 0);
	lldp_collector_ops.reload(r.state);
	run_poll(&r);
	assert_null(strstr(r.text, "netdev=\"eth1\""));
	assert_int_equal(r.fake.open_now, 0);
	assert_int_equal(r.stats.devices, 0);
	run_free(&r);
}

/* publish the names (NULL-terminated) as the sysfs collector does */
static void publish(struct netdev_set *set, const char *const *names)
{
	static uint64_t gen;

	netdev_set_begin(set);
	for (; *names; names++)
		assert_int_equal(netdev_set_add(set, *names), 0);
	assert_int_equal(netdev_set_commit(set, ++gen), 0);
}

/* A netdev bound to a port (or gone from one) in the sysfs collector's
 * publication is rescanned at the next poll, not at the rescan interval; an
 * unchanged publication scans nothing. */
static void test_published_netdevs_bring_rescan_forward(void **unused)
{
	static const char *const one[] = {"eth1", NULL}, *const two[] = {"eth1", "eth2", NULL};
	struct netdev_set set = {0};
	struct run r;
	char p[256];

	(void)unused;
	netdev_set_init(&set);
	run_init_published(&r, &set);
	publish(&set, one);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);

	snprintf(p, sizeof(p), "mkdir -p %s/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs",
		 r.dir);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof(p), "%s/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/0", r.dir);
	write_file(p, "eth2\n");
	r.fake.now += 1;
	run_poll(&r); /* the publication has not changed: no rescan yet */
	assert_int_equal(r.stats.devices, 1);
	publish(&set, two);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	assert_line(r.text, "rdma_lldp_frames_received_total{device=\"mlx5_1\",port=\"1\","
			    "netdev=\"eth2\"} 0");

	snprintf(p, sizeof(p), "rm -rf %s/class/infiniband/mlx5_1", r.dir);
	assert_int_equal(system(p), 0);
	publish(&set, two); /* the same names again: nothing rescanned */
	run_poll(&r);
	assert_int_equal(r.stats.devices, 2);
	publish(&set, one);
	run_poll(&r);
	assert_int_equal(r.stats.devices, 1);
	assert_null(strstr(r.text, "netdev=\"eth2\""));
	run_free(&r);
	netdev_set_free(&set);
}

static void test_reads_bounded_per_call(void **unused)
{
	struct lldp_frame f;
	struct run r;
	(void)unused;
	run_init(&r);
	r.fake.junk_left = LLDP_READS_PER_CALL + 8;
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, COUNTER("rdma_lldp_frames_invalid_total", "%d"), LLDP_READS_PER_CALL);
	run_poll(&r);
	assert_line(r.text, COUNTER("rdma_lldp_frames_received_total", "1"));
	assert_line(r.text, SERIES("leaf-sw-1"));
	run_free(&r);
}

/* 50 junk frames a second for a 15 s poll, with the switch's frame behind
 * them: all read in one poll (main read 32, the switch waited behind). */
static void test_junk_flood_drained(void **unused)
{
	struct lldp_frame f;
	struct run r;

	(void)unused;
	run_init(&r);
	r.fake.junk_left = 750;
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, COUNTER("rdma_lldp_frames_invalid_total", "750"));
	assert_line(r.text, SERIES("leaf-sw-1"));
	run_free(&r);
}

/* The switch, heard twice 30 s apart (802.1AB's default interval), then 100
 * fake neighbours with TTL 65535, 50 a poll: the switch stays. */
static void test_fake_neighbors_do_not_evict(void **unused)
{
	struct lldp_frame f;
	struct run r;
	char port[16];

	(void)unused;
	run_init(&r);
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	push(&r, &f);
	run_poll(&r);
	r.fake.now += 30;
	push(&r, &f);
	run_poll(&r);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 50; i++) {
			snprintf(port, sizeof(port), "fake%d", (round % 2) * 50 + i);
			lf_switch(&f, "evil", port, 65535);
			push(&r, &f);
		}
		r.fake.now += 1;
		run_poll(&r);
		assert_line(r.text, SERIES("leaf-sw-1"));
	}
	r.fake.now += 60; /* the switch's TTL still runs from its last frame */
	run_poll(&r);
	assert_line(r.text, SERIES("leaf-sw-1"));
	r.fake.now += 60; /* 124 s after its last frame: it goes, like any neighbour */
	run_poll(&r);
	assert_no_line(r.text, SERIES("leaf-sw-1"));
	run_free(&r);
}

/* A MAC chassis ID and a text one that print alike are two neighbours: a
 * frame from one neither replaces nor (TTL 0) removes the other. */
static void test_distinct_ids_same_label(void **unused)
{
	static const uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x01};
	static const char text[] = "0c:42:a1:00:00:01";
	struct lldp_frame f;
	struct run r;

	(void)unused;
	run_init(&r);
	lf_neighbor(&f, 4, mac, sizeof(mac), "Ethernet1/7", 120, "leaf-sw-1");
	push(&r, &f);
	lf_neighbor(&f, 7, text, strlen(text), "Ethernet1/7", 120, "other");
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, SERIES("leaf-sw-1"));
	assert_line(r.text, SERIES("other"));
	lf_neighbor(&f, 7, text, strlen(text), "Ethernet1/7", 0, "other");
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, SERIES("leaf-sw-1"));
	assert_no_line(r.text, SERIES("other"));
	run_free(&r);
}

/* A 2000-byte LLDPDU (a switch on a jumbo port with many TLVs) is read
 * whole and decoded; main cut frames at 1600 bytes and counted it invalid. */
static void test_jumbo_frame(void **unused)
{
	static const uint8_t mac[6] = {0x0c, 0x42, 0xa1, 0x00, 0x00, 0x01};
	uint8_t org[500];
	struct lldp_frame f;
	struct run r;

	(void)unused;
	memset(org, 0x5a, sizeof(org));
	org[0] = 0x00, org[1] = 0x12, org[2] = 0x0f; /* an OUI, then its subtype and data */
	run_init(&r);
	lf_start(&f);
	lf_id(&f, 1, 4, mac, sizeof(mac));
	lf_id(&f, 2, 5, "Ethernet1/7", 11);
	lf_ttl(&f, 120);
	for (int i = 0; i < 4; i++)
		lf_tlv(&f, 127, org, sizeof(org));
	lf_tlv(&f, 4, "uplink to node", 14);
	lf_tlv(&f, 5, "leaf-sw-1", 9);
	lf_end(&f);
	assert_true(f.len > 2000);
	push(&r, &f);
	run_poll(&r);
	assert_line(r.text, COUNTER("rdma_lldp_frames_invalid_total", "0"));
	assert_line(r.text, SERIES("leaf-sw-1"));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neighbor_and_ttl),
		cmocka_unit_test(test_replaced_and_shutdown),
		cmocka_unit_test(test_bounded_table),
		cmocka_unit_test(test_garbage_counted),
		cmocka_unit_test(test_no_cap_net_raw),
		cmocka_unit_test(test_read_error_and_vanished_netdev),
		cmocka_unit_test(test_reads_bounded_per_call),
		cmocka_unit_test(test_junk_flood_drained),
		cmocka_unit_test(test_fake_neighbors_do_not_evict),
		cmocka_unit_test(test_distinct_ids_same_label),
		cmocka_unit_test(test_jumbo_frame),
		cmocka_unit_test(test_published_netdevs_bring_rescan_forward),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
