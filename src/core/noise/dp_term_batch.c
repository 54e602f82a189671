/*
 * dp_term_batch.c
 *		The keyed terms of a step of several counters, derived side by side
 *		(see dp_term_batch.h for why and how the counters use them).
 *
 * The wide terms' compressions come first, because a continuation pair is
 * keyed by its term's W; then the opening pairs and the continuations
 * together, four pairs to a vector evaluation.
 *
 * No PostgreSQL headers.
 */
#include "dp_term_batch.h"

#include <string.h>
#include <sodium.h>

/* a term's secrets: its position's content, its derived bytes */
static void
erase(dp_term *term)
{
	sodium_memzero(term->position, sizeof(term->position));
	sodium_memzero(term->head, sizeof(term->head));
	sodium_memzero(term->pair, sizeof(term->pair));
	term->ready = false;
}

dp_term *
dp_term_batch_add(dp_term_batch *batch)
{
	dp_term    *term;

	if (batch->count >= DP_TERM_BATCH_MAX)
		return NULL;
	term = &batch->terms[batch->count++];
	term->ready = false;
	term->continued = false;
	term->opening_key = NULL;
	term->wide = NULL;
	return term;
}

void
dp_term_batch_derive(dp_term_batch *batch)
{
	unsigned char *out[DP_TERM_BATCH_MAX];
	const dp_random_prf *prfs[DP_TERM_BATCH_MAX];
	const unsigned char *messages[DP_TERM_BATCH_MAX];
	const unsigned char *keys[DP_TERM_BATCH_MAX];
	uint64_t	nonces[DP_TERM_BATCH_MAX];
	uint64_t	blocks[DP_TERM_BATCH_MAX];
	int			wide = 0;
	int			paired = 0;

	/* each output straight into its entry: no copy of keystream to erase */
	for (int i = 0; i < batch->count; i++)
		if (batch->terms[i].kind == DP_TERM_WIDE)
		{
			prfs[wide] = batch->terms[i].wide;
			messages[wide] = batch->terms[i].position;
			out[wide++] = batch->terms[i].head;
		}
	if (wide > 0)
		dp_random_prf_derive_wide_lanes(out, prfs, messages, DP_TERM_POSITION_BYTES, wide);

	for (int i = 0; i < batch->count; i++)
	{
		dp_term    *term = &batch->terms[i];

		if (term->kind == DP_TERM_OPENING)
		{
			keys[paired] = term->opening_key;
			nonces[paired] = term->nonce;
			blocks[paired] = term->block;
		}
		else if (term->continued)
		{
			/* ChaCha20 under W's first half, nonce 0, from block 0 */
			keys[paired] = term->head;
			nonces[paired] = 0;
			blocks[paired] = 0;
		}
		else
			continue;
		out[paired++] = term->pair;
	}
	if (paired > 0)
		dp_random_chacha20_pairs_lanes(out, keys, nonces, blocks, paired);
	for (int i = 0; i < batch->count; i++)
		batch->terms[i].ready = true;
}

bool
dp_term_batch_take(dp_term_batch *batch, const void *owner, const unsigned char *position,
				   dp_random *derived)
{
	for (int i = 0; i < batch->count; i++)
	{
		dp_term    *term = &batch->terms[i];

		if (!term->ready || term->owner != owner ||
			memcmp(term->position, position, DP_TERM_POSITION_BYTES) != 0)
			continue;
		if (term->kind == DP_TERM_OPENING)
			dp_random_init_opening_from(derived, term->opening_key, term->nonce, term->block,
										term->pair);
		else
			dp_random_init_wide_from(derived, term->head, term->continued ? term->pair : NULL);
		erase(term);
		return true;
	}
	return false;
}

void
dp_term_batch_attach(dp_term_batch *batch, dp_random *rng)
{
	rng->batch = batch;
}

void
dp_term_batch_detach(dp_term_batch *batch, dp_random *rng)
{
	rng->batch = NULL;
	dp_term_batch_wipe(batch);
}

void
dp_term_batch_wipe(dp_term_batch *batch)
{
	for (int i = 0; i < batch->count; i++)
		if (batch->terms[i].ready)
			erase(&batch->terms[i]);
	batch->count = 0;
}
