// SPDX-License-Identifier: Apache-2.0
/*
 * --collector.probe.targets-dns's pure part (probe_dns.h): the flag value,
 * a getaddrinfo answer's addresses, and the target list made of them
 * (sorted, duplicates dropped, this node's own addresses left out, the port),
 * sampled as a targets file's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "probe_dns.h"

static void addr(const char *ip, uint8_t *out)
{
	struct in_addr a4;

	memset(out, 0, 16);
	if (inet_pton(AF_INET, ip, &a4) == 1) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &a4, 4);
		return;
	}
	assert_int_equal(inet_pton(AF_INET6, ip, out), 1);
}

static void test_parse(void **state)
{
	char host[PROBE_TARGETS_MAX_HOST + 1], why[160];
	uint16_t port = 1;

	assert_int_equal(probe_dns_parse("rdma-exporter", host, &port, why, sizeof(why)), 0);
	assert_string_equal(host, "rdma-exporter");
	assert_int_equal(port, 0);
	assert_int_equal(probe_dns_parse("rdma-exporter.monitoring.svc.cluster.local:7000", host,
					 &port, why, sizeof(why)),
			 0);
	assert_string_equal(host, "rdma-exporter.monitoring.svc.cluster.local");
	assert_int_equal(port, 7000);
	assert_int_equal(probe_dns_parse("[fd00::1]:9", host, &port, why, sizeof(why)), 0);
	assert_string_equal(host, "fd00::1");
	assert_int_equal(port, 9);

	const char *bad[] = {"",     "a b",	"name:0",  "name:65536", "name:", "bad..name",
			     "x\"y", "fd00::1", "name:01", "a\\u0041b",	 "a/b",	  ":9879"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_equal(probe_dns_parse(bad[i], host, &port, why, sizeof(why)), -EINVAL);
		assert_true(why[0] != '\0');
		assert_null(strchr(why, '\n'));
		assert_int_equal(probe_dns_check(bad[i], why, sizeof(why)), -EINVAL);
	}
	char longname[PROBE_TARGETS_MAX_TARGET + 8];
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(probe_dns_check(longname, why, sizeof(why)), -EINVAL);
	assert_int_equal(probe_dns_check("node-1.rack_2.example", why, sizeof(why)), 0);
}

/* A getaddrinfo answer made by hand: IPv4, IPv6 and a family to skip. */
static void test_addrs_from_answer(void **state)
{
	struct sockaddr_in s4 = {.sin_family = AF_INET};
	struct sockaddr_in6 s6 = {.sin6_family = AF_INET6};
	struct sockaddr un = {.sa_family = AF_UNIX};
	struct addrinfo a[4] = {
		{.ai_family = AF_INET, .ai_addrlen = sizeof(s4), .ai_addr = (struct sockaddr *)&s4},
		{.ai_family = AF_UNIX, .ai_addrlen = sizeof(un), .ai_addr = &un},
		{.ai_family = AF_INET6,
		 .ai_addrlen = sizeof(s6),
		 .ai_addr = (struct sockaddr *)&s6},
		{.ai_family = AF_INET, .ai_addrlen = sizeof(s4), .ai_addr = NULL},
	};
	uint8_t out[4][16], want[16];

	inet_pton(AF_INET, "10.1.2.3", &s4.sin_addr);
	inet_pton(AF_INET6, "fd00::7", &s6.sin6_addr);
	a[0].ai_next = &a[1];
	a[1].ai_next = &a[2];
	a[2].ai_next = &a[3];
	assert_int_equal(probe_dns_addrs(a, out, 4), 2);
	addr("10.1.2.3", want);
	assert_memory_equal(out[0], want, 16);
	addr("fd00::7", want);
	assert_memory_equal(out[1], want, 16);
	/* room for one: the count says there were two */
	assert_int_equal(probe_dns_addrs(a, out, 1), 2);
	assert_int_equal(probe_dns_addrs(NULL, out, 4), 0);
}

