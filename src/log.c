// SPDX-License-Identifier: Apache-2.0
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int log_level = LOG_INFO;

static const struct {
	const char *name;
	int level;
} levels[] = {
	{"debug", LOG_DEBUG},
	{"info", LOG_INFO},
	{"warn", LOG_WARNING},
	{"error", LOG_ERR},
};

int log_level_parse(const char *s, int *level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		if (strcmp(s, levels[i].name) == 0) {
			*level = levels[i].level;
			return 0;
		}
	}
	return -EINVAL;
}

void log_set_level(int level)
{
	__atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
}

int log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

static const char *level_name(int level)
{
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		if (levels[i].level == level)
			return levels[i].name;
	return "error";
}

/* Under systemd, stderr is the journal: it timestamps lines itself and
 * takes the priority from a leading <N>. */
static bool to_journal(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = getenv("JOURNAL_STREAM") != NULL;
	return cached;
}

void log_msg(int level, const char *fmt, ...)
{
	char msg[1024], ts[40];
	struct timespec now;
	struct tm tm;
	va_list ap;

	if (level > log_get_level())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* keep one record per line */
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';

	if (to_journal()) {
		fprintf(stderr, "<%d>level=%s msg=\"%s\"\n", level, level_name(level), msg);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(stderr, "ts=%s.%03ldZ level=%s msg=\"%s\"\n", ts, now.tv_nsec / 1000000L,
		level_name(level), msg);
}

const char *log_strerror(int err, char *buf, size_t size)
{
	/* GNU strerror_r (we build with _GNU_SOURCE): thread safe. */
	return strerror_r(err < 0 ? -err : err, buf, size);
}
