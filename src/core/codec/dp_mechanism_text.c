/*
 * dp_mechanism_text.c
 *		The text form of a mechanism: kind(epsilon=...,horizon=...,...).
 *		The kinds' names and parameter names come from the registry.
 */
#include "dp_mechanism.h"

#include <stdio.h>
#include <stdbool.h>
#include <string.h>

#include "dp_registry.h"
#include "dp_text.h"

int
dp_mechanism_to_text(const dp_mechanism *mechanism, char *buffer, size_t size)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);
	const char *name = kind ? kind->name : "unknown";

	int			length;

	/* %.17g round-trips every double exactly */
	length = snprintf(buffer, size, "%s(%s=%.17g", name,
					  (mechanism->flags & DP_FLAG_ZCDP) ? "rho" : "epsilon", mechanism->epsilon);
	if (kind && kind->bounded)
		length += snprintf(buffer + length, size - length, ",horizon=%lld",
						   (long long) mechanism->horizon);
	if (kind && kind->has_block)
		length += snprintf(buffer + length, size - length, ",%s=%lld", kind->block_name,
						   (long long) mechanism->block);
	if (kind && kind->shape_name)
		length += snprintf(buffer + length, size - length, ",%s=%.17g", kind->shape_name,
						   mechanism->shape);
	/* a horizon-kept parameter only when not its smallest value (older texts) */
	if (kind && kind->horizon_name && mechanism->horizon != 0)
		length += snprintf(buffer + length, size - length, ",%s=%lld", kind->horizon_name,
						   (long long) (mechanism->horizon + kind->horizon_offset));
	if (dp_mechanism_step_bound_stated(mechanism))
		length += snprintf(buffer + length, size - length, ",max_per_step=%lld",
						   (long long) mechanism->max_per_step);
	if (mechanism->flags & DP_FLAG_PAN_PRIVATE)
		length += snprintf(buffer + length, size - length, ",pan_private=true");
	if (mechanism->flags & DP_FLAG_CONSISTENT)
		length += snprintf(buffer + length, size - length, ",consistent=true");
	if (mechanism->flags & DP_FLAG_KEYED)
		length += snprintf(buffer + length, size - length, ",key=%.*s",
						   DP_KEY_NAME_MAX, mechanism->key);
	if (dp_mechanism_has_partition(mechanism))
	{
		length += snprintf(buffer + length, size - length, ",partition=");
		for (int i = 0; i < DP_PARTITION_BYTES; i++)
			length += snprintf(buffer + length, size - length, "%02x", mechanism->partition[i]);
	}
	if (mechanism->flags & DP_FLAG_PERSON)
		length += snprintf(buffer + length, size - length, ",contributions=%lld",
						   (long long) mechanism->contributions);
	if (mechanism->flags & DP_FLAG_PER_OBSERVATION)
		length += snprintf(buffer + length, size - length, ",per_observation=true");
	length += snprintf(buffer + length, size - length, ")");
	return length;
}

/* true or false, setting or clearing one flag */
static bool
parse_flag(const char **cursor, dp_mechanism *mechanism, uint32_t flag)
{
	char		word[8];

	if (!dp_text_identifier(cursor, word, sizeof(word)))
		return false;
	if (strcmp(word, "true") == 0)
		mechanism->flags |= flag;
	else if (strcmp(word, "false") == 0)
		mechanism->flags &= ~flag;
	else
		return false;
	return true;
}

/* the value of a lower-case hexadecimal digit, else -1 (the text form writes lower case) */
static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

/* Parameters of the text form; each may appear at most once. */
enum
{
	SEEN_EPSILON = 1 << 0,
	SEEN_HORIZON = 1 << 1,
	SEEN_MAX_PER_STEP = 1 << 2,
	SEEN_BLOCK = 1 << 3,
	SEEN_PAN_PRIVATE = 1 << 4,
	SEEN_CONSISTENT = 1 << 5,
	SEEN_KEY = 1 << 6,
	SEEN_CONTRIBUTIONS = 1 << 7,
	SEEN_PER_OBSERVATION = 1 << 8,
	SEEN_RHO = 1 << 9,
	SEEN_SHAPE = 1 << 10,
	SEEN_PARTITION = 1 << 11
};

