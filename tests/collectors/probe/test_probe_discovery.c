// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the discovery datagram: layout byte for byte, round trips,
 * a query's answer-only fields, every error of encode and of decode in its
 * documented order. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe_discovery.h"

static const struct probe_disc sample = {
	.type = PROBE_DISC_ANSWER,
	.flags = PROBE_DISC_F_MATCHED,
	.port = 2,
	.nonce = 0x1112131415161718ULL,
	.gid = {0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d,
		0x2e, 0x2f},
	.qpn = 0x313233,
	.qkey = 0x01234567,
	.lid = 0x4142,
	.link_layer = PROBE_DISC_LINK_IB,
	.session = 0x51525354,
};

static const uint8_t sample_bytes[PROBE_DISC_LEN] = {
	'R',  'D',  'X',  'Q',	1,    2,    0x01, 0x02, /* magic version type flags port */
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, /* nonce */
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, /* gid */
	0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
	0x00, 0x31, 0x32, 0x33, 0x01, 0x23, 0x45, 0x67, /* qpn qkey */
	0x41, 0x42, 0x01, 0x00, 0x51, 0x52, 0x53, 0x54, /* lid link_layer reserved session */
	0,    0,    0,	  0,	0,    0,    0,	  0,	/* reserved */
	0,    0,    0,	  0,	0,    0,    0,	  0,
};

static void assert_disc_equal(const struct probe_disc *a, const struct probe_disc *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->port, b->port);
	assert_true(a->nonce == b->nonce);
	assert_memory_equal(a->gid, b->gid, sizeof(a->gid));
	assert_int_equal(a->qpn, b->qpn);
	assert_int_equal(a->qkey, b->qkey);
	assert_int_equal(a->lid, b->lid);
	assert_int_equal(a->link_layer, b->link_layer);
	assert_int_equal(a->session, b->session);
}

static void test_layout_exact(void **state)
{
	uint8_t buf[PROBE_DISC_LEN + 8];

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(probe_disc_encode(&sample, buf, sizeof(buf)), PROBE_DISC_LEN);
	assert_memory_equal(buf, sample_bytes, PROBE_DISC_LEN);
	/* Nothing written past the datagram. */
	for (size_t i = PROBE_DISC_LEN; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(PROBE_DISC_MAGIC, 0x52445851u);
}

static void test_query_layout(void **state)
{
	static const uint8_t want[PROBE_DISC_LEN] = {
		'R',	     'D',  'X',	 'Q',
		1,	     1,	   0,	 0, /* magic version type, flags port 0 */
		0x81,	     0x82, 0x83, 0x84,
		0x85,	     0x86, 0x87, 0x88, /* nonce */
		[44] = 0x91, 0x92, 0x93, 0x94, /* session; everything else 0 */
	};
	struct probe_disc q, out;
	uint8_t buf[PROBE_DISC_LEN];

	/* Answer-only fields full of junk, even invalid ones: written as 0. */
	memset(&q, 0xff, sizeof(q));
	q.type = PROBE_DISC_QUERY;
	q.nonce = 0x8182838485868788ULL;
	q.session = 0x91929394;
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(probe_disc_encode(&q, buf, sizeof(buf)), PROBE_DISC_LEN);
	assert_memory_equal(buf, want, sizeof(want));

	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &out), 0);
	assert_int_equal(out.type, PROBE_DISC_QUERY);
	assert_true(out.nonce == 0x8182838485868788ULL);
	assert_int_equal(out.session, 0x91929394);
	assert_int_equal(out.flags, 0);
	assert_int_equal(out.port, 0);
	for (size_t i = 0; i < sizeof(out.gid); i++)
		assert_int_equal(out.gid[i], 0);
	assert_int_equal(out.qpn, 0);
	assert_int_equal(out.qkey, 0);
	assert_int_equal(out.lid, 0);
	assert_int_equal(out.link_layer, 0);

	/* A query with junk where an answer has its fields: not checked, read
	 * as 0, as its encoding would write them. */
	memset(buf + 6, 0xff, 2);
	memset(buf + 16, 0xff, 28);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &out), 0);
	assert_int_equal(out.qpn, 0);
	assert_int_equal(out.link_layer, 0);
	assert_int_equal(out.flags, 0);
	assert_int_equal(out.gid[15], 0);
	assert_int_equal(out.session, 0x91929394);
}

