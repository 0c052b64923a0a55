// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target: the two 64-byte wire formats of the probe, fed the same
 * bytes: the probe packet (probe_packet.c: decode, encode, the responder's
 * in-place reply) and the discovery datagram (probe_discovery.c).
 *
 * Invariants: errors are the documented ones and leave the output untouched; a
 * decoded packet re-encodes to the bytes read (reserved bytes and a query's
 * unused fields aside) and decodes to the same again; the responder answers
 * every valid request, never a reply, and its answer decodes as the reply to
 * that request.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "probe_discovery.h"
#include "probe_packet.h"

/* Whatever readings a reply carries and whatever the RTT (here its send_ns), the
 * split adds up to the RTT and never wraps. */
static void check_split(const struct probe_packet *p)
{
	struct probe_rtt_split sp;
	uint64_t rtt = p->send_ns;

	probe_packet_split_rtt(p, rtt, &sp);
	FUZZ_CHECK(sp.network_ns + sp.turnaround_ns == rtt);
	FUZZ_CHECK(sp.turnaround_ns <= rtt);
	FUZZ_CHECK(sp.bad_readings == (p->resp_tx_ns < p->resp_rx_ns));
	FUZZ_CHECK(!sp.bad_readings || sp.turnaround_ns == 0);
	FUZZ_CHECK(sp.clamped == (!sp.bad_readings && p->resp_tx_ns - p->resp_rx_ns > rtt));
}

static void check_packet(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1), again[PROBE_PACKET_LEN];
	struct probe_packet p, q, untouched;
	int rc, rrc;

	if (!copy)
		return;
	if (size)
		memcpy(copy, data, size);
	memset(&untouched, 0xa5, sizeof(untouched));
	p = untouched;
	rc = probe_packet_decode(copy, size, &p);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -EPROTO || rc == -EMSGSIZE);
	if (rc) {
		FUZZ_CHECK(memcmp(&p, &untouched, sizeof(p)) == 0);
	} else {
		FUZZ_CHECK(size == PROBE_PACKET_LEN);
		FUZZ_CHECK(p.type == PROBE_PACKET_REQUEST || p.type == PROBE_PACKET_REPLY);
		FUZZ_CHECK(probe_packet_encode(&p, again, sizeof(again)) == PROBE_PACKET_LEN);
		FUZZ_CHECK(memcmp(again, copy, 48) == 0);
		for (size_t i = 48; i < PROBE_PACKET_LEN; i++)
			FUZZ_CHECK(again[i] == 0);
		FUZZ_CHECK(probe_packet_decode(again, sizeof(again), &q) == 0);
		FUZZ_CHECK(memcmp(&p, &q, sizeof(p)) == 0 ||
			   (q.type == p.type && q.flags == p.flags && q.seq == p.seq &&
			    q.send_ns == p.send_ns && q.session == p.session &&
			    q.responder == p.responder && q.resp_rx_ns == p.resp_rx_ns &&
			    q.resp_tx_ns == p.resp_tx_ns));
		check_split(&p);
	}
	rrc = probe_packet_make_reply(copy, size, 7, 8, 9, 0);
	if (rc) {
		FUZZ_CHECK(rrc == rc);
	} else if (p.type == PROBE_PACKET_REQUEST) {
		FUZZ_CHECK(rrc == 0);
		FUZZ_CHECK(probe_packet_decode(copy, size, &q) == 0);
		FUZZ_CHECK(q.type == PROBE_PACKET_REPLY && q.flags == p.flags && q.seq == p.seq &&
			   q.send_ns == p.send_ns && q.session == p.session && q.responder == 7 &&
			   q.resp_rx_ns == 8 && q.resp_tx_ns == 9);
		/* never answer a reply */
		FUZZ_CHECK(probe_packet_make_reply(copy, size, 7, 8, 9, 0) == -EPROTO);
	} else {
		FUZZ_CHECK(rrc == -EPROTO);
	}
	free(copy);
}

static void check_disc(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1), again[PROBE_DISC_LEN];
	struct probe_disc d, d2, untouched;
	int rc;

	if (!copy)
		return;
	if (size)
		memcpy(copy, data, size);
	memset(&untouched, 0xa5, sizeof(untouched));
	d = untouched;
	rc = probe_disc_decode(copy, size, &d);
	FUZZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -EPROTO || rc == -EMSGSIZE);
	if (rc) {
		FUZZ_CHECK(memcmp(&d, &untouched, sizeof(d)) == 0);
		free(copy);
		return;
	}
	FUZZ_CHECK(size == PROBE_DISC_LEN);
	FUZZ_CHECK(d.type == PROBE_DISC_QUERY || d.type == PROBE_DISC_ANSWER);
	if (d.type == PROBE_DISC_ANSWER) {
		FUZZ_CHECK(d.qpn > 1 && d.qpn <= 0xffffff);
		FUZZ_CHECK(d.link_layer == PROBE_DISC_LINK_IB ||
			   d.link_layer == PROBE_DISC_LINK_ETH);
	} else {
		FUZZ_CHECK(d.qpn == 0 && d.link_layer == 0 && d.flags == 0);
	}
	FUZZ_CHECK(probe_disc_encode(&d, again, sizeof(again)) == PROBE_DISC_LEN);
	FUZZ_CHECK(memcmp(again, copy, 6) == 0);
	FUZZ_CHECK(memcmp(again + 8, copy + 8, 8) == 0);
	FUZZ_CHECK(memcmp(again + 44, copy + 44, 4) == 0);
	if (d.type == PROBE_DISC_ANSWER) {
		FUZZ_CHECK(memcmp(again + 6, copy + 6, 2) == 0);
		FUZZ_CHECK(memcmp(again + 16, copy + 16, 43 - 16) == 0);
	}
	FUZZ_CHECK(again[43] == 0);
	for (size_t i = 48; i < PROBE_DISC_LEN; i++)
		FUZZ_CHECK(again[i] == 0);
	FUZZ_CHECK(probe_disc_decode(again, sizeof(again), &d2) == 0);
	FUZZ_CHECK(d2.type == d.type && d2.flags == d.flags && d2.port == d.port &&
		   d2.nonce == d.nonce && memcmp(d2.gid, d.gid, sizeof(d.gid)) == 0 &&
		   d2.qpn == d.qpn && d2.qkey == d.qkey && d2.lid == d.lid &&
		   d2.link_layer == d.link_layer && d2.session == d.session);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_packet(data, size);
	check_disc(data, size);
	return 0;
}
