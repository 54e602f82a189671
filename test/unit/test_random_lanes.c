/*
 * test_random_lanes.c
 *		The side-by-side evaluations of dp_random_lanes.c against the
 *		one-at-a-time functions and libsodium: every lane count from 1 to
 *		past one vector (so the chunking and the unused lanes are read too),
 *		every message length of the wide derivation, keys, nonces and block
 *		counters from a fixed-seed generator (counters near 2^32 and 2^64,
 *		where a pair's second block carries into the high word).  Keyed
 *		releases depend on these bytes: any difference is a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>

#include "dp_random_derive.h"
#include "tap.h"

#define ROUNDS 200
#define MAX_LANES 9

static uint64_t input_round = 0;

/* `length` bytes of the fixed-seed input sequence, a fresh block each call */
static void
inputs(void *out, size_t length)
{
	unsigned char seed[randombytes_SEEDBYTES] = "test_random_lanes fixed seed";

	memcpy(seed + 24, &input_round, sizeof(input_round));
	input_round++;
	randombytes_buf_deterministic(out, length, seed);
}

/* keyed BLAKE2b-512 as libsodium computes it */
static void
reference_wide(unsigned char out[64], const unsigned char key[32], const unsigned char *message,
			   size_t length)
{
	crypto_generichash(out, 64, message, length, key, 32);
}

/* blocks counter and counter + 1 of crypto_stream_chacha20 */
static void
reference_pair(unsigned char out[128], const unsigned char key[32], uint64_t nonce,
			   uint64_t counter)
{
	unsigned char n[crypto_stream_chacha20_NONCEBYTES];

	for (int i = 0; i < (int) sizeof(n); i++)
		n[i] = (unsigned char) (nonce >> (8 * i));
	memset(out, 0, 128);
	crypto_stream_chacha20_xor_ic(out, out, 128, n, counter, key);
}

static void
test_prf_lanes(int level)
{
	int			wrong_reference = 0;
	int			wrong_serial = 0;
	int			checked = 0;

	for (int round = 0; round < ROUNDS; round++)
	{
		int			lanes = 1 + round % MAX_LANES;
		size_t		length = 1 + (size_t) (round * 37) % DP_RANDOM_PRF_MAX_MESSAGE;
		unsigned char keys[MAX_LANES][32];
		unsigned char messages[MAX_LANES][DP_RANDOM_PRF_MAX_MESSAGE];
		dp_random_prf prepared[MAX_LANES];
		const dp_random_prf *prfs[MAX_LANES];
		const unsigned char *message_of[MAX_LANES];
		unsigned char out[MAX_LANES][DP_RANDOM_PRF_WIDE_BYTES];
		unsigned char *out_of[MAX_LANES];

		/* the statistic's positions are 32 bytes: every other round uses it */
		if (round % 2 == 0)
			length = 32;
		inputs(keys, sizeof(keys));
		inputs(messages, sizeof(messages));
		for (int i = 0; i < lanes; i++)
		{
			dp_random_prf_prepare_wide(&prepared[i], keys[i]);
			prfs[i] = &prepared[i];
			message_of[i] = messages[i];
			out_of[i] = out[i];
		}
		memset(out, 0xa5, sizeof(out));
		dp_random_prf_derive_wide_lanes_at(level, out_of, prfs, message_of, length, lanes);
		for (int i = 0; i < lanes; i++)
		{
			unsigned char expected[64];
			unsigned char serial[64];

			reference_wide(expected, keys[i], messages[i], length);
			dp_random_prf_derive_wide(serial, prfs[i], messages[i], length);
			wrong_reference += memcmp(out[i], expected, 64) != 0;
			wrong_serial += memcmp(out[i], serial, 64) != 0;
			checked++;
		}
		/* lanes past the count are not written */
		for (int i = lanes; i < MAX_LANES; i++)
			for (int b = 0; b < 64; b++)
				wrong_serial += out[i][b] != 0xa5;
	}
	tap_ok(wrong_reference == 0, "wide derivation in lanes, level %d = libsodium's BLAKE2b-512 (%d of %d differ)",
		   level, wrong_reference, checked);
	tap_ok(wrong_serial == 0, "wide derivation in lanes, level %d = one at a time, nothing past the lanes written (%d differ)",
		   level, wrong_serial);
}

