/*
 * dp_random_derive.c
 *		The key of a derived noise stream in one BLAKE2b compression, and
 *		its first keystream blocks two at a time.
 *
 * A keyed noise term is drawn from ChaCha20 under the key
 * BLAKE2b-256(key = noise key, message = the term's position), the
 * construction of dp_random_init_derived.  Through libsodium the key costs
 * two BLAKE2b compressions: the key block, then the message block.
 * libsodium compresses the key block lazily, at the final call, so keeping
 * its state after crypto_generichash_init would save nothing; and it offers
 * no way to start from a chaining value.  Here dp_random_prf_prepare
 * compresses the key block once per noise key (the counter keeps the result
 * beside the key) and a term compresses only its message block.
 *
 * A term's draw reads one or two ChaCha20 blocks.  libsodium generates a
 * short output one block at a time (about 105 ns a block here); with SSE2,
 * dp_random_chacha20_pair runs two blocks side by side in the time of
 * about one and a quarter.
 *
 * This is BLAKE2b as RFC 7693 specifies it, with the parameters
 * crypto_generichash uses for a 32-byte key and a 32-byte output, so every
 * derived key is the one libsodium gives: test/unit/test_random_derive.c
 * compares them over many keys and every message length, the block pairs
 * with crypto_stream_chacha20, and the streams over many reads.  Nothing
 * here may change an output bit: every published keyed or repeatable
 * release depends on it.
 *
 * Keyed derivation 2 (keys registered since 0.17.0; dp_counter_noise
 * states the construction and why its terms are independent PRF outputs,
 * one per position) uses two more primitives from here: the wide
 * derivation, keyed BLAKE2b with a 64-byte output (a parameter block of
 * its own, so its outputs are unrelated to the 32-byte derivation's under
 * the same key), one compression per closing or item term; and the block
 * pairs with a nonce, so that an opening term reads ChaCha20 under a key
 * derived once per counter, at nonce = its step and blocks from its node
 * times 2^32, without a derivation of its own.  The unit test compares
 * both with libsodium (crypto_generichash with a 64-byte output,
 * crypto_stream_chacha20 with a nonce).
 *
 * Wiping, as libsodium did: the key block's words after preparing; after a
 * term, the chaining value (the derived key) and the message block, which
 * holds a closing term's node content (data plus noise).  The prepared key
 * lives in the counter beside the noise key, cleared with it.
 *
 * No PostgreSQL headers.
 */
#include "dp_random_derive.h"
#include "dp_blake2b_tables.h"

#include <string.h>
#include <sodium.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* little-endian loads and stores, whatever the host's byte order */
static inline uint64_t
load64(const unsigned char *p)
{
	return (uint64_t) p[0] | ((uint64_t) p[1] << 8) | ((uint64_t) p[2] << 16) |
		((uint64_t) p[3] << 24) | ((uint64_t) p[4] << 32) | ((uint64_t) p[5] << 40) |
		((uint64_t) p[6] << 48) | ((uint64_t) p[7] << 56);
}

static inline void
store32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char) v;
	p[1] = (unsigned char) (v >> 8);
	p[2] = (unsigned char) (v >> 16);
	p[3] = (unsigned char) (v >> 24);
}

static inline void
store64(unsigned char *p, uint64_t v)
{
	store32(p, (uint32_t) v);
	store32(p + 4, (uint32_t) (v >> 32));
}

static inline uint64_t
rotr64(uint64_t x, int n)
{
	return (x >> n) | (x << (64 - n));
}

#define BLAKE2B_G(a, b, c, d, x, y) \
	do { \
		a = a + b + (x); d = rotr64(d ^ a, 32); \
		c = c + d;       b = rotr64(b ^ c, 24); \
		a = a + b + (y); d = rotr64(d ^ a, 16); \
		c = c + d;       b = rotr64(b ^ c, 63); \
	} while (0)

