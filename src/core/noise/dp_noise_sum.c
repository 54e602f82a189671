/*
 * dp_noise_sum.c
 *		The noise of one release, a sum of groups of discrete Laplace and
 *		discrete Gaussian terms: its variance and the half-width of its
 *		two-sided interval, by the exact forms of dp_laplace_tails.c where they
 *		apply and the Chernoff bound of dp_noise_chernoff.c otherwise.
 */
#include "dp_noise_sum.h"

#include <math.h>
#include <stdbool.h>

double
dp_noise_sum_variance(const dp_noise_group *groups, int count)
{
	double		variance = 0.0;

	for (int i = 0; i < count; i++)
		if (groups[i].terms > 0)
			variance += (double) groups[i].terms * groups[i].weight * groups[i].weight *
				(groups[i].family == DP_FAMILY_GAUSSIAN ?
				 dp_discrete_gaussian_variance(&groups[i].scale) :
				 dp_discrete_laplace_variance(&groups[i].scale));
	return variance;
}

double
dp_noise_sum_half_width(const dp_noise_group *groups, int count, double confidence)
{
	return dp_noise_sum_half_width_missing(groups, count, 1.0 - confidence);
}

double
dp_noise_sum_half_width_missing(const dp_noise_group *groups, int count, double miss)
{
	dp_noise_group used[DP_NOISE_GROUPS_MAX];
	int			used_count = 0;

	/* miss = 1 is a confidence below 2^-53 rounded away: the answer is 0 */
	if (!(miss > 0.0 && miss <= 1.0) || count > DP_NOISE_GROUPS_MAX)
		return NAN;
	/* groups of one family, scale and weight are one group (the exact forms reach more) */
	for (int i = 0; i < count; i++)
	{
		int			same = -1;

		if (groups[i].terms <= 0)
			continue;
		for (int j = 0; j < used_count && same < 0; j++)
			if ((used[j].family == DP_FAMILY_GAUSSIAN) == (groups[i].family == DP_FAMILY_GAUSSIAN) &&
				used[j].weight == groups[i].weight &&
				used[j].scale.numerator == groups[i].scale.numerator &&
				used[j].scale.denominator == groups[i].scale.denominator &&
				used[j].terms <= INT64_MAX - groups[i].terms)
				same = j;
		if (same >= 0)
			used[same].terms += groups[i].terms;
		else
			used[used_count++] = groups[i];
	}

	if (used_count == 0)
		return 0.0;

	/*
	 * Weighted or Gaussian terms, or more than two scales whose support is
	 * too wide to convolve: the provable Chernoff bound of dp_noise_sum.h
	 * (an upper bound, not the exact quantile: for Honaker's weighted sums
	 * 1.0 to 1.94 times the exact 95% quantile at epsilon 1, 2.03 times at
	 * epsilon 4, most at small t; bench/biases.c measures it).
	 */
	{
		bool		plain = true;

		for (int i = 0; i < used_count; i++)
		{
			if (used[i].family != DP_FAMILY_GAUSSIAN)
				used[i].family = DP_FAMILY_LAPLACE;
			plain &= used[i].weight == 1.0 && used[i].family == DP_FAMILY_LAPLACE;
		}
		if (!plain)
			return dp_weighted_noise_half_width_missing(used, used_count, miss);
	}
	if (used_count == 1 && used[0].terms <= DP_EXACT_TERMS_MAX)
		return dp_laplace_one_group_half_width(&used[0].scale, (int) used[0].terms, miss);
	if (used_count == 2 && used[0].terms <= DP_EXACT_TERMS_MAX &&
		used[1].terms <= DP_EXACT_TERMS_MAX)
		return dp_laplace_two_groups_half_width(used, miss);
	/* more scales, or more terms than the closed forms take: convolve if narrow */
	{
		double		exact = dp_laplace_convolved_half_width(used, used_count, miss);
		double		chernoff;

		if (!isnan(exact))
			return exact;
		chernoff = dp_weighted_noise_half_width_missing(used, used_count, miss);
		/*
		 * Many terms of one scale: the Cornish-Fisher expansion, which is
		 * close to the exact quantile there but meaningless when the
		 * variance is tiny (its correction term then explodes): never
		 * above the provable bound.
		 */
		if (used_count == 1)
			return fmin(dp_laplace_expansion_half_width(&used[0].scale, used[0].terms, miss), chernoff);
		return chernoff;
	}
}

