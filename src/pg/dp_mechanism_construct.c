/*
 * dp_mechanism_construct.c
 *		The constructor of dp_mechanism values: one C entry point,
 *		dp_mechanism_construct, that every constructor's SQL declaration
 *		names (dp_binary, dp_kary, ..., dp_mechanism_of); it finds the kind
 *		from the name of the function called and its arguments from the
 *		function's argument names.  0.14.0's argument order and the warning
 *		for calls whose meaning it changed; the definitions before 0.14.0.
 */
#include "dp_stream.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "catalog/pg_proc.h"
#include "funcapi.h"
#include "miscadmin.h"

#include <sodium.h>

#include "dp_delayed_tree.h"
#include "dp_gaussian.h"
#include "dp_planning.h"

PG_FUNCTION_INFO_V1(dp_binary_construct);
PG_FUNCTION_INFO_V1(dp_simple_i_construct);
PG_FUNCTION_INFO_V1(dp_simple_ii_construct);
PG_FUNCTION_INFO_V1(dp_two_level_construct);
PG_FUNCTION_INFO_V1(dp_kary_construct);
PG_FUNCTION_INFO_V1(dp_balanced_construct);
PG_FUNCTION_INFO_V1(dp_hybrid_construct);
PG_FUNCTION_INFO_V1(dp_mechanism_of);
PG_FUNCTION_INFO_V1(dp_ppcum_construct);
PG_FUNCTION_INFO_V1(dp_mechanism_construct);

/*
 * What dp_mechanism_construct learned about the function it runs as, once
 * per call site (kept in fn_extra): the kind its name declares (NULL for
 * dp_mechanism_of and dp_zcdp_mechanism_of, which take it as their first
 * argument) and the position of each argument, by its declared name (-1:
 * the function has no such argument).
 */
typedef struct construct_call
{
	const dp_counter_kind *kind;
	bool		zcdp;			/* the budget argument is rho */
	char		function[NAMEDATALEN];
	int			kind_name;
	int			epsilon;
	int			horizon;
	int			max_per_step;
	int			block;			/* the kind's block_name, or "parameter" */
	int			shape;			/* the kind's shape_name */
	int			horizon_parameter;	/* the kind's horizon_name (rolling's arity), or -1 */
} construct_call;

static Datum construct_expiring(FunctionCallInfo fcinfo, const construct_call *call);
static Datum construct_expiring_baseline(FunctionCallInfo fcinfo, const construct_call *call);

/* A mechanism of these parameters, not yet checked. */
static void
fill_mechanism(dp_mechanism *mechanism, dp_mechanism_kind kind, uint32 flags, double epsilon,
			   int64 horizon, int64 max_per_step, int64 block)
{
	memset(mechanism, 0, sizeof(*mechanism));
	mechanism->kind = kind;
	mechanism->flags = flags;
	mechanism->epsilon = epsilon;
	mechanism->horizon = horizon;
	mechanism->max_per_step = max_per_step;
	mechanism->block = block;
}

static Datum
construct_flagged(dp_mechanism_kind kind, uint32 flags, double epsilon, int64 horizon,
				  int64 max_per_step, int64 block)
{
	dp_mechanism mechanism;

	fill_mechanism(&mechanism, kind, flags, epsilon, horizon, max_per_step, block);
	dp_mechanism_check(&mechanism);
	return dp_mechanism_to_datum(&mechanism);
}

static Datum
construct(dp_mechanism_kind kind, double epsilon, int64 horizon, int64 max_per_step,
		  int64 block)
{
	return construct_flagged(kind, 0, epsilon, horizon, max_per_step, block);
}

/*
 * The step bound argument: NULL is "not stated" (DP_STEP_BOUND_UNSTATED).
 * An explicit 0 is refused, not taken for "not stated": a user who writes
 * a bound means one.
 */
static int64
step_bound_argument(FunctionCallInfo fcinfo, int argno)
{
	int64		bound;

	if (argno < 0 || PG_ARGISNULL(argno))
		return DP_STEP_BOUND_UNSTATED;
	bound = PG_GETARG_INT64(argno);
	if (bound == DP_STEP_BOUND_UNSTATED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_per_step must be between 1 and %s",
						dp_limit_text_int64(DP_MAX_PER_STEP_MAX)),
				 errdetail("max_per_step was 0."),
				 errhint("max_per_step is the largest value one time step may contribute; "
						 "leave it out (NULL) for a sum, average or variance.")));
	return bound;
}

/*
 * The symbols of dp_binary, dp_simple_i, dp_simple_ii, dp_hybrid and
 * dp_ppcum up to 0.15.0, kept exported for a database whose extension is
 * not yet updated to 0.16.0 (whose SQL names dp_mechanism_construct): each
 * is a call of the generic constructor, which reads the kind from the
 * function's name and the arguments by their names, so the declarations of
 * 0.1.0 to 0.15.0 (max_per_step DEFAULT 1 before 0.14.0, NULL since) keep
 * their meaning.  A NULL epsilon or horizon gives NULL, as the strict
 * constructors before 0.14.0 did.
 */
