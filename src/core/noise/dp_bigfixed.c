/*
 * dp_bigfixed.c
 *		Certified fixed-point arithmetic for the table sampler.
 *
 * Only what the sampler needs: products, small divisions, one long division
 * by the 128-bit scale numerator, and exp(-y) by a Taylor series on y / 2^r
 * followed by r squarings.  Each result is a floor or a ceiling, and the
 * error of the series is counted in units of the last place, so the
 * enclosures are proofs, not estimates.
 */
#include "dp_bigfixed.h"

#include <string.h>

#define FRACTION_BITS(limbs) (64 * (limbs) - 2)

void
dp_bigfixed_zero(dp_bigfixed *x, int limbs)
{
	x->limbs = limbs;
	memset(x->limb, 0, sizeof(uint64_t) * (size_t) limbs);
}

void
dp_bigfixed_one(dp_bigfixed *x, int limbs)
{
	dp_bigfixed_zero(x, limbs);
	x->limb[limbs - 1] = UINT64_C(1) << 62;
}

bool
dp_bigfixed_is_zero(const dp_bigfixed *x)
{
	for (int i = 0; i < x->limbs; i++)
		if (x->limb[i] != 0)
			return false;
	return true;
}

int
dp_bigfixed_compare(const dp_bigfixed *a, const dp_bigfixed *b)
{
	for (int i = a->limbs - 1; i >= 0; i--)
		if (a->limb[i] != b->limb[i])
			return a->limb[i] < b->limb[i] ? -1 : 1;
	return 0;
}

void
dp_bigfixed_add(dp_bigfixed *out, const dp_bigfixed *a, const dp_bigfixed *b)
{
	uint64_t	carry = 0;

	out->limbs = a->limbs;
	for (int i = 0; i < a->limbs; i++)
	{
		dp_uint128	sum = (dp_uint128) a->limb[i] + b->limb[i] + carry;

		out->limb[i] = (uint64_t) sum;
		carry = (uint64_t) (sum >> 64);
	}
}

void
dp_bigfixed_subtract(dp_bigfixed *out, const dp_bigfixed *a, const dp_bigfixed *b)
{
	uint64_t	borrow = 0;

	if (dp_bigfixed_compare(a, b) <= 0)
	{
		dp_bigfixed_zero(out, a->limbs);
		return;
	}
	out->limbs = a->limbs;
	for (int i = 0; i < a->limbs; i++)
	{
		uint64_t	x = a->limb[i];
		uint64_t	y = b->limb[i];
		uint64_t	difference = x - y - borrow;

		borrow = (x < y) || (x - y < borrow);
		out->limb[i] = difference;
	}
}

void
dp_bigfixed_add_ulps(dp_bigfixed *x, uint64_t units)
{
	uint64_t	carry = units;

	for (int i = 0; i < x->limbs && carry != 0; i++)
	{
		uint64_t	before = x->limb[i];

		x->limb[i] = before + carry;
		carry = x->limb[i] < before ? 1 : 0;
	}
}

void
dp_bigfixed_subtract_ulps(dp_bigfixed *x, uint64_t units)
{
	dp_bigfixed amount;

	dp_bigfixed_zero(&amount, x->limbs);
	amount.limb[0] = units;
	dp_bigfixed_subtract(x, x, &amount);
}

void
dp_bigfixed_multiply(dp_bigfixed *out, const dp_bigfixed *a, const dp_bigfixed *b,
					 bool round_up)
{
	int			limbs = a->limbs;
	uint64_t	product[2 * DP_BIGFIXED_LIMBS_MAX + 1];
	bool		inexact = false;

	memset(product, 0, sizeof(uint64_t) * (size_t) (2 * limbs + 1));
	for (int i = 0; i < limbs; i++)
	{
		uint64_t	carry = 0;

		if (a->limb[i] == 0)
			continue;
		for (int j = 0; j < limbs; j++)
		{
			dp_uint128	part = (dp_uint128) a->limb[i] * b->limb[j] + product[i + j] + carry;

			product[i + j] = (uint64_t) part;
			carry = (uint64_t) (part >> 64);
		}
		product[i + limbs] = carry;
	}

	/* drop 64 (limbs - 1) + 62 bits */
	for (int i = 0; i < limbs - 1; i++)
		inexact |= product[i] != 0;
	inexact |= (product[limbs - 1] & ((UINT64_C(1) << 62) - 1)) != 0;
	out->limbs = limbs;
	for (int i = 0; i < limbs; i++)
		out->limb[i] = (product[i + limbs - 1] >> 62) | (product[i + limbs] << 2);
	if (round_up && inexact)
		dp_bigfixed_add_ulps(out, 1);
}

/* floor(x / divisor) */
static void
divide_small(dp_bigfixed *x, uint64_t divisor)
{
	dp_uint128	remainder = 0;

	for (int i = x->limbs - 1; i >= 0; i--)
	{
		dp_uint128	current = (remainder << 64) | x->limb[i];

		x->limb[i] = (uint64_t) (current / divisor);
		remainder = current % divisor;
	}
}

static void
shift_left_one(dp_bigfixed *x, int bit)
{
	uint64_t	carry = (uint64_t) bit;

	for (int i = 0; i < x->limbs; i++)
	{
		uint64_t	next = x->limb[i] >> 63;

		x->limb[i] = (x->limb[i] << 1) | carry;
		carry = next;
	}
}

