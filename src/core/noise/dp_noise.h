/*
 * dp_noise.h
 *		Exact discrete noise (Canonne, Kamath, Steinke 2020) and the
 *		granularity method for real values (Google, "Secure Noise Generation").
 *
 * A dp_scale is the rational scale b = numerator / denominator of a discrete
 * Laplace distribution, P[Z = z] proportional to exp(-|z| / b).  Sampling
 * uses integer arithmetic only; no floating-point logarithm of a uniform
 * variate is ever taken (Mironov 2012).
 */
#ifndef DP_NOISE_H
#define DP_NOISE_H

#include "dp_int128.h"
#include "dp_random.h"
#include "dp_scale.h"

/*
 * Scale for sensitivity / epsilon.  epsilon is rounded *down* to a dyadic
 * rational with at least 22 significant bits, so the noise is never smaller
 * than the nominal scale and the privacy guarantee is never weaker than the
 * epsilon asked for.
 */
extern dp_scale_status dp_scale_for(uint64_t sensitivity, double epsilon, dp_scale *scale);
extern double dp_scale_as_double(const dp_scale *scale);

/*
 * One draw from the discrete Laplace distribution of the given scale: by the
 * constant-time table sampler when rng->table_sampler is set, otherwise by
 * the reference sampler, whose draws from a keyed stream are the same in
 * every version.
 */
extern dp_int128 dp_discrete_laplace(dp_random *rng, const dp_scale *scale);
extern dp_int128 dp_discrete_laplace_reference(dp_random *rng, const dp_scale *scale);

/* Bernoulli(exp(-numerator / denominator)) for numerator <= denominator. */
extern int	dp_bernoulli_exp_minus(dp_random *rng, dp_uint128 numerator, dp_uint128 denominator);

/* The noise families: discrete Laplace (epsilon-DP), discrete Gaussian (rho-zCDP). */
typedef enum dp_noise_family
{
	DP_FAMILY_LAPLACE = 1,
	DP_FAMILY_GAUSSIAN = 2
} dp_noise_family;

/*
 * A sum of independent noise terms in groups of one family and scale
 * (a Laplace b or a Gaussian sigma^2): the noise of one release.
 */
typedef struct dp_noise_group
{
	dp_scale	scale;
	int64_t		terms;
	/*
	 * The coefficient of each term in the release: 1 for the plain signed
	 * sums of most mechanisms (a subtracted term counts as +1: the noise is
	 * symmetric), a real weight for estimators that combine nodes.  The
	 * counter sets 1 before a mechanism describes its groups.
	 */
	double		weight;
	dp_noise_family family;		/* the counter sets it too; 0 is read as Laplace */
} dp_noise_group;

#define DP_NOISE_GROUPS_MAX 256

/*
 * Real-valued noise by the granularity method: round value to a multiple of
 * a power of two g, add g times discrete Laplace noise whose sensitivity, in
 * units of g, is ceil(sensitivity / g) + 1 (the +1 pays for the rounding).
 * Returns 0 on success, -1 when the parameters or value are out of range.
 */
extern int	dp_real_laplace(dp_random *rng, double value, double sensitivity,
							double epsilon, double *noisy);
extern double dp_real_laplace_granularity(double sensitivity, double epsilon);

#endif							/* DP_NOISE_H */
