/*
 * dp_noise.c
 *		Exact discrete Laplace sampling, and real-valued noise by the
 *		granularity method.  The error analysis of these draws (variance,
 *		tails) is in dp_laplace_tails.c.
 */
#include "dp_noise.h"
#include "dp_laplace_table.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

dp_scale_status
dp_scale_for(uint64_t sensitivity, double epsilon, dp_scale *scale)
{
	int			shift;
	int			exponent;
	double		mantissa;

	if (!(epsilon >= DP_EPSILON_MIN && epsilon <= DP_EPSILON_MAX))
		return DP_SCALE_BAD_EPSILON;	/* also catches NaN */
	if (sensitivity == 0 || sensitivity > DP_SENSITIVITY_MAX)
		return DP_SCALE_BAD_SENSITIVITY;

	/*
	 * Write epsilon as m / 2^shift with m = floor(epsilon * 2^shift) < 2^62,
	 * and the scale as (sensitivity * 2^shift) / m.  shift is the largest
	 * value keeping the numerator below 2^118, so within the accepted ranges
	 * m keeps at least 22 bits (relative rounding below 2^-21, always
	 * towards more noise).
	 */
	shift = 118 - (64 - __builtin_clzll(sensitivity));
	/*
	 * epsilon = f 2^e with f in [0.5, 1), so epsilon 2^shift < 2^62 exactly
	 * when e + shift <= 62: the largest such shift, without a loop of
	 * ldexp calls (every counter start computes a scale).
	 */
	(void) frexp(epsilon, &exponent);
	if (shift > 62 - exponent)
		shift = 62 - exponent;
	mantissa = floor(ldexp(epsilon, shift));

	scale->numerator = (dp_uint128) sensitivity << shift;
	scale->denominator = (uint64_t) mantissa;

	/* smaller operands make the uniform draws cheaper; the ratio is unchanged */
	{
		/* the numerator is non-zero; the denominator is at least 2^21 */
		int			numerator_zeros = (uint64_t) scale->numerator != 0 ?
			__builtin_ctzll((uint64_t) scale->numerator) :
			64 + __builtin_ctzll((uint64_t) (scale->numerator >> 64));
		int			denominator_zeros = __builtin_ctzll(scale->denominator);
		int			common = numerator_zeros < denominator_zeros ? numerator_zeros : denominator_zeros;

		scale->numerator >>= common;
		scale->denominator >>= common;
	}
	return DP_SCALE_OK;
}

double
dp_scale_as_double(const dp_scale *scale)
{
	return (double) scale->numerator / (double) scale->denominator;
}

static int
bernoulli_ratio(dp_random *rng, dp_uint128 numerator, dp_uint128 denominator)
{
	return dp_random_below128(rng, denominator) < numerator;
}

/*
 * CKS Algorithm 1 for gamma = numerator / denominator in [0, 1]: draw
 * A_k ~ Bernoulli(gamma / k) for k = 1, 2, ... until the first failure at
 * k = K; then P[K odd] = exp(-gamma).  Bernoulli(gamma / k) is the product of
 * independent Bernoulli(gamma) and Bernoulli(1 / k), which never needs the
 * product denominator * k (it could overflow 128 bits).
 */
int
dp_bernoulli_exp_minus(dp_random *rng, dp_uint128 numerator, dp_uint128 denominator)
{
	uint64_t	k = 1;

	for (;;)
	{
		int			success = bernoulli_ratio(rng, numerator, denominator) &&
			dp_random_below(rng, k) == 0;

		if (!success)
			break;
		k++;
	}
	return (int) (k & 1);
}

/*
 * CKS Algorithm 2, with b = t / s:
 *   U uniform on {0..t-1}, accepted with probability exp(-U / t);
 *   V geometric with P[V >= v] = exp(-v);
 *   Y = floor((U + t V) / s) is geometric with parameter exp(-s / t);
 *   a random sign, rejecting "-0" so that zero is not counted twice.
 * A draw whose magnitude would pass DP_NOISE_DRAW_MAX = 2^112 is rejected
 * and redrawn, so that node values stay bounded (dp_int128.h).  Scales are
 * below 2^97 within our limits, so that needs |Z| > 2^15 b, probability
 * below exp(-32768): the truncation is invisible next to any privacy or
 * accuracy figure.
 */
dp_int128
dp_discrete_laplace(dp_random *rng, const dp_scale *scale)
{
	/* same law; the table sampler's time does not depend on the value */
	if (!rng->table_sampler)
		return dp_discrete_laplace_reference(rng, scale);
	if (rng->samplers != NULL)
		return dp_laplace_table_draw_for(dp_sampler_cache_laplace(rng->samplers, scale), rng);
	return dp_laplace_table_draw_uncached(rng, scale);
}

dp_int128
dp_discrete_laplace_reference(dp_random *rng, const dp_scale *scale)
{
	const dp_uint128 t = scale->numerator;
	const uint64_t s = scale->denominator;
	const dp_uint128 limit = (dp_uint128) DP_INT128_MAX;

	for (;;)
	{
		dp_uint128	u = dp_random_below128(rng, t);
		dp_uint128	v = 0;
		dp_uint128	x;
		dp_uint128	y;
		int			negative;

		if (!dp_bernoulli_exp_minus(rng, u, t))
			continue;
		while (dp_bernoulli_exp_minus(rng, 1, 1))
			v++;
		if (v != 0 && t > (limit - u) / v)
			continue;
		x = u + t * v;
		y = x / s;
		if (y > DP_NOISE_DRAW_MAX)
			continue;
		negative = dp_random_bit(rng);
		if (negative && y == 0)
			continue;
		return negative ? -(dp_int128) y : (dp_int128) y;
	}
}
double
dp_real_laplace_granularity(double sensitivity, double epsilon)
{
	/*
	 * A power of two near scale / 2^40: fine enough that rounding is
	 * invisible next to the noise, coarse enough that the noise in units of
	 * the granularity stays far inside 128 bits.
	 */
	int			exponent;

	frexp(sensitivity / epsilon, &exponent);
	return ldexp(1.0, exponent - 40);
}

int
dp_real_laplace(dp_random *rng, double value, double sensitivity, double epsilon,
				double *noisy)
{
	double		granularity;
	double		units;
	double		unit_sensitivity;
	dp_scale	scale;

	if (!isfinite(value) || !(sensitivity > 0) || !isfinite(sensitivity) ||
		!(epsilon >= DP_EPSILON_MIN && epsilon <= DP_EPSILON_MAX))
		return -1;

	granularity = dp_real_laplace_granularity(sensitivity, epsilon);
	units = nearbyint(value / granularity);
	unit_sensitivity = ceil(sensitivity / granularity) + 1;
	if (fabs(units) >= 0x1p100 || unit_sensitivity > (double) DP_SENSITIVITY_MAX)
		return -1;
	if (dp_scale_for((uint64_t) unit_sensitivity, epsilon, &scale) != DP_SCALE_OK)
		return -1;

	*noisy = (double) ((dp_int128) units + dp_discrete_laplace(rng, &scale)) * granularity;
	return 0;
}
