/*
 * fuzz_arena.h
 *		A sampler cache whose tables are malloc'ed one by one (so ASan sees
 *		every overrun) and freed when the cache starts again; for the
 *		harnesses that draw through the cached tables.
 */
#ifndef FUZZ_ARENA_H
#define FUZZ_ARENA_H

#include "dp_laplace_table.h"
#include "fuzz_common.h"

typedef struct fuzz_arena
{
	void	   *blocks[DP_SAMPLER_CACHE_SIZE + 1];
	int			count;
	int			resets;			/* how often the cache started again */
} fuzz_arena;

static inline void *
fuzz_arena_allocate(void *context, size_t size)
{
	fuzz_arena *a = context;

	FUZZ_CHECK(a->count <= DP_SAMPLER_CACHE_SIZE);
	return a->blocks[a->count++] = fuzz_alloc(size);
}

static inline void
fuzz_arena_release(void *context)
{
	fuzz_arena *a = context;

	for (int i = 0; i < a->count; i++)
		free(a->blocks[i]);
	a->count = 0;
	a->resets++;
}

#endif							/* FUZZ_ARENA_H */
