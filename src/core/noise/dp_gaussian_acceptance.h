/*
 * dp_gaussian_acceptance.h
 *		The acceptance test of the discrete Gaussian sampler (dp_gaussian.h)
 *		in constant time: it proposes from the discrete Laplace (through the
 *		table sampler, dp_laplace_table.h) and accepts here.
 */
#ifndef DP_GAUSSIAN_ACCEPTANCE_H
#define DP_GAUSSIAN_ACCEPTANCE_H

#include <stdbool.h>

#include "dp_int128.h"
#include "dp_random.h"
#include "dp_scale.h"

/*
 * The acceptance test of a proposal a = |Y| in time that does not depend on
 * a (dp_gaussian_acceptance.c): true with probability
 * exp(-(a - c)^2 / (2 sigma^2)), c = sigma^2 / t, t = floor(sigma) + 1.
 * dp_discrete_gaussian uses it for streams with constant_time_gaussian set.
 */
extern bool dp_gaussian_accept_constant_time(dp_random *rng, dp_uint128 a,
											 const dp_scale *sigma2, dp_uint128 t);

/*
 * Its two halves, for tests: given M = floor(E 2^48) for E ~ Exp(1), the
 * fast decision (1 accept, 0 reject, -1 undecided) and the exact one, which
 * reads random bits only to break a tie between M and X 2^48.
 */
extern int	dp_gaussian_acceptance_fast(dp_uint128 a, const dp_scale *sigma2, dp_uint128 t,
										dp_uint128 magnitude);
extern bool dp_gaussian_acceptance_exact(dp_random *rng, dp_uint128 a, const dp_scale *sigma2,
										 dp_uint128 t, dp_uint128 magnitude);

#endif							/* DP_GAUSSIAN_ACCEPTANCE_H */
