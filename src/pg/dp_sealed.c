/*
 * dp_sealed.c
 *		Sealing and opening the stored form of dp_counter and dp_statistic
 *		values (the format is in src/core/sealing/dp_seal.h, the threat model in
 *		docs/threat_model.md).
 */
#include "dp_stream.h"

#include <sodium.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"

#include "dp_state.h"

#define SEALED_TEXT_PREFIX "sealed:"

Datum
dp_sealed_datum(int kind, const unsigned char *plain, size_t plain_length,
				size_t public_length, size_t padded_length, const dp_seal_binding *binding)
{
	unsigned char secret[DP_SEAL_KEY_BYTES];
	uint64		key_id;
	size_t		size;
	bytea	   *value;

	Assert(padded_length >= plain_length);
	Assert(binding->role[0] != '\0');
	size = dp_seal_bound_size(public_length, padded_length);
	value = palloc(VARHDRSZ + size);
	(void) dp_backend_random();	/* libsodium is initialised there */
	dp_secret_for_sealing(secret, &key_id);
	SET_VARSIZE(value, VARHDRSZ + size);
	dp_seal_bound((unsigned char *) VARDATA(value), (dp_sealed_kind) kind, key_id, secret,
				  binding, plain, plain_length, public_length, padded_length);
	explicit_bzero(secret, sizeof(secret));
	return PointerGetDatum(value);
}

/*
 * The role that owns the extension: states sealed before 0.12.0 (version 1)
 * and unsealed ones name no role, and belong to it (and to superusers).
 */
static Oid
extension_owner(void)
{
	Oid			extension = get_extension_oid("dp_stream", false);
	Relation	relation = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tuple;
	Oid			owner = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extension));
	scan = systable_beginscan(relation, ExtensionOidIndexId, true, NULL, 1, &key);
	tuple = systable_getnext(scan);
	if (HeapTupleIsValid(tuple))
		owner = ((Form_pg_extension) GETSTRUCT(tuple))->extowner;
	systable_endscan(scan);
	table_close(relation, AccessShareLock);
	return owner;
}

static void
binding_for_role(dp_seal_binding *binding, Oid role)
{
	const char *name = GetUserNameFromId(role, false);

	memset(binding, 0, sizeof(*binding));
	binding->version = DP_SEAL_VERSION;
	strlcpy(binding->role, name, sizeof(binding->role));
}

void
dp_binding_for_new_state(dp_seal_binding *binding)
{
	binding_for_role(binding, GetUserId());
}

void
dp_binding_for_legacy_state(dp_seal_binding *binding)
{
	binding_for_role(binding, extension_owner());
	binding->version = 1;
}

/*
 * Only the bound role itself (or a superuser) may use a state: not every role
 * that inherits its privileges.  A group role shared by the job that pushes a
 * state and a writer of its table would otherwise let the writer swap in a
 * state of its own bound to the group, which the job would push, and then
 * use the job's states too.  A member that means to use a group's states
 * says so with SET ROLE.
 */
bool
dp_may_use_binding(const dp_seal_binding *binding)
{
	Oid			role = get_role_oid(binding->role, true);

	/* a role dropped (or not restored) leaves its states to superusers */
	if (!OidIsValid(role))
		return superuser();
	return GetUserId() == role || superuser();
}

/*
 * Whoever may open a state can run its mechanism with its hidden noise: two
 * versions of it, pushed and estimated, give the exact change between them.
 * So only the role it is bound to may.  The role is not named: the refused
 * role may not learn it.
 */
void
dp_check_binding(const char *type_name, const dp_seal_binding *binding)
{
	if (!dp_may_use_binding(binding))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to use this %s value", type_name),
				 errdetail("A state may be used only by the role it is bound to (a member of that "
						   "role uses it after SET ROLE): using it runs its mechanism with its "
						   "hidden noise, and two versions of it would give the exact change "
						   "between them."),
				 errhint("Run this as the role the state belongs to, or have that role hand it "
						 "to yours with dp_bind(state, role).")));
}

/*
 * dp_bind may hand a state over when the current role could act as both the
 * role it is bound to and the new one (SET ROLE to either: membership, or a
 * superuser): it could use the state as the one and take it as the other
 * anyway.
 */
void
dp_check_rebinding(const char *type_name, const dp_seal_binding *binding)
{
	Oid			role = get_role_oid(binding->role, true);

	if (OidIsValid(role) ? !is_member_of_role(GetUserId(), role) : !superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to hand over this %s value", type_name),
				 errdetail("Only the role a state is bound to, a member of it, or a superuser may "
						   "hand it to another role."),
				 errhint("Run dp_bind as the role the state belongs to.")));
}

