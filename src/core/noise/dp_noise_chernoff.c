/*
 * dp_noise_chernoff.c
 *		Variance and Chernoff tail bounds of weighted sums of independent
 *		discrete Laplace and discrete Gaussian terms (see dp_noise_chernoff.h).
 */
#include "dp_noise_chernoff.h"

#include <math.h>
#include <stdbool.h>

static bool
group_valid(const dp_weighted_noise_group *group)
{
	return (group->family == DP_FAMILY_LAPLACE || group->family == DP_FAMILY_GAUSSIAN) &&
		group->scale.numerator != 0 && group->scale.denominator != 0 &&
		isfinite(group->weight) &&
		group->terms >= 0 && group->terms <= DP_WEIGHTED_NOISE_TERMS_MAX;
}

static bool
groups_valid(const dp_weighted_noise_group *groups, int count)
{
	if (count < 0 || count > DP_WEIGHTED_NOISE_GROUPS_MAX || (count > 0 && groups == NULL))
		return false;
	for (int i = 0; i < count; i++)
		if (!group_valid(&groups[i]))
			return false;
	return true;
}

static double
scale_value(const dp_scale *scale)
{
	return (double) scale->numerator / (double) scale->denominator;
}

static double
group_term_variance(const dp_weighted_noise_group *group)
{
	return group->family == DP_FAMILY_LAPLACE ?
		dp_discrete_laplace_variance(&group->scale) :
		dp_discrete_gaussian_variance(&group->scale);
}

double
dp_weighted_noise_variance(const dp_weighted_noise_group *groups, int count)
{
	double		variance = 0.0;

	if (!groups_valid(groups, count))
		return NAN;
	for (int i = 0; i < count; i++)
	{
		if (groups[i].terms == 0 || groups[i].weight == 0.0)
			continue;
		variance += (double) groups[i].terms * groups[i].weight * groups[i].weight *
			group_term_variance(&groups[i]);
	}
	return variance;
}

/*
 * The bound is computed for S / 2^shift, with 2^shift just above the largest
 * |weight| times the group's scale (b for Laplace, sigma for Gaussian), so
 * that the free variable s and every intermediate quantity stay in ordinary
 * double range whatever the weights (up to 1e308) and scales (up to 2^97).
 * In those units group g contributes, at s,
 *   Laplace:  terms K_L(s ratio / b, 1 / b),  ratio = |weight| b / 2^shift,
 *   Gaussian: terms (s ratio)^2 / 2,          ratio = |weight| sigma / 2^shift,
 * with ratio <= 1.  Below, y = s ratio, so a Laplace group needs y < 1.
 */
typedef struct prepared_group
{
	bool		laplace;
	double		ratio;
	double		lambda;			/* Laplace: 1 / b */
	double		log_one_minus_q;	/* Laplace: log(1 - exp(-1/b)) */
	double		terms;
} prepared_group;

typedef struct prepared_sum
{
	prepared_group group[DP_WEIGHTED_NOISE_GROUPS_MAX];
	int			count;
	int			shift;
	bool		any_laplace;
	double		s_limit;		/* s below which every Laplace group has y < 1 */
	double		variance;		/* of S / 2^shift, for the starting point */
	double		gaussian_parameter;	/* sum terms ratio^2 over Gaussian groups */
} prepared_sum;

/* log(sinh(x / 2)) for x >= 0, without overflow for large x */
static double
log_sinh_half(double x)
{
	if (x > 40.0)
		return 0.5 * x - log(2.0) + log1p(-exp(-x));
	return log(sinh(0.5 * x));
}

/*
 * log E exp(x Z) for the discrete Laplace with lambda = 1/b and 0 <= x:
 * (1 - q e^x)(1 - q e^-x) = (1 - q)^2 - 4 q sinh^2(x/2), so the cumulant
 * generating function is -log1p(-r), r = 4 q sinh^2(x/2) / (1 - q)^2, which
 * has no cancellation for small x (the naive difference of logarithms
 * loses everything when x << 1/b and a sum of 2^62 terms multiplies the
 * error).  r is formed in logarithms so that q = e^-lambda may underflow.
 * +infinity at and beyond the pole x >= lambda (r >= 1).
 */
static double
laplace_cumulant(double x, double lambda, double log_one_minus_q)
{
	double		log_r = 2.0 * (log(2.0) + log_sinh_half(x)) - lambda - 2.0 * log_one_minus_q;

	if (!(log_r < 0.0))
		return INFINITY;
	return -log1p(-exp(log_r));
}

