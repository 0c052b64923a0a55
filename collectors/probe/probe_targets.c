// SPDX-License-Identifier: Apache-2.0
/*
 * The pingmesh target list: the rules a target and a label of the targets
 * file follow, the list built from them with its duplicate index
 * (probe_targets_build.h), and the rendezvous-hash sample of it. Reading the
 * file itself, JSON or YAML, is probe_targets_parse.c.
 */
#include "probe_targets.h"
#include "probe_targets_build.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/chars.h"

#define SHAPE_ERROR "is not host, host:port, [ipv6] or [ipv6]:port"

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

/* A bracketed host: an IPv6 address, with an optional "%zone". */
static const char *check_ipv6(const char *h, size_t n)
{
	char addr[INET6_ADDRSTRLEN];
	struct in6_addr a;
	const char *pct = memchr(h, '%', n);
	size_t alen = pct ? (size_t)(pct - h) : n;

	if (!n)
		return "has an empty host";
	if (alen >= sizeof(addr))
		return "has an invalid IPv6 address in brackets";
	memcpy(addr, h, alen);
	addr[alen] = 0;
	if (inet_pton(AF_INET6, addr, &a) != 1)
		return "has an invalid IPv6 address in brackets";
	if (pct) {
		if (alen + 1 == n)
			return "has an empty IPv6 zone after '%'";
		for (size_t i = alen + 1; i < n; i++) {
			unsigned char c = (unsigned char)h[i];

			if (!ascii_is_alnum((char)c) && c != '-' && c != '_' && c != '.')
				return "has an invalid IPv6 zone (letters, digits, '-', '_', '.')";
		}
	}
	return NULL;
}

/* A host without brackets: a DNS name, or an IPv4 address when only digits
 * and dots. reason has room for a short message naming a bad character. */
static const char *check_name(const char *h, size_t n, char *reason, size_t size)
{
	bool numeric = true;
	size_t label = 0;
	char v4[16];
	struct in_addr a;

	if (!n)
		return "has an empty host";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)h[i];

		if (c == '.') {
			if (!label)
				return "has an empty label in the host name";
			label = 0;
			continue;
		}
		if (c == ' ')
			return "has a space in the host";
		if (c < 0x20 || c == 0x7f)
			return "has a control character in the host";
		if (c >= 0x80)
			return "has a non-ASCII byte in the host (write IDNs in punycode)";
		if (!ascii_is_alnum((char)c) && c != '-' && c != '_') {
			snprintf(reason, size,
				 "has '%c' in the host (letters, digits, '-', '_', '.')", c);
			return reason;
		}
		if (!ascii_is_digit((char)c))
			numeric = false;
		if (++label > 63)
			return "has a host name label longer than 63 bytes";
	}
	if (numeric) {
		if (n >= sizeof(v4))
			return "has a host of digits and dots that is not an IPv4 address";
		memcpy(v4, h, n);
		v4[n] = 0;
		if (inet_pton(AF_INET, v4, &a) != 1)
			return "has a host of digits and dots that is not an IPv4 address";
	}
	return NULL;
}

/* Decimal 1..65535 without sign or leading zero. */
static const char *parse_port(const char *s, size_t n, uint16_t *port)
{
	unsigned v = 0;

	if (!n || n > 5 || s[0] == '0')
		return "has a port that is not 1..65535 (decimal, no leading zero)";
	for (size_t i = 0; i < n; i++) {
		if (!ascii_is_digit(s[i]))
			return "has a port that is not 1..65535 (decimal, no leading zero)";
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535)
		return "has a port that is not 1..65535 (decimal, no leading zero)";
	*port = (uint16_t)v;
	return NULL;
}

/* Splits a target into host (offset and length in raw) and port; NULL, or
 * why it is not a target, worded to follow the quoted string. */
static const char *split_target(const char *raw, size_t n, size_t *hoff, size_t *hlen,
				uint16_t *port, char *reason, size_t size)
{
	const char *why, *colon;

	*port = 0;
	if (!n)
		return "is empty";
	if (raw[0] == '[') {
		const char *close = memchr(raw, ']', n);
		size_t rest;

		if (!close)
			return SHAPE_ERROR;
		*hoff = 1;
		*hlen = (size_t)(close - raw) - 1;
		rest = n - (size_t)(close - raw) - 1;
		if (rest && close[1] != ':')
			return SHAPE_ERROR;
		why = rest ? parse_port(close + 2, rest - 1, port) : NULL;
		if (why)
			return why;
		if (*hlen > PROBE_TARGETS_MAX_HOST)
			return "has a host longer than 255 bytes (the limit)";
		return check_ipv6(raw + 1, *hlen);
	}
	*hoff = 0;
	*hlen = n;
	colon = memchr(raw, ':', n);
	if (colon) {
		*hlen = (size_t)(colon - raw);
		if (memchr(colon + 1, ':', n - *hlen - 1) || memchr(raw, ']', n))
			return SHAPE_ERROR;
		why = parse_port(colon + 1, n - *hlen - 1, port);
		if (why)
			return why;
	}
	if (*hlen > PROBE_TARGETS_MAX_HOST)
		return "has a host longer than 255 bytes (the limit)";
	return check_name(raw, *hlen, reason, size);
}

