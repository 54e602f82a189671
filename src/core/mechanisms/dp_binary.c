/*
 * dp_binary.c
 *		The Binary mechanism (Chan, Shi and Song, ICALP 2010 [CSS10]) for
 *		streams whose values lie in [0, N] (Budaeva et al. [BLD+], Algorithm 2).
 *
 * With L = floor(log2 T) + 1 levels, the p-sums are the dyadic intervals
 * (m 2^j - 2^j, m 2^j] for j < L.  Each step lies in one interval per level,
 * so the vector of all p-sums has L1 sensitivity L N and each gets discrete
 * Laplace noise of scale L N / epsilon.  The release at t sums the p-sums of
 * t's binary decomposition: one per set bit of t.
 *
 * Only odd-indexed intervals (m odd) ever appear in a decomposition, and at
 * any time each level holds at most one interval of interest, so one slot per
 * level suffices:
 *
 *   bit j of t set:    nodes[j] is the noisy p-sum of the last closed odd
 *                      interval at level j, part of the release at t;
 *   bit j of t clear:  the odd interval at level j that contains t + 1 is
 *                      open, and its accumulator, noise included, equals
 *                      nodes[j] + running_total.
 *
 * An interval's noise is drawn when it opens, so its accumulator is noisy
 * from the first step on (the pan-private transformation of Budaeva et al. [BLD+], section
 * 2.4.4) and the persisted state never holds a raw partial sum.  The running
 * total makes a step O(1): adding a value touches no node.  Step t closes
 * exactly one interval, at level k = ctz(t), and reopens levels 0..k-1 with
 * fresh noise, so a step costs O(1 + k) = O(1) amortized, and one noise draw
 * per step on average.  Every interval's noise is drawn once and never
 * changes afterwards, so releases at different steps are consistent with a
 * single set of node noises.
 */
#include "dp_binary_tree.h"

/*
 * With the pan-private option, an interval also gets a second, fresh noise
 * term when it closes (Budaeva et al. [BLD+], section 2.4.4).  Then whoever reads a stored
 * state sees its open accumulators with one noise term each, and the
 * releases made after that reading contain the other, so the state and all
 * releases together are still epsilon-DP; without it, a stored accumulator
 * and the later release of the same interval would differ by the exact sum
 * of the steps in between.
 */
void
dp_binary_tree_open(dp_counter *counter, int first, int levels, const dp_scale *scale,
					dp_random *rng)
{
	for (int level = 0; level < levels; level++)
		counter->nodes[first + level] =
			dp_counter_sub(counter,
						   dp_counter_noise(counter, rng, scale, first + level, DP_NOISE_OPEN, 0),
						   counter->running_total);
}

void
dp_binary_tree_push(dp_counter *counter, int first, int64_t step, const dp_scale *scale,
					dp_random *rng)
{
	int			closing = __builtin_ctzll((uint64_t) step);
	dp_int128  *nodes = counter->nodes + first;

	/* levels below `closing` leave the decomposition (their bits clear) ... */
	for (int level = 0; level < closing; level++)
		counter->release = dp_counter_sub(counter, counter->release, nodes[level]);

	/* ... the interval ending at `step` on level `closing` joins it ... */
	nodes[closing] = dp_counter_add(counter, nodes[closing], counter->running_total);
	if (dp_counter_pan_private(counter))
		nodes[closing] = dp_counter_add(counter, nodes[closing],
										dp_counter_noise(counter, rng, scale, first + closing,
														 DP_NOISE_CLOSE, nodes[closing]));
	counter->release = dp_counter_add(counter, counter->release, nodes[closing]);

	/* ... and each level below starts its next odd interval at step + 1. */
	dp_binary_tree_open(counter, first, closing, scale, rng);
}

/*
 * Every node is within DP_ARITHMETIC_MAX (checked arithmetic or the
 * decoder's bound) and the running total below 2^112, so the sum cannot
 * overflow; a forged state that grows past DP_NODE_VALUE_MAX this way is
 * refused when it is read back.
 */
void
dp_binary_tree_persist(const dp_counter *counter, int first, int levels, int64_t steps,
					   dp_int128 *nodes)
{
	for (int level = 0; level < levels; level++)
	{
		int			closed = (steps >> level) & 1;

		nodes[first + level] = counter->nodes[first + level] +
			(closed ? 0 : counter->running_total);
	}
}

dp_int128
dp_binary_tree_release(dp_counter *counter, int first, int levels, int64_t steps)
{
	dp_int128	release = 0;

	for (int level = 0; level < levels; level++)
		if ((steps >> level) & 1)
			release = dp_counter_add(counter, release, counter->nodes[first + level]);
	return release;
}

int64_t
dp_binary_tree_noise_terms(const dp_counter *counter, int64_t steps)
{
	return (int64_t) __builtin_popcountll((uint64_t) steps) *
		(dp_counter_pan_private(counter) ? 2 : 1);
}

static int
binary_node_count(const dp_mechanism *mechanism)
{
	return dp_level_count(mechanism->horizon);
}

/*
 * Each step lies in one interval per level: L1 sensitivity L N at event
 * level.  At person level the values of all steps together change by at
 * most K units (dp_mechanism_unit_bound), each reaching L intervals: L K.
 */
/* each item lies in one node per level */
static bool
binary_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 &&
		dp_noise_class_nodes(out, (uint64_t) binary_node_count(mechanism), 1);
}

static void
binary_start(dp_counter *counter, dp_random *rng)
{
	dp_binary_tree_open(counter, 0, counter->kind_nodes, &counter->scale, rng);
}

static void
binary_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */
	counter->steps++;
	dp_binary_tree_push(counter, 0, counter->steps, &counter->scale, rng);
}

/*
 * The terms of binary_push: step t = steps + 1 closes level ctz(t) (a
 * closing term over the node with the running total, pan-private only)
 * and reopens the levels below it.
 */
static int
binary_plan(const dp_counter *counter, int64_t value, dp_noise_plan *plans, int max)
{
	int64_t		step = counter->steps + 1;
	int			closing = __builtin_ctzll((uint64_t) step);
	int			count = 0;

	if (closing >= counter->kind_nodes)
		return 0;
	if (dp_counter_pan_private(counter) && count < max)
		plans[count++] = (dp_noise_plan) {
			step, closing, DP_NOISE_CLOSE,
			counter->nodes[closing] + counter->running_total + value
		};
	for (int level = 0; level < closing && count < max; level++)
		plans[count++] = (dp_noise_plan) {step, level, DP_NOISE_OPEN, 0};
	return count;
}

static void
binary_persist(const dp_counter *counter, dp_int128 *nodes)
{
	dp_binary_tree_persist(counter, 0, counter->kind_nodes, counter->steps, nodes);
}

static void
binary_resume(dp_counter *counter)
{
	counter->running_total = 0;
	counter->release = dp_binary_tree_release(counter, 0, counter->kind_nodes, counter->steps);
}

static int
binary_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	groups[0].scale = counter->scale;
	groups[0].terms = dp_binary_tree_noise_terms(counter, steps);
	return 1;
}

const dp_counter_kind dp_binary_kind = {
	.name = "binary",
	.kind = DP_MECHANISM_BINARY,
	.bounded = true,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION | DP_FLAG_ZCDP,
	.validate = NULL,
	.node_count = binary_node_count,
	.noise_class = binary_noise_class,
	.start = binary_start,
	.push = binary_push,
	.plan = binary_plan,
	.persist = binary_persist,
	.resume = binary_resume,
	.noise_groups = binary_noise_groups,
	.auto_rank = 5,
};
