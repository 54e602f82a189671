/*
 * dp_mechanism_type.c
 *		The dp_mechanism SQL type and the constructors that build it.
 */
#include "dp_stream.h"

#include "libpq/pqformat.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(dp_mechanism_in);
PG_FUNCTION_INFO_V1(dp_mechanism_out);
PG_FUNCTION_INFO_V1(dp_mechanism_send);
PG_FUNCTION_INFO_V1(dp_mechanism_recv);
PG_FUNCTION_INFO_V1(dp_binary_construct);
PG_FUNCTION_INFO_V1(dp_mechanism_error_bound_sql);

const dp_mechanism *
dp_mechanism_from_datum(Datum datum)
{
	DpMechanismDatum *value = (DpMechanismDatum *) PG_DETOAST_DATUM(datum);

	if (VARSIZE(value) != sizeof(DpMechanismDatum) ||
		value->version != DP_MECHANISM_DATUM_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dp_mechanism value has an unknown format")));
	return &value->mechanism;
}

Datum
dp_mechanism_to_datum(const dp_mechanism *mechanism)
{
	DpMechanismDatum *value = palloc0(sizeof(DpMechanismDatum));

	SET_VARSIZE(value, sizeof(DpMechanismDatum));
	value->version = DP_MECHANISM_DATUM_VERSION;
	value->mechanism = *mechanism;
	return PointerGetDatum(value);
}

/* Validate or raise an error naming the parameter. */
static void
check_mechanism(const dp_mechanism *mechanism)
{
	const char *field = NULL;
	dp_status	status = dp_mechanism_validate(mechanism, &field);

	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
}

Datum
dp_mechanism_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	const char *cursor = text;
	dp_mechanism mechanism;
	dp_parse_error error;
	const char *field;

	if (dp_mechanism_parse(&cursor, &mechanism, &error) != DP_OK)
		dp_report_parse_error("dp_mechanism", text, &error, false);
	while (*cursor == ' ')
		cursor++;
	if (*cursor != '\0')
	{
		error.field = "end";
		error.problem = "unexpected text after the mechanism";
		dp_report_parse_error("dp_mechanism", text, &error, false);
	}
	if (dp_mechanism_validate(&mechanism, &field) != DP_OK)
	{
		error.field = field;
		error.problem = "out of range or invalid";
		dp_report_parse_error("dp_mechanism", text, &error, false);
	}
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

Datum
dp_mechanism_out(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	char	   *buffer = palloc(DP_MECHANISM_TEXT_BYTES);

	dp_mechanism_to_text(mechanism, buffer, DP_MECHANISM_TEXT_BYTES);
	PG_RETURN_CSTRING(buffer);
}

Datum
dp_mechanism_send(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	StringInfoData buffer;

	pq_begintypsend(&buffer);
	pq_sendint8(&buffer, DP_MECHANISM_DATUM_VERSION);
	pq_sendint32(&buffer, (uint32) mechanism->kind);
	pq_sendint32(&buffer, mechanism->flags);
	pq_sendfloat8(&buffer, mechanism->epsilon);
	pq_sendint64(&buffer, mechanism->horizon);
	pq_sendint64(&buffer, mechanism->max_per_step);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buffer));
}

Datum
dp_mechanism_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buffer = (StringInfo) PG_GETARG_POINTER(0);
	dp_mechanism mechanism;
	const char *field;

	memset(&mechanism, 0, sizeof(mechanism));
	if (pq_getmsgint(buffer, 1) != DP_MECHANISM_DATUM_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary representation of type dp_mechanism"),
				 errdetail("Field \"version\": unsupported format version.")));
	mechanism.kind = (int32) pq_getmsgint(buffer, 4);
	mechanism.flags = (uint32) pq_getmsgint(buffer, 4);
	mechanism.epsilon = pq_getmsgfloat8(buffer);
	mechanism.horizon = pq_getmsgint64(buffer);
	mechanism.max_per_step = pq_getmsgint64(buffer);
	if (dp_mechanism_validate(&mechanism, &field) != DP_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary representation of type dp_mechanism"),
				 errdetail("Field \"%s\": out of range or invalid.", field)));
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/* dp_binary(epsilon float8, horizon int8, max_per_step int8 DEFAULT 1) */
Datum
dp_binary_construct(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_BINARY;
	mechanism.epsilon = PG_GETARG_FLOAT8(0);
	mechanism.horizon = PG_GETARG_INT64(1);
	mechanism.max_per_step = PG_GETARG_INT64(2);
	check_mechanism(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/* dp_error_bound(mechanism, steps, confidence): public, draws no noise */
Datum
dp_mechanism_error_bound_sql(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		steps = PG_GETARG_INT64(1);
	double		confidence = PG_GETARG_FLOAT8(2);
	double		bound;
	const char *field = NULL;
	dp_status	status;

	dp_check_confidence(confidence);
	status = dp_mechanism_error_bound(mechanism, steps, confidence, &bound, &field);
	if (status == DP_ERROR_HORIZON_EXCEEDED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steps must be between 0 and the horizon"),
				 errdetail("steps was " INT64_FORMAT ", horizon " INT64_FORMAT ".",
						   steps, mechanism->horizon)));
	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
	PG_RETURN_FLOAT8(bound);
}
