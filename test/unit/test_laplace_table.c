/*
 * test_laplace_table.c
 *		The constant-time table sampler: certified arithmetic, the exact law
 *		(with 64-bit cells and with coarse cells that send a large share of
 *		the draws down the exact path), the sampler cache.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_bigfixed.h"
#include "dp_counter.h"
#include "dp_laplace_table.h"
#include "dp_noise.h"
#include "dp_random.h"
#include "tap.h"
#include "test_support.h"

#define DRAWS 400000
#define EDGES_MAX 512

static dp_random rng;

static long double
to_long_double(const dp_bigfixed *x)
{
	long double value = 0;

	for (int i = x->limbs - 1; i >= 0; i--)
		value = value * 0x1p64L + (long double) x->limb[i];
	return ldexpl(value, -(64 * x->limbs - 2));
}

/* exp(-y) enclosures contain expl(y) (to its own rounding) and are narrow */
static void
test_exp_enclosures(void)
{
	struct
	{
		uint64_t	numerator;
		uint64_t	multiplier;
		int			shift;
		dp_uint128	denominator;
	}			cases[] = {
		{1, 1, 0, 1}, {1, 1, 0, 21}, {3, 7, 4, 1000}, {10, 1, 0, 3}, {1, 1023, 0, 21},
		{1, 1, 20, (dp_uint128) 1 << 70}, {5, 1, 0, 1}, {100, 1, 0, 1}, {1, 1, 0, (dp_uint128) 1 << 96},
		{123456789, 1000, 10, (dp_uint128) 987654321 * 1000003}, {1, 1, 12, 1},
	};
	int			limb_counts[] = {2, 4, 8, 64};
	int			failures = 0;
	int			checks = 0;
	long double widest = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (size_t l = 0; l < sizeof(limb_counts) / sizeof(limb_counts[0]); l++)
		{
			dp_bigfixed_interval e;
			long double y = ldexpl((long double) cases[c].numerator * cases[c].multiplier,
								   cases[c].shift) / (long double) cases[c].denominator;
			long double exact = expl(-y);
			long double lower;
			long double upper;
			/* expl's own error, and that of y rounded to long double */
			long double slack = exact * (4e-19L + y * 1.1e-19L) + 0x1p-16000L;

			dp_bigfixed_exp_minus(&e, limb_counts[l], cases[c].numerator, cases[c].multiplier,
								  cases[c].shift, cases[c].denominator);
			lower = to_long_double(&e.lower);
			upper = to_long_double(&e.upper);
			checks++;
			if (!(lower <= exact + slack && upper >= exact - slack &&
				  dp_bigfixed_compare(&e.lower, &e.upper) <= 0))
			{
				failures++;
				tap_diag("exp(-%Lg) at %d limbs: [%.21Lg, %.21Lg] vs %.21Lg", y,
						 limb_counts[l], lower, upper, exact);
			}
			if (limb_counts[l] >= 4 && upper - lower > widest)
				widest = upper - lower;
		}
	tap_ok(failures == 0, "exp(-y) enclosures hold expl(-y): %d of %d", checks - failures, checks);
	tap_ok(widest < 0x1p-200L, "enclosures at 256 bits are narrower than 2^-200 (widest %Lg)",
		   widest);
}

/* P[Z <= z] of the discrete Laplace law of scale b */
static long double
cdf(long double b, long double z)
{
	long double q = expl(-1.0L / b);

	if (z >= 0)
		return 1.0L - expl(-(z + 1) / b) / (1.0L + q);
	return expl(z / b) / (1.0L + q);
}

/*
 * Chi-squared goodness of fit over buckets [edge_i, edge_i+1) with the two
 * tails, edges at the integers nearest b t for t in [-12, 12] by quarters.
 */
