/*
 * dp_statistic_agg.c
 *		The dp_sum, dp_avg, dp_variance and dp_stddev aggregates and their
 *		_state forms.
 *
 * As for dp_count, the transition function is the only place noise is
 * drawn and the final functions only read the state.  The bounds and the
 * mechanism are fixed by the first row of a stream; a later row that
 * changes them is refused, because the noise already drawn was calibrated
 * for the first ones.
 */
#include "dp_stream.h"

#include <math.h>

#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dp_sum_transition_float8);
PG_FUNCTION_INFO_V1(dp_sum_transition_int8);
PG_FUNCTION_INFO_V1(dp_sum_transition_int4);
PG_FUNCTION_INFO_V1(dp_avg_transition);
PG_FUNCTION_INFO_V1(dp_variance_transition);
PG_FUNCTION_INFO_V1(dp_sum_final_float8);
PG_FUNCTION_INFO_V1(dp_sum_final_int8);
PG_FUNCTION_INFO_V1(dp_avg_final);
PG_FUNCTION_INFO_V1(dp_var_pop_final);
PG_FUNCTION_INFO_V1(dp_var_samp_final);
PG_FUNCTION_INFO_V1(dp_stddev_pop_final);
PG_FUNCTION_INFO_V1(dp_stddev_samp_final);
PG_FUNCTION_INFO_V1(dp_statistic_state_final);
PG_FUNCTION_INFO_V1(dp_summary_final);
PG_FUNCTION_INFO_V1(dp_rolling_sum_transition_float8);
PG_FUNCTION_INFO_V1(dp_rolling_sum_transition_int8);
PG_FUNCTION_INFO_V1(dp_rolling_sum_transition_int4);
PG_FUNCTION_INFO_V1(dp_rolling_avg_transition);
PG_FUNCTION_INFO_V1(dp_rolling_variance_transition);

/* dp_sum(value, lower, upper, mechanism); dp_rolling_sum(value, lower, upper, width, mechanism) */
static const DpMechanismArgument running_arguments = {4, -1};
static const DpMechanismArgument rolling_arguments = {5, 4};

/*
 * The transition state: the statistic, and what the aggregate needs beside
 * it for the checks of every row.
 */
typedef struct StatisticAggState
{
	dp_mechanism mechanism;		/* the first row's, with its partition (the
								 * statistic's spec lacks it) */
	DpKeyedStream *keyed;		/* the query's reference for a keyed stream */
	dp_statistic *statistic;
} StatisticAggState;

#define AGG_STATISTIC(fcinfo) (((StatisticAggState *) PG_GETARG_POINTER(0))->statistic)

/* Arguments: 0 state, 1 value, 2 lower, 3 upper, 4 mechanism. */
static double
bound_argument(FunctionCallInfo fcinfo, int argno, DpValueType type)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_stream %s bound must not be null", argno == 2 ? "lower" : "upper"),
				 errhint("Pass the range every value is clamped into, e.g. 0 and 20.")));
	switch (type)
	{
		case DP_VALUE_INT8:
			return (double) PG_GETARG_INT64(argno);
		case DP_VALUE_INT4:
			return (double) PG_GETARG_INT32(argno);
		case DP_VALUE_FLOAT8:
			return PG_GETARG_FLOAT8(argno);
	}
	return 0;
}

static Datum
statistic_transition(FunctionCallInfo fcinfo, dp_statistic_kind kind, DpValueType type,
					 DpMechanismArgument where)
{
	MemoryContext aggregate_context;
	StatisticAggState *state;
	dp_statistic *statistic;
	dp_statistic_spec spec;
	dp_status	status;
	bool		present;

	if (!AggCheckCallContext(fcinfo, &aggregate_context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_stream transition function called in a non-aggregate context")));
	if (PG_ARGISNULL(0))
		dp_check_stream_shape(fcinfo);

	memset(&spec, 0, sizeof(spec));
	spec.kind = kind;
	spec.domain = type == DP_VALUE_FLOAT8 ? DP_VALUES_REAL : DP_VALUES_INTEGER;
	spec.estimator = DP_ESTIMATOR_MIDPOINT;
	spec.lower = bound_argument(fcinfo, 2, type);
	spec.upper = bound_argument(fcinfo, 3, type);
	if (PG_ARGISNULL(where.mechanism))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_stream mechanism must not be null"),
				 errhint("Pass a mechanism such as dp_hybrid(epsilon => 1.0).")));
	if (PG_ARGISNULL(0))
	{
		dp_aggregate_mechanism(fcinfo, where, &spec.mechanism);
		statistic = dp_statistic_begin(aggregate_context, &spec, false);
		state = MemoryContextAlloc(aggregate_context, sizeof(StatisticAggState));
		state->mechanism = spec.mechanism;
		state->statistic = statistic;
		state->keyed = dp_keyed_stream_start(fcinfo, &spec.mechanism);
	}
	else
	{
		state = (StatisticAggState *) PG_GETARG_POINTER(0);
		statistic = state->statistic;
		/* NaN bounds never get here: the first row refused them */
		if (spec.lower != statistic->spec.lower || spec.upper != statistic->spec.upper)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dp_stream bounds changed within a stream"),
					 errdetail("The stream started with [%g, %g]; this row has [%g, %g].",
							   statistic->spec.lower, statistic->spec.upper,
							   spec.lower, spec.upper),
					 errhint("The noise is calibrated to the first bounds: pass constant bounds.")));
		if (!dp_aggregate_mechanism_matches(fcinfo, where, &state->mechanism))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("dp_stream mechanism changed within a stream"),
					 errdetail("Every row of one stream must use the same mechanism."),
					 errhint("Pass a constant mechanism, or a column that is constant within each partition.")));
	}

	present = !PG_ARGISNULL(1);
	if (type == DP_VALUE_FLOAT8)
	{
		double		value = present ? PG_GETARG_FLOAT8(1) : 0;
		uint64		bits;

		memcpy(&bits, &value, sizeof(bits));
		dp_keyed_stream_step(state->keyed, dp_statistic_steps(statistic),
							 present ? DP_KEYED_REAL : DP_KEYED_ABSENT, bits);
		status = dp_statistic_push(statistic, present, value, dp_backend_random());
	}
	else
	{
		int64		value = !present ? 0 :
			type == DP_VALUE_INT8 ? PG_GETARG_INT64(1) : PG_GETARG_INT32(1);

		dp_keyed_stream_step(state->keyed, dp_statistic_steps(statistic),
							 present ? DP_KEYED_INTEGER : DP_KEYED_ABSENT, (uint64) value);
		status = dp_statistic_push_integer(statistic, present, value, dp_backend_random());
	}
	if (status != DP_OK)
		dp_report_status(status, NULL, &statistic->spec.mechanism);
	PG_RETURN_POINTER(state);
}

