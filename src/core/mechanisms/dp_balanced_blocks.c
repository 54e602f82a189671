/*
 * dp_balanced_blocks.c
 *		An unbounded mechanism with the accuracy of the bounded ones: a
 *		balanced-digit tree per block of geometrically growing length.
 *
 * Time is cut into blocks b = 0, 1, 2, ... of m k^b steps (k the odd
 * arity, m = round(k / 5), at most (k - 1) / 2).  Block b runs its own
 * balanced-digit tree (dp_balanced.c, after Andersson, Pagh, Steiner and
 * Torkamani [APST25]) with b + 1 levels, which cover (k^(b+1) - 1) / 2 >=
 * m k^b local steps, and noise of scale (b + 1) N / epsilon.
 *
 * Privacy: an item lies in one block and in one interval per level of that
 * block's tree, so each tree is epsilon-DP for its own items, and the
 * trees cover disjoint items with independent noise: epsilon-DP in all
 * (parallel composition), with no horizon.  At person level a person's K
 * contributions may fall in several blocks; with scale (b + 1) K N /
 * epsilon in block b, the K_b contributions there cost K_b / K of epsilon,
 * and the blocks add up to epsilon.
 *
 * Unlike the Hybrid mechanism [CSS10], the closed blocks need no counter
 * of their own: the release of block b's tree at its last local step,
 * m k^b, has a single balanced digit m, so it is the block's sum plus m
 * interval noises of its top level; these releases accumulate in node 0.
 * The release at t is node 0 plus the open block's tree release.  The
 * variance at t is that of a bounded tree over the open block plus m terms
 * per closed block; with k = 21 (m = 4) the mean over t <= T is within
 * 1.37x of the best bounded mechanism given T = 2^10, 2^16 and 2^20
 * (docs/mechanisms.md), where Hybrid is 16x to 23x.
 *
 * Storage: node 0, then the open block's tree with room for the levels of
 * the last block a stream of DP_HORIZON_MAX steps reaches; the levels
 * above the open block's are zero.
 */
#include "dp_balanced_tree.h"

#include <math.h>

/* the arity when none is given: least worst ratio to the best bounded tree */
#define BLOCKS_DEFAULT_ARITY 21
#define TREE_FIRST 1

static int64_t
block_multiplier(int64_t arity)
{
	int64_t		m = (arity + 2) / 5;

	return m < 1 ? 1 : m;
}

/*
 * The block holding step t >= 1 (the first block for t = 0), and the steps
 * before it; block b starts after m (k^b - 1) / (k - 1) steps.
 */
typedef struct block_position
{
	int			block;
	int64_t		start;
	int64_t		length;
} block_position;

static block_position
locate(int64_t arity, int64_t t)
{
	block_position position = {0, 0, block_multiplier(arity)};

	/* at most about 40 blocks before DP_HORIZON_MAX for the smallest arity */
	while ((dp_int128) position.start + position.length < t)
	{
		position.start += position.length;
		position.length = (dp_int128) position.length * arity > DP_HORIZON_MAX ?
			DP_HORIZON_MAX : position.length * arity;
		position.block++;
	}
	return position;
}

/*
 * The open block's position for the push, kept in memo words the tree's
 * digits leave free (dp_balanced.c keeps the digits of at most 40 levels in
 * memo[0..39] and memo[64..103]), so that a step does not walk the blocks
 * from the first (O(log T)): memo[MEMO_BLOCK_AT] is the step it was found
 * for.  It is used only while the digits' memo is live (memo_step >= 0:
 * every push within a block sets it, and dp_counter_prepare and
 * blocks_open clear it, so a state read back or a new block locates
 * afresh), for the step after MEMO_BLOCK_AT, and while that step lies in
 * the block; the position is a function of t alone, so a copied counter's
 * memo stays right.
 */
