/*
 * dp_gaussian.h
 *		Exact discrete Gaussian noise and zero-concentrated differential privacy.
 *
 * ## The discrete Gaussian
 *
 * N_Z(0, sigma^2) is the distribution on the integers with
 * P[Z = z] proportional to exp(-z^2 / (2 sigma^2)) (Canonne, Kamath, Steinke,
 * "The Discrete Gaussian for Differential Privacy", NeurIPS 2020; CKS20
 * below).  sigma^2 is the *variance parameter*; the variance itself is
 * slightly smaller for small sigma (dp_discrete_gaussian_variance).
 *
 * ## Algorithm (CKS20, Algorithm 3)
 *
 * With t = floor(sigma) + 1 and c = sigma^2 / t, repeat:
 *   Y ~ discrete Laplace of scale t (dp_discrete_laplace, exact);
 *   accept Y with probability exp(-(|Y| - c)^2 / (2 sigma^2)).
 *
 * Why the output is exactly N_Z(0, sigma^2): for every integer y,
 *   |y| / t + (|y| - c)^2 / (2 sigma^2) = (y^2 + c^2) / (2 sigma^2)
 * (expand the square; the cross term -2|y|c / (2 sigma^2) = -|y| / t cancels
 * the Laplace exponent), so P[propose y and accept] is a constant times
 * exp(-y^2 / (2 sigma^2)).  The acceptance probability of one attempt is
 *   (1 - q) / (1 + q) exp(-c^2 / (2 sigma^2)) sum_y exp(-y^2 / (2 sigma^2)),
 * q = exp(-1/t), which is about 0.76 for large sigma, 0.46 as sigma -> 0
 * and never below 0.445 (its minimum, near sigma^2 = 0.09, found by
 * evaluating the sum): attempts are geometric, fewer than 2.25 expected.
 *
 * The acceptance test is exact.  With sigma^2 = n / d and a = |Y|, the
 * exponent is X = (a d t - n)^2 / (2 n d t^2) = f1 f2 with
 *   f1 = u / (d t^2),  f2 = u / (2 n),  u = |a d t - n|,
 * every one of which fits 128 bits (dp_gaussian.c proves it) although their
 * product does not.  Writing f1 = k1 + r1, f2 = k2 + r2 (integer and
 * fractional parts),
 *   exp(-X) = exp(-1)^(k1 k2) exp(-r2)^k1 exp(-r1)^k2 exp(-r1 r2),
 * so Bernoulli(exp(-X)) is the conjunction of independent Bernoulli trials:
 * k1 k2 of Bernoulli(exp(-1)), k1 of Bernoulli(exp(-r2)), k2 of
 * Bernoulli(exp(-r1)) (all through dp_bernoulli_exp_minus, CKS20
 * Algorithm 1), and one Bernoulli(exp(-r1 r2)) by the same Algorithm 1 in
 * which each Bernoulli(r1 r2 / k) is the conjunction of Bernoulli(r1),
 * Bernoulli(r2) and Bernoulli(1/k).  This is CKS's splitting of exp(-x) for
 * x > 1 into factors, arranged so that no product of two 128-bit quantities
 * is ever formed.  Every trial sequence stops at the first failure.
 * Those trials take longer for some proposals, so fresh noise decides the
 * same Bernoulli(exp(-X)) in constant time instead, by comparing an
 * exponential variable with X (dp_gaussian_acceptance.c); keyed noise keeps
 * the trials, whose values for a key never change.
 *
 * A proposal with |Y| > DP_GAUSSIAN_DRAW_MAX is redrawn, so the output is
 * N_Z(0, sigma^2) conditioned on |Z| <= 2^54: within the accepted ranges
 * (sigma^2 <= 2^96) the mass removed is below 2 exp(-2^108 / 2^97) =
 * 2 exp(-2048), invisible next to any privacy or accuracy figure.
 *
 * ## Privacy
 *
 * For integer shifts the discrete Gaussian satisfies the same Renyi
 * divergence bound as the continuous one: for integers mu,
 * D_alpha(N_Z(mu, sigma^2) || N_Z(0, sigma^2)) <= alpha mu^2 / (2 sigma^2)
 * (CKS20, the concentrated-DP theorem for the discrete Gaussian, Theorem 4,
 * and its multivariate form, Proposition 5, in the arXiv version).  Hence a
 * release of integer values with L2 sensitivity D plus independent discrete
 * Gaussian noise of variance parameter sigma^2 on each coordinate is
 * (D^2 / (2 sigma^2))-zCDP (Bun, Steinke, "Concentrated Differential
 * Privacy: Simplifications, Extensions, and Lower Bounds", TCC 2016), and
 * zCDP composes by adding rho.  dp_gaussian_scale_for therefore takes the
 * *squared* L2 sensitivity and a budget rho and returns
 * sigma^2 = D^2 / (2 rho), with rho rounded down (sigma^2 up) exactly as
 * dp_scale_for rounds epsilon.  dp_zcdp_epsilon converts a total rho to
 * (epsilon, delta)-DP.
 */
