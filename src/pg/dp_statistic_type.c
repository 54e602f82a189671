/*
 * dp_statistic_type.c
 *		The dp_statistic SQL type (a stored, continuable sum, average or
 *		variance state): starting one, and the functions that read and
 *		advance it.  The aggregates that build one are in dp_statistic_agg.c.
 */
#include "dp_stream.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "dp_seal.h"

PG_FUNCTION_INFO_V1(dp_statistic_in);
PG_FUNCTION_INFO_V1(dp_statistic_out);
PG_FUNCTION_INFO_V1(dp_statistic_recv);
PG_FUNCTION_INFO_V1(dp_statistic_push_float8);
PG_FUNCTION_INFO_V1(dp_statistic_push_int8);
PG_FUNCTION_INFO_V1(dp_statistic_estimate_default);
PG_FUNCTION_INFO_V1(dp_statistic_estimate_named);
PG_FUNCTION_INFO_V1(dp_statistic_steps_sql);
PG_FUNCTION_INFO_V1(dp_statistic_mechanism);
PG_FUNCTION_INFO_V1(dp_statistic_error_bound_sql);
PG_FUNCTION_INFO_V1(dp_statistic_summary);
PG_FUNCTION_INFO_V1(dp_statistic_new);
PG_FUNCTION_INFO_V1(dp_statistic_reseal);
PG_FUNCTION_INFO_V1(dp_statistic_bind);
PG_FUNCTION_INFO_V1(dp_statistic_bind_stream);
PG_FUNCTION_INFO_V1(dp_statistic_stream_id);

/*
 * What a statistic computes, as keyed noise names it: the noise key derives
 * from it and a key is registered for one (dp_stream.keys.computes).
 */
char *
dp_statistic_computes(const dp_statistic_spec *spec)
{
	return psprintf("%s(lower=%.17g,upper=%.17g,values=%s%s)",
					dp_statistic_kind_name(spec->kind), spec->lower, spec->upper,
					spec->domain == DP_VALUES_INTEGER ? "integer" : "real",
					spec->kind != DP_STATISTIC_AVERAGE ? "" :
					spec->estimator == DP_ESTIMATOR_PLAIN ? ",estimator=plain" :
					",estimator=midpoint");
}

dp_statistic *
dp_statistic_begin(MemoryContext context, const dp_statistic_spec *given, bool repeatable)
{
	dp_statistic layout;
	dp_statistic *statistic;
	const char *field = NULL;
	dp_statistic_spec repeatable_spec;
	dp_statistic_spec unpartitioned;
	const dp_statistic_spec *spec = given;
	dp_status	status;

	dp_refuse_decayed_mechanism(&given->mechanism, "a running sum, average or variance");
	/* pan-private and content-keyed, or refused (dp_repeatable_mechanism) */
	if (repeatable)
	{
		repeatable_spec = *given;
		dp_repeatable_mechanism(&repeatable_spec.mechanism);
		spec = &repeatable_spec;
	}
	/* the noise key binds a keyed mechanism's partition; the statistic does not carry it */
	unpartitioned = *spec;
	memset(unpartitioned.mechanism.partition, 0, sizeof(unpartitioned.mechanism.partition));
	status = dp_statistic_layout(&layout, &unpartitioned, &field);
	if (status != DP_OK)
		dp_report_statistic_status(status, field, spec);
	statistic = MemoryContextAlloc(context, dp_statistic_size(&layout));
	if (spec->mechanism.flags & DP_FLAG_KEYED)
	{
		/* what the statistic computes is part of the key and of its registration */
		char	   *computed = dp_statistic_computes(spec);
		unsigned char noise_key[DP_NOISE_KEY_BYTES];

		int			derivation;
		bool		table_sampler = dp_keyed_noise_key(&spec->mechanism, computed, noise_key,
													   &derivation);

		dp_statistic_start_derived(statistic, &layout, noise_key, table_sampler, derivation,
								   dp_backend_random());
		explicit_bzero(noise_key, sizeof(noise_key));
		pfree(computed);
	}
	else if (repeatable)
	{
		unsigned char noise_key[DP_NOISE_KEY_BYTES];

		dp_random_bytes(dp_backend_random(), noise_key, sizeof(noise_key));
		dp_statistic_start_keyed(statistic, &layout, noise_key, dp_backend_random());
		explicit_bzero(noise_key, sizeof(noise_key));
	}
	else
		dp_statistic_start(statistic, &layout, dp_backend_random());
	return statistic;
}

