/*
 * dp_secret.c
 *		The database's secrets (table dp_stream.secrets) and the key registry
 *		(dp_stream.keys), read for sealing, opening and keyed noise.
 *
 * Both tables belong to the extension's owner and nobody else may read
 * them; the functions here read them directly from the heap, without
 * permission checks, so that any role can use a sealed state or a
 * registered key without ever being able to see a secret.  They are read
 * afresh on every use: a cache would outlive a rotation or a rolled-back
 * one.
 *
 * dp_stream.secrets (id bigint, purpose text, secret bytea, created_at
 * timestamptz):
 *   'seal'  new values are sealed under the most recently created one; any
 *           one opens the values sealed under it, until it is dropped;
 *   'noise' keyed noise uses the oldest one, so a restored dump, whose
 *           CREATE EXTENSION made a fresh one before the old rows came back,
 *           keeps its noise.
 */
#include "dp_stream.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/extension.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include <sodium.h>

#include "dp_seal.h"

#define SECRETS_SCHEMA "dp_stream"

enum
{
	SECRET_ID = 1,
	SECRET_PURPOSE,
	SECRET_VALUE,
	SECRET_CREATED_AT
};

enum
{
	KEY_NAME = 1,
	KEY_MECHANISM,
	KEY_USED_BY,
	KEY_COMPUTES
};

/*
 * The table, checked to belong to the extension: in a database whose
 * extension predates 0.6.0, a role allowed to create schemas could create
 * dp_stream.secrets itself and have states sealed under its own secret.
 * InvalidOid when the table does not exist.
 */
static Oid
find_extension_table(const char *name)
{
	Oid			namespace = get_namespace_oid(SECRETS_SCHEMA, true);
	Oid			relation = OidIsValid(namespace) ? get_relname_relid(name, namespace) : InvalidOid;
	Oid			extension;

	if (!OidIsValid(relation))
		return InvalidOid;
	extension = get_extension_oid("dp_stream", true);
	if (!OidIsValid(extension) || getExtensionOfObject(RelationRelationId, relation) != extension)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("table %s.%s does not belong to the dp_stream extension",
						SECRETS_SCHEMA, name)));
	return relation;
}

static Oid
extension_table(const char *name)
{
	Oid			relation = find_extension_table(name);

	if (!OidIsValid(relation))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s.%s of dp_stream is missing", SECRETS_SCHEMA, name),
				 errhint("Update the extension: ALTER EXTENSION dp_stream UPDATE.")));
	return relation;
}

/*
 * Whether the database's extension has sealing (0.6.0 on).  Before that
 * version, which a database keeps until ALTER EXTENSION UPDATE while the new
 * library is already installed, states are read and written unsealed, as
 * that version's library did.
 */
bool
dp_sealing_installed(void)
{
	return OidIsValid(find_extension_table("secrets"));
}

static Snapshot
reading_snapshot(void)
{
	return ActiveSnapshotSet() ? GetActiveSnapshot() : GetLatestSnapshot();
}

typedef enum SecretChoice
{
	NEWEST_SEAL,
	OLDEST_NOISE,
	OLDEST_TABLE_NOISE,
	SEAL_BY_ID
} SecretChoice;

static const char *
purpose_of(SecretChoice choice)
{
	switch (choice)
	{
		case OLDEST_NOISE:
			return "noise";
		case OLDEST_TABLE_NOISE:
			return "table_noise";
		default:
			return "seal";
	}
}

/*
 * Finds one secret; returns false when there is none.  Ties on created_at
 * (one statement creating two) are broken by id, so every backend chooses
 * the same row.
 */
