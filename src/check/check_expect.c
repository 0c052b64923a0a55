// SPDX-License-Identifier: Apache-2.0
#include "check/check_expect.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/chars.h"
#include "base/strparse.h"

static int fail(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void check_expect_free(struct check_expect *e)
{
	if (!e)
		return;
	free(e->v);
	*e = (struct check_expect){0};
}

static bool name_char(char c)
{
	return ascii_is_alnum(c) || c == '_' || c == '.' || c == '-';
}

/* One item, split up: the device name around its bracket group. */
struct item {
	const char *text; /* the whole item, for messages */
	size_t len;
	const char *prefix, *suffix;
	size_t prefix_len, suffix_len;
	const char *ranges; /* inside the brackets, NULL: none */
	size_t ranges_len;
	unsigned port_lo, port_hi;
	double rate;
};

/* "N" or "N-M" in [s, s+len): 0 or -EINVAL. */
static int parse_range(const char *s, size_t len, unsigned max, unsigned *lo, unsigned *hi)
{
	const char *dash = memchr(s, '-', len);
	uint64_t a, b;

	if (!dash) {
		if (parse_u64_dec(s, len, &a) < 0 || a > max)
			return -EINVAL;
		*lo = *hi = (unsigned)a;
		return 0;
	}
	if (parse_u64_dec(s, (size_t)(dash - s), &a) < 0 ||
	    parse_u64_dec(dash + 1, len - (size_t)(dash - s) - 1, &b) < 0 || a > b || b > max)
		return -EINVAL;
	*lo = (unsigned)a;
	*hi = (unsigned)b;
	return 0;
}

static int parse_rate(const char *s, size_t len, double *rate)
{
	char tmp[32], *end;
	size_t dots = 0;

	if (len == 0 || len >= sizeof(tmp))
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		dots += s[i] == '.';
		if (!ascii_is_digit(s[i]) && s[i] != '.')
			return -EINVAL;
	}
	if (dots > 1 || s[0] == '.' || s[len - 1] == '.')
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	*rate = strtod(tmp, &end);
	return *end == '\0' && *rate > 0 && *rate <= 1e6 ? 0 : -EINVAL;
}

/* The device part of an item: NAME, or PREFIX[RANGES]SUFFIX. */
static int split_device(struct item *it, const char *s, size_t len, char *why, size_t whylen)
{
	const char *open = memchr(s, '[', len), *close;

	it->prefix = s;
	it->prefix_len = open ? (size_t)(open - s) : len;
	it->ranges = NULL;
	it->suffix = s + len;
	it->suffix_len = 0;
	if (open) {
		close = memchr(open, ']', len - (size_t)(open - s));
		if (!close)
			return fail(why, whylen, "\"%.*s\": \"[\" without \"]\"", (int)it->len,
				    it->text);
		it->ranges = open + 1;
		it->ranges_len = (size_t)(close - open - 1);
		it->suffix = close + 1;
		it->suffix_len = len - (size_t)(it->suffix - s);
	}
	for (size_t i = 0; i < it->prefix_len; i++)
		if (!name_char(it->prefix[i]))
			goto bad;
	for (size_t i = 0; i < it->suffix_len; i++)
		if (!name_char(it->suffix[i]))
			goto bad;
	if (it->prefix_len + it->suffix_len == 0 && !it->ranges)
		return fail(why, whylen, "\"%.*s\": no device name", (int)it->len, it->text);
	return 0;
bad:
	return fail(why, whylen,
		    "\"%.*s\": a device name has letters, digits, \"_\", \".\", \"-\" and one "
		    "[N-M,...] group",
		    (int)it->len, it->text);
}

/* DEVICE[:PORTS][@GBPS] */
static int split_item(struct item *it, char *why, size_t whylen)
{
	const char *s = it->text, *end = s + it->len;
	const char *at = memchr(s, '@', it->len), *colon;
	const char *dev_end = at ? at : end;

	it->rate = 0;
	if (at && parse_rate(at + 1, (size_t)(end - at - 1), &it->rate) < 0)
		return fail(why, whylen, "\"%.*s\": the rate after \"@\" is not Gb/s (e.g. 400)",
			    (int)it->len, s);
	colon = memchr(s, ':', (size_t)(dev_end - s));
	it->port_lo = it->port_hi = 1;
	if (colon) {
		if (parse_range(colon + 1, (size_t)(dev_end - colon - 1), CHECK_EXPECT_MAX_PORT,
				&it->port_lo, &it->port_hi) < 0 ||
		    it->port_lo == 0)
			return fail(why, whylen, "\"%.*s\": ports are N or N-M, from 1 to %d",
				    (int)it->len, s, CHECK_EXPECT_MAX_PORT);
		dev_end = colon;
	}
	return split_device(it, s, (size_t)(dev_end - s), why, whylen);
}

