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
 *
 * Rotation (dp_stream.rotate_secret, then dp_reseal of every stored value,
 * then dp_stream.drop_secret of the old one) must never leave a value
 * sealed under a dropped secret.  A writer whose snapshot predates the
 * rotation would, if it read the newest secret through that snapshot, seal
 * under the old one after the reseal had passed.  So sealing takes a
 * RowShareLock on dp_stream.secrets, held to the end of its transaction,
 * and only then reads the newest 'seal' secret with a fresh snapshot;
 * rotate_secret takes an ExclusiveLock first, which conflicts with it (not
 * with the AccessShareLock of openers).  Hence:
 *   - a transaction that sealed under the old secret holds its lock until
 *     it ends, so the rotation waits for it: every value sealed under the
 *     old secret is committed (or gone) before the rotation commits;
 *   - a transaction that seals after the rotation took its lock waits for
 *     the rotation to commit, and its fresh snapshot, taken after the lock
 *     is granted, sees the new secret;
 * and a reseal whose snapshot is taken after the rotation committed sees
 * every value sealed under the old secret.
 */
#include "dp_stream.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/inval.h"
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
	KEY_COMPUTES,
	KEY_DATASET,
	KEY_CREATED_AT
};

/*
 * The table, checked to belong to the extension: in a database whose
 * extension predates 0.6.0, a role allowed to create schemas could create
 * dp_stream.secrets itself and have states sealed under its own secret.
 * InvalidOid when the table does not exist.
 */
/*
 * The tables found to belong to the extension.  Checking membership reads
 * pg_extension and pg_depend, which cost more than the rest of opening a
 * state (a publish of 10,000 partitions did it 70,000 times).  A relation
 * keeps its membership as long as it exists unchanged, so a verified OID is
 * remembered until PostgreSQL invalidates that relation (dropped, altered,
 * or its extension dropped: every such change sends an invalidation), and
 * the names are still looked up each time, through the syscache.  This is a
 * cache of a catalog fact, not state: every backend computes the same one.
 */
#define VERIFIED_TABLES 8
static Oid	verified_tables[VERIFIED_TABLES];
static bool verified_callback_registered = false;

static void
forget_verified_table(Datum arg, Oid relation)
{
	for (int i = 0; i < VERIFIED_TABLES; i++)
		if (!OidIsValid(relation) || verified_tables[i] == relation)
			verified_tables[i] = InvalidOid;
}

static bool
table_verified(Oid relation)
{
	for (int i = 0; i < VERIFIED_TABLES; i++)
		if (verified_tables[i] == relation)
			return true;
	return false;
}

static void
remember_verified_table(Oid relation)
{
	if (!verified_callback_registered)
	{
		CacheRegisterRelcacheCallback(forget_verified_table, (Datum) 0);
		verified_callback_registered = true;
	}
	for (int i = 0; i < VERIFIED_TABLES; i++)
		if (!OidIsValid(verified_tables[i]))
		{
			verified_tables[i] = relation;
			return;
		}
}

static Oid
find_extension_table(const char *name)
{
	Oid			namespace = get_namespace_oid(SECRETS_SCHEMA, true);
	Oid			relation = OidIsValid(namespace) ? get_relname_relid(name, namespace) : InvalidOid;
	Oid			extension;

	if (!OidIsValid(relation))
		return InvalidOid;
	if (table_verified(relation))
		return relation;
	extension = get_extension_oid("dp_stream", true);
	if (!OidIsValid(extension) || getExtensionOfObject(RelationRelationId, relation) != extension)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("table %s.%s does not belong to the dp_stream extension",
						SECRETS_SCHEMA, name)));
	remember_verified_table(relation);
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

/*
 * How each choice reads the table.  Sealing: the newest secret as of now,
 * whatever the transaction's snapshot, under a lock that keeps a rotation
 * from committing until this transaction ends (see the head comment).
 * Opening by id: through the statement's snapshot, which still sees a
 * secret dropped after it was taken; failing that, as of now, since a
 * transaction whose snapshot predates a rotation seals under the new secret
 * and must open what it sealed.  Noise: through the statement's snapshot,
 * as before.
 */
