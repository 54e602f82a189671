/*
 * dp_mechanism_type.c
 *		The dp_mechanism SQL type and the constructors that build it.
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
PG_FUNCTION_INFO_V1(dp_binary_construct);
PG_FUNCTION_INFO_V1(dp_simple_i_construct);
PG_FUNCTION_INFO_V1(dp_simple_ii_construct);
PG_FUNCTION_INFO_V1(dp_two_level_construct);
PG_FUNCTION_INFO_V1(dp_kary_construct);
PG_FUNCTION_INFO_V1(dp_balanced_construct);
PG_FUNCTION_INFO_V1(dp_hybrid_construct);
PG_FUNCTION_INFO_V1(dp_mechanism_of);
PG_FUNCTION_INFO_V1(dp_ppcum_construct);
PG_FUNCTION_INFO_V1(dp_pan_private_option);
PG_FUNCTION_INFO_V1(dp_consistent_option);
PG_FUNCTION_INFO_V1(dp_keyed_option);
PG_FUNCTION_INFO_V1(dp_keyed_partition_option);
PG_FUNCTION_INFO_V1(dp_person_level_option);
PG_FUNCTION_INFO_V1(dp_mechanism_error_bound_sql);
PG_FUNCTION_INFO_V1(dp_mechanism_epsilon);
PG_FUNCTION_INFO_V1(dp_mechanism_error_sd);
PG_FUNCTION_INFO_V1(dp_mechanism_epsilon_for);
PG_FUNCTION_INFO_V1(dp_mechanism_error_bound_max);

/*
 * Version 1 values (dp_stream 0.1.0) end before the block field; they are
 * Binary mechanisms and read with block 0.  Version 2 values (0.2.0 to
 * 0.5.0) end before the key name; they are read as unkeyed.
 */
#define DP_MECHANISM_DATUM_V1_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, block))
#define DP_MECHANISM_DATUM_V2_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, key))
#define DP_MECHANISM_DATUM_V3_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, contributions))
#define DP_MECHANISM_DATUM_V4_SIZE (offsetof(DpMechanismDatum, mechanism) + \
									offsetof(dp_mechanism, shape))
/* the binary protocol's version with a real parameter; 5 without one */
#define DP_MECHANISM_WIRE_SHAPE_VERSION 6
/* the version with a partition: the real parameter (0 if none), then the partition */
#define DP_MECHANISM_WIRE_PARTITION_VERSION 7

/*
 * The stored bytes as a mechanism; not validated.  Version 5 (0.7.0) is the
 * explicit codec of src/core/codec/dp_mechanism_codec.c after the version byte.
 * Versions 1 to 4 are the C struct of their day, copied into a zeroed one
 * (the fields each version lacks read as zero).
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
	if ((size == DP_MECHANISM_DATUM_V1_SIZE && value->version == 1) ||
		(size == DP_MECHANISM_DATUM_V2_SIZE && value->version == 2) ||
		(size == DP_MECHANISM_DATUM_V3_SIZE && value->version == 3) ||
		(size == DP_MECHANISM_DATUM_V4_SIZE && value->version == 4))
	{
		memset(mechanism, 0, sizeof(*mechanism));
		memcpy(mechanism, &value->mechanism, size - offsetof(DpMechanismDatum, mechanism));
		return;
	}
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
} MechanismCache;

bool
dp_mechanism_datum_matches(FunctionCallInfo fcinfo, Datum datum, const dp_mechanism *mechanism)
{
	MechanismCache *cache = (MechanismCache *) fcinfo->flinfo->fn_extra;
	bytea	   *value = (bytea *) PG_DETOAST_DATUM_PACKED(datum);
	size_t		length = VARSIZE_ANY_EXHDR(value);

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(MechanismCache));
		cache->length = -1;
		fcinfo->flinfo->fn_extra = cache;
	}
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
	return memcmp(&cache->mechanism, mechanism, sizeof(dp_mechanism)) == 0;
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

/* A mechanism of these parameters, not yet checked. */
static void
fill_mechanism(dp_mechanism *mechanism, dp_mechanism_kind kind, uint32 flags, double epsilon,
			   int64 horizon, int64 max_per_step, int64 block)
{
	memset(mechanism, 0, sizeof(*mechanism));
	mechanism->kind = kind;
	mechanism->flags = flags;
	mechanism->epsilon = epsilon;
	mechanism->horizon = horizon;
	mechanism->max_per_step = max_per_step;
	mechanism->block = block;
}

static Datum
construct_flagged(dp_mechanism_kind kind, uint32 flags, double epsilon, int64 horizon,
				  int64 max_per_step, int64 block)
{
	dp_mechanism mechanism;

	fill_mechanism(&mechanism, kind, flags, epsilon, horizon, max_per_step, block);
	check_mechanism(&mechanism);
	return dp_mechanism_to_datum(&mechanism);
}

static Datum
construct(dp_mechanism_kind kind, double epsilon, int64 horizon, int64 max_per_step,
		  int64 block)
{
	return construct_flagged(kind, 0, epsilon, horizon, max_per_step, block);
}

/*
 * The step bound argument: NULL is "not stated" (DP_STEP_BOUND_UNSTATED).
 * An explicit 0 is refused, not taken for "not stated": a user who writes
 * a bound means one.
 */
static int64
step_bound_argument(FunctionCallInfo fcinfo, int argno)
{
	int64		bound;

	if (PG_ARGISNULL(argno))
		return DP_STEP_BOUND_UNSTATED;
	bound = PG_GETARG_INT64(argno);
	if (bound == DP_STEP_BOUND_UNSTATED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_per_step must be between 1 and %s",
						dp_limit_text_int64(DP_MAX_PER_STEP_MAX)),
				 errdetail("max_per_step was 0."),
				 errhint("max_per_step is the largest value one time step may contribute; "
						 "leave it out (NULL) for a sum, average or variance.")));
	return bound;
}

/*
 * dp_binary(epsilon, horizon, max_per_step DEFAULT NULL); a NULL epsilon
 * or horizon gives NULL, as the strict constructors before 0.14.0 did.
 * The 0.1.0 to 0.13.0 definitions call these with their default of 1.
 */
