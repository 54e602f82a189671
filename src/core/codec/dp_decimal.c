/*
 * dp_decimal.c
 *		A double's exact decimal value, rounded to a number of places.
 *
 * Why this is exact: a finite double is x = m * 2^e with integers m < 2^53
 * and -1074 <= e <= 971.  For e >= 0 it is the integer m * 2^e.  For e < 0,
 * x = m * 5^(-e) / 10^(-e): the decimal digits of the integer m * 5^(-e),
 * with the point -e places from the right, are x's whole expansion (at most
 * 767 significant digits, 1074 places).  Both integers are computed here in
 * base 10^9 with exact integer arithmetic, so the digits are x's own, and
 * rounding to `places` decimals only looks at the digits beyond them (any
 * not zero, for up; the first against 5, then the rest, for nearest).  Converting through printf("%.15g") or a numeric cast instead
 * rounds to 15 or 17 significant digits, half of the time downwards: a
 * ledger that records epsilon that way can charge less than was spent.
 */
#include "dp_decimal.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define LIMB_BASE 1000000000u	/* 10^9: one limb holds 9 decimal digits */
/* m * 5^1074 < 10^767 and m * 2^971 < 10^309: 86 limbs at most */
#define LIMBS 96
#define DIGITS (LIMBS * 9 + 1)

typedef struct big
{
	uint32_t	limb[LIMBS];	/* little-endian, each < LIMB_BASE */
	int			used;
} big;

/* n := n * factor, factor < 2^31; false on overflow of the limbs */
static bool
big_multiply(big *n, uint32_t factor)
{
	uint64_t	carry = 0;
	int			i;

	for (i = 0; i < n->used; i++)
	{
		/* < 10^9 * 2^31 + carry < 2^61: no overflow */
		uint64_t	product = (uint64_t) n->limb[i] * factor + carry;

		n->limb[i] = (uint32_t) (product % LIMB_BASE);
		carry = product / LIMB_BASE;
	}
	while (carry != 0)
	{
		if (n->used == LIMBS)
			return false;
		n->limb[n->used++] = (uint32_t) (carry % LIMB_BASE);
		carry /= LIMB_BASE;
	}
	return true;
}

/* n := n * base^count, by factors base^chunk < 2^31 */
static bool
big_multiply_power(big *n, uint32_t base, int chunk, int count)
{
	uint32_t	full = 1;
	int			i;

	for (i = 0; i < chunk; i++)
		full *= base;
	while (count >= chunk)
	{
		if (!big_multiply(n, full))
			return false;
		count -= chunk;
	}
	for (i = 0; i < count; i++)
		if (!big_multiply(n, base))
			return false;
	return true;
}

/* The digits of n, without leading zeros ("0" for zero); returns the length. */
static int
big_digits(const big *n, char *out)
{
	int			length = 0;
	int			i;

	if (n->used == 0)
	{
		out[0] = '0';
		out[1] = '\0';
		return 1;
	}
	for (i = n->used - 1; i >= 0; i--)
	{
		uint32_t	limb = n->limb[i];
		char		nine[9];
		int			k;
		int			start = 0;

		for (k = 8; k >= 0; k--)
		{
			nine[k] = (char) ('0' + limb % 10);
			limb /= 10;
		}
		/* the leading limb without its leading zeros */
		if (i == n->used - 1)
			while (start < 8 && nine[start] == '0')
				start++;
		memcpy(out + length, nine + start, 9 - start);
		length += 9 - start;
	}
	out[length] = '\0';
	return length;
}

