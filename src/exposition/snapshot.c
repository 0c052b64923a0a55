// SPDX-License-Identifier: Apache-2.0
#include "exposition/snapshot.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

struct snapshot {
	unsigned refs; /* atomic */
	char *text;
	size_t len;
	char *gz; /* NULL: not compressed */
	size_t gz_len;
	char *pb; /* NULL: no protobuf exposition */
	size_t pb_len;
	char *pb_gz;
	size_t pb_gz_len;
	uint64_t created_ms;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

uint64_t snapshot_age_ms(const struct snapshot *s)
{
	return mono_ms() - s->created_ms;
}

struct snapshot *snapshot_new(char *text, size_t len)
{
	struct snapshot *s = calloc(1, sizeof(*s));

	if (!s) {
		free(text);
		return NULL;
	}
	s->refs = 1;
	s->text = text;
	s->len = len;
	s->created_ms = mono_ms();
	return s;
}

struct snapshot *snapshot_ref(struct snapshot *s)
{
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
	return s;
}

void snapshot_unref(struct snapshot *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	free(s->text);
	free(s->gz);
	free(s->pb);
	free(s->pb_gz);
	free(s);
}

const char *snapshot_text(const struct snapshot *s, size_t *len)
{
	*len = s->len;
	return s->text;
}

void snapshot_drop_text(struct snapshot *s)
{
	if (!s->gz)
		return;
	free(s->text);
	s->text = NULL;
}

char *snapshot_text_copy(const struct snapshot *s, size_t *len)
{
	char *out = malloc(s->len ? s->len : 1);

	*len = s->len;
	if (!out)
		return NULL;
	if (s->text) {
		memcpy(out, s->text, s->len);
		return out;
	}
	if (!s->gz || gzip_decompress(s->gz, s->gz_len, out, s->len) < 0) {
		free(out);
		return NULL;
	}
	return out;
}

int gzip_decompress(const char *in, size_t len, char *out, size_t out_len)
{
	z_stream zs = {0};
	int r;

	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out;
	zs.avail_out = (uInt)out_len;
	r = inflate(&zs, Z_FINISH);
	if (r == Z_BUF_ERROR && zs.avail_out == 0 && zs.avail_in > 0)
		r = Z_DATA_ERROR; /* more than out_len */
	inflateEnd(&zs);
	if (r == Z_MEM_ERROR)
		return -ENOMEM;
	return r == Z_STREAM_END && zs.total_out == out_len ? 0 : -EINVAL;
}

char *gzip_compress(const char *in, size_t len, size_t *out_len)
{
	z_stream zs = {0};
	uLong bound;
	char *out, *shrunk;
	int r;

	/*
	 * windowBits 15 + 16 selects the gzip wrapper. Level 1: the exposition
	 * is repetitive enough that it still shrinks 11 times (level 6: 14), at
	 * a third of the CPU; level 6 was a quarter of a poll's CPU on the
	 * 16-device bench tree (docs/performance.md).
	 */
	if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	bound = deflateBound(&zs, (uLong)len);
	out = malloc(bound);
	if (!out) {
		deflateEnd(&zs);
		return NULL;
	}
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out;
	zs.avail_out = (uInt)bound;
	r = deflate(&zs, Z_FINISH);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	if (r != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	/* the bound is the input's size, the output a tenth of it: keep that */
	shrunk = realloc(out, *out_len ? *out_len : 1);
	return shrunk ? shrunk : out;
}

int snapshot_compress(struct snapshot *s)
{
	free(s->gz);
	s->gz = gzip_compress(s->text, s->len, &s->gz_len);
	free(s->pb_gz);
	s->pb_gz = s->pb ? gzip_compress(s->pb, s->pb_len, &s->pb_gz_len) : NULL;
	return s->gz && (s->pb_gz || !s->pb) ? 0 : -ENOMEM;
}

void snapshot_set_proto(struct snapshot *s, char *bytes, size_t len)
{
	free(s->pb);
	free(s->pb_gz);
	s->pb_gz = NULL;
	s->pb = bytes;
	s->pb_len = bytes ? len : 0;
}

const char *snapshot_proto(const struct snapshot *s, size_t *len)
{
	*len = s->pb_len;
	return s->pb;
}

const char *snapshot_proto_gzip(const struct snapshot *s, size_t *len)
{
	*len = s->pb_gz ? s->pb_gz_len : 0;
	return s->pb_gz;
}

const char *snapshot_gzip(const struct snapshot *s, size_t *len)
{
	*len = s->gz ? s->gz_len : 0;
	return s->gz;
}

void snapshot_slot_init(struct snapshot_slot *slot)
{
	pthread_mutex_init(&slot->lock, NULL);
	slot->current = NULL;
}

void snapshot_slot_destroy(struct snapshot_slot *slot)
{
	snapshot_unref(slot->current);
	slot->current = NULL;
	pthread_mutex_destroy(&slot->lock);
}

void snapshot_slot_publish(struct snapshot_slot *slot, struct snapshot *s)
{
	struct snapshot *old;

	pthread_mutex_lock(&slot->lock);
	old = slot->current;
	slot->current = s;
	pthread_mutex_unlock(&slot->lock);
	snapshot_unref(old);
}

struct snapshot *snapshot_slot_get(struct snapshot_slot *slot)
{
	struct snapshot *s;

	pthread_mutex_lock(&slot->lock);
	s = snapshot_ref(slot->current);
	pthread_mutex_unlock(&slot->lock);
	return s;
}
