// SPDX-License-Identifier: Apache-2.0
/* The ASCII character classes (base/chars.h), over every byte. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/chars.h"

/* In the C locale the classes are <ctype.h>'s for ASCII; bytes from 0x80 up
 * are in none, whatever the sign of char. */
static void test_classes_match_ctype(void **state)
{
	for (int i = 0; i < 256; i++) {
		char c = (char)i;
		bool ascii = i < 0x80;

		assert_int_equal(ascii_is_digit(c), ascii && isdigit(i));
		assert_int_equal(ascii_is_alpha(c), ascii && isalpha(i));
		assert_int_equal(ascii_is_alnum(c), ascii && isalnum(i));
		assert_int_equal(ascii_is_space(c), ascii && isspace(i));
		assert_int_equal(ascii_is_blank(c), ascii && isblank(i));
		assert_int_equal(ascii_is_lower_hex(c), ascii && isxdigit(i) && !isupper(i));
		if (ascii && isxdigit(i))
			assert_int_equal(ascii_hex_value(c),
					 isdigit(i) ? i - '0' : tolower(i) - 'a' + 10);
		else
			assert_int_equal(ascii_hex_value(c), -1);
	}
}

static void test_digit_runs(void **state)
{
	const char *s = "0123x9";

	assert_int_equal(ascii_count_digits(s, strlen(s)), 4);
	assert_int_equal(ascii_count_digits(s, 2), 2);
	assert_int_equal(ascii_count_digits("x1", 2), 0);
	assert_int_equal(ascii_count_digits("", 0), 0);
	assert_ptr_equal(ascii_skip_digits(s), s + 4);
	assert_ptr_equal(ascii_skip_digits(s + 4), s + 4);
	assert_int_equal(*ascii_skip_digits("42"), '\0');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_match_ctype),
		cmocka_unit_test(test_digit_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
