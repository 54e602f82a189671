/*
 * dp_laplace_table.c
 *		The table sampler: exact discrete Laplace draws in time that does
 *		not depend on the value (see dp_laplace_table.h for the method).
 *
 * Why the chunks are independent.  P[G = g] is proportional to q^g =
 * prod_i (q^(2^i))^(bit i of g), a product over the binary digits of g in
 * which every digit is free: so the digits are independent, and so are
 * groups of them.  The chunk of bits [s, s + w) takes the value v with
 * probability proportional to Q^v, Q = q^(2^s), for v < 2^w; the top chunk
 * has no upper limit (it carries all higher digits, P proportional to Q^v
 * for every v >= 0).
 *
 * Cumulative distribution of a chunk: F(j) = (1 - Q^(j+1)) / (1 - Q^(2^w))
 * for a truncated chunk, 1 - Q^(j+1) for the top one.  The inversion value
 * is the number of boundaries F(j) at or below the uniform variate U.  The
 * comparison U >= F(j) is decided as U * (1 - Q^(2^w)) >= 1 - Q^(j+1) with
 * certified enclosures of both sides, so no division enters the exact path.
 */
#include "dp_laplace_table.h"

#include <string.h>

#include "dp_bigfixed.h"

/* precision of the tables: 254 fraction bits, far below a 64-bit cell */
#define TABLE_LIMBS 4

/* a * b >= c * d, exactly (products of up to 192 bits) */
static bool
product_at_least(dp_uint128 a, uint64_t b, dp_uint128 c, uint64_t d)
{
	uint64_t	left[3];
	uint64_t	right[3];
	dp_uint128	pairs[2][2] = {{a, b}, {c, d}};

	for (int side = 0; side < 2; side++)
	{
		uint64_t   *out = side == 0 ? left : right;
		dp_uint128	x = pairs[side][0];
		uint64_t	y = (uint64_t) pairs[side][1];
		dp_uint128	low = (dp_uint128) (uint64_t) x * y;
		dp_uint128	high = (dp_uint128) (uint64_t) (x >> 64) * y;
		dp_uint128	middle = (low >> 64) + (uint64_t) high;

		out[0] = (uint64_t) low;
		out[1] = (uint64_t) middle;
		out[2] = (uint64_t) (high >> 64) + (uint64_t) (middle >> 64);
	}
	for (int i = 2; i >= 0; i--)
		if (left[i] != right[i])
			return left[i] > right[i];
	return true;
}

/*
 * The chunks, from the lowest bit of G: W bits in all, the top chunk of full
 * width (or all W bits when W < 5), the remainder in the bottom chunk.  W is
 * the least width at which the top chunk's last boundary is passed with
 * probability q^((2^w - 1) 2^s) <= exp(-45) < 2^-64 (w, s: the top chunk's
 * width and shift), so that the exact path it sends larger values to is as
 * rare as an undecided cell.  Exact integer arithmetic on the scale
 * numerator / denominator (b = n / d, so q^m <= e^-45 iff m d >= 45 n): the
 * layout, and so the values a stored state's key draws, do not depend on
 * floating point.
 */
static int
chunk_layout(const dp_scale *scale, int *widths)
{
	int			limit = DP_LAPLACE_CHUNKS_MAX * DP_LAPLACE_CHUNK_BITS_MAX;
	int			bits = 1;
	int			count = 0;

	for (; bits < limit; bits++)
	{
		int			top_width = bits < DP_LAPLACE_CHUNK_BITS_MAX ? bits : DP_LAPLACE_CHUNK_BITS_MAX;
		dp_uint128	reach = ((((dp_uint128) 1) << top_width) - 1) << (bits - top_width);

		if (product_at_least(reach, scale->denominator, scale->numerator, 45))
			break;
	}
	if (bits % DP_LAPLACE_CHUNK_BITS_MAX != 0)
		widths[count++] = bits % DP_LAPLACE_CHUNK_BITS_MAX;
	for (int full = bits / DP_LAPLACE_CHUNK_BITS_MAX; full > 0; full--)
		widths[count++] = DP_LAPLACE_CHUNK_BITS_MAX;
	return count;
}

size_t
dp_laplace_table_size(const dp_scale *scale)
{
	int			widths[DP_LAPLACE_CHUNKS_MAX];
	int			count = chunk_layout(scale, widths);
	size_t		cells = 0;

	for (int c = 0; c < count; c++)
		cells += (size_t) 1 << widths[c];
	/* the guides follow the cells */
	return sizeof(dp_laplace_table) + cells * sizeof(uint64_t) +
		(size_t) count * DP_LAPLACE_GUIDE_CELLS;
}

