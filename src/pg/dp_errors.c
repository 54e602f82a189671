/*
 * dp_errors.c
 *		Turns core statuses into PostgreSQL errors with SQLSTATEs and hints.
 */
#include "dp_stream.h"

#include <math.h>

#include "lib/stringinfo.h"

#include "dp_delayed_tree.h"
#include "dp_gaussian.h"

/*
 * Messages state the core's limits from its constants, never as literal
 * text, so that they cannot drift from what validation enforces: a power of
 * two reads "2^k", as the docs write them; anything else in %g.
 */
const char *
dp_limit_text(double value)
{
	int			exponent;

	if (value > 0 && frexp(value, &exponent) == 0.5)
		return psprintf("2^%d", exponent - 1);
	return psprintf("%g", value);
}

/* The same for an int64 limit, and one less than a power of two as "2^k - 1". */
const char *
dp_limit_text_int64(int64 value)
{
	if (value > 0 && (value & (value - 1)) == 0)
		return dp_limit_text((double) value);
	if (value > 0 && value < PG_INT64_MAX && ((value + 1) & value) == 0)
		return psprintf("%s - 1", dp_limit_text((double) (value + 1)));
	return psprintf(INT64_FORMAT, value);
}

char *
dp_kinds_accepting_text(uint32 flags, const char *conjunction)
{
	const char *names[64];
	size_t		count = dp_counter_kinds_accepting(flags, names, lengthof(names));
	StringInfoData text;

	initStringInfo(&text);
	count = Min(count, lengthof(names));
	for (size_t i = 0; i < count; i++)
	{
		if (i > 0)
			appendStringInfo(&text, i + 1 == count ? " %s " : ", ", conjunction);
		/* every kind's SQL constructor is dp_ and its name */
		appendStringInfo(&text, "dp_%s", names[i]);
	}
	return text.data;
}

/*
 * Fills a template of the registry (also for dp_mechanisms()) (dp_counter_kind.h: dp_kind_parameter,
 * dp_kind_refusal): each {placeholder} becomes a fact of the mechanism, its
 * kind or the core's limits, so that the kinds' own texts state no number.
 */
char *
dp_fill_template(const char *template, const dp_mechanism *mechanism,
			  const dp_counter_kind *kind, const dp_kind_parameter *parameter)
{
	StringInfoData text;
	const char *p = template;

	initStringInfo(&text);
	while (*p)
	{
		const char *end;
		char	   *name;
		const char *value = NULL;

		if (*p != '{' || (end = strchr(p, '}')) == NULL)
		{
			appendStringInfoChar(&text, *p++);
			continue;
		}
		name = pnstrdup(p + 1, end - p - 1);
		if (strcmp(name, "name") == 0 && parameter)
			value = parameter->name;
		else if (strcmp(name, "kind") == 0 && kind)
			value = kind->name;
		else if (strcmp(name, "value") == 0 && parameter && mechanism)
			value = parameter->real ? psprintf("%.17g", mechanism->shape) :
				kind && kind->horizon_name && strcmp(parameter->name, kind->horizon_name) == 0 ?
				psprintf(INT64_FORMAT, mechanism->horizon + kind->horizon_offset) :
				psprintf(INT64_FORMAT, mechanism->block);
		else if (strcmp(name, "max") == 0 && parameter && kind)
			value = parameter->real ? dp_limit_text(kind->shape_max) :
				dp_limit_text_int64(kind->block_max);
		else if (strcmp(name, "max_plain") == 0 && parameter && kind)
			value = parameter->real ? psprintf("%g", kind->shape_max) :
				psprintf(INT64_FORMAT, kind->block_max);
		else if (strcmp(name, "block") == 0 && mechanism)
			value = psprintf(INT64_FORMAT, mechanism->block);
		else if (strcmp(name, "horizon") == 0 && mechanism)
			value = psprintf(INT64_FORMAT, mechanism->horizon);
		else if (strcmp(name, "horizon_limit") == 0)
			value = dp_limit_text_int64(DP_HORIZON_MAX);
		else if (strcmp(name, "horizon_max") == 0 && kind)
			value = dp_limit_text_int64(kind->horizon_max);
		else if (strcmp(name, "horizon_max_levels") == 0 && kind)
			value = psprintf("%d", dp_level_count(kind->horizon_max));
		else if (strcmp(name, "tree_levels") == 0)
			value = psprintf("%d", DP_DELAYED_TREE_LEVELS_MAX);
		else if (strcmp(name, "epsilon") == 0 && mechanism)
			value = psprintf("%g", mechanism->epsilon);
		else if (strcmp(name, "shape") == 0 && mechanism)
			value = psprintf("%.17g", mechanism->shape);
		else if (strcmp(name, "past") == 0 && mechanism)
			value = psprintf("%g", mechanism->epsilon * mechanism->shape);
		else if (strcmp(name, "epsilon_min") == 0)
			value = dp_limit_text(DP_EPSILON_MIN);
		else if (strcmp(name, "epsilon_max") == 0)
			value = psprintf("%g", DP_EPSILON_MAX);
		else if (strcmp(name, "pan_private_kinds") == 0)
			value = dp_kinds_accepting_text(DP_FLAG_PAN_PRIVATE, "or");
		/* an unknown placeholder is a bug of the registry: test_registry.c */
		appendStringInfoString(&text, value ? value : "?");
		pfree(name);
		p = end + 1;
	}
	return text.data;
}