static int add_port(struct check_expect *e, size_t *cap, const char *dev, unsigned port,
		    double rate, char *why, size_t whylen)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].port == port && strcmp(e->v[i].device, dev) == 0)
			return fail(why, whylen, "%s port %u is listed twice", dev, port);
	if (e->n >= CHECK_EXPECT_MAX_PORTS)
		return fail(why, whylen, "more than %d ports", CHECK_EXPECT_MAX_PORTS);
	if (e->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct check_expect_port *v = realloc(e->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		*cap = ncap;
	}
	e->v[e->n] = (struct check_expect_port){.port = port, .rate_gbps = rate};
	snprintf(e->v[e->n].device, CHECK_EXPECT_NAME_MAX, "%s", dev);
	e->n++;
	return 0;
}

/* Called for each device name an item expands to. */
typedef int (*device_fn)(void *ctx, const char *dev, const struct item *it, char *why,
			 size_t whylen);

/* The device name of an item with index num ("" when none): fn on it. */
static int one_device(const struct item *it, const char *num, device_fn fn, void *ctx, char *why,
		      size_t whylen)
{
	char dev[CHECK_EXPECT_NAME_MAX];
	int n = snprintf(dev, sizeof(dev), "%.*s%s%.*s", (int)it->prefix_len, it->prefix, num,
			 (int)it->suffix_len, it->suffix);

	if (n < 0 || (size_t)n >= sizeof(dev))
		return fail(why, whylen, "\"%.*s\": device name longer than %d", (int)it->len,
			    it->text, CHECK_EXPECT_NAME_MAX - 1);
	return fn(ctx, dev, it, why, whylen);
}

/* fn on every device name of the item: its bracket group expanded. */
static int for_each_device(const struct item *it, device_fn fn, void *ctx, char *why, size_t whylen)
{
	const char *p = it->ranges, *end;

	if (!p)
		return one_device(it, "", fn, ctx, why, whylen);
	end = p + it->ranges_len;
	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *stop = comma ? comma : end;
		unsigned lo, hi;

		if (parse_range(p, (size_t)(stop - p), 99999, &lo, &hi) < 0)
			return fail(why, whylen,
				    "\"%.*s\": inside [...] write N, N-M or a list of them",
				    (int)it->len, it->text);
		for (unsigned i = lo; i <= hi; i++) {
			char num[16];
			int r;

			snprintf(num, sizeof(num), "%u", i);
			r = one_device(it, num, fn, ctx, why, whylen);
			if (r < 0)
				return r;
		}
		p = stop + 1;
	}
	return 0;
}

struct port_ctx {
	struct check_expect *e;
	size_t cap;
};

/* Every port of one device. */
static int add_device(void *ctx, const char *dev, const struct item *it, char *why, size_t whylen)
{
	struct port_ctx *pc = ctx;

	for (unsigned p = it->port_lo; p <= it->port_hi; p++) {
		int r = add_port(pc->e, &pc->cap, dev, p, it->rate, why, whylen);

		if (r < 0)
			return r;
	}
	return 0;
}

/* The next item's extent from *p, skipping separators and comments; 0 at the end. */
static size_t next_item(const char **p)
{
	const char *s = *p;
	size_t n = 0;
	int depth = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',')
			s++;
		if (*s != '#')
			break;
		while (*s && *s != '\n')
			s++;
	}
	*p = s;
	while (s[n] && s[n] != '#' && s[n] != ' ' && s[n] != '\t' && s[n] != '\n' && s[n] != '\r' &&
	       (s[n] != ',' || depth > 0)) {
		depth += s[n] == '[' ? 1 : s[n] == ']' ? -1 : 0;
		n++;
	}
	return n;
}

