// SPDX-License-Identifier: Apache-2.0
/* systemd integration: the watchdog policy, and no socket passed outside systemd. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sdnotify.h"

static void test_watchdog_check(void **state)
{
	char err[256] = "";

	/* no watchdog: any interval */
	assert_int_equal(notify_watchdog_check(0, 24ULL * 3600 * 1000, err, sizeof(err)), 0);
	/* exactly twice the interval is enough */
	assert_int_equal(notify_watchdog_check(10000000, 5000, err, sizeof(err)), 0);
	assert_int_equal(notify_watchdog_check(60000000, 5000, err, sizeof(err)), 0);
	assert_int_equal(notify_watchdog_check(9999999, 5000, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "--poll.interval=5000ms is too long"));
	assert_non_null(strstr(err, "WatchdogSec=9999ms"));
	assert_int_equal(notify_watchdog_check(60000000, 60000, err, sizeof(err)), -ERANGE);
	/* the longest interval the flag allows, with a small buffer */
	assert_int_equal(notify_watchdog_check(1, 24ULL * 3600 * 1000, err, 8), -ERANGE);
	assert_int_equal(strlen(err), 7);
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
		cmocka_unit_test(test_watchdog_check),
		cmocka_unit_test(test_no_socket_passed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
