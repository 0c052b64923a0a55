/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ASCII character classes, as the parsers of this tree need them: never the
 * locale's (isdigit() and friends follow setlocale() and take an int that
 * must not be a negative char). Bytes from 0x80 up belong to no class here.
 * Pure, header-only: inline functions, any thread.
 */
#ifndef RDMA_EXPORTER_CHARS_H
#define RDMA_EXPORTER_CHARS_H

#include <stdbool.h>
#include <stddef.h>

/* 0-9 */
static inline bool ascii_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* a-z, A-Z */
static inline bool ascii_is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* a-z, A-Z, 0-9 */
static inline bool ascii_is_alnum(char c)
{
	return ascii_is_alpha(c) || ascii_is_digit(c);
}

/* 0-9, a-f: hex as the kernel prints it (%x) */
static inline bool ascii_is_lower_hex(char c)
{
	return ascii_is_digit(c) || (c >= 'a' && c <= 'f');
}

/* The value of a hex digit (either case), or -1. */
static inline int ascii_hex_value(char c)
{
	if (ascii_is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* C's whitespace: space, \t, \n, \r, \v, \f */
static inline bool ascii_is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Blanks within a line: space and \t */
static inline bool ascii_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* How many of the first len bytes of s are digits, from the start. */
static inline size_t ascii_count_digits(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && ascii_is_digit(s[i]))
		i++;
	return i;
}

/* The first byte at or after p, a NUL-terminated string, that is not a digit. */
static inline const char *ascii_skip_digits(const char *p)
{
	while (ascii_is_digit(*p))
		p++;
	return p;
}

#endif
