/*
 * dp_noise_chernoff.h
 *		Variance and provable tail bounds of weighted sums of independent
 *		discrete Laplace and discrete Gaussian noise terms.
 *
 * Mechanisms that combine tree nodes with non-integer weights (Honaker,
 * "Efficient Use of Differentially Private Binary Trees", TPDP 2015) or that
 * add Gaussian noise release
 *     S = sum_groups weight_g (Z_g,1 + ... + Z_g,terms_g),
 * all Z independent, those of a group identically distributed.  The exact
 * tails of dp_laplace_tails.h need one family and integer weights; here the bound
 * is Chernoff's, which needs neither:
 *     P[S >= w] <= exp(-s w) E exp(s S)   for every s > 0,
 * with the exact moment generating function of the discrete Laplace
 *     E exp(s Z) = (1 - q)^2 / ((1 - q e^s)(1 - q e^-s)),  q = e^(-1/b), |s| < 1/b,
 * and the sub-Gaussian bound of the discrete Gaussian
 *     E exp(s Z) <= exp(s^2 sigma^2 / 2)
 * (Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential
 * Privacy", NeurIPS 2020: by Poisson summation the shifted theta sum is at
 * most the centred one).  S is symmetric, so P[|S| > w] <= 2 P[S >= w], and
 * the half-width for a miss probability is
 *     w = min_{s > 0} (log E exp(s S) + log(2 / miss)) / s.
 * Every s gives a valid w; the minimisation (golden section, a fixed number
 * of steps) only affects tightness.  The returned w is the value at the
 * best s found raised by a relative 1e-9, which covers the floating
 * rounding of the evaluation (dp_noise_chernoff.c bounds it by 1e-12), and it is
 * returned only after the bound has been re-evaluated at that s and seen to
 * hold.  It is a provable upper bound: P[|S| > w] <= miss.
 */
#ifndef DP_NOISE_CHERNOFF_H
#define DP_NOISE_CHERNOFF_H

#include "dp_gaussian.h"
#include "dp_laplace_tails.h"
#include "dp_noise.h"

/*
 * A group of the weighted sum: the release noise groups of dp_noise.h
 * (family, scale: Laplace b or Gaussian sigma^2, weight: any finite real,
 * only |weight| matters; terms: 0 .. 2^62).
 */
typedef dp_noise_group dp_weighted_noise_group;

/* Groups accepted by one call (a bound on the time and the rounding). */
#define DP_WEIGHTED_NOISE_GROUPS_MAX 256
#define DP_WEIGHTED_NOISE_TERMS_MAX (((int64_t) 1) << 62)

/*
 * Exact variance sum_g terms_g weight_g^2 Var(Z_g) (exact variances of each
 * family, in double precision).  NaN for invalid groups (see below).
 */
extern double dp_weighted_noise_variance(const dp_weighted_noise_group *groups, int count);

/*
 * w with P[|S| > w] <= miss (Chernoff, see above).  0 when there is no noise
 * (no groups, or every group has weight 0 or no terms) or miss >= 1;
 * +infinity when the bound exceeds the range of a double; NaN when miss is
 * NaN or <= 0, count is negative or above DP_WEIGHTED_NOISE_GROUPS_MAX, or a
 * group has an unknown family, a zero numerator or denominator, a
 * non-finite weight, or terms outside [0, 2^62].
 */
extern double dp_weighted_noise_half_width_missing(const dp_weighted_noise_group *groups,
												   int count, double miss);

/* The same for one group. */
extern double dp_weighted_noise_half_width_one(dp_noise_family family, const dp_scale *scale,
											   double weight, int64_t terms, double miss);

#endif							/* DP_NOISE_CHERNOFF_H */