/* A refusal in the kind's own words, if its registry entry has one. */
static void
report_kind_refusal(dp_status status, const char *field, const dp_mechanism *mechanism)
{
	const dp_counter_kind *kind = mechanism ? dp_counter_kind_by_id(mechanism->kind) : NULL;
	const dp_kind_parameter *parameter;
	const dp_kind_refusal *refusal;

	if (kind == NULL || field == NULL)
		return;
	for (refusal = kind->refusals; refusal && refusal->status != DP_OK; refusal++)
		if (refusal->status == status && strcmp(refusal->field, field) == 0)
			ereport(ERROR,
					(errcode(status == DP_ERROR_OPTION ? ERRCODE_FEATURE_NOT_SUPPORTED :
							 ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s", dp_fill_template(refusal->message, mechanism, kind, NULL)),
					 refusal->detail ?
					 errdetail("%s", dp_fill_template(refusal->detail, mechanism, kind, NULL)) : 0,
					 refusal->hint ?
					 errhint("%s", dp_fill_template(refusal->hint, mechanism, kind, NULL)) : 0));
	if (status != DP_ERROR_BLOCK)
		return;
	for (parameter = kind->parameters; parameter && parameter->name; parameter++)
		if (strcmp(parameter->name, field) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s", dp_fill_template(parameter->message ? parameter->message :
												psprintf("{name} must be %s", parameter->range),
												mechanism, kind, parameter)),
					 errdetail("%s", dp_fill_template(parameter->detail ? parameter->detail :
												   "{name} was {value}.",
												   mechanism, kind, parameter)),
					 parameter->hint ?
					 errhint("%s", dp_fill_template(parameter->hint, mechanism, kind, parameter)) : 0));
}