/* log E exp(s S) (an upper bound for the Gaussian groups), in scaled units */
static double
sum_cumulant(const prepared_sum *sum, double s)
{
	double		total = 0.0;

	for (int i = 0; i < sum->count; i++)
	{
		const prepared_group *group = &sum->group[i];
		double		y = s * group->ratio;

		if (group->laplace)
		{
			if (!(y < 1.0))
				return INFINITY;
			total += group->terms *
				laplace_cumulant(y * group->lambda, group->lambda, group->log_one_minus_q);
		}
		else
			total += group->terms * 0.5 * y * y;
	}
	return total;
}

/* the half-width given by s: (log E exp(s S) + log(2 / miss)) / s */
static double
width_at(const prepared_sum *sum, double log_two_over_miss, double s)
{
	return (sum_cumulant(sum, s) + log_two_over_miss) / s;
}

/* false when there is no noise at all (nothing to prepare) */
static bool
prepare(prepared_sum *sum, const dp_weighted_noise_group *groups, int count)
{
	int			shift = INT32_MIN;

	sum->count = 0;
	sum->any_laplace = false;
	sum->s_limit = INFINITY;
	sum->variance = 0.0;
	sum->gaussian_parameter = 0.0;

	/* 2^shift > |weight| scale for every group with noise */
	for (int i = 0; i < count; i++)
	{
		const dp_weighted_noise_group *group = &groups[i];
		double		scale = scale_value(&group->scale);
		int			weight_exponent;
		int			scale_exponent;

		if (group->terms == 0 || group->weight == 0.0)
			continue;
		if (group->family == DP_FAMILY_GAUSSIAN)
			scale = sqrt(scale);
		frexp(group->weight, &weight_exponent);
		frexp(scale, &scale_exponent);
		if (weight_exponent + scale_exponent > shift)
			shift = weight_exponent + scale_exponent;
	}
	if (shift == INT32_MIN)
		return false;
	sum->shift = shift;

	for (int i = 0; i < count; i++)
	{
		const dp_weighted_noise_group *group = &groups[i];
		prepared_group *prepared;
		double		scale = scale_value(&group->scale);
		double		weight_fraction;
		double		scale_fraction;
		int			weight_exponent;
		int			scale_exponent;

		if (group->terms == 0 || group->weight == 0.0)
			continue;
		prepared = &sum->group[sum->count++];
		prepared->laplace = group->family == DP_FAMILY_LAPLACE;
		prepared->terms = (double) group->terms;
		if (!prepared->laplace)
			scale = sqrt(scale);
		weight_fraction = frexp(fabs(group->weight), &weight_exponent);
		scale_fraction = frexp(scale, &scale_exponent);
		/* < 1; underflows to 0 only for a group 2^-1000 times the largest */
		prepared->ratio = ldexp(weight_fraction * scale_fraction,
								weight_exponent + scale_exponent - shift);
		if (prepared->laplace)
		{
			prepared->lambda = (double) group->scale.denominator /
				(double) group->scale.numerator;
			prepared->log_one_minus_q = log(-expm1(-prepared->lambda));
			sum->any_laplace = true;
			if (prepared->ratio > 0.0 && 1.0 / prepared->ratio < sum->s_limit)
				sum->s_limit = 1.0 / prepared->ratio;
		}
		else
			sum->gaussian_parameter += prepared->terms * prepared->ratio * prepared->ratio;
		{
			double		standard = prepared->ratio * sqrt(group_term_variance(group)) / scale;

			sum->variance += prepared->terms * standard * standard;
		}
	}
	return true;
}

#define DP_GOLDEN_STEPS 200
/* relative distance kept from the Laplace pole (see below) */
#define DP_POLE_MARGIN 0x1p-12
#define DP_WIDTH_MARGIN 1e-9

/*
 * The s minimising width_at, or the best of a fixed number of golden-section
 * steps on log s.  width_at is unimodal in s: with K the (convex, K(0) = 0)
 * cumulant bound and L = log(2 / miss), d/ds (K + L) / s has the sign of
 * h(s) = s K'(s) - K(s) - L, and h' = s K'' >= 0, h(0) = -L < 0.
 *
 * Bracket.  Since K >= 0, width_at(s) >= L / s; so if width_at(s_ref) = W,
 * the minimiser satisfies L / s* <= W, i.e. s* >= L / W.  Above, s stays a
 * relative 2^-12 below the Laplace pole: there 1 - r >= about 2^-12, so the
 * logarithm amplifies the relative rounding of r by at most about 500 and
 * the rounding of K stays below 1e-12 relative (2^62 terms included: the
 * sum has at most 256 terms, all of one sign).  The restriction costs nothing
 * in practice: at the pole the one-term optimum needs s K' ~ 1 / (2 (1 -
 * s b)) = L + K, i.e. 1 - s b ~ 1 / (2 L) >= 1 / 1490 for any miss >= 2^-1074.
 */
