/*
 * dp_random_lanes.c
 *		Several independent evaluations of the derivation primitives side by
 *		side: up to four keyed BLAKE2b-512 compressions, and up to four pairs
 *		of ChaCha20 blocks, each under its own key, nonce and counter.
 *
 * One evaluation of either is a chain of dependent additions, XORs and
 * rotations: it leaves most of a core's vector units idle, and no
 * vectorisation of one evaluation ran faster here (docs/benchmarks.md).
 * The terms a keyed statistic draws at one step belong to different
 * channels, whose evaluations do not depend on one another
 * (dp_term_batch.c): with AVX2 each 64-bit word of BLAKE2b's state holds
 * four lanes, each 32-bit word of ChaCha20's eight, and the evaluations
 * run in about the time of one or two.
 *
 * The outputs are those of dp_random_prf_derive_wide and
 * dp_random_chacha20_pair_nonce, bit for bit: test/unit/test_random_lanes.c
 * compares every lane count with them and with libsodium.  Where the
 * processor has no AVX2 (checked at each call: __builtin_cpu_supports reads
 * a word libgcc fills at load time) or the build is not for x86-64, the
 * lanes are evaluated one at a time by those functions.
 *
 * Wiping: the words a kernel stores (the derived words, the message
 * words, the keystream and the key words) are erased before it returns,
 * as the one-at-a-time functions erase theirs, and so is any array the
 * compiler must keep in memory (an output row indexed by the lane count);
 * what stays in registers is left, as there.  test_random_lanes searches
 * the stack for the outputs after each kernel.
 *
 * No PostgreSQL headers.
 */
#include "dp_random_derive.h"
#include "dp_blake2b_tables.h"

#include <string.h>
#include <sodium.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define DP_RANDOM_LANES_AVX2 1
#include <immintrin.h>
#endif

/* one-at-a-time, the reference and the fallback */
static void
prf_lanes_serial(unsigned char *const *out, const dp_random_prf *const *prfs,
				 const unsigned char *const *messages, size_t length, int lanes)
{
	for (int i = 0; i < lanes; i++)
		dp_random_prf_derive_wide(out[i], prfs[i], messages[i], length);
}

static void
chacha_lanes_serial(unsigned char *const *out, const unsigned char *const *keys,
					const uint64_t *nonces, const uint64_t *counters, int pairs)
{
	for (int i = 0; i < pairs; i++)
		if (!dp_random_chacha20_pair_nonce(out[i], keys[i], nonces[i], counters[i]))
		{
			unsigned char nonce[crypto_stream_chacha20_NONCEBYTES];

			for (int b = 0; b < (int) sizeof(nonce); b++)
				nonce[b] = (unsigned char) (nonces[i] >> (8 * b));
			memset(out[i], 0, 128);
			crypto_stream_chacha20_xor_ic(out[i], out[i], 128, nonce, counters[i], keys[i]);
		}
}

#ifdef DP_RANDOM_LANES_AVX2

/* "expand 32-byte k" */
static const uint32_t lanes_chacha_sigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

/*
 * AVX2: rotations by whole bytes are byte shuffles, the others two shifts
 * and an OR (by 63: the top bit down, the rest doubled).
 */
#define LANES_TARGET __attribute__((target("avx2")))
#define LANES_NAME(name) name##_avx2
#define LANES_CONSTANTS \
	const __m256i ror24 = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10, \
										   3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10); \
	const __m256i ror16 = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, \
										   2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9); \
	const __m256i rol16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, \
										   2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13); \
	const __m256i rol8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, \
										  3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14); \
	(void) ror24; (void) ror16; (void) rol16; (void) rol8
#define ROR64_32(x) _mm256_shuffle_epi32((x), _MM_SHUFFLE(2, 3, 0, 1))
#define ROR64_24(x) _mm256_shuffle_epi8((x), ror24)
#define ROR64_16(x) _mm256_shuffle_epi8((x), ror16)
#define ROR64_63(x) _mm256_or_si256(_mm256_srli_epi64((x), 63), _mm256_add_epi64((x), (x)))
#define ROL32_16(x) _mm256_shuffle_epi8((x), rol16)
#define ROL32_8(x) _mm256_shuffle_epi8((x), rol8)
#define ROL32_12(x) _mm256_or_si256(_mm256_slli_epi32((x), 12), _mm256_srli_epi32((x), 20))
#define ROL32_7(x) _mm256_or_si256(_mm256_slli_epi32((x), 7), _mm256_srli_epi32((x), 25))
#include "dp_random_lanes_kernels.h"
#undef LANES_TARGET
#undef LANES_NAME
#undef LANES_CONSTANTS
#undef ROR64_32
#undef ROR64_24
#undef ROR64_16
#undef ROR64_63
#undef ROL32_16
#undef ROL32_8
#undef ROL32_12
#undef ROL32_7

