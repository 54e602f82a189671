/*
 * dp_noise_sum.h
 *		The noise of one release: a sum of groups of discrete Laplace and
 *		discrete Gaussian terms (dp_noise_group), its variance and the
 *		half-width of its two-sided interval.
 *
 * This is the one place that knows both families: it picks the exact forms
 * of dp_laplace_tails.h for plain Laplace sums and the Chernoff bound of
 * dp_noise_chernoff.h for weighted or Gaussian ones.
 */
#ifndef DP_NOISE_SUM_H
#define DP_NOISE_SUM_H

#include "dp_gaussian.h"
#include "dp_laplace_tails.h"
#include "dp_noise.h"
#include "dp_noise_chernoff.h"

extern double dp_noise_sum_variance(const dp_noise_group *groups, int count);

/*
 * Half-width w of the two-sided interval P[|S| > w] <= 1 - confidence for
 * the sum S of all groups.  One group of at most DP_EXACT_TERMS_MAX terms:
 * exact.  Two groups: exact up to a lattice rounding, always upwards (see
 * dp_laplace_tails.c; at most 0.1% wide).  More terms of one scale: a Cornish-Fisher
 * expansion with the exact cumulants (within 0.1% of the exact form where
 * both apply, and closer as the terms grow).
 */
extern double dp_noise_sum_half_width(const dp_noise_group *groups, int count,
									  double confidence);
/*
 * The same for a miss probability P[|S| > w] <= miss given directly, so that
 * a caller splitting 1 - confidence between several sums loses no precision
 * to 1 - (1 - miss) (confidence 0.9999999999999999 halved would round to 1).
 */
extern double dp_noise_sum_half_width_missing(const dp_noise_group *groups, int count,
											  double miss);

#endif							/* DP_NOISE_SUM_H */