static double
best_s(const prepared_sum *sum, double log_two_over_miss)
{
	const double golden = 0.61803398874989484820;
	double		s_high;
	double		s_ref;
	double		low;
	double		high;
	double		best;
	double		best_width;

	if (!sum->any_laplace || !isfinite(sum->s_limit))
		/* K = s^2 P / 2: the minimum of s P / 2 + L / s is at sqrt(2 L / P) */
		return sqrt(2.0 * log_two_over_miss / sum->gaussian_parameter);

	s_high = sum->s_limit * (1.0 - DP_POLE_MARGIN);
	s_ref = 0.5 * s_high;
	if (sum->variance > 0.0)
		s_ref = fmin(s_ref, sqrt(2.0 * log_two_over_miss / sum->variance));
	best = s_ref;
	best_width = width_at(sum, log_two_over_miss, s_ref);

	low = log(log_two_over_miss / best_width);
	high = log(s_high);
	if (!(low < high))
		return best;
	{
		double		x1 = high - golden * (high - low);
		double		x2 = low + golden * (high - low);
		double		f1 = width_at(sum, log_two_over_miss, exp(x1));
		double		f2 = width_at(sum, log_two_over_miss, exp(x2));

		for (int step = 0; step < DP_GOLDEN_STEPS; step++)
		{
			if (f1 < best_width)
			{
				best_width = f1;
				best = exp(x1);
			}
			if (f2 < best_width)
			{
				best_width = f2;
				best = exp(x2);
			}
			if (f1 <= f2)
			{
				high = x2;
				x2 = x1;
				f2 = f1;
				x1 = high - golden * (high - low);
				f1 = width_at(sum, log_two_over_miss, exp(x1));
			}
			else
			{
				low = x1;
				x1 = x2;
				f1 = f2;
				x2 = low + golden * (high - low);
				f2 = width_at(sum, log_two_over_miss, exp(x2));
			}
		}
	}
	return best;
}

double
dp_weighted_noise_half_width_missing(const dp_weighted_noise_group *groups, int count,
									 double miss)
{
	prepared_sum sum;			/* 10 kB */
	double		log_two_over_miss;
	double		s;
	double		width;

	if (!(miss > 0.0) || !groups_valid(groups, count))
		return NAN;				/* also catches NaN */
	if (miss >= 1.0 || !prepare(&sum, groups, count))
		return 0.0;

	/* log(2 / miss) without overflowing 2 / miss for subnormal miss */
	log_two_over_miss = log(2.0) - log(miss);
	s = best_s(&sum, log_two_over_miss);
	width = width_at(&sum, log_two_over_miss, s);
	if (!isfinite(width) || !(s > 0.0))
		return INFINITY;		/* trivially valid; never seen within the ranges */

	/*
	 * Raise by the margin and check the Chernoff inequality at s once more:
	 * K(s) + L <= s w, i.e. exp(-s w) E exp(s S) <= miss / 2.  The check
	 * passes at the first try (the margin is 1000 times the rounding); it is
	 * repeated with a larger margin at most four times.
	 */
	width *= 1.0 + DP_WIDTH_MARGIN;
	for (int attempt = 0;; attempt++)
	{
		if (sum_cumulant(&sum, s) + log_two_over_miss <= s * width * (1.0 - 1e-12))
			break;
		if (attempt == 4)
			return INFINITY;
		width *= 1.0 + 1e-6;
	}
	/* back to the units of S; exact (a power of two) unless it overflows */
	return ldexp(width, sum.shift);
}

double
dp_weighted_noise_half_width_one(dp_noise_family family, const dp_scale *scale,
								 double weight, int64_t terms, double miss)
{
	dp_weighted_noise_group group;

	group.family = family;
	group.scale = *scale;
	group.weight = weight;
	group.terms = terms;
	return dp_weighted_noise_half_width_missing(&group, 1, miss);
}
