/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --collector.probe.targets-dns=NAME[:PORT]: pingmesh peers from a DNS name
 * that resolves to many addresses (in Kubernetes, a headless Service over the
 * exporter's DaemonSet: its pods have their nodes' addresses). Pure: the flag
 * value and address lists in, a target list (probe_targets.h) out; no I/O,
 * no logging. The engine resolves the name (probe_dns_watch.c) and samples
 * the list as it does a targets file's.
 *
 * Addresses are 16 bytes, IPv4 as IPv4-mapped IPv6, as in probe_bind.h.
 */
#ifndef RDMA_EXPORTER_PROBE_DNS_H
#define RDMA_EXPORTER_PROBE_DNS_H

#include <stddef.h>
#include <stdint.h>

#include "probe_targets.h"

struct addrinfo;

/* Addresses of one answer kept at most; more are ignored (and counted). */
#define PROBE_DNS_MAX_ADDRS 4096

/*
 * Parses NAME[:PORT]: NAME a DNS name as a targets file's host (or an IP
 * literal, an IPv6 one in brackets), PORT 1..65535, 0 in *port when not
 * given. host has room for PROBE_TARGETS_MAX_HOST + 1 bytes. Returns 0, or
 * -EINVAL with why set.
 */
int probe_dns_parse(const char *s, char *host, uint16_t *port, char *why, size_t whylen);

/* The parser above as a config.h flag check: 0 or -EINVAL with why set. */
int probe_dns_check(const char *s, char *why, size_t whylen);

/*
 * The IPv4 and IPv6 addresses of a getaddrinfo answer, in answer order, at
 * most max to out; other families are skipped. Returns how many the answer
 * has (may exceed max: only max are written).
 */
size_t probe_dns_addrs(const struct addrinfo *ai, uint8_t (*out)[16], size_t max);

/*
 * The targets of an answer: its n addresses sorted by their 16 bytes (the
 * order does not change the sample, it makes logs stable), duplicates dropped, and those equal to
 * one of the n_own local addresses left out (this node probes itself in loopback). Each target is
 * "a.b.c.d[:port]" or "[v6][:port]" (port when non-zero), in one group without
 * labels, so that probe_targets_sample treats them as a file's. *excluded
 * (may be NULL) gets the number of own addresses left out. Returns 0, or
 * -ENOMEM; on error *out is empty.
 */
int probe_dns_targets(const uint8_t (*addrs)[16], size_t n, const uint8_t (*own)[16], size_t n_own,
		      uint16_t port, struct probe_target_list *out, size_t *excluded);

#endif