/* Enclosures of 1 - Q^m and of the chunk's normaliser 1 - Q^(2^w) (1 for the top chunk). */
static void
one_minus(dp_bigfixed_interval *out, const dp_bigfixed_interval *power, int limbs)
{
	dp_bigfixed one;

	dp_bigfixed_one(&one, limbs);
	dp_bigfixed_subtract(&out->lower, &one, &power->upper);
	dp_bigfixed_subtract(&out->upper, &one, &power->lower);
}

static void
chunk_normaliser(dp_bigfixed_interval *out, const dp_scale *scale, const dp_laplace_chunk *chunk,
				 int limbs)
{
	dp_bigfixed_interval power;

	if (chunk->open_ended)
	{
		dp_bigfixed_one(&out->lower, limbs);
		dp_bigfixed_one(&out->upper, limbs);
		return;
	}
	dp_bigfixed_exp_minus(&power, limbs, scale->denominator, UINT64_C(1) << chunk->width,
						  chunk->shift, scale->numerator);
	one_minus(out, &power, limbs);
}

/*
 * Cells of 50 or more leading ones (total probability 2^-50) may hold many
 * boundaries: the top chunk's far tail, whose boundaries the 64-bit cells
 * cannot separate.  Rather than let them set the number of steps of every
 * search, their entries carry GUIDE_CROWDED, which sends the draw to the
 * exact path, like an undecided cell.
 */
#define GUIDE_CROWDED_CELL 50
#define GUIDE_CROWDED 0x80

/* The cell of word u in the chunk's guide. */
static inline unsigned
guide_cell(const dp_laplace_chunk *chunk, uint64_t u)
{
	/* u < UINT64_MAX, so ~u has a set bit */
	return chunk->guide_by_leading_ones ? (unsigned) __builtin_clzll(~u) : (unsigned) (u >> 57);
}

/* Boundaries among the first entries - 1 whose upper cell is at most u. */
static uint8_t
boundaries_passed(const uint64_t *upper, size_t entries, uint64_t u)
{
	uint8_t		count = 0;

	for (size_t j = 0; j + 1 < entries; j++)
		count += upper[j] <= u;
	return count;
}

/*
 * Both guides, keeping the one that needs fewer steps.  A cell's start and
 * end are its least and greatest words (for leading ones, cell i holds the
 * words with exactly i leading ones; words below UINT64_MAX never reach 64).
 */
static void
build_guide(dp_laplace_chunk *chunk, const uint64_t *upper)
{
	/* a count of boundaries must stay clear of the crowded flag */
	_Static_assert(((1 << DP_LAPLACE_CHUNK_BITS_MAX) - 1) < GUIDE_CROWDED,
				   "guide counts must fit below GUIDE_CROWDED");
	size_t		entries = (size_t) 1 << chunk->width;
	uint8_t		by_ones[64];
	int			ones_steps = 0;
	int			top_steps = 0;

	for (unsigned cell = 0; cell < DP_LAPLACE_GUIDE_CELLS; cell++)
	{
		uint64_t	start = (uint64_t) cell << 57;
		uint64_t	end = start | ((UINT64_C(1) << 57) - 1);
		uint8_t		at_start = boundaries_passed(upper, entries, start);
		int			inside = boundaries_passed(upper, entries, end) - at_start;

		chunk->guide[cell] = at_start;
		top_steps = inside > top_steps ? inside : top_steps;
	}
	for (unsigned cell = 0; cell < 64; cell++)
	{
		uint64_t	start = cell == 0 ? 0 : ~(UINT64_MAX >> cell);
		uint64_t	end = start | (cell == 63 ? 0 : UINT64_MAX >> (cell + 1));
		int			inside;

		by_ones[cell] = boundaries_passed(upper, entries, start);
		inside = boundaries_passed(upper, entries, end) - by_ones[cell];
		if (cell >= GUIDE_CROWDED_CELL)
			by_ones[cell] |= GUIDE_CROWDED;
		else
			ones_steps = inside > ones_steps ? inside : ones_steps;
	}
	chunk->guide_by_leading_ones = ones_steps < top_steps;
	chunk->guide_steps = chunk->guide_by_leading_ones ? ones_steps : top_steps;
	if (chunk->guide_by_leading_ones)
	{
		memset(chunk->guide, 0, DP_LAPLACE_GUIDE_CELLS);
		memcpy(chunk->guide, by_ones, sizeof(by_ones));
	}
}

