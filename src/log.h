/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Logging, logfmt-style on stderr (journald adds its own timestamps and
 * keeps the syslog priority from the <N> prefix when stderr is the journal).
 * Only policy layers log: main, poller, collectors' collect(). Parsers and
 * readers return errors instead.
 */
#ifndef RDMA_EXPORTER_LOG_H
#define RDMA_EXPORTER_LOG_H

#include <stddef.h>
#include <syslog.h>

/* Parses debug|info|warn|error; returns 0 or -EINVAL. */
int log_level_parse(const char *s, int *level);
void log_set_level(int level);
int log_get_level(void);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* strerror of an errno, given as err or -err, into buf (thread safe). */
const char *log_strerror(int err, char *buf, size_t size);

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)

#endif