void
dp_report_status(dp_status status, const char *field, const dp_mechanism *mechanism)
{
	report_kind_refusal(status, field, mechanism);
	switch (status)
	{
		case DP_ERROR_EPSILON:
			if (mechanism && (mechanism->flags & DP_FLAG_ZCDP))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("rho must be between %s and %g", dp_limit_text(DP_RHO_MIN), DP_RHO_MAX),
						 errdetail("rho was %g.", mechanism->epsilon),
						 errhint("rho is the zCDP budget per stream; rho = 0.5 is about "
								 "epsilon = 6.5 at delta = 1e-9 (dp_zcdp_epsilon).")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("epsilon must be between %s and %g",
							dp_limit_text(DP_EPSILON_MIN), DP_EPSILON_MAX),
					 mechanism ? errdetail("epsilon was %g.", mechanism->epsilon) : 0,
					 errhint("Epsilon is the privacy loss per stream; typical values lie "
							 "between 0.1 and 2.")));
			break;
		case DP_ERROR_HORIZON:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("horizon must be between 1 and %s", dp_limit_text_int64(DP_HORIZON_MAX)),
					 mechanism ? errdetail("horizon was " INT64_FORMAT ".", mechanism->horizon) : 0,
					 errhint("The horizon is the largest number of time steps the stream "
							 "may have.")));
			break;
		case DP_ERROR_MAX_PER_STEP:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_per_step must be between 1 and %s",
							dp_limit_text_int64(DP_MAX_PER_STEP_MAX)),
					 mechanism ? errdetail("max_per_step was " INT64_FORMAT ".",
										   mechanism->max_per_step) : 0,
					 errhint("max_per_step is the largest count one time step may "
							 "contribute; larger values are clamped to it.")));
			break;
		case DP_ERROR_KIND:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown dp_stream mechanism")));
			break;
		case DP_ERROR_HORIZON_EXCEEDED:
			{
				const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

				if (kind && !kind->bounded)
					ereport(ERROR,
							(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
							 errmsg("%s mechanism limit of %s time steps exceeded",
									kind->name, dp_limit_text_int64(DP_HORIZON_MAX))));
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s mechanism horizon of " INT64_FORMAT " time steps exceeded",
								kind ? kind->name : "bounded", mechanism->horizon),
						 errdetail("A T-bounded mechanism cannot release time step T + 1 "
								   "without losing its privacy guarantee."),
						 errhint("Declare a larger horizon, or use an unbounded mechanism "
								 "(dp_balanced_unbounded, or dp_auto without a horizon).")));
			}
			break;
		case DP_ERROR_BLOCK:
			/* a kind without a block was given one (its own are in the registry) */
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("block must be between 1 and the horizon"),
					 mechanism ? errdetail("block was " INT64_FORMAT ", horizon " INT64_FORMAT ".",
										   mechanism->block, mechanism->horizon) : 0,
					 errhint("Leave block out to get ceil(sqrt(horizon)), the size that "
							 "balances the two levels.")));
			break;
		case DP_ERROR_OPTION:
			{
				const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

				if (strcmp(field, "keyed") == 0 && (mechanism->flags & DP_FLAG_ZCDP))
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("keyed noise is not available for rho-zCDP mechanisms"),
							 errdetail("Its argument (docs/keyed_noise.md) is made for discrete "
									   "Laplace terms.")));
				if (strcmp(field, "rho_required") == 0)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("the %s mechanism is defined under rho-zCDP only",
									kind ? kind->name : "?"),
							 errhint("Give rho instead of epsilon, e.g. dp_blt(rho => 0.5, horizon => 365).")));
				if (strcmp(field, "rho") == 0)
					ereport(ERROR,
							(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
							 errmsg("the %s mechanism has no rho-zCDP form",
									kind ? kind->name : "?"),
							 errhint("Gaussian noise (rho) is available for %s.",
									 dp_kinds_accepting_text(DP_FLAG_ZCDP, "and"))));
				ereport(ERROR,
						(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
						 errmsg("the %s mechanism does not support the %s option",
								kind ? kind->name : "?", field),
						 strcmp(field, "keyed") == 0 ?
						 errdetail("Keyed noise needs every release to carry, for each node, a "
								   "full-scale noise term drawn after the node's last item; the "
								   "%s mechanism draws its noise before the data it covers.",
								   kind ? kind->name : "?") : 0,
						 strcmp(field, "keyed") == 0 ?
						 errhint("Use %s with dp_keyed().",
								 dp_kinds_accepting_text(DP_FLAG_KEYED, "or")) :
						 strcmp(field, "person_level") == 0 ?
						 errhint("The %s mechanism calibrates its noise to one step's change; use "
								 "%s with dp_person_level().", kind ? kind->name : "?",
								 dp_kinds_accepting_text(DP_FLAG_PERSON, "or")) : 0));
			}
			break;
		case DP_ERROR_SENSITIVITY:
			if (mechanism && (mechanism->flags & DP_FLAG_ZCDP))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("max_per_step is too large for discrete Gaussian noise"),
						 errdetail("With rho, one step's bound in the counter's units (max_per_step, "
								   "times contributions at person level, or a statistic's range "
								   "in its units) must be at most %s.",
								   dp_limit_text((double) DP_ZCDP_UNIT_MAX)),
						 errhint("Sums and averages of wide ranges need the epsilon form of the "
								 "mechanism.")));
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("horizon and max_per_step are too large together for this mechanism"),
					 mechanism && mechanism->horizon > 0 ?
					 errdetail("horizon was " INT64_FORMAT ", max_per_step " INT64_FORMAT
										   "; the noise scale must stay below %s / epsilon.",
										   mechanism->horizon, mechanism->max_per_step,
										   dp_limit_text((double) DP_SENSITIVITY_MAX)) : 0,
					 mechanism && mechanism->horizon == 0 ?
					 errdetail("max_per_step was " INT64_FORMAT "; the noise scale must stay "
							   "below %s / epsilon.", mechanism->max_per_step,
							   dp_limit_text((double) DP_SENSITIVITY_MAX)) : 0,
					 errhint("Lower max_per_step, or use a mechanism whose noise grows "
							 "more slowly with the horizon.")));
			break;
		case DP_ERROR_KEY:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid key for keyed noise"),
					 errdetail("A key name has 1 to %d characters from A-Z, a-z, 0-9, \"_\", \".\", "
							   "\":\" and \"-\", and a keyed mechanism is pan-private.",
							   DP_KEY_NAME_MAX),
					 errhint("Build keyed mechanisms with dp_keyed(mechanism, key).")));
			break;
		case DP_ERROR_CONTRIBUTIONS:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("contributions must be between 1 and %s",
							dp_limit_text_int64(DP_MAX_PER_STEP_MAX)),
					 mechanism ? errdetail("contributions was " INT64_FORMAT "; for a sum, average or "
										   "variance, contributions times the range in units "
										   "must stay below %s.", mechanism->contributions,
										   dp_limit_text_int64(DP_MAX_PER_STEP_MAX)) : 0,
					 errhint("Bound what one person contributes before aggregating "
							 "(docs/privacy_unit.md).")));
			break;
		case DP_ERROR_STEP_BOUND_UNSTATED:
			{
				char		text[DP_MECHANISM_TEXT_BYTES];

				if (mechanism)
					dp_mechanism_to_text(mechanism, text, sizeof(text));
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("a count needs a bound on one step's value"),
						 mechanism ?
						 errdetail("The mechanism %s states no max_per_step.  A count clamps "
								   "every step into [0, max_per_step] and calibrates its noise "
								   "to it; no default can know your data's bound.", text) : 0,
						 errhint("State the largest value one step can have, e.g. "
								 "dp_binary(1.0, 365, max_per_step => 50) or "
								 "dp_auto(1.0, 365, max_per_step => 50).")));
			}
			break;
		case DP_ERROR_BOUNDS:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid dp_stream bounds (field \"%s\")", field ? field : "?")));
			break;
		case DP_ERROR_FORMAT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid dp_stream parameter \"%s\"", field ? field : "?")));
			break;
		case DP_ERROR_OVERFLOW:
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("dp_stream state value out of range"),
					 errdetail("A node of the state would leave the range a genuine state "
							   "can hold (%s when stored, %s in arithmetic): the state "
							   "was forged or corrupted.", dp_limit_text((double) DP_NODE_VALUE_MAX),
							   dp_limit_text((double) DP_ARITHMETIC_MAX)),
					 errhint("Start the stream again from its data.")));
			break;
		case DP_OK:
			break;
	}
	elog(ERROR, "unexpected dp_stream status %d", (int) status);
}