static void test_targets_sorted_dedup_own_excluded(void **state)
{
	const char *in[] = {"10.0.0.3", "10.0.0.1", "fd00::2", "10.0.0.2", "10.0.0.1", "10.0.0.9"};
	const char *mine[] = {"10.0.0.2", "127.0.0.1", "fd00::2"};
	uint8_t addrs[6][16], own[3][16];
	struct probe_target_list l;
	size_t excluded = 99;

	for (size_t i = 0; i < 6; i++)
		addr(in[i], addrs[i]);
	for (size_t i = 0; i < 3; i++)
		addr(mine[i], own[i]);
	assert_int_equal(probe_dns_targets((const uint8_t(*)[16])addrs, 6,
					   (const uint8_t(*)[16])own, 3, 0, &l, &excluded),
			 0);
	assert_int_equal(excluded, 2);
	assert_int_equal(l.n_targets, 3);
	assert_string_equal(l.targets[0].raw, "10.0.0.1");
	assert_string_equal(l.targets[1].raw, "10.0.0.3");
	assert_string_equal(l.targets[2].raw, "10.0.0.9");
	assert_string_equal(l.targets[0].host, "10.0.0.1");
	assert_int_equal(l.targets[0].port, 0);
	assert_int_equal(l.n_groups, 1);
	assert_int_equal(l.groups[0].n_labels, 0);
	probe_target_list_free(&l);

	/* with a port; IPv6 in brackets */
	assert_int_equal(probe_dns_targets((const uint8_t(*)[16])addrs, 6, NULL, 0, 7000, &l, NULL),
			 0);
	assert_int_equal(l.n_targets, 5);
	assert_string_equal(l.targets[0].raw, "10.0.0.1:7000");
	assert_string_equal(l.targets[4].raw, "[fd00::2]:7000");
	assert_string_equal(l.targets[4].host, "fd00::2");
	assert_int_equal(l.targets[4].port, 7000);
	probe_target_list_free(&l);

	/* an empty answer, or only this node: an empty list, not an error */
	assert_int_equal(probe_dns_targets(NULL, 0, NULL, 0, 0, &l, &excluded), 0);
	assert_int_equal(l.n_targets, 0);
	probe_target_list_free(&l);
	assert_int_equal(probe_dns_targets((const uint8_t(*)[16])own, 1, (const uint8_t(*)[16])own,
					   3, 0, &l, &excluded),
			 0);
	assert_int_equal(l.n_targets, 0);
	assert_int_equal(excluded, 1);
	probe_target_list_free(&l);
}

/* The order of the answer (DNS servers rotate it) changes neither the list
 * nor the sample; one node more changes the sample by at most one. */
static void test_sample_stable_across_answers(void **state)
{
	enum { N = 200, K = 16 };
	uint8_t a[N + 1][16], b[N][16];
	struct probe_target_list la, lb, lc;
	size_t ia[K], ib[K], ic[K], same = 0;
	uint64_t w[K];

	for (int i = 0; i < N + 1; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "10.%d.%d.%d", i / 65536, (i / 256) % 256, i % 256 + 1);
		addr(ip, a[i]);
	}
	for (int i = 0; i < N; i++)
		memcpy(b[i], a[N - 1 - i], 16);
	assert_int_equal(probe_dns_targets((const uint8_t(*)[16])a, N, NULL, 0, 0, &la, NULL), 0);
	assert_int_equal(probe_dns_targets((const uint8_t(*)[16])b, N, NULL, 0, 0, &lb, NULL), 0);
	assert_int_equal(probe_dns_targets((const uint8_t(*)[16])a, N + 1, NULL, 0, 0, &lc, NULL),
			 0);
	assert_int_equal(probe_targets_sample(&la, K, 42, ia, w), K);
	assert_int_equal(probe_targets_sample(&lb, K, 42, ib, w), K);
	assert_int_equal(probe_targets_sample(&lc, K, 42, ic, w), K);
	for (int i = 0; i < K; i++) {
		assert_string_equal(la.targets[ia[i]].raw, lb.targets[ib[i]].raw);
		for (int j = 0; j < K; j++)
			same += strcmp(la.targets[ia[i]].raw, lc.targets[ic[j]].raw) == 0;
	}
	assert_true(same >= K - 1);
	probe_target_list_free(&la);
	probe_target_list_free(&lb);
	probe_target_list_free(&lc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_addrs_from_answer),
		cmocka_unit_test(test_targets_sorted_dedup_own_excluded),
		cmocka_unit_test(test_sample_stable_across_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
