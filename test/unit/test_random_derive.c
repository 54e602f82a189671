/*
 * test_random_derive.c
 *		The fast derivation of keyed noise streams (dp_random_derive.c)
 *		against a straightforward reference: keyed crypto_generichash for the
 *		derived key, crypto_stream_chacha20 for its keystream, and the
 *		libsodium-backed dp_random_init_derived for the reads the samplers
 *		make.  Every keyed and repeatable release depends on these bytes, so
 *		any difference is a failure, not a tolerance.
 *
 * The inputs come from libsodium's deterministic generator under a fixed
 * seed, independent of the code under test.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sodium.h>

#include "dp_random.h"
#include "tap.h"

#define KEYS 300
#define STREAM_BYTES 2100		/* block pairs, then several whole buffers */

static const unsigned char zero_nonce[crypto_stream_chacha20_NONCEBYTES];

static unsigned char input_pool[1 << 20];
static size_t input_used = sizeof(input_pool);
static uint64_t input_round = 0;

/* the next `length` bytes of the fixed-seed input sequence */
static void
inputs(void *out, size_t length)
{
	unsigned char *target = out;

	while (length > 0)
	{
		size_t		chunk;

		if (input_used == sizeof(input_pool))
		{
			unsigned char seed[randombytes_SEEDBYTES] = "test_random_derive fixed seed";

			memcpy(seed + 24, &input_round, sizeof(input_round));
			input_round++;
			randombytes_buf_deterministic(input_pool, sizeof(input_pool), seed);
			input_used = 0;
		}
		chunk = sizeof(input_pool) - input_used;
		if (chunk > length)
			chunk = length;
		memcpy(target, input_pool + input_used, chunk);
		input_used += chunk;
		target += chunk;
		length -= chunk;
	}
}

static uint32_t
input_below(uint32_t bound)
{
	uint32_t	word;

	inputs(&word, sizeof(word));
	return word % bound;
}

/* dp_random_chacha20_pair gives blocks counter and counter + 1 of crypto_stream_chacha20 */
static void
test_chacha_pair(void)
{
	static const uint64_t fixed_counters[] = {0, 1, 2, 0xfffffffeu, 0xffffffffu,
	UINT64_C(0x100000000), UINT64_MAX - 1, UINT64_MAX};
	int			same = 0;
	int			total = 0;

	for (int k = 0; k < KEYS; k++)
	{
		unsigned char key[DP_RANDOM_KEY_BYTES];

		inputs(key, sizeof(key));
		for (int c = 0; c < 12; c++)
		{
			static const unsigned char zeros[128];
			unsigned char expected[128];
			unsigned char got[128];
			uint64_t	counter;

			if (c < (int) (sizeof(fixed_counters) / sizeof(fixed_counters[0])))
				counter = fixed_counters[c];
			else
				inputs(&counter, sizeof(counter));
			/* past 2^64 - 1 the counter wraps to 0 in both */
			crypto_stream_chacha20_xor_ic(expected, zeros, 64, zero_nonce, counter, key);
			crypto_stream_chacha20_xor_ic(expected + 64, zeros, 64, zero_nonce, counter + 1, key);
			if (!dp_random_chacha20_pair(got, key, counter))
			{
				tap_ok(1, "ChaCha20 block pairs: no SSE2 in this build, libsodium serves");
				return;
			}
			same += memcmp(expected, got, sizeof(got)) == 0;
			total++;
		}
	}
	tap_ok(same == total, "ChaCha20 block pairs: %d of %d (random keys, counters across 2^32 and 2^64) equal libsodium's",
		   same, total);
}

