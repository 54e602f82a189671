/*
 * dp_mechanism_planning.c
 *		The functions that answer from a mechanism alone, before any data:
 *		error bounds and standard deviations, the epsilon for a target
 *		error, the privacy loss by age, zCDP conversions and accessors.
 */
#include "dp_stream.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "miscadmin.h"

#include <sodium.h>

#include "dp_delayed_tree.h"
#include "dp_gaussian.h"
#include "dp_planning.h"

PG_FUNCTION_INFO_V1(dp_mechanism_error_bound_sql);
PG_FUNCTION_INFO_V1(dp_mechanism_epsilon);
PG_FUNCTION_INFO_V1(dp_mechanism_error_sd);
PG_FUNCTION_INFO_V1(dp_mechanism_epsilon_for);
PG_FUNCTION_INFO_V1(dp_mechanism_error_bound_max);

/* Errors of the functions that answer from a mechanism alone. */
static void
report_planning_status(dp_status status, const char *field, const dp_mechanism *mechanism,
					   int64 steps)
{
	if (status == DP_ERROR_HORIZON_EXCEEDED && field && strcmp(field, "noise_scales") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_error_bound_max handles releases of at most %d noise scales",
						DP_PLANNING_NOISE_SCALES_MAX),
				 errdetail("A release of this mechanism within the first " INT64_FORMAT
						   " steps has more.", steps),
				 errhint("Use dp_error_bound at the steps you need, or fewer steps.")));
	if (status == DP_ERROR_HORIZON_EXCEEDED && mechanism->horizon == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steps must be between 0 and %s", dp_limit_text_int64(DP_HORIZON_MAX)),
				 errdetail("steps was " INT64_FORMAT ".", steps)));
	if (status == DP_ERROR_HORIZON_EXCEEDED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steps must be between 0 and the horizon"),
				 errdetail("steps was " INT64_FORMAT ", horizon " INT64_FORMAT ".",
						   steps, mechanism->horizon)));
	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
}

/* dp_error_bound(mechanism, steps, confidence): public, draws no noise */
Datum
dp_mechanism_error_bound_sql(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		steps = PG_GETARG_INT64(1);
	double		confidence = PG_GETARG_FLOAT8(2);
	double		bound;
	const char *field = NULL;
	dp_status	status;

	dp_check_confidence(confidence);
	status = dp_mechanism_error_bound(mechanism, steps, confidence, &bound, &field);
	report_planning_status(status, field, mechanism, steps);
	PG_RETURN_FLOAT8(bound);
}

/* dp_error_sd(mechanism, steps): the standard deviation of the error at steps */
Datum
dp_mechanism_error_sd(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		steps = PG_GETARG_INT64(1);
	double		sd;
	const char *field = NULL;

	report_planning_status(dp_planning_error_sd(mechanism, steps, &sd, &field), field,
						   mechanism, steps);
	PG_RETURN_FLOAT8(sd);
}

/*
 * dp_epsilon_for(mechanism, half_width, steps, confidence): the smallest
 * epsilon whose error bound at steps is at most half_width
 */
Datum
dp_mechanism_epsilon_for(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	double		half_width = PG_GETARG_FLOAT8(1);
	int64		steps = PG_GETARG_INT64(2);
	double		confidence = PG_GETARG_FLOAT8(3);
	double		epsilon;
	const char *field = NULL;
	dp_status	status;

	if (mechanism->flags & DP_FLAG_ZCDP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_epsilon_for does not apply to a rho-zCDP mechanism"),
				 errhint("Compare dp_error_bound at a few values of rho instead.")));
	dp_check_confidence(confidence);
	if (!(half_width > 0) || isinf(half_width))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("half_width must be positive and finite")));
	status = dp_planning_epsilon_for(mechanism, steps, confidence, half_width, &epsilon, &field);
	if (status == DP_ERROR_EPSILON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no epsilon up to %g gives an error bound of %g at step " INT64_FORMAT,
						DP_EPSILON_MAX, half_width, steps),
				 errhint("Even the smallest noise is wider: allow a wider error, a lower "
						 "confidence, a smaller max_per_step or another mechanism.")));
	report_planning_status(status, field, mechanism, steps);
	PG_RETURN_FLOAT8(epsilon);
}

