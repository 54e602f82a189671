/*
 * dp_decayed.c
 *		An exponentially decayed sum, D_t = sum over s <= t of gamma^(t - s) x_s
 *		(0 < gamma < 1), released at every step with pure epsilon-DP and an
 *		error that does not grow with t.  After the dyadic constructions of
 *		Bolot, Fawaz, Muthukrishnan, Nikolov and Taft [BFMNT13], with a
 *		block tree whose depth is chosen from gamma (docs/mechanisms.md,
 *		"decayed").
 *
 * The stream is cut into blocks of B = 2^K steps, K from gamma alone
 * (decayed_levels: the K of least mean variance).  Inside the open block
 * a binary tree of levels 0 .. K: as in dp_binary.c only the odd-indexed
 * intervals of levels below K are nodes (only they appear in the
 * decomposition of a prefix of the block), and level K is the block
 * itself.  A node over the interval I ending at e holds its decayed
 * partial sum in fixed point,
 *
 *     P(I) = sum over s in I of round(x_s 2^f w(e - s) / 2^62),
 *
 * w(d) the integer weight of gamma^d in units of 2^-62 (dp_decayed_weight,
 * integer arithmetic only), f the fraction bits of the release, plus its
 * noise.  A closed block is folded into the decayed total of all closed
 * blocks, C <- round(C w(B) / 2^62) + P~(block), and the release at
 * t = q B + r (0 <= r < B) is
 *
 *     R_t = round(C w(r) / 2^62) + sum over the set bits l of r of
 *           round(P~(I_l) w(r mod 2^l) / 2^62),
 *
 * in units of 2^-f (dp_decayed_fraction_bits; the SQL glue and the
 * statistics divide by 2^f).  R_t is computed from the noisy nodes only:
 * it is post-processing, the rounding included.
 *
 * Sensitivity: an item lies in at most one node per level, K + 1 nodes.
 * Each item's term in a node is rounded on its own, so a changed item
 * moves a node by |round(a) - round(b)| <= |a - b| + 1 <= N 2^f + 1 units
 * (w(d) <= 2^62), and a unit that changes items by at most U in total
 * (U >= the number of items it changes) moves the nodes of one level by
 * at most (2^f + 1) U: the L1 sensitivity is (K + 1)(2^f + 1) U, and
 * every node gets discrete Laplace noise of that scale over epsilon.  f is
 * the largest of 0 .. 24 that keeps the sensitivity within the sampler's
 * range.
 *
 * Variance: the release's noise is the node noises of the decomposition,
 * each weighted by w(r - end)/2^62 (the closed blocks by w(B)^m w(r)),
 * so with b the scale, 2 b^2 (sum over bits of w^2 + w(r)^2 / (1 - w(B)^2))
 * at most, bounded in t (noise_groups lists every term, in the values'
 * units: weights times 2^-f).
 *
 * Memory: K + 2 nodes (K + 1 slots and the closed blocks' total).
 */
#include "dp_counter.h"
#include "dp_decayed.h"

#include <math.h>

#define DECAYED_GAMMA_MAX 0.999999
#define DECAYED_LEVELS_MAX 24
#define DECAYED_FRACTION_BITS_MAX 24
#define WEIGHT_BITS 62
#define WEIGHT_ONE (((int64_t) 1) << WEIGHT_BITS)

/* derived[] slots */
#define D_LEVELS 0
#define D_FRACTION 1
#define D_GAMMA 2
#define D_BLOCK_WEIGHT 3

/*
 * round(a w / 2^62), half up, for |a| <= 2^126 and 0 <= w <= 2^62, without
 * overflow: a = q 2^62 + rem with 0 <= rem < 2^62.
 */
dp_int128
dp_decayed_mulshift(dp_int128 a, int64_t w)
{
	dp_int128	q = a / WEIGHT_ONE;
	dp_int128	rem = a - q * WEIGHT_ONE;

	if (rem < 0)
	{
		q -= 1;
		rem += WEIGHT_ONE;
	}
	return q * w + ((rem * w + (WEIGHT_ONE / 2)) / WEIGHT_ONE);
}

/* gamma in units of 2^-62 */
static int64_t
gamma_weight(double gamma)
{
	if (!(gamma > 0 && gamma < 1))
		return 0;
	return (int64_t) nearbyint(ldexp(gamma, WEIGHT_BITS));
}

/*
 * w(d): gamma^d in units of 2^-62, by squaring over the bits of d from
 * the lowest, each product rounded by dp_decayed_mulshift.  The push and
 * the release build the same products in the same order.
 */
