/*
 * dp_randomized_response_sql.c
 *		SQL functions of randomized response: the per-row randomizer and the
 *		aggregate that debiases a column of randomized bits.
 */
#include "dp_stream.h"

#include "access/htup_details.h"
#include "funcapi.h"

#include "dp_randomized_response.h"

PG_FUNCTION_INFO_V1(dp_randomized_response_sql);
PG_FUNCTION_INFO_V1(dp_rr_count_transition);
PG_FUNCTION_INFO_V1(dp_rr_count_final);

static double
used_epsilon(double epsilon)
{
	double		used;

	if (dp_rr_epsilon(epsilon, &used) != DP_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon must be between %s and %s", dp_limit_text(DP_EPSILON_MIN),
						dp_limit_text(DP_EPSILON_MAX)),
				 errdetail("epsilon was %g.", epsilon)));
	return used;
}

/* dp_randomized_response(value boolean, epsilon float8) RETURNS boolean */
Datum
dp_randomized_response_sql(PG_FUNCTION_ARGS)
{
	bool		value = PG_GETARG_BOOL(0);
	double		epsilon = PG_GETARG_FLOAT8(1);

	used_epsilon(epsilon);
	PG_RETURN_BOOL(dp_randomized_response(dp_backend_random(), value ? 1 : 0, epsilon) == 1);
}

typedef struct RrCountState
{
	int64		reports;
	int64		ones;
	double		epsilon;
} RrCountState;

/* dp_rr_count(randomized boolean, epsilon float8): NULL rows are not reports */
Datum
dp_rr_count_transition(PG_FUNCTION_ARGS)
{
	MemoryContext aggregate_context;
	RrCountState *state;

	if (!AggCheckCallContext(fcinfo, &aggregate_context))
		elog(ERROR, "dp_rr_count_transition called in non-aggregate context");
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("epsilon must not be NULL")));

	if (PG_ARGISNULL(0))
	{
		state = MemoryContextAllocZero(aggregate_context, sizeof(RrCountState));
		state->epsilon = PG_GETARG_FLOAT8(2);
		used_epsilon(state->epsilon);
	}
	else
	{
		state = (RrCountState *) PG_GETARG_POINTER(0);
		if (state->epsilon != PG_GETARG_FLOAT8(2))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("epsilon must be the same for every row of one aggregate"),
					 errdetail("It changed from %g to %g.", state->epsilon,
							   PG_GETARG_FLOAT8(2))));
	}
	if (!PG_ARGISNULL(1))
	{
		state->reports++;
		state->ones += PG_GETARG_BOOL(1) ? 1 : 0;
	}
	PG_RETURN_POINTER(state);
}

/* Returns dp_rr_estimate (estimate, standard_deviation, reports); read-only. */
Datum
dp_rr_count_final(PG_FUNCTION_ARGS)
{
	RrCountState *state;
	TupleDesc	descriptor;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	double		estimate, deviation;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (RrCountState *) PG_GETARG_POINTER(0);
	if (get_call_result_type(fcinfo, NULL, &descriptor) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "dp_rr_count_final must return a composite type");
	descriptor = BlessTupleDesc(descriptor);

	dp_rr_estimate(state->reports, state->ones, used_epsilon(state->epsilon),
				   &estimate, &deviation);
	values[0] = Float8GetDatum(estimate);
	values[1] = Float8GetDatum(deviation);
	values[2] = Int64GetDatum(state->reports);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(descriptor, values, nulls)));
}
