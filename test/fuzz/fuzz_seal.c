/*
 * fuzz_seal.c
 *		The sealed-value reader (dp_seal_peek, then dp_seal_open into exactly
 *		the plaintext length peek reported), as every stored-state read calls
 *		it before any decoder runs.  Nothing but a value sealed under the key
 *		may open.
 *
 *		An input whose first byte is 0 is instead sealed (its public fields
 *		the first bytes of the rest) and opened again, in version 1 and in
 *		version 2 (bound to a role and a stream, padded): the round trip must
 *		give back exactly the input and its binding, and every one-bit change
 *		of the sealed bytes at a position the input chooses must be refused.
 */
#include "fuzz_common.h"

#include "dp_seal.h"

static const unsigned char key[DP_SEAL_KEY_BYTES] = "dp_stream fuzzing: a seal key..";

static void
open_sealed(const uint8_t *data, size_t size, dp_sealed_kind kind)
{
	dp_seal_info info;
	dp_parse_error error;
	unsigned char *plain;

	if (dp_seal_peek(data, size, kind, &info, &error) != DP_OK)
		return;
	FUZZ_CHECK(info.plain_length <= DP_SEAL_PLAIN_MAX);
	FUZZ_CHECK(info.public_length <= info.plain_length);
	plain = malloc(info.plain_length + 1);
	if (plain == NULL)
		abort();
	/* a value the fuzzer built cannot authenticate: 2^-128 */
	FUZZ_CHECK(dp_seal_open(data, size, &info, key, plain, &error) != DP_OK);
	{
		dp_seal_binding binding;
		size_t		state_length;

		FUZZ_CHECK(dp_seal_open_bound(data, size, &info, key, plain, &binding, &state_length,
									  &error) != DP_OK);
	}
	free(plain);
}

static void
round_trip(const uint8_t *data, size_t size)
{
	size_t		public_length = size > 2 ? data[0] % (size - 1) : 0;
	size_t		flip = size > 1 ? data[1] : 0;
	const uint8_t *plain = data + 2;
	size_t		plain_length = size > 2 ? size - 2 : 0;
	size_t		sealed_length;
	unsigned char *sealed;
	unsigned char *opened;
	dp_seal_info info;
	dp_parse_error error;

	if (size < 2 || public_length > plain_length || public_length > DP_SEAL_PUBLIC_MAX)
		return;
	sealed_length = dp_seal_size(public_length, plain_length);
	sealed = malloc(sealed_length);
	opened = malloc(plain_length + 1);
	if (sealed == NULL || opened == NULL)
		abort();
	dp_seal(sealed, DP_SEALED_COUNTER, 7, key, plain, plain_length, public_length);
	FUZZ_CHECK(dp_seal_peek(sealed, sealed_length, DP_SEALED_COUNTER, &info, &error) == DP_OK);
	FUZZ_CHECK(info.key_id == 7 && info.plain_length == plain_length);
	FUZZ_CHECK(dp_seal_open(sealed, sealed_length, &info, key, opened, &error) == DP_OK);
	FUZZ_CHECK(memcmp(opened, plain, plain_length) == 0);
	FUZZ_CHECK(dp_seal_peek(sealed, sealed_length, DP_SEALED_STATISTIC, &info, &error) != DP_OK);

	sealed[flip % sealed_length] ^= 1;
	if (dp_seal_peek(sealed, sealed_length, DP_SEALED_COUNTER, &info, &error) == DP_OK)
		FUZZ_CHECK(dp_seal_open(sealed, sealed_length, &info, key, opened, &error) != DP_OK);
	free(sealed);
	free(opened);

	/* version 2: bound and padded by up to 255 bytes */
	{
		dp_seal_binding binding = {.version = DP_SEAL_VERSION, .role = "fuzz_role",
		.stream_id = (uint64_t) size * 0x9e3779b97f4a7c15u};
		dp_seal_binding read;
		size_t		padded = plain_length + flip;
		size_t		state_length;

		sealed_length = dp_seal_bound_size(public_length, padded);
		sealed = malloc(sealed_length);
		opened = malloc(DP_SEAL_BINDING_BYTES + padded + 1);
		if (sealed == NULL || opened == NULL)
			abort();
		dp_seal_bound(sealed, DP_SEALED_COUNTER, 7, key, &binding, plain, plain_length,
					  public_length, padded);
		FUZZ_CHECK(dp_seal_peek(sealed, sealed_length, DP_SEALED_COUNTER, &info, &error) == DP_OK);
		FUZZ_CHECK(dp_seal_open_bound(sealed, sealed_length, &info, key, opened, &read,
									  &state_length, &error) == DP_OK);
		FUZZ_CHECK(state_length == plain_length && memcmp(opened, plain, plain_length) == 0);
		FUZZ_CHECK(strcmp(read.role, binding.role) == 0 && read.stream_id == binding.stream_id);
		sealed[(flip * 7) % sealed_length] ^= 1;
		if (dp_seal_peek(sealed, sealed_length, DP_SEALED_COUNTER, &info, &error) == DP_OK)
			FUZZ_CHECK(dp_seal_open_bound(sealed, sealed_length, &info, key, opened, &read,
										  &state_length, &error) != DP_OK);
		free(sealed);
		free(opened);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	dp_random	rng;

	fuzz_rng(&rng);				/* initialises libsodium */
	if (size > 0 && data[0] == 0)
		round_trip(data + 1, size - 1);
	else
	{
		open_sealed(data, size, DP_SEALED_COUNTER);
		open_sealed(data, size, DP_SEALED_STATISTIC);
	}
	return 0;
}