/* FNV-1a over the lower-cased host and the port. */
static uint64_t target_hash(const char *host, size_t n, uint16_t port)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ lower((unsigned char)host[i])) * 0x100000001b3ULL;
	h = (h ^ (port & 0xff)) * 0x100000001b3ULL;
	h = (h ^ (port >> 8)) * 0x100000001b3ULL;
	return h;
}

static bool same_target(const struct probe_target *t, const char *host, size_t n, uint16_t port)
{
	if (t->port != port || strlen(t->host) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)t->host[i]) != lower((unsigned char)host[i]))
			return false;
	return true;
}

/* Slot of host:port in the index: the entry that matches, or an empty one. */
static size_t *index_slot(struct probe_targets_builder *p, const char *host, size_t n,
			  uint16_t port)
{
	size_t mask = p->index_cap - 1;
	size_t i = (size_t)target_hash(host, n, port) & mask;

	while (p->index[i] && !same_target(&p->out->targets[p->index[i] - 1], host, n, port))
		i = (i + 1) & mask;
	return &p->index[i];
}

static int index_grow(struct probe_targets_builder *p)
{
	size_t cap = p->index_cap ? p->index_cap * 2 : 1024;
	size_t *old = p->index, old_cap = p->index_cap;

	p->index = calloc(cap, sizeof(*p->index));
	if (!p->index) {
		p->index = old;
		return -ENOMEM;
	}
	p->index_cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		const struct probe_target *t;

		if (!old[i])
			continue;
		t = &p->out->targets[old[i] - 1];
		*index_slot(p, t->host, strlen(t->host), t->port) = old[i];
	}
	free(old);
	return 0;
}

/* Room for one more of n elements of size bytes in *v (capacity *cap). */
static void *grow(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;

	if (n < *cap)
		return v;
	if (c > SIZE_MAX / size)
		return NULL;
	v = realloc(v, c * size);
	if (v)
		*cap = c;
	return v;
}

int probe_targets_add_group(struct probe_targets_builder *b)
{
	struct probe_target_list *l = b->out;
	struct probe_group *v = grow(l->groups, &l->cap_groups, l->n_groups, sizeof(*v), 16);

	if (!v)
		return -ENOMEM;
	l->groups = v;
	memset(&l->groups[l->n_groups++], 0, sizeof(*v));
	return 0;
}

int probe_targets_add_target(struct probe_targets_builder *b, const char *raw, size_t n,
			     const char **why, char reason[PROBE_TARGETS_REASON])
{
	struct probe_target_list *l = b->out;
	struct probe_target *t;
	size_t hoff = 0, hlen = 0, *slot;
	uint16_t port;
	char *block;

	*why = split_target(raw, n, &hoff, &hlen, &port, reason, PROBE_TARGETS_REASON);
	if (*why)
		return -EINVAL;
	if ((l->n_targets + 1) * 2 > b->index_cap && index_grow(b))
		return -ENOMEM;
	slot = index_slot(b, raw + hoff, hlen, port);
	if (*slot) {
		l->duplicates++;
		return 0;
	}
	t = grow(l->targets, &l->cap_targets, l->n_targets, sizeof(*t), 64);
	if (!t)
		return -ENOMEM;
	l->targets = t; /* before anything else can fail: realloc may have moved it */
	block = malloc(hlen + 1 + n + 1);
	if (!block)
		return -ENOMEM;
	memcpy(block, raw + hoff, hlen);
	block[hlen] = 0;
	memcpy(block + hlen + 1, raw, n + 1);
	t = &l->targets[l->n_targets++];
	t->host = block;
	t->raw = block + hlen + 1;
	t->port = port;
	t->group = l->n_groups - 1;
	t->key = target_hash(t->host, hlen, port);
	*slot = l->n_targets;
	return 0;
}

void probe_targets_builder_done(struct probe_targets_builder *b)
{
	free(b->index);
	b->index = NULL;
	b->index_cap = 0;
}

