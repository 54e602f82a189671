/*
 * test_balanced.c
 *		Balanced digits (dp_balanced.c): the release a step computes from the
 *		release before it (only the levels whose digit changed) equals the
 *		release recomputed from every level, at every step of whole horizons,
 *		for several arities, with counters of the same and of other
 *		parameters stepping in between (they share the digit computation);
 *		and the same for the unbounded kind's trees, block after block.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_balanced_tree.h"
#include "dp_counter.h"
#include "tap.h"
#include "test_support.h"

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

/*
 * The unbounded kind (balanced blocks, dp_auto's unbounded choice) steps
 * each block's tree from the release before (dp_balanced_tree_step): a copy
 * of the counter and of the random stream stepped the way it did before,
 * dp_balanced_tree_push then the release recomputed from every level
 * (dp_balanced_tree_release), must hold the same nodes, total, release and
 * stream after every step inside a block; at a block's last step the
 * closed tree's release must be what joined node 0.  Across many blocks
 * (arity 3: blocks of 1, 3, 9, ... steps), with another counter stepping in
 * between.
 */
static int64_t
blocks_multiplier(int64_t arity)
{
	return (arity + 2) / 5 < 1 ? 1 : (arity + 2) / 5;
}

static void
test_blocks_step(int64_t arity, int64_t steps, int64_t max_per_step, int flags)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BALANCED_UNBOUNDED, .epsilon = 1.0,
	.block = arity, .max_per_step = max_per_step, .flags = flags};
	size_t		size = dp_counter_size(&mechanism);
	dp_counter *a = malloc(size);
	dp_counter *b = malloc(size);
	dp_counter *other = new_counter(1000, 5, 1);
	const char *field;
	int64_t		mismatches = 0;
	int64_t		start = 0;
	int64_t		length = blocks_multiplier(arity);
	int			block = 0;
	int			blocks_closed = 0;

	if (dp_counter_start(a, &mechanism, &rng, &field) != DP_OK)
	{
		printf("Bail out! could not start balanced_unbounded(arity=%lld)\n", (long long) arity);
		exit(1);
	}
	for (int64_t t = 1; t <= steps; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1);
		int64_t		local;
		dp_random	copy;
		dp_balanced_tree tree;
		dp_int128	tree_release;

		if (t > start + length)
		{
			start += length;
			length *= arity;
			block++;
		}
		local = t - start;
		tree = (dp_balanced_tree) {.first = 1, .arity = arity, .levels = block + 1,
		.scale = a->second_scale};
		memcpy(b, a, size);
		copy = rng;
		dp_counter_push(a, value, &rng);
		b->steps++;
		dp_balanced_tree_push(b, &tree, local, value, &copy);
		tree_release = dp_balanced_tree_release(b, &tree, local);
		if (local == length)
		{
			/* the closed tree's release joined node 0; the next block opened */
			mismatches += a->nodes[0] != b->nodes[0] + tree_release ||
				a->release != a->nodes[0] || a->running_total != 0;
			blocks_closed++;
		}
		else
			mismatches += memcmp(a->nodes, b->nodes, sizeof(dp_int128) * (size_t) a->kind_nodes) != 0 ||
				a->running_total != b->running_total ||
				a->release != b->nodes[0] + tree_release ||
				memcmp(&rng, &copy, sizeof(rng)) != 0;
		if (t % 5 == 0)
			dp_counter_push(other, 1, &rng);
	}
	tap_ok(mismatches == 0 && blocks_closed >= 3 && !a->overflow,
		   "balanced_unbounded(arity=%lld, max_per_step=%lld%s): %lld steps over %d closed blocks, each "
		   "step's release from the one before equals the tree's release recomputed from every level "
		   "(%lld mismatches)",
		   (long long) arity, (long long) max_per_step,
		   (flags & DP_FLAG_CONSISTENT) ? ", consistent" : "", (long long) steps, blocks_closed,
		   (long long) mismatches);
	free(a);
	free(b);
	free(other);
}

/*
 * The unbounded kind keeps the open block's position in the memo (0.21.0)
 * rather than walking the blocks at every push.  A counter whose memo stays
 * live against a copy written and read back before every step (so that
 * each of its pushes finds its block afresh), fed the same values from
 * copies of one noise stream: the release and every node of the stored
 * form agree at every step, across block boundaries.
 */