Datum
dp_binary_construct(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(construct(DP_MECHANISM_BINARY, PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1),
							  step_bound_argument(fcinfo, 2), 0));
}

/* dp_simple_i(epsilon, horizon, max_per_step DEFAULT NULL) */
Datum
dp_simple_i_construct(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(construct(DP_MECHANISM_SIMPLE_I, PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1),
							  step_bound_argument(fcinfo, 2), 0));
}

/* dp_simple_ii(epsilon, max_per_step DEFAULT NULL) */
Datum
dp_simple_ii_construct(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(construct(DP_MECHANISM_SIMPLE_II, PG_GETARG_FLOAT8(0), 0,
							  step_bound_argument(fcinfo, 1), 0));
}

/*
 * A block or arity left out is the kind's default for the horizon; when no
 * value fits the horizon at all (balanced digits beyond about 2^56 steps),
 * the horizon is what is wrong, and an error about an arity the user never
 * gave would send them the wrong way.  Other failures are left to
 * check_mechanism, which reports them as usual.
 */
static void
check_default_block(dp_mechanism_kind kind, uint32 flags, double epsilon, int64 horizon,
					int64 max_per_step, int64 block)
{
	const dp_counter_kind *counter_kind = dp_counter_kind_by_id(kind);
	dp_mechanism mechanism;
	const char *field;
	int64		limit;

	fill_mechanism(&mechanism, kind, flags, epsilon, horizon, max_per_step, block);
	if (counter_kind == NULL || !counter_kind->bounded ||
		dp_mechanism_validate(&mechanism, &field) != DP_ERROR_BLOCK)
		return;
	limit = dp_mechanism_default_block_horizon_max(&mechanism);
	if (limit <= 0 || horizon <= limit)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("horizon is too large for the %s mechanism", counter_kind->name),
			 errdetail("horizon was " INT64_FORMAT "; with any %s, the %s mechanism takes at most "
					   INT64_FORMAT " steps.", horizon, counter_kind->block_name,
					   counter_kind->name, limit),
			 (flags & DP_FLAG_ZCDP) ?
			 errhint("For a longer stream use dp_zcdp_mechanism_of with kary or binary (up to "
					 "%s steps), or with balanced_unbounded and no horizon.",
					 dp_limit_text_int64(DP_HORIZON_MAX)) :
			 errhint("For a longer stream use dp_kary or dp_binary (up to %s steps), or "
					 "dp_balanced_unbounded (dp_auto without a horizon).",
					 dp_limit_text_int64(DP_HORIZON_MAX))));
}

/*
 * Constructors of the form (epsilon, horizon, block DEFAULT NULL,
 * max_per_step DEFAULT 1), where the kind's default_block fills a NULL
 * block (two_level's block, an arity of kary and balanced) from the horizon.
 * The definitions of 0.1.0 to 0.13.0 only, kept with their meaning for a
 * database whose extension is not yet updated; 0.14.0's order is
 * construct_in_order's.
 */
static Datum
construct_with_block(FunctionCallInfo fcinfo, dp_mechanism_kind kind)
{
	int64		horizon;
	int64		block;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	horizon = PG_GETARG_INT64(1);
	if (!PG_ARGISNULL(2))
		block = PG_GETARG_INT64(2);
	else
	{
		block = horizon >= 1 && horizon <= DP_HORIZON_MAX ?
			dp_counter_kind_by_id(kind)->default_block(horizon) : 0;
		check_default_block(kind, 0, PG_GETARG_FLOAT8(0), horizon, PG_GETARG_INT64(3), block);
	}
	return construct(kind, PG_GETARG_FLOAT8(0), horizon, PG_GETARG_INT64(3), block);
}

/* dp_two_level(epsilon, horizon, block DEFAULT ceil(sqrt(horizon)), max_per_step DEFAULT 1) */
Datum
dp_two_level_construct(PG_FUNCTION_ARGS)
{
	return construct_with_block(fcinfo, DP_MECHANISM_TWO_LEVEL);
}

/* dp_kary(epsilon, horizon, arity DEFAULT least mean variance, max_per_step DEFAULT 1) */
Datum
dp_kary_construct(PG_FUNCTION_ARGS)
{
	return construct_with_block(fcinfo, DP_MECHANISM_KARY);
}

/* dp_balanced(epsilon, horizon, odd arity DEFAULT least mean variance, max_per_step DEFAULT 1) */
Datum
dp_balanced_construct(PG_FUNCTION_ARGS)
{
	return construct_with_block(fcinfo, DP_MECHANISM_BALANCED);
}

/*
 * dp_mechanism_of(kind text, epsilon, horizon DEFAULT NULL, parameter DEFAULT
 * NULL, max_per_step DEFAULT 1), as 0.9.0 to 0.13.0 define it: any
 * registered mechanism by its name in the text form.  A NULL horizon is
 * none (unbounded kinds); a NULL parameter is the kind's default block or
 * arity.  0.14.0's order is dp_mechanism_of_0_14's.
 */
static Datum mechanism_by_name(FunctionCallInfo fcinfo, bool zcdp);

Datum
dp_mechanism_of(PG_FUNCTION_ARGS)
{
	return mechanism_by_name(fcinfo, false);
}

/*
 * dp_zcdp_mechanism_of(kind, rho, horizon, parameter, max_per_step): the
 * same under rho-zCDP with discrete Gaussian noise, for the kinds that
 * accept it.
 */
PG_FUNCTION_INFO_V1(dp_zcdp_mechanism_of);

Datum
dp_zcdp_mechanism_of(PG_FUNCTION_ARGS)
{
	return mechanism_by_name(fcinfo, true);
}

