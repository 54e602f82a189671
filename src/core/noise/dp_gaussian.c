/*
 * dp_gaussian.c
 *		Exact discrete Gaussian sampling (CKS20, Algorithm 3), its scale for a
 *		zCDP budget, its exact variance, and the zCDP to (epsilon, delta)
 *		conversion.  The algorithm and why it is exact: dp_gaussian.h.
 */
#include "dp_gaussian.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#define DP_PI 3.14159265358979323846

dp_scale_status
dp_gaussian_scale_for(uint64_t sensitivity_squared, double rho, dp_scale *sigma2)
{
	int			exponent;
	double		fraction;
	uint64_t	mantissa;
	int			shift;

	if (!(rho >= DP_RHO_MIN && rho <= DP_RHO_MAX))
		return DP_SCALE_BAD_EPSILON;	/* also catches NaN */
	if (sensitivity_squared == 0 || sensitivity_squared > DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX)
		return DP_SCALE_BAD_SENSITIVITY;

	/*
	 * rho = fraction 2^exponent with fraction in [1/2, 1); rounded down to
	 * mantissa 2^(exponent - 24) with mantissa = floor(fraction 2^24) in
	 * [2^23, 2^24), a relative loss below 2^-23.  Then
	 *   sigma^2 = D^2 / (2 rho) = (D^2 2^(23 - exponent)) / mantissa.
	 * rho in [2^-40, 100] gives exponent in [-39, 7], so the shift is in
	 * [16, 62]: the numerator is at most 2^56 2^62 = 2^118, the denominator
	 * below 2^24 and sigma^2 at most 2^118 / 2^23 = 2^95, inside
	 * dp_gaussian_scale_valid.
	 */
	fraction = frexp(rho, &exponent);
	mantissa = (uint64_t) floor(ldexp(fraction, 24));
	shift = 23 - exponent;

	sigma2->numerator = (dp_uint128) sensitivity_squared << shift;
	sigma2->denominator = mantissa;

	/* smaller operands make the uniform draws cheaper; the ratio is unchanged */
	while ((sigma2->numerator & 1) == 0 && (sigma2->denominator & 1) == 0)
	{
		sigma2->numerator >>= 1;
		sigma2->denominator >>= 1;
	}
	return DP_SCALE_OK;
}

int
dp_gaussian_scale_valid(const dp_scale *sigma2)
{
	const dp_uint128 n = sigma2->numerator;
	const uint64_t d = sigma2->denominator;

	return n >= 1 && n < DP_GAUSSIAN_NUMERATOR_LIMIT &&
		d >= 1 && d <= DP_GAUSSIAN_DENOMINATOR_MAX &&
		n <= ((dp_uint128) d << DP_GAUSSIAN_SIGMA2_MAX_LOG2);
}

/*
 * floor(sqrt(x)) for x <= 2^96: the double estimate is within a few units
 * (relative error 2^-52 on a root below 2^48), and each correction loop
 * moves by one; 64 steps are far more than ever needed.
 */
static dp_uint128
integer_sqrt(dp_uint128 x)
{
	dp_uint128	root = (dp_uint128) sqrt((double) x);

	for (int step = 0; step < 64 && root * root > x; step++)
		root--;
	for (int step = 0; step < 64 && (root + 1) * (root + 1) <= x; step++)
		root++;
	return root;
}

static bool
bernoulli_ratio(dp_random *rng, dp_uint128 numerator, dp_uint128 denominator)
{
	return dp_random_below128(rng, denominator) < numerator;
}

/*
 * Bernoulli(exp(-gamma)) for gamma = (n1 / d1) (n2 / d2) with n1 < d1 and
 * n2 < d2: CKS Algorithm 1 (see dp_bernoulli_exp_minus) in which the trial
 * Bernoulli(gamma / k) is the conjunction of independent Bernoulli(n1 / d1),
 * Bernoulli(n2 / d2) and Bernoulli(1 / k), so that the product d1 d2 (up to
 * 2^242 here) is never formed.  Step k continues with probability
 * gamma / k < 1 / k: the loop runs at most e expected times and beyond k
 * steps with probability below 1 / k!.
 */
static bool
bernoulli_exp_minus_product(dp_random *rng, dp_uint128 n1, dp_uint128 d1,
							dp_uint128 n2, dp_uint128 d2)
{
	uint64_t	k = 1;

	for (;;)
	{
		bool		success = bernoulli_ratio(rng, n1, d1) &&
			bernoulli_ratio(rng, n2, d2) &&
			dp_random_below(rng, k) == 0;

		if (!success)
			break;
		k++;
	}
	return (k & 1) != 0;
}

