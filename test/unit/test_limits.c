/*
 * test_limits.c
 *		The low findings of issue 23 at the level of the core: the longest
 *		horizon a kind's default block or arity fits (balanced digits stop
 *		near 2^56), an epsilon from dp_planning_epsilon_for that the
 *		constructors accept at the top of the range, and the bounds check a
 *		key's computation shares with the statistics (reversed, NaN and
 *		infinite bounds refused before any state exists).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "dp_balanced_tree.h"
#include "dp_planning.h"
#include "dp_statistic.h"
#include "tap.h"

/* (3^36 - 1) / 2: 36 balanced ternary digits, 36 * 7 = 252 nodes <= 255 */
#define BALANCED_LONGEST INT64_C(75047317648499560)

static dp_mechanism
mechanism_of(dp_mechanism_kind kind, int64_t horizon, int64_t max_per_step)
{
	dp_mechanism mechanism;

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = kind;
	mechanism.epsilon = 1;
	mechanism.horizon = horizon;
	mechanism.max_per_step = max_per_step;
	return mechanism;
}

static void
test_default_block_limit(void)
{
	const dp_counter_kind *balanced = dp_counter_kind_by_id(DP_MECHANISM_BALANCED);
	dp_mechanism mechanism = mechanism_of(DP_MECHANISM_BALANCED, 1, 1);
	const char *field;
	int64_t		three_to_36 = 1;

	for (int i = 0; i < 36; i++)
		three_to_36 *= 3;
	tap_ok(BALANCED_LONGEST == (three_to_36 - 1) / 2, "the reference limit is (3^36 - 1) / 2");
	tap_ok(dp_mechanism_default_block_horizon_max(&mechanism) == BALANCED_LONGEST,
		   "balanced digits: the longest horizon with a default arity is (3^36 - 1) / 2 (got %lld)",
		   (long long) dp_mechanism_default_block_horizon_max(&mechanism));

	mechanism.horizon = BALANCED_LONGEST;
	mechanism.block = balanced->default_block(BALANCED_LONGEST);
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_OK,
		   "the default arity at the limit validates (arity %lld)", (long long) mechanism.block);
	mechanism.horizon = BALANCED_LONGEST + 1;
	mechanism.block = balanced->default_block(BALANCED_LONGEST + 1);
	tap_ok(dp_mechanism_validate(&mechanism, &field) == DP_ERROR_BLOCK,
		   "one step more: no arity fits");
	for (int64_t k = DP_BALANCED_ARITY_MIN; k <= DP_BALANCED_ARITY_MAX; k += 2)
	{
		mechanism.block = k;
		if (dp_mechanism_validate(&mechanism, &field) == DP_OK)
		{
			tap_ok(0, "no arity fits a horizon beyond the limit (arity %lld does)", (long long) k);
			return;
		}
	}
	tap_ok(1, "no odd arity from 3 to 63 fits a horizon beyond the limit");

	mechanism = mechanism_of(DP_MECHANISM_KARY, 1, 1);
	tap_ok(dp_mechanism_default_block_horizon_max(&mechanism) == DP_HORIZON_MAX,
		   "the k-ary tree's default arity fits every horizon up to 2^62");
	mechanism = mechanism_of(DP_MECHANISM_TWO_LEVEL, 1, 1);
	tap_ok(dp_mechanism_default_block_horizon_max(&mechanism) == DP_HORIZON_MAX,
		   "two-level's default block fits every horizon up to 2^62");
	mechanism = mechanism_of(DP_MECHANISM_BINARY, 1, 1);
	tap_ok(dp_mechanism_default_block_horizon_max(&mechanism) == 0,
		   "a kind without a block has no such limit (0)");
}

static void
test_epsilon_for_top(void)
{
	/* a target that epsilon = 100 meets and nothing below it does */
	dp_mechanism top = mechanism_of(DP_MECHANISM_BINARY, 4096, 1000000000);
	dp_mechanism candidate = top;
	double		target;
	double		epsilon = 0;
	double		bound;
	const char *field;
	dp_status	status;

	top.epsilon = DP_EPSILON_MAX;
	status = dp_mechanism_error_bound(&top, 7, 0.95, &target, &field);
	tap_ok(status == DP_OK, "the bound at epsilon 100");
	status = dp_planning_epsilon_for(&candidate, 7, 0.95, target, &epsilon, &field);
	tap_ok(status == DP_OK && epsilon <= DP_EPSILON_MAX && epsilon > 99.999999,
		   "dp_planning_epsilon_for at the top returns at most 100 (%.17g)", epsilon);
	candidate.epsilon = epsilon;
	tap_ok(dp_mechanism_validate(&candidate, &field) == DP_OK,
		   "a mechanism with that epsilon validates");
	status = dp_mechanism_error_bound(&candidate, 7, 0.95, &bound, &field);
	tap_ok(status == DP_OK && bound <= target, "and meets the target (%g <= %g)", bound, target);
}

static void
test_key_bounds(void)
{
	dp_statistic_spec spec;
	const char *field;
	static const struct
	{
		double		lower;
		double		upper;
		int32_t		domain;
		const char *field;
		const char *what;
	}			refused[] = {
		{10, 0, DP_VALUES_REAL, "bounds", "reversed"},
		{5, 5, DP_VALUES_REAL, "bounds", "equal"},
		{-INFINITY, NAN, DP_VALUES_REAL, "lower", "-Infinity and NaN"},
		{0, NAN, DP_VALUES_REAL, "upper", "NaN"},
		{0, INFINITY, DP_VALUES_REAL, "upper", "Infinity"},
		{0, 0x1p54, DP_VALUES_REAL, "upper", "beyond 2^53"},
		{0, 0x1p-300, DP_VALUES_REAL, "range", "narrower than 2^-256"},
		{0.5, 10, DP_VALUES_INTEGER, "values", "non-integer for integer values"},
	};

	memset(&spec, 0, sizeof(spec));
	spec.kind = DP_STATISTIC_SUM;
	spec.estimator = DP_ESTIMATOR_MIDPOINT;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
	{
		dp_status	status;

		spec.lower = refused[i].lower;
		spec.upper = refused[i].upper;
		spec.domain = refused[i].domain;
		status = dp_statistic_check_bounds(&spec, &field);
		tap_ok(status == DP_ERROR_BOUNDS && field && strcmp(field, refused[i].field) == 0,
			   "bounds %s refused as \"%s\" (got %d, \"%s\")", refused[i].what, refused[i].field,
			   (int) status, field ? field : "(none)");
	}
	spec.lower = -5;
	spec.upper = 5;
	spec.domain = DP_VALUES_INTEGER;
	tap_ok(dp_statistic_check_bounds(&spec, &field) == DP_OK, "integer bounds of an integer sum pass");
	spec.kind = DP_STATISTIC_VARIANCE;
	spec.domain = DP_VALUES_REAL;
	tap_ok(dp_statistic_check_bounds(&spec, &field) == DP_OK, "real bounds of a variance pass");
	spec.kind = 0;
	tap_ok(dp_statistic_check_bounds(&spec, &field) == DP_ERROR_FORMAT &&
		   strcmp(field, "statistic") == 0, "an unknown statistic is refused as the statistic");
}

int
main(void)
{
	test_default_block_limit();
	test_epsilon_for_top();
	test_key_bounds();
	return tap_done();
}
