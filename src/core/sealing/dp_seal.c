/*
 * dp_seal.c
 *		Sealing and opening stored states (layout in dp_seal.h).
 */
#include "dp_seal.h"

#include <string.h>
#include <sodium.h>

#include "dp_bytes.h"

static dp_status
fail(dp_parse_error *error, const char *field, const char *problem)
{
	error->field = field;
	error->problem = problem;
	return DP_ERROR_FORMAT;
}

size_t
dp_seal_size(size_t public_length, size_t plain_length)
{
	return DP_SEAL_HEADER_BYTES + public_length + DP_SEAL_NONCE_BYTES + plain_length +
		DP_SEAL_TAG_BYTES;
}

/* The header and public fields (the additional data) of either version. */
static void
put_header(unsigned char *out, int version, dp_sealed_kind kind, uint64_t key_id,
		   const unsigned char *plain, size_t public_length)
{
	out[0] = DP_SEAL_MAGIC;
	out[1] = (unsigned char) version;
	out[2] = (unsigned char) kind;
	out[3] = 0;
	dp_put_u32(out + 4, (uint32_t) public_length);
	dp_put_u64(out + 8, key_id);
	memcpy(out + DP_SEAL_HEADER_BYTES, plain, public_length);
}

/*
 * Encrypts in place the plain_length bytes after the nonce; libsodium's
 * AEAD allows the ciphertext to overwrite the message.
 */
static void
encrypt_in_place(unsigned char *out, size_t public_length, size_t plain_length,
				 const unsigned char *key)
{
	size_t		additional = DP_SEAL_HEADER_BYTES + public_length;
	unsigned char *nonce = out + additional;
	unsigned char *message = nonce + DP_SEAL_NONCE_BYTES;
	unsigned long long sealed_length;

	/* a random 192-bit nonce never repeats in practice, whoever seals */
	randombytes_buf(nonce, DP_SEAL_NONCE_BYTES);
	crypto_aead_xchacha20poly1305_ietf_encrypt(message, &sealed_length, message, plain_length,
											   out, additional, NULL, nonce, key);
}

void
dp_seal(unsigned char *out, dp_sealed_kind kind, uint64_t key_id, const unsigned char *key,
		const unsigned char *plain, size_t plain_length, size_t public_length)
{
	put_header(out, 1, kind, key_id, plain, public_length);
	memcpy(out + DP_SEAL_HEADER_BYTES + public_length + DP_SEAL_NONCE_BYTES, plain,
		   plain_length);
	encrypt_in_place(out, public_length, plain_length, key);
}

size_t
dp_seal_bound_size(size_t public_length, size_t padded_length)
{
	return dp_seal_size(public_length, DP_SEAL_BINDING_BYTES + padded_length);
}

void
dp_seal_bound(unsigned char *out, dp_sealed_kind kind, uint64_t key_id,
			  const unsigned char *key, const dp_seal_binding *binding,
			  const unsigned char *plain, size_t plain_length, size_t public_length,
			  size_t padded_length)
{
	unsigned char *message = out + DP_SEAL_HEADER_BYTES + public_length + DP_SEAL_NONCE_BYTES;
	size_t		role_length = strlen(binding->role);

	put_header(out, DP_SEAL_VERSION, kind, key_id, plain, public_length);
	memset(message, 0, DP_SEAL_BINDING_BYTES + padded_length);
	message[0] = (unsigned char) role_length;
	memcpy(message + 1, binding->role, role_length);
	dp_put_u64(message + 1 + DP_SEAL_ROLE_MAX, binding->stream_id);
	dp_put_u32(message + 1 + DP_SEAL_ROLE_MAX + 8, (uint32_t) plain_length);
	memcpy(message + DP_SEAL_BINDING_BYTES, plain, plain_length);
	encrypt_in_place(out, public_length, DP_SEAL_BINDING_BYTES + padded_length, key);
}