const char *probe_targets_label_problem(const char *name, size_t n)
{
	static const char *const own[] = {"device", "port", "target", "reason", "le"};

	if (!n || (!ascii_is_alpha(name[0]) && name[0] != '_'))
		return "is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)";
	for (size_t i = 1; i < n; i++) {
		if (!ascii_is_alnum(name[i]) && name[i] != '_')
			return "is not a label name ([a-zA-Z_][a-zA-Z0-9_]*)";
	}
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(name, own[i]))
			return "is a label of the probe metrics themselves (device, port, target, "
			       "reason, le)";
	return NULL;
}

/*
 * "__*" (Prometheus's reserved and __meta_* names, which its own file_sd
 * drops after relabelling) and job and instance (the scrape sets them on
 * every series: copied onto the probe series, the scrape would overwrite
 * them) are dropped.
 */
bool probe_targets_label_dropped(const char *name, size_t n)
{
	return (n >= 2 && name[0] == '_' && name[1] == '_') || !strcmp(name, "job") ||
	       !strcmp(name, "instance");
}

void probe_targets_note_dropped(struct probe_target_list *l, const char *name)
{
	if (!l->dropped_labels++)
		snprintf(l->dropped_label, sizeof(l->dropped_label), "%s", name);
}

int probe_targets_add_label(struct probe_group *g, const char *name, size_t nlen, const char *value,
			    size_t vlen)
{
	struct probe_label *v = grow(g->labels, &g->cap_labels, g->n_labels, sizeof(*v), 4);
	char *block;

	if (!v)
		return -ENOMEM;
	g->labels = v; /* before anything else can fail: realloc may have moved it */
	block = malloc(nlen + 1 + vlen + 1);
	if (!block)
		return -ENOMEM;
	memcpy(block, name, nlen + 1);
	memcpy(block + nlen + 1, value, vlen + 1);
	g->labels[g->n_labels].name = block;
	g->labels[g->n_labels].value = block + nlen + 1;
	g->n_labels++;
	return 0;
}

void probe_target_list_free(struct probe_target_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n_targets; i++)
		free(l->targets[i].host);
	free(l->targets);
	for (size_t g = 0; g < l->n_groups; g++) {
		for (size_t i = 0; i < l->groups[g].n_labels; i++)
			free(l->groups[g].labels[i].name);
		free(l->groups[g].labels);
	}
	free(l->groups);
	memset(l, 0, sizeof(*l));
}

/* splitmix64's finalizer: every input bit moves every output bit. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t probe_targets_weight(uint64_t node, uint64_t key)
{
	return mix64(key ^ mix64(node));
}

/* Heap order: the lighter (weight, then index) on top. */
static bool lighter(uint64_t wa, size_t a, uint64_t wb, size_t b)
{
	return wa != wb ? wa < wb : a > b;
}

static void sift_down(size_t *idx, uint64_t *w, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i, ti;
		uint64_t tw;

		if (l < n && lighter(w[l], idx[l], w[m], idx[m]))
			m = l;
		if (r < n && lighter(w[r], idx[r], w[m], idx[m]))
			m = r;
		if (m == i)
			return;
		ti = idx[i], idx[i] = idx[m], idx[m] = ti;
		tw = w[i], w[i] = w[m], w[m] = tw;
		i = m;
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

size_t probe_targets_sample(const struct probe_target_list *l, size_t k, uint64_t node,
			    size_t *out_indices, uint64_t *weights)
{
	size_t n = l ? l->n_targets : 0, m = 0;

	if (!n || !k)
		return 0;
	/* A min-heap of the k heaviest so far: O(n log k), no allocation. */
	for (size_t i = 0; i < n; i++) {
		uint64_t w = probe_targets_weight(node, l->targets[i].key);

		if (m < k) {
			out_indices[m] = i;
			weights[m++] = w;
			for (size_t c = m - 1;
			     c > 0 && lighter(weights[c], out_indices[c], weights[(c - 1) / 2],
					      out_indices[(c - 1) / 2]);
			     c = (c - 1) / 2) {
				size_t p = (c - 1) / 2, ti = out_indices[c];
				uint64_t tw = weights[c];

				out_indices[c] = out_indices[p], out_indices[p] = ti;
				weights[c] = weights[p], weights[p] = tw;
			}
		} else if (lighter(weights[0], out_indices[0], w, i)) {
			out_indices[0] = i;
			weights[0] = w;
			sift_down(out_indices, weights, m, 0);
		}
	}
	qsort(out_indices, m, sizeof(*out_indices), cmp_size);
	return m;
}