typedef enum SecretSnapshot
{
	STATEMENT_SNAPSHOT,
	LATEST_SNAPSHOT
} SecretSnapshot;

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
/*
 * One row of dp_stream.secrets: false for a row with a NULL (none is
 * written so; skipped rather than trusted); a secret of another length is
 * corruption.  *value points into the tuple.
 */
static bool
secret_row(HeapTuple tuple, TupleDesc descriptor, int64 *id, char **purpose,
		   const unsigned char **value, TimestampTz *created)
{
	bool		null_id,
				null_purpose,
				null_value,
				null_time;
	Datum		id_datum = heap_getattr(tuple, SECRET_ID, descriptor, &null_id);
	Datum		purpose_datum = heap_getattr(tuple, SECRET_PURPOSE, descriptor, &null_purpose);
	Datum		value_datum = heap_getattr(tuple, SECRET_VALUE, descriptor, &null_value);
	Datum		time_datum = heap_getattr(tuple, SECRET_CREATED_AT, descriptor, &null_time);
	bytea	   *bytes;

	if (null_id || null_purpose || null_value || null_time)
		return false;
	*id = DatumGetInt64(id_datum);
	*purpose = TextDatumGetCString(purpose_datum);
	*created = DatumGetTimestampTz(time_datum);
	bytes = DatumGetByteaPP(value_datum);
	if (VARSIZE_ANY_EXHDR(bytes) != DP_SEAL_KEY_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("dp_stream secret " INT64_FORMAT " is not %d bytes long",
						*id, DP_SEAL_KEY_BYTES)));
	*value = (const unsigned char *) VARDATA_ANY(bytes);
	return true;
}

static bool
scan_secrets(SecretChoice choice, SecretSnapshot when, uint64 wanted_id,
			 unsigned char *secret, uint64 *found_id)
{
	/* sealing keeps its lock to the end of the transaction (NoLock below) */
	LOCKMODE	lock = choice == NEWEST_SEAL ? RowShareLock : AccessShareLock;
	Relation	relation = table_open(extension_table("secrets"), lock);
	TupleDesc	descriptor = RelationGetDescr(relation);
	Snapshot	snapshot;
	TableScanDesc scan;
	HeapTuple	tuple;
	bool		found = false;
	TimestampTz best_time = 0;
	int64		best_id = 0;

	/*
	 * Taken after the lock: it sees every rotation that committed before.
	 * A fresh catalog snapshot rather than GetLatestSnapshot(), which
	 * refuses to run in parallel mode, where a parallel query's leader is
	 * while it evaluates our (parallel restricted) functions above a Gather.
	 */
	if (when == LATEST_SNAPSHOT)
	{
		InvalidateCatalogSnapshot();
		snapshot = RegisterSnapshot(GetCatalogSnapshot(RelationGetRelid(relation)));
	}
	else
		snapshot = RegisterSnapshot(reading_snapshot());
	scan = table_beginscan(relation, snapshot, 0, NULL);
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		int64		id;
		char	   *purpose_text;
		const unsigned char *value;
		TimestampTz created;
		bool		better;

		CHECK_FOR_INTERRUPTS();
		if (!secret_row(tuple, descriptor, &id, &purpose_text, &value, &created))
			continue;
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
		memcpy(secret, value, DP_SEAL_KEY_BYTES);
		found = true;
		best_time = created;
		best_id = id;
	}
	table_endscan(scan);
	UnregisterSnapshot(snapshot);
	table_close(relation, choice == NEWEST_SEAL ? NoLock : AccessShareLock);
	if (found && found_id)
		*found_id = (uint64) best_id;
	return found;
}

/*
 * The noise secrets and the keys, after a restore.
 *
 * Keyed noise must come from the secret it was drawn under in the database
 * that published it.  A restore brings that database's noise secrets back
 * next to the ones the target's own CREATE EXTENSION made, which are newer:
 * "oldest" picks the restored ones.  Two ways that went wrong before 0.12.0:
 *
 *   - A target installed at 0.11.0 or later makes a table_noise secret
 *     (no key existed yet), which outranked the restored 'noise' secret of a
 *     database that never had one (upgraded from 0.10.0 with keys): every
 *     keyed release came out with new noise.  A table_noise secret made in
 *     the same transaction as a noise secret that is not the oldest one, and
 *     after it, is such a leftover of the target's install: it is ignored.
 *   - The noise secrets did not come back at all (the copy of
 *     dp_stream.secrets failed on an older version's check constraint, or
 *     the dump left that table out) while the keys did: keyed noise came
 *     from the target's fresh secret.  In every database that never lost
 *     its secrets, each key was registered after the oldest noise secret
 *     was made (the install makes it, keys come later), or in the same
 *     transaction; a key registered before it means the secret its noise
 *     was drawn under is missing, and keyed noise is refused.
 */