static void
build_chunk(dp_laplace_chunk *chunk, uint64_t *upper, const dp_scale *scale, int cell_bits)
{
	size_t		entries = (size_t) 1 << chunk->width;
	uint64_t	coarse = cell_bits >= 64 ? 0 : (UINT64_MAX >> cell_bits);
	uint64_t	lower[(size_t) 1 << DP_LAPLACE_CHUNK_BITS_MAX];
	dp_bigfixed_interval ratio;
	dp_bigfixed_interval power;
	dp_bigfixed_interval normaliser;

	/* Q = q^(2^shift) = exp(-2^shift / b) */
	dp_bigfixed_exp_minus(&ratio, TABLE_LIMBS, scale->denominator, 1, chunk->shift,
						  scale->numerator);
	chunk_normaliser(&normaliser, scale, chunk, TABLE_LIMBS);
	power = ratio;				/* Q^(j+1) */
	for (size_t j = 0; j + 1 < entries; j++)
	{
		dp_bigfixed_interval numerator;
		uint64_t	last;

		one_minus(&numerator, &power, TABLE_LIMBS);
		lower[j] = dp_bigfixed_ratio_cell(&numerator.lower, &normaliser.upper) & ~coarse;
		last = dp_bigfixed_ratio_cell(&numerator.upper, &normaliser.lower) | coarse;
		upper[j] = last == UINT64_MAX ? UINT64_MAX : last + 1;
		dp_bigfixed_multiply(&power.lower, &power.lower, &ratio.lower, false);
		dp_bigfixed_multiply(&power.upper, &power.upper, &ratio.upper, true);
	}

	/*
	 * Raising an upper cell or lowering a lower one only widens a
	 * certificate; monotone arrays make one boundary's test cover the later
	 * ones.  Only the widest certificate is kept (spread).
	 */
	for (size_t j = 1; j + 1 < entries; j++)
		if (upper[j] < upper[j - 1])
			upper[j] = upper[j - 1];
	for (size_t j = entries - 1; j-- > 1;)
		if (lower[j - 1] > lower[j])
			lower[j - 1] = lower[j];
	chunk->spread = 1;
	for (size_t j = 0; j + 1 < entries; j++)
		if (upper[j] - lower[j] > chunk->spread)
			chunk->spread = upper[j] - lower[j];

	/*
	 * The sentinel: no word is certainly past it.  Reaching it is a decided
	 * value 2^w - 1 in a truncated chunk (unless the word is within spread
	 * of the top), and always the exact path in the top chunk, whose values
	 * go on (dp_laplace_chunk_undecided).
	 */
	upper[entries - 1] = UINT64_MAX;
	build_guide(chunk, upper);
}

static int	draw_path(const dp_laplace_table *table);

/*
 * The low chunks fresh draws replace: the most that dp_laplace_low_prepare
 * accepts below a chunk boundary, the top chunk always kept, and at least
 * LOW_CHUNKS_MIN (fewer cost more as a low part than as chunks: measured
 * in bench/sampler_timing.c).
 */
#define LOW_CHUNKS_MIN 4

static int
low_chunks(dp_laplace_table *table)
{
	for (int c = table->chunk_count - 1; c >= LOW_CHUNKS_MIN; c--)
		if (dp_laplace_low_prepare(&table->low, &table->scale, table->chunks[c].shift))
			return c;
	return 0;
}

void
dp_laplace_table_build(dp_laplace_table *table, const dp_scale *scale, int cell_bits)
{
	int			widths[DP_LAPLACE_CHUNKS_MAX];
	int			count = chunk_layout(scale, widths);
	uint64_t   *cells = table->cells;
	size_t		cell_count = 0;
	uint8_t    *guides;
	int			shift = 0;

	for (int c = 0; c < count; c++)
		cell_count += (size_t) 1 << widths[c];
	guides = (uint8_t *) (table->cells + cell_count);
	table->scale = *scale;
	table->chunk_count = count;
	table->cell_bits = cell_bits;
	for (int c = 0; c < count; c++)
	{
		dp_laplace_chunk *chunk = &table->chunks[c];
		size_t		entries = (size_t) 1 << widths[c];

		chunk->shift = shift;
		chunk->width = widths[c];
		chunk->open_ended = c == count - 1;
		chunk->upper = cells;
		chunk->guide = guides + (size_t) c * DP_LAPLACE_GUIDE_CELLS;
		build_chunk(chunk, cells, scale, cell_bits);
		cells += entries;
		shift += widths[c];
	}
	table->draw_path = draw_path(table);
	table->low_chunks = low_chunks(table);
}

/*
 * Number of boundaries certainly at or below u (u < UINT64_MAX): the
 * guide's count at u's cell, then guide_steps branch-free comparisons, a
 * number fixed by the table.  In a crowded cell the count may fall short;
 * it is still certain, and the exact path goes on from it.  It first reads one word of every cache line
 * of the chunk's table and guide (the empty asm keeps the compiler from
 * dropping the reads); loads retire in order, so every draw waits for the
 * same lines whatever its value.  A search alone would touch the lines of
 * rare (large) values only when drawing them, and pay a cache miss there
 * that a timer could see.
 */