#define MEMO_BLOCK 120
#define MEMO_BLOCK_START 121
#define MEMO_BLOCK_LENGTH 122
#define MEMO_BLOCK_AT 123
_Static_assert(MEMO_BLOCK >= 104 && MEMO_BLOCK_AT < 128,
			   "the block's memo lies above the deepest digits of t - 1");

static block_position
locate_push(dp_counter *counter)
{
	int64_t		t = counter->steps + 1;
	block_position position;

	if (counter->memo_step >= 0 && counter->memo[MEMO_BLOCK_AT] == counter->steps)
	{
		position.block = (int) counter->memo[MEMO_BLOCK];
		position.start = counter->memo[MEMO_BLOCK_START];
		position.length = counter->memo[MEMO_BLOCK_LENGTH];
		if (t > position.start && t - position.start <= position.length)
		{
			counter->memo[MEMO_BLOCK_AT] = t;
			return position;
		}
	}
	position = locate(counter->mechanism.block, t);
	counter->memo[MEMO_BLOCK] = position.block;
	counter->memo[MEMO_BLOCK_START] = position.start;
	counter->memo[MEMO_BLOCK_LENGTH] = position.length;
	counter->memo[MEMO_BLOCK_AT] = t;
	return position;
}

static int
block_of(int64_t arity, int64_t t)
{
	return locate(arity, t).block;
}

/* the last block a stream can reach */
static int
last_block(int64_t arity)
{
	return block_of(arity, DP_HORIZON_MAX);
}

static int
blocks_node_count(const dp_mechanism *mechanism)
{
	return TREE_FIRST + dp_balanced_tree_nodes(mechanism->block, last_block(mechanism->block) + 1);
}

static dp_status
blocks_validate(const dp_mechanism *mechanism, const char **field)
{
	if (!dp_balanced_arity_valid(mechanism->block) ||
		blocks_node_count(mechanism) > DP_COUNTER_MAX_NODES - 1)
	{
		*field = "arity";
		return DP_ERROR_BLOCK;
	}
	if (dp_mechanism_unit_bound(mechanism) > DP_SENSITIVITY_MAX / 64)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int64_t
blocks_default_arity(int64_t horizon)
{
	return BLOCKS_DEFAULT_ARITY;
}

/* class b: the tree of block b, b + 1 levels; an item reaches its own block's only */
static bool
blocks_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	if (index < 0 || index > last_block(mechanism->block))
		return false;
	return dp_noise_class_nodes(out, (uint64_t) index + 1, 1);
}

static dp_balanced_tree
block_tree(const dp_counter *counter, int block)
{
	dp_balanced_tree tree = {
		.first = TREE_FIRST,
		.arity = counter->mechanism.block,
		.levels = block + 1,
		.scale = dp_counter_class_scale(counter, block),
	};

	return tree;
}

static void
blocks_open(dp_counter *counter, int block, dp_random *rng)
{
	dp_balanced_tree tree = block_tree(counter, block);

	counter->second_scale = tree.scale;
	for (int i = TREE_FIRST; i < counter->kind_nodes; i++)
		counter->nodes[i] = 0;
	/* a new tree (one more level): the digits' memo was the last one's */
	counter->memo_step = -1;
	dp_balanced_tree_open(counter, &tree, rng);
}

static void
blocks_start(dp_counter *counter, dp_random *rng)
{
	counter->nodes[0] = 0;
	blocks_open(counter, 0, rng);
}

/* the open block's tree, its scale cached in second_scale */
static dp_balanced_tree
open_tree(const dp_counter *counter, const block_position *position)
{
	dp_balanced_tree tree = {
		.first = TREE_FIRST,
		.arity = counter->mechanism.block,
		.levels = position->block + 1,
		.scale = counter->second_scale,
	};

	return tree;
}