/* As counter_from_bytes. */
static dp_statistic *
statistic_from_bytes(const unsigned char *data, size_t length, bool binary, const char *text,
					 dp_seal_binding *binding, bool check)
{
	return dp_state_read(DP_SEALED_STATISTIC, "dp_statistic", data, length, binary, text,
						 binding, check);
}

dp_statistic *
dp_statistic_from_datum_bound(Datum datum, dp_seal_binding *binding, bool check)
{
	bytea	   *value = PG_DETOAST_DATUM_PACKED(datum);

	return statistic_from_bytes((const unsigned char *) VARDATA_ANY(value),
								VARSIZE_ANY_EXHDR(value), true, "", binding, check);
}

dp_statistic *
dp_statistic_from_datum(Datum datum)
{
	dp_seal_binding binding;

	return dp_statistic_from_datum_bound(datum, &binding, true);
}

Datum
dp_statistic_to_datum(const dp_statistic *statistic)
{
	dp_seal_binding binding;

	dp_binding_for_new_state(&binding);
	return dp_statistic_to_datum_bound(statistic, &binding);
}

/* Sealed, bound and padded as dp_counter_to_datum_bound. */
Datum
dp_statistic_to_datum_bound(const dp_statistic *statistic, const dp_seal_binding *binding)
{
	size_t		length = dp_statistic_serialized_size(statistic);
	unsigned char *plain;
	Datum		result;

	if (dp_statistic_check_storable(statistic) != DP_OK)
		dp_report_status(DP_ERROR_OVERFLOW, NULL, &statistic->spec.mechanism);
	if (!dp_sealing_installed())
		return dp_unsealed_datum(NULL, statistic);
	plain = palloc(length);
	dp_statistic_serialize(statistic, plain);
	result = dp_sealed_datum(DP_SEALED_STATISTIC, plain, length,
							 dp_statistic_public_size(statistic),
							 dp_statistic_padded_size(statistic), binding);
	explicit_bzero(plain, length);
	pfree(plain);
	return result;
}

Datum
dp_statistic_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	dp_statistic layout;
	dp_parse_error error;
	dp_statistic *statistic;
	size_t		size;
	size_t		sealed_length;
	const unsigned char *sealed = dp_sealed_from_text("dp_statistic", text, &sealed_length);

	if (sealed)
		PG_RETURN_DATUM(dp_sealed_input(DP_SEALED_STATISTIC, "dp_statistic", sealed,
										sealed_length, false, text));
	dp_check_unsealed_allowed("dp_statistic");
	if (dp_statistic_parse(text, &layout, NULL, 0, &error) != DP_OK)
		dp_report_parse_error("dp_statistic", text, &error, false);
	size = dp_statistic_size(&layout);
	statistic = palloc(size);
	if (dp_statistic_parse(text, &layout, statistic, size, &error) != DP_OK)
		dp_report_parse_error("dp_statistic", text, &error, false);
	PG_RETURN_DATUM(dp_statistic_to_datum(statistic));
}

Datum
dp_statistic_out(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);

	if (!dp_seal_claims((const unsigned char *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value)))
	{
		dp_seal_binding binding;
		dp_statistic *statistic = dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding,
																false);
		char	   *buffer;

		if (dp_sealing_installed())
			PG_RETURN_CSTRING(dp_sealed_text(dp_statistic_to_datum_bound(statistic, &binding)));
		buffer = palloc(dp_statistic_text_size(statistic));
		dp_statistic_to_text(statistic, buffer);
		PG_RETURN_CSTRING(buffer);
	}
	PG_RETURN_CSTRING(dp_sealed_text(PointerGetDatum(value)));
}