Datum
dp_binary_construct(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_simple_i_construct(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_simple_ii_construct(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

/*
 * A block or arity left out is the kind's default for the horizon; when no
 * value fits the horizon at all (balanced digits beyond about 2^56 steps),
 * the horizon is what is wrong, and an error about an arity the user never
 * gave would send them the wrong way.  Other failures are left to
 * check_mechanism, which reports them as usual.
 */
static void
check_default_block(dp_mechanism_kind kind, uint32 flags, double epsilon, int64 horizon,
					int64 max_per_step, int64 block)
{
	const dp_counter_kind *counter_kind = dp_counter_kind_by_id(kind);
	dp_mechanism mechanism;
	const char *field;
	int64		limit;

	fill_mechanism(&mechanism, kind, flags, epsilon, horizon, max_per_step, block);
	if (counter_kind == NULL || !counter_kind->bounded ||
		dp_mechanism_validate(&mechanism, &field) != DP_ERROR_BLOCK)
		return;
	limit = dp_mechanism_default_block_horizon_max(&mechanism);
	if (limit <= 0 || horizon <= limit)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("horizon is too large for the %s mechanism", counter_kind->name),
			 errdetail("horizon was " INT64_FORMAT "; with any %s, the %s mechanism takes at most "
					   INT64_FORMAT " steps.", horizon, counter_kind->block_name,
					   counter_kind->name, limit),
			 (flags & DP_FLAG_ZCDP) ?
			 errhint("For a longer stream use dp_zcdp_mechanism_of with kary or binary (up to "
					 "%s steps), or with balanced_unbounded and no horizon.",
					 dp_limit_text_int64(DP_HORIZON_MAX)) :
			 errhint("For a longer stream use dp_kary or dp_binary (up to %s steps), or "
					 "dp_balanced_unbounded (dp_auto without a horizon).",
					 dp_limit_text_int64(DP_HORIZON_MAX))));
}

/*
 * Constructors of the form (epsilon, horizon, block DEFAULT NULL,
 * max_per_step DEFAULT 1), where the kind's default_block fills a NULL
 * block (two_level's block, an arity of kary and balanced) from the horizon.
 * The definitions of 0.1.0 to 0.13.0 only, kept with their meaning for a
 * database whose extension is not yet updated; 0.14.0's order is
 * construct_in_order's.
 */
static Datum
construct_with_block(FunctionCallInfo fcinfo, dp_mechanism_kind kind)
{
	int64		horizon;
	int64		block;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	horizon = PG_GETARG_INT64(1);
	if (!PG_ARGISNULL(2))
		block = PG_GETARG_INT64(2);
	else
	{
		block = horizon >= 1 && horizon <= DP_HORIZON_MAX ?
			dp_counter_kind_by_id(kind)->default_block(horizon) : 0;
		check_default_block(kind, 0, PG_GETARG_FLOAT8(0), horizon, PG_GETARG_INT64(3), block);
	}
	return construct(kind, PG_GETARG_FLOAT8(0), horizon, PG_GETARG_INT64(3), block);
}

/* dp_two_level(epsilon, horizon, block DEFAULT ceil(sqrt(horizon)), max_per_step DEFAULT 1) */
Datum
dp_two_level_construct(PG_FUNCTION_ARGS)
{
	return construct_with_block(fcinfo, DP_MECHANISM_TWO_LEVEL);
}

/* dp_kary(epsilon, horizon, arity DEFAULT least mean variance, max_per_step DEFAULT 1) */
Datum
dp_kary_construct(PG_FUNCTION_ARGS)
{
	return construct_with_block(fcinfo, DP_MECHANISM_KARY);
}

/* dp_balanced(epsilon, horizon, odd arity DEFAULT least mean variance, max_per_step DEFAULT 1) */
Datum
dp_balanced_construct(PG_FUNCTION_ARGS)
{
	return construct_with_block(fcinfo, DP_MECHANISM_BALANCED);
}

/*
 * dp_mechanism_of(kind text, epsilon, horizon DEFAULT NULL, parameter DEFAULT
 * NULL, max_per_step DEFAULT 1), as 0.9.0 to 0.13.0 define it: any
 * registered mechanism by its name in the text form.  A NULL horizon is
 * none (unbounded kinds); a NULL parameter is the kind's default block or
 * arity.  0.14.0's order is dp_mechanism_of_0_14's.
 */
static Datum mechanism_by_name(FunctionCallInfo fcinfo, bool zcdp);

Datum
dp_mechanism_of(PG_FUNCTION_ARGS)
{
	return mechanism_by_name(fcinfo, false);
}

/*
 * dp_zcdp_mechanism_of(kind, rho, horizon, parameter, max_per_step): the
 * same under rho-zCDP with discrete Gaussian noise, for the kinds that
 * accept it.
 */
PG_FUNCTION_INFO_V1(dp_zcdp_mechanism_of);

Datum
dp_zcdp_mechanism_of(PG_FUNCTION_ARGS)
{
	return mechanism_by_name(fcinfo, true);
}

static Datum
mechanism_by_name(FunctionCallInfo fcinfo, bool zcdp)
{
	char	   *name;
	const dp_counter_kind *kind;
	int64		horizon;
	int64		block = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(4))
		PG_RETURN_NULL();
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	kind = dp_counter_kind_by_name(name);
	if (kind == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("Name a mechanism as in its text form, e.g. \"binary\" or \"balanced_unbounded\".")));
	/*
	 * A NULL horizon is "none", which only an unbounded kind can take; for
	 * a T-bounded kind it is a missing argument, and gives NULL as a NULL
	 * epsilon does (as the strict dp_binary does), not a range error about
	 * a horizon nobody gave.
	 */
	if (PG_ARGISNULL(2) && kind->bounded)
		PG_RETURN_NULL();
	horizon = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT64(2);
	if (!PG_ARGISNULL(3))
		block = PG_GETARG_INT64(3);
	else if (kind->has_block && kind->default_block != NULL &&
			 (!kind->bounded || (horizon >= 1 && horizon <= DP_HORIZON_MAX)))
	{
		block = kind->default_block(horizon);
		check_default_block(kind->kind, zcdp ? DP_FLAG_ZCDP : 0, PG_GETARG_FLOAT8(1), horizon,
							PG_GETARG_INT64(4), block);
	}
	PG_RETURN_DATUM(construct_flagged(kind->kind, zcdp ? DP_FLAG_ZCDP : 0, PG_GETARG_FLOAT8(1),
									  horizon, PG_GETARG_INT64(4), block));
}

