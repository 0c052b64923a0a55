/* SPDX-License-Identifier: Apache-2.0 */
/* Clock readings shared by the poller and the collectors (CLOCK_MONOTONIC unless named wall). */
#ifndef RDMA_EXPORTER_CLOCK_H
#define RDMA_EXPORTER_CLOCK_H

#include <stdint.h>

uint64_t clock_mono_ns(void);
uint64_t clock_mono_ms(void);
double clock_mono_s(void);
/* CLOCK_REALTIME in seconds, for timestamps shown to people. */
double clock_wall_s(void);

#endif
