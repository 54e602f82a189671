/*
 * dp_decayed_agg.c
 *		The dp_decayed_count and dp_decayed_sum aggregates: the exponentially
 *		decayed sum of src/core/mechanisms/dp_decayed.c, as window functions
 *		and ordered aggregates.
 *
 * Each takes gamma and a mechanism: an ordinary running mechanism, whose
 * epsilon, bound (max_per_step for a count), privacy unit, key and the
 * pan-private option carry over to a decayed one with that gamma (its
 * kind, horizon and block do not), or a dp_decayed mechanism itself, whose
 * gamma must then agree with the argument or the argument be NULL.  The
 * counter's release is in units of 2^-f (dp_decayed_fraction_bits) and
 * the final functions divide by 2^f: post-processing of the noisy nodes.
 * The final functions are read-only and draw nothing.  dp_decayed_count_state
 * returns the counter as a dp_counter state (plain aggregate only), which
 * dp_push continues and dp_decayed_estimate reads; dp_error_bound reads it
 * in the values' units (the kind describes its noise so).
 */
#include "dp_stream.h"

#include <math.h>

#include "dp_decayed.h"

PG_FUNCTION_INFO_V1(dp_decayed_count_transition_int8);
PG_FUNCTION_INFO_V1(dp_decayed_count_transition_int4);
PG_FUNCTION_INFO_V1(dp_decayed_count_transition_float8);
PG_FUNCTION_INFO_V1(dp_decayed_sum_transition);
PG_FUNCTION_INFO_V1(dp_decayed_final);
PG_FUNCTION_INFO_V1(dp_decayed_state_final);
PG_FUNCTION_INFO_V1(dp_decayed_estimate);

/* the widest range of a sum, in units of its granularity (as the statistics) */
#define DECAYED_SUM_SPAN_BITS 40

typedef struct DecayedAggState
{
	dp_mechanism given;			/* the argument, to refuse one that changes */
	double		gamma;			/* the gamma argument (NaN: NULL) */
	bool		sum;
	double		lower;			/* a sum's bounds and granularity */
	double		upper;
	double		granularity;
	DpKeyedStream *keyed;
	dp_counter *counter;
} DecayedAggState;

/*
 * The decayed mechanism of (gamma, mechanism): see the file's comment.
 * `bound` is a sum's step bound in units (0 for a count: the mechanism's).
 */
static dp_mechanism
decayed_mechanism(const char *function, const dp_mechanism *given, bool gamma_null, double gamma,
				  int64 bound)
{
	dp_mechanism decayed = *given;
	const char *field = NULL;
	dp_status	status;

	if (given->kind == DP_MECHANISM_DECAYED)
	{
		if (!gamma_null && gamma != given->shape)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s was given gamma %g and a dp_decayed mechanism with gamma %g",
							function, gamma, given->shape),
					 errhint("Leave gamma out (NULL) to use the mechanism's, or pass a running "
							 "mechanism such as dp_hybrid(1.0, 50).")));
	}
	else
	{
		if (gamma_null)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s needs gamma", function),
					 errhint("Pass gamma => 0.9 (the weight of a value one step old), or a "
							 "dp_decayed mechanism.")));
		decayed.kind = DP_MECHANISM_DECAYED;
		decayed.shape = gamma;
		decayed.horizon = 0;
		decayed.block = 0;
	}
	if (bound > 0)
	{
		decayed.max_per_step = bound;
		if (decayed.flags & DP_FLAG_PERSON)
			decayed.flags |= DP_FLAG_PER_OBSERVATION;
	}
	status = dp_mechanism_validate(&decayed, &field);
	if (status != DP_OK)
		dp_report_status(status, field, &decayed);
	return decayed;
}

static void
check_bounds(double lower, double upper)
{
	if (!isfinite(lower) || !isfinite(upper) || !(lower < upper) ||
		fabs(lower) > 0x1p53 || fabs(upper) > 0x1p53 || !(upper - lower >= 0x1p-256))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_decayed_sum needs finite bounds with lower < upper, each within 2^53 and at least 2^-256 apart"),
				 errdetail("lower was %g, upper %g.", lower, upper),
				 errhint("State the range every value is clamped into, e.g. dp_decayed_sum(kwh, 0, 20, 0.9, m).")));
}

