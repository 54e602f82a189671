/*
 * dp_laplace_low.h
 *		The low bits of a large-scale geometric draw, by rejection from
 *		uniform: the part of a fresh discrete Laplace draw that the table
 *		sampler would spend most of its chunks on.
 *
 * The binary digits of a geometric variable G (P[G = g] proportional to q^g,
 * q = exp(-1/b)) are independent (dp_laplace_table.c), so G = H 2^L + V with
 * H and V independent: V on [0, 2^L) with P[V = v] proportional to q^v, H
 * geometric with ratio q^(2^L).  When 2^L is far below b, V is nearly
 * uniform, and the exact way to draw it is to draw v uniformly and accept it
 * with probability q^v = exp(-v / b) >= exp(-2^-DP_LAPLACE_LOW_MARGIN):
 * on average at most one proposal in 500 is rejected (2^L / (2b) <= 2^-9).  In
 * rejection sampling the number of proposals does not depend on the value
 * accepted, so the time of a draw says nothing about V.
 *
 * The acceptance test compares a uniform T with y = 1 - exp(-x), x = v / b,
 * through a certified enclosure of y computed from the alternating series
 * x - x^2/2 + ... in fixed point, rounded down with what the rounding may
 * lose counted outward: a fixed sequence of multiplications, no division,
 * no branch on v (test/branch_free.sh reads the machine code).  The enclosure is below
 * 2^-63 wide, so T's first 64 bits decide all but a 2^-63 share of the
 * tests; the rest compare more bits of T with y computed at higher
 * precision (dp_bigfixed.c), as far as needed.
 *
 * A draw through the low part reads other random words than the table
 * sampler alone, so it gives other values for the same keystream: only
 * fresh noise uses it (dp_random.laplace_low); keyed and seeded noise keep
 * the table sampler, whose values for a key never change.
 */
#ifndef DP_LAPLACE_LOW_H
#define DP_LAPLACE_LOW_H

#include <stdbool.h>
#include <stdint.h>

#include "dp_bigfixed.h"
#include "dp_int128.h"
#include "dp_random.h"
#include "dp_scale.h"

/* a low part of L bits needs 2^(L + margin) <= b, so that x < 2^-margin */
#define DP_LAPLACE_LOW_MARGIN 8
/* and at most this many bits (one random word; the exact path's multiplier) */
#define DP_LAPLACE_LOW_BITS_MAX 56

typedef struct dp_laplace_low
{
	int			bits;			/* L */
	dp_uint128	reciprocal;		/* floor(2^128 / b) = floor(2^128 d / n) */
} dp_laplace_low;

/* false (and low unchanged) unless 1 <= bits <= BITS_MAX and 2^(bits + margin) <= b */
extern bool dp_laplace_low_prepare(dp_laplace_low *low, const dp_scale *scale, int bits);

/*
 * The enclosure of y = 1 - exp(-v / b) for v < 2^L, in units of 2^-64:
 * *below <= 2^64 y <= *above (both exact integers), *above - *below <= 2.
 */
extern void dp_laplace_low_enclosure(const dp_laplace_low *low, uint64_t v, uint64_t *below,
									 uint64_t *above);

/*
 * Whether the uniform T whose first 64 bits are `first` is at least y (the
 * proposal v is accepted), decided exactly: further bits of T are read from
 * rng as precision requires.
 */
extern bool dp_laplace_low_accept_exact(const dp_scale *scale, uint64_t v, uint64_t first,
										dp_random *rng);

/*
 * The exact paths' uniform variate (the low part's T, an undecided chunk's
 * U) enclosed from its first `limbs` words: words[0 .. *drawn - 1] are read
 * already, the rest are read from rng now (*drawn becomes limbs).
 */
extern void dp_laplace_uniform_enclosure(dp_bigfixed_interval *out, uint64_t *words, int *drawn,
										 int limbs, dp_random *rng);

/* V: one draw of the low part (law above), in time independent of its value. */
extern uint64_t dp_laplace_low_draw(const dp_laplace_low *low, const dp_scale *scale,
									dp_random *rng);

#endif							/* DP_LAPLACE_LOW_H */