Datum
dp_hybrid_construct(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_ppcum_construct(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}


/*
 * dp_expiring(epsilon, lambda, delay DEFAULT 0, max_per_step DEFAULT 1):
 * privacy expiration (dp_expiring.c); lambda is the mechanism's real
 * parameter, which dp_mechanism_of cannot pass.
 */
PG_FUNCTION_INFO_V1(dp_expiring_construct);

Datum
dp_expiring_construct(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING;
	mechanism.epsilon = PG_GETARG_FLOAT8(0);
	mechanism.shape = PG_GETARG_FLOAT8(1);
	mechanism.block = PG_GETARG_INT64(2);
	mechanism.max_per_step = PG_GETARG_INT64(3);
	dp_mechanism_check(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * dp_expiring_baseline(epsilon_current, epsilon_past, window, horizon,
 * max_per_step DEFAULT 1): epsilon_past is kept as a ratio to epsilon, so
 * that a statistic splitting epsilon over its counters splits both.
 */
PG_FUNCTION_INFO_V1(dp_expiring_baseline_construct);

Datum
dp_expiring_baseline_construct(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;
	double		current = PG_GETARG_FLOAT8(0);
	double		past = PG_GETARG_FLOAT8(1);

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING_BASELINE;
	mechanism.epsilon = current;
	/* a bad epsilon_current is reported as such by validation, before the ratio */
	mechanism.shape = current > 0 && isfinite(past) ? past / current : (isnan(past) ? past : -1);
	mechanism.block = PG_GETARG_INT64(2);
	mechanism.horizon = PG_GETARG_INT64(3);
	mechanism.max_per_step = PG_GETARG_INT64(4);
	dp_mechanism_check(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * ---- 0.14.0: one argument order ----
 *
 * Every constructor takes (epsilon or rho, horizon, max_per_step, then the
 * kind's own parameters), and (epsilon, max_per_step, ...) without a
 * horizon; max_per_step NULL is "not stated".  Before 0.14.0 the third
 * argument of dp_kary, dp_balanced, dp_honaker and dp_two_level was the
 * arity or block, that of dp_binary max_per_step, so dp_kary(1.0, 365, 50)
 * built an arity-50 tree that clamped every step to 1.
 *
 * PostgreSQL resolves named arguments to positions before a function runs
 * (and folds an immutable call on constants while planning), so a
 * constructor cannot tell dp_kary(1.0, 365, 50) from dp_kary(1.0, 365,
 * max_per_step => 50).  What it can tell is whether the values it got,
 * read in the old order, would have built another valid mechanism: then
 * the call may be an old one whose meaning changed, and it warns (01P01),
 * for this release, unless dp_stream.argument_order_warning is off.  A
 * call whose old reading was invalid (dp_kary(1.0, 365, 1): arity 1) or
 * the same mechanism cannot have changed meaning, and does not warn.
 */

/* the old reading's default bound: before 0.14.0 max_per_step defaulted to 1 */
#define OLD_DEFAULT_STEP_BOUND 1

/*
 * A call of `function` in 0.14.0's order with its own parameters named, for
 * the warning's hint.
 */
static const char *
example_call(const char *function)
{
	if (strcmp(function, "dp_kary") == 0)
		return "dp_kary(1.0, 365, 50, arity => 4)";
	if (strcmp(function, "dp_balanced") == 0)
		return "dp_balanced(1.0, 365, 50, arity => 5)";
	if (strcmp(function, "dp_honaker") == 0)
		return "dp_honaker(1.0, 365, 50, arity => 2)";
	if (strcmp(function, "dp_two_level") == 0)
		return "dp_two_level(1.0, 365, 50, block => 20)";
	if (strcmp(function, "dp_expiring") == 0)
		return "dp_expiring(1.0, 50, lambda => 2)";
	if (strcmp(function, "dp_expiring_baseline") == 0)
		return "dp_expiring_baseline(1.0, 365, 50, epsilon_past => 0.5, window_size => 30)";
	if (strcmp(function, "dp_mechanism_of") == 0)
		return "dp_mechanism_of('kary', 1.0, 365, 50, parameter => 4)";
	if (strcmp(function, "dp_zcdp_mechanism_of") == 0)
		return "dp_zcdp_mechanism_of('kary', 0.5, 365, 50, parameter => 4)";
	return "dp_kary(1.0, 365, 50, arity => 4)";
}

static void
warn_if_meaning_changed(const char *function, const dp_mechanism *now,
						const dp_mechanism *before)
{
	char		now_text[DP_MECHANISM_TEXT_BYTES];
	char		before_text[DP_MECHANISM_TEXT_BYTES];
	const char *field;

	if (!dp_argument_order_warning)
		return;
	if (dp_mechanism_validate(before, &field) != DP_OK ||
		memcmp(now, before, sizeof(dp_mechanism)) == 0)
		return;
	dp_mechanism_to_text(now, now_text, sizeof(now_text));
	dp_mechanism_to_text(before, before_text, sizeof(before_text));
	ereport(WARNING,
			(errcode(ERRCODE_WARNING_DEPRECATED_FEATURE),
			 errmsg("%s takes max_per_step before its own parameters since dp_stream 0.14.0",
					function),
			 errdetail("This call builds %s; written positionally for an earlier version, "
					   "the same arguments meant %s.", now_text, before_text),
			 errhint("Name the parameters after max_per_step (as in %s).  "
					 "PostgreSQL does not tell a constructor whether an "
					 "argument was named, so named calls see this warning too; "
					 "SET dp_stream.argument_order_warning = off silences it.",
					 example_call(function))));
}

/* a bigint argument, or `otherwise` when NULL or absent (argno -1) */
static int64
int64_argument_or(FunctionCallInfo fcinfo, int argno, int64 otherwise)
{
	return argno < 0 || PG_ARGISNULL(argno) ? otherwise : PG_GETARG_INT64(argno);
}

/* the kind's default block for the horizon, 0 when the horizon is out of range */
static int64
default_block_for(const dp_counter_kind *kind, int64 horizon)
{
	if (!kind->has_block || kind->default_block == NULL ||
		(kind->bounded && (horizon < 1 || horizon > DP_HORIZON_MAX)))
		return 0;
	return kind->default_block(horizon);
}

/*
 * (epsilon or rho, horizon or none, max_per_step, block or arity): the
 * mechanism, and the one the same values meant before 0.14.0, where the
 * block came before max_per_step (a block argument of NULL was the default,
 * an absent max_per_step 1).  `block` NULL is the kind's default.
 */
static Datum
construct_in_order(FunctionCallInfo fcinfo, const dp_counter_kind *kind, uint32 flags,
				   double epsilon, int64 horizon, bool horizon_given, int max_argno,
				   int block_argno, int shape_argno, const char *function)
{
	dp_mechanism mechanism;
	dp_mechanism before;
	int64		max_per_step = step_bound_argument(fcinfo, max_argno);
	int64		block;

	if (!PG_ARGISNULL(block_argno))
		block = PG_GETARG_INT64(block_argno);
	else if (kind->has_block && kind->default_block == NULL)
	{
		/* a parameter without a default (the rolling window's width) */
		const dp_kind_parameter *parameter = kind->parameters;

		while (parameter && parameter->name && strcmp(parameter->name, kind->block_name) != 0)
			parameter++;
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the %s mechanism needs %s", kind->name, kind->block_name),
				 parameter && parameter->name && parameter->hint ? errhint("%s", parameter->hint) : 0));
	}
	else
	{
		block = default_block_for(kind, horizon);
		if (kind->has_block)
			check_default_block(kind->kind, flags, epsilon, horizon, max_per_step, block);
	}
	fill_mechanism(&mechanism, kind->kind, flags, epsilon, horizon, max_per_step, block);
	/* a real parameter beside the block (rolling's levels): given, or the kind's default */
	if (shape_argno >= 0 && !PG_ARGISNULL(shape_argno))
		mechanism.shape = get_fn_expr_argtype(fcinfo->flinfo, shape_argno) == INT4OID ?
			(double) PG_GETARG_INT32(shape_argno) : PG_GETARG_FLOAT8(shape_argno);
	else if (horizon_given && kind->default_shape)
	{
		/* rolling's arity given (even 2): the levels for it, unless it is refused */
		const char *field;

		mechanism.shape = 1;
		if (dp_mechanism_validate(&mechanism, &field) == DP_OK)
			mechanism.shape = kind->default_shape(&mechanism);
	}
	else
		dp_mechanism_fill_default_shape(&mechanism);
	dp_mechanism_check(&mechanism);

	/*
	 * the old reading: the max_per_step argument was the block, the block
	 * argument the bound (`function` NULL: a constructor without one)
	 */
	if (function != NULL && (!PG_ARGISNULL(max_argno) || !PG_ARGISNULL(block_argno)))
	{
		int64		old_block = PG_ARGISNULL(max_argno) ?
			default_block_for(kind, horizon) : PG_GETARG_INT64(max_argno);

		fill_mechanism(&before, kind->kind, flags, epsilon, horizon,
					   int64_argument_or(fcinfo, block_argno, OLD_DEFAULT_STEP_BOUND), old_block);
		before.shape = mechanism.shape;
		if (shape_argno < 0 || PG_ARGISNULL(shape_argno))
		{
			before.shape = 0;
			dp_mechanism_fill_default_shape(&before);
		}
		warn_if_meaning_changed(function, &mechanism, &before);
	}
	return dp_mechanism_to_datum(&mechanism);
}

PG_FUNCTION_INFO_V1(dp_kary_construct_0_14);
PG_FUNCTION_INFO_V1(dp_balanced_construct_0_14);
PG_FUNCTION_INFO_V1(dp_honaker_construct_0_14);
PG_FUNCTION_INFO_V1(dp_two_level_construct_0_14);
PG_FUNCTION_INFO_V1(dp_mechanism_of_0_14);
PG_FUNCTION_INFO_V1(dp_zcdp_mechanism_of_0_14);
PG_FUNCTION_INFO_V1(dp_expiring_construct_0_14);
PG_FUNCTION_INFO_V1(dp_expiring_baseline_construct_0_14);
PG_FUNCTION_INFO_V1(dp_check_count_mechanism);

/*
 * The symbols of 0.14.0's and 0.15.0's dp_kary, dp_balanced, dp_honaker,
 * dp_two_level, dp_mechanism_of and dp_zcdp_mechanism_of (and, below,
 * dp_expiring and dp_expiring_baseline), kept exported for a database not
 * yet updated to 0.16.0: each is a call of the generic constructor.
 */
Datum
dp_kary_construct_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_balanced_construct_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_honaker_construct_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_two_level_construct_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

/*
 * dp_mechanism_of(kind, epsilon, horizon DEFAULT NULL, max_per_step DEFAULT
 * NULL, parameter DEFAULT NULL) and dp_zcdp_mechanism_of(kind, rho, ...):
 * any registered mechanism by its name in the text form.  A NULL horizon is
 * none (an unbounded kind; for a bounded one a missing argument, which
 * gives NULL as a NULL epsilon does); a NULL parameter the kind's default
 * block or arity.
 */
static Datum
mechanism_by_name_in_order(FunctionCallInfo fcinfo, const construct_call *call)
{
	char	   *name;
	const dp_counter_kind *kind;
	bool		zcdp = call->zcdp;

	if (PG_ARGISNULL(call->kind_name) || PG_ARGISNULL(call->epsilon))
		PG_RETURN_NULL();
	name = text_to_cstring(PG_GETARG_TEXT_PP(call->kind_name));
	kind = dp_counter_kind_by_name(name);
	if (kind == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("Name a mechanism as in its text form, e.g. \"binary\" or \"balanced_unbounded\".")));
	if (PG_ARGISNULL(call->horizon) && kind->bounded)
		PG_RETURN_NULL();
	/* an unbounded kind keeping a parameter in the horizon (rolling) takes no horizon */
	if (!kind->bounded && kind->horizon_name && int64_argument_or(fcinfo, call->horizon, 0) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the %s mechanism takes no horizon", kind->name),
				 errdetail("horizon was " INT64_FORMAT ".", PG_GETARG_INT64(call->horizon)),
				 errhint("Leave horizon out (NULL); use dp_%s for its %s.", kind->name,
						 kind->horizon_name)));
	return construct_in_order(fcinfo, kind, zcdp ? DP_FLAG_ZCDP : 0,
							  PG_GETARG_FLOAT8(call->epsilon),
							  int64_argument_or(fcinfo, call->horizon, 0), false,
							  call->max_per_step, call->block, -1, call->function);
}

Datum
dp_mechanism_of_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_zcdp_mechanism_of_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

/* whether a double holds an integer that a bigint argument could have passed */
static bool
integral(double value)
{
	return isfinite(value) && value == floor(value) && fabs(value) < 9.2e18;
}

/*
 * dp_expiring(epsilon, max_per_step DEFAULT NULL, lambda, delay DEFAULT 0):
 * privacy expiration (dp_expiring.c).  lambda has no useful default but
 * must follow max_per_step, so it defaults to NULL and is required here.
 * Before 0.14.0 the order was (epsilon, lambda, delay, max_per_step).
 */
static Datum
construct_expiring(FunctionCallInfo fcinfo, const construct_call *call)
{
	dp_mechanism mechanism;

	if (PG_ARGISNULL(call->epsilon))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(call->shape))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_expiring needs lambda"),
				 errhint("Name it after max_per_step: dp_expiring(1.0, 50, lambda => 2) for a "
						 "count, dp_expiring(1.0, lambda => 2) for a sum, average or variance.")));
	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING;
	mechanism.epsilon = PG_GETARG_FLOAT8(call->epsilon);
	mechanism.max_per_step = step_bound_argument(fcinfo, call->max_per_step);
	mechanism.shape = PG_GETARG_FLOAT8(call->shape);
	mechanism.block = int64_argument_or(fcinfo, call->block, 0);
	dp_mechanism_check(&mechanism);

	/*
	 * The old reading: lambda was the second argument (required, so the
	 * bound must be given), delay the third (an integer), max_per_step the
	 * fourth (1 when absent; a delay of 0 is read as absent, as an old bound
	 * of 0 was invalid).
	 */
	if (!PG_ARGISNULL(call->max_per_step) && integral(mechanism.shape))
	{
		dp_mechanism before = mechanism;

		before.shape = (double) mechanism.max_per_step;
		before.block = (int64) mechanism.shape;
		before.max_per_step = mechanism.block != 0 ? mechanism.block : OLD_DEFAULT_STEP_BOUND;
		warn_if_meaning_changed("dp_expiring", &mechanism, &before);
	}
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * dp_expiring_baseline(epsilon, horizon, max_per_step DEFAULT NULL,
 * epsilon_past, window_size): epsilon_past is kept as a ratio to epsilon,
 * so that a statistic splitting epsilon over its counters splits both.
 * Before 0.14.0: (epsilon_current, epsilon_past, window_size, horizon,
 * max_per_step).
 */