static Datum
mechanism_by_name(FunctionCallInfo fcinfo, bool zcdp)
{
	char	   *name;
	const dp_counter_kind *kind;
	int64		horizon;
	int64		block = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(4))
		PG_RETURN_NULL();
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	kind = dp_counter_kind_by_name(name);
	if (kind == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("Name a mechanism as in its text form, e.g. \"binary\" or \"balanced_unbounded\".")));
	/*
	 * A NULL horizon is "none", which only an unbounded kind can take; for
	 * a T-bounded kind it is a missing argument, and gives NULL as a NULL
	 * epsilon does (as the strict dp_binary does), not a range error about
	 * a horizon nobody gave.
	 */
	if (PG_ARGISNULL(2) && kind->bounded)
		PG_RETURN_NULL();
	horizon = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT64(2);
	if (!PG_ARGISNULL(3))
		block = PG_GETARG_INT64(3);
	else if (kind->has_block &&
			 (!kind->bounded || (horizon >= 1 && horizon <= DP_HORIZON_MAX)))
	{
		block = kind->default_block(horizon);
		check_default_block(kind->kind, zcdp ? DP_FLAG_ZCDP : 0, PG_GETARG_FLOAT8(1), horizon,
							PG_GETARG_INT64(4), block);
	}
	PG_RETURN_DATUM(construct_flagged(kind->kind, zcdp ? DP_FLAG_ZCDP : 0, PG_GETARG_FLOAT8(1),
									  horizon, PG_GETARG_INT64(4), block));
}

/* dp_hybrid(epsilon, max_per_step DEFAULT NULL) */
Datum
dp_hybrid_construct(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(construct(DP_MECHANISM_HYBRID, PG_GETARG_FLOAT8(0), 0,
							  step_bound_argument(fcinfo, 1), 0));
}

/* dp_ppcum(epsilon, horizon, max_per_step DEFAULT NULL) */
Datum
dp_ppcum_construct(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(construct(DP_MECHANISM_PPCUM, PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1),
							  step_bound_argument(fcinfo, 2), 0));
}

static Datum
with_flag(Datum datum, uint32 flag)
{
	dp_mechanism mechanism = *dp_mechanism_from_datum(datum);

	mechanism.flags |= flag;
	check_mechanism(&mechanism);
	return dp_mechanism_to_datum(&mechanism);
}

/* dp_pan_private(mechanism): the same mechanism with the pan-private option */
Datum
dp_pan_private_option(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(with_flag(PG_GETARG_DATUM(0), DP_FLAG_PAN_PRIVATE));
}

/* dp_consistent(mechanism): the same mechanism with consistent output */
Datum
dp_consistent_option(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(with_flag(PG_GETARG_DATUM(0), DP_FLAG_CONSISTENT));
}

/*
 * dp_keyed(mechanism, key): the same mechanism with repeatable noise under a
 * registered key (docs/keyed_noise.md).  Pan-private is implied: the terms
 * drawn over complete data carry the guarantee on their own.  Building the
 * value checks nothing but the name; a keyed mechanism draws noise only
 * when its key is registered with this mechanism (dp_stream.create_key).
 */
Datum
dp_keyed_option(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism = *dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	text	   *key = PG_GETARG_TEXT_PP(1);
	int			length = VARSIZE_ANY_EXHDR(key);

	if (mechanism.flags & DP_FLAG_KEYED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the mechanism is keyed already (key \"%s\")", mechanism.key)));
	if (!dp_key_name_valid(VARDATA_ANY(key), length))
		dp_report_status(DP_ERROR_KEY, "key", &mechanism);
	memcpy(mechanism.key, VARDATA_ANY(key), length);
	mechanism.flags |= DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE;
	check_mechanism(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * The output function of the text that names a partition, in fn_mcxt (the
 * type is the call site's: it does not change from row to row).  Only
 * types whose output does not depend
 * on a setting are taken: with DateStyle, TimeZone, extra_float_digits or
 * bytea_output in the text, the same partition refreshed under another
 * setting would draw fresh noise, and readers of the refreshed view could
 * average it away.
 */
static void
partition_output(FunctionCallInfo fcinfo, int argno, FmgrInfo *output_info)
{
	Oid			type = get_fn_expr_argtype(fcinfo->flinfo, argno);
	Oid			base = OidIsValid(type) ? getBaseType(type) : InvalidOid;
	Oid			output;
	bool		varlena;

	switch (base)
	{
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case NAMEOID:
		case CHAROID:
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
		case BOOLOID:
		case UUIDOID:
			break;
		default:
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("a partition must be text, an integer, numeric, boolean or uuid"),
					 errdetail("The partition was of type %s, whose text may depend on a "
							   "setting; the same partition would then draw other noise.",
							   OidIsValid(type) ? format_type_be(type) : "unknown"),
					 errhint("Convert it to text in a fixed format, e.g. partition => "
							 "to_char(day, 'YYYY-MM-DD').")));
	}
	getTypeOutputInfo(type, &output, &varlena);
	fmgr_info_cxt(output, output_info, fcinfo->flinfo->fn_mcxt);
}

/*
 * BLAKE2b of the partition's text, 16 bytes, in a domain of its own.  It
 * need not be secret: the noise key derived from it is keyed by the
 * database's noise secret (dp_keyed_noise_key).  Never all zero, which
 * means "no partition" (a digest of zero has probability 2^-128; then the
 * last byte is set).
 */
static void
partition_digest(const char *text, size_t length, unsigned char *digest)
{
	static const char domain[] = "dp_stream partition v1|";
	crypto_generichash_state state;

	(void) dp_backend_random();	/* initialises libsodium */
	crypto_generichash_init(&state, NULL, 0, DP_PARTITION_BYTES);
	crypto_generichash_update(&state, (const unsigned char *) domain, sizeof(domain) - 1);
	crypto_generichash_update(&state, (const unsigned char *) text, length);
	crypto_generichash_final(&state, digest, DP_PARTITION_BYTES);
	if (!dp_mechanism_has_partition_digest(digest))
		digest[DP_PARTITION_BYTES - 1] = 1;
}

/*
 * The last call's arguments and result, in fn_mcxt: with `partition =>
 * ward`, the function runs once per row, and consecutive rows mostly have
 * the same ward.
 */
typedef struct PartitionCache
{
	FmgrInfo	output;			/* of the partition's type */
	bytea	   *mechanism;
	text	   *key;
	char	   *partition;
	bytea	   *result;
} PartitionCache;