int check_expect_parse(const char *spec, struct check_expect *e, char *why, size_t whylen)
{
	struct port_ctx pc = {.e = e};
	const char *p = spec;
	size_t n;
	int r = 0;

	*e = (struct check_expect){0};
	while (r == 0 && (n = next_item(&p)) > 0) {
		struct item it = {.text = p, .len = n};

		r = split_item(&it, why, whylen);
		if (r == 0)
			r = for_each_device(&it, add_device, &pc, why, whylen);
		p += n;
	}
	if (r == 0 && e->n == 0)
		r = fail(why, whylen, "no ports (example: mlx5_[0-7]:1@400)");
	if (r < 0)
		check_expect_free(e);
	return r;
}

/* --- --check.expect-pcie ------------------------------------------------- */

void check_expect_pcie_free(struct check_expect_pcie *e)
{
	if (!e)
		return;
	free(e->v);
	*e = (struct check_expect_pcie){0};
}

/* What follows "@": "any", or [GTS]["x"WIDTH] with at least one of them. */
static int parse_pcie_want(const char *s, size_t len, struct check_expect_pcie_dev *d)
{
	const char *x = memchr(s, 'x', len);
	size_t speed_len = x ? (size_t)(x - s) : len;
	uint64_t w;

	if (len == 3 && memcmp(s, "any", 3) == 0) {
		d->any = true;
		return 0;
	}
	if (!len || (x && x + 1 == s + len))
		return -EINVAL;
	if (speed_len && (parse_rate(s, speed_len, &d->gts) < 0 || d->gts > 1000))
		return -EINVAL;
	if (x) {
		if (parse_u64_dec(x + 1, len - speed_len - 1, &w) < 0 || w == 0 ||
		    w > CHECK_EXPECT_PCIE_MAX_WIDTH)
			return -EINVAL;
		d->width = (unsigned)w;
	}
	return 0;
}

struct pcie_ctx {
	struct check_expect_pcie *e;
	size_t cap;
	struct check_expect_pcie_dev want;
};

static int add_pcie_device(void *ctx, const char *dev, const struct item *it, char *why,
			   size_t whylen)
{
	struct pcie_ctx *pc = ctx;
	struct check_expect_pcie *e = pc->e;

	(void)it;
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->v[i].device, dev) == 0)
			return fail(why, whylen, "%s is listed twice", dev);
	if (e->n >= CHECK_EXPECT_MAX_PORTS)
		return fail(why, whylen, "more than %d devices", CHECK_EXPECT_MAX_PORTS);
	if (e->n == pc->cap) {
		size_t ncap = pc->cap ? pc->cap * 2 : 16;
		struct check_expect_pcie_dev *v = realloc(e->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->v = v;
		pc->cap = ncap;
	}
	e->v[e->n] = pc->want;
	snprintf(e->v[e->n].device, CHECK_EXPECT_NAME_MAX, "%s", dev);
	e->n++;
	return 0;
}

int check_expect_pcie_parse(const char *spec, struct check_expect_pcie *e, char *why, size_t whylen)
{
	struct pcie_ctx pc = {.e = e};
	const char *p = spec;
	size_t n;
	int r = 0;

	*e = (struct check_expect_pcie){0};
	while (r == 0 && (n = next_item(&p)) > 0) {
		struct item it = {.text = p, .len = n};
		const char *at = memchr(p, '@', n);

		pc.want = (struct check_expect_pcie_dev){0};
		if (!at || parse_pcie_want(at + 1, n - (size_t)(at - p) - 1, &pc.want) < 0)
			r = fail(why, whylen,
				 "\"%.*s\": write DEVICE@GTS, DEVICE@xWIDTH, DEVICE@GTSxWIDTH or "
				 "DEVICE@any (e.g. mlx5_0@16x8)",
				 (int)n, p);
		if (r == 0)
			r = split_device(&it, p, (size_t)(at - p), why, whylen);
		if (r == 0)
			r = for_each_device(&it, add_pcie_device, &pc, why, whylen);
		p += n;
	}
	if (r == 0 && e->n == 0)
		r = fail(why, whylen, "no devices (example: mlx5_[0-7]@32x16)");
	if (r < 0)
		check_expect_pcie_free(e);
	return r;
}
