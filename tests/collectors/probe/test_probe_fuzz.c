// SPDX-License-Identifier: Apache-2.0
/*
 * Fuzz-style regression test of the probe parsers: the target file parser
 * and the packet and discovery decoders over random bytes, random token
 * soups, every prefix of valid inputs and single-byte mutations of them at
 * every offset, all from a fixed seed. Inputs sit in exactly sized heap
 * buffers so that ASan catches any read past them; every result is checked
 * for the documented invariants (return codes, a one-line message and an
 * empty list on error, well-formed targets and labels on success, decoded
 * datagrams that encode again to what was read). The rate limiter runs
 * random traffic against a model of one token bucket per source.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe_bind.h"
#include "probe_discovery.h"
#include "probe_packet.h"
#include "probe_ratelimit.h"
#include "probe_targets.h"

static size_t n_ok, n_err;

static bool label_name_ok(const char *s)
{
	if (!*s || (s[0] >= '0' && s[0] <= '9') || (s[0] == '_' && s[1] == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static void check_list(const struct probe_target_list *l)
{
	assert_true(l->n_targets <= PROBE_TARGETS_MAX_TARGETS);
	for (size_t i = 0; i < l->n_targets; i++) {
		const struct probe_target *t = &l->targets[i];

		assert_non_null(t->host);
		assert_non_null(t->raw);
		assert_true(t->host[0] != 0);
		assert_true(strlen(t->host) <= PROBE_TARGETS_MAX_HOST);
		assert_true(strlen(t->raw) <= PROBE_TARGETS_MAX_TARGET);
		assert_non_null(strstr(t->raw, t->host));
		assert_true(t->group < l->n_groups);
		for (const char *c = t->host; *c; c++)
			assert_true(*c > ' ' && *c < 0x7f);
		/* Unique (checked pairwise on small lists only). */
		for (size_t j = 0; l->n_targets < 64 && j < i; j++)
			assert_false(l->targets[j].port == t->port &&
				     !strcasecmp(l->targets[j].host, t->host));
	}
	for (size_t g = 0; g < l->n_groups; g++) {
		assert_true(l->groups[g].n_labels <= PROBE_TARGETS_MAX_LABELS);
		for (size_t i = 0; i < l->groups[g].n_labels; i++) {
			assert_true(label_name_ok(l->groups[g].labels[i].name));
			assert_true(strlen(l->groups[g].labels[i].value) <=
				    PROBE_TARGETS_MAX_LABEL_VALUE);
		}
	}
}

/* Exactly size bytes in a heap buffer of that size, so ASan sees overreads. */
static void fuzz_targets(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1), err[256];
	struct probe_target_list l;
	int rc;

	assert_non_null(copy);
	if (size)
		memcpy(copy, data, size);
	memset(err, 'x', sizeof(err));
	rc = probe_targets_parse(copy, size, &l, err, sizeof(err));
	free(copy);
	if (rc) {
		n_err++;
		assert_true(rc == -EINVAL || rc == -E2BIG);
		assert_true(err[0] != 0);
		assert_non_null(memchr(err, 0, sizeof(err)));
		assert_null(strchr(err, '\n'));
		assert_null(l.targets);
		assert_null(l.groups);
		assert_int_equal(l.n_targets, 0);
	} else {
		n_ok++;
		check_list(&l);
	}
	probe_target_list_free(&l);
}

static void fuzz_packet(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1), again[PROBE_PACKET_LEN];
	struct probe_packet p;
	int rc, rrc;

	assert_non_null(copy);
	if (size)
		memcpy(copy, data, size);
	rc = probe_packet_decode(copy, size, &p);
	assert_true(rc == 0 || rc == -EBADMSG || rc == -EPROTO || rc == -EMSGSIZE);
	if (!rc) {
		assert_int_equal(size, PROBE_PACKET_LEN);
		/* Re-encoding gives the same bytes, reserved ones aside. */
		assert_int_equal(probe_packet_encode(&p, again, sizeof(again)), PROBE_PACKET_LEN);
		assert_memory_equal(again, copy, 48);
	}
	rrc = probe_packet_make_reply(copy, size, 7, 8, 9, 0);
	if (rc)
		assert_int_equal(rrc, rc);
	else if (p.type == PROBE_PACKET_REQUEST)
		assert_int_equal(rrc, 0);
	else
		assert_int_equal(rrc, -EPROTO);
	free(copy);
}

