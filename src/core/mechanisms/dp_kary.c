/*
 * dp_kary.c
 *		The k-ary tree mechanism: the Binary mechanism's dyadic intervals
 *		replaced by k-adic ones (the p-sum framework of Chan, Shi and Song
 *		[CSS10] with base k; compared by Andersson, Pagh, Steiner and
 *		Torkamani [APST25]).
 *
 * With L base-k digits for the horizon, level j holds the intervals
 * ((m - 1) k^j, m k^j].  Each step lies in one interval per level, so the
 * L1 sensitivity of all intervals is L N (L K at person level), and each
 * gets discrete Laplace noise of scale L N / epsilon.  The release at t sums,
 * for every level j, the d_j closed intervals of t's base-k digit d_j: at
 * most L (k - 1) terms, on average about L (k - 1) / 2.  Fewer levels than
 * Binary (L = log_k T) buy a smaller scale at the price of more terms per
 * level; k around 16 minimises the variance for the usual horizons.
 *
 * Storage: level j owns k slots, nodes[j k .. j k + k - 1].  Slots 0..k-2
 * hold the closed intervals of the current digit (the noisy p-sums that are
 * in the release); slot k - 1 is the open interval's accumulator, kept as an
 * offset against the running total like Binary's (dp_binary.c), its noise
 * drawn when it opens.  Step t closes the open interval of the level c =
 * number of trailing zero digits of t, drops the closed intervals of the
 * levels below c (the new level-c interval covers them) and reopens levels
 * 0..c: amortised O(1) work per step.
 */
#include "dp_counter.h"

/* the nodes of dp_kary before states could hold more (kept: defaults stay) */
#define KARY_NODES_MAX 255

#include <math.h>
#include <string.h>

#define ARITY_MIN 2
#define ARITY_MAX 64

/* base-k digits needed for the horizon (levels of the tree), k >= 2 */
static int
kary_levels(int64_t horizon, int64_t arity)
{
	int			levels = 1;
	int64_t		span = arity;	/* arity^levels, while it stays below horizon */

	while (span <= horizon && levels < 63)
	{
		levels++;
		if (span > INT64_MAX / arity)
			break;
		span *= arity;
	}
	return levels;
}

static dp_status
kary_validate(const dp_mechanism *mechanism, const char **field)
{
	if (mechanism->block < ARITY_MIN || mechanism->block > ARITY_MAX ||
		(int64_t) kary_levels(mechanism->horizon, mechanism->block) * mechanism->block >
		KARY_NODES_MAX)
	{
		*field = "arity";
		return DP_ERROR_BLOCK;
	}
	return DP_OK;
}

/*
 * The arity with the least mean variance over steps 1..horizon among those
 * the node budget allows: the mean digit sum is computed exactly per base,
 * and the variance of one term is proportional to the square of the levels.
 */
int64_t
dp_kary_default_arity(int64_t horizon)
{
	int64_t		best = 2;
	double		best_cost = INFINITY;

	if (horizon < 1)
		return best;
	for (int64_t k = ARITY_MIN; k <= ARITY_MAX; k++)
	{
		int			levels = kary_levels(horizon, k);
		double		digit_sum = 0;
		int64_t		power = 1;
		double		cost;

		if ((int64_t) levels * k > KARY_NODES_MAX)
			continue;
		/* sum over t = 1..horizon of digit j of t, exactly, per level */
		for (int j = 0; j < levels; j++)
		{
			/* the top level's cycle may pass int64: then no cycle is full */
			bool		beyond = power > INT64_MAX / k;
			int64_t		cycle = beyond ? INT64_MAX : power * k;
			int64_t		full = beyond ? 0 : (horizon + 1) / cycle;
			int64_t		rest = beyond ? horizon + 1 : (horizon + 1) % cycle;

			digit_sum += (double) full * power * (double) (k * (k - 1) / 2);
			for (int64_t d = 1; d < k; d++)
			{
				dp_int128	from = (dp_int128) d * power;

				if (rest > from)
					digit_sum += (double) d * (double) fmin((double) (rest - from), (double) power);
			}
			if (power > INT64_MAX / k)
				break;
			power *= k;
		}
		cost = (double) levels * levels * digit_sum;
		if (cost < best_cost)
		{
			best_cost = cost;
			best = k;
		}
	}
	return best;
}

static int
kary_node_count(const dp_mechanism *mechanism)
{
	return kary_levels(mechanism->horizon, mechanism->block) * (int) mechanism->block;
}

/* each item lies in one node per level */
static bool
kary_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 &&
		dp_noise_class_nodes(out, (uint64_t) kary_levels(mechanism->horizon, mechanism->block), 1);
}

static int
open_slot(const dp_counter *counter, int level)
{
	return level * (int) counter->mechanism.block + (int) counter->mechanism.block - 1;
}

static void
open_level(dp_counter *counter, int level, dp_random *rng)
{
	int			slot = open_slot(counter, level);

	counter->nodes[slot] = dp_counter_sub(counter,
										  dp_counter_noise(counter, rng, &counter->scale, slot,
														   DP_NOISE_OPEN, 0),
										  counter->running_total);
}

static void
kary_start(dp_counter *counter, dp_random *rng)
{
	int			levels = counter->kind_nodes / (int) counter->mechanism.block;

	for (int level = 0; level < levels; level++)
		open_level(counter, level, rng);
}