/* the prepared key derives what keyed crypto_generichash derives, for every message length */
static void
test_prf_keys(void)
{
	int			same = 0;
	int			total = 0;

	for (int k = 0; k < KEYS; k++)
	{
		unsigned char key[DP_RANDOM_KEY_BYTES];
		dp_random_prf prf;

		inputs(key, sizeof(key));
		if (k == 0)
			memset(key, 0, sizeof(key));
		else if (k == 1)
			memset(key, 0xff, sizeof(key));
		dp_random_prf_prepare(&prf, key);
		for (size_t length = 1; length <= DP_RANDOM_PRF_MAX_MESSAGE; length++)
		{
			unsigned char message[DP_RANDOM_PRF_MAX_MESSAGE];
			unsigned char expected[DP_RANDOM_KEY_BYTES];
			dp_random	stream;

			inputs(message, length);
			crypto_generichash(expected, sizeof(expected), message, length, key, sizeof(key));
			dp_random_init_derived_prf(&stream, &prf, message, length);
			same += memcmp(expected, stream.key, sizeof(expected)) == 0;
			total++;
			dp_random_wipe_derived(&stream);
		}
		dp_random_prf_wipe(&prf);
	}
	tap_ok(same == total, "derived keys: %d of %d (keys x message lengths 1..%d) equal keyed crypto_generichash",
		   same, total, DP_RANDOM_PRF_MAX_MESSAGE);
}

/*
 * A derived stream read in pieces of random lengths gives the reference
 * keystream: crypto_stream_chacha20 under the crypto_generichash key.
 */
static void
test_keystream(void)
{
	int			same = 0;

	for (int k = 0; k < KEYS; k++)
	{
		unsigned char key[DP_RANDOM_KEY_BYTES];
		unsigned char message[32];
		unsigned char derived_key[DP_RANDOM_KEY_BYTES];
		unsigned char expected[STREAM_BYTES];
		unsigned char got[STREAM_BYTES];
		dp_random_prf prf;
		dp_random	stream;
		size_t		read = 0;
		size_t		limit = 1 + input_below(k % 3 == 0 ? 40 : 200);

		inputs(key, sizeof(key));
		inputs(message, sizeof(message));
		crypto_generichash(derived_key, sizeof(derived_key), message, sizeof(message), key, sizeof(key));
		crypto_stream_chacha20(expected, sizeof(expected), zero_nonce, derived_key);
		dp_random_prf_prepare(&prf, key);
		dp_random_init_derived_prf(&stream, &prf, message, sizeof(message));
		while (read < sizeof(got))
		{
			size_t		piece = 1 + input_below((uint32_t) limit);

			if (piece > sizeof(got) - read)
				piece = sizeof(got) - read;
			dp_random_bytes(&stream, got + read, piece);
			read += piece;
		}
		same += memcmp(expected, got, sizeof(got)) == 0;
		dp_random_wipe_derived(&stream);
	}
	tap_ok(same == KEYS, "keystreams: %d of %d derived streams read in random pieces (%d bytes) equal crypto_stream_chacha20",
		   same, KEYS, STREAM_BYTES);
}

/*
 * The reads of the noise samplers (words, word arrays and pairs, fair bits,
 * bounded uniforms, byte strings) in random order give the same values from
 * the fast stream as from dp_random_init_derived, which refills 512 bytes
 * through libsodium.
 */
static void
test_sampler_reads(void)
{
	int			same = 0;
	long		reads = 0;

	for (int k = 0; k < KEYS; k++)
	{
		unsigned char key[DP_RANDOM_KEY_BYTES];
		unsigned char message[32];
		dp_random_prf prf;
		dp_random	fast;
		dp_random	reference;
		bool		equal = true;
		int			count = 1 + (int) input_below(k % 2 ? 8 : 120);

		inputs(key, sizeof(key));
		inputs(message, sizeof(message));
		dp_random_prf_prepare(&prf, key);
		dp_random_init_derived_prf(&fast, &prf, message, sizeof(message));
		dp_random_init_derived(&reference, key, message, sizeof(message));
		for (int i = 0; i < count; i++)
		{
			uint64_t	a[5] = {0};
			uint64_t	b[5] = {0};
			uint64_t	bound;

			switch (input_below(7))
			{
				case 0:
					a[0] = dp_random_uint64(&fast);
					b[0] = dp_random_uint64(&reference);
					break;
				case 1:
					a[0] = dp_random_uint32(&fast);
					b[0] = dp_random_uint32(&reference);
					break;
				case 2:
					dp_random_uint64_array(&fast, a, 5);
					dp_random_uint64_array(&reference, b, 5);
					break;
				case 3:
					dp_random_uint64_pair(&fast, &a[0], &a[1]);
					dp_random_uint64_pair(&reference, &b[0], &b[1]);
					break;
				case 4:
					for (int j = 0; j < 5; j++)
					{
						a[j] = (uint64_t) dp_random_bit(&fast);
						b[j] = (uint64_t) dp_random_bit(&reference);
					}
					break;
				case 5:
					inputs(&bound, sizeof(bound));
					bound >>= input_below(64);
					a[0] = dp_random_below(&fast, bound);
					b[0] = dp_random_below(&reference, bound);
					a[1] = (uint64_t) dp_random_below128(&fast, ((dp_uint128) bound << 40) + 3);
					b[1] = (uint64_t) dp_random_below128(&reference, ((dp_uint128) bound << 40) + 3);
					break;
				default:
					{
						size_t		length = 1 + input_below(sizeof(a) - 1);

						dp_random_bytes(&fast, a, length);
						dp_random_bytes(&reference, b, length);
					}
					break;
			}
			equal &= memcmp(a, b, sizeof(a)) == 0;
			reads++;
		}
		same += equal;
		dp_random_wipe_derived(&fast);
		dp_random_wipe(&reference);
	}
	tap_ok(same == KEYS, "sampler reads: %d of %d streams (%ld mixed reads) equal dp_random_init_derived's",
		   same, KEYS, reads);
}

