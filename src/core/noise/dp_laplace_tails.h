/*
 * dp_laplace_tails.h
 *		Error analysis of discrete Laplace noise (the samplers are in
 *		dp_noise.h): variance, exact tails and half-widths of sums of draws.
 *
 * The half-widths of the noise of a release, whatever its families and
 * weights, are dp_noise_sum.h's; the functions taking a miss probability
 * below are the exact forms it chooses from.
 */
#ifndef DP_LAPLACE_TAILS_H
#define DP_LAPLACE_TAILS_H

#include "dp_noise.h"

/* Terms of one scale up to which tails use the exact closed form. */
#define DP_EXACT_TERMS_MAX 128

/* Exact variance 2q / (1 - q)^2 with q = exp(-1 / b). */
extern double dp_discrete_laplace_variance(const dp_scale *scale);

/*
 * Tail of a sum of `terms` independent discrete Laplace variables of one
 * scale: P[S >= threshold] for threshold >= 1 (by symmetry this gives both
 * tails).  Closed form with only positive terms, evaluated in log space.
 */
extern double dp_discrete_laplace_sum_upper_tail(const dp_scale *scale, int terms, double threshold);

/*
 * Smallest w >= 0 with P[|S| > w] <= 1 - confidence for the same sum:
 * the half-width of a two-sided interval at the given confidence.
 */
extern double dp_discrete_laplace_sum_half_width(const dp_scale *scale, int terms, double confidence);

/* The Cornish-Fisher expansion used beyond DP_EXACT_TERMS_MAX terms (exported for tests). */
extern double dp_noise_sum_half_width_expansion(const dp_scale *scale, int64_t terms,
												double confidence);

/*
 * The same half-widths for a miss probability P[|S| > w] <= miss: one scale
 * (at most DP_EXACT_TERMS_MAX terms), two scales (each at most that many
 * terms; exact up to a lattice rounding, upwards), the convolution of a
 * few narrow scales (NAN when too wide), and the expansion.
 */
extern double dp_laplace_one_group_half_width(const dp_scale *scale, int terms, double miss);
extern double dp_laplace_two_groups_half_width(const dp_noise_group *groups, double miss);
extern double dp_laplace_convolved_half_width(const dp_noise_group *groups, int count,
											  double miss);
extern double dp_laplace_expansion_half_width(const dp_scale *scale, int64_t terms,
											  double miss);

#endif							/* DP_LAPLACE_TAILS_H */