static bool
same_bytes(const struct varlena *cached, const struct varlena *value)
{
	return VARSIZE_ANY_EXHDR(cached) == VARSIZE_ANY_EXHDR(value) &&
		memcmp(VARDATA_ANY(cached), VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value)) == 0;
}

/*
 * dp_keyed(mechanism, key, partition): dp_keyed(mechanism, key) for one
 * partition of a publication (docs/keyed_noise.md).  The partition's text
 * enters the noise derivation through a digest; the key's registration does
 * not see it, so one key serves every partition.  Not strict: a NULL
 * partition is an error, not a NULL mechanism that a window would refuse
 * with a message about mechanisms.
 */
Datum
dp_keyed_partition_option(PG_FUNCTION_ARGS)
{
	PartitionCache *cache = (PartitionCache *) fcinfo->flinfo->fn_extra;
	bytea	   *mechanism_bytes;
	text	   *key;
	Datum		keyed;
	dp_mechanism mechanism;
	char	   *partition;
	MemoryContext old_context;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the partition of a keyed mechanism must not be null"),
				 errhint("Name every partition, e.g. partition => coalesce(ward, 'unknown'), "
						 "or leave partition out for a stream of one partition.")));
	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PartitionCache));
		partition_output(fcinfo, 2, &cache->output);
		fcinfo->flinfo->fn_extra = cache;
	}
	mechanism_bytes = PG_GETARG_BYTEA_PP(0);
	key = PG_GETARG_TEXT_PP(1);
	partition = OutputFunctionCall(&cache->output, PG_GETARG_DATUM(2));
	if (cache->result != NULL && same_bytes(cache->mechanism, mechanism_bytes) &&
		same_bytes(cache->key, key) && strcmp(cache->partition, partition) == 0)
	{
		pfree(partition);
		PG_RETURN_BYTEA_P(DatumGetByteaPCopy(PointerGetDatum(cache->result)));
	}

	keyed = DirectFunctionCall2(dp_keyed_option, PointerGetDatum(mechanism_bytes),
								PointerGetDatum(key));
	mechanism = *dp_mechanism_from_datum(keyed);
	partition_digest(partition, strlen(partition), mechanism.partition);
	check_mechanism(&mechanism);
	keyed = dp_mechanism_to_datum(&mechanism);

	/*
	 * Keep it for the next row, in place of the last one.  The result is set
	 * last: a cache whose copy failed half-way is an empty one.
	 */
	if (cache->result != NULL)
	{
		pfree(cache->result);
		cache->result = NULL;
		pfree(cache->mechanism);
		pfree(cache->key);
		pfree(cache->partition);
	}
	old_context = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	cache->mechanism = DatumGetByteaPCopy(PointerGetDatum(mechanism_bytes));
	cache->key = DatumGetTextPCopy(PointerGetDatum(key));
	cache->partition = pstrdup(partition);
	cache->result = DatumGetByteaPCopy(keyed);
	MemoryContextSwitchTo(old_context);
	pfree(partition);
	PG_RETURN_DATUM(keyed);
}

/*
 * dp_publication's cache, in fn_mcxt: the publication's registered mechanism
 * is looked up once per query and call site (a publication is never changed
 * or dropped: dp_stream.publications is append-only), and the last
 * partition's result is kept as dp_keyed's is.
 */
typedef struct PublicationCache
{
	FmgrInfo	output;			/* of the partition's type */
	text	   *name;
	bytea	   *registered;
	char	   *partition;
	bytea	   *result;
} PublicationCache;

PG_FUNCTION_INFO_V1(dp_publication_option);

/*
 * dp_publication(name, partition): the mechanism of a registered publication
 * (dp_stream.create_publication) for one of its partitions, the same value
 * as dp_keyed(its mechanism, name, partition => partition), so that a view
 * names the publication instead of restating its mechanism.  Not strict, as
 * dp_keyed's partition form: a NULL partition is an error.
 */
Datum
dp_publication_option(PG_FUNCTION_ARGS)
{
	PublicationCache *cache = (PublicationCache *) fcinfo->flinfo->fn_extra;
	text	   *name;
	char	   *partition;
	dp_mechanism mechanism;
	Datum		result;
	MemoryContext old_context;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the partition of a publication must not be null"),
				 errhint("Name every partition, e.g. dp_publication('meters', "
						 "coalesce(meter, 'unknown')).")));
	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PublicationCache));
		partition_output(fcinfo, 1, &cache->output);
		fcinfo->flinfo->fn_extra = cache;
	}
	name = PG_GETARG_TEXT_PP(0);
	if (cache->registered == NULL || !same_bytes(cache->name, name))
	{
		char	   *name_text = text_to_cstring(name);
		Datum		registered = dp_publication_registered(name_text);

		if (cache->registered != NULL)
		{
			pfree(cache->registered);
			pfree(cache->name);
			cache->registered = NULL;
		}
		if (cache->result != NULL)
		{
			pfree(cache->result);
			pfree(cache->partition);
			cache->result = NULL;
		}
		old_context = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		cache->name = DatumGetTextPCopy(PointerGetDatum(name));
		cache->registered = DatumGetByteaPCopy(registered);
		MemoryContextSwitchTo(old_context);
		pfree(name_text);
	}
	partition = OutputFunctionCall(&cache->output, PG_GETARG_DATUM(1));
	if (cache->result != NULL && strcmp(cache->partition, partition) == 0)
	{
		pfree(partition);
		PG_RETURN_BYTEA_P(DatumGetByteaPCopy(PointerGetDatum(cache->result)));
	}

	mechanism = *dp_mechanism_from_datum(PointerGetDatum(cache->registered));
	partition_digest(partition, strlen(partition), mechanism.partition);
	check_mechanism(&mechanism);
	result = dp_mechanism_to_datum(&mechanism);

	if (cache->result != NULL)
	{
		pfree(cache->result);
		pfree(cache->partition);
		cache->result = NULL;
	}
	old_context = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	cache->partition = pstrdup(partition);
	cache->result = DatumGetByteaPCopy(result);
	MemoryContextSwitchTo(old_context);
	pfree(partition);
	PG_RETURN_DATUM(result);
}

