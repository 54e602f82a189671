/*
 * dp_mechanism.c
 *		Validation and text form of mechanism parameters.
 */
#include "dp_mechanism.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_noise.h"
#include "dp_text.h"

dp_status
dp_mechanism_validate(const dp_mechanism *mechanism, const char **field)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (kind == NULL)
	{
		*field = "kind";
		return DP_ERROR_KIND;
	}
	if (!(mechanism->epsilon >= DP_EPSILON_MIN && mechanism->epsilon <= DP_EPSILON_MAX))
	{
		*field = "epsilon";
		return DP_ERROR_EPSILON;
	}
	if (mechanism->max_per_step < 1 || mechanism->max_per_step > DP_MAX_PER_STEP_MAX)
	{
		*field = "max_per_step";
		return DP_ERROR_MAX_PER_STEP;
	}
	if (kind->bounded && (mechanism->horizon < 1 || mechanism->horizon > DP_HORIZON_MAX))
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	if (!kind->bounded && mechanism->horizon != 0)
	{
		*field = "horizon";
		return DP_ERROR_HORIZON;
	}
	if (mechanism->flags != 0)
	{
		*field = "flags";
		return DP_ERROR_FORMAT;
	}
	return kind->validate ? kind->validate(mechanism, field) : DP_OK;
}

int
dp_mechanism_to_text(const dp_mechanism *mechanism, char *buffer, size_t size)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);
	const char *name = kind ? kind->name : "unknown";

	/* %.17g round-trips every double exactly */
	if (kind && kind->bounded)
		return snprintf(buffer, size, "%s(epsilon=%.17g,horizon=%lld,max_per_step=%lld)",
						name, mechanism->epsilon, (long long) mechanism->horizon,
						(long long) mechanism->max_per_step);
	return snprintf(buffer, size, "%s(epsilon=%.17g,max_per_step=%lld)",
					name, mechanism->epsilon, (long long) mechanism->max_per_step);
}

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

dp_status
dp_mechanism_parse(const char **cursor, dp_mechanism *mechanism, dp_parse_error *error)
{
	char		name[32];
	const dp_counter_kind *kind;
	bool		have_epsilon = false;

	memset(mechanism, 0, sizeof(*mechanism));
	mechanism->max_per_step = 1;

	if (!dp_text_identifier(cursor, name, sizeof(name)))
		return fail(error, "mechanism", "expected a mechanism name such as \"binary\"");
	kind = dp_counter_kind_by_name(name);
	if (kind == NULL)
		return fail(error, "mechanism", "unknown mechanism name");
	mechanism->kind = kind->kind;

	if (!dp_text_accept(cursor, "("))
		return fail(error, "mechanism", "expected \"(\" after the mechanism name");

	if (!dp_text_accept(cursor, ")"))
	{
		do
		{
			char		parameter[32];

			if (!dp_text_identifier(cursor, parameter, sizeof(parameter)))
				return fail(error, "mechanism", "expected a parameter name");
			if (!dp_text_accept(cursor, "="))
				return fail(error, "mechanism", "expected \"=\" after a parameter name");

			if (strcmp(parameter, "epsilon") == 0)
			{
				if (!dp_text_double(cursor, &mechanism->epsilon))
					return fail(error, "epsilon", "expected a number");
				have_epsilon = true;
			}
			else if (strcmp(parameter, "horizon") == 0 && kind->bounded)
			{
				if (!dp_text_int64(cursor, &mechanism->horizon))
					return fail(error, "horizon", "expected an integer");
			}
			else if (strcmp(parameter, "max_per_step") == 0)
			{
				if (!dp_text_int64(cursor, &mechanism->max_per_step))
					return fail(error, "max_per_step", "expected an integer");
			}
			else
				return fail(error, "mechanism", "unknown parameter for this mechanism");
		} while (dp_text_accept(cursor, ","));

		if (!dp_text_accept(cursor, ")"))
			return fail(error, "mechanism", "expected \",\" or \")\"");
	}

	if (!have_epsilon)
		return fail(error, "epsilon", "missing");
	if (kind->bounded && mechanism->horizon == 0)
		return fail(error, "horizon", "missing");
	return DP_OK;
}
