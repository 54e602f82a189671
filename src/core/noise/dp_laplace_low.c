/*
 * dp_laplace_low.c
 *		The low bits of a large-scale geometric draw, by rejection from
 *		uniform (see dp_laplace_low.h for the method).
 *
 * Fixed point.  x = v / b < 2^-8 is held in units of 2^-72 (below 2^64),
 * rounded down from the reciprocal floor(2^128 / b).  The terms t_k = x^k /
 * k! are held in units of 2^-135 (y < 2^-8 keeps their sums below 2^128),
 * from the powers of x in 64 bits each (x^k < 2^-8k needs no more for an
 * error below 2^-77) and 1 / k! as a multiplication by floor(2^64 / k!),
 * never a division, whose time could depend on its operands; everything is
 * rounded down, and MISSED bounds what that loses.  For 0 <= x < 1 the
 * series of y = 1 - exp(-x) = t_1 - t_2 + t_3 - ... alternates with falling
 * terms, so its partial sums bracket y: the sum to t_6 lies below it, the
 * sum to t_7 above, and t_7 < 2^-68 at x < 2^-8.
 */
#include "dp_laplace_low.h"

#include "dp_bigfixed.h"

/* floor(a b / 2^64) of two 64-bit numbers */
static inline uint64_t
times_high(uint64_t a, uint64_t b)
{
	return (uint64_t) (((dp_uint128) a * b) >> 64);
}

/* floor(2^64 / k!) */
#define OVER_3_FACTORIAL UINT64_C(0x2AAAAAAAAAAAAAAA)
#define OVER_4_FACTORIAL UINT64_C(0x0AAAAAAAAAAAAAAA)
#define OVER_5_FACTORIAL UINT64_C(0x0222222222222222)
#define OVER_6_FACTORIAL UINT64_C(0x005B05B05B05B05B)
#define OVER_7_FACTORIAL UINT64_C(0x000D00D00D00D00D)

/*
 * t_k in units of 2^-135 from x^k held in units of 2^-(64 + 8k): times
 * floor(2^64 / k!), then down to 2^-135.
 */
static inline dp_uint128
term(uint64_t power, uint64_t over_factorial, int k)
{
	return ((dp_uint128) power * over_factorial) >> (8 * k - 7);
}

/*
 * What the rounded-down terms may miss, in units of 2^-135: 2^65 (2^-70).
 * With x_lo = floor(v R / 2^56), 2^72 x - x_lo < 1 + v / 2^56 < 2, so the
 * first term misses less than 2 units of 2^-72 = 2^64 units.  A later
 * term misses x^k - x_lo^k < k x^(k-1) 2^-71 over k!, below 2^-79, plus the
 * floors of its power's products and of 1 / k! (each under a unit of a
 * scale at most 2^-80, times factors below 1): below 2^-77 = 2^58 units.
 * So the misses of the odd terms add up to less than 2^64 + 3 2^58, of the
 * even ones less than 3 2^58, both below 2^65.
 */
#define MISSED ((dp_uint128) 1 << 65)

/*
 * Never inlined: the draw runs this function's own code, the code that
 * test/branch_free.sh reads (a copy inlined into the draw could be compiled
 * otherwise).
 */
__attribute__((noinline)) void
dp_laplace_low_enclosure(const dp_laplace_low *low, uint64_t v, uint64_t *below,
						 uint64_t *above)
{
	/* v R < 2^120, as v < 2^L and R <= 2^(128 - L - 8): x below 2^64 units of 2^-72 */
	uint64_t	x = (uint64_t) (((dp_uint128) v * low->reciprocal) >> 56);
	/* the powers of x in a tree of three multiplications' depth; x^k in units of 2^-(64 + 8k) */
	dp_uint128	square = (dp_uint128) x * x;
	uint64_t	x2 = (uint64_t) (square >> 64);
	uint64_t	x3 = times_high(x2, x);
	uint64_t	x4 = times_high(x2, x2);
	uint64_t	x5 = times_high(x4, x);
	uint64_t	x6 = times_high(x3, x3);
	uint64_t	x7 = times_high(x4, x3);
	dp_uint128	t1 = (dp_uint128) x << 63;
	dp_uint128	t2 = square >> 10;	/* x^2 / 2, x^2 exact in units of 2^-144 */
	dp_uint128	odd = t1 + term(x3, OVER_3_FACTORIAL, 3) + term(x5, OVER_5_FACTORIAL, 5);
	dp_uint128	even = t2 + term(x4, OVER_4_FACTORIAL, 4) + term(x6, OVER_6_FACTORIAL, 6);
	/*
	 * The sum to t6 lies below y, the sum to t7 above it.  The lower end
	 * saturates at 0 by arithmetic alone: odd - even - MISSED is below y <
	 * 2^127 units when it is not negative, and above 2^128 - 2^66 when it
	 * wraps, so its top bit is the borrow.  (A comparison here, odd >= even +
	 * MISSED, was compiled by gcc -O2 into a branch taken by the tiny x alone,
	 * v = 0 among them: a timing difference with probability 2^-L.)
	 */
	dp_uint128	difference = odd - (even + MISSED);
	dp_uint128	y_lo = difference & ((difference >> 127) - 1);
	dp_uint128	y_hi = odd + term(x7, OVER_7_FACTORIAL, 7) + MISSED - even;

	*below = (uint64_t) (y_lo >> 71);
	*above = (uint64_t) (y_hi >> 71) +
		(uint64_t) ((y_hi & ((((dp_uint128) 1) << 71) - 1)) != 0);
}