/* AVX-512VL: every rotation one instruction, and 32 vector registers */
#define LANES_TARGET __attribute__((target("avx2,avx512f,avx512vl")))
#define LANES_NAME(name) name##_avx512
#define LANES_CONSTANTS (void) 0
#define ROR64_32(x) _mm256_ror_epi64((x), 32)
#define ROR64_24(x) _mm256_ror_epi64((x), 24)
#define ROR64_16(x) _mm256_ror_epi64((x), 16)
#define ROR64_63(x) _mm256_ror_epi64((x), 63)
#define ROL32_16(x) _mm256_rol_epi32((x), 16)
#define ROL32_8(x) _mm256_rol_epi32((x), 8)
#define ROL32_12(x) _mm256_rol_epi32((x), 12)
#define ROL32_7(x) _mm256_rol_epi32((x), 7)
#include "dp_random_lanes_kernels.h"

/* which kernels this processor runs: 2 AVX-512VL, 1 AVX2, 0 none */
static int
lanes_level(void)
{
	if (__builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512f"))
		return 2;
	return __builtin_cpu_supports("avx2") ? 1 : 0;
}

static void
prf_lanes_vector(int level, unsigned char *const *out,
				 const dp_random_prf *const *prfs, const unsigned char *const *messages,
				 size_t length, int lanes)
{
	const dp_random_prf *p[4];
	const unsigned char *msg[4];

	for (int i = 0; i < 4; i++)
	{
		p[i] = prfs[i < lanes ? i : 0];
		msg[i] = messages[i < lanes ? i : 0];
	}
	if (level == 2)
		prf_lanes_avx512(out, p, msg, length, lanes);
	else
		prf_lanes_avx2(out, p, msg, length, lanes);
}

static void
chacha_lanes_vector(int level, unsigned char *const *out, const unsigned char *const *keys,
					const uint64_t *nonces, const uint64_t *counters, int pairs)
{
	const unsigned char *key[4];
	uint64_t	nonce[4];
	uint64_t	counter[4];

	for (int i = 0; i < 4; i++)
	{
		key[i] = keys[i < pairs ? i : 0];
		nonce[i] = nonces[i < pairs ? i : 0];
		counter[i] = counters[i < pairs ? i : 0];
	}
	if (level == 2)
		chacha_lanes_avx512(out, key, nonce, counter, pairs);
	else
		chacha_lanes_avx2(out, key, nonce, counter, pairs);
}

#else

static int
lanes_level(void)
{
	return 0;
}

#endif							/* DP_RANDOM_LANES_AVX2 */

/*
 * The lanes in groups of up to four, with the kernels of `level` at most
 * (the tests run each level the processor has).
 */
void
dp_random_prf_derive_wide_lanes_at(int level, unsigned char *const *out,
								   const dp_random_prf *const *prfs,
								   const unsigned char *const *messages, size_t length, int lanes)
{
	if (level > lanes_level())
		level = lanes_level();
	for (int first = 0; first < lanes; first += DP_RANDOM_PRF_LANES)
	{
		int			n = lanes - first < DP_RANDOM_PRF_LANES ? lanes - first : DP_RANDOM_PRF_LANES;

#ifdef DP_RANDOM_LANES_AVX2
		/* one lane alone: the scalar compression is as fast as a quarter-full vector */
		if (n > 1 && length >= 1 && length <= DP_RANDOM_PRF_MAX_MESSAGE && level > 0)
		{
			prf_lanes_vector(level, out + first, prfs + first, messages + first, length, n);
			continue;
		}
#endif
		prf_lanes_serial(out + first, prfs + first, messages + first, length, n);
	}
}

void
dp_random_chacha20_pairs_lanes_at(int level, unsigned char *const *out,
								  const unsigned char *const *keys, const uint64_t *nonces,
								  const uint64_t *counters, int pairs)
{
	if (level > lanes_level())
		level = lanes_level();
	for (int first = 0; first < pairs; first += DP_RANDOM_CHACHA_PAIR_LANES)
	{
		int			n = pairs - first < DP_RANDOM_CHACHA_PAIR_LANES ?
			pairs - first : DP_RANDOM_CHACHA_PAIR_LANES;

#ifdef DP_RANDOM_LANES_AVX2
		/* one pair alone: the SSE2 pair is as fast */
		if (n > 1 && level > 0)
		{
			chacha_lanes_vector(level, out + first, keys + first, nonces + first, counters + first, n);
			continue;
		}
#endif
		chacha_lanes_serial(out + first, keys + first, nonces + first, counters + first, n);
	}
}

void
dp_random_prf_derive_wide_lanes(unsigned char *const *out,
								const dp_random_prf *const *prfs,
								const unsigned char *const *messages, size_t length, int lanes)
{
	dp_random_prf_derive_wide_lanes_at(lanes_level(), out, prfs, messages, length, lanes);
}

void
dp_random_chacha20_pairs_lanes(unsigned char *const *out, const unsigned char *const *keys,
							   const uint64_t *nonces, const uint64_t *counters, int pairs)
{
	dp_random_chacha20_pairs_lanes_at(lanes_level(), out, keys, nonces, counters, pairs);
}

int
dp_random_lanes_vectorised(void)
{
	return lanes_level();
}