static void test_round_trip(void **state)
{
	struct probe_disc in = sample, out;
	uint8_t buf[PROBE_DISC_LEN];

	assert_int_equal(probe_disc_encode(&in, buf, sizeof(buf)), PROBE_DISC_LEN);
	memset(&out, 0, sizeof(out));
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &out), 0);
	assert_disc_equal(&in, &out);

	/* An answer at the limits of every field. */
	memset(&in, 0xff, sizeof(in));
	in.type = PROBE_DISC_ANSWER;
	in.qpn = 0xffffff;
	in.link_layer = PROBE_DISC_LINK_ETH;
	assert_int_equal(probe_disc_encode(&in, buf, sizeof(buf)), PROBE_DISC_LEN);
	assert_int_equal(buf[32], 0);
	assert_int_equal(buf[43], 0);
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &out), 0);
	assert_disc_equal(&in, &out);
	in.qpn = 2;
	in.link_layer = PROBE_DISC_LINK_IB;
	assert_int_equal(probe_disc_encode(&in, buf, sizeof(buf)), PROBE_DISC_LEN);
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &out), 0);
	assert_disc_equal(&in, &out);

	/* A query keeps its nonce and session. */
	memset(&in, 0, sizeof(in));
	in.type = PROBE_DISC_QUERY;
	in.nonce = UINT64_MAX - 1;
	in.session = 0xfffffffe;
	assert_int_equal(probe_disc_encode(&in, buf, sizeof(buf)), PROBE_DISC_LEN);
	memset(&out, 0x5a, sizeof(out));
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &out), 0);
	assert_disc_equal(&in, &out);
}

static void test_encode_errors(void **state)
{
	static const uint32_t bad_qpns[] = {0, 1, 0x1000000, 0x1000002, 0xffffffff};
	static const uint8_t bad_links[] = {0, 3, 0xff};
	struct probe_disc d = sample;
	uint8_t buf[PROBE_DISC_LEN], before[PROBE_DISC_LEN];

	memset(buf, 0xee, sizeof(buf));
	memcpy(before, buf, sizeof(buf));
	/* A short buffer, and nothing written to it. */
	assert_int_equal(probe_disc_encode(&d, buf, PROBE_DISC_LEN - 1), -EMSGSIZE);
	assert_int_equal(probe_disc_encode(&d, buf, 0), -EMSGSIZE);
	d.type = 0;
	assert_int_equal(probe_disc_encode(&d, buf, 1), -EMSGSIZE);
	assert_memory_equal(buf, before, sizeof(buf));

	/* Neither query nor answer. */
	for (unsigned t = 0; t < 256; t++) {
		if (t == PROBE_DISC_QUERY || t == PROBE_DISC_ANSWER)
			continue;
		d.type = (uint8_t)t;
		assert_int_equal(probe_disc_encode(&d, buf, sizeof(buf)), -EINVAL);
	}
	assert_memory_equal(buf, before, sizeof(buf));

	/* An answer that its peer would refuse: a management or too wide QPN, an
	 * unknown link layer. A query has no such fields to check. */
	for (size_t i = 0; i < sizeof(bad_qpns) / sizeof(bad_qpns[0]); i++) {
		d = sample;
		d.qpn = bad_qpns[i];
		assert_int_equal(probe_disc_encode(&d, buf, sizeof(buf)), -EINVAL);
		d.type = PROBE_DISC_QUERY;
		assert_int_equal(probe_disc_encode(&d, buf, sizeof(buf)), PROBE_DISC_LEN);
		assert_int_equal(buf[35], 0);
	}
	for (size_t i = 0; i < sizeof(bad_links); i++) {
		d = sample;
		d.link_layer = bad_links[i];
		assert_int_equal(probe_disc_encode(&d, buf, sizeof(buf)), -EINVAL);
		d.type = PROBE_DISC_QUERY;
		assert_int_equal(probe_disc_encode(&d, buf, sizeof(buf)), PROBE_DISC_LEN);
		assert_int_equal(buf[42], 0);
	}
}

