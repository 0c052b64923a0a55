/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A port's hw counters with one RDMA netlink request (RDMA_NLDEV_CMD_STAT_GET)
 * instead of one read per file under ports/N/hw_counters/. The kernel fills
 * both from the same driver callback and the same sum (the port's value plus
 * the counters bound to QPs), so the values are the same numbers.
 *
 * sysfs_hwnl_attach() runs at scan time: it finds the device's netlink index,
 * asks for the port's counters once and maps every hw_counters file of the
 * port to its entry in the reply by name; a port whose files do not all have
 * an entry stays on the files. sysfs_hwnl_poll() asks again each poll. On
 * any failure the caller reads the files. Nothing here logs.
 */
#ifndef RDMA_EXPORTER_SYSFS_HWNL_H
#define RDMA_EXPORTER_SYSFS_HWNL_H

#include <stdint.h>

#include "rdmanl/netlink_sock.h"
#include "sysfs_scan.h"

struct sysfs_hwnl;

/* open NULL: never used (every call fails with -EOPNOTSUPP). */
struct sysfs_hwnl *sysfs_hwnl_new(nl_transport_open_fn open, void *open_data, int timeout_ms);
void sysfs_hwnl_free(struct sysfs_hwnl *h);

/*
 * Maps port p of dev to the reply of one STAT_GET: sets p->hw_nl and each
 * hw_counters counter's nl_pos. Returns 0, -EOPNOTSUPP (no netlink path),
 * -ENODEV (no device of that name over netlink), -ENOENT (a file without an
 * entry of its name: *missing names it, borrowed from the port), -ENOMEM,
 * or the request's -errno.
 */
int sysfs_hwnl_attach(struct sysfs_hwnl *h, struct sysfs_device *dev, struct sysfs_port *p,
		      const char **missing);

/*
 * One STAT_GET of an attached port. Returns 0 and the values in the reply,
 * read with sysfs_hwnl_value(), or -errno (-ESTALE: an entry no longer has
 * the name it had at attach).
 */
int sysfs_hwnl_poll(struct sysfs_hwnl *h, const struct sysfs_device *dev,
		    const struct sysfs_port *p);
/* The value of counter c from the last successful sysfs_hwnl_poll(). */
uint64_t sysfs_hwnl_value(const struct sysfs_hwnl *h, const struct sysfs_counter *c);

/* Requests made (device dumps and STAT_GETs), for the VM test's figures. */
uint64_t sysfs_hwnl_requests(const struct sysfs_hwnl *h);

#endif