void
dp_report_statistic_status(dp_status status, const char *field, const dp_statistic_spec *spec)
{
	if (status == DP_ERROR_BOUNDS && field && strcmp(field, "values") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("integer bounds are needed for an integer sum"),
				 errdetail("lower was %g, upper %g.", spec->lower, spec->upper)));
	if (status == DP_ERROR_BOUNDS && field && strcmp(field, "range") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("upper - lower must be at least %s", dp_limit_text(DP_STATISTIC_RANGE_MIN)),
				 errdetail("lower was %g, upper %g.", spec->lower, spec->upper),
				 errhint("Rescale the values, e.g. to other units, so that their range is wider.")));
	if (status == DP_ERROR_BOUNDS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("lower must be less than upper, and both finite with magnitude at most %s",
						dp_limit_text(DP_STATISTIC_BOUND_MAX)),
				 errdetail("lower was %g, upper %g.", spec->lower, spec->upper),
				 errhint("The bounds declare the range every value is clamped into; "
						 "the noise grows with upper - lower.")));
	if (status == DP_ERROR_MAX_PER_STEP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sums, averages and variances take their range from lower and upper, not max_per_step"),
				 errdetail("The mechanism has max_per_step " INT64_FORMAT ".",
						   spec->mechanism.max_per_step),
				 errhint("Build the mechanism without max_per_step, e.g. dp_hybrid(1.0).")));
	if (status == DP_ERROR_EPSILON && spec->mechanism.epsilon >= DP_EPSILON_MIN &&
		spec->mechanism.epsilon <= DP_EPSILON_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("epsilon is too small to split between the counters of this statistic"),
				 errdetail("epsilon was %g; an average gives each of its two counters half, "
						   "a variance each of its three a third, and each share must be at least %s.",
						   spec->mechanism.epsilon, dp_limit_text(DP_EPSILON_MIN))));
	dp_report_status(status, field, &spec->mechanism);
}

void
dp_report_parse_error(const char *type_name, const char *input,
					  const dp_parse_error *error, bool binary)
{
	if (binary)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary representation of type %s", type_name),
				 errdetail("Field \"%s\": %s.", error->field, error->problem)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", type_name, input),
			 errdetail("Field \"%s\": %s.", error->field, error->problem)));
}

void
dp_check_confidence(double confidence)
{
	if (!(confidence > 0.0 && confidence < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be strictly between 0 and 1"),
				 errdetail("confidence was %g.", confidence)));
}
