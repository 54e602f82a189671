/*
 * dp_honaker.c
 *		The k-ary tree with Honaker's estimator: each complete node's noisy
 *		value combined with the estimates of its children by inverse-variance
 *		weighting (Honaker, "Efficient Use of Differentially Private Binary
 *		Trees", TPDP 2015 [Hon15]), in the streaming form that uses complete
 *		nodes only (Andersson, Pagh, Steiner and Torkamani, "Count on Your
 *		Elders: Laplace vs Gaussian Noise", FORC 2025 [APST25]).
 *
 * The tree is dp_kary's: with L base-k digits for the horizon, node (j, m)
 * covers the steps ((m - 1) k^j, m k^j], each step lies in one node per
 * level, so every node gets discrete Laplace noise of scale L U / epsilon
 * (U = dp_mechanism_unit_bound), drawn when the node opens; with the
 * pan-private option a second term when it closes.  Let s2 be the variance
 * of one node's noise (one or two terms) and y a complete node's noisy
 * value.  Its estimate is
 *     level 0:  h = y,
 *     level j:  h = a_j y + (1 - a_j) (sum of the h of its k children),
 * with a_j = k v_{j-1} / (s2 + k v_{j-1}), v_0 = s2 and v_j = s2 a_j the
 * variance of h.  The recursion has the closed form
 *     a_j = v_j / s2 = (k^(j+1) - k^j) / (k^(j+1) - 1)
 * (induction: a_j = k a_{j-1} / (1 + k a_{j-1})), so the weights are
 * public rationals that do not depend on the scale.  Unrolled, the noise of
 * h at level j gives each noise term at depth i below the node (k^i nodes)
 * the weight a_(j-i) prod_(l = j-i+1 .. j) (1 - a_l); the product
 * telescopes (1 - a_l = (k^l - 1) / (k^(l+1) - 1)) to
 *     w(j, i) = (k - 1) k^(j-i) / (k^(j+1) - 1).
 *
 * The release at t, with base-k digits d_j, sums over the levels the h of
 * the d_j complete level-j nodes inside the open level-(j+1) node: it is
 * unbiased with variance sum_j d_j v_j, against s2 sum_j d_j for dp_kary's
 * plain sums (a_j tends to (k - 1) / k).  Everything after the noise is
 * post-processing of the noisy node values, so the mechanism is as private
 * as dp_kary with the same arity and horizon.  Mean (max) variance over
 * t <= T at epsilon = 1, N = 1, against dp_kary with the same arity:
 *     T = 2^10, k = 2:   701.8 (1403.3), dp_kary 1209.4 (2418.3)
 *     T = 2^10, k = 11:  229.2 (455.4),  dp_kary 242.4 (481.5)
 *     T = 2^16, k = 17:  915.6 (1829.4), dp_kary 956.0 (1910.0)
 *     T = 2^20, k = 2:   4763.4 (9526.8), dp_kary 8818.3 (17636.7)
 *     T = 2^20, k = 17:  1788.8 (3567.3), dp_kary 1874.3 (3737.5)
 * (11 and 17 are the default arities; the gain shrinks as k grows).
 *
 * Storage, O(L): level j owns nodes[2j], the open node's noisy value kept
 * as an offset against the running total like dp_kary's (dp_kary.c), and
 * nodes[2j + 1], the sum of the h of the complete level-j children of the
 * open level-(j+1) node.  Step t completes the nodes of the levels 0..c, c
 * the number of trailing zero digits of t: from level 0 up, each takes its
 * y, computes h from the accumulator of the level below (which then
 * restarts at 0) and adds h to its own level's accumulator; then those
 * levels reopen.  O(1 + c) node work per step, amortised O(1), and the sum
 * of the L accumulators for the release.
 *
 * The h and the accumulators are real numbers, stored in fixed point in
 * units of 2^-24 with every operation in integers (rounded to nearest), so
 * a stored state resumes exactly like the original on every platform.
 * They are functions of noisy values only, and so is every rounding: the
 * release, the sum of the accumulators rounded to the nearest integer,
 * stays epsilon-DP and an integer.  The noise groups describe the exact
 * weighted sum; the integer release is within 0.5 + 2^-11 of the truth plus
 * that sum: the last rounding, plus the fixed-point roundings, at most
 * 2^-25 each, of which a level-j estimate carries at most j in total (the
 * children's errors enter with weight (1 - a_j) k <= 1), so a release at
 * most sum_j d_j j 2^-25 < (k - 1) GROUPS_MAX 2^-25 <= 2^-11.  The error
 * bounds add that slack (honaker_release_slack) to the groups' half-width.
 */
