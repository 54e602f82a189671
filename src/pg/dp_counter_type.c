/*
 * dp_counter_type.c
 *		The dp_counter SQL type (a stored, continuable counter state) and the
 *		functions that read and advance it.
 */
#include "dp_stream.h"

#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"

#include "dp_seal.h"

PG_FUNCTION_INFO_V1(dp_counter_in);
PG_FUNCTION_INFO_V1(dp_counter_out);
PG_FUNCTION_INFO_V1(dp_counter_send);
PG_FUNCTION_INFO_V1(dp_counter_recv);
PG_FUNCTION_INFO_V1(dp_counter_push_int8);
PG_FUNCTION_INFO_V1(dp_counter_push_float8);
PG_FUNCTION_INFO_V1(dp_counter_estimate);
PG_FUNCTION_INFO_V1(dp_counter_steps);
PG_FUNCTION_INFO_V1(dp_counter_error_bound_sql);
PG_FUNCTION_INFO_V1(dp_counter_mechanism);
PG_FUNCTION_INFO_V1(dp_counter_new);
PG_FUNCTION_INFO_V1(dp_counter_reseal);
PG_FUNCTION_INFO_V1(dp_counter_bind);
PG_FUNCTION_INFO_V1(dp_counter_bind_stream);
PG_FUNCTION_INFO_V1(dp_counter_stream_id);

/*
 * A counter from stored bytes: sealed (opened and authenticated) or legacy;
 * with check, only for a role that may use it.
 */
static dp_counter *
counter_from_bytes(const unsigned char *data, size_t length, bool binary, const char *text,
				   dp_seal_binding *binding, bool check)
{
	return dp_state_read(DP_SEALED_COUNTER, "dp_counter", data, length, binary, text,
						 binding, check);
}

/* The value of one time step from an argument (dp_stream.h). */
int64
dp_step_value(FunctionCallInfo fcinfo, int argno, DpValueType type, const dp_counter *counter)
{
	if (PG_ARGISNULL(argno))
		return 0;
	switch (type)
	{
		case DP_VALUE_INT8:
			return PG_GETARG_INT64(argno);
		case DP_VALUE_INT4:
			return PG_GETARG_INT32(argno);
		case DP_VALUE_FLOAT8:
			return dp_counter_value_from_double(counter, PG_GETARG_FLOAT8(argno));
	}
	elog(ERROR, "unexpected dp_stream value type %d", (int) type);
	return 0;					/* keep the compiler quiet */
}

dp_counter *
dp_counter_from_datum_bound(Datum datum, dp_seal_binding *binding, bool check)
{
	bytea	   *value = PG_DETOAST_DATUM_PACKED(datum);

	return counter_from_bytes((const unsigned char *) VARDATA_ANY(value),
							  VARSIZE_ANY_EXHDR(value), true, "", binding, check);
}

dp_counter *
dp_counter_from_datum(Datum datum)
{
	dp_seal_binding binding;

	return dp_counter_from_datum_bound(datum, &binding, true);
}

/*
 * Every stored counter is sealed, its noise key (if any) inside, padded to
 * the longest serialization of its mechanism and step count.
 */
Datum
dp_counter_to_datum_bound(const dp_counter *counter, const dp_seal_binding *binding)
{
	size_t		length = dp_counter_serialized_size(counter);
	unsigned char *plain;
	Datum		result;

	if (dp_counter_check_storable(counter) != DP_OK)
		dp_report_status(DP_ERROR_OVERFLOW, NULL, &counter->mechanism);
	if (!dp_sealing_installed())
		return dp_unsealed_datum(counter, NULL);
	plain = palloc(length);
	dp_counter_serialize(counter, plain);
	result = dp_sealed_datum(DP_SEALED_COUNTER, plain, length, dp_counter_public_size(counter),
							 dp_counter_padded_size(counter), binding);
	explicit_bzero(plain, length);
	pfree(plain);
	return result;
}

Datum
dp_counter_to_datum(const dp_counter *counter)
{
	dp_seal_binding binding;

	dp_binding_for_new_state(&binding);
	return dp_counter_to_datum_bound(counter, &binding);
}

/*
 * Repeatable states (and so managed streams, which use them) are for the
 * epsilon-DP mechanisms: their ledgers account in epsilon, and the keyed
 * noise argument is made for Laplace terms.
 */
void
dp_refuse_repeatable_zcdp(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("repeatable states are not available for rho-zCDP mechanisms"),
			 errhint("Managed streams and repeatable states account in epsilon; "
					 "use a pure epsilon-DP mechanism with keyed noise, such as dp_hybrid(epsilon).")));
}

/*
 * A repeatable state draws every term under a key of its own, from its
 * position and -- for the terms drawn when a node closes -- its content, as
 * a keyed mechanism does.  Without the content (a kind that is not
 * pan-private), a term depends on its position only: a look-ahead that is
 * rolled back, or a retry with another value, gets the very noise of the
 * real release, and subtracting gives the data exactly.  So a repeatable
 * state is always pan-private, and the kinds that cannot draw content-keyed
 * noise (those that do not accept dp_keyed) are refused.
 */