typedef struct NoiseSecret
{
	bool		table;
	int64		id;
	TimestampTz created;
	TransactionId xmin;
	unsigned char value[DP_SEAL_KEY_BYTES];
} NoiseSecret;

static bool
older(const NoiseSecret *a, const NoiseSecret *b)
{
	return a->created < b->created || (a->created == b->created && a->id < b->id);
}

static void
check_keys_follow(const NoiseSecret *oldest_noise)
{
	Oid			keys = extension_table("keys");
	AttrNumber	created_column = get_attnum(keys, "created_at");
	Relation	relation;
	TupleDesc	descriptor;
	TableScanDesc scan;
	HeapTuple	tuple;
	bool		early = false;

	if (created_column == InvalidAttrNumber)
		return;
	relation = table_open(keys, AccessShareLock);
	descriptor = RelationGetDescr(relation);
	scan = table_beginscan(relation, reading_snapshot(), 0, NULL);
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		bool		null_time;
		Datum		created = heap_getattr(tuple, created_column, descriptor, &null_time);

		CHECK_FOR_INTERRUPTS();
		if (null_time ||
			DatumGetTimestampTz(created) >= oldest_noise->created ||
			HeapTupleHeaderGetRawXmin(tuple->t_data) == oldest_noise->xmin)
			continue;
		early = true;
		break;
	}
	table_endscan(scan);
	table_close(relation, AccessShareLock);
	/* no key named: the caller may not be allowed to know the others */
	if (early)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("keyed noise refused: this database does not have the noise secret "
						"of its keys"),
				 errdetail("A key was registered before this database's oldest noise secret "
						   "was made: it comes from a dump whose dp_stream.secrets was not "
						   "restored, and new noise would release its data again."),
				 errhint("Restore dp_stream.secrets from the same dump, after ALTER EXTENSION "
						 "dp_stream UPDATE if its check constraint refused the rows: "
						 "pg_restore --data-only --table=secrets (docs/threat_model.md, "
						 "\"Backups, dumps and restores\").")));
}

static bool
find_noise_secret(bool table, unsigned char *secret, uint64 *found_id)
{
	Relation	relation = table_open(extension_table("secrets"), AccessShareLock);
	TupleDesc	descriptor = RelationGetDescr(relation);
	TableScanDesc scan = table_beginscan(relation, reading_snapshot(), 0, NULL);
	HeapTuple	tuple;
	NoiseSecret *found = NULL;
	int			count = 0;
	int			capacity = 4;
	NoiseSecret *oldest_noise = NULL;
	NoiseSecret *chosen = NULL;
	bool		result;

	found = palloc(capacity * sizeof(NoiseSecret));
	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		int64		id;
		char	   *purpose_text;
		const unsigned char *value;
		TimestampTz created;

		CHECK_FOR_INTERRUPTS();
		if (!secret_row(tuple, descriptor, &id, &purpose_text, &value, &created))
			continue;
		if (strcmp(purpose_text, "noise") != 0 && strcmp(purpose_text, "table_noise") != 0)
			continue;
		if (count == capacity)
		{
			capacity *= 2;
			found = repalloc(found, capacity * sizeof(NoiseSecret));
		}
		found[count].table = purpose_text[0] == 't';
		found[count].id = id;
		found[count].created = created;
		found[count].xmin = HeapTupleHeaderGetRawXmin(tuple->t_data);
		memcpy(found[count].value, value, DP_SEAL_KEY_BYTES);
		count++;
	}
	table_endscan(scan);
	table_close(relation, AccessShareLock);

	for (int i = 0; i < count; i++)
		if (!found[i].table && (!oldest_noise || older(&found[i], oldest_noise)))
			oldest_noise = &found[i];
	for (int i = 0; i < count; i++)
	{
		bool		leftover = false;

		if (found[i].table != table)
			continue;
		for (int j = 0; table && j < count; j++)
			if (!found[j].table && &found[j] != oldest_noise &&
				found[j].xmin == found[i].xmin && found[i].created >= found[j].created)
				leftover = true;
		if (!leftover && (!chosen || older(&found[i], chosen)))
			chosen = &found[i];
	}
	if (chosen && oldest_noise)
		check_keys_follow(oldest_noise);
	result = chosen != NULL;
	if (result)
	{
		memcpy(secret, chosen->value, DP_SEAL_KEY_BYTES);
		if (found_id)
			*found_id = (uint64) chosen->id;
	}
	explicit_bzero(found, capacity * sizeof(NoiseSecret));
	pfree(found);
	return result;
}