static void
test_chacha_lanes(int level)
{
	int			wrong_reference = 0;
	int			wrong_serial = 0;
	int			checked = 0;
	static const uint64_t edges[] = {
		0, 1, (UINT64_C(1) << 32) - 1, (UINT64_C(1) << 32), UINT64_MAX - 1, UINT64_C(7) << 32
	};

	for (int round = 0; round < ROUNDS; round++)
	{
		int			pairs = 1 + round % MAX_LANES;
		unsigned char keys[MAX_LANES][32];
		const unsigned char *key_of[MAX_LANES];
		uint64_t	nonces[MAX_LANES];
		uint64_t	counters[MAX_LANES];
		unsigned char out[MAX_LANES][128];
		unsigned char *out_of[MAX_LANES];

		inputs(keys, sizeof(keys));
		inputs(nonces, sizeof(nonces));
		inputs(counters, sizeof(counters));
		for (int i = 0; i < pairs; i++)
		{
			key_of[i] = keys[i];
			out_of[i] = out[i];
			/* counters at the words' edges in some lanes, small in others */
			if ((round + i) % 3 == 0)
				counters[i] = edges[(round + i) % (int) (sizeof(edges) / sizeof(edges[0]))];
			else if ((round + i) % 3 == 1)
				counters[i] = (counters[i] & 0xffff) << 32;
			if (round % 4 == 0)
				nonces[i] = (uint64_t) round;
		}
		memset(out, 0x5a, sizeof(out));
		dp_random_chacha20_pairs_lanes_at(level, out_of, key_of, nonces, counters, pairs);
		for (int i = 0; i < pairs; i++)
		{
			unsigned char expected[128];
			unsigned char serial[128];

			reference_pair(expected, keys[i], nonces[i], counters[i]);
			wrong_reference += memcmp(out[i], expected, 128) != 0;
			if (dp_random_chacha20_pair_nonce(serial, keys[i], nonces[i], counters[i]))
				wrong_serial += memcmp(out[i], serial, 128) != 0;
			checked++;
		}
		for (int i = pairs; i < MAX_LANES; i++)
			for (int b = 0; b < 128; b++)
				wrong_serial += out[i][b] != 0x5a;
	}
	tap_ok(wrong_reference == 0, "ChaCha20 pairs in lanes, level %d = libsodium's crypto_stream_chacha20 (%d of %d differ)",
		   level, wrong_reference, checked);
	tap_ok(wrong_serial == 0, "ChaCha20 pairs in lanes, level %d = one pair at a time, nothing past the pairs written (%d differ)",
		   level, wrong_serial);
}

/*
 * What the kernels leave on the stack: the words they store (the derived
 * words, keystream) are erased before they return, as the one-at-a-time
 * functions erase theirs (dp_random_lanes.c).  After four lanes of each,
 * the stack below the caller's frame is searched for any 32-byte piece of
 * their outputs.  Reading the dead stack is what memcheck reports as
 * uninitialised: skipped under valgrind (its preload library).
 */
__attribute__((noinline)) static void
residue_derive(int level, unsigned char out[4][128], int pairs)
{
	unsigned char keys[4][32];
	unsigned char messages[4][32];
	dp_random_prf prepared[4];
	const dp_random_prf *prfs[4];
	const unsigned char *message_of[4];
	const unsigned char *key_of[4];
	unsigned char *out_of[4];
	uint64_t	nonces[4];
	uint64_t	counters[4];

	inputs(keys, sizeof(keys));
	inputs(messages, sizeof(messages));
	for (int i = 0; i < 4; i++)
	{
		dp_random_prf_prepare_wide(&prepared[i], keys[i]);
		prfs[i] = &prepared[i];
		message_of[i] = messages[i];
		key_of[i] = keys[i];
		nonces[i] = (uint64_t) i;
		counters[i] = (uint64_t) i << 32;
		out_of[i] = out[i];
	}
	if (!pairs)
		dp_random_prf_derive_wide_lanes_at(level, out_of, prfs, message_of, 32, 4);
	else
		dp_random_chacha20_pairs_lanes_at(level, out_of, key_of, nonces, counters, 4);
	sodium_memzero(prepared, sizeof(prepared));
	sodium_memzero(keys, sizeof(keys));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((noinline)) static int
residue_scan(unsigned char out[4][128], int pieces)
{
	volatile unsigned char stack[16384];
	int			found = 0;

	for (int i = 0; i < 4; i++)
		for (int piece = 0; piece < pieces; piece++)
			for (size_t at = 0; at + 32 <= sizeof(stack); at++)
			{
				int			same = 1;

				for (int b = 0; b < 32 && same; b++)
					same = stack[at + b] == out[i][32 * piece + b];
				if (same)
				{
					found++;
					break;
				}
			}
	return found;
}
#pragma GCC diagnostic pop

static void
test_residue(int level)
{
	static unsigned char out[4][128];
	const char *preload = getenv("LD_PRELOAD");
	int			found;

	if (preload != NULL && strstr(preload, "vgpreload") != NULL)
	{
		tap_ok(1, "# SKIP lanes, level %d: stack residue not searched under valgrind", level);
		tap_ok(1, "# SKIP lanes, level %d: stack residue not searched under valgrind", level);
		return;
	}
	/* each kind on its own: the second call's frame would cover the first's */
	for (int pairs = 0; pairs < 2; pairs++)
	{
		memset(out, 0, sizeof(out));
		residue_derive(level, out, pairs);
		found = residue_scan(out, pairs ? 4 : 2);
		tap_ok(found == 0, "%s in lanes, level %d: no 32-byte piece of the outputs left on the stack (%d found)",
			   pairs ? "ChaCha20 pairs" : "wide derivation", level, found);
	}
	sodium_memzero(out, sizeof(out));
}

int
main(void)
{
	if (sodium_init() < 0)
		return 1;
	/* every kernel this processor runs, and the one-at-a-time path */
	tap_diag("lanes on this processor: level %d (2 AVX-512VL, 1 AVX2, 0 none)",
			 dp_random_lanes_vectorised());
	for (int level = 0; level <= dp_random_lanes_vectorised(); level++)
	{
		test_prf_lanes(level);
		test_chacha_lanes(level);
		test_residue(level);
	}
	return tap_done();
}