Datum
dp_statistic_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buffer = (StringInfo) PG_GETARG_POINTER(0);
	int			length = buffer->len - buffer->cursor;
	const unsigned char *data = (const unsigned char *) pq_getmsgbytes(buffer, length);

	dp_seal_binding binding;

	if (dp_seal_claims(data, length))
		PG_RETURN_DATUM(dp_sealed_input(DP_SEALED_STATISTIC, "dp_statistic", data, length,
										true, ""));
	PG_RETURN_DATUM(dp_statistic_to_datum_bound(statistic_from_bytes(data, length, true, "",
																	 &binding, false),
												&binding));
}

/* A NULL value is a step without an observation, as in the aggregates. */
static Datum
push_value(FunctionCallInfo fcinfo, bool integer)
{
	dp_statistic *statistic;
	dp_status	status;
	dp_seal_binding binding;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	statistic = dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);
	if (statistic->spec.mechanism.flags & DP_FLAG_KEYED)
		dp_keyed_check_user(&statistic->spec.mechanism);
	if (integer)
		status = dp_statistic_push_integer(statistic, !PG_ARGISNULL(1),
										   PG_ARGISNULL(1) ? 0 : PG_GETARG_INT64(1),
										   dp_backend_random());
	else
		status = dp_statistic_push(statistic, !PG_ARGISNULL(1),
								   PG_ARGISNULL(1) ? 0 : PG_GETARG_FLOAT8(1),
								   dp_backend_random());
	if (status != DP_OK)
		dp_report_status(status, NULL, &statistic->spec.mechanism);
	PG_RETURN_DATUM(dp_statistic_to_datum_bound(statistic, &binding));
}

Datum
dp_statistic_push_float8(PG_FUNCTION_ARGS)
{
	return push_value(fcinfo, false);
}

Datum
dp_statistic_push_int8(PG_FUNCTION_ARGS)
{
	return push_value(fcinfo, true);
}

static const struct
{
	const char *name;
	dp_estimate_kind kind;
}			estimate_names[] = {
	{"sum", DP_ESTIMATE_SUM},
	{"count", DP_ESTIMATE_COUNT},
	{"avg", DP_ESTIMATE_AVERAGE},
	{"var_pop", DP_ESTIMATE_VAR_POP},
	{"var_samp", DP_ESTIMATE_VAR_SAMP},
	{"stddev_pop", DP_ESTIMATE_STDDEV_POP},
	{"stddev_samp", DP_ESTIMATE_STDDEV_SAMP},
};

static Datum
estimate(FunctionCallInfo fcinfo, const dp_statistic *statistic, dp_estimate_kind what,
		 const char *name)
{
	double		value;

	if (!dp_statistic_provides(statistic, what))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("estimate \"%s\" is not available from this %s state", name,
						dp_statistic_kind_name(statistic->spec.kind)),
				 errhint("A sum state gives sum; an average state sum, count and avg; "
						 "a variance state all of these and var_pop, var_samp, "
						 "stddev_pop, stddev_samp.")));
	if (!dp_statistic_estimate(statistic, what, &value))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(value);
}

/* The estimate the state's aggregate returns: sum, average or sample variance. */
Datum
dp_statistic_estimate_default(PG_FUNCTION_ARGS)
{
	dp_statistic *statistic = dp_statistic_from_datum(PG_GETARG_DATUM(0));

	switch (statistic->spec.kind)
	{
		case DP_STATISTIC_AVERAGE:
			return estimate(fcinfo, statistic, DP_ESTIMATE_AVERAGE, "avg");
		case DP_STATISTIC_VARIANCE:
			return estimate(fcinfo, statistic, DP_ESTIMATE_VAR_SAMP, "var_samp");
		default:
			return estimate(fcinfo, statistic, DP_ESTIMATE_SUM, "sum");
	}
}

Datum
dp_statistic_estimate_named(PG_FUNCTION_ARGS)
{
	dp_statistic *statistic = dp_statistic_from_datum(PG_GETARG_DATUM(0));
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(1));

	for (size_t i = 0; i < lengthof(estimate_names); i++)
		if (strcmp(name, estimate_names[i].name) == 0)
			return estimate(fcinfo, statistic, estimate_names[i].kind, name);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown estimate \"%s\"", name),
			 errhint("Use one of sum, count, avg, var_pop, var_samp, stddev_pop, stddev_samp.")));
}