static const struct
{
	const char *name;
	unsigned	bit;
}			parameters[] = {
	{"epsilon", SEEN_EPSILON},
	{"rho", SEEN_RHO},
	{"horizon", SEEN_HORIZON},
	{"max_per_step", SEEN_MAX_PER_STEP},
	{"block", SEEN_BLOCK},
	{"arity", SEEN_BLOCK},
	{"delay", SEEN_BLOCK},
	{"window", SEEN_BLOCK},
	{"lambda", SEEN_SHAPE},
	{"past_ratio", SEEN_SHAPE},
	{"pan_private", SEEN_PAN_PRIVATE},
	{"consistent", SEEN_CONSISTENT},
	{"key", SEEN_KEY},
	{"contributions", SEEN_CONTRIBUTIONS},
	{"per_observation", SEEN_PER_OBSERVATION},
	{"partition", SEEN_PARTITION},
};

static dp_status
parse_parameter(const char **cursor, const dp_counter_kind *kind, dp_mechanism *mechanism,
				unsigned *seen, dp_parse_error *error)
{
	char		parameter[32];
	const char *field = NULL;
	unsigned	bit = 0;

	if (!dp_text_identifier(cursor, parameter, sizeof(parameter)))
		return fail(error, "mechanism", "expected a parameter name");
	if (!dp_text_accept(cursor, "="))
		return fail(error, "mechanism", "expected \"=\" after a parameter name");

	for (size_t i = 0; i < sizeof(parameters) / sizeof(parameters[0]); i++)
		if (strcmp(parameter, parameters[i].name) == 0)
		{
			field = parameters[i].name;
			bit = parameters[i].bit;
		}
	/*
	 * The kind's own parameters by the names its entry declares, so that a
	 * kind added to the registry with a new name needs no line above.
	 */
	if (bit == 0 && kind->has_block && strcmp(parameter, kind->block_name) == 0)
	{
		field = kind->block_name;
		bit = SEEN_BLOCK;
	}
	else if (bit == 0 && kind->shape_name && strcmp(parameter, kind->shape_name) == 0)
	{
		field = kind->shape_name;
		bit = SEEN_SHAPE;
	}
	/* an unbounded kind's parameter kept in the horizon (rolling's arity) */
	if (kind->horizon_name && strcmp(parameter, kind->horizon_name) == 0)
	{
		field = kind->horizon_name;
		bit = SEEN_HORIZON;
	}
	/* "block" and "arity" are one field, each the name of its kind's */
	if (bit == 0 ||
		(bit == SEEN_HORIZON && !kind->bounded &&
		 (!kind->horizon_name || strcmp(parameter, kind->horizon_name) != 0)) ||
		(bit == SEEN_BLOCK && (!kind->has_block || strcmp(parameter, kind->block_name) != 0)) ||
		(bit == SEEN_SHAPE && (!kind->shape_name || strcmp(parameter, kind->shape_name) != 0)))
		return fail(error, "mechanism", "unknown parameter for this mechanism");

	/* "last one wins" would let two readers of one text disagree */
	if (*seen & bit)
		return fail(error, field, "given more than once");
	*seen |= bit;

	switch (bit)
	{
		case SEEN_EPSILON:
		case SEEN_RHO:
			/* one privacy parameter: epsilon, or rho for zCDP (never both) */
			if (*seen & (SEEN_EPSILON | SEEN_RHO) & ~bit)
				return fail(error, field, "give epsilon or rho, not both");
			if (!dp_text_double(cursor, &mechanism->epsilon))
				return fail(error, field, "expected a decimal number");
			if (bit == SEEN_RHO)
				mechanism->flags |= DP_FLAG_ZCDP;
			break;
		case SEEN_HORIZON:
			if (!dp_text_int64(cursor, &mechanism->horizon))
				return fail(error, field, "expected an integer");
			if (!kind->bounded && kind->horizon_name)
			{
				/* kept as value - offset; validation refuses what is out of range */
				if (mechanism->horizon < INT64_MIN + kind->horizon_offset)
					return fail(error, field, "expected an integer");
				mechanism->horizon -= kind->horizon_offset;
			}
			break;
		case SEEN_MAX_PER_STEP:
			if (!dp_text_int64(cursor, &mechanism->max_per_step))
				return fail(error, field, "expected an integer");
			/* "not stated" is written by leaving the field out: one mechanism, one text */
			if (mechanism->max_per_step == DP_STEP_BOUND_UNSTATED)
				return fail(error, field, "0 is not a bound (leave max_per_step out to state none)");
			break;
		case SEEN_BLOCK:
			if (!dp_text_int64(cursor, &mechanism->block))
				return fail(error, field, "expected an integer");
			break;
		case SEEN_SHAPE:
			if (!dp_text_double(cursor, &mechanism->shape))
				return fail(error, field, "expected a decimal number");
			break;
		case SEEN_PAN_PRIVATE:
			if (!parse_flag(cursor, mechanism, DP_FLAG_PAN_PRIVATE))
				return fail(error, field, "expected true or false");
			break;
		case SEEN_CONSISTENT:
			if (!parse_flag(cursor, mechanism, DP_FLAG_CONSISTENT))
				return fail(error, field, "expected true or false");
			break;
		case SEEN_CONTRIBUTIONS:
			if (!dp_text_int64(cursor, &mechanism->contributions))
				return fail(error, field, "expected an integer");
			mechanism->flags |= DP_FLAG_PERSON;
			break;
		case SEEN_PER_OBSERVATION:
			if (!parse_flag(cursor, mechanism, DP_FLAG_PER_OBSERVATION))
				return fail(error, field, "expected true or false");
			break;
		case SEEN_PARTITION:
			{
				bool		nonzero = false;

				dp_text_skip_blanks(cursor);
				for (int i = 0; i < DP_PARTITION_BYTES; i++)
				{
					int			high = hex_digit((*cursor)[0]);
					int			low = high < 0 ? -1 : hex_digit((*cursor)[1]);

					if (low < 0)
						return fail(error, field, "expected 32 hexadecimal digits");
					mechanism->partition[i] = (unsigned char) (high << 4 | low);
					nonzero |= mechanism->partition[i] != 0;
					*cursor += 2;
				}
				/* all zero is "no partition": one mechanism, one text */
				if (!nonzero)
					return fail(error, field, "all zero");
			}
			break;
		case SEEN_KEY:
			{
				const char *start;
				size_t		length = 0;

				dp_text_skip_blanks(cursor);
				start = *cursor;
				while (start[length] != '\0' && start[length] != ',' && start[length] != ')' &&
					   start[length] != ' ' && length <= DP_KEY_NAME_MAX)
					length++;
				if (!dp_key_name_valid(start, length))
					return fail(error, field, "expected a key name of 1 to 63 characters from [A-Za-z0-9_.:-]");
				memcpy(mechanism->key, start, length);
				mechanism->flags |= DP_FLAG_KEYED;
				*cursor = start + length;
			}
			break;
	}
	return DP_OK;
}