static bool
find_secret(SecretChoice choice, uint64 wanted_id, unsigned char *secret, uint64 *found_id)
{
	Relation	relation = table_open(extension_table("secrets"), AccessShareLock);
	TupleDesc	descriptor = RelationGetDescr(relation);
	TableScanDesc scan = table_beginscan(relation, reading_snapshot(), 0, NULL);
	HeapTuple	tuple;
	bool		found = false;
	TimestampTz best_time = 0;
	int64		best_id = 0;

	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		bool		null_id,
					null_purpose,
					null_value,
					null_time;
		int64		id = DatumGetInt64(heap_getattr(tuple, SECRET_ID, descriptor, &null_id));
		Datum		purpose = heap_getattr(tuple, SECRET_PURPOSE, descriptor, &null_purpose);
		Datum		value = heap_getattr(tuple, SECRET_VALUE, descriptor, &null_value);
		TimestampTz created = DatumGetTimestampTz(heap_getattr(tuple, SECRET_CREATED_AT,
															   descriptor, &null_time));
		char	   *purpose_text;
		bytea	   *bytes;
		bool		better;

		CHECK_FOR_INTERRUPTS();
		if (null_id || null_purpose || null_value || null_time)
			continue;
		purpose_text = TextDatumGetCString(purpose);
		if (strcmp(purpose_text, purpose_of(choice)) != 0)
			continue;
		switch (choice)
		{
			case NEWEST_SEAL:
				better = !found || created > best_time || (created == best_time && id > best_id);
				break;
			case OLDEST_NOISE:
			case OLDEST_TABLE_NOISE:
				better = !found || created < best_time || (created == best_time && id < best_id);
				break;
			default:
				better = (uint64) id == wanted_id;
				break;
		}
		if (!better)
			continue;
		bytes = DatumGetByteaPP(value);
		if (VARSIZE_ANY_EXHDR(bytes) != DP_SEAL_KEY_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("dp_stream secret " INT64_FORMAT " is not %d bytes long",
							id, DP_SEAL_KEY_BYTES)));
		memcpy(secret, VARDATA_ANY(bytes), DP_SEAL_KEY_BYTES);
		found = true;
		best_time = created;
		best_id = id;
	}
	table_endscan(scan);
	table_close(relation, AccessShareLock);
	if (found && found_id)
		*found_id = (uint64) best_id;
	return found;
}

void
dp_secret_for_sealing(unsigned char *secret, uint64 *key_id)
{
	if (!find_secret(NEWEST_SEAL, 0, secret, key_id))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dp_stream has no sealing secret in this database"),
				 errhint("A superuser can create one with SELECT dp_stream.rotate_secret().")));
}

bool
dp_secret_by_id(uint64 key_id, unsigned char *secret)
{
	return find_secret(SEAL_BY_ID, key_id, secret, NULL);
}

/*
 * Finds the registration of a keyed mechanism's key (the key is the primary
 * key of dp_stream.keys) and checks it, in this order: the current user must
 * have the privileges of the role it was registered for (before anything
 * about the registration is told); the key must be registered with exactly
 * this mechanism; and, unless `computes` is NULL (a push on a stored keyed
 * state, whose noise key is fixed already), for exactly this computation.
 *
 * Why the role: keyed noise is the same for the same data, so whoever can
 * draw under a key on data of their choosing can recompute a release for a
 * guessed version of the real data and compare.  Why the computation: the
 * content that keys a term is the data as the computation encodes it, so
 * the same data under other bounds, or as integers instead of reals, would
 * get fresh noise, and averaging such releases would remove it.
 */
static void
check_registration(const dp_mechanism *mechanism, const char *computes)
{
	Relation	relation = table_open(extension_table("keys"), AccessShareLock);
	TupleDesc	descriptor = RelationGetDescr(relation);
	TableScanDesc scan = table_beginscan(relation, reading_snapshot(), 0, NULL);
	HeapTuple	tuple;
	bool		found = false;
	bool		same_mechanism = false;
	char	   *registered_computes = NULL;
	Oid			used_by = InvalidOid;
	char		mechanism_text[DP_MECHANISM_TEXT_BYTES];

	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		bool		null_name,
					null_mechanism,
					null_role,
					null_computes;
		Datum		name = heap_getattr(tuple, KEY_NAME, descriptor, &null_name);
		Datum		stored = heap_getattr(tuple, KEY_MECHANISM, descriptor, &null_mechanism);
		Datum		role = heap_getattr(tuple, KEY_USED_BY, descriptor, &null_role);
		Datum		stored_computes = heap_getattr(tuple, KEY_COMPUTES, descriptor, &null_computes);

		CHECK_FOR_INTERRUPTS();
		if (null_name || null_mechanism || null_role || null_computes)
			continue;
		if (strcmp(TextDatumGetCString(name), mechanism->key) != 0)
			continue;
		found = true;
		same_mechanism = dp_mechanism_datum_equals(stored, mechanism);
		used_by = DatumGetObjectId(role);
		registered_computes = TextDatumGetCString(stored_computes);
		break;
	}
	table_endscan(scan);
	table_close(relation, AccessShareLock);

	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" is not registered", mechanism->key),
				 errhint("An administrator registers a key, and charges its epsilon to a budget, "
						 "with dp_stream.create_key(key, mechanism, dataset).")));
	if (!has_privs_of_role(GetUserId(), used_by))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only role \"%s\" may draw noise under key \"%s\"",
						GetUserNameFromId(used_by, true) ? GetUserNameFromId(used_by, true) : "?",
						mechanism->key),
				 errdetail("Keyed noise is the same for the same data: whoever may compute a "
						   "keyed release over data of their choosing can test guesses about "
						   "the real data."),
				 errhint("Read what the key's role published (a table or materialized view "
						 "of its releases).")));
	dp_mechanism_to_text(mechanism, mechanism_text, sizeof(mechanism_text));
	if (!same_mechanism)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" is not registered for this mechanism", mechanism->key),
				 errdetail("The key is registered with another mechanism; this one is %s.",
						   mechanism_text),
				 errhint("Use the mechanism the key was registered with (dp_stream.keys).")));
	if (computes && strcmp(computes, registered_computes) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" is not registered for this computation", mechanism->key),
				 errdetail("It is registered for \"%s\"; this is \"%s\".",
						   registered_computes, computes),
				 errhint("The same data computed another way (other bounds, integer or real "
						 "values, another statistic) would get fresh noise: register a key "
						 "for each computation.")));
}

