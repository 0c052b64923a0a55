// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: --collector.probe.targets-dns (probe_dns.c), picked by
 * the first byte: even, the rest is the flag value for probe_dns_parse; odd,
 * the rest is 16-byte addresses, the first half the answer and the second
 * this node's own, for probe_dns_targets.
 *
 * Invariants: a flag value is accepted (0, a non-empty printable host) or
 * refused (-EINVAL with a one-line reason); an answer's targets are unique,
 * none of them an own address, ascending by address, each "a.b.c.d" or
 * "[v6]" with ":port" exactly when a port is given, and targets plus own
 * plus duplicates account for every address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "probe_dns.h"

static void parse_one(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size), host[PROBE_TARGETS_MAX_HOST + 1], why[160];
	uint16_t port = 0;
	int r;

	if (!s)
		return;
	r = probe_dns_parse(s, host, &port, why, sizeof(why));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(host[0] && strlen(host) <= PROBE_TARGETS_MAX_HOST);
		for (const char *c = host; *c; c++)
			FUZZ_CHECK(*c > ' ' && *c < 0x7f);
		FUZZ_CHECK(strstr(s, host));
	} else {
		FUZZ_CHECK(why[0] && !strchr(why, '\n'));
	}
	FUZZ_CHECK(probe_dns_check(s, why, sizeof(why)) == r);
	free(s);
}

/* The 16 bytes a target names. */
static void target_addr(const struct probe_target *t, uint8_t *a)
{
	memset(a, 0, 16);
	if (inet_pton(AF_INET, t->host, a + 12) == 1) {
		a[10] = a[11] = 0xff;
		FUZZ_CHECK(t->raw[0] != '[');
		return;
	}
	FUZZ_CHECK(inet_pton(AF_INET6, t->host, a) == 1);
	FUZZ_CHECK(t->raw[0] == '[');
}

/* raw ends in ":port" exactly when port is not 0 */
static bool has_port(const char *raw, uint16_t port)
{
	char suffix[8];
	size_t n = strlen(raw), k;

	if (!port)
		return raw[n - 1] == ']' || !strchr(raw, ':');
	k = (size_t)snprintf(suffix, sizeof(suffix), ":%u", port);
	return n > k && strcmp(raw + n - k, suffix) == 0;
}

static void answer(const uint8_t *data, size_t size, uint16_t port)
{
	size_t n_all = size / 16, n = (n_all + 1) / 2, n_own = n_all - n, excluded = 0, dups = 0;
	const uint8_t(*addrs)[16] = (const uint8_t(*)[16])data;
	struct probe_target_list l;
	uint8_t prev[16], a[16];

	FUZZ_CHECK(probe_dns_targets(addrs, n, addrs + n, n_own, port, &l, &excluded) == 0);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (memcmp(addrs[i], addrs[j], 16) == 0) {
				dups++;
				break;
			}
	FUZZ_CHECK(l.n_targets + excluded + dups == n);
	for (size_t i = 0; i < l.n_targets; i++) {
		target_addr(&l.targets[i], a);
		FUZZ_CHECK(l.targets[i].port == port);
		FUZZ_CHECK(has_port(l.targets[i].raw, port));
		for (size_t j = 0; j < n_own; j++)
			FUZZ_CHECK(memcmp(a, addrs[n + j], 16) != 0);
		FUZZ_CHECK(i == 0 || memcmp(prev, a, 16) < 0);
		memcpy(prev, a, 16);
	}
	probe_target_list_free(&l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	if (data[0] % 2 == 0) {
		parse_one(data + 1, size - 1);
		return 0;
	}
	/* the port from bytes 1 and 2; addresses aligned copies */
	{
		size_t m = (size - 3) / 16 * 16;
		uint8_t *copy = malloc(m ? m : 1);

		if (!copy)
			return 0;
		memcpy(copy, data + 3, m);
		answer(copy, m > 16 * 512 ? 16 * 512 : m, (uint16_t)(data[1] << 8 | data[2]));
		free(copy);
	}
	return 0;
}