/* xorshift64*: a fixed seed, the same inputs on every run. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static const char *const corpus[] = {
	"[\n  {\"targets\": [\"10.0.0.1\", \"10.0.0.2:4791\", \"node3.rdma\"],\n"
	"   \"labels\": {\"rack\": \"r12\", \"pod\": \"a\"}},\n"
	"  {\"labels\": {\"zone\": \"eu\\u00e9\xf0\x9f\x98\x80\"},\n"
	"   \"targets\": [\"[fd00::3]:4791\", \"[fe80::1%mlx5_0]\", \"Node4\", \"node4\"]},\n"
	"  {\"targets\": [\"n5:1\"], \"x\": {\"a\": [1, -2.5e3, true, false, null]}}\n]\n",
	"[]",
	"[{\"targets\":[]}]",
	"[{\"targets\":[\"a\\\"b\\\\c\\/\\n\"],\"labels\":{\"_\":\"\\t\"}}]",
	/* The same file_sd shape in YAML's block style. */
	"# mesh\n- targets:\n    - 10.0.0.1\n    - '[fd00::3]:4791'\n  labels:\n    rack: r12\n"
	"    row: 3\n- targets: [n5:1, \"n6\"]\n  x: &a {k: [1, *a]}\n",
};

/* Bytes that matter to the grammar, to swap in at every offset. */
static const uint8_t swaps[] = {0,   ' ', '"', '\\', '[',  ']',	 '{', '}', ',',	 ':', '0', 'u',
				'a', '.', '%', 0x7f, 0xc3, 0xff, '-', '#', '\n', '&', '*', '\''};

static void test_targets_corpus(void **state)
{
	n_ok = n_err = 0;
	for (size_t c = 0; c < sizeof(corpus) / sizeof(corpus[0]); c++) {
		const uint8_t *in = (const uint8_t *)corpus[c];
		size_t len = strlen(corpus[c]);
		uint8_t *buf = malloc(len + 1);

		assert_non_null(buf);
		for (size_t n = 0; n <= len; n++)
			fuzz_targets(in, n);
		for (size_t off = 0; off < len; off++) {
			memcpy(buf, in, len);
			for (size_t s = 0; s < sizeof(swaps); s++) {
				buf[off] = swaps[s];
				fuzz_targets(buf, len);
			}
			/* The byte deleted, and one inserted before it. */
			memcpy(buf, in, off);
			memcpy(buf + off, in + off + 1, len - off - 1);
			fuzz_targets(buf, len - 1);
			memcpy(buf + off + 1, in + off, len - off);
			buf[off] = '"';
			fuzz_targets(buf, len + 1);
		}
		free(buf);
	}
	assert_true(n_ok > 100);
	assert_true(n_err > 1000);
}

static void test_targets_random(void **state)
{
	/* Tokens of the grammar: random soups of them get past the first byte. */
	static const char *const tokens[] = {
		"[",	   "]",		"{",	    "}",	   ",",		 ":",
		" ",	   "\"",	"\\",	    "\"targets\"", "\"labels\"", "\"a\"",
		"\"a:1\"", "\"[::1]\"", "\"x\"",    "1",	   "-0.5e3",	 "true",
		"null",	   "\\u",	"d83d",	    "\\ude00",	   "\xc3\xa9",	 "\xff",
		"\n",	   "\"__a\"",	"\"port\"", "0",
	};
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	uint8_t buf[256];

	for (int i = 0; i < 300000; i++) {
		size_t len = 0, want = rng_next(&seed) % 48;
		bool raw = (rng_next(&seed) & 7) == 0;

		for (size_t j = 0; j < want; j++) {
			uint64_t r = rng_next(&seed);
			const char *t = tokens[r % (sizeof(tokens) / sizeof(tokens[0]))];
			size_t tl = strlen(t);

			if (raw) {
				buf[len++] = (uint8_t)r;
				continue;
			}
			if (len + tl > sizeof(buf))
				break;
			memcpy(buf + len, t, tl);
			len += tl;
		}
		fuzz_targets(buf, len);
	}
}

/* Mostly valid files from a pool of good and bad parts, then one random
 * byte changed in half of them: reaches the success paths and the
 * duplicate index, which token soups rarely do. */