/* public fields, as for dp_counter */
Datum
dp_statistic_steps_sql(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;

	PG_RETURN_INT64(dp_statistic_steps(dp_statistic_from_datum_bound(PG_GETARG_DATUM(0),
																	 &binding, false)));
}

Datum
dp_statistic_mechanism(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_statistic *statistic = dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding, false);

	PG_RETURN_DATUM(dp_mechanism_to_datum(&statistic->spec.mechanism));
}

Datum
dp_statistic_error_bound_sql(PG_FUNCTION_ARGS)
{
	dp_statistic *statistic = dp_statistic_from_datum(PG_GETARG_DATUM(0));
	double		confidence = PG_GETARG_FLOAT8(1);
	double		bound;

	dp_check_confidence(confidence);
	if (statistic->spec.kind == DP_STATISTIC_VARIANCE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_error_bound is not available for variance states"),
				 errdetail("A variance is a nonlinear function of three noisy sums; "
						   "no bound of the kind given for sums and averages is implemented."),
				 errhint("See docs/aggregates.md for the measured error of variances.")));
	if (!dp_statistic_error_bound(statistic, confidence, &bound))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(bound);
}

/*
 * The dp_summary composite (count, sum, avg, var_pop, var_samp, stddev_pop,
 * stddev_samp) of a statistic: NULL where the statistic does not hold the
 * estimate or it is undefined.  Post-processing of the releases only.
 */
Datum
dp_summary_datum(FunctionCallInfo fcinfo, const dp_statistic *statistic)
{
	static const dp_estimate_kind fields[] = {
		DP_ESTIMATE_COUNT, DP_ESTIMATE_SUM, DP_ESTIMATE_AVERAGE, DP_ESTIMATE_VAR_POP,
		DP_ESTIMATE_VAR_SAMP, DP_ESTIMATE_STDDEV_POP, DP_ESTIMATE_STDDEV_SAMP
	};
	TupleDesc	descriptor = (TupleDesc) fcinfo->flinfo->fn_extra;
	double		estimates[lengthof(fields)];
	bool		defined[lengthof(fields)];
	Datum		values[lengthof(fields)];
	bool		nulls[lengthof(fields)];

	/*
	 * The result type, looked up and blessed once per call site: a window
	 * calls this for every row, and the lookup (a copy of the type's
	 * descriptor) cost more than the seven estimates.
	 */
	if (descriptor == NULL)
	{
		MemoryContext old_context;

		if (get_call_result_type(fcinfo, NULL, &descriptor) != TYPEFUNC_COMPOSITE ||
			descriptor->natts != lengthof(fields))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("dp_summary must return the dp_summary composite type")));
		old_context = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		descriptor = BlessTupleDesc(CreateTupleDescCopy(descriptor));
		MemoryContextSwitchTo(old_context);
		fcinfo->flinfo->fn_extra = descriptor;
	}
	dp_statistic_estimates(statistic, fields, lengthof(fields), estimates, defined);
	for (size_t i = 0; i < lengthof(fields); i++)
	{
		nulls[i] = !defined[i];
		values[i] = nulls[i] ? (Datum) 0 : Float8GetDatum(estimates[i]);
	}
	return HeapTupleGetDatum(heap_form_tuple(descriptor, values, nulls));
}

/* dp_summary(state dp_statistic) */
Datum
dp_statistic_summary(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(dp_summary_datum(fcinfo, dp_statistic_from_datum(PG_GETARG_DATUM(0))));
}

/* The statistic of a name; 22023 with `hint` for any other. */
static int32
statistic_kind_by_name(const char *name, const char *hint)
{
	for (int32 kind = DP_STATISTIC_SUM; kind <= DP_STATISTIC_VARIANCE; kind++)
		if (strcmp(name, dp_statistic_kind_name(kind)) == 0)
			return kind;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown statistic \"%s\"", name),
			 errhint("%s", hint)));
	pg_unreachable();
}

/*
 * dp_statistic_new(statistic text, lower float8, upper float8, mechanism):
 * a real-valued sum, average or variance state at step 0, to be advanced
 * with dp_push (managed streams start from it).
 */