static double
chi_squared_against(const dp_scale *scale, int cell_bits, bool fresh, const dp_scale *law,
					double *critical, double *mean, int *degrees)
{
	size_t		size = dp_laplace_table_size(scale);
	dp_laplace_table *table = malloc(size);
	long double b = (long double) law->numerator / (long double) law->denominator;
	long double edges[EDGES_MAX];
	int			edge_count = 0;
	static long counts[EDGES_MAX + 1];
	double		chi = 0;
	double		sum = 0;
	int			df;

	dp_laplace_table_build(table, scale, cell_bits);
	/* every bucket, tails included, expects at least 20 draws */
	for (int k = -48; k <= 48; k++)
	{
		long double edge = roundl(b * k / 4.0L);
		long double below = cdf(b, edge - 1);
		long double previous = edge_count == 0 ? 0.0L : cdf(b, edges[edge_count - 1] - 1);

		if ((edge_count == 0 || edge > edges[edge_count - 1]) &&
			(below - previous) * DRAWS >= 20 && (1.0L - below) * DRAWS >= 20)
			edges[edge_count++] = edge;
	}
	memset(counts, 0, sizeof(counts));
	for (int i = 0; i < DRAWS; i++)
	{
		dp_int128	z = fresh ? dp_laplace_table_draw_fresh(table, &rng) :
			dp_laplace_table_draw(table, &rng);
		/* through double: valgrind mishandles the int128 to long double conversion */
		long double value = (double) z;
		int			low = 0;
		int			high = edge_count;

		sum += (double) value;
		/* bucket = number of edges <= value */
		while (low < high)
		{
			int			middle = (low + high) / 2;

			if (edges[middle] <= value)
				low = middle + 1;
			else
				high = middle;
		}
		counts[low]++;
	}
	for (int bucket = 0; bucket <= edge_count; bucket++)
	{
		long double upper = bucket < edge_count ? cdf(b, edges[bucket] - 1) : 1.0L;
		long double lower = bucket > 0 ? cdf(b, edges[bucket - 1] - 1) : 0.0L;
		double		expected = (double) ((upper - lower) * DRAWS);

		if (expected > 0)
			chi += (counts[bucket] - expected) * (counts[bucket] - expected) / expected;
		else if (counts[bucket] > 0)
			chi = INFINITY;
	}
	df = edge_count;
	*degrees = df;
	*critical = chi_squared_critical_1e6(df < 10 ? 10 : df);
	*mean = sum / DRAWS;
	free(table);
	return chi;
}

static void
check_law_of(const char *label, const dp_scale *scale, int cell_bits, bool fresh)
{
	double		critical;
	double		mean;
	int			df;
	double		chi = chi_squared_against(scale, cell_bits, fresh, scale, &critical, &mean, &df);
	double		band = Z_TWO_SIDED_1E6 * sqrt(dp_discrete_laplace_variance(scale) / DRAWS);
	const char *how = fresh ? ", fresh" : "";

	tap_ok(chi < critical, "%s (cells of %d bits%s): chi-squared %.1f < %.1f (df %d) over %d draws",
		   label, cell_bits, how, chi, critical, df, DRAWS);
	tap_ok(fabs(mean) <= band, "%s (cells of %d bits%s): mean %.4g within +-%.4g", label,
		   cell_bits, how, mean, band);
}

static void
check_law(const char *label, const dp_scale *scale, int cell_bits)
{
	check_law_of(label, scale, cell_bits, false);
}

/* the check can fail: draws of scale 22 are told apart from the law of scale 21 */
static void
test_negative_control(void)
{
	dp_scale	drawn = {22, 1};
	dp_scale	law = {21, 1};
	double		critical;
	double		mean;
	int			df;
	double		chi = chi_squared_against(&drawn, 64, false, &law, &critical, &mean, &df);

	tap_ok(chi > critical, "scale 22 against the law of scale 21: chi-squared %.1f > %.1f",
		   chi, critical);
}

