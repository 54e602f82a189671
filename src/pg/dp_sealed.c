/*
 * dp_sealed.c
 *		Sealing and opening the stored form of dp_counter and dp_statistic
 *		values (the format is in src/core/sealing/dp_seal.h, the threat model in
 *		docs/threat_model.md).
 */
#include "dp_stream.h"

#include <sodium.h>

#include "utils/builtins.h"

#include "dp_seal.h"

#define SEALED_TEXT_PREFIX "sealed:"

Datum
dp_sealed_datum(int kind, const unsigned char *plain, size_t plain_length,
				size_t public_length)
{
	unsigned char secret[DP_SEAL_KEY_BYTES];
	uint64		key_id;
	size_t		size = dp_seal_size(public_length, plain_length);
	bytea	   *value = palloc(VARHDRSZ + size);

	(void) dp_backend_random();	/* libsodium is initialised there */
	dp_secret_for_sealing(secret, &key_id);
	SET_VARSIZE(value, VARHDRSZ + size);
	dp_seal((unsigned char *) VARDATA(value), (dp_sealed_kind) kind, key_id, secret,
			plain, plain_length, public_length);
	explicit_bzero(secret, sizeof(secret));
	return PointerGetDatum(value);
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

const unsigned char *
dp_sealed_open(int kind, const char *type_name, const unsigned char *data, size_t length,
			   size_t *plain_length)
{
	dp_seal_info info;
	dp_parse_error error;
	unsigned char secret[DP_SEAL_KEY_BYTES];
	unsigned char *plain;

	if (!dp_seal_claims(data, length))
	{
		dp_check_unsealed_allowed(type_name);
		*plain_length = length;
		return data;
	}
	if (dp_seal_peek(data, length, (dp_sealed_kind) kind, &info, &error) != DP_OK)
		dp_report_parse_error(type_name, "", &error, true);
	if (!dp_secret_by_id(info.key_id, secret))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s value is sealed under a secret this database does not have",
						type_name),
				 errdetail("Secret id " UINT64_FORMAT ".", info.key_id),
				 errhint("It comes from another database, or its secret was dropped; "
						 "restore dp_stream.secrets from a dump of the database that "
						 "sealed it.")));
	plain = palloc(info.plain_length > 0 ? info.plain_length : 1);
	if (dp_seal_open(data, length, &info, secret, plain, &error) != DP_OK)
	{
		explicit_bzero(secret, sizeof(secret));
		dp_report_parse_error(type_name, "", &error, true);
	}
	explicit_bzero(secret, sizeof(secret));
	*plain_length = info.plain_length;
	return plain;
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
		dp_status	status = dp_seal_open(data, length, &info, secret, plain, &error);

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