int64_t
dp_decayed_weight(int64_t g, int64_t d)
{
	int64_t		acc = WEIGHT_ONE;
	int64_t		power = g;

	while (d > 0)
	{
		if (d & 1)
			acc = (int64_t) dp_decayed_mulshift(acc, power);
		d >>= 1;
		if (d > 0)
			power = (int64_t) dp_decayed_mulshift(power, power);
	}
	return acc;
}

/*
 * The mean variance over the steps of a block, once the closed blocks'
 * total is in its steady state, in units of 2 (U / epsilon)^2 (the
 * fraction bits left out): (K + 1)^2 (A_K + 1 / (1 - gamma^2)) / B with
 * A_K = sum over j < K of 2^(K - j - 1) (1 - gamma^(2^(j + 1))) / (1 - gamma^2),
 * the sum over the steps of a block of its nodes' squared weights.
 * Plain arithmetic only (no libm), so that every platform picks the same K.
 */
double
dp_decayed_mean_variance_factor(double gamma, int levels)
{
	double		g2 = gamma * gamma;
	double		inverse = 1.0 / (1.0 - g2);
	double		power = g2;		/* gamma^(2^(j + 1)) */
	double		a = 0;
	double		block = 1;

	for (int j = 0; j < levels; j++)
	{
		a += ldexp(1.0, levels - j - 1) * (1.0 - power) * inverse;
		power *= power;
		block *= 2;
	}
	return (double) (levels + 1) * (double) (levels + 1) * (a + inverse) / block;
}

int
dp_decayed_levels(double gamma)
{
	int			best = 0;
	double		best_factor;

	if (!(gamma > 0 && gamma <= DECAYED_GAMMA_MAX))
		return 0;
	best_factor = dp_decayed_mean_variance_factor(gamma, 0);
	for (int k = 1; k <= DECAYED_LEVELS_MAX; k++)
	{
		double		factor = dp_decayed_mean_variance_factor(gamma, k);

		if (factor < best_factor)
		{
			best = k;
			best_factor = factor;
		}
	}
	return best;
}

/*
 * The largest f <= 24 with (K + 1)(2^f + 1) U <= 2^56, or -1 when even
 * f = 0 does not fit.
 */
int
dp_decayed_fraction_bits(const dp_mechanism *mechanism)
{
	uint64_t	unit = dp_mechanism_unit_bound(mechanism);
	uint64_t	levels = (uint64_t) dp_decayed_levels(mechanism->shape) + 1;

	if (unit == 0)
		unit = 1;
	for (int f = DECAYED_FRACTION_BITS_MAX; f >= 0; f--)
	{
		uint64_t	per_level = (((uint64_t) 1) << f) + 1;

		if (unit <= DP_SENSITIVITY_MAX / (levels * per_level))
			return f;
	}
	return -1;
}

static int
decayed_node_count(const dp_mechanism *mechanism)
{
	return dp_decayed_levels(mechanism->shape) + 2;
}

static dp_status
decayed_validate(const dp_mechanism *mechanism, const char **field)
{
	if (!(mechanism->shape > 0 && mechanism->shape <= DECAYED_GAMMA_MAX))
	{
		*field = "gamma";
		return DP_ERROR_BLOCK;
	}
	if (dp_decayed_fraction_bits(mechanism) < 0)
	{
		*field = (mechanism->flags & DP_FLAG_PERSON) ? "contributions" : "max_per_step";
		return DP_ERROR_SENSITIVITY;
	}
	return DP_OK;
}

/* one class: every node, each unit reaching K + 1 of them by (2^f + 1) U */
static bool
decayed_noise_class(const dp_mechanism *mechanism, int index, dp_noise_class *out)
{
	int			f = dp_decayed_fraction_bits(mechanism);
	uint64_t	levels = (uint64_t) dp_decayed_levels(mechanism->shape) + 1;

	if (index != 0)
		return false;
	if (f < 0)
		f = 0;					/* not reached: validation refuses it */
	return dp_noise_class_nodes(out, levels * ((((uint64_t) 1) << f) + 1), 1);
}

static void
decayed_derive(dp_counter *counter)
{
	int			levels = dp_decayed_levels(counter->mechanism.shape);
	int64_t		g = gamma_weight(counter->mechanism.shape);

	counter->derived[D_LEVELS] = levels;
	counter->derived[D_FRACTION] = dp_decayed_fraction_bits(&counter->mechanism);
	counter->derived[D_GAMMA] = g;
	counter->derived[D_BLOCK_WEIGHT] = dp_decayed_weight(g, ((int64_t) 1) << levels);
}

