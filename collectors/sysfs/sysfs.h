/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sysfs collector: device and port attributes and every counter file
 * under <sysfs>/class/infiniband/<dev>/ (ports/N/counters, counters_ext,
 * hw_counters and the device-level hw_counters), whatever the driver.
 *
 * Families: rdma_device_info, rdma_port_info, rdma_port_netdev_info,
 * rdma_port_state, rdma_port_phys_state, rdma_port_rate_bytes_per_second,
 * rdma_port_lid, rdma_port_sm_lid, rdma_port_sm_sl, the well-known counters of sysfs_names.h,
 * and rdma_port_statistic_total / rdma_device_statistic_total for the rest;
 * rdma_port_statistic_saturated for narrow PMA counters at their maximum;
 * the PCIe link and AER families rdma_device_pcie_* of the device's PCI
 * function (sysfs_pcie_parse.h); rdma_device_responsive, and the reader threads'
 * rdma_exporter_sysfs_*.
 *
 * Devices are read by a few reader threads (sysfs_pool.h), each device within
 * the device deadline (--collector.sysfs.device-timeout): a device whose reads
 * block is reported unresponsive while the others are read on time.
 *
 * ctx->rescan_interval_s <= 0 re-scans at every poll. reload() only sets a
 * flag: the next collect() closes every fd and scans again, so reload() may
 * be called from any thread.
 */
#ifndef RDMA_EXPORTER_SYSFS_H
#define RDMA_EXPORTER_SYSFS_H

#include "collector.h"
#include "rdmanl/netlink_sock.h"

extern const struct collector_ops sysfs_collector_ops;

/* Indexes of the collector's own flags in collector_ctx.flags. */
enum {
	SYSFS_FLAG_HW_COUNTERS_NETLINK, /* --collector.sysfs.hw-counters-netlink, bool */
	SYSFS_FLAG_DEVICE_TIMEOUT,	/* --collector.sysfs.device-timeout, ms; 0: derived */
	SYSFS_FLAG_READERS,		/* --collector.sysfs.readers */
	SYSFS_FLAG_COUNT,
};

/* Reader threads by default: a few, whatever the number of devices (hundreds
 * of SR-IOV functions must not mean hundreds of threads). */
#define SYSFS_READERS_DEFAULT 4
/* Reader threads blocked in an unresponsive device that are replaced; past
 * that the pool shrinks (never more than readers + this many threads). */
#define SYSFS_BLOCKED_READERS_MAX 8
/* A device with a RoCE port that names no netdev yet is re-checked five
 * times as often as --collector.sysfs.rescan-interval says, at most this
 * often (sysfs_refresh.c keep_device()). */
#define SYSFS_NETDEV_RECHECK_S 60.0
/* Bounds of the derived device deadline. */
#define SYSFS_DEVICE_TIMEOUT_MIN_MS 500
#define SYSFS_DEVICE_TIMEOUT_MAX_MS 5000
/* The least deadline of a retry (sysfs_retry_timeout_ms()). */
#define SYSFS_RETRY_TIMEOUT_MIN_MS 100

/*
 * The device deadline in ms: flag_ms when given, else half the collector's
 * deadline (collector_timeout_ms) or a quarter of the poll interval, within
 * 500ms..5s; always below collector_timeout_ms when that is set (then at most
 * half of it). Pure.
 */
uint64_t sysfs_device_timeout_ms(uint64_t flag_ms, uint64_t collector_timeout_ms,
				 uint64_t poll_interval_ms);

/*
 * The deadline of a hung device's retry: a device that did not answer, tried
 * again once its late read has returned, when that read took longer than the
 * device deadline (a slow device that works keeps the device deadline). An
 * eighth of the device deadline, at least SYSFS_RETRY_TIMEOUT_MIN_MS, never
 * more than the device deadline: each late read of a hung device returns only
 * at a firmware timeout, and waiting the whole deadline for each retry would
 * stretch the poll, and the poller's idea of its cost, every time. Pure.
 */
uint64_t sysfs_retry_timeout_ms(uint64_t device_timeout_ms);

struct sysfs_file;
/* Reads value file f of directory dir, as sysfs_file_read() (sysfs_scan.h). */
typedef int (*sysfs_read_fn)(void *data, int root, const char *dir, struct sysfs_file *f, char *buf,
			     size_t size);

/*
 * Outside inputs besides the sysfs root. open_transport: the RDMA netlink
 * transport for hw counters (NULL: read the files), opened by each reader
 * thread for itself. The real init uses nl_socket_open only when the sysfs
 * path is /sys: netlink describes the running kernel, which a fixture or
 * another root does not. read: the per-poll read of a value file, called on
 * the reader threads (NULL: sysfs_file_read()).
 */
struct sysfs_seams {
	nl_transport_open_fn open_transport;
	void *open_data;
	sysfs_read_fn read;
	void *read_data;
};

/* init() with the given seams. */
int sysfs_collector_init_with(const struct collector_ctx *ctx, const struct sysfs_seams *seams,
			      void **state);

#endif