static void
test_blocks_memo_against_reload(int64_t arity, int64_t steps, int64_t max_per_step, uint32_t flags,
								int64_t contributions)
{
	dp_mechanism mechanism = {.kind = DP_MECHANISM_BALANCED_UNBOUNDED, .epsilon = 1.0,
		.block = arity, .max_per_step = max_per_step, .flags = flags,
	.contributions = contributions};
	size_t		size = dp_counter_size(&mechanism);
	dp_counter *kept = malloc(size);
	dp_counter *fresh = malloc(size);
	dp_random	kept_rng = rng;
	dp_random	fresh_rng;
	const char *field;
	int64_t		mismatches = 0;

	if (dp_counter_start(kept, &mechanism, &kept_rng, &field) != DP_OK)
	{
		printf("Bail out! could not start balanced_unbounded(arity=%lld)\n", (long long) arity);
		exit(1);
	}
	memcpy(fresh, kept, size);
	fresh_rng = kept_rng;
	for (int64_t t = 1; t <= steps; t++)
	{
		int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1);
		dp_counter *loaded = test_reload_counter(fresh);

		free(fresh);
		fresh = loaded;
		mismatches += dp_counter_push(fresh, value, &fresh_rng) != DP_OK;
		mismatches += dp_counter_push(kept, value, &kept_rng) != DP_OK;
		{
			/* in memory an open interval holds an offset: compare the stored forms */
			dp_int128	fresh_nodes[DP_COUNTER_MAX_NODES];
			dp_int128	kept_nodes[DP_COUNTER_MAX_NODES];

			dp_counter_persisted_nodes(fresh, fresh_nodes);
			dp_counter_persisted_nodes(kept, kept_nodes);
			mismatches += fresh->release != kept->release ||
				memcmp(fresh_nodes, kept_nodes, sizeof(dp_int128) * (size_t) kept->node_count) != 0;
		}
	}
	tap_ok(mismatches == 0, "balanced_unbounded(arity=%lld, max_per_step=%lld, flags=%u, contributions=%lld): the block's "
		   "position kept in the memo and found afresh after a reload agree in the release and every stored node at each "
		   "of %lld steps (%lld mismatches)", (long long) arity, (long long) max_per_step,
		   (unsigned) flags, (long long) contributions, (long long) steps, (long long) mismatches);
	free(kept);
	free(fresh);
}

/*
 * The block's memo (memo[120..123], dp_balanced_blocks.c) must lie above
 * the digits of t - 1, which dp_balanced.c keeps in memo[64 ..], one word
 * a level: at every arity the kind accepts, the last block a stream can
 * reach has at most 40 levels (the digits' own bound, so at most memo[103]
 * is written).  Block b's tree has b + 1 levels and the kind has one noise
 * class a block, so the classes count the levels of the last block.
 */
static void
test_blocks_memo_room(void)
{
	int			deepest = 0;
	int64_t		deepest_arity = 0;
	int			accepted = 0;

	for (int64_t arity = 3; arity <= 201; arity += 2)
	{
		dp_mechanism mechanism = {.kind = DP_MECHANISM_BALANCED_UNBOUNDED, .epsilon = 1.0,
		.block = arity, .max_per_step = 1};
		dp_counter	header;
		dp_noise_class class;
		const char *field;
		int			levels = 0;

		if (dp_counter_prepare(&header, &mechanism, &field) != DP_OK)
			continue;
		accepted++;
		while (header.kind->noise_class(&mechanism, levels, &class))
			levels++;
		if (levels > deepest)
		{
			deepest = levels;
			deepest_arity = arity;
		}
	}
	tap_ok(accepted > 0 && deepest <= 40 && 64 + deepest <= 120,
		   "balanced_unbounded: the deepest last block over the %d accepted arities has %d levels "
		   "(arity %lld), within the digits' 40 and below the block's memo at word 120",
		   accepted, deepest, (long long) deepest_arity);
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
	test_blocks_step(3, 30000, 1, 0);
	test_blocks_step(5, 20000, 4, DP_FLAG_CONSISTENT);
	test_blocks_step(21, 200000, 1, 0);
	test_blocks_step(11, 50000, 2, 0);
	test_blocks_memo_against_reload(3, 3000, 1, 0, 0);
	test_blocks_memo_against_reload(21, 20000, 2, 0, 0);
	test_blocks_memo_against_reload(5, 4000, 3, DP_FLAG_CONSISTENT, 0);
	test_blocks_memo_against_reload(3, 3000, 1, DP_FLAG_PERSON, 2);
	test_blocks_memo_against_reload(7, 3000, 1, DP_FLAG_CONSISTENT | DP_FLAG_PERSON, 3);
	test_blocks_memo_room();
	return tap_done();
}
