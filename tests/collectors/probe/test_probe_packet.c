// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the probe wire format: layout byte for byte, round trips,
 * every error of decode in its documented order, the reply in place. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rdma/rdma_cma.h>

#include "probe_packet.h"

_Static_assert(PROBE_QKEY == RDMA_UDP_QKEY, "the probe Q_Key is rdma_cm's UD Q_Key");
_Static_assert(!(PROBE_QKEY & 0x80000000u), "a controlled Q_Key needs privileges");

static const struct probe_packet sample = {
	.type = PROBE_PACKET_REQUEST,
	.flags = 0x0102,
	.seq = 0x1112131415161718ULL,
	.send_ns = 0x2122232425262728ULL,
	.session = 0x31323334,
	.responder = 0x41424344,
	.resp_rx_ns = 0x5152535455565758ULL,
	.resp_tx_ns = 0x6162636465666768ULL,
	.spin_us = 0x71727374,
};

static const uint8_t sample_bytes[PROBE_PACKET_LEN] = {
	'R',  'D',  'X',  'P',	1,    1,    0x01, 0x02, /* magic version type flags */
	0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, /* seq */
	0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, /* send_ns */
	0x31, 0x32, 0x33, 0x34, 0x41, 0x42, 0x43, 0x44, /* session responder */
	0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, /* resp_rx_ns */
	0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, /* resp_tx_ns */
	0x71, 0x72, 0x73, 0x74, 0,    0,    0,	  0,	/* spin_us reserved */
	0,    0,    0,	  0,	0,    0,    0,	  0,
};

static void assert_packet_equal(const struct probe_packet *a, const struct probe_packet *b)
{
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->flags, b->flags);
	assert_true(a->seq == b->seq);
	assert_true(a->send_ns == b->send_ns);
	assert_int_equal(a->session, b->session);
	assert_int_equal(a->responder, b->responder);
	assert_true(a->resp_rx_ns == b->resp_rx_ns);
	assert_true(a->resp_tx_ns == b->resp_tx_ns);
	assert_int_equal(a->spin_us, b->spin_us);
}

static void test_layout_exact(void **state)
{
	uint8_t buf[PROBE_PACKET_LEN + 8];

	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(probe_packet_encode(&sample, buf, sizeof(buf)), PROBE_PACKET_LEN);
	assert_memory_equal(buf, sample_bytes, PROBE_PACKET_LEN);
	/* Nothing written past the packet. */
	for (size_t i = PROBE_PACKET_LEN; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xee);
	assert_int_equal(PROBE_PACKET_MAGIC, 0x52445850u);
}

static void test_round_trip(void **state)
{
	struct probe_packet in = sample, out;
	uint8_t buf[PROBE_PACKET_LEN];

	for (int type = PROBE_PACKET_REQUEST; type <= PROBE_PACKET_REPLY; type++) {
		in.type = (uint8_t)type;
		assert_int_equal(probe_packet_encode(&in, buf, sizeof(buf)), PROBE_PACKET_LEN);
		memset(&out, 0, sizeof(out));
		assert_int_equal(probe_packet_decode(buf, sizeof(buf), &out), 0);
		assert_packet_equal(&in, &out);
	}
	memset(&in, 0xff, sizeof(in));
	in.type = PROBE_PACKET_REPLY;
	assert_int_equal(probe_packet_encode(&in, buf, sizeof(buf)), PROBE_PACKET_LEN);
	assert_int_equal(probe_packet_decode(buf, sizeof(buf), &out), 0);
	assert_packet_equal(&in, &out);
}

static void test_encode_errors(void **state)
{
	struct probe_packet p = sample;
	uint8_t buf[PROBE_PACKET_LEN];

	assert_int_equal(probe_packet_encode(&p, buf, PROBE_PACKET_LEN - 1), -EMSGSIZE);
	assert_int_equal(probe_packet_encode(&p, buf, 0), -EMSGSIZE);
	p.type = 0;
	assert_int_equal(probe_packet_encode(&p, buf, sizeof(buf)), -EINVAL);
	p.type = 3;
	assert_int_equal(probe_packet_encode(&p, buf, sizeof(buf)), -EINVAL);
}