#include "dp_counter.h"

#include <math.h>
#include <string.h>

#define ARITY_MIN 2
#define ARITY_MAX 64

/* the accumulators' unit is 2^-FRACTION_BITS */
#define FRACTION_BITS 24
#define FIXED_ONE (((dp_int128) 1) << FRACTION_BITS)

/*
 * The largest magnitude, in counts, that validation lets a noisy value,
 * an estimate or a sum of them reach (see honaker_magnitude): in fixed
 * point 2^118, below the decoders' DP_NODE_VALUE_MAX = 2^120 and far below
 * DP_ARITHMETIC_MAX = 2^126, which leaves room for the differences and
 * running totals of the computation.
 */
#define MAGNITUDE_BITS (118 - FRACTION_BITS)

/*
 * A discrete Laplace draw of scale b exceeds 2^16 b with probability below
 * 2 exp(-2^16); a stream makes fewer than 2^70 draws, so no draw ever does
 * (the sampler itself truncates at 2^112, dp_noise.c, by the same kind of
 * argument).  Should one anyway, the checked node arithmetic flags the
 * counter and the step is refused: no value wraps.
 */
#define DRAW_SCALES_BITS 16

/*
 * Noise groups of a release, at most: all fit the counter's arrays, and the
 * fixed-point part of the slack above stays within 2^-11 ((k - 1) 256 <=
 * 2^14).
 */
#define GROUPS_MAX (DP_NOISE_GROUPS_MAX < 256 ? DP_NOISE_GROUPS_MAX : 256)

#define ACCUMULATOR(level) (2 * (level) + 1)
#define OPEN(level) (2 * (level))

/* base-k digits of the horizon (levels of the tree), k >= 2; as dp_kary's */
static int
honaker_levels(int64_t horizon, int64_t arity)
{
	int			levels = 1;
	dp_int128	span = arity;	/* arity^levels */

	while (span <= horizon && levels < 63)
	{
		levels++;
		span *= arity;
	}
	return levels;
}

/* k^levels, saturated at 2^65 (only whether it exceeds 2^64 matters there) */
static dp_uint128
honaker_span(int64_t arity, int levels)
{
	dp_uint128	span = 1;

	for (int j = 0; j < levels; j++)
	{
		span *= (dp_uint128) arity;
		if (span > ((dp_uint128) 1) << 65)
			return ((dp_uint128) 1) << 65;
	}
	return span;
}

/*
 * The most noise groups of a release at t <= horizon: the maximum over t of
 * sum (j + 1) over the levels j where t has a non-zero digit.  A maximiser
 * is the horizon itself or, for a non-zero digit p of it, the horizon with
 * digit p lowered by one and every lower digit k - 1.
 */
static int64_t
honaker_max_groups(int64_t horizon, int64_t arity)
{
	int			levels = honaker_levels(horizon, arity);
	int64_t		digits[64];
	int64_t		above = 0;		/* the groups of the horizon's digits above p */
	int64_t		best = 0;
	int64_t		rest = horizon;

	for (int j = 0; j < levels; j++)
	{
		digits[j] = rest % arity;
		rest /= arity;
	}
	for (int p = levels - 1; p >= 0; p--)
	{
		if (digits[p] > 0)
		{
			int64_t		lowered = above + (digits[p] > 1 ? p + 1 : 0) + (int64_t) p * (p + 1) / 2;

			if (lowered > best)
				best = lowered;
			above += p + 1;
		}
	}
	return above > best ? above : best;
}

