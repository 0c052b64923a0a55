// SPDX-License-Identifier: Apache-2.0
/* Unit tests of the per-source rate limiter: burst and refill at the rate,
 * independent sources, the clock going backwards, long keys, the shared
 * overflow bucket of a table full of busy sources, the hand-over of an idle
 * refilled slot, and the arguments of init. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe_ratelimit.h"

/* Lets the -ENOMEM test ask ASan (or TSan) for a calloc it cannot satisfy:
 * without this, the sanitizer aborts on it instead of returning NULL. Unused
 * elsewhere. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "allocator_may_return_null=1";
}

#define MS 1000000ULL
#define S  1000000000ULL
/* A CLOCK_MONOTONIC reading of a host up for a few days. */
#define T0 (3 * 86400 * S)

static const uint8_t key_a[] = {0xfe, 0x80, 0,	  0, 0, 0, 0, 0, 2, 2,
				0xc9, 0xff, 0xfe, 0, 0, 1, 0, 0, 0, 0x42};
static const uint8_t key_b[] = {10, 0, 0, 1};
static const uint8_t key_c[] = {10, 0, 0, 2};
static const uint8_t key_d[] = {10, 0, 0, 3};
static const uint8_t key_e[] = {10, 0, 0, 4};
static const uint8_t key_f[] = {10, 0, 0, 5};
static const uint8_t key_g[] = {10, 0, 0, 6};

static bool allow(struct probe_ratelimit *rl, const uint8_t *key, size_t len, uint64_t now)
{
	return probe_ratelimit_allow(rl, key, len, now);
}

/* The slot holding key, or NULL: looked up by hand, not by the hash. */
static const struct probe_rl_slot *slot_of(const struct probe_ratelimit *rl, const uint8_t *key,
					   size_t len)
{
	for (size_t i = 0; i < rl->n_slots; i++)
		if (rl->slots[i].key_len == len && !memcmp(rl->slots[i].key, key, len))
			return &rl->slots[i];
	return NULL;
}

/* A copy of key's slot, failing the test when there is none (a copy, so
 * that no NULL is ever dereferenced). */
static struct probe_rl_slot slot_get(const struct probe_ratelimit *rl, const uint8_t *key,
				     size_t len)
{
	const struct probe_rl_slot *s = slot_of(rl, key, len);
	const struct probe_rl_slot none = {.key_len = 0};

	assert_non_null(s);
	return s ? *s : none;
}

static void test_init_errors(void **state)
{
	struct probe_ratelimit rl;

	assert_int_equal(probe_ratelimit_init(NULL, 4, 1, 1), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 0, 1, 1), -EINVAL);
	assert_null(rl.slots);
	assert_int_equal(probe_ratelimit_init(&rl, 4, 0, 1), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, -1, 1), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, NAN, 1), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, INFINITY, 1), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, 1, 0), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, 1, 0.99), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, 1, NAN), -EINVAL);
	assert_int_equal(probe_ratelimit_init(&rl, 4, 1, INFINITY), -EINVAL);
	assert_null(rl.slots);
	/* Nothing to free after a failed init, and free twice is harmless. */
	probe_ratelimit_free(&rl);
	probe_ratelimit_free(&rl);
	probe_ratelimit_free(NULL);
	/* Refused without a slot: a caller bug does not open the gate. */
	assert_false(allow(&rl, key_b, sizeof(key_b), T0));

	assert_int_equal(probe_ratelimit_init(&rl, SIZE_MAX / 2, 1, 1), -ENOMEM);
	assert_null(rl.slots);

	/* The smallest valid limiter. */
	assert_int_equal(probe_ratelimit_init(&rl, 1, 1e-9, 1), 0);
	assert_non_null(rl.slots);
	assert_int_equal(rl.n_slots, 1);
	assert_true(rl.rate == 1e-9);
	assert_true(rl.burst == 1);
	assert_true(rl.overflow.tokens == 1);
	assert_int_equal(rl.overflowed, 0);
	assert_int_equal(rl.slots[0].key_len, 0);
	probe_ratelimit_free(&rl);
	assert_null(rl.slots);
	assert_int_equal(rl.n_slots, 0);
}

