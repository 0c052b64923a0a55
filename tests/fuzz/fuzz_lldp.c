// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the LLDP decoder (collectors/lldp/lldp_parse.c) on any
 * bytes, as a whole Ethernet frame and as a bare LLDPDU.
 *
 * Invariants: the only errors are -EPROTO (frame: not LLDP) and -EBADMSG,
 * and they leave the output untouched; a decoded neighbour's strings are
 * NUL-terminated, at most LLDP_LABEL_MAX bytes and printable ASCII, with
 * non-empty chassis and port IDs; the raw IDs are 1 to LLDP_ID_MAX bytes
 * and a neighbour is the same MSAP as itself; decoding is deterministic.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "lldp_parse.h"

static void check_label(const char *s, size_t size, int nonempty)
{
	size_t n = strnlen(s, size);

	FUZZ_CHECK(n < size && n <= LLDP_LABEL_MAX);
	FUZZ_CHECK(!nonempty || n > 0);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK(s[i] >= 0x20 && s[i] <= 0x7e);
}

static void check_one(const uint8_t *data, size_t size, int frame)
{
	struct lldp_neighbor n, again, untouched;
	int rc;

	memset(&untouched, 0xa5, sizeof(untouched));
	n = untouched;
	rc = frame ? lldp_parse_frame(data, size, &n) : lldp_parse_pdu(data, size, &n);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG || (frame && rc == -EPROTO));
	if (rc) {
		FUZZ_CHECK(memcmp(&n, &untouched, sizeof(n)) == 0);
		return;
	}
	check_label(n.chassis_id, sizeof(n.chassis_id), 1);
	check_label(n.port_id, sizeof(n.port_id), 1);
	check_label(n.system_name, sizeof(n.system_name), 0);
	check_label(n.port_description, sizeof(n.port_description), 0);
	FUZZ_CHECK(n.chassis_raw_len >= 1 && n.port_raw_len >= 1);
	FUZZ_CHECK(lldp_same_msap(&n, &n));
	rc = frame ? lldp_parse_frame(data, size, &again) : lldp_parse_pdu(data, size, &again);
	FUZZ_CHECK(rc == 0 && memcmp(&n, &again, sizeof(n)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_one(data, size, 1);
	check_one(data, size, 0);
	return 0;
}