/* nodes first .. last open at the current step, each holding its noise */
static void
open_levels(dp_counter *counter, int first, int last, dp_random *rng)
{
	for (int level = first; level <= last; level++)
		counter->nodes[level] = dp_counter_noise(counter, rng, &counter->scale, level,
												 DP_NOISE_OPEN, 0);
}

/* the release from the nodes after `steps` steps */
static dp_int128
decayed_release(dp_counter *counter)
{
	int			levels = (int) counter->derived[D_LEVELS];
	int64_t		r = counter->steps & ((((int64_t) 1) << levels) - 1);
	int64_t		weight = WEIGHT_ONE;	/* w(r mod 2^l) */
	int64_t		power = counter->derived[D_GAMMA];	/* w(2^l) */
	dp_int128	release = 0;

	for (int level = 0; level < levels; level++)
	{
		if ((r >> level) & 1)
		{
			release = dp_counter_add(counter, release,
									 dp_decayed_mulshift(counter->nodes[level], weight));
			weight = (int64_t) dp_decayed_mulshift(weight, power);
		}
		if ((r >> (level + 1)) != 0)
			power = (int64_t) dp_decayed_mulshift(power, power);
	}
	return dp_counter_add(counter, release,
						  dp_decayed_mulshift(counter->nodes[levels + 1], weight));
}

static void
decayed_start(dp_counter *counter, dp_random *rng)
{
	int			levels = (int) counter->derived[D_LEVELS];

	open_levels(counter, 0, levels, rng);
	counter->nodes[levels + 1] = 0;
}

static void
decayed_push(dp_counter *counter, int64_t value, dp_random *rng)
{
	int			levels = (int) counter->derived[D_LEVELS];
	int			fraction = (int) counter->derived[D_FRACTION];
	int64_t		block = ((int64_t) 1) << levels;
	int64_t		position = (counter->steps & (block - 1)) + 1;	/* 1 .. B */
	int			closing;

	if (value != 0)
	{
		dp_int128	scaled = ((dp_int128) value) << fraction;
		int64_t		to_end = block - position;	/* -position mod B */
		int64_t		weight = WEIGHT_ONE;	/* w(to_end mod 2^l) */
		int64_t		power = counter->derived[D_GAMMA];

		for (int level = 0; level <= levels; level++)
		{
			/* odd intervals of the levels below K, and the block */
			if (level == levels || (((position - 1) >> level) & 1) == 0)
				counter->nodes[level] = dp_counter_add(counter, counter->nodes[level],
													   dp_decayed_mulshift(scaled, weight));
			if (level == levels)
				break;
			if ((to_end >> level) & 1)
				weight = (int64_t) dp_decayed_mulshift(weight, power);
			if ((to_end >> (level + 1)) != 0)
				power = (int64_t) dp_decayed_mulshift(power, power);
		}
	}
	counter->steps++;

	closing = __builtin_ctzll((uint64_t) position);
	if (closing > levels)
		closing = levels;
	if (dp_counter_pan_private(counter))
		counter->nodes[closing] =
			dp_counter_add(counter, counter->nodes[closing],
						   dp_counter_noise(counter, rng, &counter->scale, closing,
											DP_NOISE_CLOSE, counter->nodes[closing]));
	if (closing < levels)
		open_levels(counter, 0, closing - 1, rng);
	else
	{
		/* the block closes: into the closed blocks' total, and a new block opens */
		counter->nodes[levels + 1] =
			dp_counter_add(counter,
						   dp_decayed_mulshift(counter->nodes[levels + 1],
											   counter->derived[D_BLOCK_WEIGHT]),
						   counter->nodes[levels]);
		open_levels(counter, 0, levels, rng);
	}
	counter->release = decayed_release(counter);
}

static void
decayed_resume(dp_counter *counter)
{
	counter->running_total = 0;
	counter->release = decayed_release(counter);
}

/*
 * The nodes of the release after `steps` steps, each with the weight the
 * release multiplies it by, in the values' units (times 2^-f), so that
 * variances and error bounds are those of the value the aggregates show: one per set bit of r, then the closed blocks,
 * the most recent first, the oldest folded into the last group as one
 * term of the same variance.
 */