/*
 * The level whose open interval step t closes: t's trailing zero digits in
 * base k (at most the top level); *digit is t's digit there (>= 1).  For
 * the push and for its plan.
 */
static int
closing_level(int64_t t, int64_t k, int levels, int64_t *digit)
{
	int64_t		rest = t;
	int			closing = 0;

	while (rest % k == 0 && closing < levels - 1)
	{
		rest /= k;
		closing++;
	}
	*digit = rest % k;
	return closing;
}

static void
kary_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int64_t		k = counter->mechanism.block;
	int			levels = counter->kind_nodes / (int) k;
	int64_t		digit;
	int			closing = closing_level(++counter->steps, k, levels, &digit);
	dp_int128  *closed;
	int			slot;

	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */

	/* the closed intervals of the lower levels leave the release ... */
	for (int level = 0; level < closing; level++)
	{
		closed = counter->nodes + level * k;
		for (int64_t i = 0; i < k - 1; i++)
		{
			counter->release = dp_counter_sub(counter, counter->release, closed[i]);
			closed[i] = 0;
		}
	}

	/* ... the open interval of level `closing` closes and joins it ... */
	slot = open_slot(counter, closing);
	closed = counter->nodes + closing * k;
	closed[digit - 1] = dp_counter_add(counter, counter->nodes[slot], counter->running_total);
	if (dp_counter_pan_private(counter))
		closed[digit - 1] = dp_counter_add(counter, closed[digit - 1],
										   dp_counter_noise(counter, rng, &counter->scale,
															(int) (closing * k + digit - 1),
															DP_NOISE_CLOSE, closed[digit - 1]));
	counter->release = dp_counter_add(counter, counter->release, closed[digit - 1]);

	/* ... and every level up to it opens its next interval at t + 1 */
	for (int level = 0; level <= closing; level++)
		open_level(counter, level, rng);
}

/*
 * The terms of kary_push: step t = steps + 1 closes the open interval of
 * level `closing` (t's trailing zero digits in base k), with a closing
 * term over it and the running total (pan-private only), and reopens
 * levels 0..closing.
 */
static int
kary_plan(const dp_counter *counter, int64_t value, dp_noise_plan *plans, int max)
{
	int64_t		k = counter->mechanism.block;
	int			levels = counter->kind_nodes / (int) k;
	int64_t		step = counter->steps + 1;
	int64_t		digit;
	int			closing = closing_level(step, k, levels, &digit);
	int			count = 0;

	if (dp_counter_pan_private(counter) && count < max)
		plans[count++] = (dp_noise_plan) {
			step, (int) (closing * k + digit - 1), DP_NOISE_CLOSE,
			counter->nodes[open_slot(counter, closing)] + counter->running_total + value
		};
	for (int level = 0; level <= closing && count < max; level++)
		plans[count++] = (dp_noise_plan) {step, open_slot(counter, level), DP_NOISE_OPEN, 0};
	return count;
}

static void
kary_persist(const dp_counter *counter, dp_int128 *nodes)
{
	int			levels = counter->kind_nodes / (int) counter->mechanism.block;

	for (int i = 0; i < counter->kind_nodes; i++)
		nodes[i] = counter->nodes[i];
	for (int level = 0; level < levels; level++)
		nodes[open_slot(counter, level)] += counter->running_total;
}

static void
kary_resume(dp_counter *counter)
{
	int64_t		k = counter->mechanism.block;
	int			levels = counter->kind_nodes / (int) k;
	int64_t		rest = counter->steps;

	counter->running_total = 0;
	counter->release = 0;
	for (int level = 0; level < levels; level++)
	{
		int64_t		digit = rest % k;

		for (int64_t i = 0; i < digit; i++)
			counter->release = dp_counter_add(counter, counter->release,
											  counter->nodes[level * k + i]);
		rest /= k;
	}
}

static int
kary_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	int64_t		k = counter->mechanism.block;
	int64_t		terms = 0;

	for (int64_t rest = steps; rest > 0; rest /= k)
		terms += rest % k;
	groups[0].scale = counter->scale;
	groups[0].terms = terms * (dp_counter_pan_private(counter) ? 2 : 1);
	return 1;
}

static const dp_kind_parameter kary_parameters[] = {
	{.name = "arity", .range = "at least 2, with at most a bounded number of nodes for the horizon",
		.default_text = "the arity with the least mean variance for the horizon",
		.message = "arity out of range for this mechanism and horizon",
		.detail = "arity was {value}, horizon {horizon}.",
	.hint = "Leave arity out to get the one with the least mean variance for the horizon."},
	{.name = NULL}
};

const dp_counter_kind dp_kary_kind = {
	.name = "kary",
	.kind = DP_MECHANISM_KARY,
	.bounded = true,
	.has_block = true,
	.block_name = "arity",
	.default_block = dp_kary_default_arity,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION | DP_FLAG_ZCDP,
	.validate = kary_validate,
	.node_count = kary_node_count,
	.noise_class = kary_noise_class,
	.start = kary_start,
	.push = kary_push,
	.plan = kary_plan,
	.persist = kary_persist,
	.resume = kary_resume,
	.noise_groups = kary_noise_groups,
	.parameters = kary_parameters,
	.auto_rank = 4,
};