static bool
find_secret(SecretChoice choice, uint64 wanted_id, unsigned char *secret, uint64 *found_id)
{
	switch (choice)
	{
		case NEWEST_SEAL:
			return scan_secrets(choice, LATEST_SNAPSHOT, 0, secret, found_id);
		case SEAL_BY_ID:
			return scan_secrets(choice, STATEMENT_SNAPSHOT, wanted_id, secret, found_id) ||
				scan_secrets(choice, LATEST_SNAPSHOT, wanted_id, secret, found_id);
		case OLDEST_TABLE_NOISE:
			return find_noise_secret(true, secret, found_id);
		case OLDEST_NOISE:
			return find_noise_secret(false, secret, found_id);
	}
	return false;
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
 * have the privileges of the role it was registered for; the registration
 * must be committed; the key must be registered with exactly this mechanism;
 * and, unless `computes` is NULL (a push on a stored keyed state, whose
 * noise key is fixed already), for exactly this computation.
 *
 * Why the role: keyed noise is the same for the same data, so whoever can
 * draw under a key on data of their choosing can recompute a release for a
 * guessed version of the real data and compare.  A role that may not use a
 * key is told exactly what it is told for a key that does not exist, and
 * nothing else: which keys exist, and for which roles, is the registry's
 * (readable by dp_stream_admin), not every role's.  The scan reads the
 * whole table either way, without stopping where the key is found.
 *
 * Why committed: registering charges the key's epsilon in the registering
 * transaction.  Releases drawn under the key in that transaction would
 * survive its rollback (they were seen) while the charge would not: they
 * would have spent epsilon that no budget holds.
 *
 * Why the computation: the content that keys a term is the data as the
 * computation encodes it, so the same data under other bounds, or as
 * integers instead of reals, would get fresh noise, and averaging such
 * releases would remove it.
 */
static void
check_registration(const dp_mechanism *mechanism, const char *computes, int64 *noise_secret,
				   bool *noise_secret_recorded, int *derivation)
{
	Oid			keys = extension_table("keys");
	AttrNumber	noise_secret_column = get_attnum(keys, "noise_secret");
	AttrNumber	derivation_column = get_attnum(keys, "derivation");
	Relation	relation = table_open(keys, AccessShareLock);
	TupleDesc	descriptor = RelationGetDescr(relation);
	TableScanDesc scan = table_beginscan(relation, reading_snapshot(), 0, NULL);
	HeapTuple	tuple;
	bool		found = false;
	bool		same_mechanism = false;
	bool		registered_here = false;
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
		if (strcmp(TextDatumGetCString(name), mechanism->key) != 0 || found)
			continue;
		found = true;
		same_mechanism = dp_mechanism_datum_equals(stored, mechanism);
		/*
		 * A stored statistic's mechanism states no step bound since 0.14.0;
		 * its key may have been registered with the 1 that meant the same
		 * before.  Only for the check of a state's reader (no computation):
		 * drawing noise compares exactly, as the mechanism's text keys it.
		 */
		if (!same_mechanism && computes == NULL &&
			!dp_mechanism_step_bound_stated(mechanism))
		{
			dp_mechanism stated_one = *mechanism;

			stated_one.max_per_step = 1;
			same_mechanism = dp_mechanism_datum_equals(stored, &stated_one);
		}
		used_by = DatumGetObjectId(role);
		registered_computes = TextDatumGetCString(stored_computes);
		/* the noise secret the key draws under (0.15.0; NULL before) */
		if (noise_secret_column != InvalidAttrNumber && noise_secret)
		{
			bool		null_secret;
			Datum		recorded = heap_getattr(tuple, noise_secret_column, descriptor,
												&null_secret);

			*noise_secret_recorded = !null_secret;
			if (!null_secret)
				*noise_secret = DatumGetInt64(recorded);
		}
		/*
		 * The derivation of its terms (0.17.0): 1 for every key registered
		 * before (the update script's default for existing rows, and what a
		 * database not yet updated has), 2 for keys registered since.
		 */
		if (derivation)
		{
			*derivation = DP_DERIVATION_1;
			if (derivation_column != InvalidAttrNumber)
			{
				bool		null_derivation;
				Datum		recorded = heap_getattr(tuple, derivation_column, descriptor,
													&null_derivation);

				if (!null_derivation && DatumGetInt16(recorded) == DP_DERIVATION_2)
					*derivation = DP_DERIVATION_2;
			}
		}
		/*
		 * Registered by this transaction (or one of its subtransactions):
		 * written by it, and made at its start or later.  A row written by
		 * it with an older created_at is a restored one (pg_restore
		 * --single-transaction, psql -1): that key was registered, and
		 * charged, where the dump was taken.  Only the extension's owner
		 * writes the table directly; create_key's rows take now().
		 */
		if (TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tuple->t_data)))
		{
			bool		null_created;
			Datum		created = heap_getattr(tuple, KEY_CREATED_AT, descriptor, &null_created);

			registered_here = null_created ||
				DatumGetTimestampTz(created) >= GetCurrentTransactionStartTimestamp();
		}
	}
	table_endscan(scan);
	table_close(relation, AccessShareLock);

	/* one message for "no such key" and "not yours": neither tells which */
	if (!found || !has_privs_of_role(GetUserId(), used_by))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("key \"%s\" is not registered for the current role", mechanism->key),
				 errdetail("A role may draw noise only under a key registered for a role "
						   "whose privileges it has: keyed noise is the same for the same "
						   "data, so whoever may compute a keyed release over data of their "
						   "choosing can test guesses about the real data."),
				 errhint("An administrator registers a key for a role, and charges its "
						 "epsilon to a budget, with dp_stream.create_key(key, mechanism, "
						 "dataset, used_by => role); other roles read what the key's role "
						 "published.")));
	if (registered_here)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("key \"%s\" was registered in this transaction", mechanism->key),
				 errdetail("Its registration, and the charge of its epsilon, are undone if the "
						   "transaction rolls back, while releases drawn under it would "
						   "already have been seen."),
				 errhint("Commit the registration (dp_stream.create_key) first, then draw "
						 "noise under the key in another transaction.")));
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
	check_registration(mechanism, NULL, NULL, NULL, NULL);
}

