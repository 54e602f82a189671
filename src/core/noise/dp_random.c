/*
 * dp_random.c
 *		ChaCha20 keystream keyed from libsodium's CSPRNG or from key material.
 *
 * libsodium's randombytes_buf() costs a getrandom() system call per call,
 * which would dominate a per-row noise draw.  Instead we draw one 256-bit key
 * and expand it with ChaCha20, 512 bytes at a time.  The buffer is refilled
 * lazily, so a process that never draws noise never fills it; callers that
 * may fork (PostgreSQL backends) re-key after a fork so two processes never
 * share keystream.
 */
#include "dp_random.h"

#include <stddef.h>
#include <string.h>
#include <sodium.h>

/* ChaCha20 (original construction) takes a 64-bit nonce and block counter. */
static const unsigned char zero_block[DP_RANDOM_BUFFER_BYTES];

bool
dp_random_library_init(void)
{
	return sodium_init() >= 0;
}

/* everything but the key and the buffer, for a stream just keyed */
static void
reset_fields(dp_random *rng, bool small_refills)
{
	rng->block_counter = 0;
	rng->nonce = 0;
	rng->small_until = DP_RANDOM_SMALL_REFILL_BLOCKS;
	rng->available = 0;
	rng->bit_pool = 0;
	rng->bits_left = 0;
	rng->samplers = NULL;
	rng->table_sampler = false;
	rng->constant_time_gaussian = false;
	rng->laplace_low = false;
	rng->keyed = true;
	rng->small_refills = small_refills;
	rng->written_from = sizeof(rng->buffer);
	rng->batch = NULL;
}

/*
 * A stream re-keyed in place must not keep the previous key's keystream:
 * the buffer is erased.
 */
static void
reset_stream(dp_random *rng)
{
	reset_fields(rng, false);
	sodium_memzero(rng->buffer, sizeof(rng->buffer));
}

/*
 * A derived stream lives for one noise term, in storage its owner wipes
 * with dp_random_wipe_derived afterwards (dp_counter_noise): the buffer is
 * not erased here, and what the stream writes into it is erased there.
 * Nothing unread is ever readable: available is 0.
 */
void
dp_random_init_derived_prf(dp_random *rng, const dp_random_prf *prf, const void *message,
						   size_t length)
{
	dp_random_prf_derive(rng->key, prf, message, length);
	reset_fields(rng, true);
}

/*
 * Keyed derivation 2.  An opening term's stream: ChaCha20 under the opening
 * key, nonce = the step, blocks from node * 2^32 on, so that two opening
 * terms of a counter (distinct (step, node)) read disjoint keystream (a draw
 * reads far fewer than 2^32 blocks).  No derivation per term.
 */
static void
start_opening(dp_random *rng, const unsigned char *opening_key, uint64_t step, uint64_t block)
{
	memcpy(rng->key, opening_key, DP_RANDOM_KEY_BYTES);
	reset_fields(rng, true);
	rng->nonce = step;
	rng->block_counter = block;
	rng->small_until = rng->block_counter + DP_RANDOM_SMALL_REFILL_BLOCKS;
}

void
dp_random_init_opening(dp_random *rng, const unsigned char *opening_key, uint64_t step,
					   uint32_t node)
{
	start_opening(rng, opening_key, step, (uint64_t) node << 32);
}

/*
 * As if the stream had made its first small refill: the pair at the end of
 * the buffer, the block counter past it.
 */
void
dp_random_init_opening_from(dp_random *rng, const unsigned char *opening_key, uint64_t step,
							uint64_t block, const unsigned char pair[128])
{
	const size_t offset = sizeof(rng->buffer) - 128;

	start_opening(rng, opening_key, step, block);
	memcpy(rng->buffer + offset, pair, 128);
	rng->block_counter += 2;
	rng->available = 128;
	rng->written_from = offset;
}

/*
 * A term with content: one compression of the wide derivation gives 64
 * bytes; the second half is the start of the stream (a count's draw reads
 * 32 bytes, so it stops there), the first half keys the ChaCha20 stream
 * that continues it when a draw reads more.  The two halves of one PRF
 * output are independent, and the key is never read as noise.
 */
