/*
 * dp_decimal.h
 *		A double's exact decimal value, rounded to a fixed number of decimal
 *		places in a chosen direction: what the privacy-budget ledger records
 *		for an epsilon (charges rounded up, totals rounded down).
 */
#ifndef DP_DECIMAL_H
#define DP_DECIMAL_H

#include <stdbool.h>
#include <stddef.h>

/* At most this many decimal places. */
#define DP_DECIMAL_MAX_PLACES 20
/*
 * Room for any result: 309 integer digits (DBL_MAX < 10^309), the point,
 * DP_DECIMAL_MAX_PLACES decimals and the terminating zero, with a margin.
 */
#define DP_DECIMAL_TEXT_BYTES 336

typedef enum dp_rounding
{
	DP_ROUND_DOWN = 0,			/* the greatest multiple <= x */
	DP_ROUND_UP,				/* the least multiple >= x */
	DP_ROUND_NEAREST			/* the nearest; an exact tie to the even one */
} dp_rounding;

/*
 * Writes x rounded to a multiple of 10^-places as plain decimal text without
 * an exponent or trailing zeros ("0.1", "3", "0.000000000001").  x must be
 * finite and >= 0, places in [0, DP_DECIMAL_MAX_PLACES] and size at least
 * DP_DECIMAL_TEXT_BYTES; returns false, writing nothing, otherwise.
 *
 * The result is exact: the only rounding is the one asked for.
 */
extern bool dp_decimal_round(double x, int places, dp_rounding rounding, char *out, size_t size);

#endif							/* DP_DECIMAL_H */