static void test_targets_generated(void **state)
{
	static const char *const hosts[] = {
		"\"10.0.0.1\"",
		"\"10.0.0.1:4791\"",
		"\"[::1]\"",
		"\"[::1]:1\"",
		"\"h\"",
		"\"H\"",
		"\"a.b-c_d:65535\"",
		"\"a:b:c\"",
		"\"a:0\"",
		"\"\\u0068\"",
		"\"[fe80::1%ib0]\"",
		"\"1.2.3.999\"",
		"\"\"",
		"\" h\"",
	};
	static const char *const labels[] = {
		"\"rack\":\"r1\"", "\"pod\":\"\\u00e9\"", "\"_x\":\"\"", "\"__x\":\"v\"",
		"\"port\":\"1\"",  "\"rack\":\"r2\"",	  "\"z9\":1",
	};
	uint64_t seed = 0xfeedfacecafeULL;
	size_t ok_before = n_ok;
	char buf[2048];

	for (int i = 0; i < 20000; i++) {
		size_t o = 0, groups = rng_next(&seed) % 4;

		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "[");
		for (size_t g = 0; g < groups; g++) {
			size_t nt = rng_next(&seed) % 6, nl = rng_next(&seed) % 3;

			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s{\"targets\": [",
					      g ? ", " : "");
			for (size_t t = 0; t < nt; t++)
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s",
						      t ? ", " : "",
						      hosts[rng_next(&seed) %
							    (sizeof(hosts) / sizeof(hosts[0]))]);
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "], \"labels\": {");
			for (size_t l = 0; l < nl; l++)
				o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s",
						      l ? ", " : "",
						      labels[rng_next(&seed) %
							     (sizeof(labels) / sizeof(labels[0]))]);
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "}}");
		}
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "]");
		assert_true(o < sizeof(buf));
		if (i & 1 && o)
			buf[rng_next(&seed) % o] = (char)rng_next(&seed);
		fuzz_targets((const uint8_t *)buf, o);
	}
	assert_true(n_ok - ok_before > 1000);
}

static void test_packets(void **state)
{
	static const struct probe_packet seeds[] = {
		{.type = PROBE_PACKET_REQUEST, .seq = 1, .send_ns = 123456789, .session = 42},
		{.type = PROBE_PACKET_REPLY,
		 .flags = 0xffff,
		 .seq = UINT64_MAX,
		 .responder = 7,
		 .resp_rx_ns = 10,
		 .resp_tx_ns = 20},
	};
	uint64_t seed = 0x5eed5eed5eedULL;
	uint8_t valid[PROBE_PACKET_LEN + 16], buf[PROBE_PACKET_LEN + 16];

	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		memset(valid, 0, sizeof(valid));
		assert_int_equal(probe_packet_encode(&seeds[s], valid, sizeof(valid)),
				 PROBE_PACKET_LEN);
		for (size_t n = 0; n <= sizeof(valid); n++)
			fuzz_packet(valid, n);
		for (size_t off = 0; off < PROBE_PACKET_LEN; off++) {
			memcpy(buf, valid, sizeof(buf));
			for (unsigned v = 0; v < 256; v++) {
				buf[off] = (uint8_t)v;
				fuzz_packet(buf, PROBE_PACKET_LEN);
			}
		}
	}
	for (int i = 0; i < 200000; i++) {
		size_t len = rng_next(&seed) % sizeof(buf);

		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rng_next(&seed);
		/* Half of them with our magic and version, to reach the later checks. */
		if (i & 1 && len >= 5)
			memcpy(buf, "RDXP\x01", 5);
		if (i % 4 == 1)
			len = PROBE_PACKET_LEN;
		fuzz_packet(buf, len);
	}
}

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

static void fuzz_disc(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1), again[PROBE_DISC_LEN];
	struct probe_disc d, d2, untouched;
	int rc;

	assert_non_null(copy);
	if (size)
		memcpy(copy, data, size);
	memset(&untouched, 0xa5, sizeof(untouched));
	d = untouched;
	rc = probe_disc_decode(copy, size, &d);
	assert_true(rc == 0 || rc == -EBADMSG || rc == -EPROTO || rc == -EMSGSIZE);
	if (rc) {
		n_err++;
		assert_memory_equal(&d, &untouched, sizeof(d));
		free(copy);
		return;
	}
	n_ok++;
	assert_int_equal(size, PROBE_DISC_LEN);
	assert_true(d.type == PROBE_DISC_QUERY || d.type == PROBE_DISC_ANSWER);
	if (d.type == PROBE_DISC_ANSWER) {
		assert_true(d.qpn > 1 && d.qpn <= 0xffffff);
		assert_true(d.link_layer == PROBE_DISC_LINK_IB ||
			    d.link_layer == PROBE_DISC_LINK_ETH);
	} else {
		assert_int_equal(d.qpn, 0);
		assert_int_equal(d.link_layer, 0);
		assert_int_equal(d.flags, 0);
	}
	/* What was decoded encodes, to the bytes read (reserved ones and a
	 * query's unused fields aside), and decodes to the same again. */
	assert_int_equal(probe_disc_encode(&d, again, sizeof(again)), PROBE_DISC_LEN);
	assert_memory_equal(again, copy, 6);
	assert_memory_equal(again + 8, copy + 8, 8);
	assert_memory_equal(again + 44, copy + 44, 4);
	if (d.type == PROBE_DISC_ANSWER) {
		assert_memory_equal(again + 6, copy + 6, 2);
		assert_memory_equal(again + 16, copy + 16, 43 - 16);
	}
	assert_int_equal(probe_disc_decode(again, sizeof(again), &d2), 0);
	assert_disc_equal(&d, &d2);
	free(copy);
}