Datum
dp_sum_transition_float8(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_SUM, DP_VALUE_FLOAT8, running_arguments);
}

Datum
dp_sum_transition_int8(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_SUM, DP_VALUE_INT8, running_arguments);
}

Datum
dp_sum_transition_int4(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_SUM, DP_VALUE_INT4, running_arguments);
}

Datum
dp_avg_transition(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_AVERAGE, DP_VALUE_FLOAT8, running_arguments);
}

Datum
dp_variance_transition(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_VARIANCE, DP_VALUE_FLOAT8, running_arguments);
}

Datum
dp_rolling_sum_transition_float8(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_SUM, DP_VALUE_FLOAT8, rolling_arguments);
}

Datum
dp_rolling_sum_transition_int8(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_SUM, DP_VALUE_INT8, rolling_arguments);
}

Datum
dp_rolling_sum_transition_int4(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_SUM, DP_VALUE_INT4, rolling_arguments);
}

Datum
dp_rolling_avg_transition(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_AVERAGE, DP_VALUE_FLOAT8, rolling_arguments);
}

Datum
dp_rolling_variance_transition(PG_FUNCTION_ARGS)
{
	return statistic_transition(fcinfo, DP_STATISTIC_VARIANCE, DP_VALUE_FLOAT8, rolling_arguments);
}

/* NULL for an empty input or an undefined estimate (noisy count too small). */
static Datum
final_estimate(FunctionCallInfo fcinfo, dp_estimate_kind what)
{
	double		estimate;

	if (PG_ARGISNULL(0))
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
	if (PG_ARGISNULL(0) ||
		!dp_statistic_estimate(AGG_STATISTIC(fcinfo), what, &estimate))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(estimate);
}

Datum
dp_sum_final_float8(PG_FUNCTION_ARGS)
{
	return final_estimate(fcinfo, DP_ESTIMATE_SUM);
}

Datum
dp_sum_final_int8(PG_FUNCTION_ARGS)
{
	int64		sum;

	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	if (!dp_statistic_integer_sum(AGG_STATISTIC(fcinfo), &sum))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("bigint out of range")));
	PG_RETURN_INT64(sum);
}

Datum
dp_avg_final(PG_FUNCTION_ARGS)
{
	return final_estimate(fcinfo, DP_ESTIMATE_AVERAGE);
}

Datum
dp_var_pop_final(PG_FUNCTION_ARGS)
{
	return final_estimate(fcinfo, DP_ESTIMATE_VAR_POP);
}

Datum
dp_var_samp_final(PG_FUNCTION_ARGS)
{
	return final_estimate(fcinfo, DP_ESTIMATE_VAR_SAMP);
}

Datum
dp_stddev_pop_final(PG_FUNCTION_ARGS)
{
	return final_estimate(fcinfo, DP_ESTIMATE_STDDEV_POP);
}

Datum
dp_stddev_samp_final(PG_FUNCTION_ARGS)
{
	return final_estimate(fcinfo, DP_ESTIMATE_STDDEV_SAMP);
}

Datum
dp_statistic_state_final(PG_FUNCTION_ARGS)
{
	dp_refuse_state_in_window(fcinfo);
	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	PG_RETURN_DATUM(dp_statistic_to_datum(AGG_STATISTIC(fcinfo)));
}

/* dp_summary(value, lower, upper, mechanism): releases only, window-safe */
Datum
dp_summary_final(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	PG_RETURN_DATUM(dp_summary_datum(fcinfo, AGG_STATISTIC(fcinfo)));
}
