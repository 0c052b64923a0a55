// SPDX-License-Identifier: Apache-2.0
#include "daemon/sdnotify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

/* A STATUS= line is one short sentence; longer text is cut. */
#define STATUS_MAX 256

uint64_t notify_watchdog_ping_ms(uint64_t watchdog_usec)
{
	uint64_t ms = watchdog_usec / 4000;

	if (watchdog_usec == 0)
		return 0;
	return ms ? ms : 1;
}

#ifdef HAVE_LIBSYSTEMD
#include <sys/socket.h>
#include <systemd/sd-daemon.h>

void notify_ready(void)
{
	sd_notify(0, "READY=1");
}

void notify_reloading(void)
{
	sd_notify(0, "RELOADING=1");
}

void notify_stopping(void)
{
	sd_notify(0, "STOPPING=1");
}

void notify_watchdog(void)
{
	sd_notify(0, "WATCHDOG=1");
}

void notify_status(const char *fmt, ...)
{
	char msg[STATUS_MAX];
	va_list ap;
	int n;

	n = snprintf(msg, sizeof(msg), "STATUS=");
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	sd_notify(0, msg);
}

int notify_listen_fd(char *err, size_t errlen)
{
	/* 1: unset LISTEN_FDS and LISTEN_PID so that no child inherits them */
	int n = sd_listen_fds(1);

	if (n <= 0)
		return 0;
	if (n > 1) {
		snprintf(err, errlen,
			 "socket activation passed %d sockets; rdma_exporter serves one (one "
			 "ListenStream= in the .socket unit)",
			 n);
		return -EINVAL;
	}
	if (sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
		snprintf(err, errlen,
			 "socket activation passed an fd that is not a listening stream socket");
		return -EINVAL;
	}
	return SD_LISTEN_FDS_START;
}

int64_t notify_watchdog_usec(char *err, size_t errlen)
{
	uint64_t usec = 0;
	int r = sd_watchdog_enabled(0, &usec);

	if (r < 0) {
		snprintf(err, errlen, "invalid WATCHDOG_USEC or WATCHDOG_PID in the environment");
		return -EINVAL;
	}
	if (r == 0 || usec > INT64_MAX)
		return 0;
	return (int64_t)usec;
}
#else
void notify_ready(void)
{
}

void notify_reloading(void)
{
}

void notify_stopping(void)
{
}

void notify_watchdog(void)
{
}

void notify_status(const char *fmt, ...)
{
}

int notify_listen_fd(char *err, size_t errlen)
{
	return 0;
}

int64_t notify_watchdog_usec(char *err, size_t errlen)
{
	return 0;
}
#endif
