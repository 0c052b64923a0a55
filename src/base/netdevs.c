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

void netdev_set_commit(struct netdev_set *s, uint64_t gen)
{
	s->published = true;
	s->published_gen = gen;
}

bool netdev_set_contains(const struct netdev_set *s, const char *name)
{
	bool found;

	find(s, name, &found);
	return found;
}

void netdev_set_free(struct netdev_set *s)
{
	if (!s)
		return;
	netdev_set_begin(s);
	free(s->names);
	memset(s, 0, sizeof(*s));
}
