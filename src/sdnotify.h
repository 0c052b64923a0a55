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
 * Pure policy: the poller pings once per poll, so a watchdog shorter than two
 * poll intervals would kill a healthy exporter whose poll runs a little long.
 * 0 when watchdog_usec (0: no watchdog) fits poll_interval_ms, else -ERANGE
 * with the reason in err.
 */
int notify_watchdog_check(uint64_t watchdog_usec, uint64_t poll_interval_ms, char *err,
			  size_t errlen);

#endif