void
dp_random_init_derived_wide(dp_random *rng, const dp_random_prf *wide, const void *message,
							size_t length)
{
	unsigned char out[DP_RANDOM_PRF_WIDE_BYTES];

	dp_random_prf_derive_wide(out, wide, message, length);
	dp_random_init_wide_from(rng, out, NULL);
	sodium_memzero(out, sizeof(out));
}

/*
 * With the continuation given, the head and then the pair, in reading
 * order, as the head and the stream's first small refill would leave them
 * (readers take the bytes in order whatever the refills in between).
 */
void
dp_random_init_wide_from(dp_random *rng, const unsigned char derived[DP_RANDOM_PRF_WIDE_BYTES],
						 const unsigned char *pair)
{
	const size_t head = DP_RANDOM_PRF_WIDE_BYTES - DP_RANDOM_KEY_BYTES;
	const size_t tail = pair != NULL ? 128 : 0;
	const size_t offset = sizeof(rng->buffer) - tail - head;

	memcpy(rng->key, derived, DP_RANDOM_KEY_BYTES);
	reset_fields(rng, true);
	memcpy(rng->buffer + offset, derived + DP_RANDOM_KEY_BYTES, head);
	if (pair != NULL)
	{
		memcpy(rng->buffer + offset + head, pair, 128);
		rng->block_counter = 2;
	}
	rng->available = head + tail;
	rng->written_from = offset;
}

void
dp_random_init_secure(dp_random *rng)
{
	randombytes_buf(rng->key, sizeof(rng->key));
	reset_stream(rng);
}

void
dp_random_init_keyed(dp_random *rng, const void *material, size_t length)
{
	/*
	 * Hash the material so that any length works and related seeds ("1",
	 * "2") give unrelated streams.  The personalisation-free generic hash
	 * with a fixed context string is enough: this is a KDF, not a MAC.
	 */
	static const unsigned char context[] = "dp_stream keyed noise stream v1";
	crypto_generichash_state state;

	crypto_generichash_init(&state, context, sizeof(context) - 1, sizeof(rng->key));
	crypto_generichash_update(&state, material, length);
	crypto_generichash_final(&state, rng->key, sizeof(rng->key));
	sodium_memzero(&state, sizeof(state));
	reset_stream(rng);
}

void
dp_random_derive_key(unsigned char *out, const unsigned char *key, const void *message,
					 size_t length)
{
	crypto_generichash(out, DP_RANDOM_KEY_BYTES, message, length, key, DP_RANDOM_KEY_BYTES);
}

void
dp_random_init_derived(dp_random *rng, const unsigned char *key, const void *message,
					   size_t length)
{
	dp_random_derive_key(rng->key, key, message, length);
	reset_stream(rng);
}

void
dp_random_wipe(dp_random *rng)
{
	sodium_memzero(rng, sizeof(*rng));
}

/*
 * The key, the bit pool and every byte of keystream the stream wrote (the
 * buffer from written_from on); the bytes below were never written by it.
 */
void
dp_random_wipe_derived(dp_random *rng)
{
	size_t		from = rng->written_from;

	if (from > sizeof(rng->buffer))
		from = 0;				/* not a derived stream's state: erase it all */
	sodium_memzero(rng->buffer + from, sizeof(rng->buffer) - from);
	sodium_memzero(rng, offsetof(dp_random, buffer));
}

/*
 * The next blocks of keystream, at the end of the buffer.  A stream of
 * fresh or seeded noise generates the whole buffer at once (libsodium's
 * eight blocks cost little more than two).  A derived stream generates its
 * first DP_RANDOM_SMALL_REFILL_BLOCKS blocks two at a time: its draw reads
 * 32 bytes (a count's table draw) to 88 (a sum's, dp_summary's squares),
 * rarely more, and two blocks cost about 125 ns with SSE2
 * (dp_random_chacha20_pair) against 105 for one block and 200 for two
 * through libsodium, 240 for eight.  The keystream is the same either way.
 */
