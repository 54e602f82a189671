/*
 * dp_gaussian_acceptance.c
 *		The discrete Gaussian's acceptance test in time that does not depend
 *		on the proposal.
 *
 * dp_discrete_gaussian accepts a discrete Laplace proposal Y with
 * probability exp(-X), X = (|Y| - c)^2 / (2 sigma^2) (dp_gaussian.h).  The
 * reference test (CKS20's Bernoulli loops) runs longer for some |Y|, and
 * the accepted proposal is the value returned: a timer would learn about
 * the noise.  Here the test is one comparison with an exponential variable:
 * for E ~ Exp(1), P[E > X] = exp(-X).
 *
 *   - M = floor(E 2^48) is geometric with ratio exp(-2^-48): the magnitude
 *     of a discrete Laplace variable of scale 2^48, drawn by the table
 *     sampler (dp_laplace_table_draw_magnitude) in constant time.  The rest,
 *     F = E 2^48 - M, is independent of M, on [0, 1) with density
 *     proportional to exp(-f 2^-48).
 *   - Fast path: X in floating point, from the integer u = |a d t - n|
 *     (a = |Y|, sigma^2 = n / d) as u^2 / D with D = 2 n d t^2, every
 *     conversion rounded down and every operation's rounding counted
 *     (relative error below 2^-49, see dp_gaussian_acceptance_fast).  E is enclosed in
 *     [M, M + 1) 2^-48.  The enclosures are separated by a margin of
 *     2^-46 relative; if they do not overlap, the comparison is decided.
 *     All of it is straight-line arithmetic on normal doubles and 128-bit
 *     integers (no division, no branch on the value, no conversion whose
 *     code branches on the magnitude).
 *   - Otherwise (probability below 2^-45 per attempt: E within about
 *     X 2^-45 + 2^-48 of X, where E's density is at most 1) the exact path
 *     compares M D with u^2 2^48 in integers, and on a tie compares F with
 *     the remainder's binary digits, drawing F's digits one by one: they are
 *     independent, digit i being 1 with probability
 *     1 / (1 + exp(2^-(48 + i))), each drawn exactly from Bernoulli(exp(-y))
 *     trials (CKS20, Algorithm 1).
 *
 * So the acceptance probability is exactly exp(-X) (up to the table
 * sampler's redraw of M > 2^112, probability exp(-2^64), and a tie still
 * unbroken after 4096 digits of F, probability below 2^-4096, taken as a
 * rejection), and the time of an attempt depends on nothing but the public
 * scale except on the exact path.  The number of attempts does not depend on
 * the value finally accepted (rejection sampling).
 *
 * The values differ from the reference test's for the same random stream, so
 * only streams that draw fresh noise use it (dp_random.constant_time_gaussian):
 * keyed noise keeps the test its key was first drawn with.
 */
#include "dp_gaussian_acceptance.h"

#include <string.h>

#include "dp_laplace_table.h"

/* E = (M + F) 2^-48 */
#define EXPONENTIAL_FRACTION_BITS 48
#define TIE_DIGITS_MAX 4096