/*
 * Bernoulli(exp(-X)), X = (a d t - n)^2 / (2 n d t^2) = f1 f2 with
 * f1 = u / d1, f2 = u / d2, u = |a d t - n|, d1 = d t^2, d2 = 2 n.
 *
 * Why everything fits 128 bits, for a valid scale (n < 2^120, d <= 2^24,
 * n / d <= 2^96) and a <= DP_GAUSSIAN_DRAW_MAX = 2^54:
 *   t = floor(sqrt(n / d)) + 1 <= 2^48 + 1, so t^2 < 2^97;
 *   d1 = d t^2 < 2^24 2^97 = 2^121;  d2 = 2 n < 2^121;
 *   a d t <= 2^54 2^24 (2^48 + 1) < 2^127, hence u < max(a d t, n) < 2^127;
 * quotients and remainders are no larger than u, d1, d2.
 *
 * With f1 = k1 + r1 / d1 and f2 = k2 + r2 / d2,
 *   exp(-X) = exp(-1)^(k1 k2) exp(-r2 / d2)^k1 exp(-r1 / d1)^k2
 *             exp(-(r1 / d1)(r2 / d2)),
 * tested factor by factor, stopping at the first failure.  The loops are
 * bounded by k1 k2, k1 and k2, and each step continues with probability at
 * most exp(-1), exp(-r2 / d2), exp(-r1 / d1).  Their expected length is
 * O(1): k1 ~ |Y| / t and k2 ~ |Y| t / (2 sigma^2) are large only for a
 * proposal far out in the Laplace tail, whose probability falls
 * geometrically (and then k1 k2 >= 1 and the exp(-1) trials reject first),
 * except k2 up to about 1 / (2 sigma^2) for sigma < 1, where
 * f1 = |Y - c| >= min(c, 1 - c) makes each exp(-r1 / d1) trial fail with
 * probability at least 1 - exp(-f1).
 */
static bool
accept_proposal(dp_random *rng, dp_uint128 a, dp_uint128 n, uint64_t d, dp_uint128 t,
				dp_uint128 d1, dp_uint128 d2)
{
	dp_uint128	adt = a * d * t;
	dp_uint128	u = adt >= n ? adt - n : n - adt;
	dp_uint128	k1 = u / d1;
	dp_uint128	r1 = u % d1;
	dp_uint128	k2 = u / d2;
	dp_uint128	r2 = u % d2;

	if (k2 != 0)
		for (dp_uint128 i = 0; i < k1; i++)
			for (dp_uint128 j = 0; j < k2; j++)
				if (!dp_bernoulli_exp_minus(rng, 1, 1))
					return false;
	if (r2 != 0)
		for (dp_uint128 i = 0; i < k1; i++)
			if (!dp_bernoulli_exp_minus(rng, r2, d2))
				return false;
	if (r1 != 0)
		for (dp_uint128 j = 0; j < k2; j++)
			if (!dp_bernoulli_exp_minus(rng, r1, d1))
				return false;
	return bernoulli_exp_minus_product(rng, r1, d1, r2, d2);
}

/*
 * CKS Algorithm 3 (dp_gaussian.h).  An attempt is accepted with probability
 * at least 0.445, so the loop runs fewer than 2.25 times on average and
 * beyond k times with probability below 0.555^k.
 */
dp_int128
dp_discrete_gaussian(dp_random *rng, const dp_scale *sigma2)
{
	const dp_uint128 n = sigma2->numerator;
	const uint64_t d = sigma2->denominator;
	dp_uint128	t;
	dp_uint128	d1;
	dp_uint128	d2;
	dp_scale	proposal;

	if (!dp_gaussian_scale_valid(sigma2))
		return DP_GAUSSIAN_INVALID_DRAW;

	/* floor(sqrt(n / d)) = floor(sqrt(floor(n / d))) */
	t = integer_sqrt(n / d) + 1;
	d1 = (dp_uint128) d * t * t;
	d2 = 2 * n;
	proposal.numerator = t;
	proposal.denominator = 1;

	for (;;)
	{
		dp_int128	y = dp_discrete_laplace(rng, &proposal);
		dp_uint128	a = y < 0 ? (dp_uint128) (-y) : (dp_uint128) y;

		/*
		 * P[|Y| > 2^54] is about exp(-2^54 / t) <= exp(-63) for t <= 2^48 + 1:
		 * this never loops in practice.
		 */
		if (a > DP_GAUSSIAN_DRAW_MAX)
			continue;
		if (rng->constant_time_gaussian ? dp_gaussian_accept_constant_time(rng, a, sigma2, t) :
			accept_proposal(rng, a, n, d, t, d1, d2))
			return y;
	}
}