/* Share of 64-bit words that fall in an undecided cell of some chunk. */
static double
undecided_share(const dp_laplace_table *table, int words)
{
	int			undecided = 0;

	for (int i = 0; i < words; i++)
	{
		int			any = 0;

		for (int c = 0; c < table->chunk_count; c++)
		{
			const dp_laplace_chunk *chunk = &table->chunks[c];
			uint64_t	u = dp_random_uint64(&rng);
			uint64_t	position = 0;

			while (position + 1 < ((uint64_t) 1 << chunk->width) && chunk->upper[position] <= u)
				position++;
			any |= dp_laplace_chunk_undecided(chunk, position, u);
		}
		undecided += any;
	}
	return (double) undecided / words;
}

static void
test_laws(void)
{
	dp_scale	scales[] = {
		{3, 10}, {1, 1}, {5, 2}, {21, 1}, {1000, 1}, {123457, 3},
		{(dp_uint128) 1 << 40, 1}, {((dp_uint128) 1 << 96) + 12345, 1},
	};
	const char *labels[] = {"b = 0.3", "b = 1", "b = 2.5", "b = 21", "b = 1000",
	"b = 41152.3", "b = 2^40", "b = 2^96"};

	for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++)
		check_law(labels[s], &scales[s], 64);

	/* coarse cells: the exact path decides a good share of the draws */
	for (size_t s = 1; s < 6; s++)
	{
		dp_laplace_table *table = malloc(dp_laplace_table_size(&scales[s]));
		double		share;

		dp_laplace_table_build(table, &scales[s], 8);
		share = undecided_share(table, 20000);
		tap_ok(share > 0.01, "%s with 8-bit cells: %.1f%% of draws take the exact path",
			   labels[s], 100 * share);
		free(table);
		check_law(labels[s], &scales[s], 8);
	}
	/*
	 * Fresh draws, whose low chunks give way to the low part at large
	 * scales (dp_laplace_low.h; test_laplace_low checks the low part's own
	 * law): with 64-bit cells, and with coarse ones, where the chunks above
	 * the low part take the exact path.  At b = 1000 there is no low part:
	 * the fresh draw is the table's.
	 */
	{
		dp_scale	fresh[] = {{1000, 1}, {(dp_uint128) 1 << 40, 1}, {UINT64_C(123456789012345), 7},
		{((dp_uint128) 1 << 96) + 12345, 1}};
		const char *fresh_labels[] = {"b = 1000", "b = 2^40", "b = 1.76e13", "b = 2^96"};

		for (size_t s = 0; s < sizeof(fresh) / sizeof(fresh[0]); s++)
		{
			check_law_of(fresh_labels[s], &fresh[s], 64, true);
			if (s > 0)
				check_law_of(fresh_labels[s], &fresh[s], 8, true);
		}
	}
	{
		dp_laplace_table *table = malloc(dp_laplace_table_size(&scales[3]));

		dp_laplace_table_build(table, &scales[3], 64);
		tap_ok(undecided_share(table, 200000) == 0,
			   "b = 21 with 64-bit cells: no draw of 200000 takes the exact path");
		tap_ok(table->chunk_count == 2 && table->chunks[0].width == 5 &&
			   table->chunks[1].width == 5 && table->chunks[1].open_ended,
			   "b = 21: two chunks of 5 bits, the top one open (%d chunks)", table->chunk_count);
		free(table);
	}
}

/*
 * Probability that a draw leaves the fast path, bounded from the tables: for
 * each chunk, spread cells per boundary, the top chunk's words at or past its
 * last boundary, and the all-ones word.  It must stay below 2^-48 at every
 * scale (a sweep of 400 scales from 0.01 to 2^90, and scales near the
 * thresholds where the chunk count changes).
 */
static long double
undecided_bound(const dp_laplace_table *table)
{
	long double mass = 0;

	for (int c = 0; c < table->chunk_count; c++)
	{
		const dp_laplace_chunk *chunk = &table->chunks[c];
		uint64_t	entries = (uint64_t) 1 << chunk->width;

		mass += (long double) (entries - 1) * (long double) chunk->spread + 1;
		/* the crowded cells of a guide by leading ones: 50 or more */
		if (chunk->guide_by_leading_ones)
			mass += 0x1p14L;
		if (chunk->open_ended)
			mass += entries >= 2 ?
				(long double) (UINT64_MAX - chunk->upper[entries - 2]) + 1 + chunk->spread :
				0x1p64L;
	}
	return mass / 0x1p64L;
}