static Datum
construct_expiring_baseline(FunctionCallInfo fcinfo, const construct_call *call)
{
	dp_mechanism mechanism;
	double		current;
	double		past;

	if (PG_ARGISNULL(call->epsilon) || PG_ARGISNULL(call->horizon))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(call->shape) || PG_ARGISNULL(call->block))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_expiring_baseline needs epsilon_past and window_size"),
				 errhint("Name them after max_per_step: dp_expiring_baseline(1.0, 365, 50, "
						 "epsilon_past => 0.5, window_size => 30).")));
	current = PG_GETARG_FLOAT8(call->epsilon);
	past = PG_GETARG_FLOAT8(call->shape);
	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING_BASELINE;
	mechanism.epsilon = current;
	/* a bad epsilon is reported as such by validation, before the ratio */
	mechanism.shape = current > 0 && isfinite(past) ? past / current : (isnan(past) ? past : -1);
	mechanism.horizon = PG_GETARG_INT64(call->horizon);
	mechanism.max_per_step = step_bound_argument(fcinfo, call->max_per_step);
	mechanism.block = PG_GETARG_INT64(call->block);
	dp_mechanism_check(&mechanism);

	/*
	 * The old reading: epsilon_past, window_size and horizon were the
	 * second to fourth arguments (all required), max_per_step the fifth.
	 */
	if (!PG_ARGISNULL(call->max_per_step) && integral(past))
	{
		dp_mechanism before = mechanism;

		before.shape = (double) mechanism.horizon / current;
		before.block = mechanism.max_per_step;
		before.horizon = (int64) past;
		before.max_per_step = mechanism.block;
		warn_if_meaning_changed("dp_expiring_baseline", &mechanism, &before);
	}
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * A kind whose only own parameter is a real one (dp_decayed's gamma), added
 * after 0.14.0 and so without an older order: (epsilon, max_per_step
 * DEFAULT NULL, <parameter> DEFAULT NULL), the parameter required, and no
 * horizon (such a kind is unbounded).
 */
static Datum
construct_shaped(FunctionCallInfo fcinfo, const construct_call *call)
{
	const dp_counter_kind *kind = call->kind;
	dp_mechanism mechanism;

	if (PG_ARGISNULL(call->epsilon))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(call->shape))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs %s", call->function, kind->shape_name),
				 errhint("Name it after max_per_step: %s(1.0, 50, %s => 0.9).",
						 call->function, kind->shape_name)));
	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = kind->kind;
	mechanism.flags = call->zcdp ? DP_FLAG_ZCDP : 0;
	mechanism.epsilon = PG_GETARG_FLOAT8(call->epsilon);
	mechanism.max_per_step = step_bound_argument(fcinfo, call->max_per_step);
	mechanism.shape = PG_GETARG_FLOAT8(call->shape);
	dp_mechanism_check(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * The symbols 0.14.0 and 0.15.0 declare their constructors with, kept
 * exported for a database whose extension is not yet updated to 0.16.0
 * (whose SQL names dp_mechanism_construct): each is the generic
 * constructor, which reads the kind and the arguments from the function
 * called, so the old declarations keep their meaning.
 */
Datum
dp_expiring_construct_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

Datum
dp_expiring_baseline_construct_0_14(PG_FUNCTION_ARGS)
{
	return dp_mechanism_construct(fcinfo);
}

/*
 * dp_stream.check_count_mechanism(mechanism): raises the count's refusal
 * of an unstated step bound (dp_counter_prepare) at registration, before a
 * key, publication or stream is registered and charged.
 */
Datum
dp_check_count_mechanism(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism;

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	if (!dp_mechanism_step_bound_stated(mechanism))
		dp_report_status(DP_ERROR_STEP_BOUND_UNSTATED, "max_per_step", mechanism);
	PG_RETURN_VOID();
}


/*
 * The SQL name of a kind's parameter where it differs from the registry's
 * (dp_counter_kind.parameters): dp_expiring_baseline's window_size and
 * epsilon_past, which 0.14.0 named before the registry existed.
 */
static const char *
sql_argument_name(const dp_counter_kind *kind, const char *name)
{
	if (name == NULL)
		return NULL;
	if (kind->kind == DP_MECHANISM_EXPIRING_BASELINE)
	{
		if (strcmp(name, "window") == 0)
			return "window_size";
		if (strcmp(name, "past_ratio") == 0)
			return "epsilon_past";
	}
	return name;
}

/* the position of the argument called `name`, or -1 */
static int
argument_position(char **names, int count, const char *name)
{
	if (name == NULL || names == NULL)
		return -1;
	for (int i = 0; i < count; i++)
		if (names[i] != NULL && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

static void
refuse_declaration(const construct_call *call, const char *missing)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
			 errmsg("function %s is not a dp_stream constructor", call->function),
			 errdetail("dp_mechanism_construct builds the kind a function's name declares "
					   "(dp_<kind>, dp_mechanism_of, dp_zcdp_mechanism_of) and needs an "
					   "argument named %s.", missing)));
}