/* Errors of the functions that answer from a mechanism alone. */
static void
report_planning_status(dp_status status, const char *field, const dp_mechanism *mechanism,
					   int64 steps)
{
	if (status == DP_ERROR_HORIZON_EXCEEDED && field && strcmp(field, "noise_scales") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_error_bound_max handles releases of at most %d noise scales",
						DP_PLANNING_NOISE_SCALES_MAX),
				 errdetail("A release of this mechanism within the first " INT64_FORMAT
						   " steps has more.", steps),
				 errhint("Use dp_error_bound at the steps you need, or fewer steps.")));
	if (status == DP_ERROR_HORIZON_EXCEEDED && mechanism->horizon == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steps must be between 0 and %s", dp_limit_text_int64(DP_HORIZON_MAX)),
				 errdetail("steps was " INT64_FORMAT ".", steps)));
	if (status == DP_ERROR_HORIZON_EXCEEDED)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steps must be between 0 and the horizon"),
				 errdetail("steps was " INT64_FORMAT ", horizon " INT64_FORMAT ".",
						   steps, mechanism->horizon)));
	if (status != DP_OK)
		dp_report_status(status, field, mechanism);
}

/*
 * dp_person_level(mechanism, contributions): the same mechanism with a
 * person as the privacy unit, who contributes at most `contributions` to
 * the whole stream (docs/privacy_unit.md); the noise is calibrated to that
 * instead of to max_per_step.
 */
Datum
dp_person_level_option(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism = *dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	if (mechanism.flags & DP_FLAG_PERSON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the mechanism is person-level already (contributions " INT64_FORMAT ")",
						mechanism.contributions)));
	mechanism.flags |= DP_FLAG_PERSON;
	mechanism.contributions = PG_GETARG_INT64(1);
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
	report_planning_status(status, field, mechanism, steps);
	PG_RETURN_FLOAT8(bound);
}

/* dp_error_sd(mechanism, steps): the standard deviation of the error at steps */
Datum
dp_mechanism_error_sd(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		steps = PG_GETARG_INT64(1);
	double		sd;
	const char *field = NULL;

	report_planning_status(dp_planning_error_sd(mechanism, steps, &sd, &field), field,
						   mechanism, steps);
	PG_RETURN_FLOAT8(sd);
}

/*
 * dp_epsilon_for(mechanism, half_width, steps, confidence): the smallest
 * epsilon whose error bound at steps is at most half_width
 */
Datum
dp_mechanism_epsilon_for(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	double		half_width = PG_GETARG_FLOAT8(1);
	int64		steps = PG_GETARG_INT64(2);
	double		confidence = PG_GETARG_FLOAT8(3);
	double		epsilon;
	const char *field = NULL;
	dp_status	status;

	if (mechanism->flags & DP_FLAG_ZCDP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("dp_epsilon_for does not apply to a rho-zCDP mechanism"),
				 errhint("Compare dp_error_bound at a few values of rho instead.")));
	dp_check_confidence(confidence);
	if (!(half_width > 0) || isinf(half_width))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("half_width must be positive and finite")));
	status = dp_planning_epsilon_for(mechanism, steps, confidence, half_width, &epsilon, &field);
	if (status == DP_ERROR_EPSILON)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no epsilon up to %g gives an error bound of %g at step " INT64_FORMAT,
						DP_EPSILON_MAX, half_width, steps),
				 errhint("Even the smallest noise is wider: allow a wider error, a lower "
						 "confidence, a smaller max_per_step or another mechanism.")));
	report_planning_status(status, field, mechanism, steps);
	PG_RETURN_FLOAT8(epsilon);
}

static void
check_interrupts(void)
{
	CHECK_FOR_INTERRUPTS();
}

/*
 * dp_error_bound_max(mechanism, steps, confidence): the widest bound over
 * steps 1..steps, a band that never narrows
 */
Datum
dp_mechanism_error_bound_max(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		steps = PG_GETARG_INT64(1);
	double		confidence = PG_GETARG_FLOAT8(2);
	double		bound;
	const char *field = NULL;
	dp_status	status;

	dp_check_confidence(confidence);
	if (steps > DP_PLANNING_SCAN_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("dp_error_bound_max scans at most %d steps", DP_PLANNING_SCAN_MAX),
				 errdetail("steps was " INT64_FORMAT ".", steps)));
	status = dp_planning_max_error_bound(mechanism, steps, confidence, check_interrupts,
										 &bound, &field);
	report_planning_status(status, field, mechanism, steps);
	PG_RETURN_FLOAT8(bound);
}

/* dp_epsilon(mechanism): the epsilon a stream of this mechanism spends */
Datum
dp_mechanism_epsilon(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	/* rho is not an epsilon: a ledger in epsilon must not take it for one */
	if (mechanism->flags & DP_FLAG_ZCDP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a rho-zCDP mechanism has no pure epsilon"),
				 errhint("dp_rho(mechanism) gives rho; dp_zcdp_epsilon(mechanism, delta) "
						 "gives the epsilon of the (epsilon, delta)-DP it implies.")));
	/* an expiring mechanism's epsilon is its loss at age 0; a ledger needs the loss at any age */
	PG_RETURN_FLOAT8(dp_delayed_tree_privacy_loss(mechanism, PG_INT64_MAX));
}

/*
 * dp_expiring(epsilon, lambda, delay DEFAULT 0, max_per_step DEFAULT 1):
 * privacy expiration (dp_expiring.c); lambda is the mechanism's real
 * parameter, which dp_mechanism_of cannot pass.
 */
PG_FUNCTION_INFO_V1(dp_expiring_construct);

