/*
 * dp_decayed.h
 *		The exponentially decayed sum (dp_decayed.c): what the statistics,
 *		the SQL glue and the tests need beyond the counter interface.
 */
#ifndef DP_DECAYED_H
#define DP_DECAYED_H

#include <stdint.h>

#include "dp_int128.h"
#include "dp_mechanism.h"

/*
 * The release of a decayed counter is in units of 2^-f of the values: f,
 * from the mechanism (its gamma and unit bound); -1 for a mechanism that
 * validation refuses.
 */
extern int	dp_decayed_fraction_bits(const dp_mechanism *mechanism);

/* K, the tree's levels below the block (blocks of 2^K steps), from gamma */
extern int	dp_decayed_levels(double gamma);

/* The mean steady-state variance factor of K levels (docs/mechanisms.md). */
extern double dp_decayed_mean_variance_factor(double gamma, int levels);

/* gamma^d in units of 2^-62, from g = round(gamma 2^62), as the counter computes it */
extern int64_t dp_decayed_weight(int64_t g, int64_t d);

/* round(a w / 2^62), half up */
extern dp_int128 dp_decayed_mulshift(dp_int128 a, int64_t w);

#endif							/* DP_DECAYED_H */
