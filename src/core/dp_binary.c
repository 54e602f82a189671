/*
 * dp_binary.c
 *		The Binary mechanism (Chan, Shi, Song 2010; seed 000 section 3.5) for
 *		streams whose values lie in [0, N] (seed 004, Algorithm 2).
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
 * from the first step on (the pan-private transformation of seed 004 section
 * 2.4.4) and the persisted state never holds a raw partial sum.  The running
 * total makes a step O(1): adding a value touches no node.  Step t closes
 * exactly one interval, at level k = ctz(t), and reopens levels 0..k-1 with
 * fresh noise, so a step costs O(1 + k) = O(1) amortized, and one noise draw
 * per step on average.  Every interval's noise is drawn once and never
 * changes afterwards, so releases at different steps are consistent with a
 * single set of node noises.
 */
#include "dp_counter.h"

static int
level_count(int64_t horizon)
{
	return 64 - __builtin_clzll((uint64_t) horizon);	/* floor(log2 T) + 1 */
}

static int
binary_node_count(const dp_mechanism *mechanism)
{
	return level_count(mechanism->horizon);
}

static uint64_t
binary_sensitivity(const dp_mechanism *mechanism)
{
	return (uint64_t) level_count(mechanism->horizon) * (uint64_t) mechanism->max_per_step;
}

/* Open a fresh interval at a level: its accumulator starts at the noise. */
static void
binary_open_level(dp_counter *counter, int level, dp_random *rng)
{
	counter->nodes[level] = dp_discrete_laplace(rng, &counter->scale) - counter->running_total;
}

static void
binary_start(dp_counter *counter, dp_random *rng)
{
	for (int level = 0; level < counter->node_count; level++)
		binary_open_level(counter, level, rng);
}

static void
binary_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int64_t		step = counter->steps + 1;
	int			closing = __builtin_ctzll((uint64_t) step);

	counter->running_total += value;

	/* levels below `closing` leave the decomposition (their bits clear) ... */
	for (int level = 0; level < closing; level++)
		counter->release -= counter->nodes[level];

	/* ... the interval ending at `step` on level `closing` joins it ... */
	counter->nodes[closing] += counter->running_total;
	counter->release += counter->nodes[closing];

	/* ... and each level below starts its next odd interval at step + 1. */
	for (int level = 0; level < closing; level++)
		binary_open_level(counter, level, rng);

	counter->steps = step;
}

static void
binary_persist(const dp_counter *counter, dp_int128 *nodes)
{
	for (int level = 0; level < counter->node_count; level++)
	{
		int			closed = (counter->steps >> level) & 1;

		nodes[level] = counter->nodes[level] + (closed ? 0 : counter->running_total);
	}
}

static void
binary_resume(dp_counter *counter)
{
	counter->running_total = 0;
	counter->release = 0;
	for (int level = 0; level < counter->node_count; level++)
		if ((counter->steps >> level) & 1)
			counter->release += counter->nodes[level];
}

static int
binary_noise_terms(const dp_counter *counter)
{
	return __builtin_popcountll((uint64_t) counter->steps);
}

const dp_counter_kind dp_binary_kind = {
	.name = "binary",
	.kind = DP_MECHANISM_BINARY,
	.bounded = true,
	.validate = NULL,
	.node_count = binary_node_count,
	.sensitivity = binary_sensitivity,
	.start = binary_start,
	.push = binary_push,
	.persist = binary_persist,
	.resume = binary_resume,
	.noise_terms = binary_noise_terms,
};