static void test_discovery(void **state)
{
	static const struct probe_disc seeds[] = {
		{.type = PROBE_DISC_QUERY, .nonce = 0x0123456789abcdefULL, .session = 42},
		{.type = PROBE_DISC_ANSWER,
		 .flags = PROBE_DISC_F_MATCHED,
		 .port = 1,
		 .nonce = UINT64_MAX,
		 .gid = {0xfe, 0x80, [8] = 0x02, 0x02, 0xc9, 0xff, 0xfe, 0x00, 0x00, 0x01},
		 .qpn = 0x11,
		 .qkey = 0x01234567,
		 .lid = 0,
		 .link_layer = PROBE_DISC_LINK_ETH,
		 .session = 7},
	};
	uint64_t seed = 0xd15c0d15c0ULL;
	uint8_t valid[PROBE_DISC_LEN + 16], buf[PROBE_DISC_LEN + 16];
	size_t ok_before;

	n_ok = n_err = 0;
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		memset(valid, 0, sizeof(valid));
		assert_int_equal(probe_disc_encode(&seeds[s], valid, sizeof(valid)),
				 PROBE_DISC_LEN);
		for (size_t n = 0; n <= sizeof(valid); n++)
			fuzz_disc(valid, n);
		for (size_t off = 0; off < PROBE_DISC_LEN; off++) {
			memcpy(buf, valid, sizeof(buf));
			for (unsigned v = 0; v < 256; v++) {
				buf[off] = (uint8_t)v;
				fuzz_disc(buf, PROBE_DISC_LEN);
			}
		}
	}
	ok_before = n_ok;
	for (int i = 0; i < 200000; i++) {
		size_t len = rng_next(&seed) % sizeof(buf);

		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rng_next(&seed);
		/* Most with our magic and version, a quarter with a plausible
		 * answer's QPN and link layer, to reach the later checks. */
		if (i & 1 && len >= 5)
			memcpy(buf, "RDXQ\x01", 5);
		if (i % 4 == 1) {
			len = PROBE_DISC_LEN;
			buf[5] = (uint8_t)(1 + rng_next(&seed) % 2);
			buf[32] = 0;
			buf[42] = (uint8_t)(1 + rng_next(&seed) % 2);
		}
		fuzz_disc(buf, len);
	}
	assert_true(n_ok - ok_before > 40000);
	assert_true(n_err > 100000);
}

/* One token bucket per source, never forgotten: what the limiter must
 * decide for every source it holds a slot for, and for the overflow bucket. */
struct rl_model {
	double tokens;
	uint64_t last_ns;
};

/* The limiter's arithmetic, step for step, so that decisions match exactly. */
static bool model_take(struct rl_model *m, double rate, double burst, uint64_t now_ns)
{
	double t = m->tokens;

	if (now_ns > m->last_ns)
		t += (double)(now_ns - m->last_ns) * rate / 1e9;
	m->tokens = t < burst ? t : burst;
	if (now_ns > m->last_ns)
		m->last_ns = now_ns;
	if (m->tokens < 1)
		return false;
	m->tokens -= 1;
	return true;
}

static const struct probe_rl_slot *rl_find(const struct probe_ratelimit *rl, const uint8_t *key,
					   size_t len)
{
	const struct probe_rl_slot *found = NULL;

	for (size_t i = 0; i < rl->n_slots; i++) {
		if (rl->slots[i].key_len != len || memcmp(rl->slots[i].key, key, len))
			continue;
		/* A source holds one slot at most. */
		assert_null(found);
		found = &rl->slots[i];
	}
	return found;
}

