/*
 * dp_mechanism_type.c
 *		The dp_mechanism SQL type: reading a stored value (any version),
 *		text and binary input and output.  Its constructors are in
 *		dp_mechanism_construct.c, its options in dp_mechanism_options.c, the
 *		functions that answer from a mechanism alone in
 *		dp_mechanism_planning.c, and the readers of its old formats in
 *		dp_mechanism_compat.c.
 */
#include "dp_stream.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "miscadmin.h"

#include <sodium.h>

#include "dp_delayed_tree.h"
#include "dp_gaussian.h"
#include "dp_planning.h"

PG_FUNCTION_INFO_V1(dp_mechanism_in);
PG_FUNCTION_INFO_V1(dp_mechanism_out);
PG_FUNCTION_INFO_V1(dp_mechanism_send);
PG_FUNCTION_INFO_V1(dp_mechanism_recv);


/* the binary protocol's version with a real parameter; 5 without one */
#define DP_MECHANISM_WIRE_SHAPE_VERSION 6
/* the version with a partition: the real parameter (0 if none), then the partition */
#define DP_MECHANISM_WIRE_PARTITION_VERSION 7

/*
 * The stored bytes as a mechanism; not validated.  Version 5 (0.7.0) is the
 * explicit codec of src/core/codec/dp_mechanism_codec.c after the version byte.
 * Versions 1 to 4 are the C struct of their day (dp_mechanism_compat.c).
 */
static void
mechanism_read(Datum datum, dp_mechanism *mechanism)
{
	DpMechanismDatum *value = (DpMechanismDatum *) PG_DETOAST_DATUM(datum);
	size_t		size = VARSIZE(value);

	if (size > VARHDRSZ && value->version == DP_MECHANISM_DATUM_VERSION)
	{
		dp_parse_error error;

		if (dp_mechanism_decode((const unsigned char *) VARDATA(value) + 1, size - VARHDRSZ - 1,
								mechanism, &error) != DP_OK)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("dp_mechanism value is invalid"),
					 errdetail("Field \"%s\": %s.", error.field, error.problem)));
		return;
	}
	if (dp_mechanism_read_struct(value, size, mechanism))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("dp_mechanism value has an unknown format")));
}

/* The same in memory of its own, for callers that keep the pointer. */
static const dp_mechanism *
mechanism_bytes(Datum datum)
{
	dp_mechanism *mechanism = palloc(sizeof(dp_mechanism));

	mechanism_read(datum, mechanism);
	return mechanism;
}

/*
 * Every mechanism read from a datum is validated before use: a stored
 * value may come from an older version, a corrupted page or a binary-
 * coercible cast, and an unchecked kind or horizon would index past the
 * registry or size an allocation.
 */
const dp_mechanism *
dp_mechanism_from_datum(Datum datum)
{
	const dp_mechanism *mechanism = mechanism_bytes(datum);
	const char *field = NULL;

	if (dp_mechanism_validate(mechanism, &field) != DP_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dp_mechanism value is invalid"),
				 errdetail("Field \"%s\" is out of range or invalid.", field ? field : "?"),
				 errhint("Build the mechanism again with its constructor, e.g. dp_binary().")));
	return mechanism;
}

/*
 * Whether the datum holds exactly this (already validated) mechanism: the
 * per-row check of the aggregates, which need not validate again.
 */
bool
dp_mechanism_datum_equals(Datum datum, const dp_mechanism *mechanism)
{
	dp_mechanism stored;

	mechanism_read(datum, &stored);
	return memcmp(&stored, mechanism, sizeof(dp_mechanism)) == 0;
}

/* the bytes of the last mechanism datum an aggregate's row passed, decoded */
#define MECHANISM_CACHE_BYTES 160
typedef struct MechanismCache
{
	int			length;			/* -1: nothing cached */
	unsigned char bytes[MECHANISM_CACHE_BYTES];
	dp_mechanism mechanism;
	/*
	 * The rolling forms' last default: the rolling mechanism with levels and
	 * arity 0 (dp_mechanism_rolling_base) and the levels and arity (kept in
	 * the horizon) computed for it, valid when rolling_levels > 0.  The default is a function of the rest, so every
	 * group or partition of a query with the same mechanism and width
	 * shares one computation.
	 */
	dp_mechanism rolling_base;
	double		rolling_levels;
	int64		rolling_arity_field;
	/*
	 * 1 when the call's mechanism (and width) arguments are constants of
	 * the plan (dp_aggregate_arguments_constant): a stream's mechanism then
	 * cannot change, and the per-row check returns at once; 0 when not,
	 * -1 before the first check.
	 */
	int			arguments_constant;
} MechanismCache;