static inline __attribute__((always_inline)) uint64_t
search_with(const dp_laplace_chunk *chunk, uint64_t u, int *crowded, int width, int steps)
{
	const uint64_t *upper = chunk->upper;
	uint64_t	entries = (uint64_t) 1 << width;
	uint64_t	touched = 0;
	uint64_t	position;
	unsigned	entry;

	/* the last entry too: the arrays need not start on a line */
	for (uint64_t i = 0; i < entries; i += DP_LAPLACE_LINE_ENTRIES)
		touched |= upper[i];
	touched |= upper[entries - 1];
	touched |= chunk->guide[0] | chunk->guide[64] | chunk->guide[DP_LAPLACE_GUIDE_CELLS - 1];
	__asm__ volatile("" : "+r"(touched));
	entry = chunk->guide[guide_cell(chunk, u)];
	*crowded = (entry & GUIDE_CROWDED) != 0;
	position = entry & ~GUIDE_CROWDED;
	for (int step = 0; step < steps; step++)
		position += upper[position] <= u;
	return position;
}

static inline uint64_t
chunk_search(const dp_laplace_chunk *chunk, uint64_t u, int *crowded)
{
	return search_with(chunk, u, crowded, chunk->width, chunk->guide_steps);
}

uint64_t
dp_laplace_chunk_search(const dp_laplace_chunk *chunk, uint64_t u, int *crowded)
{
	return chunk_search(chunk, u, crowded);
}

/*
 * The usual chunk (full width, at most one step), searched with both as
 * constants: the compiler then unrolls the search.  A comparison more than
 * a chunk needs changes nothing (the count stops at the first boundary not
 * passed).  Which search a table uses is fixed by the table, so the choice
 * says nothing about a value.
 */
static inline bool
usual_chunk(const dp_laplace_chunk *chunk)
{
	return chunk->width == DP_LAPLACE_CHUNK_BITS_MAX && chunk->guide_steps <= 1;
}

static inline uint64_t
usual_search(const dp_laplace_chunk *chunk, uint64_t u, int *crowded)
{
	return search_with(chunk, u, crowded, DP_LAPLACE_CHUNK_BITS_MAX, 1);
}

/*
 * The exact value of a chunk whose 64 random bits `word` fell in an
 * undecided cell, `position` boundaries being certainly passed.  More
 * random words are read as precision grows; the comparison at 4096 bits is
 * undecided with probability below 2^-4000, and then the boundary is taken
 * as not passed.  Returns false for a value the draw must reject (beyond the
 * range of dp_discrete_laplace, probability below exp(-2^40)).
 */
static bool
chunk_exact(const dp_laplace_table *table, const dp_laplace_chunk *chunk, dp_random *rng,
			uint64_t word, uint64_t position, uint64_t *value)
{
	uint64_t	words[DP_BIGFIXED_LIMBS_MAX];
	int			drawn = 1;
	uint64_t	j = position;
	uint64_t	last = ((uint64_t) 1 << chunk->width) - 1;

	words[0] = word;
	for (int limbs = DP_BIGFIXED_LIMBS_MIN; limbs <= DP_BIGFIXED_LIMBS_MAX; limbs *= 2)
	{
		dp_bigfixed_interval uniform;
		dp_bigfixed_interval normaliser;
		dp_bigfixed_interval scaled;

		dp_laplace_uniform_enclosure(&uniform, words, &drawn, limbs, rng);
		chunk_normaliser(&normaliser, &table->scale, chunk, limbs);
		dp_bigfixed_multiply(&scaled.lower, &uniform.lower, &normaliser.lower, false);
		dp_bigfixed_multiply(&scaled.upper, &uniform.upper, &normaliser.upper, true);

		for (;;)
		{
			dp_bigfixed_interval power;
			dp_bigfixed_interval boundary;

			if (!chunk->open_ended && j == last)
			{
				*value = j;
				return true;
			}
			dp_bigfixed_exp_minus(&power, limbs, table->scale.denominator, j + 1,
								  chunk->shift, table->scale.numerator);
			one_minus(&boundary, &power, limbs);
			if (dp_bigfixed_compare(&scaled.lower, &boundary.upper) >= 0)
			{
				/* U >= F(j): past this boundary */
				j++;
				if (j >= (UINT64_C(1) << 61) ||
					((dp_uint128) j << chunk->shift) > DP_NOISE_DRAW_MAX)
					return false;
			}
			else if (dp_bigfixed_compare(&scaled.upper, &boundary.lower) < 0)
			{
				*value = j;
				return true;
			}
			else
				break;			/* undecided at this precision */
		}
	}
	*value = j;
	return true;
}

