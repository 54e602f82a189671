/*
 * dp_term_batch.h
 *		The keyed noise terms of one step of several counters, derived side
 *		by side before the counters draw them (dp_term_batch.c).
 *
 * A keyed statistic's channels (count, sum, sum of squares) are counters
 * with keys of their own, and each draws its step's terms from keyed
 * derivation 2 (dp_counter_noise): an opening term reads a pair of
 * ChaCha20 blocks, a closing term one BLAKE2b-512 compression and, when its
 * draw reads more than the compression's 32 bytes of output, a pair of
 * blocks.  One evaluation at a time leaves the vector units idle; the
 * channels' evaluations do not depend on each other, so the statistic asks
 * each channel which terms its push will draw (the kind's plan hook),
 * collects them here, derives them all in lanes (dp_random_lanes.c), and
 * then pushes: a term whose position (owner, step, node, role, content) is
 * found here starts its stream from the bytes derived for it.  The bytes
 * are those the term's own derivation gives, so a plan that guessed wrong
 * costs only time: the term is not found and is derived as before.
 *
 * The batch holds keystream and the positions' content (data plus noise):
 * as secret as the noise key.  It lives on the pushing function's stack,
 * each entry is erased when its term takes it, and dp_term_batch_wipe
 * erases the rest.
 *
 * No PostgreSQL headers.
 */
#ifndef DP_TERM_BATCH_H
#define DP_TERM_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_random.h"

/* a term's position: step, node, role, content (dp_counter_noise) */
#define DP_TERM_POSITION_BYTES 32
/* the terms of one step a batch holds; a statistic's usual step has 3 to 6 */
#define DP_TERM_BATCH_MAX 12

typedef enum dp_term_kind
{
	DP_TERM_OPENING = 1,		/* ChaCha20 under the opening key, no derivation */
	DP_TERM_WIDE = 2			/* BLAKE2b-512 of the position, then ChaCha20 */
} dp_term_kind;

typedef struct dp_term
{
	const void *owner;			/* the counter that will draw it */
	dp_term_kind kind;
	bool		ready;			/* derived, not yet taken */
	unsigned char position[DP_TERM_POSITION_BYTES];
	/* an opening term: its key, nonce (the step) and first block (node * 2^32) */
	const unsigned char *opening_key;
	uint64_t	nonce;
	uint64_t	block;
	/* a wide term: the prepared key; whether to derive the pair after the head */
	const dp_random_prf *wide;
	bool		continued;
	unsigned char head[DP_RANDOM_PRF_WIDE_BYTES];	/* a wide term's W */
	unsigned char pair[128];	/* an opening's first pair, a wide term's continuation */
} dp_term;

typedef struct dp_term_batch
{
	int			count;
	dp_term		terms[DP_TERM_BATCH_MAX];
} dp_term_batch;

static inline void
dp_term_batch_init(dp_term_batch *batch)
{
	batch->count = 0;
}

/* the next free entry, or NULL when the batch is full (the term is then derived alone) */
extern dp_term *dp_term_batch_add(dp_term_batch *batch);
/* derive every entry: the wide terms in lanes, then every pair in lanes */
extern void dp_term_batch_derive(dp_term_batch *batch);
/*
 * Start `derived` from the entry of owner at position, if there is one,
 * and erase the entry: true when it did.  The stream is the one
 * dp_random_init_opening or dp_random_init_derived_wide would give for the
 * term, its first blocks already generated.
 */
extern bool dp_term_batch_take(dp_term_batch *batch, const void *owner,
							   const unsigned char *position, dp_random *derived);
/* erase every entry */
extern void dp_term_batch_wipe(dp_term_batch *batch);
/*
 * Hand the derived batch to the pushes on rng (dp_counter_noise looks its
 * terms up there), and take it back, erased, before the batch goes out of
 * scope.
 */
extern void dp_term_batch_attach(dp_term_batch *batch, dp_random *rng);
extern void dp_term_batch_detach(dp_term_batch *batch, dp_random *rng);

#endif							/* DP_TERM_BATCH_H */