/* Whether the tree fits: digits, fixed-point weights and noise groups. */
static bool
honaker_arity_fits(int64_t horizon, int64_t arity)
{
	if (arity < ARITY_MIN || arity > ARITY_MAX)
		return false;
	/* k^(j+1) - 1 must fit 64 bits for the exact weighting (honaker_estimate) */
	if (honaker_span(arity, honaker_levels(horizon, arity)) > (((dp_uint128) 1) << 64))
		return false;
	return honaker_max_groups(horizon, arity) <= GROUPS_MAX;
}

/*
 * An upper bound, in counts, on the magnitude of every value the
 * computation stores: a node's content is at most T N; with D the largest
 * noise of a node (one or two draws, each below 2^16 b, see
 * DRAW_SCALES_BITS), a level-j estimate is its content plus at most
 * e_j D, e_0 = 1, e_j = a_j + (1 - a_j) k e_(j-1) <= j + 1 (as (1 - a_j) k
 * <= 1), and an accumulator or the sum of all of them holds at most T N
 * plus (k - 1) sum_j (j + 1) D; the difference y - (children) in the
 * estimate is noise only.  k L (L + 1) D + T N covers them all.
 */
static double
honaker_magnitude(const dp_mechanism *mechanism, int levels)
{
	double		unit = (double) dp_mechanism_unit_bound(mechanism);
	/* dp_scale_for rounds epsilon down by a relative 2^-21 at most */
	double		scale = levels * unit / mechanism->epsilon * (1.0 + 0x1p-20);
	double		node_noise = ldexp(scale, DRAW_SCALES_BITS) *
		((mechanism->flags & DP_FLAG_PAN_PRIVATE) ? 2 : 1);

	return (double) mechanism->horizon * (double) mechanism->max_per_step +
		(double) mechanism->block * levels * (levels + 1) * node_noise;
}

static dp_status
honaker_validate(const dp_mechanism *mechanism, const char **field)
{
	int			levels;

	if (!honaker_arity_fits(mechanism->horizon, mechanism->block))
	{
		*field = "arity";
		return DP_ERROR_BLOCK;
	}
	levels = honaker_levels(mechanism->horizon, mechanism->block);
	/* a group's terms, two per node when pan-private, stay within 2^62 */
	if ((mechanism->flags & DP_FLAG_PAN_PRIVATE) && mechanism->horizon > DP_HORIZON_MAX / 2)
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	if (!(honaker_magnitude(mechanism, levels) <= ldexp(1.0, MAGNITUDE_BITS)))
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

/*
 * sum over t = 0..horizon of digit j of t in base k: full cycles of k^(j+1)
 * contribute k^j k (k - 1) / 2 each, the rest q k^j + r (q < k, r < k^j)
 * contributes k^j q (q - 1) / 2 + q r.
 */
static double
digit_sum(int64_t horizon, int64_t arity, int level)
{
	dp_int128	power = 1;
	dp_int128	cycle;
	dp_int128	full;
	dp_int128	rest;
	dp_int128	q;
	dp_int128	r;

	for (int j = 0; j < level; j++)
		power *= arity;
	cycle = power * arity;
	full = ((dp_int128) horizon + 1) / cycle;
	rest = ((dp_int128) horizon + 1) % cycle;
	q = rest / power;
	r = rest % power;
	return (double) full * (double) power * (double) (arity * (arity - 1) / 2) +
		(double) power * (double) (q * (q - 1) / 2) + (double) q * (double) r;
}

/*
 * The arity with the least mean variance over steps 1..horizon among those
 * that fit: sum_j a_j (digit sum of level j) times s2, which is
 * proportional to L^2.
 */
static int64_t
honaker_default_arity(int64_t horizon)
{
	int64_t		best = ARITY_MIN;
	double		best_cost = INFINITY;

	if (horizon < 1)
		return best;
	for (int64_t k = ARITY_MIN; k <= ARITY_MAX; k++)
	{
		int			levels = honaker_levels(horizon, k);
		double		power = 1;
		double		cost = 0;

		if (!honaker_arity_fits(horizon, k))
			continue;
		for (int j = 0; j < levels; j++)
		{
			cost += (k - 1) * power / (power * k - 1) * digit_sum(horizon, k, j);
			power *= k;
		}
		cost *= (double) levels * levels;
		if (cost < best_cost)
		{
			best_cost = cost;
			best = k;
		}
	}
	return best;
}

static int
honaker_node_count(const dp_mechanism *mechanism)
{
	return 2 * honaker_levels(mechanism->horizon, mechanism->block);
}

/* each item lies in one node per level */
static bool
honaker_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	return index == 0 &&
		dp_noise_class_nodes(out,
							 (uint64_t) honaker_levels(mechanism->horizon, mechanism->block),
							 1);
}