static void test_burst_then_refuse(void **state)
{
	struct probe_ratelimit rl;

	assert_int_equal(probe_ratelimit_init(&rl, 16, 10, 3), 0);
	for (int i = 0; i < 3; i++)
		assert_true(allow(&rl, key_a, sizeof(key_a), T0));
	for (int i = 0; i < 5; i++)
		assert_false(allow(&rl, key_a, sizeof(key_a), T0));
	assert_true(slot_get(&rl, key_a, sizeof(key_a)).tokens == 0);
	assert_int_equal(rl.overflowed, 0);

	/* An empty key is refused and takes no slot. */
	assert_false(allow(&rl, key_b, 0, T0));
	assert_false(allow(&rl, NULL, 4, T0));
	for (size_t i = 0; i < rl.n_slots; i++)
		assert_true(rl.slots[i].key_len == 0 || rl.slots[i].key_len == sizeof(key_a));
	probe_ratelimit_free(&rl);
}

static void test_refill(void **state)
{
	struct probe_ratelimit rl;
	uint64_t t = T0;

	/* 10 a second: one token every 100 ms. */
	assert_int_equal(probe_ratelimit_init(&rl, 16, 10, 3), 0);
	for (int i = 0; i < 3; i++)
		assert_true(allow(&rl, key_a, sizeof(key_a), t));
	assert_false(allow(&rl, key_a, sizeof(key_a), t));
	/* Half a token is not enough, and is kept. */
	t += 50 * MS;
	assert_false(allow(&rl, key_a, sizeof(key_a), t));
	assert_true(slot_get(&rl, key_a, sizeof(key_a)).tokens == 0.5);
	t += 50 * MS;
	assert_true(allow(&rl, key_a, sizeof(key_a), t));
	assert_false(allow(&rl, key_a, sizeof(key_a), t));

	/* A steady 10 a second passes for a minute, one more in between never. */
	for (int i = 0; i < 600; i++) {
		t += 100 * MS;
		assert_true(allow(&rl, key_a, sizeof(key_a), t));
		assert_false(allow(&rl, key_a, sizeof(key_a), t + 50 * MS));
	}

	/* A long pause refills to the burst, not beyond. */
	t += 3600 * S;
	for (int i = 0; i < 3; i++)
		assert_true(allow(&rl, key_a, sizeof(key_a), t));
	assert_false(allow(&rl, key_a, sizeof(key_a), t));
	assert_int_equal(rl.overflowed, 0);
	probe_ratelimit_free(&rl);
}

static void test_independent_sources(void **state)
{
	struct probe_ratelimit rl;

	assert_int_equal(probe_ratelimit_init(&rl, 16, 1, 2), 0);
	assert_true(allow(&rl, key_a, sizeof(key_a), T0));
	assert_true(allow(&rl, key_a, sizeof(key_a), T0));
	assert_false(allow(&rl, key_a, sizeof(key_a), T0));
	/* Others keep their own budget, and spending it leaves a's as it was. */
	assert_true(allow(&rl, key_b, sizeof(key_b), T0));
	assert_true(allow(&rl, key_c, sizeof(key_c), T0));
	assert_true(allow(&rl, key_b, sizeof(key_b), T0));
	assert_false(allow(&rl, key_b, sizeof(key_b), T0));
	assert_true(allow(&rl, key_c, sizeof(key_c), T0));
	assert_false(allow(&rl, key_a, sizeof(key_a), T0));
	/* A prefix of a key is another key. */
	assert_true(allow(&rl, key_b, 3, T0));
	assert_true(slot_of(&rl, key_b, 3) != slot_of(&rl, key_b, 4));
	assert_true(slot_get(&rl, key_a, sizeof(key_a)).tokens == 0);
	assert_true(slot_get(&rl, key_b, 3).tokens == 1);
	assert_int_equal(rl.overflowed, 0);
	probe_ratelimit_free(&rl);
}

