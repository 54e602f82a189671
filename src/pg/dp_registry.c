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
		Datum		parameters[2];
		int			parameter_count = 0;
		uint32_t	accepted = kind->accepted_flags;

		values[0] = CStringGetTextDatum(kind->name);
		values[1] = BoolGetDatum(kind->bounded);
		/* its own parameters, named as in the text form */
		if (kind->has_block)
			parameters[parameter_count++] = CStringGetTextDatum(kind->block_name);
		if (kind->shape_name)
			parameters[parameter_count++] = CStringGetTextDatum(kind->shape_name);
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
