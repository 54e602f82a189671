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

void
dp_seal(unsigned char *out, dp_sealed_kind kind, uint64_t key_id, const unsigned char *key,
		const unsigned char *plain, size_t plain_length, size_t public_length)
{
	size_t		additional = DP_SEAL_HEADER_BYTES + public_length;
	unsigned char *nonce = out + additional;
	unsigned long long sealed_length;

	out[0] = DP_SEAL_MAGIC;
	out[1] = DP_SEAL_VERSION;
	out[2] = (unsigned char) kind;
	out[3] = 0;
	dp_put_u32(out + 4, (uint32_t) public_length);
	dp_put_u64(out + 8, key_id);
	memcpy(out + DP_SEAL_HEADER_BYTES, plain, public_length);

	/* a random 192-bit nonce never repeats in practice, whoever seals */
	randombytes_buf(nonce, DP_SEAL_NONCE_BYTES);
	crypto_aead_xchacha20poly1305_ietf_encrypt(nonce + DP_SEAL_NONCE_BYTES, &sealed_length,
											   plain, plain_length, out, additional,
											   NULL, nonce, key);
}

dp_status
dp_seal_peek(const unsigned char *data, size_t length, dp_sealed_kind kind,
			 dp_seal_info *info, dp_parse_error *error)
{
	size_t		public_length;
	size_t		overhead;

	if (length < DP_SEAL_HEADER_BYTES || data[0] != DP_SEAL_MAGIC)
		return fail(error, "seal", "not a sealed value");
	if (data[1] != DP_SEAL_VERSION)
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
	if (length - overhead < public_length)
		return fail(error, "length", "state shorter than its public fields");

	info->kind = kind;
	info->key_id = dp_get_u64(data + 8);
	info->public_fields = data + DP_SEAL_HEADER_BYTES;
	info->public_length = public_length;
	info->plain_length = length - overhead;
	return DP_OK;
}

dp_status
dp_seal_open(const unsigned char *data, size_t length, const dp_seal_info *info,
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
	if (plain_length != info->plain_length ||
		memcmp(plain, info->public_fields, info->public_length) != 0)
		return fail(error, "seal", "public fields do not match the sealed state");
	return DP_OK;
}
