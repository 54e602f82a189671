/*
 * dp_bigfixed.h
 *		Fixed-point numbers of a few hundred to a few thousand bits with
 *		directed rounding: the certified arithmetic behind the table sampler
 *		(dp_laplace_table.c).
 *
 * A number of `limbs` 64-bit limbs (little-endian) holds n / 2^(64 limbs - 2):
 * two integer bits, so 1 and small sums are representable, and 64 limbs - 2
 * fraction bits.  Every operation says which way it rounds, so a pair
 * (lower, upper) computed with floor and ceil brackets the true value.
 * No allocation; the largest precision is DP_BIGFIXED_LIMBS_MAX limbs.
 */
#ifndef DP_BIGFIXED_H
#define DP_BIGFIXED_H

#include <stdbool.h>
#include <stdint.h>

#include "dp_int128.h"

#define DP_BIGFIXED_LIMBS_MIN 2
#define DP_BIGFIXED_LIMBS_MAX 64

typedef struct dp_bigfixed
{
	int			limbs;
	uint64_t	limb[DP_BIGFIXED_LIMBS_MAX];
} dp_bigfixed;

/* A certified enclosure: lower <= true value <= upper. */
typedef struct dp_bigfixed_interval
{
	dp_bigfixed lower;
	dp_bigfixed upper;
} dp_bigfixed_interval;

extern void dp_bigfixed_zero(dp_bigfixed *x, int limbs);
extern void dp_bigfixed_one(dp_bigfixed *x, int limbs);
extern bool dp_bigfixed_is_zero(const dp_bigfixed *x);
extern int	dp_bigfixed_compare(const dp_bigfixed *a, const dp_bigfixed *b);
/* a + b (the caller keeps sums below 4) */
extern void dp_bigfixed_add(dp_bigfixed *out, const dp_bigfixed *a, const dp_bigfixed *b);
/* max(a - b, 0) */
extern void dp_bigfixed_subtract(dp_bigfixed *out, const dp_bigfixed *a, const dp_bigfixed *b);
/* x +- units of the last place, the subtraction saturating at 0 */
extern void dp_bigfixed_add_ulps(dp_bigfixed *x, uint64_t units);
extern void dp_bigfixed_subtract_ulps(dp_bigfixed *x, uint64_t units);
/* a * b, rounded down or up */
extern void dp_bigfixed_multiply(dp_bigfixed *out, const dp_bigfixed *a, const dp_bigfixed *b,
								 bool round_up);
/* floor(2^64 a / b) for 0 <= a < b; UINT64_MAX when a >= b */
extern uint64_t dp_bigfixed_ratio_cell(const dp_bigfixed *a, const dp_bigfixed *b);

/*
 * exp(-y) for y = numerator * multiplier * 2^shift / denominator > 0, with
 * shift <= 128 and multiplier < 2^62.  The enclosure is up to about 10^6
 * units of the last place wide (series and squarings, counted outward).
 */
extern void dp_bigfixed_exp_minus(dp_bigfixed_interval *out, int limbs, uint64_t numerator,
								  uint64_t multiplier, int shift, dp_uint128 denominator);

/* The uniform variate on [0, 1) that starts with words[0 .. limbs - 1], enclosed */
extern void dp_bigfixed_uniform(dp_bigfixed_interval *out, const uint64_t *words, int limbs);

#endif							/* DP_BIGFIXED_H */