static void
check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * dp_error_bound_max(mechanism, steps, confidence): the widest bound over
 * steps 1..steps, a band that never narrows
 */
Datum
dp_mechanism_error_bound_max(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		steps = PG_GETARG_INT64(1);
	double		confidence = PG_GETARG_FLOAT8(2);
	double		bound;
	const char *field = NULL;
	dp_status	status;

	dp_check_confidence(confidence);
	if (steps > DP_PLANNING_SCAN_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_error_bound_max scans at most %d steps", DP_PLANNING_SCAN_MAX),
				 errdetail("steps was " INT64_FORMAT ".", steps)));
	status = dp_planning_max_error_bound(mechanism, steps, confidence, check_interrupts,
										 &bound, &field);
	report_planning_status(status, field, mechanism, steps);
	PG_RETURN_FLOAT8(bound);
}

/* dp_epsilon(mechanism): the epsilon a stream of this mechanism spends */
Datum
dp_mechanism_epsilon(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	/* rho is not an epsilon: a ledger in epsilon must not take it for one */
	if (mechanism->flags & DP_FLAG_ZCDP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a rho-zCDP mechanism has no pure epsilon"),
				 errhint("dp_rho(mechanism) gives rho; dp_zcdp_epsilon(mechanism, delta) "
						 "gives the epsilon of the (epsilon, delta)-DP it implies.")));
	/* an expiring mechanism's epsilon is its loss at age 0; a ledger needs the loss at any age */
	PG_RETURN_FLOAT8(dp_delayed_tree_privacy_loss(mechanism, PG_INT64_MAX));
}

/*
 * dp_privacy_loss(mechanism, age): the guaranteed loss of a privacy unit
 * whose oldest data is `age` steps old, by all releases up to now
 * (dp_delayed_tree_privacy_loss); epsilon at every age for a mechanism
 * without expiration.
 */
PG_FUNCTION_INFO_V1(dp_privacy_loss_sql);

Datum
dp_privacy_loss_sql(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		age = PG_GETARG_INT64(1);

	if (mechanism->flags & DP_FLAG_ZCDP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a rho-zCDP mechanism has no pure epsilon"),
				 errhint("dp_zcdp_epsilon(mechanism, delta) gives the epsilon of the "
						 "(epsilon, delta)-DP it implies.")));
	if (age < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("age must be at least 0"),
				 errdetail("age was " INT64_FORMAT ".", age),
				 errhint("The age of an item is how many steps ago it was released: 0 for the "
						 "latest step.")));
	PG_RETURN_FLOAT8(dp_delayed_tree_privacy_loss(mechanism, age));
}

/*
 * dp_zcdp_epsilon(rho, delta): the epsilon of the (epsilon, delta)-DP that
 * rho-zCDP implies (the conversion of Canonne, Kamath and Steinke; never
 * below the exact infimum, never above rho + 2 sqrt(rho log(1/delta))).
 */
PG_FUNCTION_INFO_V1(dp_zcdp_epsilon_sql);

Datum
dp_zcdp_epsilon_sql(PG_FUNCTION_ARGS)
{
	double		rho = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);

	if (!(rho > 0) || isinf(rho))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rho must be positive and finite")));
	if (!(delta > 0 && delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be between 0 and 1, exclusive"),
				 errhint("Take delta well below one over the number of people in the data, e.g. 1e-9.")));
	PG_RETURN_FLOAT8(dp_zcdp_epsilon(rho, delta));
}

/* dp_rho(mechanism): rho of a zCDP mechanism, else NULL */
PG_FUNCTION_INFO_V1(dp_mechanism_rho);

Datum
dp_mechanism_rho(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	if (!(mechanism->flags & DP_FLAG_ZCDP))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(mechanism->epsilon);
}

/* dp_key_of(mechanism): the key of a keyed mechanism, else NULL */
PG_FUNCTION_INFO_V1(dp_mechanism_key);

Datum
dp_mechanism_key(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	if (!(mechanism->flags & DP_FLAG_KEYED))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(mechanism->key));
}