static void
open_level(dp_counter *counter, int level, dp_random *rng)
{
	counter->nodes[OPEN(level)] =
		dp_counter_sub(counter,
					   dp_counter_noise(counter, rng, &counter->scale, OPEN(level),
										DP_NOISE_OPEN, 0),
					   counter->running_total);
}

/* The noisy value of the node of `level` that completes now. */
static dp_int128
close_level(dp_counter *counter, int level, dp_random *rng)
{
	dp_int128	y = dp_counter_add(counter, counter->nodes[OPEN(level)], counter->running_total);

	if (dp_counter_pan_private(counter))
		y = dp_counter_add(counter, y,
						   dp_counter_noise(counter, rng, &counter->scale, ACCUMULATOR(level),
											DP_NOISE_CLOSE, y));
	return y;
}

/* value * 2^FRACTION_BITS, checked */
static dp_int128
to_fixed(dp_counter *counter, dp_int128 value)
{
	dp_int128	fixed;
	int			overflowed = __builtin_mul_overflow(value, FIXED_ONE, &fixed);

	return dp_counter_checked(counter, dp_int128_in_arithmetic_range(overflowed, fixed),
							  fixed, 0);
}

/*
 * The estimate of a complete level-j node (j >= 1) in fixed point, from its
 * noisy value y and the sum of its children's estimates:
 *     h = children + round(P (y - children) / Q),
 *     P = k^(j+1) - k^j,  Q = k^(j+1) - 1  (a_j = P / Q).
 * With y - children = q Q + r (|r| < Q <= 2^64 - 1, validation), the
 * quotient part q P is exact and smaller than the difference, and |r| P <
 * 2^128 is rounded to nearest (half away from zero) in unsigned 128 bits.
 */
static dp_int128
honaker_estimate(dp_counter *counter, int level, dp_int128 y_fixed, dp_int128 children)
{
	dp_uint128	power = 1;		/* k^level */
	dp_uint128	divisor;
	dp_uint128	numerator;
	dp_uint128	magnitude;
	dp_uint128	rounded;
	dp_int128	difference = dp_counter_sub(counter, y_fixed, children);
	dp_int128	quotient;
	dp_int128	remainder;
	dp_int128	step;

	for (int j = 0; j < level; j++)
		power *= (dp_uint128) counter->mechanism.block;
	divisor = power * (dp_uint128) counter->mechanism.block - 1;
	numerator = divisor + 1 - power;

	quotient = difference / (dp_int128) divisor;
	remainder = difference - quotient * (dp_int128) divisor;
	magnitude = (dp_uint128) (remainder < 0 ? -remainder : remainder) * numerator;
	rounded = magnitude / divisor;
	if (2 * (magnitude % divisor) >= divisor)
		rounded++;
	step = quotient * (dp_int128) numerator +
		(remainder < 0 ? -(dp_int128) rounded : (dp_int128) rounded);
	return dp_counter_add(counter, children, step);
}

/* floor(x / 2^FRACTION_BITS + 1/2): the nearest integer, halves upwards */
static dp_int128
round_fixed(dp_int128 fixed)
{
	dp_int128	shifted = fixed + FIXED_ONE / 2;	/* within range: |fixed| <= 2^126 */
	dp_int128	quotient = shifted / FIXED_ONE;

	if (shifted % FIXED_ONE < 0)
		quotient--;
	return quotient;
}