static void
blocks_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	block_position position = locate_push(counter);
	dp_balanced_tree tree = open_tree(counter, &position);
	int64_t		local = counter->steps + 1 - position.start;
	dp_int128	tree_release;

	counter->steps++;

	/*
	 * The tree's release from its release before the step (the counter's
	 * less the closed blocks' node 0; 0 at a block's first step): only the
	 * levels whose digit changed, as the bounded kind.  After an overflow
	 * that difference is not the tree's release, so it is recomputed from
	 * every level (the push reports the overflow anyway).
	 */
	if (local == 1)
		tree_release = dp_balanced_tree_step(counter, &tree, local, value, rng, 0);
	else if (!counter->overflow)
		tree_release = dp_balanced_tree_step(counter, &tree, local, value, rng,
											 counter->release - counter->nodes[0]);
	else
	{
		dp_balanced_tree_push(counter, &tree, local, value, rng);
		tree_release = dp_balanced_tree_release(counter, &tree, local);
	}
	if (local == position.length)
	{
		/* the block is complete: its tree's last release joins node 0 */
		counter->nodes[0] = dp_counter_add(counter, counter->nodes[0], tree_release);
		counter->running_total = 0;
		blocks_open(counter, position.block + 1, rng);
		counter->release = counter->nodes[0];
	}
	else
		counter->release = dp_counter_add(counter, counter->nodes[0], tree_release);
}

static void
blocks_persist(const dp_counter *counter, dp_int128 *nodes)
{
	block_position position = locate(counter->mechanism.block, counter->steps + 1);
	dp_balanced_tree tree = open_tree(counter, &position);

	for (int i = 0; i < counter->kind_nodes; i++)
		nodes[i] = counter->nodes[i];
	dp_balanced_tree_persist(counter, &tree, counter->steps - position.start, nodes);
}

static void
blocks_resume(dp_counter *counter)
{
	block_position position = locate(counter->mechanism.block, counter->steps + 1);
	dp_balanced_tree tree = block_tree(counter, position.block);

	counter->second_scale = tree.scale;
	counter->running_total = 0;
	counter->release = dp_counter_add(counter, counter->nodes[0],
									  dp_balanced_tree_release(counter, &tree,
															   counter->steps - position.start));
}

/* m terms of each closed block's top level, and the open tree's digits */
static int
blocks_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	block_position position = locate(counter->mechanism.block, steps + 1);
	dp_balanced_tree tree = block_tree(counter, position.block);

	for (int b = 0; b < position.block; b++)
	{
		groups[b].scale = dp_counter_class_scale(counter, b);
		groups[b].terms = block_multiplier(counter->mechanism.block);
	}
	groups[position.block].scale = tree.scale;
	groups[position.block].terms = dp_balanced_tree_noise_terms(&tree, steps - position.start);
	return position.block + 1;
}

static const dp_kind_parameter blocks_parameters[] = {
	{.name = "arity", .range = "odd, at least 3, and small enough for the nodes of a stream of {horizon_limit} steps",
		.default_text = "the default arity",
		.message = "arity out of range for this mechanism",
		.detail = "arity was {value}; it must be odd, at least 3, and small enough for the nodes of a stream of {horizon_limit} steps.",
	.hint = "Leave arity out to get the default."},
	{.name = NULL}
};

const dp_counter_kind dp_balanced_blocks_kind = {
	.name = "balanced_unbounded",
	.kind = DP_MECHANISM_BALANCED_UNBOUNDED,
	.bounded = false,
	.has_block = true,
	.block_name = "arity",
	.default_block = blocks_default_arity,
	.accepted_flags = DP_FLAG_CONSISTENT | DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION | DP_FLAG_ZCDP,
	.validate = blocks_validate,
	.node_count = blocks_node_count,
	.noise_class = blocks_noise_class,
	.start = blocks_start,
	.push = blocks_push,
	.persist = blocks_persist,
	.resume = blocks_resume,
	.noise_groups = blocks_noise_groups,
	.parameters = blocks_parameters,
	.auto_rank = 2,
};