/* round r, its message schedule a constant when r is (the rounds are unrolled) */
#define BLAKE2B_ROUND(r) \
	do { \
		BLAKE2B_G(v0, v4, v8, v12, m[blake2b_sigma[r][0]], m[blake2b_sigma[r][1]]); \
		BLAKE2B_G(v1, v5, v9, v13, m[blake2b_sigma[r][2]], m[blake2b_sigma[r][3]]); \
		BLAKE2B_G(v2, v6, v10, v14, m[blake2b_sigma[r][4]], m[blake2b_sigma[r][5]]); \
		BLAKE2B_G(v3, v7, v11, v15, m[blake2b_sigma[r][6]], m[blake2b_sigma[r][7]]); \
		BLAKE2B_G(v0, v5, v10, v15, m[blake2b_sigma[r][8]], m[blake2b_sigma[r][9]]); \
		BLAKE2B_G(v1, v6, v11, v12, m[blake2b_sigma[r][10]], m[blake2b_sigma[r][11]]); \
		BLAKE2B_G(v2, v7, v8, v13, m[blake2b_sigma[r][12]], m[blake2b_sigma[r][13]]); \
		BLAKE2B_G(v3, v4, v9, v14, m[blake2b_sigma[r][14]], m[blake2b_sigma[r][15]]); \
	} while (0)

/*
 * One BLAKE2b compression of the block of message words m into h; `bytes`
 * is the message length so far including this block (below 2^64 here, so
 * the counter's high word stays 0), `last` marks the final block.  The
 * caller wipes m if it is secret.
 */
static void
blake2b_compress(uint64_t h[8], const uint64_t m[16], uint64_t bytes, bool last)
{
	uint64_t	v0 = h[0], v1 = h[1], v2 = h[2], v3 = h[3];
	uint64_t	v4 = h[4], v5 = h[5], v6 = h[6], v7 = h[7];
	uint64_t	v8 = blake2b_iv[0], v9 = blake2b_iv[1], v10 = blake2b_iv[2], v11 = blake2b_iv[3];
	uint64_t	v12 = blake2b_iv[4] ^ bytes, v13 = blake2b_iv[5];
	uint64_t	v14 = last ? ~blake2b_iv[6] : blake2b_iv[6], v15 = blake2b_iv[7];

	/* unrolled: a loop over the rounds cost a sixth more */
	BLAKE2B_ROUND(0);
	BLAKE2B_ROUND(1);
	BLAKE2B_ROUND(2);
	BLAKE2B_ROUND(3);
	BLAKE2B_ROUND(4);
	BLAKE2B_ROUND(5);
	BLAKE2B_ROUND(6);
	BLAKE2B_ROUND(7);
	BLAKE2B_ROUND(8);
	BLAKE2B_ROUND(9);
	BLAKE2B_ROUND(10);
	BLAKE2B_ROUND(11);
	h[0] ^= v0 ^ v8;
	h[1] ^= v1 ^ v9;
	h[2] ^= v2 ^ v10;
	h[3] ^= v3 ^ v11;
	h[4] ^= v4 ^ v12;
	h[5] ^= v5 ^ v13;
	h[6] ^= v6 ^ v14;
	h[7] ^= v7 ^ v15;
}

/* the key block of a keyed BLAKE2b with an output of `digest` bytes */
static void
prf_prepare(dp_random_prf *prf, const unsigned char *key, uint64_t digest)
{
	uint64_t	m[16];

	/*
	 * The parameter block of an unsalted, unpersonalised BLAKE2b with a
	 * DP_RANDOM_KEY_BYTES key and a `digest`-byte output, as
	 * crypto_generichash sets it: digest length, key length, fanout 1,
	 * depth 1.
	 */
	for (int i = 0; i < 8; i++)
		prf->h[i] = blake2b_iv[i];
	prf->h[0] ^= UINT64_C(0x01010000) | ((uint64_t) DP_RANDOM_KEY_BYTES << 8) | digest;
	/* the key, zero-padded to a block, is the first block of every message */
	memset(m, 0, sizeof(m));
	for (int i = 0; i < DP_RANDOM_KEY_BYTES / 8; i++)
		m[i] = load64(key + 8 * i);
	blake2b_compress(prf->h, m, 128, false);
	sodium_memzero(m, sizeof(m));
}