static void test_decode_errors(void **state)
{
	uint8_t buf[2 * PROBE_PACKET_LEN];
	struct probe_packet p, untouched;

	memset(&untouched, 0x5a, sizeof(untouched));
	memset(buf, 0, sizeof(buf));
	memcpy(buf, sample_bytes, PROBE_PACKET_LEN);
	p = untouched;

	/* Too short for a magic, or the wrong magic: not ours. */
	for (size_t len = 0; len < 4; len++)
		assert_int_equal(probe_packet_decode(buf, len, &p), -EBADMSG);
	for (size_t i = 0; i < 4; i++) {
		buf[i] ^= 0x20;
		assert_int_equal(probe_packet_decode(buf, PROBE_PACKET_LEN, &p), -EBADMSG);
		assert_int_equal(probe_packet_decode(buf, 7, &p), -EBADMSG);
		buf[i] ^= 0x20;
	}
	/* The magic and nothing more. */
	assert_int_equal(probe_packet_decode(buf, 4, &p), -EMSGSIZE);

	/* Wrong version, whatever the length: a later version may be longer. */
	for (unsigned v = 0; v < 256; v++) {
		if (v == PROBE_PACKET_VERSION)
			continue;
		buf[4] = (uint8_t)v;
		assert_int_equal(probe_packet_decode(buf, PROBE_PACKET_LEN, &p), -EPROTO);
		assert_int_equal(probe_packet_decode(buf, 5, &p), -EPROTO);
		assert_int_equal(probe_packet_decode(buf, sizeof(buf), &p), -EPROTO);
	}
	buf[4] = PROBE_PACKET_VERSION;

	/* Exactly 64 bytes: no more, no less. */
	for (size_t len = 5; len <= sizeof(buf); len++)
		if (len != PROBE_PACKET_LEN)
			assert_int_equal(probe_packet_decode(buf, len, &p), -EMSGSIZE);

	/* Unknown type; also when the length is wrong, length wins. */
	for (unsigned t = 0; t < 256; t++) {
		if (t == PROBE_PACKET_REQUEST || t == PROBE_PACKET_REPLY)
			continue;
		buf[5] = (uint8_t)t;
		assert_int_equal(probe_packet_decode(buf, PROBE_PACKET_LEN, &p), -EPROTO);
		assert_int_equal(probe_packet_decode(buf, PROBE_PACKET_LEN - 1, &p), -EMSGSIZE);
	}
	assert_memory_equal(&p, &untouched, sizeof(p));
	buf[5] = PROBE_PACKET_REQUEST;

	/* Flags and reserved bytes are not checked. */
	memset(buf + 48, 0xff, 16);
	assert_int_equal(probe_packet_decode(buf, PROBE_PACKET_LEN, &p), 0);
	assert_int_equal(p.flags, 0x0102);
}

static void test_reply_in_place(void **state)
{
	struct probe_packet req = sample, rep;
	uint8_t buf[PROBE_PACKET_LEN], before[PROBE_PACKET_LEN];

	req.responder = 0;
	req.resp_rx_ns = req.resp_tx_ns = 0;
	assert_int_equal(probe_packet_encode(&req, buf, sizeof(buf)), PROBE_PACKET_LEN);
	buf[56] = 0x77; /* a reserved byte set by some later sender */
	memcpy(before, buf, sizeof(buf));

	assert_int_equal(probe_packet_make_reply(buf, sizeof(buf), 0xa1a2a3a4, 1000, 1250, 0), 0);
	/* Echoed byte for byte: magic, version, flags, seq, send_ns, session. */
	assert_memory_equal(buf, before, 5);
	assert_int_equal(buf[5], PROBE_PACKET_REPLY);
	assert_memory_equal(buf + 6, before + 6, 28 - 6);
	for (size_t i = 48; i < PROBE_PACKET_LEN; i++)
		assert_int_equal(buf[i], 0);

	assert_int_equal(probe_packet_decode(buf, sizeof(buf), &rep), 0);
	assert_int_equal(rep.type, PROBE_PACKET_REPLY);
	assert_true(rep.seq == req.seq);
	assert_true(rep.send_ns == req.send_ns);
	assert_int_equal(rep.session, req.session);
	assert_int_equal(rep.flags, req.flags);
	assert_int_equal(rep.responder, 0xa1a2a3a4);
	assert_true(rep.resp_rx_ns == 1000);
	assert_true(rep.resp_tx_ns == 1250);
	assert_int_equal(rep.spin_us, 0); /* asked of this responder, not echoed */

	/* Never answer a reply. */
	memcpy(before, buf, sizeof(buf));
	assert_int_equal(probe_packet_make_reply(buf, sizeof(buf), 1, 2, 3, 0), -EPROTO);
	assert_memory_equal(buf, before, sizeof(buf));
}

/* A wake-up request's flag is echoed, the responder's clock flag or-ed in. */
static void test_reply_flags(void **state)
{
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST,
				   .seq = 3,
				   .flags = PROBE_PACKET_F_WAKEUP},
			    rep;
	uint8_t buf[PROBE_PACKET_LEN];

	(void)state;
	assert_int_equal(probe_packet_encode(&req, buf, sizeof(buf)), PROBE_PACKET_LEN);
	assert_int_equal(
		probe_packet_make_reply(buf, sizeof(buf), 1, 2, 3, PROBE_PACKET_F_NIC_CLOCK), 0);
	assert_int_equal(probe_packet_decode(buf, sizeof(buf), &rep), 0);
	assert_int_equal(rep.flags, PROBE_PACKET_F_WAKEUP | PROBE_PACKET_F_NIC_CLOCK);
	req.flags = 0;
	assert_int_equal(probe_packet_encode(&req, buf, sizeof(buf)), PROBE_PACKET_LEN);
	assert_int_equal(probe_packet_make_reply(buf, sizeof(buf), 1, 2, 3, 0), 0);
	assert_int_equal(probe_packet_decode(buf, sizeof(buf), &rep), 0);
	assert_int_equal(rep.flags, 0);
}