/* The linear scan the guided search must agree with. */
static uint64_t
scan_position(const dp_laplace_chunk *chunk, uint64_t u)
{
	uint64_t	position = 0;

	while (position + 1 < ((uint64_t) 1 << chunk->width) && chunk->upper[position] <= u)
		position++;
	return position;
}

/*
 * The guided search against the linear scan, on one chunk: at both ends of
 * every cell of both guides and one word past them, at every cell of the
 * table and one word either side, and on random words.  Outside crowded
 * cells the two agree; in one, the guide's count is certain (never above
 * the scan's) and the word has at least 50 leading ones.  Returns the
 * number of disagreements.
 */
static int
guide_disagreements(const dp_laplace_chunk *chunk, int random_words)
{
	uint64_t	probes[3 * (128 * 2 + 64 * 2 + 32) + 1];
	int			count = 0;
	int			wrong = 0;

	for (unsigned cell = 0; cell < 128; cell++)
	{
		probes[count++] = (uint64_t) cell << 57;
		probes[count++] = ((uint64_t) cell << 57) | ((UINT64_C(1) << 57) - 1);
	}
	for (unsigned cell = 0; cell < 64; cell++)
	{
		uint64_t	start = cell == 0 ? 0 : ~(UINT64_MAX >> cell);

		probes[count++] = start;
		probes[count++] = start | (cell == 63 ? 0 : UINT64_MAX >> (cell + 1));
	}
	for (uint64_t j = 0; j < ((uint64_t) 1 << chunk->width); j++)
		probes[count++] = chunk->upper[j];
	for (int i = count - 1; i >= 0; i--)
	{
		probes[count++] = probes[i] + 1;
		probes[count++] = probes[i] - 1;
	}
	for (int i = 0; i < count + random_words; i++)
	{
		uint64_t	u = i < count ? probes[i] : dp_random_uint64(&rng);
		int			crowded;
		uint64_t	guided;
		uint64_t	scanned;

		if (u == UINT64_MAX)
			continue;			/* the draws never search it */
		guided = dp_laplace_chunk_search(chunk, u, &crowded);
		scanned = scan_position(chunk, u);
		if (crowded ? guided > scanned || __builtin_clzll(~u) < 50 : guided != scanned)
			wrong++;
	}
	return wrong;
}

static void
test_undecided_mass(void)
{
	long double worst = 0;
	double		worst_scale = 0;
	int			scales = 0;
	int			wrong = 0;
	int			most_steps = 0;

	for (int i = 0; i <= 400; i++)
	{
		/* b = 2^(i / 4.4 - 6.6): 0.01 to about 2^84, in steps of 2^(1/4.4) */
		double		b = pow(2.0, i / 4.4 - 6.6);

		for (int nudge = -1; nudge <= 1; nudge++)
		{
			dp_scale	scale;
			dp_laplace_table *table;
			long double mass;
			/* epsilon stays within its range: large scales from a large sensitivity */
			uint64_t	sensitivity = b > 0x1p30 ? UINT64_C(1) << 50 : 1;

			if (dp_scale_for(sensitivity, sensitivity / (b * (1 + nudge * 1e-3)), &scale) !=
				DP_SCALE_OK)
				continue;
			table = malloc(dp_laplace_table_size(&scale));
			dp_laplace_table_build(table, &scale, 64);
			mass = undecided_bound(table);
			for (int c = 0; c < table->chunk_count; c++)
			{
				wrong += guide_disagreements(&table->chunks[c], 200);
				if (table->chunks[c].guide_steps > most_steps)
					most_steps = table->chunks[c].guide_steps;
			}
			/* coarse cells (more steps, more crowding) at every tenth scale */
			if (i % 10 == 0)
			{
				dp_laplace_table *coarse = malloc(dp_laplace_table_size(&scale));

				dp_laplace_table_build(coarse, &scale, 8);
				for (int c = 0; c < coarse->chunk_count; c++)
					wrong += guide_disagreements(&coarse->chunks[c], 200);
				free(coarse);
			}
			if (mass > worst)
			{
				worst = mass;
				worst_scale = dp_scale_as_double(&scale);
			}
			scales++;
			free(table);
		}
	}
	tap_ok(worst < 0x1p-48L, "over %d scales the fast path is left with probability at most %Lg = 2^%.1f < 2^-48 (worst at b = %g)",
		   scales, worst, (double) log2l(worst), worst_scale);
	tap_ok(wrong == 0, "over the same scales (and every tenth with 8-bit cells) the guided search agrees with a linear scan at every cell edge and on random words (%d disagreements)",
		   wrong);
	tap_ok(most_steps <= 1, "every guided search of 64-bit cells finishes in at most one comparison after the guide (at most %d)",
		   most_steps);
}