static void check_rl(const struct probe_ratelimit *rl, uint64_t max_now)
{
	assert_true(rl->overflow.tokens >= 0 && rl->overflow.tokens <= rl->burst);
	assert_true(rl->overflow.last_ns <= max_now);
	for (size_t i = 0; i < rl->n_slots; i++) {
		const struct probe_rl_slot *s = &rl->slots[i];

		assert_true(s->key_len <= PROBE_RL_KEY_MAX);
		if (!s->key_len)
			continue;
		assert_true(s->tokens >= 0 && s->tokens <= rl->burst);
		assert_true(s->last_ns <= max_now);
		assert_ptr_equal(rl_find(rl, s->key, s->key_len), s);
	}
}

#define RL_KEYS 96

/* Source k: a fixed key of 1 to 24 bytes whose first byte is k, so that
 * keys stay distinct when cut to PROBE_RL_KEY_MAX. Bytes past the cut are
 * random on every call: they must not matter. */
static size_t rl_key(uint8_t *key, unsigned k, uint64_t *seed)
{
	size_t len = 1 + (k * 7 + k / 5) % (PROBE_RL_KEY_MAX + 4);

	key[0] = (uint8_t)k;
	for (size_t i = 1; i < len; i++)
		key[i] = (uint8_t)(i < PROBE_RL_KEY_MAX ? k * 31 + i : rng_next(seed));
	return len;
}

/* Time only forward (steps of 0 included): every decision must be the
 * model's, on the source's own bucket or on the shared one. */
static void rl_model_run(size_t slots, double rate, double burst, unsigned n_keys,
			 uint64_t max_step_ns, uint64_t seed)
{
	struct rl_model model[RL_KEYS], overflow = {.tokens = burst};
	struct probe_ratelimit rl;
	uint64_t now = 1000000000ULL;
	size_t allowed = 0, refused = 0, inserted = 0;

	assert_true(n_keys <= RL_KEYS);
	for (unsigned k = 0; k < n_keys; k++)
		model[k] = (struct rl_model){.tokens = burst};
	assert_int_equal(probe_ratelimit_init(&rl, slots, rate, burst), 0);
	for (int i = 0; i < 60000; i++) {
		/* A few loud sources and many quiet ones. */
		unsigned k = (unsigned)(rng_next(&seed) % (i & 1 ? n_keys : 1 + n_keys / 8));
		uint8_t key[PROBE_RL_KEY_MAX + 4], *heap;
		size_t len = rl_key(key, k, &seed),
		       cut = len < PROBE_RL_KEY_MAX ? len : PROBE_RL_KEY_MAX;
		uint64_t before = rl.overflowed;
		const struct probe_rl_slot *s;
		bool got, want, known;

		if (rng_next(&seed) % 3)
			now += rng_next(&seed) % (max_step_ns + 1);
		heap = malloc(len);
		assert_non_null(heap);
		memcpy(heap, key, len);
		known = rl_find(&rl, key, cut) != NULL;
		got = probe_ratelimit_allow(&rl, heap, len, now);
		free(heap);
		s = rl_find(&rl, key, cut);
		if (rl.overflowed != before) {
			assert_int_equal(rl.overflowed, before + 1);
			assert_null(s);
			want = model_take(&overflow, rate, burst, now);
			assert_true(rl.overflow.tokens == overflow.tokens);
		} else {
			assert_non_null(s);
			inserted += !known;
			want = model_take(&model[k], rate, burst, now);
			assert_true(s->tokens == model[k].tokens);
			assert_true(s->last_ns == now);
		}
		assert_int_equal(got, want);
		if (got)
			allowed++;
		else
			refused++;
		if (i % 64 == 0)
			check_rl(&rl, now);
	}
	check_rl(&rl, now);
	/* The run went through every case: allowed, refused, overflowed, and
	 * idle sources handed over to new ones. */
	assert_true(inserted > slots);
	assert_true(allowed > 1000);
	assert_true(refused > 1000);
	assert_true(rl.overflowed > 100);
	probe_ratelimit_free(&rl);
}

static void test_ratelimit_model(void **state)
{
	/* Rates below what the loud sources send, and more sources busy at a
	 * time than slots: every run refuses and overflows. */
	rl_model_run(1, 100, 1, 8, 20000000, 0x1111);
	rl_model_run(16, 20, 4, RL_KEYS, 2000000, 0x2222);
	rl_model_run(64, 5, 2.5, RL_KEYS, 5000000, 0x3333);
	rl_model_run(13, 1500.5, 7, RL_KEYS, 20000, 0x4444);
}

