// SPDX-License-Identifier: Apache-2.0
/*
 * The pure LLDP decoder: every chassis and port ID subtype the issue names
 * (MAC, network address, interface name, locally assigned...), TTL, port
 * description, system name, label sanitising and length caps, and malformed
 * frames (truncated, mandatory TLVs missing, out of order, repeated).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lldp_build.h"
#include "lldp_parse.h"

static void test_switch_frame(void **unused)
{
	struct lldp_frame f;
	struct lldp_neighbor n;

	(void)unused;
	lf_switch(&f, "leaf-sw-1", "Ethernet1/7", 120);
	assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	assert_string_equal(n.chassis_id, "0c:42:a1:00:00:01");
	assert_int_equal(n.chassis_subtype, LLDP_CHASSIS_MAC);
	assert_string_equal(n.port_id, "Ethernet1/7");
	assert_int_equal(n.port_subtype, LLDP_PORT_IFNAME);
	assert_int_equal(n.ttl_s, 120);
	assert_string_equal(n.port_description, "uplink to node");
	assert_string_equal(n.system_name, "leaf-sw-1");
}

static void test_network_address_ids(void **unused)
{
	static const uint8_t v4[5] = {1, 192, 0, 2, 7};
	static const uint8_t v6[17] = {2, 0x20, 0x01, 0x0d, 0xb8, [16] = 1};
	static const uint8_t bad_family[5] = {9, 1, 2, 3, 4};
	struct lldp_frame f;
	struct lldp_neighbor n;

	(void)unused;
	lf_start(&f);
	lf_id(&f, 1, LLDP_CHASSIS_NETADDR, v4, sizeof(v4));
	lf_id(&f, 2, LLDP_PORT_NETADDR, v6, sizeof(v6));
	lf_ttl(&f, 30);
	lf_end(&f);
	assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	assert_string_equal(n.chassis_id, "192.0.2.7");
	assert_string_equal(n.port_id, "2001:db8::1");
	assert_string_equal(n.system_name, "");
	assert_string_equal(n.port_description, "");

	lf_start(&f);
	lf_id(&f, 1, LLDP_CHASSIS_NETADDR, bad_family, sizeof(bad_family));
	lf_id(&f, 2, LLDP_PORT_MAC, "\x0c\x42\xa1\x00\x00\x02", 6);
	lf_ttl(&f, 30);
	assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	assert_string_equal(n.chassis_id, "09:01:02:03:04"); /* unknown family: hex */
	assert_string_equal(n.port_id, "0c:42:a1:00:00:02");
}

static void test_local_and_binary_ids(void **unused)
{
	static const uint8_t bin[3] = {0x00, 0xff, 0x10};
	struct lldp_frame f;
	struct lldp_neighbor n;

	(void)unused;
	lf_start(&f);
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "SN12345", 7);
	lf_id(&f, 2, LLDP_PORT_LOCAL, bin, sizeof(bin));
	lf_ttl(&f, 5);
	lf_end(&f);
	assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	assert_string_equal(n.chassis_id, "SN12345");
	assert_string_equal(n.port_id, "00:ff:10");
	/* a MAC subtype of the wrong length is shown as text or hex, not as a MAC */
	lf_start(&f);
	lf_id(&f, 1, LLDP_CHASSIS_MAC, "abc", 3);
	lf_id(&f, 2, LLDP_PORT_IFALIAS, "p1", 2);
	lf_ttl(&f, 5);
	assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	assert_string_equal(n.chassis_id, "abc");
}

