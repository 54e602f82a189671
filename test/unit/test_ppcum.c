/*
 * test_ppcum.c
 *		PPCum (dp_ppcum.c) keeps the sum of its level noises from one step to
 *		the next and replaces only the noises a step forgets.  Its release
 *		must stay what it is by definition, X plus the noise of every level
 *		(the sum over all levels that the push took before 0.21.0), at every
 *		step of whole horizons: with the memo valid, after a state is
 *		written and read back (no memo: the sum over every level), after a
 *		restart, and under a noise key (the terms drawn in the same order).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "tap.h"
#include "test_support.h"

static dp_random rng;

static dp_counter *
new_counter(int64_t horizon, int64_t max_per_step, const unsigned char *key)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_PPCUM, .epsilon = 1.0,
	.horizon = horizon, .max_per_step = max_per_step};
	dp_counter *counter = malloc(dp_counter_size(&mechanism));
	const char *field;

	if (dp_counter_start_keyed(counter, &mechanism, key, &rng, &field) != DP_OK)
	{
		printf("Bail out! could not start ppcum(horizon=%lld)\n", (long long) horizon);
		exit(1);
	}
	return counter;
}

/* L, the levels below the root: nodes are X, L level noises, the last release */
static int
levels_of(const dp_counter *counter)
{
	return counter->kind_nodes - 2;
}

/* the release by definition, before the step forgets any noise */
static dp_int128
expected_release(const dp_counter *counter, int64_t value)
{
	dp_int128	release = counter->nodes[0] + value;

	for (int level = 0; level < levels_of(counter); level++)
		release += counter->nodes[1 + level];
	return release;
}

static void
test_release(int64_t horizon, int64_t max_per_step, const unsigned char *key)
{
	dp_counter *counter = new_counter(horizon, max_per_step, key);
	int64_t		mismatches = 0;
	int64_t		reloads = 0;
	int64_t		changed = 0;

	for (int64_t t = 1; t <= horizon; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1);
		dp_int128	expected = expected_release(counter, value);
		dp_int128	before_noise = counter->nodes[1];

		if (dp_counter_push(counter, value, &rng) != DP_OK)
		{
			mismatches++;
			break;
		}
		mismatches += counter->release != expected ||
			counter->nodes[levels_of(counter) + 1] != expected;
		changed += counter->nodes[1] != before_noise;
		/* now and then the state is stored and the next step reads it back */
		if (t % 97 == 0 && t < horizon)
		{
			dp_counter *loaded = test_reload_counter(counter);

			mismatches += loaded->release != counter->release;
			free(counter);
			counter = loaded;
			reloads++;
		}
	}
	tap_ok(mismatches == 0 && changed > 0 && (horizon < 98 || reloads > 0),
		   "ppcum(horizon=%lld, max_per_step=%lld%s): the release is X plus every level's noise "
		   "at each of %lld steps (%lld state reloads, %lld mismatches)",
		   (long long) horizon, (long long) max_per_step, key ? ", keyed" : "",
		   (long long) horizon, (long long) reloads, (long long) mismatches);
	free(counter);
}

/* a restart draws every noise again: the kept sum must follow */
static void
test_restart(void)
{
	dp_counter *counter = new_counter(1000, 1, NULL);
	int64_t		mismatches = 0;

	for (int round = 0; round < 3; round++)
	{
		for (int64_t t = 1; t <= 300; t++)
		{
			dp_int128	expected = expected_release(counter, 1);

			dp_counter_push(counter, 1, &rng);
			mismatches += counter->release != expected;
		}
		dp_counter_restart(counter, &rng);
	}
	tap_ok(mismatches == 0, "ppcum: after each of three restarts the release is X plus every "
		   "level's noise (%lld mismatches)", (long long) mismatches);
	free(counter);
}

/*
 * The kept sum against the sum taken afresh, bit for bit: a counter whose
 * memo stays valid and a byte copy of it (made after `copy_at` steps) that
 * is written and read back before every step, so that each of its steps
 * sums every level as before 0.21.0, fed the same values from copies of
 * one noise stream.  Every node, the release and the consistent node must
 * agree at every step; the copy also checks that a counter copied with its
 * memo (a statistic's channels, an aggregate's state) stays right.
 */
static void
test_memo_against_reload(int64_t horizon, int64_t max_per_step, bool consistent,
						 int64_t copy_at, const unsigned char *key)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_PPCUM, .epsilon = 0.5,
		.horizon = horizon, .max_per_step = max_per_step,
	.flags = consistent ? DP_FLAG_CONSISTENT : 0};
	size_t		size = dp_counter_size(&mechanism);
	dp_counter *kept = malloc(size);
	dp_counter *fresh = NULL;
	dp_random	kept_rng = rng;
	dp_random	fresh_rng;
	const char *field;
	int64_t		mismatches = 0;
	int64_t		steps = 0;

	if (dp_counter_start_keyed(kept, &mechanism, key, &kept_rng, &field) != DP_OK)
	{
		printf("Bail out! could not start ppcum(horizon=%lld)\n", (long long) horizon);
		exit(1);
	}
	for (int64_t t = 1; t <= horizon; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 3) - 1;

		if (t - 1 == copy_at)
		{
			fresh = malloc(size);
			memcpy(fresh, kept, size);
			fresh_rng = kept_rng;
		}
		if (fresh)
		{
			dp_counter *loaded = test_reload_counter(fresh);

			free(fresh);
			fresh = loaded;
			mismatches += fresh->memo_step != -1;
			if (dp_counter_push(fresh, value, &fresh_rng) != DP_OK)
				mismatches++;
		}
		if (dp_counter_push(kept, value, &kept_rng) != DP_OK)
			mismatches++;
		if (fresh)
		{
			steps++;
			mismatches += fresh->release != kept->release ||
				dp_counter_release_wide(fresh) != dp_counter_release_wide(kept) ||
				memcmp(fresh->nodes, kept->nodes, sizeof(dp_int128) * (size_t) kept->node_count) != 0;
		}
	}
	tap_ok(mismatches == 0 && steps == horizon - copy_at,
		   "ppcum(horizon=%lld, max_per_step=%lld%s%s): the kept noise sum and the sum taken "
		   "afresh at every step agree in every node from step %lld to %lld (%lld mismatches)",
		   (long long) horizon, (long long) max_per_step, consistent ? ", consistent" : "",
		   key ? ", keyed" : "", (long long) copy_at + 1, (long long) horizon,
		   (long long) mismatches);
	free(kept);
	free(fresh);
}

int
main(void)
{
	static const char seed[] = "dp_stream unit test: ppcum";
	unsigned char key[DP_NOISE_KEY_BYTES];

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	for (size_t i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char) (i * 13 + 5);
	test_release(2, 1, NULL);
	test_release(3, 1, NULL);
	test_release(16, 3, NULL);
	test_release(1000, 1, NULL);
	test_release(4096, 5, NULL);
	test_release(100000, 1, NULL);
	test_release(1000, 2, key);
	test_restart();
	test_memo_against_reload(2, 1, false, 0, NULL);
	test_memo_against_reload(2, 3, true, 1, NULL);
	test_memo_against_reload(3, 1, false, 1, NULL);
	test_memo_against_reload(3, 2, true, 0, key);
	test_memo_against_reload(1000, 3, true, 257, NULL);
	test_memo_against_reload(1000, 3, false, 0, key);
	test_memo_against_reload(4097, 1000000, true, 1024, NULL);
	return tap_done();
}
