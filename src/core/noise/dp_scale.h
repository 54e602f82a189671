/*
 * dp_scale.h
 *		The scale of discrete noise and the ranges that keep every node sum
 *		and noise draw inside 128 bits: what the samplers (dp_noise.h,
 *		dp_laplace_table.h, dp_gaussian.h) and their analysis share.
 *
 * A dp_scale is the rational scale b = numerator / denominator of a discrete
 * Laplace distribution, P[Z = z] proportional to exp(-|z| / b), or the
 * variance sigma^2 of a discrete Gaussian.
 */
#ifndef DP_SCALE_H
#define DP_SCALE_H

#include <stdint.h>

#include "dp_int128.h"

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

/* Largest magnitude of one draw (see dp_discrete_laplace). */
#define DP_NOISE_DRAW_MAX (((dp_uint128) 1) << 112)

#endif							/* DP_SCALE_H */