void
dp_random_prf_prepare(dp_random_prf *prf, const unsigned char *key)
{
	prf_prepare(prf, key, DP_RANDOM_KEY_BYTES);
}

void
dp_random_prf_prepare_wide(dp_random_prf *prf, const unsigned char *key)
{
	prf_prepare(prf, key, DP_RANDOM_PRF_WIDE_BYTES);
}

void
dp_random_prf_wipe(dp_random_prf *prf)
{
	sodium_memzero(prf, sizeof(*prf));
}

/*
 * out (DP_RANDOM_KEY_BYTES) = dp_random_derive_key(key, message) for
 * 1 <= length <= DP_RANDOM_PRF_MAX_MESSAGE: the key block (compressed
 * already) and one final block.  An empty message would make the key block
 * the final one, a longer one needs more blocks: no term's position is
 * either (dp_random.h).
 */
static void
prf_derive(unsigned char *out, size_t out_length, const dp_random_prf *prf, const void *message,
		   size_t length)
{
	unsigned char block[128];
	uint64_t	m[16];
	uint64_t	h[8];

	memcpy(block, message, length);
	memset(block + length, 0, sizeof(block) - length);
	for (int i = 0; i < 16; i++)
		m[i] = load64(block + 8 * i);
	memcpy(h, prf->h, sizeof(h));
	blake2b_compress(h, m, 128 + (uint64_t) length, true);
	for (size_t i = 0; i < out_length / 8; i++)
		store64(out + 8 * i, h[i]);
	sodium_memzero(h, sizeof(h));
	sodium_memzero(m, sizeof(m));
	sodium_memzero(block, sizeof(block));
}

void
dp_random_prf_derive(unsigned char *out, const dp_random_prf *prf, const void *message, size_t length)
{
	prf_derive(out, DP_RANDOM_KEY_BYTES, prf, message, length);
}

/*
 * out (DP_RANDOM_PRF_WIDE_BYTES) = BLAKE2b-512 keyed with the key prf was
 * prepared from by dp_random_prf_prepare_wide, of the message (1 to
 * DP_RANDOM_PRF_MAX_MESSAGE bytes): crypto_generichash with a 64-byte
 * output, one compression.
 */
void
dp_random_prf_derive_wide(unsigned char *out, const dp_random_prf *prf, const void *message,
						  size_t length)
{
	prf_derive(out, DP_RANDOM_PRF_WIDE_BYTES, prf, message, length);
}

#ifdef __SSE2__

/*
 * ChaCha20 with one row of the 4x4 state in each register: a quarter round
 * works on the four columns at once, and rotating rows b, c and d by one,
 * two and three words turns the diagonals into columns and back.  Two
 * independent blocks are interleaved, since one alone leaves most of the
 * vector units idle waiting on the chain of additions.  SSE2 implies x86,
 * so the key's words load little-endian as ChaCha20 reads them.
 */
#define CHACHA_ROTL(x, n) _mm_or_si128(_mm_slli_epi32((x), (n)), _mm_srli_epi32((x), 32 - (n)))
#define CHACHA_QR(a, b, c, d) \
	do { \
		a = _mm_add_epi32(a, b); d = _mm_xor_si128(d, a); d = CHACHA_ROTL(d, 16); \
		c = _mm_add_epi32(c, d); b = _mm_xor_si128(b, c); b = CHACHA_ROTL(b, 12); \
		a = _mm_add_epi32(a, b); d = _mm_xor_si128(d, a); d = CHACHA_ROTL(d, 8); \
		c = _mm_add_epi32(c, d); b = _mm_xor_si128(b, c); b = CHACHA_ROTL(b, 7); \
	} while (0)

