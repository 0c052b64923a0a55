// SPDX-License-Identifier: Apache-2.0
/* systemd integration: the watchdog ping period, and no socket passed outside systemd. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/sdnotify.h"

static void test_watchdog_ping_ms(void **state)
{
	/* no watchdog: no pings between polls */
	assert_int_equal(notify_watchdog_ping_ms(0), 0);
	/* a quarter of WatchdogSec=, whatever the poll interval */
	assert_int_equal(notify_watchdog_ping_ms(60000000), 15000);
	assert_int_equal(notify_watchdog_ping_ms(2000000), 500);
	assert_int_equal(notify_watchdog_ping_ms(1000), 1);
	/* never 0 (a busy loop) for a tiny watchdog */
	assert_int_equal(notify_watchdog_ping_ms(1), 1);
	assert_int_equal(notify_watchdog_ping_ms(UINT64_MAX), UINT64_MAX / 4000);
}

static void test_no_socket_passed(void **state)
{
	char err[128] = "";

	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
	assert_int_equal(notify_listen_fd(err, sizeof(err)), 0);
	unsetenv("WATCHDOG_USEC");
	assert_int_equal(notify_watchdog_usec(err, sizeof(err)), 0);
	/* another process's socket: not ours */
	setenv("LISTEN_FDS", "1", 1);
	setenv("LISTEN_PID", "1", 1);
	assert_int_equal(notify_listen_fd(err, sizeof(err)), 0);
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_PID");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_watchdog_ping_ms),
		cmocka_unit_test(test_no_socket_passed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