/*
 * A sum's granularity g = 2^e, the least e with (upper - lower) / g <=
 * 2^40, and its bound in units, ceil((upper - lower) / g).
 */
static double
sum_granularity(double lower, double upper, int64 *units)
{
	int			exponent;
	double		range = upper - lower;
	double		g;

	(void) frexp(range, &exponent);	/* range < 2^exponent */
	g = ldexp(1.0, exponent - DECAYED_SUM_SPAN_BITS);
	*units = (int64) ceil(range / g);
	if (*units < 1)
		*units = 1;
	return g;
}

static DecayedAggState *
start_state(FunctionCallInfo fcinfo, MemoryContext context, bool sum, int gamma_arg,
			int mechanism_arg)
{
	const char *function = sum ? "dp_decayed_sum" : "dp_decayed_count";
	DecayedAggState *state;
	const dp_mechanism *given;
	dp_mechanism decayed;
	int64		bound = 0;
	const char *field = NULL;
	dp_status	status;

	dp_check_stream_shape(fcinfo);
	if (PG_ARGISNULL(mechanism_arg))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_stream mechanism must not be null"),
				 errhint("Pass a mechanism such as dp_hybrid(epsilon => 1.0, max_per_step => 50).")));
	given = dp_mechanism_from_datum(PG_GETARG_DATUM(mechanism_arg));

	state = MemoryContextAllocZero(context, sizeof(DecayedAggState));
	state->given = *given;
	state->sum = sum;
	state->gamma = PG_ARGISNULL(gamma_arg) ? NAN : PG_GETARG_FLOAT8(gamma_arg);
	if (sum)
	{
		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("dp_decayed_sum bounds must not be null")));
		state->lower = PG_GETARG_FLOAT8(2);
		state->upper = PG_GETARG_FLOAT8(3);
		check_bounds(state->lower, state->upper);
		/*
		 * A keyed sum would draw under the key's "count" computation, whose
		 * noise key does not bind the bounds: the same data under other
		 * bounds of the same width (the same mechanism) would share every
		 * opening term, and a second release of it would be charged nowhere.
		 * Keyed decayed sums need a computation of their own; until then,
		 * refused.
		 */
		if (given->flags & DP_FLAG_KEYED)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("dp_decayed_sum does not take a keyed mechanism"),
					 errdetail("A key is registered for one computation; a decayed sum's bounds "
							   "are not part of it, so releases of the same data under other "
							   "bounds would share noise."),
					 errhint("Use a keyed dp_decayed_count, or an unkeyed dp_decayed_sum whose "
							 "releases are stored once.")));
		state->granularity = sum_granularity(state->lower, state->upper, &bound);
	}
	decayed = decayed_mechanism(function, given, PG_ARGISNULL(gamma_arg), state->gamma, bound);
	dp_check_rolling_order(fcinfo, &decayed);
	state->counter = MemoryContextAlloc(context, dp_counter_size(&decayed));
	status = dp_counter_begin(state->counter, &decayed, false, &field);
	if (status != DP_OK)
		dp_report_status(status, field, &decayed);
	state->keyed = dp_keyed_stream_start(fcinfo, &decayed);
	return state;
}

static DecayedAggState *
next_state(FunctionCallInfo fcinfo, bool sum, int gamma_arg, int mechanism_arg)
{
	MemoryContext context;
	DecayedAggState *state;

	if (!AggCheckCallContext(fcinfo, &context))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_decayed transition function called in a non-aggregate context")));
	if (PG_ARGISNULL(0))
		return start_state(fcinfo, context, sum, gamma_arg, mechanism_arg);
	state = (DecayedAggState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(mechanism_arg) ||
		!dp_mechanism_datum_matches(fcinfo, PG_GETARG_DATUM(mechanism_arg), &state->given) ||
		PG_ARGISNULL(gamma_arg) != isnan(state->gamma) ||
		(!PG_ARGISNULL(gamma_arg) && PG_GETARG_FLOAT8(gamma_arg) != state->gamma) ||
		(sum && (PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_GETARG_FLOAT8(2) != state->lower ||
				 PG_GETARG_FLOAT8(3) != state->upper)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_stream mechanism changed within a stream"),
				 errdetail("Every row of one stream must use the same mechanism, gamma and bounds."),
				 errhint("Pass constants, or columns that are constant within each partition.")));
	return state;
}