/* the call site's cache (one per aggregate or function in a query) */
static MechanismCache *
mechanism_cache(FunctionCallInfo fcinfo)
{
	MechanismCache *cache = (MechanismCache *) fcinfo->flinfo->fn_extra;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(MechanismCache));
		cache->length = -1;
		cache->arguments_constant = -1;
		fcinfo->flinfo->fn_extra = cache;
	}
	return cache;
}

const dp_mechanism *
dp_mechanism_datum_cached(FunctionCallInfo fcinfo, Datum datum)
{
	MechanismCache *cache = mechanism_cache(fcinfo);
	bytea	   *value = (bytea *) PG_DETOAST_DATUM_PACKED(datum);
	size_t		length = VARSIZE_ANY_EXHDR(value);

	if (cache->length < 0 || length != (size_t) cache->length ||
		memcmp(VARDATA_ANY(value), cache->bytes, length) != 0)
	{
		/* other bytes: decode them (any stored version) and keep them if they fit */
		mechanism_read(datum, &cache->mechanism);
		cache->length = -1;
		if (length <= MECHANISM_CACHE_BYTES)
		{
			memcpy(cache->bytes, VARDATA_ANY(value), length);
			cache->length = (int) length;
		}
	}
	return &cache->mechanism;
}

bool
dp_mechanism_datum_matches(FunctionCallInfo fcinfo, Datum datum, const dp_mechanism *mechanism)
{
	return memcmp(dp_mechanism_datum_cached(fcinfo, datum), mechanism, sizeof(dp_mechanism)) == 0;
}

/*
 * The mechanism of an aggregate call (see DpMechanismArgument), validated:
 * the mechanism argument, or the rolling mechanism of the width argument
 * made from it (dp_mechanism_rolling_of).  Errors name the argument.
 */
void
dp_aggregate_mechanism(FunctionCallInfo fcinfo, DpMechanismArgument where, dp_mechanism *out)
{
	if (PG_ARGISNULL(where.mechanism))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_stream mechanism must not be null"),
				 errhint("Pass a mechanism such as dp_binary(epsilon => 1.0, horizon => 365, max_per_step => 50).")));
	*out = *dp_mechanism_from_datum(PG_GETARG_DATUM(where.mechanism));
	if (where.width < 0)
	{
		dp_check_rolling_order(fcinfo, out);
		return;
	}
	if (PG_ARGISNULL(where.width))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_stream rolling width must not be null"),
				 errhint("Pass the number of steps each release sums, e.g. width => 7 for a 7-day rolling value of daily rows.")));
	{
		MechanismCache *cache = mechanism_cache(fcinfo);

		/* the default levels and arity once per query and (mechanism, width) */
		dp_mechanism_rolling_base(out, PG_GETARG_INT64(where.width), out);
		if (cache->rolling_levels > 0 &&
			memcmp(&cache->rolling_base, out, sizeof(dp_mechanism)) == 0)
		{
			out->shape = cache->rolling_levels;
			out->horizon = cache->rolling_arity_field;
		}
		else
		{
			cache->rolling_base = *out;
			dp_rolling_fill_default(out);
			cache->rolling_levels = out->shape;
			cache->rolling_arity_field = out->horizon;
		}
	}
	dp_mechanism_check(out);
	dp_check_rolling_order(fcinfo, out);
}

/*
 * Whether a later row of the stream names the same mechanism (and width)
 * as the first, which gave `mechanism`: decoded once per distinct datum.
 */
