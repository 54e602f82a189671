/*
 * test_balanced.c
 *		Balanced digits (dp_balanced.c): the release a step computes from the
 *		release before it (only the levels whose digit changed) equals the
 *		release recomputed from every level, at every step of whole horizons,
 *		for several arities, with counters of the same and of other
 *		parameters stepping in between (they share the digit computation).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_balanced_tree.h"
#include "dp_counter.h"
#include "tap.h"

static dp_random rng;

static dp_counter *
new_counter(int64_t horizon, int64_t arity, int64_t max_per_step)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BALANCED, .epsilon = 1.0,
	.horizon = horizon, .block = arity, .max_per_step = max_per_step};
	dp_counter *counter = malloc(dp_counter_size(&mechanism));
	const char *field;

	if (dp_counter_start(counter, &mechanism, &rng, &field) != DP_OK)
	{
		printf("Bail out! could not start balanced(horizon=%lld, arity=%lld)\n",
			   (long long) horizon, (long long) arity);
		exit(1);
	}
	return counter;
}

static dp_balanced_tree
tree_of(const dp_counter *counter)
{
	dp_balanced_tree tree = {
		.first = 0,
		.arity = counter->mechanism.block,
		.levels = dp_balanced_levels(counter->mechanism.horizon, counter->mechanism.block),
		.scale = counter->scale,
	};

	return tree;
}

/* the full release of every level, against the one the step computed */
static int
check(dp_counter *counter)
{
	dp_balanced_tree tree = tree_of(counter);

	return dp_balanced_tree_release(counter, &tree, counter->steps) == counter->release;
}

static void
test_incremental(int64_t horizon, int64_t arity, int64_t max_per_step)
{
	dp_counter *a = new_counter(horizon, arity, max_per_step);
	dp_counter *b = new_counter(horizon, arity, max_per_step);	/* the same digits */
	dp_counter *other = new_counter(horizon, arity == 3 ? 5 : 3, max_per_step);
	int64_t		mismatches = 0;

	for (int64_t t = 1; t <= horizon; t++)
	{
		dp_counter_push(a, (int64_t) dp_random_below(&rng, max_per_step + 2) - 1, &rng);
		mismatches += !check(a);
		/* b steps every other step twice, so the shared digits go back and forth */
		if (t % 2 == 0 && b->steps + 2 <= horizon)
		{
			dp_counter_push(b, (int64_t) dp_random_below(&rng, max_per_step + 1), &rng);
			mismatches += !check(b);
			dp_counter_push(b, max_per_step, &rng);
			mismatches += !check(b);
		}
		if (t % 7 == 0)
		{
			dp_counter_push(other, 1, &rng);
			mismatches += !check(other);
		}
	}
	tap_ok(mismatches == 0 && !a->overflow && !b->overflow,
		   "balanced(horizon=%lld, arity=%lld, max_per_step=%lld): every step's release from the one "
		   "before equals the release of every level (%lld mismatches)",
		   (long long) horizon, (long long) arity, (long long) max_per_step, (long long) mismatches);
	free(a);
	free(b);
	free(other);
}

/*
 * The bounded kind's push (from the digits) against the tree push the
 * unbounded kind shares: a copy of the counter and of the random stream,
 * stepped by dp_balanced_tree_push and dp_balanced_tree_release, must hold
 * the same nodes, total and release after every step.
 */
static void
test_push_equals_tree_push(int64_t horizon, int64_t arity)
{
	dp_counter *a = new_counter(horizon, arity, 3);
	size_t		size = dp_counter_size(&a->mechanism);
	dp_counter *b = malloc(size);
	int64_t		mismatches = 0;

	for (int64_t t = 1; t <= horizon; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, 4);
		dp_random	copy = rng;
		dp_balanced_tree tree = tree_of(a);

		memcpy(b, a, size);
		dp_counter_push(a, value, &rng);
		b->steps++;
		dp_balanced_tree_push(b, &tree, b->steps, value, &copy);
		b->release = dp_balanced_tree_release(b, &tree, b->steps);
		mismatches += memcmp(a->nodes, b->nodes, sizeof(dp_int128) * a->kind_nodes) != 0 ||
			a->running_total != b->running_total || a->release != b->release ||
			memcmp(&rng, &copy, sizeof(rng)) != 0;
	}
	tap_ok(mismatches == 0,
		   "balanced(horizon=%lld, arity=%lld): the push from the digits leaves the nodes, the total, "
		   "the release and the random stream as the shared tree push does (%lld mismatches)",
		   (long long) horizon, (long long) arity, (long long) mismatches);
	free(a);
	free(b);
}

int
main(void)
{
	static const char seed[] = "dp_stream unit test: balanced digits";

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	test_incremental(13, 3, 1);
	test_incremental(1000, 3, 5);
	test_incremental(1000, 5, 1);
	test_incremental(365, 29, 1);
	test_incremental(64, 13, 1);
	test_incremental(20000, 21, 3);
	test_incremental(1984, 63, 1);
	test_incremental(200000, 7, 2);
	test_incremental(300000, dp_balanced_default_arity(300000), 1);
	test_push_equals_tree_push(1000, 3);
	test_push_equals_tree_push(2000, 5);
	test_push_equals_tree_push(365, 29);
	test_push_equals_tree_push(50000, 21);
	return tap_done();
}