static void
push(DecayedAggState *state, int64 value)
{
	dp_status	status;

	dp_keyed_stream_step(state->keyed, state->counter->steps, DP_KEYED_COUNT, (uint64) value);
	status = dp_counter_push(state->counter, value, dp_backend_random());
	if (status != DP_OK)
		dp_report_status(status, NULL, &state->counter->mechanism);
}

static Datum
count_transition(FunctionCallInfo fcinfo, DpValueType type)
{
	DecayedAggState *state = next_state(fcinfo, false, 2, 3);

	push(state, dp_step_value(fcinfo, 1, type, state->counter));
	PG_RETURN_POINTER(state);
}

Datum
dp_decayed_count_transition_int8(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_INT8);
}

Datum
dp_decayed_count_transition_int4(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_INT4);
}

Datum
dp_decayed_count_transition_float8(PG_FUNCTION_ARGS)
{
	return count_transition(fcinfo, DP_VALUE_FLOAT8);
}

/*
 * dp_decayed_sum(value, lower, upper, gamma, mechanism): the value (NULL
 * and NaN as 0) clamped into [lower, upper], then (value - lower) / g
 * rounded half to even and clamped into [0, N]: one step moves the counter
 * by at most N units.
 */
Datum
dp_decayed_sum_transition(PG_FUNCTION_ARGS)
{
	DecayedAggState *state = next_state(fcinfo, true, 4, 5);
	double		value = PG_ARGISNULL(1) ? 0 : PG_GETARG_FLOAT8(1);
	double		units;

	if (isnan(value))
		value = 0;
	value = value < state->lower ? state->lower : (value > state->upper ? state->upper : value);
	units = nearbyint((value - state->lower) / state->granularity);
	if (units < 0)
		units = 0;
	if (units > (double) state->counter->mechanism.max_per_step)
		units = (double) state->counter->mechanism.max_per_step;
	push(state, (int64) units);
	PG_RETURN_POINTER(state);
}

/*
 * The release divided by 2^f; a sum's times g, plus lower times
 * sum_{s <= t} gamma^(t - s) (public: the offset of every step).
 */
Datum
dp_decayed_final(PG_FUNCTION_ARGS)
{
	DecayedAggState *state;
	const dp_counter *counter;
	double		release;

	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	state = (DecayedAggState *) PG_GETARG_POINTER(0);
	counter = state->counter;
	release = ldexp((double) dp_counter_release_wide(counter),
					-dp_decayed_fraction_bits(&counter->mechanism));
	if (state->sum)
	{
		double		gamma = counter->mechanism.shape;
		double		offset = (1 - pow(gamma, (double) counter->steps)) / (1 - gamma);

		release = release * state->granularity + state->lower * offset;
	}
	PG_RETURN_FLOAT8(release);
}

/* dp_decayed_count_state: the decayed counter as a state (refused in a window) */
Datum
dp_decayed_state_final(PG_FUNCTION_ARGS)
{
	DecayedAggState *state;

	dp_refuse_state_in_window(fcinfo);
	if (PG_ARGISNULL(0))
	{
		dp_check_stream_shape(fcinfo);	/* no row reached the transition */
		PG_RETURN_NULL();
	}
	state = (DecayedAggState *) PG_GETARG_POINTER(0);
	PG_RETURN_DATUM(dp_counter_to_datum(state->counter));
}

/* dp_decayed_estimate(state): a decayed count's release, in the values' units */
Datum
dp_decayed_estimate(PG_FUNCTION_ARGS)
{
	const dp_counter *counter = dp_counter_from_datum(PG_GETARG_DATUM(0));

	if (counter->mechanism.kind != DP_MECHANISM_DECAYED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("dp_decayed_estimate takes the state of a decayed count"),
				 errhint("Read a running count's state with dp_estimate(state).")));
	PG_RETURN_FLOAT8(ldexp((double) dp_counter_release_wide(counter),
						   -dp_decayed_fraction_bits(&counter->mechanism)));
}
