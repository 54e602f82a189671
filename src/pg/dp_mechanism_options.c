/*
 * dp_mechanism_options.c
 *		The options that wrap a mechanism: dp_pan_private, dp_consistent,
 *		dp_keyed (with a partition of a publication), dp_publication and
 *		dp_person_level.
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

PG_FUNCTION_INFO_V1(dp_pan_private_option);
PG_FUNCTION_INFO_V1(dp_consistent_option);
PG_FUNCTION_INFO_V1(dp_keyed_option);
PG_FUNCTION_INFO_V1(dp_keyed_partition_option);
PG_FUNCTION_INFO_V1(dp_person_level_option);

/* the option's name for a message, as its wrapper is called without dp_ */
static const char *
option_name(uint32 flags)
{
	return (flags & DP_FLAG_KEYED) ? "keyed" : (flags & DP_FLAG_PERSON) ? "person_level" :
		(flags & DP_FLAG_PAN_PRIVATE) ? "pan_private" : "consistent";
}

/*
 * dp_auto's choice wrapped in an option it does not accept: choose again.
 *
 * dp_auto(epsilon, horizon, max_per_step) is the kind of lowest rank for
 * the horizon with its default parameter (dp_counter_kind_auto).  When a
 * wrapper adds an option that kind refuses (balanced digits take neither
 * pan-private nor keyed noise), the mechanism becomes the kind dp_auto
 * would choose among those that accept the options: same epsilon, horizon,
 * bound and privacy unit, that kind's default parameter.  A NOTICE names
 * it, and the mechanism's text shows it.  Any other mechanism, one whose
 * kind or parameter the caller chose, is refused as before: the value is
 * the same as dp_auto's only when its parameter is the default.
 */
static void
choose_again_for_option(dp_mechanism *mechanism, uint32 added)
{
	const dp_counter_kind *kind = dp_counter_kind_by_id(mechanism->kind);
	const dp_counter_kind *chosen;
	uint32		wanted = mechanism->flags | added;

	if (kind == NULL || (kind->accepted_flags & wanted) == wanted ||
		(mechanism->flags & DP_FLAG_ZCDP) || mechanism->shape != 0 ||
		dp_counter_kind_auto(kind->bounded, 0) != kind || !kind->has_block ||
		(kind->bounded && (mechanism->horizon < 1 || mechanism->horizon > DP_HORIZON_MAX)) ||
		mechanism->block != kind->default_block(mechanism->horizon))
		return;
	chosen = dp_counter_kind_auto(kind->bounded, wanted);
	if (chosen == NULL)
		return;
	mechanism->kind = chosen->kind;
	mechanism->block = chosen->has_block ? chosen->default_block(mechanism->horizon) : 0;
	ereport(NOTICE,
			(errmsg("the %s mechanism (dp_auto's choice) does not support the %s option: using %s",
					kind->name, option_name(added), chosen->name),
			 errdetail("%s is the kind of lowest rank in dp_mechanisms() that accepts it%s; "
					   "a %s mechanism with another %s is refused instead.",
					   chosen->name, kind->bounded ? "" : " without a horizon",
					   kind->name, kind->block_name)));
}

static Datum
with_flag(Datum datum, uint32 flag)
{
	dp_mechanism mechanism = *dp_mechanism_from_datum(datum);

	choose_again_for_option(&mechanism, flag);
	mechanism.flags |= flag;
	dp_mechanism_check(&mechanism);
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
	choose_again_for_option(&mechanism, DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE);
	memcpy(mechanism.key, VARDATA_ANY(key), length);
	mechanism.flags |= DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE;
	dp_mechanism_check(&mechanism);
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
	dp_mechanism_check(&mechanism);
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
	dp_mechanism_check(&mechanism);
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
	choose_again_for_option(&mechanism, DP_FLAG_PERSON);
	mechanism.flags |= DP_FLAG_PERSON;
	mechanism.contributions = PG_GETARG_INT64(1);
	dp_mechanism_check(&mechanism);
	PG_RETURN_DATUM(dp_mechanism_to_datum(&mechanism));
}