static void test_decode_errors(void **state)
{
	uint8_t buf[2 * PROBE_DISC_LEN];
	struct probe_disc d, untouched;

	memset(&untouched, 0x5a, sizeof(untouched));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, sample_bytes, PROBE_DISC_LEN);
	d = untouched;

	/* Too short for a magic, or the wrong magic (the probe's own among
	 * them): not ours. */
	for (size_t len = 0; len < 4; len++)
		assert_int_equal(probe_disc_decode(buf, len, &d), -EBADMSG);
	for (size_t i = 0; i < 4; i++) {
		buf[i] ^= 0x20;
		assert_int_equal(probe_disc_decode(buf, PROBE_DISC_LEN, &d), -EBADMSG);
		assert_int_equal(probe_disc_decode(buf, 7, &d), -EBADMSG);
		buf[i] ^= 0x20;
	}
	buf[3] = 'P';
	assert_int_equal(probe_disc_decode(buf, PROBE_DISC_LEN, &d), -EBADMSG);
	buf[3] = 'Q';
	/* The magic and nothing more. */
	assert_int_equal(probe_disc_decode(buf, 4, &d), -EMSGSIZE);

	/* Wrong version, whatever the length: checked before the length. */
	for (unsigned v = 0; v < 256; v++) {
		if (v == PROBE_DISC_VERSION)
			continue;
		buf[4] = (uint8_t)v;
		assert_int_equal(probe_disc_decode(buf, PROBE_DISC_LEN, &d), -EPROTO);
		assert_int_equal(probe_disc_decode(buf, 5, &d), -EPROTO);
		assert_int_equal(probe_disc_decode(buf, sizeof(buf), &d), -EPROTO);
	}
	buf[4] = PROBE_DISC_VERSION;

	/* Exactly 64 bytes: short and long are refused alike. */
	for (size_t len = 5; len <= sizeof(buf); len++)
		if (len != PROBE_DISC_LEN)
			assert_int_equal(probe_disc_decode(buf, len, &d), -EMSGSIZE);

	/* Unknown type; when the length is wrong too, the length wins. */
	for (unsigned t = 0; t < 256; t++) {
		if (t == PROBE_DISC_QUERY || t == PROBE_DISC_ANSWER)
			continue;
		buf[5] = (uint8_t)t;
		assert_int_equal(probe_disc_decode(buf, PROBE_DISC_LEN, &d), -EPROTO);
		assert_int_equal(probe_disc_decode(buf, PROBE_DISC_LEN - 1, &d), -EMSGSIZE);
	}
	buf[5] = PROBE_DISC_ANSWER;
	assert_memory_equal(&d, &untouched, sizeof(d));
}

static void set_qpn(uint8_t *buf, uint32_t qpn)
{
	buf[32] = (uint8_t)(qpn >> 24);
	buf[33] = (uint8_t)(qpn >> 16);
	buf[34] = (uint8_t)(qpn >> 8);
	buf[35] = (uint8_t)qpn;
}

static void test_decode_answer_checks(void **state)
{
	static const uint32_t bad_qpns[] = {0, 1, 0x1000000, 0x1000002, 0x80313233, 0xffffffff};
	uint8_t buf[PROBE_DISC_LEN];
	struct probe_disc d, q, untouched;

	memset(&untouched, 0x5a, sizeof(untouched));
	d = untouched;
	memcpy(buf, sample_bytes, sizeof(buf));

	for (size_t i = 0; i < sizeof(bad_qpns) / sizeof(bad_qpns[0]); i++) {
		set_qpn(buf, bad_qpns[i]);
		assert_int_equal(probe_disc_decode(buf, sizeof(buf), &d), -EPROTO);
		/* The length comes first. */
		assert_int_equal(probe_disc_decode(buf, sizeof(buf) - 1, &d), -EMSGSIZE);
		/* A query does not carry a QPN: not checked there. */
		buf[5] = PROBE_DISC_QUERY;
		assert_int_equal(probe_disc_decode(buf, sizeof(buf), &q), 0);
		assert_int_equal(q.qpn, 0);
		buf[5] = PROBE_DISC_ANSWER;
	}
	set_qpn(buf, 0x313233);
	for (unsigned l = 0; l < 256; l++) {
		if (l == PROBE_DISC_LINK_IB || l == PROBE_DISC_LINK_ETH)
			continue;
		buf[42] = (uint8_t)l;
		assert_int_equal(probe_disc_decode(buf, sizeof(buf), &d), -EPROTO);
	}
	assert_memory_equal(&d, &untouched, sizeof(d));

	/* The edges that pass. */
	buf[42] = PROBE_DISC_LINK_ETH;
	set_qpn(buf, 2);
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.qpn, 2);
	assert_int_equal(d.link_layer, PROBE_DISC_LINK_ETH);
	set_qpn(buf, 0xffffff);
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.qpn, 0xffffff);

	/* Reserved bytes and unknown flag bits are not checked; flags read as sent. */
	buf[6] = 0xfe;
	buf[43] = 0x77;
	memset(buf + 48, 0xff, 16);
	assert_int_equal(probe_disc_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.flags, 0xfe);
	assert_int_equal(d.port, 2);
	assert_int_equal(d.session, 0x51525354);
	assert_int_equal(d.lid, 0x4142);
	assert_int_equal(d.qkey, 0x01234567);
	assert_int_equal(d.gid[0], 0x20);
	assert_int_equal(d.gid[15], 0x2f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_exact),  cmocka_unit_test(test_query_layout),
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_decode_errors), cmocka_unit_test(test_decode_answer_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