Datum
dp_expiring_construct(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING;
	mechanism.epsilon = PG_GETARG_FLOAT8(0);
	mechanism.shape = PG_GETARG_FLOAT8(1);
	mechanism.block = PG_GETARG_INT64(2);
	mechanism.max_per_step = PG_GETARG_INT64(3);
	check_mechanism(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * dp_expiring_baseline(epsilon_current, epsilon_past, window, horizon,
 * max_per_step DEFAULT 1): epsilon_past is kept as a ratio to epsilon, so
 * that a statistic splitting epsilon over its counters splits both.
 */
PG_FUNCTION_INFO_V1(dp_expiring_baseline_construct);

Datum
dp_expiring_baseline_construct(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;
	double		current = PG_GETARG_FLOAT8(0);
	double		past = PG_GETARG_FLOAT8(1);

	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING_BASELINE;
	mechanism.epsilon = current;
	/* a bad epsilon_current is reported as such by validation, before the ratio */
	mechanism.shape = current > 0 && isfinite(past) ? past / current : (isnan(past) ? past : -1);
	mechanism.block = PG_GETARG_INT64(2);
	mechanism.horizon = PG_GETARG_INT64(3);
	mechanism.max_per_step = PG_GETARG_INT64(4);
	check_mechanism(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * dp_privacy_loss(mechanism, age): the guaranteed loss of a privacy unit
 * whose oldest data is `age` steps old, by all releases up to now
 * (dp_delayed_tree_privacy_loss); epsilon at every age for a mechanism
 * without expiration.
 */
PG_FUNCTION_INFO_V1(dp_privacy_loss_sql);

Datum
dp_privacy_loss_sql(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	int64		age = PG_GETARG_INT64(1);

	if (mechanism->flags & DP_FLAG_ZCDP)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a rho-zCDP mechanism has no pure epsilon"),
				 errhint("dp_zcdp_epsilon(mechanism, delta) gives the epsilon of the "
						 "(epsilon, delta)-DP it implies.")));
	if (age < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("age must be at least 0"),
				 errdetail("age was " INT64_FORMAT ".", age),
				 errhint("The age of an item is how many steps ago it was released: 0 for the "
						 "latest step.")));
	PG_RETURN_FLOAT8(dp_delayed_tree_privacy_loss(mechanism, age));
}

/*
 * dp_zcdp_epsilon(rho, delta): the epsilon of the (epsilon, delta)-DP that
 * rho-zCDP implies (the conversion of Canonne, Kamath and Steinke; never
 * below the exact infimum, never above rho + 2 sqrt(rho log(1/delta))).
 */
PG_FUNCTION_INFO_V1(dp_zcdp_epsilon_sql);

Datum
dp_zcdp_epsilon_sql(PG_FUNCTION_ARGS)
{
	double		rho = PG_GETARG_FLOAT8(0);
	double		delta = PG_GETARG_FLOAT8(1);

	if (!(rho > 0) || isinf(rho))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rho must be positive and finite")));
	if (!(delta > 0 && delta < 1))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("delta must be between 0 and 1, exclusive"),
				 errhint("Take delta well below one over the number of people in the data, e.g. 1e-9.")));
	PG_RETURN_FLOAT8(dp_zcdp_epsilon(rho, delta));
}

/* dp_rho(mechanism): rho of a zCDP mechanism, else NULL */
PG_FUNCTION_INFO_V1(dp_mechanism_rho);

Datum
dp_mechanism_rho(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	if (!(mechanism->flags & DP_FLAG_ZCDP))
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(mechanism->epsilon);
}

/* dp_key_of(mechanism): the key of a keyed mechanism, else NULL */
PG_FUNCTION_INFO_V1(dp_mechanism_key);

Datum
dp_mechanism_key(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));

	if (!(mechanism->flags & DP_FLAG_KEYED))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(mechanism->key));
}

/*
 * ---- 0.14.0: one argument order ----
 *
 * Every constructor takes (epsilon or rho, horizon, max_per_step, then the
 * kind's own parameters), and (epsilon, max_per_step, ...) without a
 * horizon; max_per_step NULL is "not stated".  Before 0.14.0 the third
 * argument of dp_kary, dp_balanced, dp_honaker and dp_two_level was the
 * arity or block, that of dp_binary max_per_step, so dp_kary(1.0, 365, 50)
 * built an arity-50 tree that clamped every step to 1.
 *
 * PostgreSQL resolves named arguments to positions before a function runs
 * (and folds an immutable call on constants while planning), so a
 * constructor cannot tell dp_kary(1.0, 365, 50) from dp_kary(1.0, 365,
 * max_per_step => 50).  What it can tell is whether the values it got,
 * read in the old order, would have built another valid mechanism: then
 * the call may be an old one whose meaning changed, and it warns (01P01),
 * for this release, unless dp_stream.argument_order_warning is off.  A
 * call whose old reading was invalid (dp_kary(1.0, 365, 1): arity 1) or
 * the same mechanism cannot have changed meaning, and does not warn.
 */

/* the old reading's default bound: before 0.14.0 max_per_step defaulted to 1 */
#define OLD_DEFAULT_STEP_BOUND 1

/*
 * A call of `function` in 0.14.0's order with its own parameters named, for
 * the warning's hint.
 */
static const char *
example_call(const char *function)
{
	if (strcmp(function, "dp_kary") == 0)
		return "dp_kary(1.0, 365, 50, arity => 4)";
	if (strcmp(function, "dp_balanced") == 0)
		return "dp_balanced(1.0, 365, 50, arity => 5)";
	if (strcmp(function, "dp_honaker") == 0)
		return "dp_honaker(1.0, 365, 50, arity => 2)";
	if (strcmp(function, "dp_two_level") == 0)
		return "dp_two_level(1.0, 365, 50, block => 20)";
	if (strcmp(function, "dp_expiring") == 0)
		return "dp_expiring(1.0, 50, lambda => 2)";
	if (strcmp(function, "dp_expiring_baseline") == 0)
		return "dp_expiring_baseline(1.0, 365, 50, epsilon_past => 0.5, window_size => 30)";
	if (strcmp(function, "dp_mechanism_of") == 0)
		return "dp_mechanism_of('kary', 1.0, 365, 50, parameter => 4)";
	if (strcmp(function, "dp_zcdp_mechanism_of") == 0)
		return "dp_zcdp_mechanism_of('kary', 0.5, 365, 50, parameter => 4)";
	return "dp_kary(1.0, 365, 50, arity => 4)";
}