dp_status
dp_mechanism_parse(const char **cursor, dp_mechanism *mechanism, dp_parse_error *error)
{
	char		name[32];
	const dp_counter_kind *kind;
	unsigned	seen = 0;

	memset(mechanism, 0, sizeof(*mechanism));
	mechanism->max_per_step = DP_STEP_BOUND_UNSTATED;

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
			dp_status	status = parse_parameter(cursor, kind, mechanism, &seen, error);

			if (status != DP_OK)
				return status;
		} while (dp_text_accept(cursor, ","));

		if (!dp_text_accept(cursor, ")"))
			return fail(error, "mechanism", "expected \",\" or \")\"");
	}

	if (!(seen & (SEEN_EPSILON | SEEN_RHO)))
		return fail(error, "epsilon", "missing");
	if (kind->bounded && !(seen & SEEN_HORIZON))
		return fail(error, "horizon", "missing");
	if (kind->shape_name && !kind->default_shape && !(seen & SEEN_SHAPE))
		return fail(error, kind->shape_name, "missing");
	/* a parameter without a default (the rolling window's width) is required */
	if (kind->has_block && !kind->default_block && !(seen & SEEN_BLOCK))
		return fail(error, kind->block_name, "missing");
	/* only an absent block gets the default; block=0 is left for validation to refuse */
	if (kind->has_block && !(seen & SEEN_BLOCK) &&
		(!kind->bounded || (mechanism->horizon >= 1 && mechanism->horizon <= DP_HORIZON_MAX)))
		mechanism->block = kind->default_block(mechanism->horizon);
	/*
	 * an absent real parameter with a default (rolling's levels) gets it
	 * last: for the horizon-kept parameter given (rolling's arity, even its
	 * smallest), else jointly with it
	 */
	if (kind->default_shape && !(seen & SEEN_SHAPE) && kind->horizon_name && (seen & SEEN_HORIZON))
		mechanism->shape = kind->default_shape(mechanism);
	else if (kind->default_shape && !(seen & SEEN_SHAPE))
		dp_mechanism_fill_default_shape(mechanism);
	return DP_OK;
}
