// SPDX-License-Identifier: Apache-2.0
#include "base/strparse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/chars.h"

void str_trim(const char **s, size_t *len)
{
	while (*len && ascii_is_space(**s)) {
		(*s)++;
		(*len)--;
	}
	while (*len && ascii_is_space((*s)[*len - 1]))
		(*len)--;
}

static int parse_u64_base(const char *s, size_t len, unsigned base, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int d = ascii_hex_value(s[i]);

		if (d < 0 || (unsigned)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int parse_u64_dec(const char *s, size_t len, uint64_t *out)
{
	return parse_u64_base(s, len, 10, out);
}

int parse_u64_auto(const char *s, size_t len, uint64_t *out)
{
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_u64_base(s + 2, len - 2, 16, out);
	return parse_u64_base(s, len, 10, out);
}

int parse_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int parse_listen_address(const char *addr, char *host, size_t hostlen, uint16_t *port)
{
	const char *colon, *hstart = addr;
	size_t hlen;
	uint64_t p;

	if (!addr)
		return -EINVAL;
	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		hstart = addr + 1;
		hlen = (size_t)(close - hstart);
		colon = close + 1;
		if (hlen == 0)
			return -EINVAL;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -EINVAL;
		hlen = (size_t)(colon - addr);
		/* a bare IPv6 address needs brackets */
		if (memchr(addr, ':', hlen))
			return -EINVAL;
	}
	if (hlen >= hostlen)
		return -EINVAL;
	if (parse_u64_dec(colon + 1, strlen(colon + 1), &p) < 0 || p == 0 || p > 65535)
		return -EINVAL;
	memcpy(host, hstart, hlen);
	host[hlen] = '\0';
	*port = (uint16_t)p;
	return 0;
}