static void
warn_if_meaning_changed(const char *function, const dp_mechanism *now,
						const dp_mechanism *before)
{
	char		now_text[DP_MECHANISM_TEXT_BYTES];
	char		before_text[DP_MECHANISM_TEXT_BYTES];
	const char *field;

	if (!dp_argument_order_warning)
		return;
	if (dp_mechanism_validate(before, &field) != DP_OK ||
		memcmp(now, before, sizeof(dp_mechanism)) == 0)
		return;
	dp_mechanism_to_text(now, now_text, sizeof(now_text));
	dp_mechanism_to_text(before, before_text, sizeof(before_text));
	ereport(WARNING,
			(errcode(ERRCODE_WARNING_DEPRECATED_FEATURE),
			 errmsg("%s takes max_per_step before its own parameters since dp_stream 0.14.0",
					function),
			 errdetail("This call builds %s; written positionally for an earlier version, "
					   "the same arguments meant %s.", now_text, before_text),
			 errhint("Name the parameters after max_per_step (as in %s).  "
					 "PostgreSQL does not tell a constructor whether an "
					 "argument was named, so named calls see this warning too; "
					 "SET dp_stream.argument_order_warning = off silences it.",
					 example_call(function))));
}

/* a bigint argument, or `otherwise` when NULL */
static int64
int64_argument_or(FunctionCallInfo fcinfo, int argno, int64 otherwise)
{
	return PG_ARGISNULL(argno) ? otherwise : PG_GETARG_INT64(argno);
}

/* the kind's default block for the horizon, 0 when the horizon is out of range */
static int64
default_block_for(const dp_counter_kind *kind, int64 horizon)
{
	if (!kind->has_block || (kind->bounded && (horizon < 1 || horizon > DP_HORIZON_MAX)))
		return 0;
	return kind->default_block(horizon);
}

/*
 * (epsilon or rho, horizon or none, max_per_step, block or arity): the
 * mechanism, and the one the same values meant before 0.14.0, where the
 * block came before max_per_step (a block argument of NULL was the default,
 * an absent max_per_step 1).  `block` NULL is the kind's default.
 */
static Datum
construct_in_order(FunctionCallInfo fcinfo, const dp_counter_kind *kind, uint32 flags,
				   double epsilon, int64 horizon, int max_argno, int block_argno,
				   const char *function)
{
	dp_mechanism mechanism;
	dp_mechanism before;
	int64		max_per_step = step_bound_argument(fcinfo, max_argno);
	int64		block;

	if (!PG_ARGISNULL(block_argno))
		block = PG_GETARG_INT64(block_argno);
	else
	{
		block = default_block_for(kind, horizon);
		if (kind->has_block)
			check_default_block(kind->kind, flags, epsilon, horizon, max_per_step, block);
	}
	fill_mechanism(&mechanism, kind->kind, flags, epsilon, horizon, max_per_step, block);
	check_mechanism(&mechanism);

	/* the old reading: the max_per_step argument was the block, the block argument the bound */
	if (!PG_ARGISNULL(max_argno) || !PG_ARGISNULL(block_argno))
	{
		int64		old_block = PG_ARGISNULL(max_argno) ?
			default_block_for(kind, horizon) : PG_GETARG_INT64(max_argno);

		fill_mechanism(&before, kind->kind, flags, epsilon, horizon,
					   int64_argument_or(fcinfo, block_argno, OLD_DEFAULT_STEP_BOUND), old_block);
		warn_if_meaning_changed(function, &mechanism, &before);
	}
	return dp_mechanism_to_datum(&mechanism);
}

/* (epsilon, horizon, max_per_step DEFAULT NULL, block-or-arity DEFAULT NULL) */
static Datum
construct_bounded_in_order(FunctionCallInfo fcinfo, dp_mechanism_kind kind_id,
						   const char *function)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	return construct_in_order(fcinfo, dp_counter_kind_by_id(kind_id), 0, PG_GETARG_FLOAT8(0),
							  PG_GETARG_INT64(1), 2, 3, function);
}

PG_FUNCTION_INFO_V1(dp_kary_construct_0_14);
PG_FUNCTION_INFO_V1(dp_balanced_construct_0_14);
PG_FUNCTION_INFO_V1(dp_honaker_construct_0_14);
PG_FUNCTION_INFO_V1(dp_two_level_construct_0_14);
PG_FUNCTION_INFO_V1(dp_mechanism_of_0_14);
PG_FUNCTION_INFO_V1(dp_zcdp_mechanism_of_0_14);
PG_FUNCTION_INFO_V1(dp_expiring_construct_0_14);
PG_FUNCTION_INFO_V1(dp_expiring_baseline_construct_0_14);
PG_FUNCTION_INFO_V1(dp_check_count_mechanism);

/* dp_kary(epsilon, horizon, max_per_step DEFAULT NULL, arity DEFAULT least mean variance) */
Datum
dp_kary_construct_0_14(PG_FUNCTION_ARGS)
{
	return construct_bounded_in_order(fcinfo, DP_MECHANISM_KARY, "dp_kary");
}

/* dp_balanced(epsilon, horizon, max_per_step DEFAULT NULL, odd arity DEFAULT least mean variance) */
Datum
dp_balanced_construct_0_14(PG_FUNCTION_ARGS)
{
	return construct_bounded_in_order(fcinfo, DP_MECHANISM_BALANCED, "dp_balanced");
}

/* dp_honaker(epsilon, horizon, max_per_step DEFAULT NULL, arity DEFAULT NULL) */
Datum
dp_honaker_construct_0_14(PG_FUNCTION_ARGS)
{
	return construct_bounded_in_order(fcinfo, DP_MECHANISM_HONAKER, "dp_honaker");
}

/* dp_two_level(epsilon, horizon, max_per_step DEFAULT NULL, block DEFAULT ceil(sqrt(horizon))) */
Datum
dp_two_level_construct_0_14(PG_FUNCTION_ARGS)
{
	return construct_bounded_in_order(fcinfo, DP_MECHANISM_TWO_LEVEL, "dp_two_level");
}

