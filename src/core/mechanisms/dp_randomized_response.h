/*
 * dp_randomized_response.h
 *		Randomized response, the local model (Warner 1965 [War65]): each row
 *		randomizes its own bit before anyone aggregates it.
 */
#ifndef DP_RANDOMIZED_RESPONSE_H
#define DP_RANDOMIZED_RESPONSE_H

#include <stdint.h>

#include "dp_random.h"
#include "dp_status.h"

/*
 * The epsilon actually used: rounded down to a dyadic rational as every
 * noise scale is, so the guarantee is never weaker than asked.  Returns
 * DP_ERROR_EPSILON outside [2^-40, 100].
 */
extern dp_status dp_rr_epsilon(double epsilon, double *used);

/* Probability that the true bit is kept: e^eps / (1 + e^eps). */
extern double dp_rr_keep_probability(double used_epsilon);

/* The bit, kept with the probability above, flipped otherwise; exact sampling. */
extern int	dp_randomized_response(dp_random *rng, int bit, double epsilon);

/*
 * Unbiased estimate of how many of `reports` true bits there were, from the
 * number `ones` of randomized bits that are 1, and its standard deviation
 * sqrt(n p (1 - p)) / (2p - 1) (which depends on n and epsilon only).
 */
extern void dp_rr_estimate(int64_t reports, int64_t ones, double used_epsilon,
						   double *estimate, double *standard_deviation);

#endif							/* DP_RANDOMIZED_RESPONSE_H */