/*
 * A word of 52 leading ones in the top chunk falls in a crowded cell of the
 * guide: the draw must settle it as the full search did, reading no more
 * random words (a stored state's later terms depend on the stream's
 * position).  The word goes straight into the stream's buffer; the draw's
 * value must be the linear scan's, and the bytes left those of one word per
 * chunk plus the sign's.
 */
static void
test_crowded_word(void)
{
	dp_scale	scales[] = {{21, 1}, {1000, 1}};
	bool		same = true;

	for (size_t s = 0; s < sizeof(scales) / sizeof(scales[0]); s++)
	{
		dp_laplace_table *table = malloc(dp_laplace_table_size(&scales[s]));
		dp_random	stream;
		uint64_t	words[DP_LAPLACE_CHUNKS_MAX];
		dp_uint128	expected = 0;
		size_t		offset;
		dp_int128	z;

		dp_laplace_table_build(table, &scales[s], 64);
		dp_random_init_keyed(&stream, "crowded", 7);
		(void) dp_random_uint64(&stream);	/* fills the buffer */
		offset = sizeof(stream.buffer) - stream.available;
		for (int c = 0; c < table->chunk_count; c++)
		{
			const dp_laplace_chunk *chunk = &table->chunks[c];

			words[c] = chunk->open_ended ? UINT64_C(0xfffffffffffff000) :
				UINT64_C(0x9e3779b97f4a7c15) * (uint64_t) (c + 1);
			expected += (dp_uint128) scan_position(chunk, words[c]) << chunk->shift;
		}
		memcpy(stream.buffer + offset, words, sizeof(uint64_t) * (size_t) table->chunk_count);
		z = dp_laplace_table_draw(table, &stream);
		same &= (z < 0 ? (dp_uint128) -z : (dp_uint128) z) == expected &&
			stream.available ==
			sizeof(stream.buffer) - sizeof(uint64_t) * (size_t) (table->chunk_count + 2);
		free(table);
	}
	tap_ok(same, "a word in a crowded cell is settled as the full search did: the scan's value, no extra random word read");
}

/*
 * The values the table sampler draws from a given stream, pinned: stored
 * states with the table flag draw their keyed terms with it, so a change of
 * the chunk layout, the cells or the order of reads would change their
 * noise and must come with a new flag value.  These are the first draws of
 * a fixed stream at four scales (computed by this implementation).
 */
static void
test_pinned_values(void)
{
	dp_scale	scales[] = {{1, 2}, {21, 1}, {1000, 1}, {(dp_uint128) 1 << 45, 1}};
	int			expected_chunks[] = {1, 2, 4, 11};
	long long	expected[4][6] = {
		{0, 0, 0, -1, 0, 0},
		{-18, 21, 22, -14, 9, 3},
		{-737, -817, 148, 721, 896, 2279},
		{16193692030179, -27260166050362, -19253372781180, 3266318900197, 13239053737446,
		346696057110},
	};
	int			same = 1;

	for (int s = 0; s < 4; s++)
	{
		dp_random	stream;
		dp_laplace_table *table = malloc(dp_laplace_table_size(&scales[s]));

		dp_laplace_table_build(table, &scales[s], 64);
		dp_random_init_keyed(&stream, "pinned", 6);
		same &= table->chunk_count == expected_chunks[s];
		for (int i = 0; i < 6; i++)
		{
			long long	z = (long long) dp_laplace_table_draw(table, &stream);

			if (getenv("DP_PRINT_PINNED"))
				printf("%lld%s", z, i == 5 ? (s == 3 ? "\n" : ",\n") : ", ");
			same &= z == expected[s][i];
		}
		free(table);
	}
	tap_ok(same, "the draws of a fixed stream and the chunk layouts are the pinned ones");
}