/*
 * dp_mechanism_of(kind, epsilon, horizon DEFAULT NULL, max_per_step DEFAULT
 * NULL, parameter DEFAULT NULL) and dp_zcdp_mechanism_of(kind, rho, ...):
 * any registered mechanism by its name in the text form.  A NULL horizon is
 * none (an unbounded kind; for a bounded one a missing argument, which
 * gives NULL as a NULL epsilon does); a NULL parameter the kind's default
 * block or arity.
 */
static Datum
mechanism_by_name_in_order(FunctionCallInfo fcinfo, bool zcdp)
{
	char	   *name;
	const dp_counter_kind *kind;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	name = text_to_cstring(PG_GETARG_TEXT_PP(0));
	kind = dp_counter_kind_by_name(name);
	if (kind == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown mechanism \"%s\"", name),
				 errhint("Name a mechanism as in its text form, e.g. \"binary\" or \"balanced_unbounded\".")));
	if (PG_ARGISNULL(2) && kind->bounded)
		PG_RETURN_NULL();
	return construct_in_order(fcinfo, kind, zcdp ? DP_FLAG_ZCDP : 0, PG_GETARG_FLOAT8(1),
							  int64_argument_or(fcinfo, 2, 0), 3, 4,
							  zcdp ? "dp_zcdp_mechanism_of" : "dp_mechanism_of");
}

Datum
dp_mechanism_of_0_14(PG_FUNCTION_ARGS)
{
	return mechanism_by_name_in_order(fcinfo, false);
}

Datum
dp_zcdp_mechanism_of_0_14(PG_FUNCTION_ARGS)
{
	return mechanism_by_name_in_order(fcinfo, true);
}

/* whether a double holds an integer that a bigint argument could have passed */
static bool
integral(double value)
{
	return isfinite(value) && value == floor(value) && fabs(value) < 9.2e18;
}

/*
 * dp_expiring(epsilon, max_per_step DEFAULT NULL, lambda, delay DEFAULT 0):
 * privacy expiration (dp_expiring.c).  lambda has no useful default but
 * must follow max_per_step, so it defaults to NULL and is required here.
 * Before 0.14.0 the order was (epsilon, lambda, delay, max_per_step).
 */
Datum
dp_expiring_construct_0_14(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_expiring needs lambda"),
				 errhint("Name it after max_per_step: dp_expiring(1.0, 50, lambda => 2) for a "
						 "count, dp_expiring(1.0, lambda => 2) for a sum, average or variance.")));
	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING;
	mechanism.epsilon = PG_GETARG_FLOAT8(0);
	mechanism.max_per_step = step_bound_argument(fcinfo, 1);
	mechanism.shape = PG_GETARG_FLOAT8(2);
	mechanism.block = int64_argument_or(fcinfo, 3, 0);
	check_mechanism(&mechanism);

	/*
	 * The old reading: lambda was the second argument (required, so the
	 * bound must be given), delay the third (an integer), max_per_step the
	 * fourth (1 when absent; a delay of 0 is read as absent, as an old bound
	 * of 0 was invalid).
	 */
	if (!PG_ARGISNULL(1) && integral(mechanism.shape))
	{
		dp_mechanism before = mechanism;

		before.shape = (double) mechanism.max_per_step;
		before.block = (int64) mechanism.shape;
		before.max_per_step = mechanism.block != 0 ? mechanism.block : OLD_DEFAULT_STEP_BOUND;
		warn_if_meaning_changed("dp_expiring", &mechanism, &before);
	}
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * dp_expiring_baseline(epsilon, horizon, max_per_step DEFAULT NULL,
 * epsilon_past, window_size): epsilon_past is kept as a ratio to epsilon,
 * so that a statistic splitting epsilon over its counters splits both.
 * Before 0.14.0: (epsilon_current, epsilon_past, window_size, horizon,
 * max_per_step).
 */
Datum
dp_expiring_baseline_construct_0_14(PG_FUNCTION_ARGS)
{
	dp_mechanism mechanism;
	double		current;
	double		past;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(3) || PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("dp_expiring_baseline needs epsilon_past and window_size"),
				 errhint("Name them after max_per_step: dp_expiring_baseline(1.0, 365, 50, "
						 "epsilon_past => 0.5, window_size => 30).")));
	current = PG_GETARG_FLOAT8(0);
	past = PG_GETARG_FLOAT8(3);
	memset(&mechanism, 0, sizeof(mechanism));
	mechanism.kind = DP_MECHANISM_EXPIRING_BASELINE;
	mechanism.epsilon = current;
	/* a bad epsilon is reported as such by validation, before the ratio */
	mechanism.shape = current > 0 && isfinite(past) ? past / current : (isnan(past) ? past : -1);
	mechanism.horizon = PG_GETARG_INT64(1);
	mechanism.max_per_step = step_bound_argument(fcinfo, 2);
	mechanism.block = PG_GETARG_INT64(4);
	check_mechanism(&mechanism);

	/*
	 * The old reading: epsilon_past, window_size and horizon were the
	 * second to fourth arguments (all required), max_per_step the fifth.
	 */
	if (!PG_ARGISNULL(2) && integral(past))
	{
		dp_mechanism before = mechanism;

		before.shape = (double) mechanism.horizon / current;
		before.block = mechanism.max_per_step;
		before.horizon = (int64) past;
		before.max_per_step = mechanism.block;
		warn_if_meaning_changed("dp_expiring_baseline", &mechanism, &before);
	}
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

/*
 * dp_stream.check_count_mechanism(mechanism): raises the count's refusal
 * of an unstated step bound (dp_counter_prepare) at registration, before a
 * key, publication or stream is registered and charged.
 */
Datum
dp_check_count_mechanism(PG_FUNCTION_ARGS)
{
	const dp_mechanism *mechanism;

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	mechanism = dp_mechanism_from_datum(PG_GETARG_DATUM(0));
	if (!dp_mechanism_step_bound_stated(mechanism))
		dp_report_status(DP_ERROR_STEP_BOUND_UNSTATED, "max_per_step", mechanism);
	PG_RETURN_VOID();
}
