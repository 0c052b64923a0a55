/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Big-endian field access for the probe's wire formats (probe_packet.c,
 * probe_discovery.c): byte by byte, so no alignment is needed and no host
 * byte order is assumed.
 */
#ifndef RDMA_EXPORTER_PROBE_WIRE_H
#define RDMA_EXPORTER_PROBE_WIRE_H

#include <stdint.h>

/* Writes the low n bytes (1..8) of v at b, most significant first. */
static inline void put_be(uint8_t *b, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Reads n bytes (1..8) at b as a big-endian number. */
static inline uint64_t get_be(const uint8_t *b, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

#endif