/*
 * The kind and argument positions of the function being called, from its
 * catalog entry: its name, dp_ and a kind of the registry (or
 * dp_mechanism_of, dp_zcdp_mechanism_of), and its argument names.
 */
static construct_call *
resolve_call(FunctionCallInfo fcinfo)
{
	construct_call *call;
	HeapTuple	tuple;
	Form_pg_proc proc;
	Oid		   *types;
	char	  **names;
	char	   *modes;
	int			count;
	const char *suffix;

	if (fcinfo->flinfo == NULL || !OidIsValid(fcinfo->flinfo->fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_mechanism_construct must be called through a SQL function")));
	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	call = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(construct_call));
	call->horizon_parameter = -1;
	strlcpy(call->function, NameStr(proc->proname), sizeof(call->function));
	count = get_func_arg_info(tuple, &types, &names, &modes);
	ReleaseSysCache(tuple);

	call->kind_name = argument_position(names, count, "kind");
	call->epsilon = argument_position(names, count, "epsilon");
	if (call->epsilon < 0)
	{
		call->epsilon = argument_position(names, count, "rho");
		call->zcdp = call->epsilon >= 0;
	}
	call->horizon = argument_position(names, count, "horizon");
	call->max_per_step = argument_position(names, count, "max_per_step");

	suffix = strncmp(call->function, "dp_", 3) == 0 ? call->function + 3 : call->function;
	if (strcmp(call->function, "dp_mechanism_of") == 0 ||
		strcmp(call->function, "dp_zcdp_mechanism_of") == 0)
	{
		call->block = argument_position(names, count, "parameter");
		if (call->kind_name < 0)
			refuse_declaration(call, "kind");
		if (call->horizon < 0)
			refuse_declaration(call, "horizon");
		if (call->max_per_step < 0)
			refuse_declaration(call, "max_per_step");
		if (call->block < 0)
			refuse_declaration(call, "parameter");
	}
	else if ((call->kind = dp_counter_kind_by_name(suffix)) != NULL)
	{
		call->block = argument_position(names, count,
										sql_argument_name(call->kind, call->kind->block_name));
		call->shape = argument_position(names, count,
										sql_argument_name(call->kind, call->kind->shape_name));
		if (!call->kind->bounded && call->kind->horizon_name)
			call->horizon_parameter = argument_position(names, count, call->kind->horizon_name);
		if (call->kind->bounded && call->horizon < 0)
			refuse_declaration(call, "horizon");
		if (call->kind->has_block && call->block < 0)
			refuse_declaration(call, call->kind->block_name);
		if (call->kind->shape_name && call->shape < 0)
			refuse_declaration(call, call->kind->shape_name);
		if ((call->kind->has_block || call->kind->shape_name) && call->max_per_step < 0)
			refuse_declaration(call, "max_per_step");
	}
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_FUNCTION_DEFINITION),
				 errmsg("function %s is not a dp_stream constructor", call->function),
				 errdetail("dp_mechanism_construct builds the kind a function's name declares "
						   "(dp_<kind>, dp_mechanism_of, dp_zcdp_mechanism_of); no kind is "
						   "named \"%s\".", suffix)));
	if (call->epsilon < 0)
		refuse_declaration(call, "epsilon or rho");
	return call;
}

