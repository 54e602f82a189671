/*
 * dp_registry.c
 *		dp_mechanism_kinds(): the mechanism registry of src/core as a table.
 *
 * The docs list the mechanisms and the options each accepts; those lists
 * went stale whenever a kind or an option was added.  This function reads
 * the registry itself (dp_mechanism_list.h and each kind's accepted
 * options), so the docs test can compare the pages' tables with it and a
 * user can ask the installed version what it supports.
 */
#include "dp_stream.h"

#include <string.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dp_mechanism_kinds);

/*
 * Whether a kind accepts pure epsilon-DP.  Only the kind's own check knows
 * (BLT and smooth binary are made for Gaussian noise); it names
 * "rho_required" when it refuses epsilon, whatever else it would refuse in
 * this minimal mechanism.
 */
static bool
kind_accepts_epsilon(const dp_counter_kind *kind)
{
	dp_mechanism mechanism;
	const char *field = NULL;
	dp_status	status;

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = (int32_t) kind->kind;
	mechanism.epsilon = 1.0;
	mechanism.max_per_step = 1;
	mechanism.horizon = kind->bounded ? 1024 : 0;
	if (kind->has_block)
		mechanism.block = kind->default_block ? kind->default_block(1024) : 1;
	dp_mechanism_fill_default_shape(&mechanism);
	status = dp_mechanism_validate(&mechanism, &field);
	return status == DP_OK || field == NULL || strcmp(field, "rho_required") != 0;
}

Datum
dp_mechanism_kinds(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const dp_counter_kind *kind;

	InitMaterializedSRF(fcinfo, 0);
	for (size_t i = 0; (kind = dp_counter_kind_at(i)) != NULL; i++)
	{
		Datum		values[9];
		bool		nulls[9] = {false};
		Datum		parameters[3];
		int			parameter_count = 0;
		uint32_t	accepted = kind->accepted_flags;

		values[0] = CStringGetTextDatum(kind->name);
		values[1] = BoolGetDatum(kind->bounded);
		/* its own parameters, named as in the text form */
		if (kind->has_block)
			parameters[parameter_count++] = CStringGetTextDatum(kind->block_name);
		if (kind->shape_name)
			parameters[parameter_count++] = CStringGetTextDatum(kind->shape_name);
		if (kind->horizon_name)
			parameters[parameter_count++] = CStringGetTextDatum(kind->horizon_name);
		values[2] = PointerGetDatum(construct_array(parameters, parameter_count, TEXTOID,
													-1, false, TYPALIGN_INT));
		values[3] = BoolGetDatum(kind_accepts_epsilon(kind));
		values[4] = BoolGetDatum((accepted & DP_FLAG_ZCDP) != 0);
		values[5] = BoolGetDatum((accepted & DP_FLAG_PAN_PRIVATE) != 0);
		values[6] = BoolGetDatum((accepted & DP_FLAG_CONSISTENT) != 0);
		/* keyed noise is for Laplace terms: a rho-only kind cannot take it */
		values[7] = BoolGetDatum((accepted & DP_FLAG_KEYED) != 0);
		values[8] = BoolGetDatum((accepted & DP_FLAG_PERSON) != 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(dp_mechanisms);

static Datum
text_array(const char **items, const bool *item_nulls, int count)
{
	Datum	   *values = palloc0(sizeof(Datum) * Max(count, 1));
	bool	   *nulls = palloc0(sizeof(bool) * Max(count, 1));
	int			dims[1] = {count};
	int			lbs[1] = {1};

	for (int i = 0; i < count; i++)
	{
		nulls[i] = item_nulls && item_nulls[i];
		if (!nulls[i])
			values[i] = CStringGetTextDatum(items[i]);
	}
	if (count == 0)
		return PointerGetDatum(construct_empty_array(TEXTOID));
	return PointerGetDatum(construct_md_array(values, nulls, 1, dims, lbs, TEXTOID, -1, false,
											  TYPALIGN_INT));
}

/* the options of dp_mechanisms(), by the wrapper's name without dp_ */
static const struct
{
	uint32		flag;
	const char *name;
}			option_names[] = {
	{DP_FLAG_PAN_PRIVATE, "pan_private"},
	{DP_FLAG_CONSISTENT, "consistent"},
	{DP_FLAG_KEYED, "keyed"},
	{DP_FLAG_PERSON, "person_level"},
};

/*
 * dp_mechanisms(): every kind of the registry with the facts it declares
 * (dp_counter_kind.h): its SQL constructor, whether it needs a horizon,
 * its privacy forms, the options it accepts, its parameters with their
 * ranges and defaults as users read them, and its rank for dp_auto.  The
 * docs' tables, dp_compare_mechanisms and dp_auto read it, so that no
 * update script lists the kinds again.
 */
Datum
dp_mechanisms(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const dp_counter_kind *kind;

	InitMaterializedSRF(fcinfo, 0);
	for (size_t i = 0; (kind = dp_counter_kind_at(i)) != NULL; i++)
	{
		Datum		values[10];
		bool		nulls[10] = {false};
		const char *options[lengthof(option_names)];
		int			option_count = 0;
		const char *names[8];
		const char *ranges[8];
		const char *defaults[8];
		bool		no_default[8] = {false};
		int			parameter_count = 0;

		for (int o = 0; o < lengthof(option_names); o++)
			if (kind->accepted_flags & option_names[o].flag)
				options[option_count++] = option_names[o].name;
		for (const dp_kind_parameter *p = kind->parameters; p && p->name && parameter_count < 8; p++)
		{
			names[parameter_count] = p->name;
			ranges[parameter_count] = dp_fill_template(p->range, NULL, kind, p);
			defaults[parameter_count] = p->default_text;
			no_default[parameter_count] = p->default_text == NULL;
			parameter_count++;
		}
		values[0] = CStringGetTextDatum(kind->name);
		values[1] = CStringGetTextDatum(psprintf("dp_%s", kind->name));
		values[2] = BoolGetDatum(kind->bounded);
		values[3] = BoolGetDatum(kind_accepts_epsilon(kind));
		values[4] = BoolGetDatum((kind->accepted_flags & DP_FLAG_ZCDP) != 0);
		values[5] = text_array(options, NULL, option_count);
		values[6] = text_array(names, NULL, parameter_count);
		values[7] = text_array(ranges, NULL, parameter_count);
		values[8] = text_array(defaults, no_default, parameter_count);
		values[9] = Int32GetDatum(kind->auto_rank);
		nulls[9] = kind->auto_rank == 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