void
dp_repeatable_mechanism(dp_mechanism *mechanism)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);

	if (mechanism->flags & DP_FLAG_ZCDP)
		dp_refuse_repeatable_zcdp();
	if (mechanism->flags & DP_FLAG_KEYED)
		return;					/* pan-private and content-keyed already */
	if (kind == NULL || !(kind->accepted_flags & DP_FLAG_KEYED) ||
		!(kind->accepted_flags & DP_FLAG_PAN_PRIVATE))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("repeatable states are not available for the %s mechanism",
						kind ? kind->name : "unknown"),
				 errdetail("A repeatable state draws noise keyed by the data it covers; this "
						   "mechanism cannot, and noise keyed by position alone would let a "
						   "rolled-back look-ahead or retry reveal the data exactly."),
				 errhint("Use a mechanism that accepts dp_keyed and dp_pan_private: %s.",
						 dp_kinds_accepting_text(DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE, "or"))));
	mechanism->flags |= DP_FLAG_PAN_PRIVATE;
}

/*
 * The counter of a keyed mechanism draws under its registered key; a
 * repeatable one under a random key of its own, pan-private (see
 * dp_repeatable_mechanism); any other from the backend's stream.
 */
dp_status
dp_counter_begin(dp_counter *counter, const dp_mechanism *given, bool repeatable,
				 const char **field)
{
	unsigned char noise_key[DP_NOISE_KEY_BYTES];
	dp_status	status;
	dp_random  *rng;
	bool		table_sampler;
	int			derivation = DP_DERIVATION_1;
	dp_mechanism unpartitioned;
	dp_mechanism repeatable_mechanism;
	const dp_mechanism *mechanism = given;

	if (repeatable)
	{
		repeatable_mechanism = *given;
		dp_repeatable_mechanism(&repeatable_mechanism);
		mechanism = &repeatable_mechanism;
	}
	if (mechanism->flags & DP_FLAG_KEYED)
	{
		table_sampler = dp_keyed_noise_key(mechanism, "count", noise_key, &derivation);
		rng = dp_backend_random();
		/* the noise key binds the partition; the counter (and a stored state) does not carry it */
		unpartitioned = *mechanism;
		memset(unpartitioned.partition, 0, sizeof(unpartitioned.partition));
		mechanism = &unpartitioned;
	}
	else if (repeatable)
	{
		rng = dp_backend_random();
		dp_random_bytes(rng, noise_key, sizeof(noise_key));
		table_sampler = dp_counter_default_table_sampler(rng, mechanism);
	}
	else
		return dp_counter_start(counter, mechanism, dp_backend_random(), field);
	status = dp_counter_start_derived(counter, mechanism, noise_key, table_sampler, derivation,
									  rng, field);
	explicit_bzero(noise_key, sizeof(noise_key));
	return status;
}

Datum
dp_counter_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	dp_mechanism mechanism;
	dp_parse_error error;
	dp_counter *counter;
	size_t		size;
	size_t		sealed_length;
	const unsigned char *sealed = dp_sealed_from_text("dp_counter", text, &sealed_length);

	if (sealed)
		PG_RETURN_DATUM(dp_sealed_input(DP_SEALED_COUNTER, "dp_counter", sealed, sealed_length,
										false, text));
	dp_check_unsealed_allowed("dp_counter");
	if (dp_counter_parse(text, &mechanism, NULL, 0, &error) != DP_OK)
		dp_report_parse_error("dp_counter", text, &error, false);
	size = dp_counter_size(&mechanism);
	counter = palloc(size);
	if (dp_counter_parse(text, &mechanism, counter, size, &error) != DP_OK)
		dp_report_parse_error("dp_counter", text, &error, false);
	PG_RETURN_DATUM(dp_counter_to_datum(counter));
}

/* The sealed bytes in base64; an unsealed (legacy) value is sealed first. */
Datum
dp_counter_out(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);

	if (!dp_seal_claims((const unsigned char *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value)))
	{
		dp_seal_binding binding;
		dp_counter *counter = dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, false);
		char	   *buffer;

		/* sealed as it is, for the role it belongs to: output uses nothing */
		if (dp_sealing_installed())
			PG_RETURN_CSTRING(dp_sealed_text(dp_counter_to_datum_bound(counter, &binding)));
		/* before 0.6.0 is installed: the text form of that version */
		buffer = palloc(dp_counter_text_size(counter));
		dp_counter_to_text(counter, buffer);
		PG_RETURN_CSTRING(buffer);
	}
	PG_RETURN_CSTRING(dp_sealed_text(PointerGetDatum(value)));
}

Datum
dp_counter_send(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);
	StringInfoData buffer;

	/* the stored form is already portable little-endian */
	pq_begintypsend(&buffer);
	pq_sendbytes(&buffer, VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buffer));
}

