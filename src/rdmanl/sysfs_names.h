/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Well-known sysfs counters: file name -> metric family, unit and HELP.
 * Anything not in this table is still exported, under the generic family
 * rdma_port_statistic_total{device,port,source,counter} (or
 * rdma_device_statistic_total{device,source,counter} at device level).
 * The sysfs collector exports by it; the netlink collector maps the hw
 * counters it reads to the same families with it, so the table is in room
 * rdmanl (src/rdmanl/, nldev_parse.h), below both. Constant data: any thread;
 * the entries returned are static.
 */
#ifndef RDMA_EXPORTER_SYSFS_NAMES_H
#define RDMA_EXPORTER_SYSFS_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "exposition/metrics.h"

/* The directory a counter file was found in. */
enum sysfs_counter_source {
	SYSFS_SRC_COUNTERS = 1u << 0,	     /* ports/N/counters/ (IB PortCounters via PMA) */
	SYSFS_SRC_COUNTERS_EXT = 1u << 1,    /* ports/N/counters_ext/ (mlx4 extended) */
	SYSFS_SRC_HW_COUNTERS = 1u << 2,     /* ports/N/hw_counters/ (driver specific) */
	SYSFS_SRC_DEV_HW_COUNTERS = 1u << 3, /* <dev>/hw_counters/ (device level) */
};

struct sysfs_counter_name {
	const char *file;    /* file name inside the directory */
	unsigned sources;    /* OR of sysfs_counter_source where the name has this meaning */
	const char *metric;  /* family name, e.g. rdma_port_data_received_bytes_total */
	const char *help;    /* HELP text: what it counts, its unit, driver notes */
	uint32_t multiplier; /* raw value * multiplier = exported value (4 for octets/4) */
	enum metric_type type;
	/* When two files of one port map to the same metric, the higher priority
	 * is exported under the named family and the other one goes to the
	 * generic family (e.g. counters_ext/port_rcv_data_64 beats
	 * counters/port_rcv_data). */
	uint8_t priority;
	/*
	 * Width in bits of a counter that saturates (stops at 2^bits - 1
	 * instead of wrapping, as IB PMA PortCounters do); 0: 64 bits, or a
	 * counter that wraps. ext_64: 64 bits instead where the PMA has
	 * PortCountersExtended (the port's counters/ then has unicast_*).
	 */
	uint8_t bits;
	bool ext_64;
};

/* NULL when the name is not well known for that source. */
const struct sysfs_counter_name *sysfs_counter_lookup(const char *file, unsigned source);

/*
 * Files in a counter directory that are settings, not counters (hw_counters
 * "lifespan": the driver's cache lifetime in ms). They are never exported as
 * counters.
 */
bool sysfs_counter_is_setting(const char *file, unsigned source);

/*
 * The value at which counter n of the given source stops (2^bits - 1), or 0
 * when it does not saturate. pma_ext: the port's counters/ has the
 * PortCountersExtended group (sysfs_port.pma_ext). Pure.
 */
uint64_t sysfs_counter_max(const struct sysfs_counter_name *n, unsigned source, bool pma_ext);

/* The table itself, for tests (e.g. check every name is a valid metric name). */
extern const struct sysfs_counter_name sysfs_counter_names[];
extern const unsigned sysfs_counter_names_len;

#endif
