/*
 * dp_random_lanes_kernels.h
 *		The vector kernels of dp_random_lanes.c, written once and compiled
 *		there twice: for AVX2, and for AVX-512VL, whose rotations are one
 *		instruction each and whose 32 registers hold a kernel's whole state.
 *		The includer defines LANES_TARGET (the function attribute),
 *		LANES_NAME(name) (the variant's function name), LANES_CONSTANTS (the
 *		byte-shuffle masks its rotations read, or nothing) and the rotation
 *		macros ROR64_32/24/16/63 and ROL32_16/8/12/7.
 *
 * Layout: each vector holds one word of the state across the lanes (word j
 * of four BLAKE2b states, word j of eight ChaCha20 blocks), so a round is
 * the scalar round on vectors; inputs and outputs go through transposes
 * of 4x4 64-bit and 8x8 32-bit words.  x86 is little-endian: words load
 * and store as both algorithms read and write them.
 *
 * No PostgreSQL headers.
 */

/* the 4x4 transpose of 64-bit words: row i of the result is lane i */
#define LANES_TRANSPOSE4(r0, r1, r2, r3) \
	do { \
		__m256i t0_ = _mm256_unpacklo_epi64(r0, r1), t1_ = _mm256_unpackhi_epi64(r0, r1); \
		__m256i t2_ = _mm256_unpacklo_epi64(r2, r3), t3_ = _mm256_unpackhi_epi64(r2, r3); \
		r0 = _mm256_permute2x128_si256(t0_, t2_, 0x20); \
		r1 = _mm256_permute2x128_si256(t1_, t3_, 0x20); \
		r2 = _mm256_permute2x128_si256(t0_, t2_, 0x31); \
		r3 = _mm256_permute2x128_si256(t1_, t3_, 0x31); \
	} while (0)

/* the 8x8 transpose of 32-bit words, r[0..7] in place */
#define LANES_TRANSPOSE8(r) \
	do { \
		__m256i t_[8], u_[8]; \
		for (int i_ = 0; i_ < 8; i_ += 2) \
		{ \
			t_[i_] = _mm256_unpacklo_epi32(r[i_], r[i_ + 1]); \
			t_[i_ + 1] = _mm256_unpackhi_epi32(r[i_], r[i_ + 1]); \
		} \
		for (int i_ = 0; i_ < 8; i_ += 4) \
		{ \
			u_[i_] = _mm256_unpacklo_epi64(t_[i_], t_[i_ + 2]); \
			u_[i_ + 1] = _mm256_unpackhi_epi64(t_[i_], t_[i_ + 2]); \
			u_[i_ + 2] = _mm256_unpacklo_epi64(t_[i_ + 1], t_[i_ + 3]); \
			u_[i_ + 3] = _mm256_unpackhi_epi64(t_[i_ + 1], t_[i_ + 3]); \
		} \
		for (int i_ = 0; i_ < 4; i_++) \
		{ \
			r[i_] = _mm256_permute2x128_si256(u_[i_], u_[i_ + 4], 0x20); \
			r[i_ + 4] = _mm256_permute2x128_si256(u_[i_], u_[i_ + 4], 0x31); \
		} \
	} while (0)

#define LANES_G(a, b, c, d, x, y) \
	do { \
		a = _mm256_add_epi64(_mm256_add_epi64(a, b), (x)); d = ROR64_32(_mm256_xor_si256(d, a)); \
		c = _mm256_add_epi64(c, d); b = ROR64_24(_mm256_xor_si256(b, c)); \
		a = _mm256_add_epi64(_mm256_add_epi64(a, b), (y)); d = ROR64_16(_mm256_xor_si256(d, a)); \
		c = _mm256_add_epi64(c, d); b = ROR64_63(_mm256_xor_si256(b, c)); \
	} while (0)

#define LANES_ROUND(r) \
	do { \
		LANES_G(v[0], v[4], v[8], v[12], m[blake2b_sigma[r][0]], m[blake2b_sigma[r][1]]); \
		LANES_G(v[1], v[5], v[9], v[13], m[blake2b_sigma[r][2]], m[blake2b_sigma[r][3]]); \
		LANES_G(v[2], v[6], v[10], v[14], m[blake2b_sigma[r][4]], m[blake2b_sigma[r][5]]); \
		LANES_G(v[3], v[7], v[11], v[15], m[blake2b_sigma[r][6]], m[blake2b_sigma[r][7]]); \
		LANES_G(v[0], v[5], v[10], v[15], m[blake2b_sigma[r][8]], m[blake2b_sigma[r][9]]); \
		LANES_G(v[1], v[6], v[11], v[12], m[blake2b_sigma[r][10]], m[blake2b_sigma[r][11]]); \
		LANES_G(v[2], v[7], v[8], v[13], m[blake2b_sigma[r][12]], m[blake2b_sigma[r][13]]); \
		LANES_G(v[3], v[4], v[9], v[14], m[blake2b_sigma[r][14]], m[blake2b_sigma[r][15]]); \
	} while (0)