/* A double with value 2^exponent, -1022 <= exponent <= 1023. */
static inline double
power_of_two(int exponent)
{
	uint64_t	bits = (uint64_t) (exponent + 1023) << 52;
	double		value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

/*
 * x rounded down to 53 significant bits, without a branch on x: the
 * compiler's own conversion of a 128-bit (or a large 64-bit) integer tests
 * its magnitude.  Exact below 2^53; otherwise x (1 - 2^-52) < result <= x.
 */
static inline double
double_down(dp_uint128 x)
{
	uint64_t	high = (uint64_t) (x >> 64);
	uint64_t	low = (uint64_t) x;
	uint64_t	high_used = -(uint64_t) (high != 0);
	uint64_t	top = (high & high_used) | (low & ~high_used);
	int			length = (int) (high_used & 64) + 64 - __builtin_clzll(top | 1);
	int			drop = (length - 53) & -(int) (length > 53);
	/*
	 * x >> drop from 64-bit shifts and masks (drop <= 75): a shift of a
	 * 128-bit integer by a variable compiles to a jump at -O0 and -O1
	 */
	unsigned	within = (unsigned) drop & 63;
	uint64_t	beyond = -(uint64_t) ((unsigned) drop >> 6);
	uint64_t	joined = (low >> within) | ((high << (63 - within)) << 1);
	uint64_t	mantissa = (joined & ~beyond) | ((high >> within) & beyond);

	return (double) (int64_t) mantissa * power_of_two(drop);
}

/*
 * |a d t - n| without a branch (a comparison of 128-bit integers compiles
 * to one): a d t and n are below 2^127 (dp_gaussian.c), so the difference's
 * top bit is its sign, and an arithmetic shift spreads it into a mask.
 */
static inline dp_uint128
distance_from_centre(dp_uint128 a, dp_uint128 n, uint64_t d, dp_uint128 t)
{
	dp_uint128	difference = a * d * t - n;
	dp_uint128	negative = (dp_uint128) ((dp_int128) difference >> 127);

	return (difference ^ negative) - negative;
}

/*
 * Limb arithmetic for the exact path: little-endian 64-bit limbs, fixed
 * counts large enough for u^2 2^48 < 2^302 and M D < 2^113 2^243.
 */
#define LIMBS 6

static void
limbs_from(uint64_t *out, dp_uint128 x)
{
	memset(out, 0, sizeof(uint64_t) * LIMBS);
	out[0] = (uint64_t) x;
	out[1] = (uint64_t) (x >> 64);
}

/* out = a * b, a of LIMBS limbs whose product with b fits LIMBS limbs */
static void
limbs_multiply(uint64_t *out, const uint64_t *a, dp_uint128 b)
{
	uint64_t	factor[2] = {(uint64_t) b, (uint64_t) (b >> 64)};
	uint64_t	product[LIMBS + 2];

	memset(product, 0, sizeof(product));
	for (int j = 0; j < 2; j++)
	{
		uint64_t	carry = 0;

		for (int i = 0; i < LIMBS; i++)
		{
			dp_uint128	part = (dp_uint128) a[i] * factor[j] + product[i + j] + carry;

			product[i + j] = (uint64_t) part;
			carry = (uint64_t) (part >> 64);
		}
		product[LIMBS + j] += carry;
	}
	memcpy(out, product, sizeof(uint64_t) * LIMBS);
}

static int
limbs_compare(const uint64_t *a, const uint64_t *b)
{
	for (int i = LIMBS - 1; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* a -= b, for a >= b */
static void
limbs_subtract(uint64_t *a, const uint64_t *b)
{
	uint64_t	borrow = 0;

	for (int i = 0; i < LIMBS; i++)
	{
		uint64_t	x = a[i];
		uint64_t	difference = x - b[i] - borrow;

		borrow = (x < b[i]) | ((x == b[i]) & borrow);
		a[i] = difference;
	}
}

static void
limbs_double(uint64_t *a)
{
	for (int i = LIMBS - 1; i > 0; i--)
		a[i] = (a[i] << 1) | (a[i - 1] >> 63);
	a[0] <<= 1;
}

/* Bernoulli(2^-exponent / k), exactly: exponent fair bits all zero, and 1 / k */
static bool
bernoulli_power_of_two_over(dp_random *rng, int exponent, uint64_t k)
{
	for (; exponent >= 64; exponent -= 64)
		if (dp_random_uint64(rng) != 0)
			return false;
	if (exponent > 0 && (dp_random_uint64(rng) >> (64 - exponent)) != 0)
		return false;
	return dp_random_below(rng, k) == 0;
}

/*
 * Bernoulli(exp(-2^-exponent)), by CKS20 Algorithm 1: the count of
 * successive successes of Bernoulli(y / k), k = 1, 2, ..., is even with
 * probability exp(-y).
 */
static bool
bernoulli_exp_minus_power_of_two(dp_random *rng, int exponent)
{
	uint64_t	k = 1;

	while (bernoulli_power_of_two_over(rng, exponent, k))
		k++;
	return (k & 1) != 0;
}

/*
 * Digit i of F: 1 with probability p / (1 + p), p = exp(-2^-(48 + i)).
 * A fair coin proposes 1 (kept with probability p) or 0 (always kept).
 */
static int
fraction_digit(dp_random *rng, int digit)
{
	for (;;)
	{
		if (!dp_random_bit(rng))
			return 0;
		if (bernoulli_exp_minus_power_of_two(rng, EXPONENTIAL_FRACTION_BITS + digit))
			return 1;
	}
}

/*
 * E > X exactly, with E = (M + F) 2^-48 and X 2^48 = u^2 2^48 / D:
 * M > X 2^48 accepts, M + 1 <= X 2^48 rejects; between them F is compared
 * with the fraction r = (u^2 2^48 - M D) / D digit by digit.
 */
static bool
decide_exact(dp_random *rng, dp_uint128 u, dp_uint128 twice_n, dp_uint128 d_t_squared,
			 dp_uint128 magnitude)
{
	uint64_t	target[LIMBS];	/* u^2 2^48 */
	uint64_t	denominator[LIMBS];	/* D */
	uint64_t	below[LIMBS];	/* M D */
	uint64_t	above[LIMBS];	/* (M + 1) D */

	limbs_from(target, u);
	limbs_multiply(target, target, u);
	for (int i = 0; i < EXPONENTIAL_FRACTION_BITS; i++)
		limbs_double(target);
	limbs_from(denominator, d_t_squared);
	limbs_multiply(denominator, denominator, twice_n);
	limbs_multiply(below, denominator, magnitude);
	memcpy(above, below, sizeof(above));
	{
		/* above = below + D */
		uint64_t	carry = 0;

		for (int i = 0; i < LIMBS; i++)
		{
			dp_uint128	sum = (dp_uint128) above[i] + denominator[i] + carry;

			above[i] = (uint64_t) sum;
			carry = (uint64_t) (sum >> 64);
		}
	}
	if (limbs_compare(target, below) < 0)
		return true;
	if (limbs_compare(target, above) >= 0)
		return false;

	/* the tie: r = (target - M D) / D in [0, 1), digit by digit */
	limbs_subtract(target, below);
	for (int digit = 1; digit <= TIE_DIGITS_MAX; digit++)
	{
		int			r_digit;
		int			f_digit;
		static const uint64_t zero[LIMBS];

		if (limbs_compare(target, zero) == 0)
			return true;		/* r's digits end here; F's never do */
		limbs_double(target);
		r_digit = limbs_compare(target, denominator) >= 0;
		if (r_digit)
			limbs_subtract(target, denominator);
		f_digit = fraction_digit(rng, digit);
		if (f_digit != r_digit)
			return f_digit > r_digit;
	}
	return false;
}

/*
 * The fast decision.  Relative errors, each rounding at most 2^-53 and each
 * conversion (double_down) at most 2^-52 = 2 2^-53: D' = 2 n' d t t with
 * n' = n rounded down (2, d and t are exact), 2 + 3; 1 / D', 1; u' u' / D'
 * with u' = u rounded down, 4 + 2.  So X' = X (1 + e) with
 * |e| < 13 2^-53 < 2^-49 (second-order terms included), and
 * X' (1 +- 2^-46), rounded, still encloses X.  E lies in
 * [M' 2^-48, (M' (1 + 2^-48) + 1) 2^-48] with M' = M rounded down: the
 * upper end's two roundings are covered by the 2^-48 margin when M >= 2^53;
 * below, M' = M and M + 1 are doubles, and rounding is monotone, so
 * M' (1 + 2^-48) rounds to at least M and adding 1 to at least M + 1.
 */
int
dp_gaussian_acceptance_fast(dp_uint128 a, const dp_scale *sigma2, dp_uint128 t,
							dp_uint128 magnitude)
{
	dp_uint128	u = distance_from_centre(a, sigma2->numerator, sigma2->denominator, t);
	/* public: depends on the scale only */
	double		denominator = 2 * double_down(sigma2->numerator) *
		(double) (int64_t) sigma2->denominator * double_down(t) * double_down(t);
	double		distance = double_down(u);
	double		x = distance * distance * (1 / denominator);
	double		x_high = x * (1 + 0x1p-46);
	double		x_low = x * (1 - 0x1p-46);
	double		m = double_down(magnitude);
	double		e_low = m * 0x1p-48;
	double		e_high = (m * (1 + 0x1p-48) + 1) * 0x1p-48;
	int			accept = e_low > x_high;
	int			reject = e_high <= x_low;

	return accept | -(int) !(accept | reject);
}

bool
dp_gaussian_acceptance_exact(dp_random *rng, dp_uint128 a, const dp_scale *sigma2,
							 dp_uint128 t, dp_uint128 magnitude)
{
	dp_uint128	n = sigma2->numerator;
	uint64_t	d = sigma2->denominator;

	/* D = (2 n) (d t^2): each factor below 2^121 (dp_gaussian.c) */
	return decide_exact(rng, distance_from_centre(a, n, d, t), 2 * n, (dp_uint128) d * t * t,
						magnitude);
}

bool
dp_gaussian_accept_constant_time(dp_random *rng, dp_uint128 a, const dp_scale *sigma2,
								 dp_uint128 t)
{
	static const dp_scale exponential_scale = {
		.numerator = (dp_uint128) 1 << EXPONENTIAL_FRACTION_BITS,
		.denominator = 1
	};
	dp_uint128	magnitude;
	int			decision;

	/* fresh streams take M's low bits by rejection (dp_laplace_low.h): the same law */
	if (rng->samplers != NULL)
		magnitude = dp_laplace_table_draw_magnitude_for(dp_sampler_cache_laplace(rng->samplers,
																				 &exponential_scale),
														rng);
	else
		magnitude = dp_laplace_table_draw_magnitude_uncached(rng, &exponential_scale);
	decision = dp_gaussian_acceptance_fast(a, sigma2, t, magnitude);
	if (__builtin_expect(decision >= 0, 1))
		return decision == 1;
	return dp_gaussian_acceptance_exact(rng, a, sigma2, t, magnitude);
}
