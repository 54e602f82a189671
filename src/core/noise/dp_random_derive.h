/*
 * dp_random_derive.h
 *		The primitives under derived noise streams: a noise key prepared for
 *		keyed BLAKE2b derivations, and ChaCha20 blocks two at a time
 *		(dp_random_derive.c).  They know nothing of a dp_random stream;
 *		dp_random.c builds its streams on them.
 *
 * No PostgreSQL headers.
 */
#ifndef DP_RANDOM_DERIVE_H
#define DP_RANDOM_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DP_RANDOM_KEY_BYTES 32

/*
 * A noise key prepared for derivations: the BLAKE2b chaining value after
 * the key block of dp_random_derive_key.  As secret as the key itself; the
 * owner keeps it beside the key and wipes it with the key.
 */
typedef struct dp_random_prf
{
	uint64_t	h[8];
} dp_random_prf;

/* the longest message dp_random_init_derived_prf takes (one BLAKE2b block) */
#define DP_RANDOM_PRF_MAX_MESSAGE 128

/* the output of the wide derivation (keyed derivation 2's closing terms) */
#define DP_RANDOM_PRF_WIDE_BYTES 64

extern void dp_random_prf_prepare(dp_random_prf *prf, const unsigned char *key);
/* the same for dp_random_prf_derive_wide (BLAKE2b with a 64-byte output) */
extern void dp_random_prf_prepare_wide(dp_random_prf *prf, const unsigned char *key);
extern void dp_random_prf_wipe(dp_random_prf *prf);

/*
 * out (DP_RANDOM_KEY_BYTES) = keyed BLAKE2b of the message (1 to
 * DP_RANDOM_PRF_MAX_MESSAGE bytes) under the prepared key: what
 * dp_random_derive_key gives for the key itself.
 */
extern void dp_random_prf_derive(unsigned char *out, const dp_random_prf *prf,
								 const void *message, size_t length);

/*
 * out (DP_RANDOM_PRF_WIDE_BYTES) = keyed BLAKE2b-512 of the message (1 to
 * DP_RANDOM_PRF_MAX_MESSAGE bytes) under the key prepared by
 * dp_random_prf_prepare_wide: crypto_generichash with a 64-byte output.
 */
extern void dp_random_prf_derive_wide(unsigned char *out, const dp_random_prf *prf,
									  const void *message, size_t length);

/*
 * Blocks counter and counter + 1 of crypto_stream_chacha20 (zero nonce)
 * under key, with SSE2 (dp_random_derive.c); false, writing nothing, where
 * the build has no SSE2 (libsodium serves then).
 */
extern bool dp_random_chacha20_pair(unsigned char out[128], const unsigned char key[DP_RANDOM_KEY_BYTES],
									uint64_t counter);
/* the same with a nonce (crypto_stream_chacha20's 8 bytes, little-endian) */
extern bool dp_random_chacha20_pair_nonce(unsigned char out[128],
										  const unsigned char key[DP_RANDOM_KEY_BYTES],
										  uint64_t nonce, uint64_t counter);


/*
 * Several evaluations side by side (dp_random_lanes.c), the same bytes as
 * the functions above one at a time, each written where out[i] points:
 * out[i] = dp_random_prf_derive_wide(
 * prfs[i], messages[i], length) for i < lanes, and out[i] = blocks
 * counters[i] and counters[i] + 1 of ChaCha20 under keys[i] with
 * nonces[i] for i < pairs.  Any count works; up to the lane counts below
 * run as one vector evaluation where the processor has AVX2.
 */
#define DP_RANDOM_PRF_LANES 4
#define DP_RANDOM_CHACHA_PAIR_LANES 4
extern void dp_random_prf_derive_wide_lanes(unsigned char *const *out,
											const dp_random_prf *const *prfs,
											const unsigned char *const *messages,
											size_t length, int lanes);
extern void dp_random_chacha20_pairs_lanes(unsigned char *const *out,
										   const unsigned char *const *keys,
										   const uint64_t *nonces, const uint64_t *counters,
										   int pairs);
/* how the lanes run on this processor: 2 AVX-512VL, 1 AVX2, 0 one at a time */
extern int	dp_random_lanes_vectorised(void);
/* the same with the kernels of `level` at most (for the tests) */
extern void dp_random_prf_derive_wide_lanes_at(int level,
											   unsigned char *const *out,
											   const dp_random_prf *const *prfs,
											   const unsigned char *const *messages,
											   size_t length, int lanes);
extern void dp_random_chacha20_pairs_lanes_at(int level, unsigned char *const *out,
											  const unsigned char *const *keys,
											  const uint64_t *nonces, const uint64_t *counters,
											  int pairs);
#endif							/* DP_RANDOM_DERIVE_H */
