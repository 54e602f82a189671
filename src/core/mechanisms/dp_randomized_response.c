/*
 * dp_randomized_response.c
 *		Randomized response with keep probability p = e^eps / (1 + e^eps).
 *
 * The ratio of the probabilities of any output under the two inputs is
 * p / (1 - p) = e^eps: eps-local DP, exactly.  Lecture notes on local
 * privacy often write the same mechanism (Warner 1965, docs/references.md)
 * with a parameter eps_s: the output equals the input with
 * probability (1 + eps_s) / 2, and calls it (2 eps_s + O(eps_s^2))-DP.  The
 * two match with eps_s = 2p - 1 = tanh(eps / 2): then the exact loss is
 * ln((1 + eps_s) / (1 - eps_s)) = 2 artanh(eps_s) = 2 eps_s + O(eps_s^3),
 * the bound those notes give.  Its aggregator n/2 - (1 / 2 eps_s) sum M_i, for
 * M_i = +-1, is the estimator below, and its standard deviation
 * sqrt((1 - eps_s^2) n) / (2 eps_s) equals sqrt(n p (1 - p)) / (2p - 1).
 */
#include "dp_randomized_response.h"

#include <math.h>

#include "dp_noise.h"

dp_status
dp_rr_epsilon(double epsilon, double *used)
{
	dp_scale	scale;

	/* scale 1 / eps' with eps' <= eps: the same rounding as every noise scale */
	if (dp_scale_for(1, epsilon, &scale) != DP_SCALE_OK)
		return DP_ERROR_EPSILON;
	*used = (double) scale.denominator / (double) scale.numerator;
	return DP_OK;
}

double
dp_rr_keep_probability(double used_epsilon)
{
	return 1.0 / (1.0 + exp(-used_epsilon));
}

/* Bernoulli(exp(-numerator / denominator)) for any ratio, one e^-1 at a time */
static int
bernoulli_exp_minus_any(dp_random *rng, dp_uint128 numerator, dp_uint128 denominator)
{
	while (numerator > denominator)
	{
		if (!dp_bernoulli_exp_minus(rng, 1, 1))
			return 0;
		numerator -= denominator;
	}
	return dp_bernoulli_exp_minus(rng, numerator, denominator);
}

int
dp_randomized_response(dp_random *rng, int bit, double epsilon)
{
	dp_scale	scale;

	if (dp_scale_for(1, epsilon, &scale) != DP_SCALE_OK)
		return -1;

	/*
	 * Each round keeps with probability 1/2 and flips with probability
	 * e^-eps / 2, else repeats: P[flip] = e^-eps / (1 + e^-eps) exactly.
	 * eps' = denominator / numerator of the scale.
	 */
	for (;;)
	{
		if (dp_random_bit(rng))
			return bit;
		if (bernoulli_exp_minus_any(rng, scale.denominator, scale.numerator))
			return !bit;
	}
}

void
dp_rr_estimate(int64_t reports, int64_t ones, double used_epsilon, double *estimate,
			   double *standard_deviation)
{
	double		p = dp_rr_keep_probability(used_epsilon);
	double		n = (double) reports;

	/* E[ones] = p c + (1 - p)(n - c) */
	*estimate = ((double) ones - (1.0 - p) * n) / (2.0 * p - 1.0);
	*standard_deviation = sqrt(n * p * (1.0 - p)) / (2.0 * p - 1.0);
}