Datum
dp_statistic_new(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	dp_statistic_spec spec;

	memset(&spec, 0, sizeof(spec));
	spec.kind = statistic_kind_by_name(name, "Use sum, average or variance.");
	spec.domain = DP_VALUES_REAL;
	spec.estimator = DP_ESTIMATOR_MIDPOINT;
	spec.lower = PG_GETARG_FLOAT8(1);
	spec.upper = PG_GETARG_FLOAT8(2);
	spec.mechanism = *dp_mechanism_from_datum(PG_GETARG_DATUM(3));
	PG_RETURN_DATUM(dp_statistic_to_datum(dp_statistic_begin(CurrentMemoryContext, &spec,
															 PG_NARGS() > 4 && PG_GETARG_BOOL(4))));
}

/* dp_reseal(state): as for dp_counter */
Datum
dp_statistic_reseal(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_statistic *statistic = dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);

	PG_RETURN_DATUM(dp_statistic_to_datum_bound(statistic, &binding));
}

/* dp_bind(state, role): as for dp_counter */
Datum
dp_statistic_bind(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_statistic *statistic = dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding, false);

	dp_check_rebinding("dp_statistic", &binding);
	dp_rebind(&binding, PG_GETARG_OID(1));
	PG_RETURN_DATUM(dp_statistic_to_datum_bound(statistic, &binding));
}

Datum
dp_statistic_bind_stream(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_statistic *statistic = dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);

	binding.stream_id = dp_stream_id_argument(PG_GETARG_INT64(1));
	PG_RETURN_DATUM(dp_statistic_to_datum_bound(statistic, &binding));
}

Datum
dp_statistic_stream_id(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;

	(void) dp_statistic_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);
	PG_RETURN_INT64((int64) binding.stream_id);
}

/*
 * dp_stream.key_computes(statistic, lower, upper, integer_values): what a
 * keyed computation is registered for -- 'count', or the statistic as
 * dp_statistic_computes names it (averages with the default estimator).
 * Not strict, since a count has no bounds; every argument it reads is
 * checked here, and the bounds as the statistic's constructors check them,
 * because create_key evaluates this before register_key charges a budget
 * and stores the key: a key for bounds no stream accepts would be charged
 * and kept for good (the keys table is append-only).
 */
PG_FUNCTION_INFO_V1(dp_key_computes);

Datum
dp_key_computes(PG_FUNCTION_ARGS)
{
	char	   *name;
	dp_statistic_spec spec;
	const char *field;
	dp_status	status;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the statistic of a key must not be null"),
				 errhint("Use count, sum, average or variance (create_key's default is count).")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	if (strcmp(name, "count") == 0)
	{
		if (!PG_ARGISNULL(1) || !PG_ARGISNULL(2))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a count takes no bounds"),
					 errhint("Leave lower and upper out; a count's range is the mechanism's max_per_step.")));
		PG_RETURN_TEXT_P(cstring_to_text("count"));
	}
	memset(&spec, 0, sizeof(spec));
	spec.kind = statistic_kind_by_name(name, "Use count, sum, average or variance.");
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s %s needs lower and upper",
						strchr("aeiou", name[0]) ? "an" : "a", name),
				 errhint("Give the bounds the key's stream declares, e.g. lower => 0, upper => 100.")));
	spec.lower = PG_GETARG_FLOAT8(1);
	spec.upper = PG_GETARG_FLOAT8(2);
	spec.domain = !PG_ARGISNULL(3) && PG_GETARG_BOOL(3) ? DP_VALUES_INTEGER : DP_VALUES_REAL;
	spec.estimator = DP_ESTIMATOR_MIDPOINT;
	if (spec.domain == DP_VALUES_INTEGER && spec.kind != DP_STATISTIC_SUM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("integer values are computed by sums only"),
				 errdetail("The statistic was %s.", name),
				 errhint("Leave integer_values out for an average or a variance.")));
	status = dp_statistic_check_bounds(&spec, &field);
	if (status != DP_OK)
		dp_report_statistic_status(status, field, &spec);
	PG_RETURN_TEXT_P(cstring_to_text(dp_statistic_computes(&spec)));
}