/*
 * The twelve rounds and the output words h ^ v_lo ^ v_hi, for message
 * words m (inlined into each caller, so that a caller whose words above
 * the fourth are zero has those additions folded away).
 */
LANES_TARGET static inline __attribute__((always_inline)) void
LANES_NAME(prf_rounds)(__m256i h[8], const __m256i m[16], uint64_t bytes)
{
	__m256i		v[16];
	LANES_CONSTANTS;

	for (int j = 0; j < 8; j++)
	{
		v[j] = h[j];
		v[8 + j] = _mm256_set1_epi64x((long long) blake2b_iv[j]);
	}
	/* the byte count (the key block and this one) and the final-block flag */
	v[12] = _mm256_xor_si256(v[12], _mm256_set1_epi64x((long long) bytes));
	v[14] = _mm256_xor_si256(v[14], _mm256_set1_epi64x(-1));
	LANES_ROUND(0);
	LANES_ROUND(1);
	LANES_ROUND(2);
	LANES_ROUND(3);
	LANES_ROUND(4);
	LANES_ROUND(5);
	LANES_ROUND(6);
	LANES_ROUND(7);
	LANES_ROUND(8);
	LANES_ROUND(9);
	LANES_ROUND(10);
	LANES_ROUND(11);
	for (int j = 0; j < 8; j++)
		h[j] = _mm256_xor_si256(h[j], _mm256_xor_si256(v[j], v[8 + j]));
}

/*
 * Four final-block compressions of keyed BLAKE2b-512, lane i from the
 * chaining value p[i] (its key block compressed) and message msg[i] of
 * `length` bytes (1 to 128); all four lanes are given (the caller repeats
 * a lane to fill them) and the first `lanes` written out.
 */
LANES_TARGET static void
LANES_NAME(prf_lanes)(unsigned char *const *out, const dp_random_prf *const p[4],
					  const unsigned char *const msg[4], size_t length, int lanes)
{
	__m256i		h[8];
	__m256i		m[16];

	for (int half = 0; half < 2; half++)
	{
		__m256i		r0 = _mm256_loadu_si256((const __m256i *) (p[0]->h + 4 * half));
		__m256i		r1 = _mm256_loadu_si256((const __m256i *) (p[1]->h + 4 * half));
		__m256i		r2 = _mm256_loadu_si256((const __m256i *) (p[2]->h + 4 * half));
		__m256i		r3 = _mm256_loadu_si256((const __m256i *) (p[3]->h + 4 * half));

		LANES_TRANSPOSE4(r0, r1, r2, r3);
		h[4 * half] = r0;
		h[4 * half + 1] = r1;
		h[4 * half + 2] = r2;
		h[4 * half + 3] = r3;
	}
	if (length == 32)
	{
		/* a noise term's position: four words, the rest of the block zero */
		m[0] = _mm256_loadu_si256((const __m256i *) msg[0]);
		m[1] = _mm256_loadu_si256((const __m256i *) msg[1]);
		m[2] = _mm256_loadu_si256((const __m256i *) msg[2]);
		m[3] = _mm256_loadu_si256((const __m256i *) msg[3]);
		LANES_TRANSPOSE4(m[0], m[1], m[2], m[3]);
		for (int j = 4; j < 16; j++)
			m[j] = _mm256_setzero_si256();
		LANES_NAME(prf_rounds)(h, m, 128 + 32);
	}
	else
	{
		unsigned char block[4][128];

		for (int i = 0; i < 4; i++)
		{
			memcpy(block[i], msg[i], length);
			memset(block[i] + length, 0, sizeof(block[i]) - length);
		}
		for (int q = 0; q < 4; q++)
		{
			m[4 * q] = _mm256_loadu_si256((const __m256i *) (block[0] + 32 * q));
			m[4 * q + 1] = _mm256_loadu_si256((const __m256i *) (block[1] + 32 * q));
			m[4 * q + 2] = _mm256_loadu_si256((const __m256i *) (block[2] + 32 * q));
			m[4 * q + 3] = _mm256_loadu_si256((const __m256i *) (block[3] + 32 * q));
			LANES_TRANSPOSE4(m[4 * q], m[4 * q + 1], m[4 * q + 2], m[4 * q + 3]);
		}
		sodium_memzero(block, sizeof(block));
		LANES_NAME(prf_rounds)(h, m, 128 + (uint64_t) length);
	}
	for (int half = 0; half < 2; half++)
	{
		__m256i		r0 = h[4 * half],
					r1 = h[4 * half + 1],
					r2 = h[4 * half + 2],
					r3 = h[4 * half + 3];
		__m256i		lane[4];

		LANES_TRANSPOSE4(r0, r1, r2, r3);
		lane[0] = r0;
		lane[1] = r1;
		lane[2] = r2;
		lane[3] = r3;
		for (int i = 0; i < lanes; i++)
			_mm256_storeu_si256((__m256i *) (out[i] + 32 * half), lane[i]);
		/*
		 * lane[] is indexed by a variable, so it lives on the stack: the
		 * derived words' copies there (a term's key or keystream) are erased
		 * as the one-at-a-time derivation erases its own
		 */
		sodium_memzero(lane, sizeof(lane));
	}
	/* the derived words and the message (a closing term's content) */
	sodium_memzero(h, sizeof(h));
	sodium_memzero(m, sizeof(m));
}

