/*
 * dp_laplace_table.h
 *		An exact discrete Laplace sampler whose time does not depend on the
 *		value it draws.
 *
 * The sampler of dp_noise.c (Canonne, Kamath and Steinke) loops longer for
 * larger draws, so whoever can time a push learns the size of its noise
 * (Jin, McMurtry, Rubinstein and Ohrimenko, "Are We There Yet? Timing and
 * Floating-Point Attacks on Differential Privacy Systems", IEEE S&P 2022).
 * This one inverts tables built once per scale:
 *
 *   - The discrete Laplace variable is +-G for a geometric G with ratio
 *     q = exp(-1/b) (a negative zero is rejected; the number of rejections
 *     does not depend on the value accepted).
 *   - The binary digits of a geometric variable are independent, so G is a
 *     sum of independent chunks of at most DP_LAPLACE_CHUNK_BITS_MAX bits,
 *     each a geometric variable truncated to its chunk (the top chunk is not
 *     truncated).  Every chunk is drawn by inversion: 64 random bits
 *     against the chunk's cumulative distribution, located in a table of
 *     certified cells by a guide (the count of boundaries passed at the
 *     start of the word's cell) and a number of branch-free comparisons
 *     fixed by the table (at most one at every scale the tests sweep).
 *   - A table entry is an interval of 64-bit cells that holds the exact
 *     boundary, computed with certified arithmetic (dp_bigfixed.c).  When
 *     the 64 random bits fall in such a cell the comparison is undecided:
 *     the draw then reads more random bits and compares them against the
 *     boundary computed at higher precision, as far as needed.  Undecided
 *     cells, with the top chunk's end and the guide's crowded cells (words
 *     of 50 or more leading ones), have total probability below 2^-48
 *     per draw, so the time of a draw reveals nothing except on an event of
 *     that probability; the sign and the rejection of -0 take no branch on
 *     the value.
 *
 * So the distribution is exactly the discrete Laplace distribution (with
 * draws beyond DP_NOISE_DRAW_MAX rejected, as in dp_noise.c), not an
 * approximation; every draw costs one 64-bit random word per chunk, a
 * fixed number of comparisons and one random bit.
 */
#ifndef DP_LAPLACE_TABLE_H
#define DP_LAPLACE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp_int128.h"
#include "dp_laplace_low.h"
#include "dp_scale.h"
#include "dp_random.h"

/*
 * Chunks of 5 bits: a chunk's table is 4 cache lines (32 cells) and its
 * guide 128 bytes, all read on every draw (see chunk_search), so which
 * lines a draw touches does not depend on its value.  Enough chunks for every accepted scale: b < 2^97
 * needs at most 104 bits.
 */
#define DP_LAPLACE_CHUNK_BITS_MAX 5
#define DP_LAPLACE_CHUNKS_MAX 24
#define DP_LAPLACE_LINE_ENTRIES 8
#define DP_LAPLACE_GUIDE_CELLS 128

typedef struct dp_laplace_chunk
{
	int			shift;			/* position of the chunk's lowest bit in G */
	int			width;			/* bits; the table has 2^width entries */
	bool		open_ended;		/* the top chunk: not truncated */
	/*
	 * Boundary j (the cumulative probability of values <= j) lies in cells
	 * upper[j] - spread .. upper[j] - 1 at most: 64 random bits u >= upper[j]
	 * are certainly past it, u < upper[j] - spread certainly before it and
	 * every later boundary.  upper is monotone; entry 2^width - 1 is a
	 * sentinel.
	 */
	const uint64_t *upper;
	uint64_t	spread;
	/*
	 * A guide to the search: the words are split into cells, either 128
	 * cells by their top 7 bits or 64 by their count of leading ones (for
	 * the geometric top chunks, whose boundaries crowd towards 1), and
	 * guide[cell] counts the boundaries certainly passed at the cell's
	 * start.  At most guide_steps more lie inside any cell, so that many
	 * comparisons finish every search: a number fixed by the table.
	 */
	bool		guide_by_leading_ones;
	int			guide_steps;
	uint8_t    *guide;			/* DP_LAPLACE_GUIDE_CELLS entries, after the cells */
} dp_laplace_chunk;

typedef struct dp_laplace_table
{
	dp_scale	scale;
	int			chunk_count;
	int			cell_bits;		/* 64 except in tests of the exact path */
	int			draw_path;		/* which draw serves the table (set by the build) */
	/*
	 * Fresh draws at large scales take the bits below chunk low_chunks by
	 * rejection (dp_laplace_low.h) rather than by that many chunks; 0 when
	 * no chunk boundary leaves room for it (see dp_laplace_table_draw_fresh).
	 */
	int			low_chunks;
	dp_laplace_low low;
	dp_laplace_chunk chunks[DP_LAPLACE_CHUNKS_MAX];
	uint64_t	cells[];		/* the chunks' upper arrays, then their guides */
} dp_laplace_table;

/*
 * Whether the word u, with `position` boundaries of the chunk certainly
 * passed, may lie in the cells of the next boundary (or has reached the top
 * chunk's end, or is the last word): then the exact path decides.
 */
