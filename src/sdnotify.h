/* SPDX-License-Identifier: Apache-2.0 */
/* systemd notifications; no-ops when built without libsystemd or not under systemd. */
#ifndef RDMA_EXPORTER_SDNOTIFY_H
#define RDMA_EXPORTER_SDNOTIFY_H

void notify_ready(void);
void notify_reloading(void);
void notify_stopping(void);
void notify_watchdog(void);

#endif