dp_status
dp_seal_peek(const unsigned char *data, size_t length, dp_sealed_kind kind,
			 dp_seal_info *info, dp_parse_error *error)
{
	size_t		public_length;
	size_t		overhead;

	if (length < DP_SEAL_HEADER_BYTES || data[0] != DP_SEAL_MAGIC)
		return fail(error, "seal", "not a sealed value");
	if (data[1] != 1 && data[1] != 2)
		return fail(error, "seal", "unsupported seal version");
	if (data[2] != (unsigned char) kind)
		return fail(error, "seal", "sealed value of another type");
	if (data[3] != 0)
		return fail(error, "reserved", "reserved header bytes are not zero");
	public_length = dp_get_u32(data + 4);
	if (public_length > DP_SEAL_PUBLIC_MAX)
		return fail(error, "seal", "public fields longer than any state has");
	overhead = DP_SEAL_HEADER_BYTES + public_length + DP_SEAL_NONCE_BYTES + DP_SEAL_TAG_BYTES;
	if (length < overhead)
		return fail(error, "length", "shorter than its header, nonce and tag");
	if (length - overhead > DP_SEAL_PLAIN_MAX)
		return fail(error, "length", "longer than any state");
	if (length - overhead < public_length + (data[1] == 2 ? DP_SEAL_BINDING_BYTES : 0))
		return fail(error, "length", "state shorter than its public fields");

	info->kind = kind;
	info->key_id = dp_get_u64(data + 8);
	info->public_fields = data + DP_SEAL_HEADER_BYTES;
	info->public_length = public_length;
	info->plain_length = length - overhead;
	info->version = data[1];
	return DP_OK;
}

/* Authenticates and decrypts the info->plain_length bytes into plain. */
static dp_status
decrypt(const unsigned char *data, size_t length, const dp_seal_info *info,
		const unsigned char *key, unsigned char *plain, dp_parse_error *error)
{
	size_t		additional = DP_SEAL_HEADER_BYTES + info->public_length;
	const unsigned char *nonce = data + additional;
	unsigned long long plain_length;

	if (crypto_aead_xchacha20poly1305_ietf_decrypt(plain, &plain_length, NULL,
												   nonce + DP_SEAL_NONCE_BYTES,
												   length - additional - DP_SEAL_NONCE_BYTES,
												   data, additional, nonce, key) != 0)
		return fail(error, "seal", "does not authenticate: forged, edited or sealed under another secret");
	if (plain_length != info->plain_length)
		return fail(error, "seal", "decrypted length differs from the sealed length");
	return DP_OK;
}

dp_status
dp_seal_open(const unsigned char *data, size_t length, const dp_seal_info *info,
			 const unsigned char *key, unsigned char *plain, dp_parse_error *error)
{
	if (info->version != 1)
		return fail(error, "seal", "a version 2 value is opened with its binding");
	if (decrypt(data, length, info, key, plain, error) != DP_OK)
		return DP_ERROR_FORMAT;
	if (memcmp(plain, info->public_fields, info->public_length) != 0)
		return fail(error, "seal", "public fields do not match the sealed state");
	return DP_OK;
}

dp_status
dp_seal_open_bound(const unsigned char *data, size_t length, const dp_seal_info *info,
				   const unsigned char *key, unsigned char *plain, dp_seal_binding *binding,
				   size_t *state_length, dp_parse_error *error)
{
	size_t		role_length;
	size_t		stored_length;

	memset(binding, 0, sizeof(*binding));
	binding->version = info->version;
	if (info->version == 1)
	{
		*state_length = info->plain_length;
		return dp_seal_open(data, length, info, key, plain, error);
	}
	if (decrypt(data, length, info, key, plain, error) != DP_OK)
		return DP_ERROR_FORMAT;

	/*
	 * Authenticated already, so only the extension could have written these
	 * bytes; still, every length is checked before it is used, and a binding
	 * has one form only.
	 */
	role_length = plain[0];
	if (role_length < 1 || role_length > DP_SEAL_ROLE_MAX ||
		memchr(plain + 1, '\0', role_length) != NULL)
		return fail(error, "role", "invalid role name in the binding");
	for (size_t i = 1 + role_length; i < 1 + DP_SEAL_ROLE_MAX; i++)
		if (plain[i] != 0)
			return fail(error, "role", "bytes after the role name are not zero");
	stored_length = dp_get_u32(plain + 1 + DP_SEAL_ROLE_MAX + 8);
	if (stored_length > info->plain_length - DP_SEAL_BINDING_BYTES ||
		stored_length < info->public_length)
		return fail(error, "length", "state length outside the sealed bytes");
	for (size_t i = DP_SEAL_BINDING_BYTES + stored_length; i < info->plain_length; i++)
		if (plain[i] != 0)
			return fail(error, "padding", "padding bytes are not zero");
	if (memcmp(plain + DP_SEAL_BINDING_BYTES, info->public_fields, info->public_length) != 0)
		return fail(error, "seal", "public fields do not match the sealed state");

	memcpy(binding->role, plain + 1, role_length);
	binding->role[role_length] = '\0';
	binding->stream_id = dp_get_u64(plain + 1 + DP_SEAL_ROLE_MAX);
	memmove(plain, plain + DP_SEAL_BINDING_BYTES, stored_length);
	memset(plain + stored_length, 0, info->plain_length - stored_length);
	*state_length = stored_length;
	return DP_OK;
}
