// SPDX-License-Identifier: Apache-2.0
/*
 * --collector.probe.targets-dns (probe_dns.h): the flag value and a DNS
 * answer made into a target list. Both go through the targets file parser
 * (probe_targets_parse) so that a name is checked, and an address keyed and
 * sampled, exactly as in a targets file.
 */
#include "probe_dns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/chars.h"

/* What a NAME[:PORT] may hold: DNS names, IP literals, a bracketed IPv6 zone. */
static bool allowed(const char *s)
{
	for (; *s; s++)
		if (!ascii_is_alnum(*s) && !strchr(".-_:[]%", *s))
			return false;
	return true;
}

int probe_dns_parse(const char *s, char *host, uint16_t *port, char *why, size_t whylen)
{
	char doc[PROBE_TARGETS_MAX_TARGET + 32], err[256];
	struct probe_target_list l;
	size_t n = strlen(s);

	if (n == 0 || n > PROBE_TARGETS_MAX_TARGET || !allowed(s)) {
		snprintf(why, whylen, "want NAME[:PORT], a DNS name of at most %u bytes",
			 PROBE_TARGETS_MAX_HOST);
		return -EINVAL;
	}
	snprintf(doc, sizeof(doc), "[{\"targets\": [\"%s\"]}]", s);
	if (probe_targets_parse(doc, strlen(doc), &l, err, sizeof(err)) < 0) {
		/* "[0].targets[0]: ..." names a place in doc: keep what follows */
		const char *m = strstr(err, ": ");

		snprintf(why, whylen, "%s", m ? m + 2 : err);
		return -EINVAL;
	}
	snprintf(host, PROBE_TARGETS_MAX_HOST + 1, "%s", l.targets[0].host);
	*port = l.targets[0].port;
	probe_target_list_free(&l);
	return 0;
}

int probe_dns_check(const char *s, char *why, size_t whylen)
{
	char host[PROBE_TARGETS_MAX_HOST + 1];
	uint16_t port;

	return probe_dns_parse(s, host, &port, why, whylen);
}

size_t probe_dns_addrs(const struct addrinfo *ai, uint8_t (*out)[16], size_t max)
{
	size_t n = 0;

	for (; ai; ai = ai->ai_next) {
		uint8_t a[16] = {0};

		if (!ai->ai_addr)
			continue;
		if (ai->ai_family == AF_INET && ai->ai_addrlen >= sizeof(struct sockaddr_in)) {
			a[10] = a[11] = 0xff;
			memcpy(a + 12, &((const struct sockaddr_in *)ai->ai_addr)->sin_addr, 4);
		} else if (ai->ai_family == AF_INET6 &&
			   ai->ai_addrlen >= sizeof(struct sockaddr_in6)) {
			memcpy(a, &((const struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 16);
		} else {
			continue;
		}
		if (n < max)
			memcpy(out[n], a, 16);
		n++;
	}
	return n;
}

static int cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static bool is_own(const uint8_t *a, const uint8_t (*own)[16], size_t n_own)
{
	for (size_t i = 0; i < n_own; i++)
		if (memcmp(a, own[i], 16) == 0)
			return true;
	return false;
}

/* "a.b.c.d" or "[v6]", then ":port" when port is not 0. */
static int format_target(const uint8_t *a, uint16_t port, char *out, size_t size)
{
	static const uint8_t v4mapped[12] = {[10] = 0xff, [11] = 0xff};
	char ip[INET6_ADDRSTRLEN], p[8] = "";
	bool v4 = memcmp(a, v4mapped, 12) == 0;

	if (!inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? a + 12 : a, ip, sizeof(ip)))
		return -EINVAL;
	if (port)
		snprintf(p, sizeof(p), ":%u", port);
	return snprintf(out, size, v4 ? "%s%s" : "[%s]%s", ip, p);
}

int probe_dns_targets(const uint8_t (*addrs)[16], size_t n, const uint8_t (*own)[16], size_t n_own,
		      uint16_t port, struct probe_target_list *out, size_t *excluded)
{
	/* '"' target '"' ',' per address, and the frame */
	size_t cap = n * (INET6_ADDRSTRLEN + 12) + 32, len = 0, skipped = 0;
	uint8_t(*sorted)[16] = malloc((n ? n : 1) * sizeof(*sorted));
	char *doc = malloc(cap), err[256];
	bool first = true;
	int r = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!sorted || !doc)
		goto out;
	if (n) {
		memcpy(sorted, addrs, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp16);
	}
	len += (size_t)snprintf(doc + len, cap - len, "[{\"targets\": [");
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && memcmp(sorted[i], sorted[i - 1], 16) == 0)
			continue;
		if (is_own(sorted[i], own, n_own)) {
			skipped++;
			continue;
		}
		if (!first)
			doc[len++] = ',';
		first = false;
		doc[len++] = '"';
		len += (size_t)format_target(sorted[i], port, doc + len, cap - len);
		doc[len++] = '"';
	}
	len += (size_t)snprintf(doc + len, cap - len, "]}]");
	/* every string is an address literal written here: only -ENOMEM can fail */
	r = probe_targets_parse(doc, len, out, err, sizeof(err));
	if (excluded)
		*excluded = skipped;
out:
	free(sorted);
	free(doc);
	return r;
}
