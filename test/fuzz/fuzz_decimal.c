/*
 * fuzz_decimal.c
 *		dp_decimal_round (src/core/codec/dp_decimal.c), the amounts of the
 *		privacy-budget ledger, on any double, number of places and rounding.
 *		Input: 8 bytes of a double (little-endian bits), then a byte of
 *		places and a byte of rounding (missing bytes are 0).  A refusal must
 *		be exactly the documented one (negative, NaN, infinite, places or
 *		rounding out of range); an accepted value must be what glibc's
 *		printf prints in the matching rounding mode, which rounds the exact
 *		value independently of the code under test.
 */
#include "fuzz_common.h"

#include <fenv.h>

#include "dp_decimal.h"

int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		bytes[10] = {0};
	uint64_t	bits = 0;
	double		x;
	int			places;
	int			rounding;
	char		got[DP_DECIMAL_TEXT_BYTES];
	char		want[400];
	bool		accepted;
	bool		valid;
	int			saved;
	size_t		end;
	int			i;

	memcpy(bytes, data, size < sizeof(bytes) ? size : sizeof(bytes));
	for (i = 7; i >= 0; i--)
		bits = (bits << 8) | bytes[i];
	memcpy(&x, &bits, sizeof(x));
	/* a few places beyond the maximum and roundings beyond the three */
	places = bytes[8] % (DP_DECIMAL_MAX_PLACES + 4) - 1;
	rounding = bytes[9] % 4;

	accepted = dp_decimal_round(x, places, (dp_rounding) rounding, got, sizeof(got));
	valid = x >= 0.0 && isfinite(x) && places >= 0 && places <= DP_DECIMAL_MAX_PLACES &&
		rounding <= DP_ROUND_NEAREST;
	FUZZ_CHECK(accepted == valid);
	if (!accepted)
		return 0;
	FUZZ_CHECK(strlen(got) < sizeof(got));

	saved = fegetround();
	fesetround(rounding == DP_ROUND_UP ? FE_UPWARD :
			   rounding == DP_ROUND_DOWN ? FE_DOWNWARD : FE_TONEAREST);
	snprintf(want, sizeof(want), "%.*f", places, x);
	fesetround(saved);
	/* printf's trailing zeros and point away, as dp_decimal_round writes it */
	if (strchr(want, '.') != NULL)
	{
		end = strlen(want);
		while (want[end - 1] == '0')
			end--;
		if (want[end - 1] == '.')
			end--;
		want[end] = '\0';
	}
	/* printf writes "-0" for -0.0 */
	if (strcmp(want, "-0") == 0)
		strcpy(want, "0");
	FUZZ_CHECK(strcmp(got, want) == 0);
	return 0;
}
