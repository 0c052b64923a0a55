// SPDX-License-Identifier: Apache-2.0
#include "sdnotify.h"

#ifdef HAVE_LIBSYSTEMD
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
#endif