void
dp_keyed_check_user(const dp_mechanism *mechanism)
{
	check_registration(mechanism, NULL);
}

/*
 * The noise key of a keyed counter or statistic: a PRF of the database's
 * noise secret, the key name, the whole mechanism and `context` (what is
 * computed over it), after check_registration -- registering is what
 * charges the budget.  The whole mechanism includes its partition
 * (partition=... in its text, 0.12.0), so that the partitions of one
 * publication draw independent noise; a mechanism without one has the text,
 * and so the noise, it had before.  The registration is checked without the
 * partition: a key is registered once for all its partitions.
 *
 * Returns whether its terms are drawn by the table sampler: they are when
 * the database has a "table_noise" secret (0.11.0: installed where no key
 * had been registered yet, or made by
 * dp_stream.use_table_sampler_for_keyed_noise()), whose key then replaces
 * the "noise" secret's, so the two samplers never draw under one key.
 */
bool
dp_keyed_noise_key(const dp_mechanism *mechanism, const char *context, unsigned char *noise_key)
{
	unsigned char secret[DP_SEAL_KEY_BYTES];
	char		mechanism_text[DP_MECHANISM_TEXT_BYTES];
	StringInfoData message;
	bool		table_sampler;
	dp_mechanism registered = *mechanism;

	memset(registered.partition, 0, sizeof(registered.partition));
	check_registration(&registered, context);
	table_sampler = find_secret(OLDEST_TABLE_NOISE, 0, secret, NULL);
	if (!table_sampler && !find_secret(OLDEST_NOISE, 0, secret, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dp_stream has no noise secret in this database")));

	dp_mechanism_to_text(mechanism, mechanism_text, sizeof(mechanism_text));
	initStringInfo(&message);
	appendStringInfo(&message, "dp_stream keyed noise v1|%s|%s", mechanism_text, context);
	dp_random_derive_key(noise_key, secret, message.data, message.len);
	explicit_bzero(secret, sizeof(secret));
	pfree(message.data);
	return table_sampler;
}

PG_FUNCTION_INFO_V1(dp_random_secret);
PG_FUNCTION_INFO_V1(dp_random_id);

/* 32 bytes from the operating system's CSPRNG (never the seeded stream). */
Datum
dp_random_secret(PG_FUNCTION_ARGS)
{
	bytea	   *value = palloc(VARHDRSZ + DP_SEAL_KEY_BYTES);

	(void) dp_backend_random();	/* initialises libsodium */
	SET_VARSIZE(value, VARHDRSZ + DP_SEAL_KEY_BYTES);
	randombytes_buf(VARDATA(value), DP_SEAL_KEY_BYTES);
	PG_RETURN_BYTEA_P(value);
}

/* A random positive bigint, the id of a secret. */
Datum
dp_random_id(PG_FUNCTION_ARGS)
{
	uint64		id;

	(void) dp_backend_random();
	do
		randombytes_buf(&id, sizeof(id));
	while ((id & INT64CONST(0x7fffffffffffffff)) == 0);
	PG_RETURN_INT64((int64) (id & INT64CONST(0x7fffffffffffffff)));
}
