// SPDX-License-Identifier: Apache-2.0
/*
 * What the sysfs collector's jobs share with its collector thread (struct
 * sysfs_shared, sysfs_internal.h): the inputs, fixed at init, and the table
 * of paths whose failure was logged, so that a file that fails every poll
 * is said once at warn, later at debug. Counted references: a job blocked
 * in a read may outlive the collector.
 */
#include "sysfs_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

static int warned_find(const struct sysfs_shared *sh, const char *path, size_t *pos)
{
	size_t lo = 0, hi = sh->n_warned;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sh->warned[mid], path);

		if (c == 0) {
			*pos = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return 0;
}

/* Under the lock: true the first time a path is seen. */
static bool first_failure_locked(struct sysfs_shared *sh, const char *path)
{
	size_t pos;
	char *copy;

	if (warned_find(sh, path, &pos))
		return false;
	if (sh->n_warned == sh->cap_warned) {
		size_t ncap = sh->cap_warned ? sh->cap_warned * 2 : 32;
		char **n = realloc(sh->warned, ncap * sizeof(*n));

		if (!n)
			return true;
		sh->warned = n;
		sh->cap_warned = ncap;
	}
	copy = strdup(path);
	if (!copy)
		return true;
	memmove(&sh->warned[pos + 1], &sh->warned[pos], (sh->n_warned - pos) * sizeof(char *));
	sh->warned[pos] = copy;
	sh->n_warned++;
	return true;
}

int sysfs_failure_level(struct sysfs_shared *sh, const char *path)
{
	bool first;

	pthread_mutex_lock(&sh->lock);
	first = first_failure_locked(sh, path);
	pthread_mutex_unlock(&sh->lock);
	return first ? LOG_WARNING : LOG_DEBUG;
}

/* Under the lock. */
static void warned_clear(struct sysfs_shared *sh)
{
	for (size_t i = 0; i < sh->n_warned; i++)
		free(sh->warned[i]);
	free(sh->warned);
	sh->warned = NULL;
	sh->n_warned = sh->cap_warned = 0;
}

void sysfs_shared_unref(struct sysfs_shared *sh)
{
	if (!sh || __atomic_sub_fetch(&sh->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	warned_clear(sh);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}

struct sysfs_shared *sysfs_shared_ref(struct sysfs_shared *sh)
{
	__atomic_add_fetch(&sh->refs, 1, __ATOMIC_RELAXED);
	return sh;
}

struct sysfs_shared *sysfs_shared_new(int root, sysfs_shared_read_fn read, void *read_data)
{
	struct sysfs_shared *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->refs = 1;
	sh->root = root;
	sh->read = read;
	sh->read_data = read_data;
	pthread_mutex_init(&sh->lock, NULL);
	return sh;
}

void sysfs_shared_forget(struct sysfs_shared *sh)
{
	pthread_mutex_lock(&sh->lock);
	warned_clear(sh);
	sh->warned_emfile = false;
	pthread_mutex_unlock(&sh->lock);
}

void sysfs_warn_fd_limit(struct sysfs_shared *sh, const struct sysfs_device *dev)
{
	bool first;

	if (!dev->n_reopen_each)
		return;
	pthread_mutex_lock(&sh->lock);
	first = !sh->warned_emfile;
	sh->warned_emfile = true;
	pthread_mutex_unlock(&sh->lock);
	if (first)
		log_warn("file descriptor limit reached: files fall back to open+read+close per "
			 "poll (slower); raise LimitNOFILE",
			 "collector=sysfs device=%s files=%u", dev->name, dev->n_reopen_each);
}