static void test_backwards_time(void **state)
{
	struct probe_ratelimit rl;
	struct probe_rl_slot s;

	assert_int_equal(probe_ratelimit_init(&rl, 16, 10, 1), 0);
	assert_true(allow(&rl, key_a, sizeof(key_a), T0));
	/* An earlier reading is no time passed: no refill, no refund. */
	assert_false(allow(&rl, key_a, sizeof(key_a), T0 - 10 * S));
	assert_false(allow(&rl, key_a, sizeof(key_a), 0));
	s = slot_get(&rl, key_a, sizeof(key_a));
	assert_true(s.tokens == 0);
	assert_true(s.last_ns == T0);
	/* Time since the latest reading counts, not since the earlier one. */
	assert_false(allow(&rl, key_a, sizeof(key_a), T0 + 50 * MS));
	assert_true(allow(&rl, key_a, sizeof(key_a), T0 + 100 * MS));
	/* A new source at an early time starts full as well. */
	assert_true(allow(&rl, key_b, sizeof(key_b), 1));
	assert_false(allow(&rl, key_b, sizeof(key_b), 0));
	assert_int_equal(rl.overflowed, 0);
	probe_ratelimit_free(&rl);
}

static void test_long_key_cut(void **state)
{
	struct probe_ratelimit rl;
	uint8_t k1[PROBE_RL_KEY_MAX + 8], k2[sizeof(k1)];

	for (size_t i = 0; i < sizeof(k1); i++)
		k1[i] = k2[i] = (uint8_t)(i * 13 + 1);
	k2[PROBE_RL_KEY_MAX] ^= 0xff;
	k2[sizeof(k2) - 1] ^= 0xff;

	assert_int_equal(probe_ratelimit_init(&rl, 16, 1, 2), 0);
	assert_true(allow(&rl, k1, sizeof(k1), T0));
	/* Same first 20 bytes: the same source, its bucket now empty. */
	assert_true(allow(&rl, k2, sizeof(k2), T0));
	assert_false(allow(&rl, k1, PROBE_RL_KEY_MAX + 1, T0));
	assert_false(allow(&rl, k2, PROBE_RL_KEY_MAX, T0));
	assert_int_equal(slot_get(&rl, k1, PROBE_RL_KEY_MAX).key_len, PROBE_RL_KEY_MAX);
	/* One byte less is another source. */
	assert_true(allow(&rl, k1, PROBE_RL_KEY_MAX - 1, T0));
	assert_int_equal(rl.overflowed, 0);
	probe_ratelimit_free(&rl);
}

static void test_overflow_shared(void **state)
{
	const uint8_t *busy[] = {key_a, key_b, key_c, key_d};
	const size_t busy_len[] = {sizeof(key_a), sizeof(key_b), sizeof(key_c), sizeof(key_d)};
	struct probe_ratelimit rl;

	/* Four slots, all within every key's probe sequence. */
	assert_int_equal(probe_ratelimit_init(&rl, 4, 1, 2), 0);
	for (size_t i = 0; i < 4; i++)
		assert_true(allow(&rl, busy[i], busy_len[i], T0));
	assert_int_equal(rl.overflowed, 0);

	/* All four are still spending: new sources share one bucket of 2. */
	assert_true(allow(&rl, key_e, sizeof(key_e), T0 + 10 * MS));
	assert_int_equal(rl.overflowed, 1);
	assert_true(allow(&rl, key_f, sizeof(key_f), T0 + 10 * MS));
	assert_false(allow(&rl, key_g, sizeof(key_g), T0 + 10 * MS));
	assert_false(allow(&rl, key_e, sizeof(key_e), T0 + 10 * MS));
	/* Refused decisions are counted too. */
	assert_int_equal(rl.overflowed, 4);
	assert_null(slot_of(&rl, key_e, sizeof(key_e)));
	assert_null(slot_of(&rl, key_f, sizeof(key_f)));
	assert_null(slot_of(&rl, key_g, sizeof(key_g)));

	/* Known sources keep their own budget meanwhile. */
	for (size_t i = 0; i < 4; i++) {
		assert_true(allow(&rl, busy[i], busy_len[i], T0 + 10 * MS));
		assert_false(allow(&rl, busy[i], busy_len[i], T0 + 10 * MS));
	}
	assert_int_equal(rl.overflowed, 4);

	/* The overflow bucket refills at the rate like any other. */
	assert_true(allow(&rl, key_g, sizeof(key_g), T0 + 1010 * MS));
	assert_false(allow(&rl, key_e, sizeof(key_e), T0 + 1010 * MS));
	assert_int_equal(rl.overflowed, 6);
	assert_true(rl.overflow.tokens >= 0 && rl.overflow.tokens < 1);
	probe_ratelimit_free(&rl);
}