/* The columns dp_publication reads (dp_stream.publications, 0.13.0). */
enum
{
	PUBLICATION_NAME = 1,
	PUBLICATION_MECHANISM,
	PUBLICATION_USED_BY
};

/*
 * Finds a publication's row of dp_stream.publications: its mechanism (a
 * copy in the current memory context) and its used_by role.  Read from the
 * heap without permission checks, as a key's registration is.
 */
static bool
find_publication(const char *name, Datum *mechanism_out, Oid *used_by_out)
{
	Relation	relation = table_open(extension_table("publications"), AccessShareLock);
	TupleDesc	descriptor = RelationGetDescr(relation);
	TableScanDesc scan = table_beginscan(relation, reading_snapshot(), 0, NULL);
	HeapTuple	tuple;
	bool		found = false;

	while ((tuple = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		bool		null_name,
					null_mechanism,
					null_role;
		Datum		stored_name = heap_getattr(tuple, PUBLICATION_NAME, descriptor, &null_name);
		Datum		mechanism = heap_getattr(tuple, PUBLICATION_MECHANISM, descriptor,
											 &null_mechanism);
		Datum		role = heap_getattr(tuple, PUBLICATION_USED_BY, descriptor, &null_role);

		CHECK_FOR_INTERRUPTS();
		if (null_name || null_mechanism || null_role || found)
			continue;
		if (strcmp(TextDatumGetCString(stored_name), name) != 0)
			continue;
		if (mechanism_out)
			*mechanism_out = PointerGetDatum(PG_DETOAST_DATUM_COPY(mechanism));
		*used_by_out = DatumGetObjectId(role);
		found = true;
	}
	table_endscan(scan);
	table_close(relation, AccessShareLock);
	return found;
}

/*
 * The keyed mechanism a publication was registered with, for dp_publication
 * (docs/publications.md), as a copy in the current memory context.  Read
 * like a key's registration (check_registration): from the heap, without
 * permission checks, and with one answer, 42704, for a publication that
 * does not exist and for one whose role the current user has no privileges
 * of, so that the answer tells no other role which publications exist.  The
 * drawing itself checks the key's registration again.
 */
Datum
dp_publication_registered(const char *name)
{
	Datum		found = (Datum) 0;
	Oid			used_by = InvalidOid;

	if (!find_publication(name, &found, &used_by) || !has_privs_of_role(GetUserId(), used_by))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("publication \"%s\" is not registered for the current role", name),
				 errdetail("A role may draw noise only for a publication registered for a "
						   "role whose privileges it has: keyed noise is the same for the "
						   "same data, so whoever may compute a keyed release over data of "
						   "their choosing can test guesses about the real data."),
				 errhint("An administrator registers a publication for a role with "
						 "dp_stream.create_publication(..., used_by => role); other roles "
						 "read what the publication's role published.")));
	return found;
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
 * Sets *derivation to the key's derivation (dp_stream.keys.derivation,
 * DP_DERIVATION_1 or 2), which the counters carry and a state persists.
 * Returns whether its terms are drawn by the table sampler: they are when
 * the database has a "table_noise" secret (0.11.0: installed where no key
 * had been registered yet, or made by
 * dp_stream.use_table_sampler_for_keyed_noise()), whose key then replaces
 * the "noise" secret's, so the two samplers never draw under one key.
 */