/*
 * The rejection of -0 and the sign, without a branch on the value: a branch
 * on magnitude == 0 or on the sign would be predicted by value, and its
 * misses would show in the time.  The branch on the result is taken or not
 * independently of the value finally returned.
 */
static inline int
negative_zero(int negative, dp_uint128 magnitude)
{
	return negative & (int) (magnitude == 0);
}

static inline dp_int128
with_sign(int negative, dp_uint128 magnitude)
{
	dp_uint128	mask = -(dp_uint128) (unsigned) negative;

	return (dp_int128) ((magnitude ^ mask) - mask);
}

/* The end of every draw: false for a redraw (beyond range, or -0), else the value. */
static inline bool
accept_draw(int negative, dp_uint128 magnitude, dp_int128 *value)
{
	if (magnitude > DP_NOISE_DRAW_MAX || negative_zero(negative, magnitude))
		return false;
	*value = with_sign(negative, magnitude);
	return true;
}

/*
 * A chunk the fast path left undecided: a word in a crowded cell first
 * finishes its count by a linear scan, and only a word that is undecided
 * then (as it would have been after a full search) takes the exact path,
 * which reads more random words.  So a crowded word reads exactly what the
 * full search read, and the stream goes on as it always has.
 */
static bool
chunk_settle(const dp_laplace_table *table, const dp_laplace_chunk *chunk, dp_random *rng,
			 uint64_t word, uint64_t position, uint64_t *value)
{
	uint64_t	searched = word - (word == UINT64_MAX);
	uint64_t	last = ((uint64_t) 1 << chunk->width) - 1;

	while (position < last && chunk->upper[position] <= searched)
		position++;
	if (!dp_laplace_chunk_undecided(chunk, position, word))
	{
		*value = position;
		return true;
	}
	return chunk_exact(table, chunk, rng, word, position, value);
}

/*
 * The exact end of a two-chunk draw with an undecided chunk, out of line so
 * that the usual draw keeps its values in registers.  False for a redraw.
 */
static bool __attribute__((noinline))
two_chunks_exact(const dp_laplace_table *table, dp_random *rng, uint64_t u, uint64_t v,
				 uint64_t low_value, uint64_t high_value, int low_undecided,
				 int high_undecided, int negative, dp_int128 *value)
{
	const dp_laplace_chunk *low = &table->chunks[0];
	const dp_laplace_chunk *high = &table->chunks[1];

	if (low_undecided)
		chunk_settle(table, low, rng, u, low_value, &low_value);
	if (high_undecided && !chunk_settle(table, high, rng, v, high_value, &high_value))
		return false;
	return accept_draw(negative, low_value + ((dp_uint128) high_value << high->shift), value);
}

/*
 * Scales from 0.69 to 22.0 (Binary's nodes at epsilon 1 up to T = 2^21):
 * two chunks, a low one of 1 to 5 bits and a top one of 5, unrolled so that
 * their searches overlap, with the widths as constants (one copy per low
 * width).  The magnitude of a decided draw is below 2^10, so it needs no
 * range check.
 */
static inline __attribute__((always_inline)) dp_int128
draw_two_chunks_of(const dp_laplace_table *table, dp_random *rng, int low_width)
{
	const dp_laplace_chunk *low = &table->chunks[0];
	const dp_laplace_chunk *high = &table->chunks[1];
	const uint64_t last = ((uint64_t) 1 << DP_LAPLACE_CHUNK_BITS_MAX) - 1;

	for (;;)
	{
		uint64_t	u;
		uint64_t	v;
		int			low_crowded;
		int			high_crowded;
		uint64_t	low_value;
		uint64_t	high_value;
		int			low_undecided;
		int			high_undecided;
		int			negative;
		uint64_t	magnitude;
		uint64_t	sign_mask;

		dp_random_uint64_pair(rng, &u, &v);
		low_value = search_with(low, u - (u == UINT64_MAX), &low_crowded, low_width, 1);
		high_value = search_with(high, v - (v == UINT64_MAX), &high_crowded,
								 DP_LAPLACE_CHUNK_BITS_MAX, 1);
		/* the low chunk is truncated, the high one open-ended */
		low_undecided = (low->upper[low_value] - u <= low->spread) | (u == UINT64_MAX) |
			low_crowded;
		high_undecided = (high->upper[high_value] - v <= high->spread) |
			(high_value == last) | (v == UINT64_MAX) | high_crowded;
		negative = dp_random_bit(rng);

		if (__builtin_expect(low_undecided | high_undecided, 0))
		{
			dp_int128	value;

			if (two_chunks_exact(table, rng, u, v, low_value, high_value, low_undecided,
								 high_undecided, negative, &value))
				return value;
			continue;
		}
		magnitude = low_value | (high_value << low_width);
		if (negative_zero(negative, magnitude))
			continue;
		sign_mask = -(uint64_t) (unsigned) negative;
		return (dp_int128) (int64_t) ((magnitude ^ sign_mask) - sign_mask);
	}
}