/* Time anywhere, back and forth: no model, only the invariants. */
static void test_ratelimit_random_time(void **state)
{
	struct probe_ratelimit rl;
	uint64_t seed = 0x7173, max_now = 0, now = 0;

	assert_int_equal(probe_ratelimit_init(&rl, 24, 200, 3), 0);
	for (int i = 0; i < 60000; i++) {
		uint8_t key[PROBE_RL_KEY_MAX + 4];
		size_t len = rl_key(key, (unsigned)(rng_next(&seed) % RL_KEYS), &seed);
		uint64_t r = rng_next(&seed);

		switch (r % 8) {
		case 0:
			now = rng_next(&seed); /* anywhere, the extremes included */
			break;
		case 1:
			now -= now < 50000000 ? now : rng_next(&seed) % 50000000;
			break;
		default:
			now += now > UINT64_MAX - 10000000 ? 0 : rng_next(&seed) % 10000000;
			break;
		}
		if (now > max_now)
			max_now = now;
		(void)probe_ratelimit_allow(&rl, key, len, now);
		if (i % 16 == 0)
			check_rl(&rl, max_now);
	}
	check_rl(&rl, max_now);
	probe_ratelimit_free(&rl);
}

/* --collector.probe.listen-address over every one-byte change and every
 * prefix of valid lists, and random strings of address characters: an
 * error is -EINVAL with a one-line reason; a success gives 1 to
 * PROBE_BIND_MAX distinct addresses, none the wildcard, that parse again
 * from their own text. */
static void fuzz_bind(const char *s)
{
	struct probe_bind_addr a[PROBE_BIND_MAX];
	char why[160] = "";
	int n = probe_bind_parse(s, a, why, sizeof(why));

	if (n < 0) {
		assert_int_equal(n, -EINVAL);
		assert_true(why[0] != '\0');
		assert_null(strchr(why, '\n'));
		assert_int_equal(probe_bind_check(s, why, sizeof(why)), -EINVAL);
		return;
	}
	assert_true(n >= 1 && n <= PROBE_BIND_MAX);
	for (int i = 0; i < n; i++) {
		static const uint8_t zero[16], v4zero[16] = {[10] = 0xff, [11] = 0xff};

		assert_true(memcmp(a[i].addr, zero, 16) != 0);
		assert_true(memcmp(a[i].addr, v4zero, 16) != 0);
		assert_int_equal(a[i].scope, 0);
		for (int j = 0; j < i; j++)
			assert_true(memcmp(a[i].addr, a[j].addr, 16) != 0);
	}
	assert_int_equal(probe_bind_check(s, why, sizeof(why)), 0);
}

static void test_bind_addresses(void **state)
{
	static const char *const good[] = {"10.0.0.1", "10.0.0.1,fd00::1,192.0.2.7",
					   "2001:db8::1,::ffff:10.1.1.1", "::1", "::ffff:1.0.0.0"};
	static const char alphabet[] = "0123456789abcdef.:,[]%fe80x ";
	uint64_t seed = 0x5eed;
	char buf[128];

	for (size_t g = 0; g < sizeof(good) / sizeof(good[0]); g++) {
		size_t len = strlen(good[g]);

		for (size_t cut = 0; cut <= len; cut++) {
			snprintf(buf, sizeof(buf), "%.*s", (int)cut, good[g]);
			fuzz_bind(buf);
		}
		for (size_t off = 0; off < len; off++)
			for (size_t c = 0; c < sizeof(alphabet) - 1; c++) {
				snprintf(buf, sizeof(buf), "%s", good[g]);
				buf[off] = alphabet[c];
				fuzz_bind(buf);
			}
	}
	for (int i = 0; i < 20000; i++) {
		size_t len = rng_next(&seed) % 64;

		for (size_t k = 0; k < len; k++)
			buf[k] = alphabet[rng_next(&seed) % (sizeof(alphabet) - 1)];
		buf[len] = '\0';
		fuzz_bind(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets_corpus),
		cmocka_unit_test(test_targets_random),
		cmocka_unit_test(test_targets_generated),
		cmocka_unit_test(test_packets),
		cmocka_unit_test(test_discovery),
		cmocka_unit_test(test_ratelimit_model),
		cmocka_unit_test(test_ratelimit_random_time),
		cmocka_unit_test(test_bind_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