static void test_sanitised_and_capped(void **unused)
{
	char name[300], want[LLDP_LABEL_MAX + 1];
	struct lldp_frame f;
	struct lldp_neighbor n;

	(void)unused;
	memset(name, 'x', sizeof(name));
	name[0] = '\n';
	name[1] = '"';
	name[2] = (char)0xc3;
	lf_start(&f);
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_ttl(&f, 5);
	lf_tlv(&f, 5, name, 255);
	lf_tlv(&f, 4, "a\tb", 3);
	lf_end(&f);
	assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	memset(want, 'x', LLDP_LABEL_MAX);
	want[0] = '?';
	want[1] = '"'; /* printable: the exposition writer escapes it */
	want[2] = '?';
	want[LLDP_LABEL_MAX] = '\0';
	assert_string_equal(n.system_name, want);
	assert_int_equal(strlen(n.system_name), LLDP_LABEL_MAX);
	assert_string_equal(n.port_description, "a?b");
}

static void test_skips_other_tlvs(void **unused)
{
	static const uint8_t caps[4] = {0, 0x14, 0, 0x14};
	static const uint8_t org[6] = {0x00, 0x80, 0xc2, 0x01, 0x00, 0x01};
	struct lldp_frame f;
	struct lldp_neighbor n;

	(void)unused;
	lf_start(&f);
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_ttl(&f, 0);
	lf_tlv(&f, 6, "Switch OS 1.2", 13);
	lf_tlv(&f, 7, caps, sizeof(caps));
	lf_tlv(&f, 127, org, sizeof(org));
	lf_tlv(&f, 5, "sw", 2);
	lf_end(&f);
	/* padding after the End TLV is ignored */
	memset(f.b + f.len, 0xee, 20);
	assert_int_equal(lldp_parse_frame(f.b, f.len + 20, &n), 0);
	assert_int_equal(n.ttl_s, 0);
	assert_string_equal(n.system_name, "sw");
}

static void assert_bad(const struct lldp_frame *f, int want)
{
	struct lldp_neighbor n, untouched;

	memset(&n, 0x5a, sizeof(n));
	untouched = n;
	assert_int_equal(lldp_parse_frame(f->b, f->len, &n), want);
	assert_memory_equal(&n, &untouched, sizeof(n));
}

static void test_malformed(void **unused)
{
	struct lldp_frame f;

	(void)unused;
	lf_switch(&f, "sw", "p1", 120);
	f.len -= 5; /* system name TLV cut */
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* port ID before chassis ID */
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_ttl(&f, 5);
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* no TTL */
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_end(&f);
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* empty chassis ID (subtype only) */
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "", 0);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_ttl(&f, 5);
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* TTL of one byte */
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_tlv(&f, 3, "\x05", 1);
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* a second TTL, a second system name */
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_ttl(&f, 5);
	lf_ttl(&f, 6);
	assert_bad(&f, -EBADMSG);
	f.len -= 4;
	lf_tlv(&f, 5, "a", 1);
	lf_tlv(&f, 5, "b", 1);
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* End TLV with a length */
	lf_id(&f, 1, LLDP_CHASSIS_LOCAL, "c", 1);
	lf_id(&f, 2, LLDP_PORT_LOCAL, "p", 1);
	lf_ttl(&f, 5);
	lf_tlv(&f, 0, "x", 1);
	assert_bad(&f, -EBADMSG);

	lf_start(&f); /* nothing after the header */
	assert_bad(&f, -EBADMSG);
}

static void test_not_lldp(void **unused)
{
	struct lldp_frame f;

	(void)unused;
	lf_switch(&f, "sw", "p1", 120);
	f.b[13] = 0x00; /* ethertype 0x8800 */
	assert_bad(&f, -EPROTO);
	f.b[13] = 0xcc;
	f.b[5] = 0x01; /* 01:80:c2:00:00:01, pause frames */
	assert_bad(&f, -EPROTO);
	f.b[5] = 0x03; /* non-TPMR bridge group: LLDP too */
	{
		struct lldp_neighbor n;

		assert_int_equal(lldp_parse_frame(f.b, f.len, &n), 0);
	}
	f.len = 13;
	assert_bad(&f, -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_frame),
		cmocka_unit_test(test_network_address_ids),
		cmocka_unit_test(test_local_and_binary_ids),
		cmocka_unit_test(test_sanitised_and_capped),
		cmocka_unit_test(test_skips_other_tlvs),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_not_lldp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
