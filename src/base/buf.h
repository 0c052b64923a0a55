/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Room base (src/base/): the building blocks every other room uses, on libc
 * alone: this buffer, checked number and address parsing (strparse.h),
 * logfmt/JSON logging (log.h), clocks, file opening (fileio.h), the device
 * filter and the netdev set. Nothing here includes another room.
 *
 * A growable byte buffer. Functions return 0 or -ENOMEM; once an append
 * fails the buffer keeps what it had and further appends fail too, so a
 * caller may append many pieces and check buf_failed() once at the end.
 */
#ifndef RDMA_EXPORTER_BUF_H
#define RDMA_EXPORTER_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf {
	char *data; /* always NUL-terminated when non-NULL */
	size_t len;
	size_t cap;
	bool failed;
};

#define BUF_INIT                                                                                   \
	{                                                                                          \
		0                                                                                  \
	}

int buf_reserve(struct buf *b, size_t extra);
/* buf_append() when the buffer must grow first. */
int buf_append_grow(struct buf *b, const void *data, size_t len);

/* Inline: the exposition writer appends a few pieces per sample, thousands
 * of samples a poll, nearly always into room it already has; only growing
 * the buffer is a call. */
static inline int buf_append(struct buf *b, const void *data, size_t len)
{
	if (b->failed || len >= b->cap - b->len || !b->data)
		return buf_append_grow(b, data, len);
	if (len)
		__builtin_memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

static inline int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, __builtin_strlen(s));
}

static inline int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}
/* v in decimal: what "%llu" prints, without printf's parsing per sample. */
int buf_put_u64(struct buf *b, uint64_t v);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void buf_reset(struct buf *b);
/* Hands the data over to the caller (free() it) and leaves the buffer empty. */
char *buf_steal(struct buf *b, size_t *len);
void buf_free(struct buf *b);

static inline bool buf_failed(const struct buf *b)
{
	return b->failed;
}

#endif
