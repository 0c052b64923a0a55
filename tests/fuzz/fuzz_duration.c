// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: Prometheus durations (config_parse_duration_ms) and listen
 * addresses (parse_listen_address), on the input as a C string.
 *
 * Invariants: a parsed duration is made only of digits, '.' and units, and its
 * canonical form ("1d2h3m4s5ms") parses back to the same number of
 * milliseconds; a split address has a port from 1 to 65535 and a host that fits,
 * and joined again it splits to the same host and port.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/strparse.h"
#include "daemon/config_duration.h"
#include "fuzz.h"

/* Canonical form of ms: the largest units first, zero groups left out. */
static void format_duration(uint64_t ms, char *out, size_t size)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {{"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}, {"ms", 1}};
	size_t len = 0;

	if (ms == 0) {
		snprintf(out, size, "0");
		return;
	}
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t n = ms / units[i].ms;

		ms %= units[i].ms;
		if (n)
			len += (size_t)snprintf(out + len, size - len, "%" PRIu64 "%s", n,
						units[i].unit);
	}
}

static void check_duration(const char *s)
{
	char again[128];
	uint64_t ms, ms2;
	int r = config_parse_duration_ms(s, &ms);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r)
		return;
	FUZZ_CHECK(s[0] != '\0');
	FUZZ_CHECK(strspn(s, "0123456789.ywdhms") == strlen(s));
	format_duration(ms, again, sizeof(again));
	FUZZ_CHECK(config_parse_duration_ms(again, &ms2) == 0);
	FUZZ_CHECK(ms2 == ms);
}

static void check_listen(const char *s)
{
	char host[64], host2[64], again[96];
	uint16_t port, port2;
	int r = parse_listen_address(s, host, sizeof(host), &port);

	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r)
		return;
	FUZZ_CHECK(port > 0);
	FUZZ_CHECK(strlen(host) < sizeof(host));
	if (s[0] == '[') {
		FUZZ_CHECK(host[0] != '\0');
		snprintf(again, sizeof(again), "[%s]:%u", host, port);
	} else {
		FUZZ_CHECK(!strchr(host, ':'));
		snprintf(again, sizeof(again), "%s:%u", host, port);
	}
	FUZZ_CHECK(parse_listen_address(again, host2, sizeof(host2), &port2) == 0);
	FUZZ_CHECK(strcmp(host, host2) == 0 && port == port2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_strdup(data, size);

	if (!s)
		return 0;
	check_duration(s);
	check_listen(s);
	free(s);
	return 0;
}
