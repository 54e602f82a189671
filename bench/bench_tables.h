/*
 * bench_tables.h
 *		The sampler tables of a C benchmark, kept as a backend keeps them: a
 *		dp_sampler_cache whose allocator holds up to 64 blocks in the array
 *		passed as its context (bench/sampler_timing.c, bench/floor.c).
 */
#ifndef BENCH_TABLES_H
#define BENCH_TABLES_H

#include <stdlib.h>

#define BENCH_TABLE_BLOCKS 64

static void *
bench_tables_allocate(void *context, size_t size)
{
	void	  **blocks = context;
	void	   *block = malloc(size);

	for (int i = 0; i < BENCH_TABLE_BLOCKS; i++)
		if (blocks[i] == NULL)
		{
			blocks[i] = block;
			return block;
		}
	abort();
}

static void
bench_tables_release(void *context)
{
	void	  **blocks = context;

	for (int i = 0; i < BENCH_TABLE_BLOCKS; i++)
	{
		free(blocks[i]);
		blocks[i] = NULL;
	}
}

#endif							/* BENCH_TABLES_H */