static int
decayed_noise_groups(const dp_counter *counter, int64_t steps, dp_noise_group *groups)
{
	int			levels = (int) counter->derived[D_LEVELS];
	int64_t		r = steps & ((((int64_t) 1) << levels) - 1);
	int64_t		blocks = steps >> levels;
	int64_t		per_node = dp_counter_pan_private(counter) ? 2 : 1;
	double		block_weight = ldexp((double) counter->derived[D_BLOCK_WEIGHT], -WEIGHT_BITS);
	/* in the values' units: the release is in units of 2^-f */
	int			bits = WEIGHT_BITS + (int) counter->derived[D_FRACTION];
	double		weight;
	int			count = 0;

	for (int level = 0; level < levels; level++)
		if ((r >> level) & 1)
		{
			int64_t		below = r & ((((int64_t) 1) << level) - 1);

			groups[count].scale = counter->scale;
			groups[count].terms = per_node;
			groups[count].weight = ldexp((double) dp_decayed_weight(counter->derived[D_GAMMA], below),
										 -bits);
			count++;
		}
	weight = ldexp((double) dp_decayed_weight(counter->derived[D_GAMMA], r), -bits);
	for (int64_t m = 0; m < blocks; m++)
	{
		groups[count].scale = counter->scale;
		groups[count].terms = per_node;
		if (count == DP_NOISE_GROUPS_MAX - 1 && m < blocks - 1)
		{
			/*
			 * The oldest blocks, weights v w, v^2 w, ... with v the block
			 * weight, as one term of the same variance (whose tails are
			 * heavier than the sum's: the bound stays an upper bound).
			 */
			double		ratio = block_weight * block_weight;
			double		tail = weight * weight *
				(ratio < 1 ? (1 - pow(ratio, (double) (blocks - m))) / (1 - ratio) :
				 (double) (blocks - m));

			groups[count++].weight = sqrt(tail);
			break;
		}
		groups[count++].weight = weight;
		weight *= block_weight;
	}
	if (count == 0)
	{
		groups[0].scale = counter->scale;
		groups[0].terms = 0;
		count = 1;
	}
	return count;
}

/*
 * How far the release may be from 2^f D_t plus the weighted noise, in
 * units (returned in the values' units, divided by 2^f): each item's term is within 1 of x 2^f gamma^d (1/2 its rounding,
 * less than 1/2 the weight's: w(d) is within 2^-56 of gamma^d 2^62 and
 * x 2^f <= 2^55), each product by a weight within 1/2, and the closed
 * blocks' total carries them with the weights w(B)^m, whose distance to
 * gamma^(B m) is at most m 2^-56; with v = max(w(B) / 2^62, gamma^B):
 * at most K + 2 + (2 B + 1) / (1 - v)^2.
 */
static double
decayed_release_slack(const dp_counter *counter, int64_t steps)
{
	int			levels = (int) counter->derived[D_LEVELS];
	double		block = ldexp(1.0, levels);
	double		v = ldexp((double) counter->derived[D_BLOCK_WEIGHT], -WEIGHT_BITS);
	double		exact = pow(counter->mechanism.shape, block);

	(void) steps;
	if (exact > v)
		v = exact;
	return ldexp((double) levels + 2 + (2 * block + 1) / ((1 - v) * (1 - v)),
				 -(int) counter->derived[D_FRACTION]);
}

static const dp_kind_parameter decayed_parameters[] = {
	{.name = "gamma", .real = true, .range = "greater than 0 and at most {max_plain}",
		.default_text = NULL,
	.hint = "gamma is the decay per step: the release at t weighs the value of step s by gamma^(t - s) (docs/mechanisms.md)."},
	{.name = NULL}
};

const dp_counter_kind dp_decayed_kind = {
	.name = "decayed",
	.kind = DP_MECHANISM_DECAYED,
	.bounded = false,
	.shape_name = "gamma",
	.accepted_flags = DP_FLAG_PAN_PRIVATE | DP_FLAG_KEYED | DP_FLAG_PERSON |
	DP_FLAG_PER_OBSERVATION,
	.validate = decayed_validate,
	.node_count = decayed_node_count,
	.noise_class = decayed_noise_class,
	.start = decayed_start,
	.push = decayed_push,
	.persist = NULL,
	.resume = decayed_resume,
	.noise_groups = decayed_noise_groups,
	.release_slack = decayed_release_slack,
	.derive = decayed_derive,
	.shape_max = DECAYED_GAMMA_MAX,
	.parameters = decayed_parameters,
	.order_dependent = true,
};