bool
dp_keyed_noise_key(const dp_mechanism *mechanism, const char *context, unsigned char *noise_key,
				   int *derivation)
{
	unsigned char secret[DP_SEAL_KEY_BYTES];
	char		mechanism_text[DP_MECHANISM_TEXT_BYTES];
	StringInfoData message;
	bool		table_sampler;
	dp_mechanism registered = *mechanism;
	int64		recorded = 0;
	bool		recorded_known = false;
	uint64		secret_id = 0;

	memset(registered.partition, 0, sizeof(registered.partition));
	check_registration(&registered, context, &recorded, &recorded_known, derivation);
	table_sampler = find_secret(OLDEST_TABLE_NOISE, 0, secret, &secret_id);
	if (!table_sampler && !find_secret(OLDEST_NOISE, 0, secret, &secret_id))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("dp_stream has no noise secret in this database")));

	/*
	 * A key draws under the noise secret it was registered under, or not at
	 * all: under another one the same data would get new noise, a second
	 * release of it that no budget holds (a node of a Citus cluster with its
	 * own secrets, a restore without dp_stream.secrets).  Refused, never
	 * drawn again.
	 */
	if (recorded_known && (uint64) recorded != secret_id)
	{
		explicit_bzero(secret, sizeof(secret));
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("keyed noise refused: key \"%s\" draws under a noise secret this "
						"database does not use", registered.key),
				 errdetail("The key was registered under noise secret " INT64_FORMAT
						   "; keyed noise here draws under secret " UINT64_FORMAT
						   ". New noise would release the same data again.",
						   recorded, secret_id),
				 errhint("On a Citus cluster, run SELECT dp_stream.citus_sync_secrets() on the "
						 "coordinator, so that every node holds its secrets; elsewhere, "
						 "restore dp_stream.secrets from a dump of the database that "
						 "registered the key.")));
	}

	dp_mechanism_to_text(mechanism, mechanism_text, sizeof(mechanism_text));
	initStringInfo(&message);
	appendStringInfo(&message, "dp_stream keyed noise v1|%s|%s", mechanism_text, context);
	dp_random_derive_key(noise_key, secret, message.data, message.len);
	explicit_bzero(secret, sizeof(secret));
	pfree(message.data);
	return table_sampler;
}

PG_FUNCTION_INFO_V1(dp_keyed_noise_secret);

/*
 * dp_stream.keyed_noise_secret(): the id of the secret keyed noise draws
 * under in this database now (the oldest "table_noise" secret, else the
 * oldest "noise" one), which a key records when it is registered; NULL when
 * there is none.  Internal: only the extension's owner may call it.
 */