/* wiping erases the key, the bit pool and all the keystream the stream wrote, nothing else */
static void
test_wipe(void)
{
	unsigned char key[DP_RANDOM_KEY_BYTES];
	unsigned char message[32];
	dp_random_prf prf;
	dp_random	stream;
	unsigned char nothing[DP_RANDOM_BUFFER_BYTES] = {0};
	unsigned char sentinel[DP_RANDOM_BUFFER_BYTES];
	unsigned char words[DP_RANDOM_KEY_BYTES] = {0};
	bool		ok = true;

	inputs(key, sizeof(key));
	inputs(message, sizeof(message));
	dp_random_prf_prepare(&prf, key);
	for (int reads = 1; reads <= 40; reads += 13)
	{
		size_t		from;

		memset(&stream, 0xa5, sizeof(stream));
		memset(sentinel, 0xa5, sizeof(sentinel));
		dp_random_init_derived_prf(&stream, &prf, message, sizeof(message));
		for (int i = 0; i < reads; i++)
			(void) dp_random_uint64(&stream);
		(void) dp_random_bit(&stream);
		from = stream.written_from;
		ok &= from < sizeof(stream.buffer) && from % 64 == 0;
		dp_random_wipe_derived(&stream);
		ok &= memcmp(stream.key, words, sizeof(stream.key)) == 0 && stream.bit_pool == 0 &&
			stream.available == 0 && !stream.keyed;
		ok &= memcmp(stream.buffer + from, nothing, sizeof(stream.buffer) - from) == 0;
		ok &= memcmp(stream.buffer, sentinel, from) == 0;
	}
	dp_random_prf_wipe(&prf);
	ok &= memcmp(&prf, nothing, sizeof(prf)) == 0;
	tap_ok(ok, "dp_random_wipe_derived erases the key, the bit pool and the keystream written; dp_random_prf_wipe the prepared key");
}

/*
 * Keyed derivation 2 (dp_counter_noise): the wide derivation is keyed
 * crypto_generichash with a 64-byte output; the block pairs with a nonce
 * are crypto_stream_chacha20's with that nonce; an opening term's stream is
 * crypto_stream_chacha20 under the opening key, nonce = step, from block
 * node * 2^32; a term with content reads the second half of the wide
 * derivation, then crypto_stream_chacha20 under its first half.  Each read
 * in pieces of random lengths.
 */
static void
read_in_pieces(dp_random *stream, unsigned char *got, size_t length)
{
	size_t		at = 0;

	while (at < length)
	{
		size_t		piece = 1 + input_below(40);

		if (piece > length - at)
			piece = length - at;
		if (piece == 8)
		{
			uint64_t	word = dp_random_uint64(stream);

			memcpy(got + at, &word, 8);
		}
		else
			dp_random_bytes(stream, got + at, piece);
		at += piece;
	}
}