bool
dp_aggregate_mechanism_matches(FunctionCallInfo fcinfo, DpMechanismArgument where,
							   const dp_mechanism *mechanism)
{
	dp_mechanism rolling;
	MechanismCache *cache = mechanism_cache(fcinfo);

	/*
	 * A constant argument is the one the stream's state was made from at its
	 * first row (a NULL constant never got that far).
	 */
	if (cache->arguments_constant < 0)
		cache->arguments_constant =
			dp_aggregate_arguments_constant(fcinfo, where.mechanism, where.width) ? 1 : 0;
	if (cache->arguments_constant == 1)
		return true;
	if (PG_ARGISNULL(where.mechanism))
		return false;
	if (where.width < 0)
		return dp_mechanism_datum_matches(fcinfo, PG_GETARG_DATUM(where.mechanism), mechanism);
	if (PG_ARGISNULL(where.width))
		return false;
	/*
	 * per row: the default levels and arity are a function of the rest, so
	 * the first row's are taken rather than computed again
	 */
	dp_mechanism_rolling_base(dp_mechanism_datum_cached(fcinfo, PG_GETARG_DATUM(where.mechanism)),
							  PG_GETARG_INT64(where.width), &rolling);
	rolling.shape = mechanism->shape;
	rolling.horizon = mechanism->horizon;
	return memcmp(&rolling, mechanism, sizeof(dp_mechanism)) == 0;
}

Datum
dp_mechanism_to_datum(const dp_mechanism *mechanism)
{
	size_t		size = VARHDRSZ + 1 + dp_mechanism_encoded_size(mechanism);
	bytea	   *value = palloc(size);

	SET_VARSIZE(value, size);
	((unsigned char *) VARDATA(value))[0] = DP_MECHANISM_DATUM_VERSION;
	dp_mechanism_encode(mechanism, (unsigned char *) VARDATA(value) + 1);
	return PointerGetDatum(value);
}

/* Validate or raise an error naming the parameter. */
void
dp_mechanism_check(const dp_mechanism *mechanism)
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
	bool		partition = dp_mechanism_has_partition(mechanism);

	pq_begintypsend(&buffer);
	pq_sendint8(&buffer, partition ? DP_MECHANISM_WIRE_PARTITION_VERSION :
				mechanism->shape != 0 ? DP_MECHANISM_WIRE_SHAPE_VERSION :
				DP_MECHANISM_DATUM_VERSION);
	pq_sendint32(&buffer, (uint32) mechanism->kind);
	pq_sendint32(&buffer, mechanism->flags);
	pq_sendfloat8(&buffer, mechanism->epsilon);
	pq_sendint64(&buffer, mechanism->horizon);
	pq_sendint64(&buffer, mechanism->max_per_step);
	pq_sendint64(&buffer, mechanism->block);
	pq_sendbytes(&buffer, mechanism->key, sizeof(mechanism->key));
	pq_sendint64(&buffer, mechanism->contributions);
	if (mechanism->shape != 0 || partition)
		pq_sendfloat8(&buffer, mechanism->shape);
	if (partition)
		pq_sendbytes(&buffer, (const char *) mechanism->partition, DP_PARTITION_BYTES);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buffer));
}

Datum
dp_mechanism_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buffer = (StringInfo) PG_GETARG_POINTER(0);
	dp_mechanism mechanism;
	const char *field;

	int			version;

	memset(&mechanism, 0, sizeof(mechanism));
	version = pq_getmsgint(buffer, 1);
	if (version < 1 || version > DP_MECHANISM_WIRE_PARTITION_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary representation of type dp_mechanism"),
				 errdetail("Field \"version\": unsupported format version.")));
	mechanism.kind = (int32) pq_getmsgint(buffer, 4);
	mechanism.flags = (uint32) pq_getmsgint(buffer, 4);
	mechanism.epsilon = pq_getmsgfloat8(buffer);
	mechanism.horizon = pq_getmsgint64(buffer);
	mechanism.max_per_step = pq_getmsgint64(buffer);
	if (version != 1)
		mechanism.block = pq_getmsgint64(buffer);
	if (version >= 3)
		pq_copymsgbytes(buffer, mechanism.key, sizeof(mechanism.key));
	if (version >= 4)
		mechanism.contributions = pq_getmsgint64(buffer);
	if (version >= DP_MECHANISM_WIRE_SHAPE_VERSION)
		mechanism.shape = pq_getmsgfloat8(buffer);
	if (version >= DP_MECHANISM_WIRE_PARTITION_VERSION)
	{
		pq_copymsgbytes(buffer, (char *) mechanism.partition, DP_PARTITION_BYTES);
		if (!dp_mechanism_has_partition(&mechanism))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid binary representation of type dp_mechanism"),
					 errdetail("Field \"partition\": all zero.")));
	}
	if (dp_mechanism_validate(&mechanism, &field) != DP_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary representation of type dp_mechanism"),
				 errdetail("Field \"%s\": out of range or invalid.", field)));
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