static void
refill(dp_random *rng)
{
	int			blocks = DP_RANDOM_BUFFER_BYTES / 64;
	size_t		bytes;
	size_t		offset;

	if (rng->small_refills && rng->block_counter < rng->small_until)
		blocks = 2;
	bytes = (size_t) blocks * 64;
	offset = sizeof(rng->buffer) - bytes;
	if (blocks != 2 ||
		!dp_random_chacha20_pair_nonce(rng->buffer + offset, rng->key, rng->nonce,
									   rng->block_counter))
	{
		unsigned char nonce[crypto_stream_chacha20_NONCEBYTES];

		for (int i = 0; i < (int) sizeof(nonce); i++)
			nonce[i] = (unsigned char) (rng->nonce >> (8 * i));
		crypto_stream_chacha20_xor_ic(rng->buffer + offset, zero_block, bytes,
									  nonce, rng->block_counter, rng->key);
	}
	rng->block_counter += (uint64_t) blocks;
	rng->available = bytes;
	if (offset < rng->written_from)
		rng->written_from = offset;
}

void
dp_random_bytes(dp_random *rng, void *out, size_t length)
{
	unsigned char *target = out;

	while (length > 0)
	{
		size_t		chunk;
		unsigned char *source;

		if (rng->available == 0)
			refill(rng);
		chunk = length < rng->available ? length : rng->available;
		source = rng->buffer + (sizeof(rng->buffer) - rng->available);
		memcpy(target, source, chunk);
		rng->available -= chunk;
		target += chunk;
		length -= chunk;
	}
}

/*
 * Fixed-size reads take the fast path when the buffer holds enough bytes.
 * Bytes already handed out stay in the buffer until the next refill
 * overwrites them: wiping each read cost more than the noise itself, and
 * anyone able to read this process's memory could read the states anyway.
 * Re-keying and dp_random_wipe erase everything.
 */
static inline void
take(dp_random *rng, void *out, size_t length)
{
	if (rng->available >= length)
	{
		memcpy(out, rng->buffer + (sizeof(rng->buffer) - rng->available), length);
		rng->available -= length;
	}
	else
		dp_random_bytes(rng, out, length);
}

uint32_t
dp_random_uint32(dp_random *rng)
{
	uint32_t	value;

	take(rng, &value, sizeof(value));
	return value;
}

/*
 * Lemire's multiply-shift method: exact, and almost never needs the
 * division or a second draw for the small bounds of the noise samplers.
 */
static uint64_t
below_32(dp_random *rng, uint32_t bound)
{
	uint64_t	product = (uint64_t) dp_random_uint32(rng) * bound;
	uint32_t	low = (uint32_t) product;

	if (low < bound)
	{
		uint32_t	threshold = (uint32_t) (-bound) % bound;

		while (low < threshold)
		{
			product = (uint64_t) dp_random_uint32(rng) * bound;
			low = (uint32_t) product;
		}
	}
	return product >> 32;
}

uint64_t
dp_random_below(dp_random *rng, uint64_t bound)
{
	int			bits;
	uint64_t	mask;
	uint64_t	candidate;

	if (bound <= 1)
		return 0;
	if (bound == 2)
		return (uint64_t) dp_random_bit(rng);
	if (bound <= UINT32_MAX)
		return below_32(rng, (uint32_t) bound);
	/* mask to the bit length of bound - 1; each try succeeds with p > 1/2 */
	bits = 64 - __builtin_clzll(bound - 1);
	mask = bits == 64 ? UINT64_MAX : ((uint64_t) 1 << bits) - 1;
	do
		candidate = dp_random_uint64(rng) & mask;
	while (candidate >= bound);
	return candidate;
}

dp_uint128
dp_random_below128(dp_random *rng, dp_uint128 bound)
{
	int			bits;
	dp_uint128	mask;
	dp_uint128	candidate;

	if (bound <= 1)
		return 0;
	if ((bound >> 64) == 0)
		return dp_random_below(rng, (uint64_t) bound);
	bits = dp_uint128_bit_length(bound - 1);
	mask = bits == 128 ? ~(dp_uint128) 0 : (((dp_uint128) 1 << bits) - 1);
	do
	{
		uint64_t	halves[2];

		dp_random_bytes(rng, halves, sizeof(halves));
		candidate = (((dp_uint128) halves[1] << 64) | halves[0]) & mask;
	} while (candidate >= bound);
	return candidate;
}