/* the sum of the accumulators of levels first .. last */
static dp_int128
accumulator_sum(dp_counter *counter, int first, int last)
{
	dp_int128	sum = 0;

	for (int level = first; level <= last; level++)
		sum = dp_counter_add(counter, sum, counter->nodes[ACCUMULATOR(level)]);
	return sum;
}

/*
 * The release rounds the sum of every level's accumulator; the sum after a
 * step is kept in the counter's memo (dp_counter_memo_keep), so that the next
 * step replaces only the accumulators it touches (levels 0 .. top, O(1)
 * amortised).  Without a valid memo the sum is taken over every level.
 */
static void
honaker_update_release(dp_counter *counter)
{
	int			levels = counter->kind_nodes / 2;
	dp_int128	sum = accumulator_sum(counter, 0, levels - 1);

	counter->release = round_fixed(sum);
	dp_counter_memo_keep(counter, sum);
}

static void
honaker_start(dp_counter *counter, dp_random *rng)
{
	int			levels = counter->kind_nodes / 2;

	for (int level = 0; level < levels; level++)
	{
		counter->nodes[ACCUMULATOR(level)] = 0;
		open_level(counter, level, rng);
	}
	counter->release = 0;
}

/*
 * The highest level whose node step t completes: t's trailing zero digits
 * in base k, at most the top level.  For the push and for its plan.
 */
static int
completed_top(int64_t t, int64_t k, int levels)
{
	int			top = 0;

	while (t % k == 0 && top < levels - 1)
	{
		t /= k;
		top++;
	}
	return top;
}

static void
honaker_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int64_t		k = counter->mechanism.block;
	int			levels = counter->kind_nodes / 2;
	int			top = completed_top(++counter->steps, k, levels);

	bool		memo_valid = counter->memo_step >= 1 && counter->memo_step == counter->steps - 1 &&
		!counter->overflow;
	dp_int128	sum = 0;

	counter->running_total += value;	/* at most 2^62 steps of 2^50: no overflow */
	/* the accumulators of levels 0 .. top leave the sum (they change below) */
	if (memo_valid)
		sum = dp_counter_sub(counter,
							 dp_counter_memo_sum(counter),
							 accumulator_sum(counter, 0, top));

	/* the nodes of levels 0..top complete, from the bottom up */
	for (int level = 0; level <= top; level++)
	{
		dp_int128	y = to_fixed(counter, close_level(counter, level, rng));
		dp_int128	h = y;

		if (level > 0)
		{
			/* its k children are all in the accumulator below, which restarts */
			h = honaker_estimate(counter, level, y, counter->nodes[ACCUMULATOR(level - 1)]);
			counter->nodes[ACCUMULATOR(level - 1)] = 0;
		}
		counter->nodes[ACCUMULATOR(level)] =
			dp_counter_add(counter, counter->nodes[ACCUMULATOR(level)], h);
	}

	/* ... and their next nodes open at t + 1 */
	for (int level = 0; level <= top; level++)
		open_level(counter, level, rng);
	if (memo_valid && !counter->overflow)
	{
		sum = dp_counter_add(counter, sum, accumulator_sum(counter, 0, top));
		counter->release = round_fixed(sum);
		dp_counter_memo_keep(counter, sum);
	}
	else
		honaker_update_release(counter);
}

/*
 * The terms of honaker_push: step t = steps + 1 completes levels 0..top
 * (top: the trailing zero digits of t in base k), each with a closing term
 * over its open node plus the running total (pan-private only), and then
 * reopens them.  A closing content does not depend on the closings below
 * it (they write the accumulators, not the open nodes).
 */
static int
honaker_plan(const dp_counter *counter, int64_t value, dp_noise_plan *plans, int max)
{
	int64_t		k = counter->mechanism.block;
	int			levels = counter->kind_nodes / 2;
	int64_t		step = counter->steps + 1;
	int			top = completed_top(step, k, levels);
	int			count = 0;
	dp_int128	total = counter->running_total + value;

	if (dp_counter_pan_private(counter))
		for (int level = 0; level <= top && count < max; level++)
			plans[count++] = (dp_noise_plan) {
				step, ACCUMULATOR(level), DP_NOISE_CLOSE, counter->nodes[OPEN(level)] + total
			};
	for (int level = 0; level <= top && count < max; level++)
		plans[count++] = (dp_noise_plan) {step, OPEN(level), DP_NOISE_OPEN, 0};
	return count;
}