/*
 * The constructors whose third argument 0.14.0 changed from the kind's own
 * parameter to max_per_step (dp_expiring and dp_expiring_baseline, and
 * dp_mechanism_of by name, have readings of their own).  A constructor
 * added later had no earlier order, and its calls are not warned about.
 */
static bool
order_changed_in_0_14(const char *function)
{
	static const char *const moved[] = {"dp_kary", "dp_balanced", "dp_honaker", "dp_two_level"};

	for (int i = 0; i < lengthof(moved); i++)
		if (strcmp(function, moved[i]) == 0)
			return true;
	return false;
}

/*
 * dp_mechanism_construct: every constructor of 0.16.0 (dp_binary, dp_kary,
 * ..., dp_mechanism_of, dp_zcdp_mechanism_of) is declared with this symbol.
 * The kind is the called function's name, its arguments are read by their
 * declared names, and the core validates the mechanism against the
 * registry (dp_mechanism_check), so that a kind added to the registry with
 * a SQL declaration needs no C constructor of its own.  The arguments keep
 * 0.14.0's order and its warning for calls whose meaning it changed.
 */
Datum
dp_mechanism_construct(PG_FUNCTION_ARGS)
{
	construct_call *call = fcinfo->flinfo ? (construct_call *) fcinfo->flinfo->fn_extra : NULL;
	const dp_counter_kind *kind;
	int64		horizon;

	if (call == NULL)
	{
		call = resolve_call(fcinfo);
		fcinfo->flinfo->fn_extra = call;
	}
	kind = call->kind;
	if (kind == NULL)
		return mechanism_by_name_in_order(fcinfo, call);
	if (kind->kind == DP_MECHANISM_EXPIRING)
		return construct_expiring(fcinfo, call);
	if (kind->kind == DP_MECHANISM_EXPIRING_BASELINE)
		return construct_expiring_baseline(fcinfo, call);
	if (kind->shape_name != NULL && !kind->has_block)
		return construct_shaped(fcinfo, call);

	/* a NULL budget or horizon gives NULL, as the strict constructors before 0.14.0 did */
	if (PG_ARGISNULL(call->epsilon) || (kind->bounded && PG_ARGISNULL(call->horizon)))
		PG_RETURN_NULL();
	horizon = kind->bounded ? PG_GETARG_INT64(call->horizon) : 0;
	/* an unbounded kind's parameter kept in the horizon (rolling's arity, integer) */
	if (call->horizon_parameter >= 0 && !PG_ARGISNULL(call->horizon_parameter))
		horizon = (int64) PG_GETARG_INT32(call->horizon_parameter) - kind->horizon_offset;
	if (kind->has_block)
		return construct_in_order(fcinfo, kind, call->zcdp ? DP_FLAG_ZCDP : 0,
								  PG_GETARG_FLOAT8(call->epsilon), horizon,
								  call->horizon_parameter >= 0 && !PG_ARGISNULL(call->horizon_parameter),
								  call->max_per_step, call->block,
								  call->kind->shape_name ? call->shape : -1,
								  order_changed_in_0_14(call->function) ? call->function : NULL);
	return construct_flagged(kind->kind, call->zcdp ? DP_FLAG_ZCDP : 0,
							 PG_GETARG_FLOAT8(call->epsilon), horizon,
							 step_bound_argument(fcinfo, call->max_per_step), 0);
}