static bool
two_usual_chunks(const dp_laplace_table *table)
{
	return table->chunk_count == 2 && usual_chunk(&table->chunks[1]) &&
		table->chunks[0].guide_steps <= 1;
}

static dp_int128
draw_two_chunks(const dp_laplace_table *table, dp_random *rng)
{
	switch (table->chunks[0].width)
	{
		case 1:
			return draw_two_chunks_of(table, rng, 1);
		case 2:
			return draw_two_chunks_of(table, rng, 2);
		case 3:
			return draw_two_chunks_of(table, rng, 3);
		case 4:
			return draw_two_chunks_of(table, rng, 4);
		default:
			return draw_two_chunks_of(table, rng, DP_LAPLACE_CHUNK_BITS_MAX);
	}
}

/*
 * The exact end of a draw with undecided chunks (bits of undecided) from
 * chunk first on, the bits below it being `magnitude`; false for a redraw.
 */
static bool __attribute__((noinline))
chunks_exact(const dp_laplace_table *table, dp_random *rng, const uint64_t *words,
			 const uint64_t *positions, int first, dp_uint128 magnitude, unsigned undecided,
			 int negative, dp_int128 *value)
{
	bool		rejected = false;

	for (int c = first; c < table->chunk_count; c++)
	{
		const dp_laplace_chunk *chunk = &table->chunks[c];
		uint64_t	exact = positions[c];

		if ((undecided >> c) & 1)
			rejected |= !chunk_settle(table, chunk, rng, words[c], positions[c], &exact);
		magnitude += (dp_uint128) exact << chunk->shift;
	}
	return !rejected && accept_draw(negative, magnitude, value);
}

/*
 * Any chunk count: G, and with a sign when `with_sign` (read after the
 * chunks' words, as it always has been).  Without a sign no -0 is rejected:
 * the result is the geometric magnitude itself.  With `low`, the bits below
 * chunk table->low_chunks are one draw of the low part, read first, and the
 * chunks from there on are searched as usual (fresh noise only).
 */
static inline __attribute__((always_inline)) dp_int128
draw_chunks_from(const dp_laplace_table *table, dp_random *rng, bool with_sign, bool low)
{
	const int	first = low ? table->low_chunks : 0;

	for (;;)
	{
		uint64_t	words[DP_LAPLACE_CHUNKS_MAX];
		uint64_t	positions[DP_LAPLACE_CHUNKS_MAX];
		unsigned	undecided = 0;
		dp_uint128	magnitude = low ? dp_laplace_low_draw(&table->low, &table->scale, rng) : 0;
		dp_uint128	below = magnitude;
		dp_int128	value;
		int			negative;

		dp_random_uint64_array(rng, words + first, table->chunk_count - first);
		for (int c = first; c < table->chunk_count; c++)
		{
			const dp_laplace_chunk *chunk = &table->chunks[c];
			uint64_t	u = words[c];
			uint64_t	at_top = u == UINT64_MAX;
			int			crowded;
			uint64_t	position = usual_chunk(chunk) ?
				usual_search(chunk, u - at_top, &crowded) :
				chunk_search(chunk, u - at_top, &crowded);

			undecided |= (unsigned) (dp_laplace_chunk_undecided(chunk, position, u) | crowded) << c;
			positions[c] = position;
			magnitude += (dp_uint128) position << chunk->shift;
		}
		negative = with_sign ? dp_random_bit(rng) : 0;

		if (__builtin_expect(undecided != 0, 0))
		{
			if (chunks_exact(table, rng, words, positions, first, below, undecided, negative,
							 &value))
				return value;
			continue;
		}
		if (accept_draw(negative, magnitude, &value))
			return value;
	}
}

static dp_int128
draw_chunks(const dp_laplace_table *table, dp_random *rng, bool with_sign)
{
	return draw_chunks_from(table, rng, with_sign, false);
}

/*
 * Three to five chunks (scales from about 22 to 2^15: a statistic's count
 * channel, an integer sum's), every chunk above the lowest of full width
 * and at most one step, the lowest at most one step: draw_chunks with the
 * count a constant (one copy per count), so that the compiler unrolls the
 * chunks and keeps them in registers, and the magnitude in 64 bits (15%
 * faster at three chunks, 5% at four).  More chunks gained nothing (six and
 * seven the same or slower, a real-valued sum channel's 11 chunks at a
 * scale of 2^45 units 15% slower than in draw_chunks' loop): they stay
 * there.  The same words
 * in the same order, the same sign bit after them, the same exact path for
 * an undecided chunk: the same values as draw_chunks, bit for bit
 * (test_laplace_table compares them).  Below DP_NOISE_DRAW_MAX, so no range
 * check.
 */