static void
honaker_persist(const dp_counter *counter, dp_int128 *nodes)
{
	int			levels = counter->kind_nodes / 2;

	for (int i = 0; i < counter->kind_nodes; i++)
		nodes[i] = counter->nodes[i];
	for (int level = 0; level < levels; level++)
		nodes[OPEN(level)] += counter->running_total;
}

static void
honaker_resume(dp_counter *counter)
{
	counter->running_total = 0;
	honaker_update_release(counter);
}

/*
 * For each level j where the digit d_j of t is not zero, and each depth
 * i = 0..j below it: d_j k^i terms (twice that when pan-private) of weight
 * w(j, i) = (k - 1) k^(j-i) / (k^(j+1) - 1).  Validation keeps the count
 * within GROUPS_MAX for t <= T.  The integer release is within
 * 0.5 + 2^-11 of the described sum (see the head of this file).
 */
static int
honaker_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	int64_t		k = counter->mechanism.block;
	int64_t		copies = dp_counter_pan_private(counter) ? 2 : 1;
	double		powers[64];		/* k^i as doubles, exact up to 2^53 and close beyond */
	int64_t		exact[64];		/* k^i for i < levels: at most the horizon */
	int			count = 0;
	int			level = 0;

	powers[0] = 1;
	exact[0] = 1;
	for (int64_t rest = steps; rest > 0; rest /= k, level++)
	{
		int64_t		digit = rest % k;
		double		denominator;

		if (level > 0)
		{
			powers[level] = powers[level - 1] * (double) k;
			exact[level] = exact[level - 1] * k;	/* k^level <= steps */
		}
		if (digit == 0)
			continue;
		denominator = powers[level] * (double) k - 1;
		for (int depth = 0; depth <= level && count < GROUPS_MAX; depth++)
		{
			groups[count].scale = counter->scale;
			groups[count].terms = digit * exact[depth] * copies;
			groups[count].weight = (double) (k - 1) * powers[level - depth] / denominator;
			count++;
		}
	}
	return count;
}

/* the release's distance to the described sum (see the head of this file) */
static double
honaker_release_slack(const dp_counter *counter, int64_t steps)
{
	int64_t		k = counter->mechanism.block;
	double		roundings = 0;	/* sum_j d_j j */
	int			level = 0;

	for (int64_t rest = steps; rest > 0; rest /= k, level++)
		roundings += (double) (rest % k) * level;
	return 0.5 + ldexp(roundings, -(FRACTION_BITS + 1));
}

static const dp_kind_parameter honaker_parameters[] = {
	{.name = "arity", .range = "at least 2, small enough for the horizon",
		.default_text = "the arity with the least mean variance for the horizon",
		.message = "arity out of range for this mechanism and horizon",
		.detail = "arity was {value}, horizon {horizon}.",
	.hint = "Leave arity out to get the one with the least mean variance for the horizon."},
	{.name = NULL}
};

const dp_counter_kind dp_honaker_kind = {
	.name = "honaker",
	.kind = DP_MECHANISM_HONAKER,
	.bounded = true,
	.has_block = true,
	.block_name = "arity",
	.default_block = honaker_default_arity,
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_CONSISTENT | DP_FLAG_KEYED |
	DP_FLAG_PERSON | DP_FLAG_PER_OBSERVATION,
	.validate = honaker_validate,
	.node_count = honaker_node_count,
	.noise_class = honaker_noise_class,
	.start = honaker_start,
	.push = honaker_push,
	.plan = honaker_plan,
	.persist = honaker_persist,
	.resume = honaker_resume,
	.noise_groups = honaker_noise_groups,
	.release_slack = honaker_release_slack,
	.parameters = honaker_parameters,
	.auto_rank = 3,
};