static void test_reply_errors(void **state)
{
	uint8_t buf[PROBE_PACKET_LEN + 1], before[sizeof(buf)];

	memcpy(buf, sample_bytes, PROBE_PACKET_LEN);
	buf[PROBE_PACKET_LEN] = 0;
	memcpy(before, buf, sizeof(buf));
	assert_int_equal(probe_packet_make_reply(buf, PROBE_PACKET_LEN + 1, 1, 2, 3, 0), -EMSGSIZE);
	assert_int_equal(probe_packet_make_reply(buf, PROBE_PACKET_LEN - 1, 1, 2, 3, 0), -EMSGSIZE);
	assert_int_equal(probe_packet_make_reply(buf, 0, 1, 2, 3, 0), -EBADMSG);
	buf[0] = 'X';
	assert_int_equal(probe_packet_make_reply(buf, PROBE_PACKET_LEN, 1, 2, 3, 0), -EBADMSG);
	buf[0] = 'R';
	buf[4] = 2;
	assert_int_equal(probe_packet_make_reply(buf, PROBE_PACKET_LEN, 1, 2, 3, 0), -EPROTO);
	buf[4] = 1;
	buf[5] = 9;
	assert_int_equal(probe_packet_make_reply(buf, PROBE_PACKET_LEN, 1, 2, 3, 0), -EPROTO);
	buf[5] = 1;
	assert_memory_equal(buf, before, sizeof(buf));
}

/* A reply as the requester decodes it: a request turned into a reply by
 * the responder's step, with its two readings. */
static struct probe_packet built_reply(uint64_t rx_ns, uint64_t tx_ns)
{
	struct probe_packet req = {.type = PROBE_PACKET_REQUEST, .seq = 7, .send_ns = 100},
			    rep = {0};
	uint8_t buf[PROBE_PACKET_LEN];

	assert_int_equal(probe_packet_encode(&req, buf, sizeof(buf)), PROBE_PACKET_LEN);
	assert_int_equal(probe_packet_make_reply(buf, sizeof(buf), 9, rx_ns, tx_ns, 0), 0);
	assert_int_equal(probe_packet_decode(buf, sizeof(buf), &rep), 0);
	assert_int_equal(rep.type, PROBE_PACKET_REPLY);
	return rep;
}

static void test_split_rtt(void **state)
{
	struct probe_rtt_split sp;
	struct probe_packet rep;

	/* 10 us round trip, 3 us of it in the responder: 7 us network. The
	 * responder's clock is far from the requester's: only its difference
	 * counts. */
	rep = built_reply(5000000000000ull, 5000000003000ull);
	probe_packet_split_rtt(&rep, 10000, &sp);
	assert_true(sp.network_ns == 7000 && sp.turnaround_ns == 3000);
	assert_false(sp.clamped);
	assert_false(sp.bad_readings);

	/* No turnaround: all network. */
	rep = built_reply(42, 42);
	probe_packet_split_rtt(&rep, 8000, &sp);
	assert_true(sp.network_ns == 8000 && sp.turnaround_ns == 0);
	assert_false(sp.clamped || sp.bad_readings);

	/* Turnaround equal to the RTT: network 0, not clamped. */
	rep = built_reply(1000, 9000);
	probe_packet_split_rtt(&rep, 8000, &sp);
	assert_true(sp.network_ns == 0 && sp.turnaround_ns == 8000);
	assert_false(sp.clamped);

	/* Longer than the RTT: cut to it, network 0, the parts still add up. */
	rep = built_reply(1000, 20000);
	probe_packet_split_rtt(&rep, 8000, &sp);
	assert_true(sp.network_ns == 0 && sp.turnaround_ns == 8000);
	assert_true(sp.clamped);
	assert_false(sp.bad_readings);

	/* tx before rx: no turnaround, the whole RTT is the network's. */
	rep = built_reply(20000, 1000);
	probe_packet_split_rtt(&rep, 8000, &sp);
	assert_true(sp.network_ns == 8000 && sp.turnaround_ns == 0);
	assert_true(sp.bad_readings);
	assert_false(sp.clamped);

	/* Extremes do not wrap. */
	rep = built_reply(0, UINT64_MAX);
	probe_packet_split_rtt(&rep, UINT64_MAX, &sp);
	assert_true(sp.network_ns == 0 && sp.turnaround_ns == UINT64_MAX);
	probe_packet_split_rtt(&rep, 0, &sp);
	assert_true(sp.network_ns == 0 && sp.turnaround_ns == 0 && sp.clamped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_exact),   cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_encode_errors),  cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_reply_in_place), cmocka_unit_test(test_reply_flags),
		cmocka_unit_test(test_reply_errors),   cmocka_unit_test(test_split_rtt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
