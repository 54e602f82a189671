/*
 * dp_ledger.c
 *		The amounts the privacy-budget ledger (dp_stream.budgets and
 *		dp_stream.charges, numeric columns) records for an epsilon given as
 *		a double.
 *
 * A charge is recorded rounded up to a multiple of 10^-12: the ledger never
 * holds less than a mechanism spends, which is its epsilon as a double, not
 * the decimal that was typed (0.1 is 0.1000000000000000055511151231257827,
 * charged 0.100000000001).  A cast (epsilon::numeric) keeps 15 significant
 * digits and rounds to nearest, so it recorded 0.1 there, and
 * 0.333333333333333 for 0.33333333333333331483.  dp_decimal_round computes
 * the double's exact decimal value, so the only rounding is the one asked
 * for.  A budget's total is a limit someone typed, not a loss: rounded to
 * nearest, it is that decimal again: a decimal d of at most 12 places and
 * 15 significant digits is below 1000, so its double is within
 * 2^-53 * 1000 < 10^-13 of it, and d is the nearest multiple of 10^-12.
 *
 * Why 10^-12: numeric holds it exactly; it is about the smallest epsilon a
 * mechanism accepts (2^-40, about 9.1e-13, charged as 10^-12), so no charge
 * costs more than 1.1 times its epsilon, while over a million charges a
 * ledger records at most 10^-6 more than was spent.  A charge below 10^-12 (1e-320 say) costs one unit
 * instead of printing hundreds of digits.
 */
#include "dp_stream.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/numeric.h"

#include "dp_decimal.h"

/* The ledger's granularity: 10^-DP_LEDGER_PLACES. */
#define DP_LEDGER_PLACES 12

PG_FUNCTION_INFO_V1(dp_ledger_amount);

/*
 * dp_stream.ledger_amount(epsilon float8, rounding text) RETURNS numeric:
 * rounding is 'up', 'down' or 'nearest'.
 */
Datum
dp_ledger_amount(PG_FUNCTION_ARGS)
{
	float8		epsilon = PG_GETARG_FLOAT8(0);
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	dp_rounding rounding;
	char		text[DP_DECIMAL_TEXT_BYTES];

	if (strcmp(name, "up") == 0)
		rounding = DP_ROUND_UP;
	else if (strcmp(name, "down") == 0)
		rounding = DP_ROUND_DOWN;
	else if (strcmp(name, "nearest") == 0)
		rounding = DP_ROUND_NEAREST;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown rounding \"%s\"", name),
				 errhint("Use up, down or nearest.")));
	if (!(epsilon > 0) || isinf(epsilon))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("an epsilon in the ledger must be positive and finite"),
				 errdetail("epsilon was %g.", epsilon)));
	if (!dp_decimal_round(epsilon, DP_LEDGER_PLACES, rounding, text, sizeof(text)))
		elog(ERROR, "could not convert epsilon %g to a decimal", epsilon);
	PG_RETURN_DATUM(DirectFunctionCall3(numeric_in, CStringGetDatum(text),
										ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}
