/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The ethtool collector's real seams: an ethtool ioctl socket and an ethtool
 * netlink handle (DCB over rtnetlink, module EEPROM pages), opened once and
 * owned by the io handle, closed by the seams' free_io.
 */
#ifndef RDMA_EXPORTER_ETHTOOL_REAL_H
#define RDMA_EXPORTER_ETHTOOL_REAL_H

#include "ethtool_seams.h"

/* Opens the socket and the netlink handle and fills out: 0, or -errno (the
 * socket's error, -ENOMEM) with nothing left open. */
int ethtool_real_seams(struct ethtool_seams *out);

#endif
