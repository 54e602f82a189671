/*
 * dp_int128.c
 *		Text conversion and helpers for 128-bit integers.
 */
#include "dp_int128.h"

#include <stdbool.h>

int
dp_int128_to_text(dp_int128 value, char *buffer)
{
	char		digits[DP_INT128_TEXT_BYTES];
	int			count = 0;
	int			length = 0;
	bool		negative = value < 0;
	/* negate in unsigned arithmetic so that DP_INT128_MIN does not overflow */
	dp_uint128	magnitude = negative ? -(dp_uint128) value : (dp_uint128) value;

	do
	{
		digits[count++] = (char) ('0' + (int) (magnitude % 10));
		magnitude /= 10;
	} while (magnitude != 0);

	if (negative)
		buffer[length++] = '-';
	while (count > 0)
		buffer[length++] = digits[--count];
	buffer[length] = '\0';
	return length;
}

int
dp_int128_parse(const char **cursor, dp_int128 *value)
{
	const char *p = *cursor;
	bool		negative = false;
	dp_uint128	magnitude = 0;
	dp_uint128	limit;
	int			digits = 0;

	if (*p == '-' || *p == '+')
	{
		negative = (*p == '-');
		p++;
	}
	limit = negative ? (dp_uint128) DP_INT128_MAX + 1 : (dp_uint128) DP_INT128_MAX;

	while (*p >= '0' && *p <= '9')
	{
		unsigned	digit = (unsigned) (*p - '0');

		if (magnitude > (limit - digit) / 10)
			return -1;
		magnitude = magnitude * 10 + digit;
		digits++;
		p++;
	}
	if (digits == 0)
		return -1;

	*value = negative ? (dp_int128) (-magnitude) : (dp_int128) magnitude;
	*cursor = p;
	return 0;
}

int64_t
dp_int128_to_int64_saturated(dp_int128 value)
{
	if (value > INT64_MAX)
		return INT64_MAX;
	if (value < INT64_MIN)
		return INT64_MIN;
	return (int64_t) value;
}

int
dp_uint128_bit_length(dp_uint128 value)
{
	uint64_t	high = (uint64_t) (value >> 64);
	uint64_t	low = (uint64_t) value;

	if (high != 0)
		return 128 - __builtin_clzll(high);
	if (low != 0)
		return 64 - __builtin_clzll(low);
	return 0;
}