#define USUAL_CHUNKS_MIN 3
#define USUAL_CHUNKS_MAX 5

static inline __attribute__((always_inline)) dp_int128
draw_usual_chunks_of(const dp_laplace_table *table, dp_random *rng, const int count)
{
	const dp_laplace_chunk *low = &table->chunks[0];
	const int	low_width = low->width;
	const uint64_t last = ((uint64_t) 1 << DP_LAPLACE_CHUNK_BITS_MAX) - 1;

	for (;;)
	{
		uint64_t	words[USUAL_CHUNKS_MAX];
		uint64_t	positions[USUAL_CHUNKS_MAX];
		unsigned	undecided;
		uint64_t	magnitude;
		int			crowded;
		int			negative;
		uint64_t	sign_mask;

		dp_random_uint64_array(rng, words, count);
		/* the lowest chunk: truncated, its width the table's */
		positions[0] = search_with(low, words[0] - (words[0] == UINT64_MAX), &crowded,
								   low_width, 1);
		undecided = (unsigned) ((low->upper[positions[0]] - words[0] <= low->spread) |
								(words[0] == UINT64_MAX) | crowded);
		magnitude = positions[0];
		for (int c = 1; c < count; c++)
		{
			const dp_laplace_chunk *chunk = &table->chunks[c];
			uint64_t	u = words[c];
			uint64_t	position = search_with(chunk, u - (u == UINT64_MAX), &crowded,
											   DP_LAPLACE_CHUNK_BITS_MAX, 1);
			unsigned	open = (unsigned) ((c == count - 1) & (position == last));

			undecided |= ((unsigned) ((chunk->upper[position] - u <= chunk->spread) |
									  (u == UINT64_MAX) | crowded) | open) << c;
			positions[c] = position;
			magnitude |= position << (low_width + DP_LAPLACE_CHUNK_BITS_MAX * (c - 1));
		}
		negative = dp_random_bit(rng);

		if (__builtin_expect(undecided != 0, 0))
		{
			dp_int128	value;

			if (chunks_exact(table, rng, words, positions, 0, 0, undecided, negative, &value))
				return value;
			continue;
		}
		if (negative_zero(negative, magnitude))
			continue;
		sign_mask = -(uint64_t) (unsigned) negative;
		return (dp_int128) (int64_t) ((magnitude ^ sign_mask) - sign_mask);
	}
}

/* Whether draw_usual_chunks applies to the table (fixed by the table, never by a value). */
static bool
usual_chunks(const dp_laplace_table *table)
{
	if (table->chunk_count < USUAL_CHUNKS_MIN || table->chunk_count > USUAL_CHUNKS_MAX ||
		table->chunks[0].guide_steps > 1 || table->chunks[0].open_ended)
		return false;
	for (int c = 1; c < table->chunk_count; c++)
		if (!usual_chunk(&table->chunks[c]))
			return false;
	return table->chunks[0].width +
		DP_LAPLACE_CHUNK_BITS_MAX * (table->chunk_count - 1) <= 63;
}

static dp_int128 __attribute__((noinline))
draw_usual_chunks(const dp_laplace_table *table, dp_random *rng)
{
	switch (table->chunk_count)
	{
		case 3:
			return draw_usual_chunks_of(table, rng, 3);
		case 4:
			return draw_usual_chunks_of(table, rng, 4);
		default:
			return draw_usual_chunks_of(table, rng, USUAL_CHUNKS_MAX);
	}
}

/*
 * The usual two chunks are drawn by draw_two_chunks (a third faster), the
 * usual three to five by draw_usual_chunks.
 */
enum
{
	DRAW_GENERAL,
	DRAW_TWO_CHUNKS,
	DRAW_USUAL_CHUNKS
};

static int
draw_path(const dp_laplace_table *table)
{
	if (two_usual_chunks(table))
		return DRAW_TWO_CHUNKS;
	if (usual_chunks(table))
		return DRAW_USUAL_CHUNKS;
	return DRAW_GENERAL;
}

dp_int128
dp_laplace_table_draw(const dp_laplace_table *table, dp_random *rng)
{
	if (table->draw_path == DRAW_TWO_CHUNKS)
		return draw_two_chunks(table, rng);
	if (table->draw_path == DRAW_USUAL_CHUNKS)
		return draw_usual_chunks(table, rng);
	return draw_chunks(table, rng, true);
}