static void
test_cache(void)
{
	test_arena arena = {.count = 0, .resets = 0};
	dp_sampler_cache cache = test_sampler_cache(&arena);
	dp_scale	a = {21, 1};
	dp_scale	b = {1000, 7};
	const dp_laplace_table *first = dp_sampler_cache_laplace(&cache, &a);
	const dp_laplace_table *second = dp_sampler_cache_laplace(&cache, &b);
	dp_random	keyed;
	dp_random	reference;
	int			same = 1;

	tap_ok(first != second && dp_sampler_cache_laplace(&cache, &a) == first &&
		   dp_sampler_cache_laplace(&cache, &b) == second && arena.count == 2,
		   "the cache builds one table per scale");
	for (int i = 0; i < 2 * DP_SAMPLER_CACHE_SIZE; i++)
	{
		dp_scale	scale = {(dp_uint128) (100 + i), 3};

		dp_sampler_cache_laplace(&cache, &scale);
	}
	tap_ok(arena.resets >= 1 && cache.count <= DP_SAMPLER_CACHE_SIZE &&
		   dp_sampler_cache_laplace(&cache, &a)->scale.numerator == 21,
		   "a full cache starts again (%d resets, %d tables)", arena.resets, cache.count);
	{
		/* the recent tables: only tables of the cache as it is now, never a freed one */
		int			live = 1;
		dp_scale	scales[3] = {{21, 1}, {35184372088832, 1}, {1000, 7}};
		const dp_laplace_table *tables[3];

		for (int i = 0; i < DP_SAMPLER_CACHE_RECENT; i++)
		{
			int			found = cache.recent[i] == NULL;

			for (int j = 0; j < DP_SAMPLER_CACHE_SLOTS; j++)
				found |= cache.recent[i] == cache.slots[j];
			live &= found;
		}
		for (int i = 0; i < 3; i++)
			tables[i] = dp_sampler_cache_laplace(&cache, &scales[i]);
		for (int round = 0; round < 20; round++)
			for (int i = 0; i < 3; i++)
			{
				const dp_laplace_table *table = dp_sampler_cache_laplace(&cache, &scales[i]);

				live &= table == tables[i] &&
					table->scale.numerator == scales[i].numerator &&
					table->scale.denominator == scales[i].denominator;
			}
		tap_ok(live, "after a reset the recent tables are the cache's own, and alternating "
			   "scales get their own table each time");
	}

	/* a stream with a cache draws with the tables; without, the reference sampler */
	dp_random_init_keyed(&keyed, "cache", 5);
	dp_random_init_keyed(&reference, "cache", 5);
	tap_ok(keyed.samplers == NULL, "init leaves a stream without tables");
	for (int i = 0; i < 1000; i++)
		same &= dp_discrete_laplace(&keyed, &a) == dp_discrete_laplace_reference(&reference, &a);
	tap_ok(same, "without tables a keyed stream draws the reference sampler's values");
	keyed.samplers = &cache;
	{
		dp_int128	z = dp_discrete_laplace(&keyed, &a);

		tap_ok(z > -10000 && z < 10000, "with tables the stream draws through the cache");
	}
	test_arena_release(&arena);
}

static dp_counter *
started(const dp_mechanism *mechanism, const unsigned char *key, dp_random *stream)
{
	dp_counter *counter = malloc(dp_counter_size(mechanism));
	const char *field = NULL;

	if (dp_counter_start_keyed(counter, mechanism, key, stream, &field) != DP_OK)
		abort();
	return counter;
}

