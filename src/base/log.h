/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Logging in logfmt (or JSON, --log.format=json), one record per line on stderr:
 *
 *   ts=2026-01-02T03:04:05.678Z level=warn msg="collector failed" collector=sysfs err="I/O"
 *
 * Under systemd (JOURNAL_STREAM set) the journal timestamps lines itself and
 * takes the syslog priority from a leading <N>, so ts= gives way to <N>.
 * Only policy layers log: main, poller, collectors' collect(). Parsers and
 * readers return errors instead.
 *
 * Calls take a constant short message and then, optionally, the fields as a
 * printf format made of space-separated "key=VALUE" tokens, where VALUE is
 * literal text and conversions ("%s", "%llu", "%.1f", "%llums"):
 *
 *   log_info("listening", "address=%s path=%s", addr, path);
 *   log_error("out of memory");
 *
 * Each value is formatted on its own and then quoted and escaped as a whole
 * when it needs it (empty, or holding a space, '=', '"', a control byte,
 * invalid or non-printable UTF-8), so a value can never break the record
 * apart. gcc and clang still check the conversions against the arguments.
 * The field format must be a string literal.
 */
#ifndef RDMA_EXPORTER_LOG_H
#define RDMA_EXPORTER_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <syslog.h>
#include <time.h>

/* Longest record, newline included; longer ones end in truncated=true. */
#define LOG_LINE_MAX 4096

/* Parses debug|info|warn|error; returns 0 or -EINVAL. */
int log_level_parse(const char *s, int *level);
void log_set_level(int level);
int log_get_level(void);
/* Where records go: NULL is stderr (the default). Not thread safe: set it
 * before other threads log. */
void log_set_output(FILE *f);
/* Journal mode (<N> prefix, no ts=): 1 on, 0 off, -1 from JOURNAL_STREAM
 * (the default). */
void log_set_journal(int mode);
/* --log.format: "logfmt" (the default) or "json"; 0 or -EINVAL. */
int log_format_parse(const char *s, bool *json);
/* Records as JSON objects (log_format_json) instead of logfmt. */
void log_set_json(bool json);

/*
 * Formats one record into buf: "<N>level=... " in journal mode, else
 * "ts=<ts or now> level=... ", then msg= and the fields, and a newline. buf is
 * always NUL-terminated; a record longer than size (or LOG_LINE_MAX) is cut
 * at a character boundary, every quote closed, and ends in " truncated=true".
 * Returns the length, 0 when size cannot hold even the prefix.
 */
size_t log_vformat(char *buf, size_t size, int level, bool journal, const struct timespec *ts,
		   const char *msg, const char *kvfmt, va_list ap)
	__attribute__((format(printf, 7, 0)));
size_t log_format(char *buf, size_t size, int level, bool journal, const struct timespec *ts,
		  const char *msg, const char *kvfmt, ...) __attribute__((format(printf, 7, 8)));

/*
 * The same record as one JSON object and a newline (--log.format=json):
 * {"ts":"...","level":"...","msg":"...",FIELDS} where every field is
 * "key":"value" (values are text, as in logfmt, escaped as JSON strings:
 * control bytes as \u00XX, invalid UTF-8 as \ufffd); journal mode puts
 * "<N>" before the brace and leaves out ts. A cut record ends in
 * ,"truncated":true} and stays valid JSON.
 */
size_t log_format_json(char *buf, size_t size, int level, bool journal, const struct timespec *ts,
		       const char *msg, const char *kvfmt, ...)
	__attribute__((format(printf, 7, 8)));

/* One record at level, if the level is enabled; use the macros below. */
void log_emit(int level, const char *msg, const char *kvfmt, ...)
	__attribute__((format(printf, 3, 4)));

/* strerror of an errno, given as err or -err, into buf (thread safe). */
const char *log_strerror(int err, char *buf, size_t size);

/*
 * log_X(msg) or log_X(msg, kvfmt, args...). The " " prefix makes the field
 * format a literal that is never empty (gcc warns on an empty format); the
 * formatter skips spaces between tokens.
 */
#define log_msg(level, msg, ...) log_emit(level, msg, " " __VA_ARGS__)
#define log_debug(msg, ...)	 log_emit(LOG_DEBUG, msg, " " __VA_ARGS__)
#define log_info(msg, ...)	 log_emit(LOG_INFO, msg, " " __VA_ARGS__)
#define log_warn(msg, ...)	 log_emit(LOG_WARNING, msg, " " __VA_ARGS__)
#define log_error(msg, ...)	 log_emit(LOG_ERR, msg, " " __VA_ARGS__)

#endif