Datum
dp_counter_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buffer = (StringInfo) PG_GETARG_POINTER(0);
	int			length = buffer->len - buffer->cursor;
	const unsigned char *data = (const unsigned char *) pq_getmsgbytes(buffer, length);

	dp_seal_binding binding;

	if (dp_seal_claims(data, length))
		PG_RETURN_DATUM(dp_sealed_input(DP_SEALED_COUNTER, "dp_counter", data, length, true, ""));
	PG_RETURN_DATUM(dp_counter_to_datum_bound(counter_from_bytes(data, length, true, "",
																 &binding, false),
											  &binding));
}

static Datum
push_value(FunctionCallInfo fcinfo, DpValueType value_type)
{
	dp_counter *counter;
	dp_status	status;
	dp_seal_binding binding;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	counter = dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);
	if (counter->mechanism.flags & DP_FLAG_KEYED)
		dp_keyed_check_user(&counter->mechanism);
	status = dp_counter_push(counter, dp_step_value(fcinfo, 1, value_type, counter),
							 dp_backend_random());
	if (status != DP_OK)
		dp_report_status(status, NULL, &counter->mechanism);
	/* the pushed state keeps its role and stream */
	PG_RETURN_DATUM(dp_counter_to_datum_bound(counter, &binding));
}

Datum
dp_counter_push_int8(PG_FUNCTION_ARGS)
{
	return push_value(fcinfo, DP_VALUE_INT8);
}

Datum
dp_counter_push_float8(PG_FUNCTION_ARGS)
{
	return push_value(fcinfo, DP_VALUE_FLOAT8);
}

Datum
dp_counter_estimate(PG_FUNCTION_ARGS)
{
	const dp_counter *counter = dp_counter_from_datum(PG_GETARG_DATUM(0));

	/* a decayed count's release is in fixed point: dp_decayed_estimate reads it */
	dp_refuse_decayed_mechanism(&counter->mechanism, "dp_estimate");
	PG_RETURN_INT64(dp_counter_release(counter));
}

/* public fields: any role may read them (opened, but nothing else leaves) */
Datum
dp_counter_steps(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;

	PG_RETURN_INT64(dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, false)->steps);
}

Datum
dp_counter_mechanism(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;

	PG_RETURN_DATUM(dp_mechanism_to_datum(&dp_counter_from_datum_bound(PG_GETARG_DATUM(0),
																	   &binding, false)->mechanism));
}

Datum
dp_counter_error_bound_sql(PG_FUNCTION_ARGS)
{
	dp_counter *counter = dp_counter_from_datum(PG_GETARG_DATUM(0));
	double		confidence = PG_GETARG_FLOAT8(1);

	dp_check_confidence(confidence);
	PG_RETURN_FLOAT8(dp_counter_error_bound(counter, confidence));
}

/* dp_counter_new(mechanism): a counter at step 0, to be advanced with dp_push */
Datum
dp_counter_new(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	dp_counter *counter = palloc(dp_counter_size(mechanism));
	const char *field = NULL;
	bool		repeatable = PG_NARGS() > 1 && PG_GETARG_BOOL(1);
	dp_status	status = dp_counter_begin(counter, mechanism, repeatable, &field);

	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
	PG_RETURN_DATUM(dp_counter_to_datum(counter));
}

/*
 * dp_reseal(state): the same state sealed under the newest secret -- after a
 * rotation, or for a legacy value read with dp_stream.read_unsealed.
 */
Datum
dp_counter_reseal(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_counter *counter = dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);

	PG_RETURN_DATUM(dp_counter_to_datum_bound(counter, &binding));
}

/*
 * dp_bind(state, role): the same state, for another role.  Only a role that
 * can act as both the role the state belongs to (dp_check_rebinding) and the
 * new one (a member of both, or a superuser) may hand it over: otherwise a
 * role could take a state it may not use, or give a state to a role it
 * cannot act as.
 */
void
dp_rebind(dp_seal_binding *binding, Oid role)
{
	if (!is_member_of_role(GetUserId(), role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to bind a state to role \"%s\"",
						GetUserNameFromId(role, false)),
				 errhint("Only a role that can act as both the role a state belongs to and "
						 "the new role (a member of both, or a superuser) may hand it over.")));
	strlcpy(binding->role, GetUserNameFromId(role, false), sizeof(binding->role));
}

Datum
dp_counter_bind(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_counter *counter = dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, false);

	dp_check_rebinding("dp_counter", &binding);
	dp_rebind(&binding, PG_GETARG_OID(1));
	PG_RETURN_DATUM(dp_counter_to_datum_bound(counter, &binding));
}

/*
 * dp_stream.bind_stream(state, stream_id): the state of a managed stream,
 * tied to its catalog row (internal: the extension's owner only).
 */
Datum
dp_counter_bind_stream(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;
	dp_counter *counter = dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);

	binding.stream_id = dp_stream_id_argument(PG_GETARG_INT64(1));
	PG_RETURN_DATUM(dp_counter_to_datum_bound(counter, &binding));
}

/* dp_stream.state_stream(state): the stream id a state is tied to, 0 for none */
Datum
dp_counter_stream_id(PG_FUNCTION_ARGS)
{
	dp_seal_binding binding;

	(void) dp_counter_from_datum_bound(PG_GETARG_DATUM(0), &binding, true);
	PG_RETURN_INT64((int64) binding.stream_id);
}
