/*
 * dp_noise.c
 *		Exact discrete Laplace sampling, its variance and tails, and real-valued
 *		noise by the granularity method.
 */
#include "dp_noise.h"

#include <math.h>

dp_scale_status
dp_scale_for(uint64_t sensitivity, double epsilon, dp_scale *scale)
{
	int			shift;
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
	while (ldexp(epsilon, shift) >= 0x1p62)
		shift--;
	mantissa = floor(ldexp(epsilon, shift));

	scale->numerator = (dp_uint128) sensitivity << shift;
	scale->denominator = (uint64_t) mantissa;

	/* smaller operands make the uniform draws cheaper; the ratio is unchanged */
	while ((scale->numerator & 1) == 0 && (scale->denominator & 1) == 0)
	{
		scale->numerator >>= 1;
		scale->denominator >>= 1;
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
 * A draw whose magnitude would pass 2^127 is rejected and redrawn; with our
 * scale limits this needs V >= 256, probability below exp(-256).
 */
dp_int128
dp_discrete_laplace(dp_random *rng, const dp_scale *scale)
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
		negative = dp_random_bit(rng);
		if (negative && y == 0)
			continue;
		return negative ? -(dp_int128) y : (dp_int128) y;
	}
}

/* 1 - q and log q for q = exp(-1 / b), without cancellation for large b. */
static void
geometric_parameter(const dp_scale *scale, double *one_minus_q, double *log_q)
{
	double		inverse_scale = (double) scale->denominator / (double) scale->numerator;

	*log_q = -inverse_scale;
	*one_minus_q = -expm1(-inverse_scale);
}

double
dp_discrete_laplace_variance(const dp_scale *scale)
{
	double		one_minus_q;
	double		log_q;

	geometric_parameter(scale, &one_minus_q, &log_q);
	return 2.0 * exp(log_q) / (one_minus_q * one_minus_q);
}

/* log(exp(a) + exp(b)) without overflow; -INFINITY is the empty sum. */
static double
log_add(double a, double b)
{
	double		high = a > b ? a : b;
	double		low = a > b ? b : a;

	if (high == -INFINITY)
		return -INFINITY;
	return high + log1p(exp(low - high));
}

/* log of the binomial coefficient C(n, i) for small i and possibly huge n */
static double
log_choose(double n, int i)
{
	double		result = 0.0;

	for (int l = 0; l < i; l++)
		result += log((n - l) / (l + 1));
	return result;
}

#define DP_MAX_TERMS 128

/*
 * With q = exp(-1/b), the generating function of a sum of k terms is
 * (1-q)^{2k} / ((1 - q x)^k (1 - q/x)^k).  Its partial fractions at x = 1/q
 * give, for z >= 0,
 *     P[S = z] = (1-q)^{2k} q^z sum_{j=1..k} alpha_j C(z + j - 1, j - 1),
 * where alpha_j = h_{k-j} and h_m are the Taylor coefficients in u = 1 - q x
 * of (1 + r / (1 - u / (1 - q^2)))^k with r = q^2 / (1 - q^2):
 *     h_0 = (1 - q^2)^{-k},
 *     h_m = (1 - q^2)^{-m} sum_{i=1..k} C(k, i) r^i C(m + i - 1, m).
 * All of these are positive.  Summing the geometric-binomial series over
 * z >= w turns each C(z + j - 1, j - 1) q^z into a negative-binomial tail,
 * itself a finite binomial sum, so
 *     P[S >= w] = (1-q)^{2k} sum_j alpha_j (1-q)^{-j}
 *                 sum_{i<j} C(w + j - 1, i) (1-q)^i q^{w + j - 1 - i}.
 * Every term is positive, so the log-space sum loses no precision.
 */
static void
log_alpha_coefficients(double log_q, int k, double *log_alpha)
{
	double		log_one_minus_q2 = log(-expm1(2.0 * log_q));
	double		log_r = 2.0 * log_q - log_one_minus_q2;

	for (int m = 0; m < k; m++)
	{
		double		log_h;

		if (m == 0)
			log_h = -k * log_one_minus_q2;
		else
		{
			double		series = -INFINITY;

			for (int i = 1; i <= k; i++)
				series = log_add(series, log_choose(k, i) + i * log_r +
								 log_choose(m + i - 1, m < i - 1 ? m : i - 1));
			log_h = -m * log_one_minus_q2 + series;
		}
		log_alpha[k - m] = log_h;	/* alpha_j = h_{k-j} */
	}
}

double
dp_discrete_laplace_sum_upper_tail(const dp_scale *scale, int terms, double threshold)
{
	double		one_minus_q;
	double		log_q;
	double		log_one_minus_q;
	double		log_alpha[DP_MAX_TERMS + 1];
	double		total = -INFINITY;

	if (terms <= 0)
		return threshold <= 0 ? 1.0 : 0.0;
	if (terms > DP_MAX_TERMS)
		return NAN;
	if (threshold <= 0)
		return 1.0;

	geometric_parameter(scale, &one_minus_q, &log_q);
	log_one_minus_q = log(one_minus_q);
	log_alpha_coefficients(log_q, terms, log_alpha);

	for (int j = 1; j <= terms; j++)
	{
		double		n = threshold + j - 1;

		for (int i = 0; i < j; i++)
			total = log_add(total, log_alpha[j] + (i - j) * log_one_minus_q +
							log_choose(n, i) + (n - i) * log_q);
	}
	total += 2.0 * terms * log_one_minus_q;
	return total >= 0 ? 1.0 : exp(total);
}

double
dp_discrete_laplace_sum_half_width(const dp_scale *scale, int terms, double confidence)
{
	double		allowed = 1.0 - confidence;
	double		low = 0;
	double		high = 1;

	if (terms <= 0)
		return 0.0;
	if (!(confidence > 0.0 && confidence < 1.0))
		return NAN;

	/* P[|S| > w] = 2 P[S >= w + 1]; find the smallest integer w meeting it */
#define EXCEEDS(w) (2.0 * dp_discrete_laplace_sum_upper_tail(scale, terms, (w) + 1) > allowed)
	if (!EXCEEDS(0))
		return 0.0;
	while (EXCEEDS(high))
	{
		low = high;
		high *= 2;
	}
	/* invariant: EXCEEDS(low), !EXCEEDS(high) */
	while (high - low > 1 && high - low > high * 0x1p-50)
	{
		double		middle = floor(low + (high - low) / 2);

		if (EXCEEDS(middle))
			low = middle;
		else
			high = middle;
	}
#undef EXCEEDS
	return high;
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