static inline int
dp_laplace_chunk_undecided(const dp_laplace_chunk *chunk, uint64_t position, uint64_t u)
{
	uint64_t	last = ((uint64_t) 1 << chunk->width) - 1;

	return (chunk->upper[position] - u <= chunk->spread) |
		((int) chunk->open_ended & (position == last)) | (u == UINT64_MAX);
}

/*
 * The fast path's search (exported for tests): the number of boundaries of
 * the chunk certainly at or below u < UINT64_MAX, and whether u fell in a
 * crowded cell of the guide (then the count may fall short, and the draw
 * takes the exact path).
 */
extern uint64_t dp_laplace_chunk_search(const dp_laplace_chunk *chunk, uint64_t u, int *crowded);

/* Bytes of the table for `scale` (a few kB for the usual scales). */
#define DP_LAPLACE_TABLE_BYTES_MAX \
	(sizeof(dp_laplace_table) + DP_LAPLACE_CHUNKS_MAX * \
	 (((size_t) 1 << DP_LAPLACE_CHUNK_BITS_MAX) * sizeof(uint64_t) + DP_LAPLACE_GUIDE_CELLS))
extern size_t dp_laplace_table_size(const dp_scale *scale);

/*
 * Fills table (of dp_laplace_table_size bytes).  cell_bits is 64; tests pass
 * fewer to make undecided cells frequent and so exercise the exact path.
 */
extern void dp_laplace_table_build(dp_laplace_table *table, const dp_scale *scale,
								   int cell_bits);

/* One draw from the discrete Laplace distribution of the table's scale. */
extern dp_int128 dp_laplace_table_draw(const dp_laplace_table *table, dp_random *rng);
extern dp_int128 dp_laplace_table_draw_general(const dp_laplace_table *table, dp_random *rng);

/*
 * The same law for fresh noise: at large scales the low chunks give way to
 * one draw of the low part (dp_laplace_low.h), which reads fewer random
 * words; other values than dp_laplace_table_draw for the same keystream, so
 * never for keyed or seeded noise.  At other scales, dp_laplace_table_draw.
 */
extern dp_int128 dp_laplace_table_draw_fresh(const dp_laplace_table *table, dp_random *rng);

/*
 * The geometric magnitude G alone (P[G = g] proportional to exp(-g / b),
 * g <= DP_NOISE_DRAW_MAX), in the same constant time: no sign is read and
 * no -0 rejected.
 */
extern dp_uint128 dp_laplace_table_draw_magnitude(const dp_laplace_table *table, dp_random *rng);
/* the magnitude as dp_laplace_table_draw_fresh draws it (fresh noise only) */
extern dp_uint128 dp_laplace_table_draw_magnitude_fresh(const dp_laplace_table *table,
														dp_random *rng);

/*
 * The draw, or the magnitude, as the stream asks: the fresh one for a
 * stream with laplace_low (only the owner of fresh noise sets it), the
 * table's otherwise.  Every sampler path chooses here.
 */
extern dp_int128 dp_laplace_table_draw_for(const dp_laplace_table *table, dp_random *rng);
extern dp_uint128 dp_laplace_table_draw_magnitude_for(const dp_laplace_table *table,
													  dp_random *rng);
extern dp_uint128 dp_laplace_table_draw_magnitude_uncached(dp_random *rng, const dp_scale *scale);


/*
 * The same draw with a table built for it on the stack (a fraction of a
 * millisecond): for streams without a cache.  The values are those of a
 * cached table for the same stream.
 */
extern dp_int128 dp_laplace_table_draw_uncached(dp_random *rng, const dp_scale *scale);

/*
 * Tables for the scales a process uses, kept by whoever owns the random
 * stream (dp_random.samplers).  allocate must return memory for the life of
 * the cache or not return (PostgreSQL: palloc in a long-lived context);
 * release_all frees everything it allocated.  A full cache starts again
 * (a table costs a fraction of a millisecond to build).
 */
#define DP_SAMPLER_CACHE_SIZE 256
#define DP_SAMPLER_CACHE_SLOTS (2 * DP_SAMPLER_CACHE_SIZE)

/*
 * The tables of the last scales looked up, checked before the hash: a
 * statistic's draws alternate between its channels' two or three scales,
 * and these few pointers stay in the cache lines the draws leave alone
 * (the slot array's lines were the lookup's cost).
 */
#define DP_SAMPLER_CACHE_RECENT 4

typedef struct dp_sampler_cache
{
	void	   *(*allocate) (void *context, size_t size);
	void		(*release_all) (void *context);
	void	   *context;
	int			count;
	unsigned	recent_next;	/* the entry of recent to replace next */
	dp_laplace_table *recent[DP_SAMPLER_CACHE_RECENT];
	dp_laplace_table *slots[DP_SAMPLER_CACHE_SLOTS];
} dp_sampler_cache;

extern const dp_laplace_table *dp_sampler_cache_laplace(dp_sampler_cache *cache,
														const dp_scale *scale);

#endif							/* DP_LAPLACE_TABLE_H */