bool
dp_decimal_round(double x, int places, dp_rounding rounding, char *out, size_t size)
{
	big			n;
	char		digits[DIGITS + 2];
	int			length;
	int			exponent;
	int			scale;			/* the value is digits / 10^scale */
	uint64_t	mantissa;
	double		fraction;
	int			integer_digits;
	int			end;
	int			written;
	int			i;

	if (!(x >= 0.0) || !isfinite(x) || places < 0 || places > DP_DECIMAL_MAX_PLACES ||
		size < DP_DECIMAL_TEXT_BYTES ||
		(rounding != DP_ROUND_DOWN && rounding != DP_ROUND_UP && rounding != DP_ROUND_NEAREST))
		return false;

	/* x = mantissa * 2^exponent exactly, mantissa < 2^53 (0 for zero) */
	fraction = frexp(x, &exponent);
	mantissa = (uint64_t) ldexp(fraction, 53);
	exponent -= 53;
	while (mantissa != 0 && (mantissa & 1) == 0 && exponent < 0)
	{
		mantissa >>= 1;
		exponent++;
	}

	n.used = 0;
	while (mantissa != 0)
	{
		n.limb[n.used++] = (uint32_t) (mantissa % LIMB_BASE);
		mantissa /= LIMB_BASE;
	}
	/* 2^29 and 5^13 are the largest powers below 2^31 */
	if (exponent >= 0)
	{
		if (!big_multiply_power(&n, 2, 29, exponent))
			return false;
		scale = 0;
	}
	else
	{
		if (!big_multiply_power(&n, 5, 13, -exponent))
			return false;
		scale = -exponent;
	}
	length = big_digits(&n, digits);

	if (scale <= places)
	{
		/* exact at `places` decimals already: append zeros */
		memset(digits + length, '0', places - scale);
		length += places - scale;
		digits[length] = '\0';
	}
	else
	{
		/* drop the last scale - places digits, and round */
		int			dropped = scale - places;
		int			kept = length > dropped ? length - dropped : 0;
		bool		inexact = false;
		bool		increment;
		char		first = '0';	/* the first digit dropped */
		bool		beyond = false; /* any digit after it not zero */

		for (i = kept; i < length; i++)
			if (digits[i] != '0')
				inexact = true;
		/* the first dropped digit is a leading zero when fewer digits exist */
		if (length == kept + dropped)
		{
			first = digits[kept];
			for (i = kept + 1; i < length; i++)
				if (digits[i] != '0')
					beyond = true;
		}
		else
			beyond = inexact;
		if (kept == 0)
		{
			digits[0] = '0';
			kept = 1;
		}
		length = kept;
		digits[length] = '\0';
		switch (rounding)
		{
			case DP_ROUND_UP:
				increment = inexact;
				break;
			case DP_ROUND_NEAREST:
				increment = first > '5' || (first == '5' && beyond) ||
					(first == '5' && ((digits[length - 1] - '0') % 2) == 1);
				break;
			default:
				increment = false;
				break;
		}
		if (increment)
		{
			/* add one unit in the last place kept */
			for (i = length - 1; i >= 0 && digits[i] == '9'; i--)
				digits[i] = '0';
			if (i >= 0)
				digits[i]++;
			else
			{
				memmove(digits + 1, digits, length + 1);
				digits[0] = '1';
				length++;
			}
		}
	}

	/* digits / 10^places as text: integer part, point, decimals */
	integer_digits = length - places;
	end = length;
	while (end > (integer_digits > 0 ? integer_digits : 0) && digits[end - 1] == '0')
		end--;
	written = 0;
	if (integer_digits > 0)
	{
		/* no leading zeros but a lone "0" */
		int			start = 0;

		while (start < integer_digits - 1 && digits[start] == '0')
			start++;
		memcpy(out, digits + start, integer_digits - start);
		written = integer_digits - start;
	}
	else
		out[written++] = '0';
	if (end > (integer_digits > 0 ? integer_digits : 0))
	{
		out[written++] = '.';
		for (i = integer_digits; i < 0; i++)
			out[written++] = '0';
		i = integer_digits > 0 ? integer_digits : 0;
		memcpy(out + written, digits + i, end - i);
		written += end - i;
	}
	out[written] = '\0';
	return true;
}