double
dp_discrete_gaussian_variance(const dp_scale *sigma2)
{
	double		s2 = (double) sigma2->numerator / (double) sigma2->denominator;

	if (s2 <= 16.0)
	{
		/*
		 * Directly: sum y^2 e^(-y^2 / 2s2) / sum e^(-y^2 / 2s2).  At s2 = 16 the
		 * terms pass below the smallest double (e^-745) at y = 155.
		 */
		double		mass = 1.0;
		double		second = 0.0;

		for (int y = 1; y <= 200; y++)
		{
			double		term = exp(-(double) y * y / (2.0 * s2));

			if (term == 0.0)
				break;
			mass += 2.0 * term;
			second += 2.0 * term * y * y;
		}
		return second / mass;
	}

	/*
	 * Poisson summation: sum_y e^(-y^2/2s2) = sqrt(2 pi s2) sum_k e^(-2 pi^2 s2 k^2)
	 * and the Fourier transform of y^2 e^(-y^2/2s2) is
	 * sqrt(2 pi s2) (s2 - 4 pi^2 s2^2 k^2) e^(-2 pi^2 s2 k^2), so
	 *   Var = s2 - 4 pi^2 s2^2 sum_k k^2 e^(-2 pi^2 s2 k^2) / sum_k e^(-2 pi^2 s2 k^2).
	 * For s2 > 16 the k = 1 term is below e^-315: four terms are plenty.
	 */
	{
		double		theta = 1.0;
		double		moment = 0.0;

		for (int k = 1; k <= 4; k++)
		{
			double		term = exp(-2.0 * DP_PI * DP_PI * s2 * k * k);

			theta += 2.0 * term;
			moment += 2.0 * k * k * term;
		}
		return s2 - 4.0 * DP_PI * DP_PI * s2 * s2 * moment / theta;
	}
}

/*
 * The CKS conversion at alpha = 1 + m, written to stay accurate for small m:
 * log(alpha) = log1p(m), log(1 - 1/alpha) = log(m) - log1p(m).  *magnitude
 * receives the sum of the absolute values of the terms, which bounds the
 * rounding error of the result (a few units of DBL_EPSILON times it).
 */
static double
zcdp_epsilon_at(double rho, double log_inverse_delta, double m, double *magnitude)
{
	double		log_alpha = log1p(m);
	double		first = (1.0 + m) * rho;
	double		second = log_inverse_delta / m;
	double		third = log(m) - log_alpha;	/* log(1 - 1/alpha) <= 0 */
	double		fourth = -log_alpha / m;

	*magnitude = fabs(first) + fabs(second) + fabs(third) + fabs(fourth);
	return first + second + third + fourth;
}

#define DP_GOLDEN_STEPS 200

double
dp_zcdp_epsilon(double rho, double delta)
{
	double		log_inverse_delta;
	double		classical;
	double		center;
	double		low;
	double		high;
	double		best;
	double		best_magnitude;
	const double golden = 0.61803398874989484820;

	if (!(rho >= 0.0) || !isfinite(rho) || !(delta > 0.0))
		return NAN;				/* also catches NaN */
	if (rho == 0.0 || delta >= 1.0)
		return 0.0;

	log_inverse_delta = -log(delta);
	classical = rho + 2.0 * sqrt(rho * log_inverse_delta);

	/*
	 * Golden section on x = log(alpha - 1) around the classical optimum
	 * alpha - 1 = sqrt(log(1/delta) / rho) (near which CKS's optimum also
	 * lies, see cdp_eps in their code): a fixed number of steps, keeping the
	 * best alpha met (every alpha is valid, so this only affects tightness).
	 */
	center = 0.5 * (log(log_inverse_delta) - log(rho));
	low = center - 30.0;
	high = center + 30.0;
	best = INFINITY;
	best_magnitude = 0.0;
	{
		double		x1 = high - golden * (high - low);
		double		x2 = low + golden * (high - low);
		double		mag1;
		double		mag2;
		double		f1 = zcdp_epsilon_at(rho, log_inverse_delta, exp(x1), &mag1);
		double		f2 = zcdp_epsilon_at(rho, log_inverse_delta, exp(x2), &mag2);

		for (int step = 0; step < DP_GOLDEN_STEPS; step++)
		{
			if (f1 < best)
			{
				best = f1;
				best_magnitude = mag1;
			}
			if (f2 < best)
			{
				best = f2;
				best_magnitude = mag2;
			}
			if (f1 <= f2)
			{
				high = x2;
				x2 = x1;
				f2 = f1;
				mag2 = mag1;
				x1 = high - golden * (high - low);
				f1 = zcdp_epsilon_at(rho, log_inverse_delta, exp(x1), &mag1);
			}
			else
			{
				low = x1;
				x1 = x2;
				f1 = f2;
				mag1 = mag2;
				x2 = low + golden * (high - low);
				f2 = zcdp_epsilon_at(rho, log_inverse_delta, exp(x2), &mag2);
			}
		}
	}

	/* upward-safe: a relative 1e-9 plus the rounding error of the sum */
	best += 8.0 * DBL_EPSILON * best_magnitude;
	best = fmax(best, 0.0) * (1.0 + 1e-9);
	/* the classical bound is valid too; its own rounding is covered the same way */
	classical = (classical + 8.0 * DBL_EPSILON * classical) * (1.0 + 1e-9);
	return fmin(best, classical);
}