#define LANES_QR(a, b, c, d) \
	do { \
		a = _mm256_add_epi32(a, b); d = ROL32_16(_mm256_xor_si256(d, a)); \
		c = _mm256_add_epi32(c, d); b = ROL32_12(_mm256_xor_si256(b, c)); \
		a = _mm256_add_epi32(a, b); d = ROL32_8(_mm256_xor_si256(d, a)); \
		c = _mm256_add_epi32(c, d); b = ROL32_7(_mm256_xor_si256(b, c)); \
	} while (0)

/*
 * Eight ChaCha20 blocks, one a lane: pair i is lanes 2i and 2i + 1,
 * blocks counters[i] and counters[i] + 1 under key[i] and nonces[i] (the
 * original construction: a 64-bit block counter in words 12 and 13, a
 * 64-bit nonce in 14 and 15).  All four pairs are given; the first
 * `pairs` written out.
 */
LANES_TARGET static void
LANES_NAME(chacha_lanes)(unsigned char *const *out, const unsigned char *const key[4],
						 const uint64_t nonce[4], const uint64_t counter[4], int pairs)
{
	__m256i		x[16];
	__m256i		start[16];
	uint32_t	words[4][8];
	LANES_CONSTANTS;

	for (int j = 0; j < 4; j++)
		x[j] = _mm256_set1_epi32((int) lanes_chacha_sigma[j]);
	/* the key words: lane l holds key l / 2, transposed to word-major */
	for (int l = 0; l < 8; l++)
		x[4 + l] = _mm256_loadu_si256((const __m256i *) key[l / 2]);
	{
		__m256i    *k = x + 4;

		LANES_TRANSPOSE8(k);
	}
	for (int l = 0; l < 8; l++)
	{
		uint64_t	block = counter[l / 2] + (uint64_t) (l & 1);

		words[0][l] = (uint32_t) block;
		words[1][l] = (uint32_t) (block >> 32);
		words[2][l] = (uint32_t) nonce[l / 2];
		words[3][l] = (uint32_t) (nonce[l / 2] >> 32);
	}
	for (int j = 0; j < 4; j++)
		x[12 + j] = _mm256_loadu_si256((const __m256i *) words[j]);
	for (int j = 0; j < 16; j++)
		start[j] = x[j];

	for (int round = 0; round < 10; round++)
	{
		LANES_QR(x[0], x[4], x[8], x[12]);
		LANES_QR(x[1], x[5], x[9], x[13]);
		LANES_QR(x[2], x[6], x[10], x[14]);
		LANES_QR(x[3], x[7], x[11], x[15]);
		LANES_QR(x[0], x[5], x[10], x[15]);
		LANES_QR(x[1], x[6], x[11], x[12]);
		LANES_QR(x[2], x[7], x[8], x[13]);
		LANES_QR(x[3], x[4], x[9], x[14]);
	}
	for (int j = 0; j < 16; j++)
		x[j] = _mm256_add_epi32(x[j], start[j]);
	{
		__m256i    *low = x;
		__m256i    *high = x + 8;

		/* lane l's words 0..7 and 8..15 */
		LANES_TRANSPOSE8(low);
		LANES_TRANSPOSE8(high);
	}
	for (int l = 0; l < 2 * pairs; l++)
	{
		unsigned char *block = out[l / 2] + 64 * (l & 1);

		_mm256_storeu_si256((__m256i *) block, x[l]);
		_mm256_storeu_si256((__m256i *) (block + 32), x[8 + l]);
	}
	/* the keystream; the key words' copies in start */
	sodium_memzero(x, sizeof(x));
	sodium_memzero(start, sizeof(start));
}

#undef LANES_G
#undef LANES_ROUND
#undef LANES_QR
#undef LANES_TRANSPOSE4
#undef LANES_TRANSPOSE8