Datum
dp_keyed_noise_secret(PG_FUNCTION_ARGS)
{
	unsigned char secret[DP_SEAL_KEY_BYTES];
	uint64		id = 0;
	bool		found = find_secret(OLDEST_TABLE_NOISE, 0, secret, &id) ||
		find_secret(OLDEST_NOISE, 0, secret, &id);

	explicit_bzero(secret, sizeof(secret));
	if (!found)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) id);
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

/*
 * The secret behind person tags, kept for one query and call site in
 * fn_mcxt, and wiped when that context goes.
 */
typedef struct PersonTagSecret
{
	unsigned char value[DP_SEAL_KEY_BYTES];
	MemoryContextCallback wipe;
} PersonTagSecret;

static void
wipe_person_tag_secret(void *arg)
{
	PersonTagSecret *cached = (PersonTagSecret *) arg;

	explicit_bzero(cached->value, sizeof(cached->value));
}

PG_FUNCTION_INFO_V1(dp_person_tag);

/*
 * dp_stream.person_tag(publication, person): BLAKE2b-128 keyed with the
 * database's oldest "noise" secret (never rotated or dropped, kept by
 * dumps) of the publication's name and the person's identifier, for
 * dp_stream.contributions.  The table then holds no identifier, and a tag
 * cannot be recomputed, or matched across publications, without the secret.
 * Internal: only the extension's owner may call it.
 *
 * Not the "table_noise" secret keyed noise prefers: that one can appear
 * later (dp_stream.use_table_sampler_for_keyed_noise), and every tag would
 * then change, so that each person's count in dp_stream.contributions
 * started again at 0 and a person-level publication kept k more
 * contributions of everyone (found by sql/publication_attacks.sql).  A
 * database without a "noise" secret (none since 0.6.0) falls back to it.
 */
Datum
dp_person_tag(PG_FUNCTION_ARGS)
{
	static const char domain[] = "dp_stream person v1|";
	text	   *publication = PG_GETARG_TEXT_PP(0);
	text	   *person = PG_GETARG_TEXT_PP(1);
	PersonTagSecret *cached = (PersonTagSecret *) fcinfo->flinfo->fn_extra;
	crypto_generichash_state state;
	uint32		length = VARSIZE_ANY_EXHDR(publication);
	unsigned char length_bytes[4];
	bytea	   *tag = palloc(VARHDRSZ + DP_PARTITION_BYTES);

	if (cached == NULL)
	{
		cached = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(PersonTagSecret));
		if (!find_secret(OLDEST_NOISE, 0, cached->value, NULL) &&
			!find_secret(OLDEST_TABLE_NOISE, 0, cached->value, NULL))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("dp_stream has no noise secret in this database")));
		cached->wipe.func = wipe_person_tag_secret;
		cached->wipe.arg = cached;
		MemoryContextRegisterResetCallback(fcinfo->flinfo->fn_mcxt, &cached->wipe);
		fcinfo->flinfo->fn_extra = cached;
	}

	/* the publication's length first: ("ab", "c") and ("a", "bc") differ */
	length_bytes[0] = (unsigned char) (length >> 24);
	length_bytes[1] = (unsigned char) (length >> 16);
	length_bytes[2] = (unsigned char) (length >> 8);
	length_bytes[3] = (unsigned char) length;
	crypto_generichash_init(&state, cached->value, DP_SEAL_KEY_BYTES, DP_PARTITION_BYTES);
	crypto_generichash_update(&state, (const unsigned char *) domain, sizeof(domain) - 1);
	crypto_generichash_update(&state, length_bytes, sizeof(length_bytes));
	crypto_generichash_update(&state, (const unsigned char *) VARDATA_ANY(publication), length);
	crypto_generichash_update(&state, (const unsigned char *) VARDATA_ANY(person),
							  VARSIZE_ANY_EXHDR(person));
	crypto_generichash_final(&state, (unsigned char *) VARDATA(tag), DP_PARTITION_BYTES);
	explicit_bzero(&state, sizeof(state));
	SET_VARSIZE(tag, VARHDRSZ + DP_PARTITION_BYTES);
	PG_RETURN_BYTEA_P(tag);
}