uint64_t
dp_bigfixed_ratio_cell(const dp_bigfixed *a, const dp_bigfixed *b)
{
	dp_bigfixed remainder = *a;
	uint64_t	quotient = 0;

	if (dp_bigfixed_compare(a, b) >= 0)
		return UINT64_MAX;
	/* remainder < b <= 2 throughout, so doubling it never leaves [0, 4) */
	for (int bit = 0; bit < 64; bit++)
	{
		shift_left_one(&remainder, 0);
		quotient <<= 1;
		if (dp_bigfixed_compare(&remainder, b) >= 0)
		{
			dp_bigfixed_subtract(&remainder, &remainder, b);
			quotient |= 1;
		}
	}
	return quotient;
}

/*
 * floor(top * 2^shift / denominator) into x, by binary long division; the
 * caller guarantees the quotient fits.  The remainder stays below the
 * denominator, so with its carry bit it fits 129 bits.
 */
static void
long_division(dp_bigfixed *x, int limbs, dp_uint128 top, int shift, dp_uint128 denominator)
{
	int			top_bits = dp_uint128_bit_length(top);
	dp_uint128	remainder = 0;

	dp_bigfixed_zero(x, limbs);
	for (int index = top_bits + shift - 1; index >= 0; index--)
	{
		int			bit = index >= shift ? (int) ((top >> (index - shift)) & 1) : 0;
		int			carry = (int) (remainder >> 127);
		int			quotient_bit = 0;

		remainder = (remainder << 1) | (dp_uint128) bit;
		if (carry || remainder >= denominator)
		{
			remainder -= denominator;
			quotient_bit = 1;
		}
		shift_left_one(x, quotient_bit);
	}
}

void
dp_bigfixed_exp_minus(dp_bigfixed_interval *out, int limbs, uint64_t numerator,
					  uint64_t multiplier, int shift, dp_uint128 denominator)
{
	dp_uint128	top = (dp_uint128) numerator * multiplier;
	int			top_bits = dp_uint128_bit_length(top);
	int			denominator_bits = dp_uint128_bit_length(denominator);
	int			fraction_bits = FRACTION_BITS(limbs);
	/* 2^low_log <= y < 2^high_log */
	int			low_log = top_bits - 1 + shift - denominator_bits;
	int			high_log = top_bits + shift - denominator_bits + 1;
	int			squarings = high_log + 8 > 0 ? high_log + 8 : 0;
	dp_bigfixed z;
	dp_bigfixed term;
	dp_bigfixed sum;
	uint64_t	terms = 0;

	/* y >= 2^13 >= 2 * 64 limbs: exp(-y) is below one unit of the last place */
	if (low_log >= 13)
	{
		dp_bigfixed_zero(&out->lower, limbs);
		dp_bigfixed_zero(&out->upper, limbs);
		out->upper.limb[0] = 1;
		return;
	}

	/* z = y / 2^squarings < 2^-8, rounded down (its error costs one unit below) */
	long_division(&z, limbs, top, shift - squarings + fraction_bits, denominator);

	/*
	 * The series 1 - z + z^2/2 - ... with terms rounded down: each term is off
	 * by at most 2 units, the first term left out is below 1, and z's
	 * rounding moves exp(-z) by less than 1 unit.
	 */
	dp_bigfixed_one(&sum, limbs);
	dp_bigfixed_one(&term, limbs);
	for (uint64_t i = 1; i <= (uint64_t) fraction_bits; i++)
	{
		dp_bigfixed_multiply(&term, &term, &z, false);
		divide_small(&term, i);
		if (dp_bigfixed_is_zero(&term))
			break;
		terms++;
		if (i % 2 == 1)
			dp_bigfixed_subtract(&sum, &sum, &term);
		else
			dp_bigfixed_add(&sum, &sum, &term);
	}
	out->lower = sum;
	out->upper = sum;
	dp_bigfixed_subtract_ulps(&out->lower, 3 * terms + 8);
	dp_bigfixed_add_ulps(&out->upper, 3 * terms + 8);
	{
		dp_bigfixed one;

		dp_bigfixed_one(&one, limbs);
		if (dp_bigfixed_compare(&out->upper, &one) > 0)
			out->upper = one;
	}

	for (int i = 0; i < squarings; i++)
	{
		dp_bigfixed_multiply(&out->lower, &out->lower, &out->lower, false);
		dp_bigfixed_multiply(&out->upper, &out->upper, &out->upper, true);
	}
}

/*
 * A uniform variate on [0, 1) whose first 64 * limbs bits are words[0],
 * words[1], ... (most significant first): the enclosure [lower, lower + 1
 * unit] of every variate that starts with them.
 */
void
dp_bigfixed_uniform(dp_bigfixed_interval *out, const uint64_t *words, int limbs)
{
	dp_bigfixed_zero(&out->lower, limbs);
	for (int i = 0; i < limbs; i++)
		out->lower.limb[limbs - 1 - i] = words[i];
	/* two integer bits: shift the 64 limbs-bit fraction right by 2 */
	for (int i = 0; i < limbs; i++)
		out->lower.limb[i] = (out->lower.limb[i] >> 2) |
			(i + 1 < limbs ? out->lower.limb[i + 1] << 62 : 0);
	out->upper = out->lower;
	dp_bigfixed_add_ulps(&out->upper, 1);
}