/*
 * States: a random-key state started by a table-sampler stream draws its
 * keyed terms with tables and says so in its stored form (flag 2); the same
 * for a keyed mechanism, or from a reference stream, keeps the reference
 * sampler; a stored state continues exactly as the original, with or
 * without a cache.
 */
static void
test_states(void)
{
	unsigned char key[DP_NOISE_KEY_BYTES] = "a noise key of thirty-two bytes";
	dp_mechanism plain = {.kind = DP_MECHANISM_BINARY, .epsilon = 1.0, .horizon = 64,
	.max_per_step = 1};
	dp_mechanism keyed = plain;
	dp_random	tables;
	dp_random	reference;
	dp_counter *table_state;
	dp_counter *reference_state;
	dp_counter *keyed_state;
	dp_counter *copy = malloc(dp_counter_size(&plain));
	unsigned char *bytes;
	size_t		length;
	dp_parse_error error;
	int			same = 1;
	int			differ = 0;
	dp_int128	noise_sum = 0;

	/* a keyed mechanism is pan-private (docs/keyed_noise.md) */
	keyed.flags = DP_FLAG_KEYED | DP_FLAG_PAN_PRIVATE;
	memcpy(keyed.key, "page", 5);
	dp_random_init_keyed(&tables, "states", 6);
	tables.table_sampler = true;
	dp_random_init_keyed(&reference, "states", 6);
	table_state = started(&plain, key, &tables);
	reference_state = started(&plain, key, &reference);
	keyed_state = started(&keyed, key, &tables);
	tap_ok(table_state->table_sampler && !reference_state->table_sampler &&
		   !keyed_state->table_sampler,
		   "random-key states of a table stream draw with tables; keyed mechanisms and reference streams do not");

	length = dp_counter_serialized_size(table_state);
	bytes = malloc(length);
	dp_counter_serialize(table_state, bytes);
	tap_ok(dp_counter_deserialize(bytes, length, copy, dp_counter_size(&plain), &error) == DP_OK &&
		   copy->table_sampler, "the stored form keeps the table sampler (flag 2)");
	for (int step = 0; step < 40; step++)
	{
		/* the original with the stream's cache, the copy from a stream without one */
		dp_counter_push(table_state, step % 2, &tables);
		dp_counter_push(copy, step % 2, &reference);
		dp_counter_push(reference_state, step % 2, &reference);
		same &= table_state->release == copy->release;
		differ |= table_state->release != reference_state->release;
		noise_sum += table_state->release - reference_state->release;
	}
	(void) noise_sum;
	tap_ok(same, "a stored table-sampler state continues with the same noise, cached or not");
	{
		/*
		 * A keyed mechanism's state started with the table sampler (the
		 * database's choice, dp_counter_start_with_sampler) keeps it through
		 * the stored form; a noise key flag above 2 is refused.
		 */
		dp_counter *keyed_table = malloc(dp_counter_size(&keyed));
		dp_counter *keyed_copy = malloc(dp_counter_size(&keyed));
		const char *field = NULL;
		size_t		keyed_length;
		unsigned char *keyed_bytes;
		size_t		flag_at;
		dp_status	plain_status;
		dp_status	forged_status;

		if (dp_counter_start_with_sampler(keyed_table, &keyed, key, true, &reference, &field) != DP_OK)
			abort();
		keyed_length = dp_counter_serialized_size(keyed_table);
		keyed_bytes = malloc(keyed_length);
		flag_at = dp_counter_public_size(keyed_table);
		dp_counter_serialize(keyed_table, keyed_bytes);
		plain_status = dp_counter_deserialize(keyed_bytes, keyed_length, keyed_copy,
											  dp_counter_size(&keyed), &error);
		tap_ok(plain_status == DP_OK && keyed_copy->table_sampler && keyed_bytes[flag_at] == 2,
			   "a keyed mechanism's state started with the table sampler stores flag 2 and keeps it");
		/* flags 3 and 4 (0.17.0): 1 and 2 with keyed derivation 2 */
		keyed_bytes[flag_at] = 4;
		plain_status = dp_counter_deserialize(keyed_bytes, keyed_length, keyed_copy,
											  dp_counter_size(&keyed), &error);
		tap_ok(plain_status == DP_OK && keyed_copy->table_sampler &&
			   keyed_copy->derivation == DP_DERIVATION_2,
			   "a noise key flag of 4 reads as the table sampler with keyed derivation 2");
		keyed_bytes[flag_at] = 5;
		forged_status = dp_counter_deserialize(keyed_bytes, keyed_length, keyed_copy,
											   dp_counter_size(&keyed), &error);
		tap_ok(forged_status != DP_OK, "a noise key flag of 5 is refused (%s)",
			   forged_status != DP_OK ? error.problem : "accepted");
		free(keyed_bytes);
		free(keyed_copy);
		free(keyed_table);
	}
	tap_ok(differ, "the two samplers draw different values from the same key");
	free(bytes);
	free(table_state);
	free(reference_state);
	free(keyed_state);
	free(copy);
}

