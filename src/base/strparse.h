/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Checked number parsing (never atoi). Pure: no I/O, no logging.
 * All return 0 or -EINVAL (not a number / trailing junk) or -ERANGE.
 */
#ifndef RDMA_EXPORTER_STRPARSE_H
#define RDMA_EXPORTER_STRPARSE_H

#include <stddef.h>
#include <stdint.h>

/* Decimal digits only, no sign, no whitespace. */
int parse_u64_dec(const char *s, size_t len, uint64_t *out);
/* Decimal, or hex with a 0x/0X prefix. */
int parse_u64_auto(const char *s, size_t len, uint64_t *out);
/* Trims ASCII whitespace at both ends of [*s, *s+*len). */
void str_trim(const char **s, size_t *len);
/* A parser's error: the message formatted into err (errlen bytes); returns -EINVAL. */
int parse_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Splits a listen address, "host:port", ":port" or "[v6]:port", into host
 * (empty: any) and port (1 to 65535). Returns 0 or -EINVAL.
 */
int parse_listen_address(const char *addr, char *host, size_t hostlen, uint16_t *port);

#endif