/*
 * A managed stream's id as dp_stream.bind_stream takes it: positive (0 is
 * "no stream", and a negative id would be read back as another one).
 */
uint64
dp_stream_id_argument(int64 id)
{
	if (id <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a stream id must be positive"),
				 errdetail("stream_id was " INT64_FORMAT ".", id)));
	return (uint64) id;
}

void
dp_check_unsealed_allowed(const char *type_name)
{
	if (!dp_read_unsealed && dp_sealing_installed())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("unsealed %s value refused", type_name),
				 errdetail("Only sealed values are read: an unsealed one (written before "
						   "dp_stream 0.6.0, or typed in) may carry any noise, epsilon or "
						   "bounds."),
				 errhint("A superuser can SET dp_stream.read_unsealed = on and rewrite stored "
						 "values sealed with dp_reseal().")));
}

/* What dp_state_open asks of the database (dp_state.h). */
typedef struct StateReader
{
	const char *type_name;
	bool		check;			/* only for a role that may use the state */
} StateReader;

static void
reader_plain_state(void *context)
{
	dp_check_unsealed_allowed(((StateReader *) context)->type_name);
}

static bool
reader_secret(void *context, uint64_t key_id, unsigned char key[DP_SEAL_KEY_BYTES])
{
	return dp_secret_by_id(key_id, key);
}

/* a value sealed before 0.12.0, or unsealed, belongs to the extension's owner */
static void
reader_unbound(void *context, bool sealed, dp_seal_binding *binding)
{
	/* before 0.6.0 is installed, that version's (no roles) rules apply */
	if (sealed || dp_sealing_installed())
		dp_binding_for_legacy_state(binding);
	else
		dp_binding_for_new_state(binding);
}

static void
reader_check_binding(void *context, const dp_seal_binding *binding)
{
	StateReader *reader = context;

	if (reader->check)
		dp_check_binding(reader->type_name, binding);
}

static void *
reader_allocate(void *context, size_t size)
{
	return palloc(size);
}

static void
reader_release(void *context, void *memory)
{
	pfree(memory);
}

void *
dp_state_read(int kind, const char *type_name, const unsigned char *data, size_t length,
			  bool binary, const char *text, dp_seal_binding *binding, bool check)
{
	StateReader reader = {type_name, check};
	dp_state_access access = {
		.context = &reader,
		.plain_state = reader_plain_state,
		.secret = reader_secret,
		.unbound = reader_unbound,
		.check_binding = reader_check_binding,
		.allocate = reader_allocate,
		.release = reader_release
	};
	dp_state_opened opened;
	dp_parse_error error;

	if (dp_state_open((dp_sealed_kind) kind, data, length, &access, &opened, &error) == DP_OK)
	{
		*binding = opened.binding;
		return opened.state;
	}
	if (opened.stage == DP_STATE_NO_SECRET)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s value is sealed under a secret this database does not have",
						type_name),
				 errdetail("Secret id " UINT64_FORMAT ".", opened.key_id),
				 errhint("It comes from another database, or its secret was dropped; "
						 "restore dp_stream.secrets from a dump of the database that "
						 "sealed it.")));
	/* a seal's errors are reported as binary input, the state's as given */
	if (opened.stage == DP_STATE_SEAL)
		dp_report_parse_error(type_name, "", &error, true);
	dp_report_parse_error(type_name, text, &error, binary);
	return NULL;				/* not reached */
}

PG_FUNCTION_INFO_V1(dp_sealed_secret_id);

/*
 * dp_stream.sealed_secret_id(state): the id of the secret a stored
 * dp_counter or dp_statistic is sealed under (a public field of its
 * header), NULL for an unsealed one.  Internal: lets
 * dp_stream.citus_sync_secrets() find the states a node's own secrets still
 * open.
 */
Datum
dp_sealed_secret_id(PG_FUNCTION_ARGS)
{
	bytea	   *value = PG_GETARG_BYTEA_PP(0);
	const unsigned char *data = (const unsigned char *) VARDATA_ANY(value);
	size_t		length = VARSIZE_ANY_EXHDR(value);
	dp_seal_info info;
	dp_parse_error error;

	if (!dp_seal_claims(data, length))
		PG_RETURN_NULL();
	if (dp_seal_peek(data, length, DP_SEALED_COUNTER, &info, &error) != DP_OK &&
		dp_seal_peek(data, length, DP_SEALED_STATISTIC, &info, &error) != DP_OK)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) info.key_id);
}