static void
test_derivation_2(void)
{
	int			wide_same = 0,
				wide_total = 0,
				pair_same = 0,
				pair_total = 0,
				open_same = 0,
				content_same = 0;
	bool		sse2 = true;

	for (int k = 0; k < KEYS; k++)
	{
		unsigned char key[DP_RANDOM_KEY_BYTES];
		dp_random_prf wide;
		unsigned char message[32];
		unsigned char out[DP_RANDOM_PRF_WIDE_BYTES];
		static unsigned char expected[STREAM_BYTES + 64];
		static unsigned char got[STREAM_BYTES + 64];
		static const unsigned char zeros[STREAM_BYTES + 64];
		unsigned char nonce_bytes[crypto_stream_chacha20_NONCEBYTES];
		uint64_t	step;
		uint32_t	node;
		dp_random	stream;

		inputs(key, sizeof(key));
		dp_random_prf_prepare_wide(&wide, key);
		for (size_t length = 1; length <= DP_RANDOM_PRF_MAX_MESSAGE; length += 9)
		{
			unsigned char long_message[DP_RANDOM_PRF_MAX_MESSAGE];

			inputs(long_message, length);
			crypto_generichash(expected, DP_RANDOM_PRF_WIDE_BYTES, long_message, length, key,
							   sizeof(key));
			dp_random_prf_derive_wide(out, &wide, long_message, length);
			wide_same += memcmp(expected, out, sizeof(out)) == 0;
			wide_total++;
		}

		/* block pairs with a nonce */
		inputs(&step, sizeof(step));
		for (int i = 0; i < 8; i++)
			nonce_bytes[i] = (unsigned char) (step >> (8 * i));
		{
			uint64_t	counter;

			inputs(&counter, sizeof(counter));
			crypto_stream_chacha20_xor_ic(expected, zeros, 128, nonce_bytes, counter, key);
			if (dp_random_chacha20_pair_nonce(got, key, step, counter))
			{
				pair_same += memcmp(expected, got, 128) == 0;
				pair_total++;
			}
			else
				sse2 = false;
		}

		/* an opening term's stream */
		node = input_below(1024);
		crypto_stream_chacha20_xor_ic(expected, zeros, STREAM_BYTES, nonce_bytes,
									  (uint64_t) node << 32, key);
		dp_random_init_opening(&stream, key, step, node);
		read_in_pieces(&stream, got, STREAM_BYTES);
		open_same += memcmp(expected, got, STREAM_BYTES) == 0;
		dp_random_wipe_derived(&stream);

		/* a term with content */
		inputs(message, sizeof(message));
		crypto_generichash(out, sizeof(out), message, sizeof(message), key, sizeof(key));
		memcpy(expected, out + DP_RANDOM_KEY_BYTES, DP_RANDOM_PRF_WIDE_BYTES - DP_RANDOM_KEY_BYTES);
		crypto_stream_chacha20_xor_ic(expected + 32, zeros, STREAM_BYTES, zero_nonce, 0, out);
		dp_random_init_derived_wide(&stream, &wide, message, sizeof(message));
		read_in_pieces(&stream, got, STREAM_BYTES + 32);
		content_same += memcmp(expected, got, STREAM_BYTES + 32) == 0;
		dp_random_wipe_derived(&stream);
		dp_random_prf_wipe(&wide);
	}
	tap_ok(wide_same == wide_total, "derivation 2: %d of %d wide derivations equal 64-byte keyed crypto_generichash",
		   wide_same, wide_total);
	if (sse2)
		tap_ok(pair_same == pair_total, "derivation 2: %d of %d ChaCha20 block pairs with a nonce equal libsodium's",
			   pair_same, pair_total);
	else
		tap_ok(1, "derivation 2: ChaCha20 block pairs: no SSE2 in this build, libsodium serves");
	tap_ok(open_same == KEYS, "derivation 2: %d of %d opening-term streams equal crypto_stream_chacha20 (nonce = step, from block node * 2^32)",
		   open_same, KEYS);
	tap_ok(content_same == KEYS, "derivation 2: %d of %d content-term streams equal the wide derivation's second half, then ChaCha20 under its first",
		   content_same, KEYS);
}

int
main(void)
{
	if (sodium_init() < 0)
	{
		printf("Bail out! libsodium cannot be initialised\n");
		return 1;
	}
	test_chacha_pair();
	test_prf_keys();
	test_keystream();
	test_sampler_reads();
	test_wipe();
	test_derivation_2();
	return tap_done();
}
