// SPDX-License-Identifier: Apache-2.0
#include "base/buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int buf_reserve(struct buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->failed)
		return -ENOMEM;
	if (extra > SIZE_MAX - b->len - 1)
		goto fail;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return 0;
fail:
	b->failed = true;
	return -ENOMEM;
}

int buf_append_grow(struct buf *b, const void *data, size_t len)
{
	if (buf_reserve(b, len) < 0)
		return -ENOMEM;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_put_u64(struct buf *b, uint64_t v)
{
	char d[20]; /* 18446744073709551615 */
	size_t i = sizeof(d);

	do {
		d[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return buf_append(b, d + i, sizeof(d) - i);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	if (b->failed)
		return -ENOMEM;
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -EINVAL;
	if (buf_reserve(b, (size_t)n) < 0)
		return -ENOMEM;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->failed = false;
	if (b->data)
		b->data[0] = '\0';
}

char *buf_steal(struct buf *b, size_t *len)
{
	char *p = b->data;

	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
	return p;
}

void buf_free(struct buf *b)
{
	if (!b)
		return;
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->failed = false;
}
