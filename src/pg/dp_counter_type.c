/*
 * dp_counter_type.c
 *		The dp_counter SQL type (a stored, continuable counter state) and the
 *		functions that read and advance it.
 */
#include "dp_stream.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

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

static dp_counter *
counter_from_bytes(const unsigned char *data, size_t length, bool binary, const char *text)
{
	dp_mechanism mechanism;
	dp_parse_error error;
	dp_counter *counter;
	size_t		size;

	if (dp_counter_peek(data, length, &mechanism, &error) != DP_OK)
		dp_report_parse_error("dp_counter", text, &error, binary);
	size = dp_counter_size(&mechanism);
	counter = palloc(size);
	if (dp_counter_deserialize(data, length, counter, size, &error) != DP_OK)
		dp_report_parse_error("dp_counter", text, &error, binary);
	return counter;
}

dp_counter *
dp_counter_from_datum(Datum datum)
{
	bytea	   *value = PG_DETOAST_DATUM_PACKED(datum);

	return counter_from_bytes((const unsigned char *) VARDATA_ANY(value),
							  VARSIZE_ANY_EXHDR(value), true, "");
}

Datum
dp_counter_to_datum(const dp_counter *counter)
{
	size_t		length = dp_counter_serialized_size(counter);
	bytea	   *value;

	if (dp_counter_check_storable(counter) != DP_OK)
		dp_report_status(DP_ERROR_OVERFLOW, NULL, &counter->mechanism);
	value = palloc(VARHDRSZ + length);

	SET_VARSIZE(value, VARHDRSZ + length);
	dp_counter_serialize(counter, (unsigned char *) VARDATA(value));
	return PointerGetDatum(value);
}

Datum
dp_counter_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	dp_mechanism mechanism;
	dp_parse_error error;
	dp_counter *counter;
	size_t		size;

	if (dp_counter_parse(text, &mechanism, NULL, 0, &error) != DP_OK)
		dp_report_parse_error("dp_counter", text, &error, false);
	size = dp_counter_size(&mechanism);
	counter = palloc(size);
	if (dp_counter_parse(text, &mechanism, counter, size, &error) != DP_OK)
		dp_report_parse_error("dp_counter", text, &error, false);
	PG_RETURN_DATUM(dp_counter_to_datum(counter));
}

Datum
dp_counter_out(PG_FUNCTION_ARGS)
{
	dp_counter *counter = dp_counter_from_datum(PG_GETARG_DATUM(0));
	char	   *buffer = palloc(dp_counter_text_size(counter));

	dp_counter_to_text(counter, buffer);
	PG_RETURN_CSTRING(buffer);
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
	const char *data = pq_getmsgbytes(buffer, length);
	dp_counter *counter = counter_from_bytes((const unsigned char *) data, length, true, "");

	PG_RETURN_DATUM(dp_counter_to_datum(counter));
}

static Datum
push_value(FunctionCallInfo fcinfo, DpValueType value_type)
{
	dp_counter *counter;
	dp_status	status;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	counter = dp_counter_from_datum(PG_GETARG_DATUM(0));
	status = dp_counter_push(counter, dp_step_value(fcinfo, 1, value_type, counter),
							 dp_backend_random());
	if (status != DP_OK)
		dp_report_status(status, NULL, &counter->mechanism);
	PG_RETURN_DATUM(dp_counter_to_datum(counter));
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
	PG_RETURN_INT64(dp_counter_release(dp_counter_from_datum(PG_GETARG_DATUM(0))));
}

Datum
dp_counter_steps(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(dp_counter_from_datum(PG_GETARG_DATUM(0))->steps);
}

Datum
dp_counter_mechanism(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(dp_mechanism_to_datum(&dp_counter_from_datum(PG_GETARG_DATUM(0))->mechanism));
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
	dp_status	status = dp_counter_start(counter, mechanism, dp_backend_random(), &field);

	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
	PG_RETURN_DATUM(dp_counter_to_datum(counter));
}
