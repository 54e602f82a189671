/*
 * dp_count_agg.c
 *		The dp_count and dp_count_state aggregates.
 *
 * The transition function pushes one time step per row and is the only place
 * noise is drawn.  The final functions are read-only: in window mode
 * PostgreSQL calls them once per row, or once per group of peer rows, on the
 * same state, and they must return the same release each time.
 */
#include "dp_stream.h"

#include "nodes/execnodes.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dp_count_transition_int8);
PG_FUNCTION_INFO_V1(dp_count_transition_int4);
PG_FUNCTION_INFO_V1(dp_count_transition_float8);
PG_FUNCTION_INFO_V1(dp_count_final);
PG_FUNCTION_INFO_V1(dp_count_state_final);
PG_FUNCTION_INFO_V1(dp_rolling_count_transition_int8);
PG_FUNCTION_INFO_V1(dp_rolling_count_transition_int4);
PG_FUNCTION_INFO_V1(dp_rolling_count_transition_float8);

/* dp_count(value, mechanism); dp_rolling_count(value, width, mechanism) */
static const DpMechanismArgument running_arguments = {2, -1};
static const DpMechanismArgument rolling_arguments = {3, 2};

typedef struct CountAggState
{
	dp_mechanism mechanism;		/* to refuse a mechanism that changes mid-stream;
								 * with its partition, which the counter lacks */
	DpKeyedStream *keyed;		/* the query's reference for a keyed stream */
	dp_counter *counter;
} CountAggState;

/*
 * A state must never be a window function's result: the state at row t and
 * the one at row t + 1 hold the same open accumulators, one step apart, so
 * their difference is the raw value of step t + 1 (and the same for every
 * row).  Checked in the state aggregates' final functions, which PostgreSQL
 * calls for the first row before it returns anything.
 */
void
dp_refuse_state_in_window(FunctionCallInfo fcinfo)
{
	if (AggCheckCallContext(fcinfo, NULL) == AGG_CONTEXT_WINDOW)
		ereport(ERROR,
				(errcode(ERRCODE_WINDOWING_ERROR),
				 errmsg("dp_stream state aggregates cannot be used as window functions"),
				 errdetail("The states of consecutive rows differ by exactly the raw value of "
						   "a time step."),
				 errhint("For a release at every row use dp_count, dp_sum, dp_avg, dp_variance "
						 "or dp_summary OVER (...); to store a state, call the _state "
						 "aggregate as a plain aggregate, e.g. dp_count_state(n, m ORDER BY day).")));
}

static CountAggState *
start_state(FunctionCallInfo fcinfo, MemoryContext aggregate_context, DpMechanismArgument where)
{
	dp_mechanism call_mechanism;
	const dp_mechanism *mechanism = &call_mechanism;
	CountAggState *state;
	const char *field = NULL;
	dp_status	status;

	dp_check_stream_shape(fcinfo);
	dp_aggregate_mechanism(fcinfo, where, &call_mechanism);
	dp_refuse_decayed_mechanism(mechanism, "dp_count");

	state = MemoryContextAlloc(aggregate_context, sizeof(CountAggState));
	state->mechanism = *mechanism;
	state->counter = MemoryContextAlloc(aggregate_context, dp_counter_size(mechanism));
	status = dp_counter_begin(state->counter, mechanism, false, &field);
	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
	state->keyed = dp_keyed_stream_start(fcinfo, mechanism);
	return state;
}

static Datum
count_transition(FunctionCallInfo fcinfo, DpValueType value_type, DpMechanismArgument where)
{
	MemoryContext aggregate_context;
	CountAggState *state;
	dp_status	status;
	int64		value;

	if (!AggCheckCallContext(fcinfo, &aggregate_context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_count transition function called in a non-aggregate context")));

	if (PG_ARGISNULL(0))
		state = start_state(fcinfo, aggregate_context, where);
	else
	{
		state = (CountAggState *) PG_GETARG_POINTER(0);
		if (!dp_aggregate_mechanism_matches(fcinfo, where, &state->mechanism))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dp_stream mechanism changed within a stream"),
					 errdetail("Every row of one stream must use the same mechanism."),
					 errhint("Pass a constant mechanism, or a column that is constant within each partition.")));
	}

	value = dp_step_value(fcinfo, 1, value_type, state->counter);
	dp_keyed_stream_step(state->keyed, state->counter->steps, DP_KEYED_COUNT, (uint64) value);
	status = dp_counter_push(state->counter, value, dp_backend_random());
	if (status != DP_OK)
		dp_report_status(status, NULL, &state->mechanism);
	PG_RETURN_POINTER(state);
}

Datum
dp_count_transition_int8(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_INT8, running_arguments);
}

Datum
dp_count_transition_int4(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_INT4, running_arguments);
}

Datum
dp_count_transition_float8(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_FLOAT8, running_arguments);
}

Datum
dp_rolling_count_transition_int8(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_INT8, rolling_arguments);
}

Datum
dp_rolling_count_transition_int4(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_INT4, rolling_arguments);
}

Datum
dp_rolling_count_transition_float8(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_FLOAT8, rolling_arguments);
}

Datum
dp_count_final(PG_FUNCTION_ARGS)
{
	CountAggState *state;

	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	state = (CountAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_INT64(dp_counter_release(state->counter));
}

Datum
dp_count_state_final(PG_FUNCTION_ARGS)
{
	CountAggState *state;

	dp_refuse_state_in_window(fcinfo);
	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	state = (CountAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_DATUM(dp_counter_to_datum(state->counter));
}
