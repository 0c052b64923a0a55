// SPDX-License-Identifier: Apache-2.0
/*
 * Basic auth on the server's worker threads (http_auth.c): the places of
 * the bcrypt queue reserved for clients granted access recently.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "http/http.h"

/*
 * The last 2 of the 8 queue places are only for clients with a recent
 * grant (issue 29: a scraper whose grant lapsed queued with the guessers
 * and got 503).
 */
static void test_auth_queue_reserved(void **state)
{
	(void)state;
	assert_true(http_auth_queue_admits(0, false));
	assert_true(http_auth_queue_admits(5, false));
	assert_false(http_auth_queue_admits(6, false));
	assert_false(http_auth_queue_admits(7, false));
	assert_true(http_auth_queue_admits(6, true));
	assert_true(http_auth_queue_admits(7, true));
	assert_false(http_auth_queue_admits(8, true));
	assert_false(http_auth_queue_admits(8, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auth_queue_reserved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
