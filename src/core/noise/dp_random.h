/*
 * dp_random.h
 *		The single source of randomness for every noise draw in dp_stream.
 *
 * A dp_random is a ChaCha20 keystream.  It is keyed either from the
 * operating system's CSPRNG (dp_random_init_secure) or from caller-supplied
 * key material (dp_random_init_keyed, used for reproducible tests and, later,
 * for repeatable noise derived from a per-database secret).  Both sources are
 * read through the same functions, so callers never know which one they use.
 *
 * No PostgreSQL headers: this file is shared by the extension, the unit tests
 * and the benchmarks.
 */
#ifndef DP_RANDOM_H
#define DP_RANDOM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>

#include "dp_int128.h"
#include "dp_random_derive.h"

#define DP_RANDOM_BUFFER_BYTES 512
/* blocks a derived stream generates two at a time before whole buffers */
#define DP_RANDOM_SMALL_REFILL_BLOCKS 4

typedef struct dp_random
{
	unsigned char key[DP_RANDOM_KEY_BYTES];
	uint64_t	block_counter;	/* next ChaCha20 block to generate */
	uint64_t	nonce;			/* ChaCha20's nonce: 0 but for keyed derivation 2's opening terms */
	uint64_t	small_until;	/* block_counter below which small_refills applies */
	size_t		available;		/* unread bytes at the end of buffer */
	bool		keyed;			/* false until one of the init functions ran */
	uint64_t	bit_pool;		/* unused random bits for fair coins */
	int			bits_left;
	/*
	 * Whether discrete Laplace draws from this stream use the constant-time
	 * table sampler (dp_laplace_table.h) or the reference sampler of
	 * dp_noise.c, whose values for a given key never change; and the tables
	 * it may use (NULL: a table is built for each draw, same values).  The
	 * init functions clear both; the owner of a long-lived stream sets them,
	 * and streams derived for keyed noise inherit the cache.
	 */
	bool		table_sampler;
	struct dp_sampler_cache *samplers;
	/*
	 * Whether discrete Gaussian draws decide acceptance in constant time
	 * (dp_gaussian_acceptance.c) rather than by the reference test, whose
	 * values for a key never change.  The init functions clear it, and
	 * derived streams never set it: only the owner of a stream of fresh
	 * noise does.
	 */
	bool		constant_time_gaussian;
	/*
	 * Whether discrete Laplace draws at large scales take their low bits by
	 * rejection (dp_laplace_low.h): the same law from fewer random words,
	 * but other values for a key than the table sampler's.  The init
	 * functions clear it and derived streams never set it: only the owner
	 * of a stream of fresh noise does, with table_sampler.
	 */
	bool		laplace_low;
	/*
	 * Whether the first refills generate two ChaCha20 blocks each rather
	 * than a whole buffer (derived streams, read for one noise term; see
	 * refill in dp_random.c).  Refills write at the end of buffer, where
	 * readers take the last `available` bytes, and the block counter
	 * advances by one per block: the keystream is the same either way.
	 */
	bool		small_refills;
	/* lowest buffer offset written since the stream was keyed */
	size_t		written_from;
	/*
	 * Keyed terms derived ahead for the push in progress (dp_term_batch.h):
	 * set by dp_statistic_push around its channels' pushes on the stream it
	 * was given, read by dp_counter_noise, NULL otherwise.  The init
	 * functions clear it.
	 */
	struct dp_term_batch *batch;
	unsigned char buffer[DP_RANDOM_BUFFER_BYTES];
} dp_random;

/* Returns false when libsodium cannot be initialised. */
extern bool dp_random_library_init(void);

extern void dp_random_init_secure(dp_random *rng);
extern void dp_random_init_keyed(dp_random *rng, const void *material, size_t length);
/*
 * A stream that is a pseudorandom function of a 32-byte key and a message
 * (keyed BLAKE2b, then ChaCha20): the noise of keyed and stored counters.
 */
extern void dp_random_init_derived(dp_random *rng, const unsigned char *key,
								   const void *message, size_t length);
/*
 * dp_random_init_derived(rng, key, message, length) for a prepared key, at
 * less cost (dp_random_derive.h): the key block is compressed once by
 * dp_random_prf_prepare, each stream compresses only its message (1 to
 * DP_RANDOM_PRF_MAX_MESSAGE bytes) and generates its first keystream
 * blocks two at a time.  The stream starts without wiping the buffer it
 * is given: wipe it after use with dp_random_wipe_derived, which erases what
 * the stream wrote.
 */
