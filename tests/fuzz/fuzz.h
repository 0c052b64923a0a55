/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every fuzz target shares: the libFuzzer entry point's prototype (the
 * targets are built with -Wmissing-prototypes) and FUZZ_CHECK, which aborts on
 * a broken invariant so that libFuzzer (and the replay under ctest) reports it
 * as a crash with the input that caused it. Targets print nothing otherwise.
 */
#ifndef RDMA_EXPORTER_FUZZ_H
#define RDMA_EXPORTER_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Whether all N bytes at P are 0 (a parser that fails leaves its output zeroed). */
static inline int fuzz_all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return 0;
	return 1;
}

/* A NUL-terminated heap copy of the input (for the parsers that take C strings;
 * the copy ends at the first NUL byte of the input). NULL only on ENOMEM. */
static inline char *fuzz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return NULL;
	for (size_t i = 0; i < size; i++)
		s[i] = (char)data[i];
	s[size] = '\0';
	return s;
}

#endif
