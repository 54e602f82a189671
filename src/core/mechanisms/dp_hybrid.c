/*
 * dp_hybrid.c
 *		The unbounded Hybrid mechanism (Chan, Shi and Song [CSS10];
 *		Budaeva et al. [BLD+], section 4.1).
 *
 * Time is cut into blocks k = 0, 1, 2, ... covering steps [2^k, 2^(k+1) - 1].
 * Two mechanisms run side by side, each with half of the budget:
 *
 *   the logarithmic mechanism: one p-sum per block, noise 2N / epsilon
 *     (each step is in one block: sensitivity N at epsilon / 2);
 *   a Binary mechanism restarted on every block, with horizon 2^k and so
 *     k + 1 levels: noise 2 (k + 1) N / epsilon (each step is in one block's
 *     tree: sensitivity (k + 1) N at epsilon / 2).
 *
 * Sequential composition of the two halves gives epsilon-DP with no horizon.
 * The release at t is the sum of the closed blocks' noisy p-sums plus the
 * current block's tree release; when t closes a block, the release is the
 * closed blocks alone.  With k the block of t + 1 and s = t + 1 - 2^k the
 * steps done in it, the noise is k terms of scale 2N / epsilon and
 * popcount(s) terms of scale 2 (k + 1) N / epsilon: variance about
 * (8 / epsilon^2) N^2 (log2 t + log2(t)^3 / 2), O(log^3 t) like Binary over
 * a horizon of t, with no horizon to declare and O(log t) state.
 *
 * Accumulators start from their noise, as in Binary, and the pan_private
 * option adds the second noise term when they close.
 *
 * Nodes: [0] sum of the closed blocks' noisy p-sums; [1] the open block's
 * log accumulator; [2 .. 2 + 63) the current block's tree levels.
 */
#include "dp_binary_tree.h"

#define TREE_FIRST 2
#define TREE_LEVELS_MAX 63
/* steps are numbered up to 2^62, so blocks go up to 62 and trees to 63 levels */

/* Block of step n >= 1, and how many of its steps precede n. */
static int
block_of(int64_t n)
{
	return dp_level_count(n) - 1;
}

/* class 1 + b: the tree of block b */
static dp_scale
tree_scale(const dp_counter *counter, int block)
{
	return dp_counter_class_scale(counter, 1 + block);
}

static dp_status
hybrid_validate(const dp_mechanism *mechanism, const char **field)
{
	if (dp_mechanism_unit_bound(mechanism) > DP_SENSITIVITY_MAX / (2 * TREE_LEVELS_MAX))
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

static int
hybrid_node_count(const dp_mechanism *mechanism)
{
	return TREE_FIRST + TREE_LEVELS_MAX;
}

/*
 * Class 0: the log mechanism's p-sums, one per item, half the budget.
 * Class 1 + b: the tree of block b, b + 1 levels, the other half; an item
 * reaches the tree of its own block only.  counter->second_scale caches
 * the class of the open block.
 */
static bool
hybrid_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	if (index < 0 || index > TREE_LEVELS_MAX)
		return false;
	return dp_noise_class_nodes(out, index == 0 ? 1 : (uint64_t) index, 2);
}

static void
hybrid_open_block(dp_counter *counter, int block, dp_random *rng)
{
	counter->nodes[1] = dp_counter_noise(counter, rng, &counter->scale, 1, DP_NOISE_OPEN, 0);
	counter->second_scale = tree_scale(counter, block);
	for (int level = block + 1; level < TREE_LEVELS_MAX; level++)
		counter->nodes[TREE_FIRST + level] = 0;
	dp_binary_tree_open(counter, TREE_FIRST, block + 1, &counter->second_scale, rng);
}

static void
hybrid_start(dp_counter *counter, dp_random *rng)
{
	hybrid_open_block(counter, 0, rng);
}

static void
hybrid_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int64_t		t = ++counter->steps;
	int			block = block_of(t);
	int64_t		in_block = t - (((int64_t) 1) << block) + 1;

	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */
	counter->nodes[1] = dp_counter_add(counter, counter->nodes[1], value);
	dp_binary_tree_push(counter, TREE_FIRST, in_block, &counter->second_scale, rng);

	if (in_block == ((int64_t) 1) << block)
	{
		/* the block is complete: its log p-sum replaces its tree */
		counter->nodes[0] = dp_counter_add(counter, counter->nodes[0], counter->nodes[1]);
		if (dp_counter_pan_private(counter))
			counter->nodes[0] = dp_counter_add(counter, counter->nodes[0],
											   dp_counter_noise(counter, rng, &counter->scale, 0,
																DP_NOISE_CLOSE, counter->nodes[1]));
		counter->release = counter->nodes[0];
		hybrid_open_block(counter, block + 1, rng);
	}
}

static void
hybrid_persist(const dp_counter *counter, dp_int128 *nodes)
{
	int64_t		next = counter->steps + 1;
	int			block = block_of(next);

	nodes[0] = counter->nodes[0];
	nodes[1] = counter->nodes[1];
	for (int level = block + 1; level < TREE_LEVELS_MAX; level++)
		nodes[TREE_FIRST + level] = 0;
	dp_binary_tree_persist(counter, TREE_FIRST, block + 1,
						   next - (((int64_t) 1) << block), nodes);
}

static void
hybrid_resume(dp_counter *counter)
{
	int64_t		next = counter->steps + 1;
	int			block = block_of(next);

	counter->running_total = 0;
	counter->second_scale = tree_scale(counter, block);
	counter->release = dp_counter_add(counter, counter->nodes[0],
									  dp_binary_tree_release(counter, TREE_FIRST, block + 1,
															 next - (((int64_t) 1) << block)));
}

static int
hybrid_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	int			block = block_of(steps + 1);
	int64_t		in_block = steps + 1 - (((int64_t) 1) << block);

	groups[0].scale = counter->scale;
	groups[0].terms = (int64_t) block * (dp_counter_pan_private(counter) ? 2 : 1);
	groups[1].scale = tree_scale(counter, block);
	groups[1].terms = dp_binary_tree_noise_terms(counter, in_block);
	return 2;
}

const dp_counter_kind dp_hybrid_kind = {
	.name = "hybrid",
	.kind = DP_MECHANISM_HYBRID,
	.bounded = false,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = hybrid_validate,
	.node_count = hybrid_node_count,
	.noise_class = hybrid_noise_class,
	.start = hybrid_start,
	.push = hybrid_push,
	.persist = hybrid_persist,
	.resume = hybrid_resume,
	.noise_groups = hybrid_noise_groups,
	.auto_rank = 7,
};