extern void dp_random_init_derived_prf(dp_random *rng, const dp_random_prf *prf,
									   const void *message, size_t length);
extern void dp_random_wipe_derived(dp_random *rng);
/*
 * Keyed derivation 2 (dp_counter_noise, docs/keyed_noise.md): the stream of
 * an opening term, ChaCha20 under the counter's opening key with nonce =
 * step from block node * 2^32; and the stream of a term with content, whose
 * first DP_RANDOM_PRF_WIDE_BYTES - DP_RANDOM_KEY_BYTES bytes are the second
 * half of the wide derivation of the message and the rest ChaCha20 under
 * its first half.  Wiped like dp_random_init_derived_prf's.
 */
extern void dp_random_init_opening(dp_random *rng, const unsigned char *opening_key,
								   uint64_t step, uint32_t node);
extern void dp_random_init_derived_wide(dp_random *rng, const dp_random_prf *wide,
										const void *message, size_t length);
/*
 * The same streams from bytes derived ahead (dp_term_batch.c): an opening
 * term's, with its first pair of blocks (block, block + 1); a wide term's
 * from its derivation's output W and, unless NULL, the pair its stream
 * continues with (blocks 0 and 1 under W's first half).  The stream reads
 * the same bytes as the one derived at once.
 */
extern void dp_random_init_opening_from(dp_random *rng, const unsigned char *opening_key,
										uint64_t step, uint64_t block,
										const unsigned char pair[128]);
extern void dp_random_init_wide_from(dp_random *rng,
									 const unsigned char derived[DP_RANDOM_PRF_WIDE_BYTES],
									 const unsigned char *pair);
/* out (32 bytes) = keyed BLAKE2b of the message under key (32 bytes). */
extern void dp_random_derive_key(unsigned char *out, const unsigned char *key,
								 const void *message, size_t length);
extern void dp_random_wipe(dp_random *rng);

extern void dp_random_bytes(dp_random *rng, void *out, size_t length);
extern uint32_t dp_random_uint32(dp_random *rng);

/*
 * The two reads of every noise draw, inline: a call per word cost a fifth
 * of a table-sampler draw.  Bytes handed out stay in the buffer until the
 * next refill overwrites them (see dp_random.c).
 */
static inline uint64_t
dp_random_uint64(dp_random *rng)
{
	uint64_t	value;

	if (rng->available >= sizeof(value))
	{
		memcpy(&value, rng->buffer + (sizeof(rng->buffer) - rng->available), sizeof(value));
		rng->available -= sizeof(value);
	}
	else
		dp_random_bytes(rng, &value, sizeof(value));
	return value;
}

/* count words, as count calls of dp_random_uint64 would read them. */
static inline void
dp_random_uint64_array(dp_random *rng, uint64_t *words, int count)
{
	size_t		bytes = sizeof(uint64_t) * (size_t) count;

	if (rng->available >= bytes)
	{
		memcpy(words, rng->buffer + (sizeof(rng->buffer) - rng->available), bytes);
		rng->available -= bytes;
		return;
	}
	for (int i = 0; i < count; i++)
		words[i] = dp_random_uint64(rng);
}

/* Two words, as two calls of dp_random_uint64 would read them. */
static inline void
dp_random_uint64_pair(dp_random *rng, uint64_t *first, uint64_t *second)
{
	uint64_t	words[2];

	dp_random_uint64_array(rng, words, 2);
	*first = words[0];
	*second = words[1];
}

/* One fair bit. */
static inline int
dp_random_bit(dp_random *rng)
{
	int			bit;

	if (rng->bits_left == 0)
	{
		rng->bit_pool = dp_random_uint64(rng);
		rng->bits_left = 64;
	}
	bit = (int) (rng->bit_pool & 1);
	rng->bit_pool >>= 1;
	rng->bits_left--;
	return bit;
}

/* Uniform on [0, bound), exactly (rejection sampling); bound must be > 0. */
extern uint64_t dp_random_below(dp_random *rng, uint64_t bound);
extern dp_uint128 dp_random_below128(dp_random *rng, dp_uint128 bound);

#endif							/* DP_RANDOM_H */
