/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An immutable, reference-counted rendering of one poll. The poller
 * publishes a new snapshot after every poll; HTTP requests take a reference
 * to the current one, so a scrape never waits on sysfs and never sees half
 * a poll. The poller also compresses it (snapshot_compress) before it
 * publishes it, so the HTTP thread only ever hands out bytes: a 10 MB
 * rendering takes over 100 ms to gzip, which would stall every other request.
 */
#ifndef RDMA_EXPORTER_SNAPSHOT_H
#define RDMA_EXPORTER_SNAPSHOT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapshot;

/* Takes ownership of text (malloc'ed). NULL on ENOMEM (text is freed). */
struct snapshot *snapshot_new(char *text, size_t len);
struct snapshot *snapshot_ref(struct snapshot *s);
void snapshot_unref(struct snapshot *s);

/* The text exposition; NULL (with its length in *len) once dropped. */
const char *snapshot_text(const struct snapshot *s, size_t *len);
/*
 * Frees the text when the gzip copy exists (snapshot_compress), so that a
 * snapshot only gzip clients read holds a tenth of the memory; a plain-text
 * client then gets snapshot_text_inflate(). Only before the snapshot is shared.
 */
void snapshot_drop_text(struct snapshot *s);
/* The text, from the kept one or inflated from the gzip copy: malloc'ed, or
 * NULL on ENOMEM. */
char *snapshot_text_copy(const struct snapshot *s, size_t *len);

/* What a /metrics request asked for (poller_note_scrape): the poller keeps
 * those forms in its next snapshots. */
#define SNAPSHOT_WANTS_PROTO 1u /* the protobuf exposition */
#define SNAPSHOT_WANTS_PLAIN 2u /* the text, not gzip-encoded */
/* Milliseconds since the snapshot was made (CLOCK_MONOTONIC). */
uint64_t snapshot_age_ms(const struct snapshot *s);
/*
 * Adds the protobuf exposition of the same poll (expo_proto.h), taking
 * ownership of bytes (malloc'ed; NULL with len 0 clears it). Only before the
 * snapshot is shared, like snapshot_compress(), which then compresses it too.
 */
void snapshot_set_proto(struct snapshot *s, char *bytes, size_t len);
/* The protobuf exposition, or NULL when there is none (len 0). */
const char *snapshot_proto(const struct snapshot *s, size_t *len);
/* Its gzip encoding, or NULL when snapshot_compress() did not make one. */
const char *snapshot_proto_gzip(const struct snapshot *s, size_t *len);

/*
 * Adds the gzip encoding of the text (and of the protobuf exposition). Only before the snapshot is
 * shared (published or referenced elsewhere): it is immutable from then on. 0 or -ENOMEM (the
 * snapshot stays valid, without gzip where it failed).
 */
int snapshot_compress(struct snapshot *s);
/* The gzip encoding, or NULL when snapshot_compress() was not run or failed. */
const char *snapshot_gzip(const struct snapshot *s, size_t *len);

/* Compresses in (gzip format). Pure; returns a malloc'ed buffer or NULL. */
char *gzip_compress(const char *in, size_t len, size_t *out_len);
/* Inflates in (gzip format) into out_len bytes, exactly that many. Pure;
 * -ENOMEM, or -EINVAL when in is not gzip of that length. */
int gzip_decompress(const char *in, size_t len, char *out, size_t out_len);

/* The slot the poller publishes into and HTTP reads from. */
struct snapshot_slot {
	pthread_mutex_t lock;
	struct snapshot *current;
};

void snapshot_slot_init(struct snapshot_slot *slot);
void snapshot_slot_destroy(struct snapshot_slot *slot);
/* Takes ownership of s; drops the reference to the previous one. */
void snapshot_slot_publish(struct snapshot_slot *slot, struct snapshot *s);
/* A new reference to the current snapshot, or NULL before the first poll. */
struct snapshot *snapshot_slot_get(struct snapshot_slot *slot);

#endif