char *
dp_sealed_text(Datum datum)
{
	bytea	   *value = PG_DETOAST_DATUM_PACKED(datum);
	size_t		length = VARSIZE_ANY_EXHDR(value);
	size_t		encoded = sodium_base64_encoded_len(length, sodium_base64_VARIANT_ORIGINAL);
	char	   *text = palloc(sizeof(SEALED_TEXT_PREFIX) + encoded);

	strcpy(text, SEALED_TEXT_PREFIX);
	sodium_bin2base64(text + strlen(SEALED_TEXT_PREFIX), encoded,
					  (const unsigned char *) VARDATA_ANY(value), length,
					  sodium_base64_VARIANT_ORIGINAL);
	return text;
}

const unsigned char *
dp_sealed_from_text(const char *type_name, const char *text, size_t *length)
{
	size_t		text_length;
	size_t		capacity;
	unsigned char *bytes;
	const char *end;

	while (*text == ' ')
		text++;
	if (strncmp(text, SEALED_TEXT_PREFIX, strlen(SEALED_TEXT_PREFIX)) != 0)
		return NULL;
	text += strlen(SEALED_TEXT_PREFIX);
	text_length = strlen(text);
	while (text_length > 0 && text[text_length - 1] == ' ')
		text_length--;
	/* no state comes near this; refuse before allocating for it */
	if (text_length > 2 * DP_SEAL_PLAIN_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", type_name),
				 errdetail("The sealed value is longer than any state.")));
	capacity = text_length / 4 * 3 + 3;
	bytes = palloc(capacity);
	if (sodium_base642bin(bytes, capacity, text, text_length, NULL, length, &end,
						  sodium_base64_VARIANT_ORIGINAL) != 0 ||
		end != text + text_length)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", type_name),
				 errdetail("The text after \"sealed:\" is not base64.")));
	return bytes;
}

/*
 * A sealed value as typed in or received.  When this database has its
 * secret, it is opened and authenticated at once, so a forged or edited
 * value is refused where it enters; otherwise only its header and lengths
 * are checked and it is opened when used, so that pg_restore can load a
 * table of states before the secrets that open them.  It is stored as it is.
 */
Datum
dp_sealed_input(int kind, const char *type_name, const unsigned char *data, size_t length,
				bool binary, const char *text)
{
	dp_seal_info info;
	dp_parse_error error;
	bytea	   *value;
	unsigned char secret[DP_SEAL_KEY_BYTES];

	if (dp_seal_peek(data, length, (dp_sealed_kind) kind, &info, &error) != DP_OK)
		dp_report_parse_error(type_name, text, &error, binary);

	/*
	 * Before 0.6.0 a database has no secrets: a sealed value comes from a
	 * newer one (a restore into a database whose extension was created at
	 * an older version), and ALTER EXTENSION UPDATE would fail on it later.
	 */
	if (!dp_sealing_installed())
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sealed %s value refused: dp_stream in this database predates sealing",
						type_name),
				 errdetail("The extension in this database is older than 0.6.0: it has no "
						   "secrets to open the value with."),
				 errhint("Update the extension first (ALTER EXTENSION dp_stream UPDATE), then "
						 "restore into it.")));
	if (dp_secret_by_id(info.key_id, secret))
	{
		unsigned char *plain = palloc(info.plain_length > 0 ? info.plain_length : 1);
		dp_seal_binding binding;
		size_t		state_length;
		dp_status	status = dp_seal_open_bound(data, length, &info, secret, plain, &binding,
												&state_length, &error);

		explicit_bzero(secret, sizeof(secret));
		explicit_bzero(plain, info.plain_length);
		pfree(plain);
		if (status != DP_OK)
			dp_report_parse_error(type_name, text, &error, binary);
	}
	value = palloc(VARHDRSZ + length);
	SET_VARSIZE(value, VARHDRSZ + length);
	memcpy(VARDATA(value), data, length);
	return PointerGetDatum(value);
}


/*
 * dp_stream.written_by_this_transaction(xmin): whether a row version was
 * written by the current transaction or one of its subtransactions
 * (internal: advance refuses a stream whose creation has not committed).
 * Unlike a stored transaction id, an xmin is never carried into another
 * cluster by a dump.
 */
PG_FUNCTION_INFO_V1(dp_written_by_this_transaction);

Datum
dp_written_by_this_transaction(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(TransactionIdIsCurrentTransactionId(DatumGetTransactionId(PG_GETARG_DATUM(0))));
}