void
dp_laplace_uniform_enclosure(dp_bigfixed_interval *out, uint64_t *words, int *drawn, int limbs,
							 dp_random *rng)
{
	while (*drawn < limbs)
		words[(*drawn)++] = dp_random_uint64(rng);
	dp_bigfixed_uniform(out, words, limbs);
}

bool
dp_laplace_low_accept_exact(const dp_scale *scale, uint64_t v, uint64_t first, dp_random *rng)
{
	uint64_t	words[DP_BIGFIXED_LIMBS_MAX];
	int			drawn = 1;

	if (v == 0)
		return true;			/* y = 0 */
	words[0] = first;
	for (int limbs = DP_BIGFIXED_LIMBS_MIN; limbs <= DP_BIGFIXED_LIMBS_MAX; limbs *= 2)
	{
		dp_bigfixed_interval uniform;
		dp_bigfixed_interval power;
		dp_bigfixed one;
		dp_bigfixed y_lower;
		dp_bigfixed y_upper;

		dp_laplace_uniform_enclosure(&uniform, words, &drawn, limbs, rng);
		/* exp(-v d / n) */
		dp_bigfixed_exp_minus(&power, limbs, scale->denominator, v, 0, scale->numerator);
		dp_bigfixed_one(&one, limbs);
		dp_bigfixed_subtract(&y_lower, &one, &power.upper);
		dp_bigfixed_subtract(&y_upper, &one, &power.lower);
		if (dp_bigfixed_compare(&uniform.lower, &y_upper) >= 0)
			return true;		/* T >= y */
		if (dp_bigfixed_compare(&uniform.upper, &y_lower) <= 0)
			return false;		/* T < T's upper end <= y */
	}
	/* undecided at 4096 bits: probability below 2^-4000 */
	return true;
}

bool
dp_laplace_low_prepare(dp_laplace_low *low, const dp_scale *scale, int bits)
{
	int			span = bits + DP_LAPLACE_LOW_MARGIN;
	int			denominator_bits = 64 - __builtin_clzll(scale->denominator);
	dp_uint128	remainder = scale->denominator;
	dp_uint128	quotient = 0;

	if (bits < 1 || bits > DP_LAPLACE_LOW_BITS_MAX || scale->denominator == 0)
		return false;
	/* 2^span d <= n, with no shift out of 128 bits */
	if (span + denominator_bits > 127 ||
		((dp_uint128) scale->denominator << span) > scale->numerator)
		return false;

	/* floor(2^128 d / n) by long division, d < n; a carry out means past n */
	for (int i = 0; i < 128; i++)
	{
		bool		carry = (remainder >> 127) != 0;

		remainder <<= 1;
		quotient <<= 1;
		if (carry || remainder >= scale->numerator)
		{
			remainder -= scale->numerator;
			quotient |= 1;
		}
	}
	low->bits = bits;
	low->reciprocal = quotient;
	return true;
}

uint64_t
dp_laplace_low_draw(const dp_laplace_low *low, const dp_scale *scale, dp_random *rng)
{
	const uint64_t mask = (UINT64_C(1) << low->bits) - 1;

	for (;;)
	{
		uint64_t	v;
		uint64_t	t;
		uint64_t	below;
		uint64_t	above;

		dp_random_uint64_pair(rng, &v, &t);
		v &= mask;
		dp_laplace_low_enclosure(low, v, &below, &above);
		if (t >= above)
			return v;			/* T >= T's first 64 bits >= y */
		if (t >= below && dp_laplace_low_accept_exact(scale, v, t, rng))
			return v;
		/* rejected: T < y (the count of proposals is independent of the value kept) */
	}
}