#ifndef DP_GAUSSIAN_H
#define DP_GAUSSIAN_H

#include <stdbool.h>

#include "dp_gaussian_acceptance.h"
#include "dp_int128.h"
#include "dp_noise.h"
#include "dp_random.h"

/*
 * Accepted ranges.  With rho >= 2^-40 and D^2 <= 2^56, sigma^2 <= 2^95 and
 * the representation of dp_gaussian_scale_for has numerator <= 2^118 and
 * denominator < 2^24; dp_gaussian_scale_valid accepts slightly more
 * (numerator < 2^120, denominator <= 2^24, sigma^2 <= 2^96), which is what
 * the 128-bit bounds in dp_gaussian.c need.
 */
#define DP_RHO_MIN 0x1p-40
#define DP_RHO_MAX 100.0
#define DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX (((uint64_t) 1) << 56)
#define DP_GAUSSIAN_NUMERATOR_LIMIT (((dp_uint128) 1) << 120)	/* exclusive */
#define DP_GAUSSIAN_DENOMINATOR_MAX (((uint64_t) 1) << 24)
#define DP_GAUSSIAN_SIGMA2_MAX_LOG2 96

/* Largest magnitude of one draw (see above). */
#define DP_GAUSSIAN_DRAW_MAX (((dp_uint128) 1) << 54)

/* Returned by dp_discrete_gaussian for a scale outside the ranges above. */
#define DP_GAUSSIAN_INVALID_DRAW DP_INT128_MIN

/*
 * sigma^2 = sensitivity_squared / (2 rho), rho rounded DOWN to a dyadic
 * rational with 24 significant bits, so sigma^2 is never below nominal and
 * exceeds it by a relative 2^-23 at most.  A rho that is NaN, infinite or
 * outside [DP_RHO_MIN, DP_RHO_MAX] gives DP_SCALE_BAD_EPSILON (the status
 * for a bad privacy parameter); sensitivity_squared 0 or above
 * DP_GAUSSIAN_SENSITIVITY_SQUARED_MAX gives DP_SCALE_BAD_SENSITIVITY.
 */
extern dp_scale_status dp_gaussian_scale_for(uint64_t sensitivity_squared, double rho,
											 dp_scale *sigma2);

/* Whether dp_discrete_gaussian accepts sigma2 (every scale_for result does). */
extern int	dp_gaussian_scale_valid(const dp_scale *sigma2);

/*
 * One exact draw from N_Z(0, sigma^2) (truncated at DP_GAUSSIAN_DRAW_MAX, see
 * above), or DP_GAUSSIAN_INVALID_DRAW when !dp_gaussian_scale_valid(sigma2):
 * a value no node arithmetic accepts, so misuse fails loudly instead of
 * releasing with too little noise.
 */
extern dp_int128 dp_discrete_gaussian(dp_random *rng, const dp_scale *sigma2);

/*
 * Exact variance of N_Z(0, sigma^2): a direct series for sigma^2 <= 16, the
 * Poisson-summation series (a few terms) above; both bounded.
 */
extern double dp_discrete_gaussian_variance(const dp_scale *sigma2);

/*
 * Smallest epsilon for which rho-zCDP implies (epsilon, delta)-DP by the
 * conversion of CKS20 (Section 2.3, "Conversion to approximate DP"):
 *   epsilon = inf_{alpha > 1} alpha rho
 *             + (log(1/delta) + (alpha - 1) log(1 - 1/alpha) - log(alpha)) / (alpha - 1),
 * never above the classical rho + 2 sqrt(rho log(1/delta)) (Bun, Steinke,
 * TCC 2016, Proposition 1.3).  Every alpha gives a valid epsilon; the result
 * is the best alpha found by a bounded search, raised by a relative 1e-9 so
 * that floating rounding can only make it larger.  0 for rho = 0 or
 * delta >= 1; NaN for negative, NaN or infinite rho, or delta <= 0 or NaN.
 */
extern double dp_zcdp_epsilon(double rho, double delta);

#endif							/* DP_GAUSSIAN_H */
