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

typedef struct dp_scale
{
	dp_uint128	numerator;
	uint64_t	denominator;
} dp_scale;

/* Accepted ranges: these keep every node sum and noise draw inside 128 bits. */
#define DP_EPSILON_MIN 0x1p-40
#define DP_EPSILON_MAX 100.0
#define DP_SENSITIVITY_MAX (((uint64_t) 1) << 56)

typedef enum dp_scale_status
{
	DP_SCALE_OK = 0,
	DP_SCALE_BAD_EPSILON,		/* NaN, infinite or outside the range above */
	DP_SCALE_BAD_SENSITIVITY	/* zero or above DP_SENSITIVITY_MAX */
} dp_scale_status;

/*
 * Scale for sensitivity / epsilon.  epsilon is rounded *down* to a dyadic
 * rational with at least 22 significant bits, so the noise is never smaller
 * than the nominal scale and the privacy guarantee is never weaker than the
 * epsilon asked for.
 */
extern dp_scale_status dp_scale_for(uint64_t sensitivity, double epsilon, dp_scale *scale);
extern double dp_scale_as_double(const dp_scale *scale);

/* Largest magnitude of one draw (see dp_discrete_laplace). */
#define DP_NOISE_DRAW_MAX (((dp_uint128) 1) << 112)

/*
 * One draw from the discrete Laplace distribution of the given scale: by the
 * constant-time table sampler when rng->table_sampler is set, otherwise by
 * the reference sampler, whose draws from a keyed stream are the same in
 * every version.
 */
extern dp_int128 dp_discrete_laplace(dp_random *rng, const dp_scale *scale);
extern dp_int128 dp_discrete_laplace_reference(dp_random *rng, const dp_scale *scale);

/* Exact variance 2q / (1 - q)^2 with q = exp(-1 / b). */
extern double dp_discrete_laplace_variance(const dp_scale *scale);

/* Bernoulli(exp(-numerator / denominator)) for numerator <= denominator. */
extern int	dp_bernoulli_exp_minus(dp_random *rng, dp_uint128 numerator, dp_uint128 denominator);

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
/* Terms of one scale up to which tails use the exact closed form. */
#define DP_EXACT_TERMS_MAX 128

extern double dp_noise_sum_variance(const dp_noise_group *groups, int count);

/*
 * Half-width w of the two-sided interval P[|S| > w] <= 1 - confidence for
 * the sum S of all groups.  One group of at most DP_EXACT_TERMS_MAX terms:
 * exact.  Two groups: exact up to a lattice rounding, always upwards (see
 * dp_noise.c; at most 0.1% wide).  More terms of one scale: a Cornish-Fisher
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

/* The expansion used beyond DP_EXACT_TERMS_MAX terms (exported for tests). */
extern double dp_noise_sum_half_width_expansion(const dp_scale *scale, int64_t terms,
												double confidence);

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
