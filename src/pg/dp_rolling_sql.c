/*
 * dp_rolling_sql.c
 *		dp_rolling_of(mechanism, width): the rolling mechanism
 *		(src/core/mechanisms/dp_rolling.c) that the rolling aggregates
 *		(dp_rolling_count, dp_rolling_sum, ...) run for a running mechanism,
 *		for a stored state or a managed stream to use the same one.
 */
#include "dp_stream.h"

PG_FUNCTION_INFO_V1(dp_rolling_of);

Datum
dp_rolling_of(PG_FUNCTION_ARGS)
{
	dp_mechanism rolling;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	dp_mechanism_rolling_of(dp_mechanism_from_datum(PG_GETARG_DATUM(0)), PG_GETARG_INT64(1),
							&rolling);
	dp_mechanism_check(&rolling);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&rolling));
}