static void test_evict_idle(void **state)
{
	struct probe_ratelimit rl;
	const struct probe_rl_slot *sa, *sb;

	/* Two slots, 10 a second, burst 2: a bucket down one token is full
	 * again after 100 ms. */
	assert_int_equal(probe_ratelimit_init(&rl, 2, 10, 2), 0);
	assert_true(allow(&rl, key_a, sizeof(key_a), T0));
	assert_true(allow(&rl, key_b, sizeof(key_b), T0 + 10 * MS));
	sa = slot_of(&rl, key_a, sizeof(key_a));
	sb = slot_of(&rl, key_b, sizeof(key_b));
	assert_non_null(sa);
	assert_non_null(sb);

	/* Neither has refilled yet: c overflows. */
	assert_true(allow(&rl, key_c, sizeof(key_c), T0 + 50 * MS));
	assert_int_equal(rl.overflowed, 1);
	assert_null(slot_of(&rl, key_c, sizeof(key_c)));

	/* b refilled at 110 ms, a at 100 ms: both could go, a is the idlest. */
	assert_true(allow(&rl, key_c, sizeof(key_c), T0 + 200 * MS));
	assert_int_equal(rl.overflowed, 1);
	assert_null(slot_of(&rl, key_a, sizeof(key_a)));
	assert_ptr_equal(slot_of(&rl, key_c, sizeof(key_c)), sa);
	assert_ptr_equal(slot_of(&rl, key_b, sizeof(key_b)), sb);
	/* c starts full, as a new source: one token spent of two. */
	assert_true(slot_get(&rl, key_c, sizeof(key_c)).tokens == 1);
	assert_true(slot_get(&rl, key_c, sizeof(key_c)).last_ns == T0 + 200 * MS);

	/* a comes back: c is busy, b is idle and full: a takes b's slot. */
	assert_true(allow(&rl, key_a, sizeof(key_a), T0 + 200 * MS));
	assert_ptr_equal(slot_of(&rl, key_a, sizeof(key_a)), sb);
	assert_null(slot_of(&rl, key_b, sizeof(key_b)));
	assert_int_equal(rl.overflowed, 1);

	/* Both busy now: b is the one that waits in the overflow bucket. */
	assert_true(allow(&rl, key_b, sizeof(key_b), T0 + 250 * MS));
	assert_int_equal(rl.overflowed, 2);
	assert_null(slot_of(&rl, key_b, sizeof(key_b)));

	/* A busy source is never forgotten: it keeps its spent bucket. */
	assert_true(allow(&rl, key_a, sizeof(key_a), T0 + 250 * MS));
	assert_false(allow(&rl, key_a, sizeof(key_a), T0 + 250 * MS));
	assert_ptr_equal(slot_of(&rl, key_a, sizeof(key_a)), sb);
	probe_ratelimit_free(&rl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_errors),	cmocka_unit_test(test_burst_then_refuse),
		cmocka_unit_test(test_refill),		cmocka_unit_test(test_independent_sources),
		cmocka_unit_test(test_backwards_time),	cmocka_unit_test(test_long_key_cut),
		cmocka_unit_test(test_overflow_shared), cmocka_unit_test(test_evict_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
