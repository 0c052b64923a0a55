/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systemd integration: notifications, the watchdog and socket activation.
 * Without libsystemd (or not under systemd) every call is a no-op: no
 * notification is sent, no watchdog is asked for and no socket is passed.
 */
#ifndef RDMA_EXPORTER_SDNOTIFY_H
#define RDMA_EXPORTER_SDNOTIFY_H

#include <stddef.h>
#include <stdint.h>

void notify_ready(void);
void notify_reloading(void);
void notify_stopping(void);
void notify_watchdog(void);
/* STATUS=<text>, shown by `systemctl status`. */
void notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The listening socket systemd passed (socket activation): the fd (>= 3), 0 when
 * none was passed, or -EINVAL with the reason in err when more than one was
 * passed or it is not a listening stream socket. Unsets LISTEN_FDS.
 */
int notify_listen_fd(char *err, size_t errlen);

/*
 * The watchdog interval systemd asked of this process (WatchdogSec=, through
 * WATCHDOG_USEC and WATCHDOG_PID) in microseconds: 0 when none, or -EINVAL
 * with the reason in err when the variables are malformed.
 */
int64_t notify_watchdog_usec(char *err, size_t errlen);

/*
 * Pure policy: how often, in ms, to send WATCHDOG=1 for a watchdog of
 * watchdog_usec (0: none, and 0 is returned): a quarter of it, so that a ping
 * late by a scheduling hiccup still lands well inside the window systemd
 * allows (sd_watchdog_enabled(3) asks for at least every half). At least 1.
 * The poller sends these pings from its sleep between polls as well as after
 * each poll, so any --poll.interval works with any WatchdogSec=; only a single
 * poll (or reload) that runs longer than WatchdogSec= starves it.
 */
uint64_t notify_watchdog_ping_ms(uint64_t watchdog_usec);

#endif
