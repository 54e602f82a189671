/*
 * dp_ppcum.c
 *		PPCum, the pan-private cumulative sum (the pan-private
 *		counter of Dwork, Naor, Pitassi and Rothblum [DNPR10]).
 *
 * Over a complete binary tree with 2^L >= T leaves, L = ceil(log2 T), every
 * node below the root has a noise term.  The mechanism keeps one counter X,
 * started from noise, adds each value to it, and releases at t
 *     X + sum of the noises of the L nodes that contain t.
 * A node's noise is forgotten once the node lies wholly in the past; the
 * state after t is X and the noises of the nodes that contain t + 1, which
 * carry no data.  For neighbours differing at j <= t, shifting X's initial
 * noise by -delta and, by +delta, the noises of the at most L dyadic
 * intervals that tile [1, j - 1] (all forgotten by then) maps one view
 * (releases up to t and the state) onto the other: cost (L + 1) N / b, so
 * b = (L + 1) N / epsilon gives epsilon-DP pan-privacy for the past
 * (Dwork et al. [DNPRY10]).  Every release carries L + 1 noise terms.
 * The seed proves nothing for releases made after a state was read, so the
 * pan_private option (which promises that) is refused for PPCum.
 *
 * Nodes: [0] X; [1 .. L] the noise of the level-l node containing t + 1;
 * [L + 1] the last release (public).
 */
#include "dp_counter.h"

static int
tree_levels(int64_t horizon)
{
	return horizon > 1 ? dp_level_count(horizon - 1) : 0;	/* ceil(log2 T) */
}

static int
ppcum_node_count(const dp_mechanism *mechanism)
{
	return tree_levels(mechanism->horizon) + 2;
}

/* the levels of the tree plus the release term (its own argument, above) */
static bool
ppcum_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 &&
		dp_noise_class_nodes(out, (uint64_t) (tree_levels(mechanism->horizon) + 1), 1);
}

/*
 * The release is X plus the sum of the L level noises.  That sum is kept
 * in the counter's memo (dp_counter_memo_keep), so that a step replaces
 * only the noises it forgets (levels 0 .. ctz(t): two a step on average)
 * instead of adding all L again.  Without a valid memo (a state just
 * loaded) the sum is taken over every level.  The terms are integers far
 * inside the arithmetic range (a draw is below 2^112, a node a decoded
 * state may hold below 2^120, and there are at most 63 of them: under
 * 2^126), so no addition is refused and the sum is the same whatever
 * their order: the same release to the bit.  After an overflow the memo
 * is dropped, as Honaker's is: the push has failed, and nothing should
 * build on its sums.
 */
static dp_int128
level_noise(dp_counter *counter, int levels)
{
	dp_int128	sum = 0;

	for (int level = 0; level < levels; level++)
		sum = dp_counter_add(counter, sum, counter->nodes[1 + level]);
	return sum;
}

static void
ppcum_start(dp_counter *counter, dp_random *rng)
{
	int			levels = tree_levels(counter->mechanism.horizon);

	for (int i = 0; i <= levels; i++)
		counter->nodes[i] = dp_counter_noise(counter, rng, &counter->scale, i, DP_NOISE_OPEN, 0);
	dp_counter_memo_keep(counter, level_noise(counter, levels));
}

static void
ppcum_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int			levels = tree_levels(counter->mechanism.horizon);
	int64_t		t = ++counter->steps;
	int			ending;
	dp_int128	noise;

	if (counter->memo_step >= 0 && counter->memo_step == t - 1)
		noise = dp_counter_memo_sum(counter);
	else
		noise = level_noise(counter, levels);

	counter->nodes[0] = dp_counter_add(counter, counter->nodes[0], value);
	counter->release = dp_counter_add(counter, counter->nodes[0], noise);
	counter->nodes[levels + 1] = counter->release;

	/* forget the noise of every node that ends at t; its successor is fresh */
	ending = __builtin_ctzll((uint64_t) t);
	for (int level = 0; level < levels && level <= ending; level++)
	{
		noise = dp_counter_sub(counter, noise, counter->nodes[1 + level]);
		counter->nodes[1 + level] = dp_counter_noise(counter, rng, &counter->scale, 1 + level,
													 DP_NOISE_OPEN, 0);
		noise = dp_counter_add(counter, noise, counter->nodes[1 + level]);
	}
	if (counter->overflow)
		counter->memo_step = -1;
	else
		dp_counter_memo_keep(counter, noise);
}

static void
ppcum_resume(dp_counter *counter)
{
	counter->release = counter->nodes[counter->kind_nodes - 1];
}

static int
ppcum_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	groups[0].scale = counter->scale;
	groups[0].terms = steps > 0 ? tree_levels(counter->mechanism.horizon) + 1 : 0;
	return 1;
}

static const dp_kind_refusal ppcum_refusals[] = {
	{DP_ERROR_OPTION, "pan_private", "the {kind} mechanism does not support the pan_private option", NULL,
	"PPCum protects one stored snapshot together with the releases up to it; for releases after it, use {pan_private_kinds} with dp_pan_private()."},
	{.status = DP_OK}
};

const dp_counter_kind dp_ppcum_kind = {
	.name = "ppcum",
	.kind = DP_MECHANISM_PPCUM,
	.bounded = true,
	.accepted_flags = DP_FLAG_CONSISTENT,
	.validate = NULL,
	.node_count = ppcum_node_count,
	.noise_class = ppcum_noise_class,
	.start = ppcum_start,
	.push = ppcum_push,
	.persist = NULL,
	.resume = ppcum_resume,
	.noise_groups = ppcum_noise_groups,
	.refusals = ppcum_refusals,
};