/*
 * The special paths (two chunks, three to thirteen usual chunks) against
 * the general one: the same values from the same stream, bit for bit, and
 * the stream left at the same place, over scales of 1 to 20 chunks and
 * every low width, with 64-bit cells and with coarse ones (whose many
 * undecided words take the exact path, which reads more words).
 */
static void
test_special_paths(void)
{
	int			same = 1;
	int			tables = 0;
	int			seen[DP_LAPLACE_CHUNKS_MAX + 1] = {0};
	int			counts = 0;
	long		undecided_draws = 0;
	int			paths[3] = {0};

	for (int exponent = 0; exponent <= 90; exponent += 1)
		for (int variant = 0; variant < 3; variant++)
		{
			dp_scale	scale = {((dp_uint128) (3 + 2 * variant) << exponent) / 3 + 1,
								 (uint64_t) (1 + variant)};

			for (int cells = 0; cells < 2; cells++)
			{
				int			cell_bits = cells == 0 ? 64 : 8;
				dp_laplace_table *table = malloc(dp_laplace_table_size(&scale));
				dp_random	special;
				dp_random	general;
				int			draws = cells == 0 ? 4000 : 1000;

				dp_laplace_table_build(table, &scale, cell_bits);
				dp_random_init_keyed(&special, "special paths", 13);
				dp_random_init_keyed(&general, "special paths", 13);
				for (int i = 0; i < draws; i++)
				{
					size_t		before = general.available;

					same &= dp_laplace_table_draw(table, &special) ==
						dp_laplace_table_draw_general(table, &general);
					same &= special.available == general.available &&
						special.bits_left == general.bits_left;
					/* more than one word a chunk and a sign word: the exact path */
					if (before >= (size_t) (table->chunk_count + 1) * 8 &&
						before - general.available > (size_t) (table->chunk_count + 1) * 8)
						undecided_draws++;
				}
				if (table->draw_path >= 0 && table->draw_path < 3)
					paths[table->draw_path]++;
				if (!seen[table->chunk_count])
					counts++;
				seen[table->chunk_count] = 1;
				tables++;
				free(table);
			}
		}
	tap_ok(same && counts >= 13 && undecided_draws > 0 && paths[0] > 0 && paths[1] > 0 &&
		   paths[2] > 0,
		   "the special paths draw the general path's values from the same stream (%d tables: %d general, %d two chunks, %d usual chunks; %d chunk counts, %ld draws through the exact path)",
		   tables, paths[0], paths[1], paths[2], counts, undecided_draws);
}

int
main(void)
{
	dp_random_library_init();
	dp_random_init_keyed(&rng, "laplace table", 13);
	test_exp_enclosures();
	test_laws();
	test_negative_control();
	test_cache();
	test_states();
	test_undecided_mass();
	test_crowded_word();
	test_pinned_values();
	test_special_paths();
	return tap_done();
}