dp_int128
dp_laplace_table_draw_fresh(const dp_laplace_table *table, dp_random *rng)
{
	if (table->low_chunks == 0)
		return dp_laplace_table_draw(table, rng);
	return draw_chunks_from(table, rng, true, true);
}

dp_uint128
dp_laplace_table_draw_magnitude_fresh(const dp_laplace_table *table, dp_random *rng)
{
	if (table->low_chunks == 0)
		return dp_laplace_table_draw_magnitude(table, rng);
	return (dp_uint128) draw_chunks_from(table, rng, false, true);
}

/* The draw (or magnitude) the stream's owner chose: fresh streams set laplace_low. */
dp_int128
dp_laplace_table_draw_for(const dp_laplace_table *table, dp_random *rng)
{
	return rng->laplace_low ? dp_laplace_table_draw_fresh(table, rng) :
		dp_laplace_table_draw(table, rng);
}

dp_uint128
dp_laplace_table_draw_magnitude_for(const dp_laplace_table *table, dp_random *rng)
{
	return rng->laplace_low ? dp_laplace_table_draw_magnitude_fresh(table, rng) :
		dp_laplace_table_draw_magnitude(table, rng);
}

/* The general path for any table (tests compare the special paths with it). */
dp_int128
dp_laplace_table_draw_general(const dp_laplace_table *table, dp_random *rng)
{
	return draw_chunks(table, rng, true);
}

dp_uint128
dp_laplace_table_draw_magnitude(const dp_laplace_table *table, dp_random *rng)
{
	return (dp_uint128) draw_chunks(table, rng, false);
}

/* A draw (or its magnitude) with the table built on the stack. */
static dp_int128
draw_uncached(dp_random *rng, const dp_scale *scale, bool with_sign)
{
	/* the largest table: every chunk of full width */
	union
	{
		dp_laplace_table table;
		unsigned char bytes[DP_LAPLACE_TABLE_BYTES_MAX];
	}			storage;

	dp_laplace_table_build(&storage.table, scale, 64);
	if (with_sign)
		return dp_laplace_table_draw_for(&storage.table, rng);
	return (dp_int128) dp_laplace_table_draw_magnitude_for(&storage.table, rng);
}

dp_int128
dp_laplace_table_draw_uncached(dp_random *rng, const dp_scale *scale)
{
	return draw_uncached(rng, scale, true);
}

dp_uint128
dp_laplace_table_draw_magnitude_uncached(dp_random *rng, const dp_scale *scale)
{
	return (dp_uint128) draw_uncached(rng, scale, false);
}

static bool
same_scale(const dp_laplace_table *table, const dp_scale *scale)
{
	return table->scale.numerator == scale->numerator &&
		table->scale.denominator == scale->denominator;
}

/* the table as the most recent lookup, replacing the oldest of the recent ones */
static const dp_laplace_table *
remember(dp_sampler_cache *cache, dp_laplace_table *table)
{
	cache->recent[cache->recent_next % DP_SAMPLER_CACHE_RECENT] = table;
	cache->recent_next++;
	return table;
}

const dp_laplace_table *
dp_sampler_cache_laplace(dp_sampler_cache *cache, const dp_scale *scale)
{
	/* open addressing on a hash of the scale; at most half the slots are used */
	uint64_t	hash = ((uint64_t) scale->numerator ^ (uint64_t) (scale->numerator >> 64) ^
						(scale->denominator * UINT64_C(0x9E3779B97F4A7C15))) *
		UINT64_C(0xBF58476D1CE4E5B9);
	unsigned	slot = (unsigned) (hash >> 40) % DP_SAMPLER_CACHE_SLOTS;
	dp_laplace_table *table;

	for (int i = 0; i < DP_SAMPLER_CACHE_RECENT; i++)
		if (cache->recent[i] != NULL && same_scale(cache->recent[i], scale))
			return cache->recent[i];
	for (;;)
	{
		table = cache->slots[slot];
		if (table == NULL)
			break;
		if (same_scale(table, scale))
			return remember(cache, table);
		slot = (slot + 1) % DP_SAMPLER_CACHE_SLOTS;
	}
	if (cache->count == DP_SAMPLER_CACHE_SIZE)
	{
		cache->release_all(cache->context);
		memset(cache->slots, 0, sizeof(cache->slots));
		memset(cache->recent, 0, sizeof(cache->recent));
		cache->count = 0;
		slot = (unsigned) (hash >> 40) % DP_SAMPLER_CACHE_SLOTS;
	}
	table = cache->allocate(cache->context, dp_laplace_table_size(scale));
	dp_laplace_table_build(table, scale, 64);
	cache->slots[slot] = table;
	cache->count++;
	return remember(cache, table);
}