bool
dp_random_chacha20_pair_nonce(unsigned char out[128], const unsigned char key[DP_RANDOM_KEY_BYTES],
							  uint64_t nonce, uint64_t counter)
{
	/* "expand 32-byte k"; the two blocks' counters; the nonce */
	const int	n0 = (int) (uint32_t) nonce;
	const int	n1 = (int) (uint32_t) (nonce >> 32);
	const __m128i a0 = _mm_set_epi32(0x6b206574, 0x79622d32, 0x3320646e, 0x61707865);
	const __m128i b0 = _mm_loadu_si128((const __m128i *) key);
	const __m128i c0 = _mm_loadu_si128((const __m128i *) (key + 16));
	const __m128i d0 = _mm_set_epi32(n1, n0, (int) (uint32_t) (counter >> 32), (int) (uint32_t) counter);
	const __m128i e0 = _mm_set_epi32(n1, n0, (int) (uint32_t) ((counter + 1) >> 32),
									 (int) (uint32_t) (counter + 1));
	__m128i		a = a0,
				b = b0,
				c = c0,
				d = d0;
	__m128i		p = a0,
				q = b0,
				r = c0,
				s = e0;

	for (int round = 0; round < 10; round++)
	{
		/* columns */
		CHACHA_QR(a, b, c, d);
		CHACHA_QR(p, q, r, s);
		/* to diagonals */
		b = _mm_shuffle_epi32(b, _MM_SHUFFLE(0, 3, 2, 1));
		c = _mm_shuffle_epi32(c, _MM_SHUFFLE(1, 0, 3, 2));
		d = _mm_shuffle_epi32(d, _MM_SHUFFLE(2, 1, 0, 3));
		q = _mm_shuffle_epi32(q, _MM_SHUFFLE(0, 3, 2, 1));
		r = _mm_shuffle_epi32(r, _MM_SHUFFLE(1, 0, 3, 2));
		s = _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 1, 0, 3));
		/* diagonals */
		CHACHA_QR(a, b, c, d);
		CHACHA_QR(p, q, r, s);
		/* back to columns */
		b = _mm_shuffle_epi32(b, _MM_SHUFFLE(2, 1, 0, 3));
		c = _mm_shuffle_epi32(c, _MM_SHUFFLE(1, 0, 3, 2));
		d = _mm_shuffle_epi32(d, _MM_SHUFFLE(0, 3, 2, 1));
		q = _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 1, 0, 3));
		r = _mm_shuffle_epi32(r, _MM_SHUFFLE(1, 0, 3, 2));
		s = _mm_shuffle_epi32(s, _MM_SHUFFLE(0, 3, 2, 1));
	}
	_mm_storeu_si128((__m128i *) out, _mm_add_epi32(a, a0));
	_mm_storeu_si128((__m128i *) (out + 16), _mm_add_epi32(b, b0));
	_mm_storeu_si128((__m128i *) (out + 32), _mm_add_epi32(c, c0));
	_mm_storeu_si128((__m128i *) (out + 48), _mm_add_epi32(d, d0));
	_mm_storeu_si128((__m128i *) (out + 64), _mm_add_epi32(p, a0));
	_mm_storeu_si128((__m128i *) (out + 80), _mm_add_epi32(q, b0));
	_mm_storeu_si128((__m128i *) (out + 96), _mm_add_epi32(r, c0));
	_mm_storeu_si128((__m128i *) (out + 112), _mm_add_epi32(s, e0));
	return true;
}

#else

bool
dp_random_chacha20_pair_nonce(unsigned char out[128], const unsigned char key[DP_RANDOM_KEY_BYTES],
							  uint64_t nonce, uint64_t counter)
{
	return false;
}

#endif							/* __SSE2__ */

bool
dp_random_chacha20_pair(unsigned char out[128], const unsigned char key[DP_RANDOM_KEY_BYTES],
						uint64_t counter)
{
	return dp_random_chacha20_pair_nonce(out, key, 0, counter);
}
