/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The LLDP collector's only I/O on the wire: a receive-only AF_PACKET socket
 * per netdev. It never sends. The socket is bound to ETH_P_LLDP on one
 * interface, carries a classic BPF filter that passes only untagged LLDP
 * frames (ethertype 0x88cc) to the three LLDP multicast addresses, and joins
 * those addresses with PACKET_ADD_MEMBERSHIP (PACKET_MR_MULTICAST) so that
 * the NIC's multicast filter lets them in: no promiscuous mode. Needs
 * CAP_NET_RAW (socket() fails with EPERM without it).
 *
 * The receive buffer asks for LLDP_SOCK_RCVBUF bytes (SO_RCVBUFFORCE where
 * CAP_NET_ADMIN allows, else SO_RCVBUF, which the kernel caps at
 * net.core.rmem_max): junk frames between two polls must not fill it and
 * crowd out the switch's frame (issue 42).
 */
#ifndef RDMA_EXPORTER_LLDP_SOCK_H
#define RDMA_EXPORTER_LLDP_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LLDP_SOCK_RCVBUF (1 << 20)

/* Opens the socket for netdev ifname (non-blocking, O_CLOEXEC): the fd, or
 * -errno (-EPERM without CAP_NET_RAW, -ENODEV when there is no such netdev). */
int lldp_sock_open(const char *ifname);

/*
 * One received frame (never one this host sent) into buf: its length, or
 * -EAGAIN when none is waiting, or -errno (-ENETDOWN, -ENXIO: the netdev went
 * away). A frame longer than cap is cut (the length is then cap).
 */
ssize_t lldp_sock_recv(int fd, uint8_t *buf, size_t cap);

#endif
