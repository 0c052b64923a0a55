// SPDX-License-Identifier: Apache-2.0
#include "base/netdevs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t find(const struct netdev_set *s, const char *name, bool *found)
{
	size_t lo = 0, hi = s->n;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s->names[mid], name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void netdev_set_init(struct netdev_set *s)
{
	pthread_mutex_init(&s->lock, NULL);
}

void netdev_set_begin(struct netdev_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->names[i]);
	s->n = 0;
}

int netdev_set_add(struct netdev_set *s, const char *name)
{
	bool found;
	size_t pos = find(s, name, &found);
	char *copy;

	if (found)
		return 0;
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 8;
		char **v = realloc(s->names, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->names = v;
		s->cap = ncap;
	}
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	memmove(&s->names[pos + 1], &s->names[pos], (s->n - pos) * sizeof(*s->names));
	s->names[pos] = copy;
	s->n++;
	return 0;
}

/* names[0..n) and their strings in one block, so that a swap publishes them. */
static char **copy_block(char *const *names, size_t n)
{
	size_t size = n * sizeof(char *);
	char **v, *p;

	for (size_t i = 0; i < n; i++)
		size += strlen(names[i]) + 1;
	v = malloc(size ? size : 1);
	if (!v)
		return NULL;
	p = (char *)(v + n);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]) + 1;

		memcpy(p, names[i], len);
		v[i] = p;
		p += len;
	}
	return v;
}

int netdev_set_commit(struct netdev_set *s, uint64_t gen)
{
	char **block = copy_block(s->names, s->n), **old;

	s->published = true;
	s->published_gen = gen;
	if (!block)
		return -ENOMEM;
	pthread_mutex_lock(&s->lock);
	old = s->pub_names;
	s->pub_names = block;
	s->pub_n = s->n;
	s->pub_done = true;
	pthread_mutex_unlock(&s->lock);
	free(old);
	return 0;
}

int netdev_set_get_published(struct netdev_set *s, struct netdev_set *out)
{
	int r = 0;

	netdev_set_begin(out);
	pthread_mutex_lock(&s->lock);
	/* already sorted and distinct: every add appends */
	for (size_t i = 0; i < s->pub_n && r == 0; i++)
		r = netdev_set_add(out, s->pub_names[i]);
	if (r == 0)
		r = s->pub_done ? 1 : 0;
	pthread_mutex_unlock(&s->lock);
	return r;
}

bool netdev_set_contains(const struct netdev_set *s, const char *name)
{
	bool found;

	find(s, name, &found);
	return found;
}

bool netdev_set_equal(const struct netdev_set *a, const struct netdev_set *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) /* both sorted */
		if (strcmp(a->names[i], b->names[i]) != 0)
			return false;
	return true;
}

void netdev_set_free(struct netdev_set *s)
{
	if (!s)
		return;
	netdev_set_begin(s);
	free(s->names);
	free(s->pub_names);
	pthread_mutex_destroy(&s->lock);
	/* all zero: usable again, as a new set */
	memset(s, 0, sizeof(*s));
}
