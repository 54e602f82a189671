/*
 * test_laplace_low.c
 *		The low part of a fresh large-scale draw (dp_laplace_low.h): which
 *		scales take it, the certified enclosure of its acceptance threshold
 *		against dp_bigfixed's, its decisions against long double away from
 *		the threshold and the exact path's at it, and its law.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_bigfixed.h"
#include "dp_laplace_low.h"
#include "dp_laplace_table.h"
#include "dp_random.h"
#include "tap.h"

static dp_random rng;

/* the widest low part the scale accepts, 0 for none */
static int
widest(dp_laplace_low *low, const dp_scale *scale)
{
	for (int bits = DP_LAPLACE_LOW_BITS_MAX; bits >= 1; bits--)
		if (dp_laplace_low_prepare(low, scale, bits))
			return bits;
	return 0;
}

static void
test_prepare(void)
{
	dp_laplace_low low;
	dp_scale	exact = {(dp_uint128) 1 << 40, 1};
	dp_scale	short_of = {((dp_uint128) 1 << 40) - 1, 1};
	dp_scale	rational = {((dp_uint128) 3 << 60) + 1, 3};

	tap_ok(dp_laplace_low_prepare(&low, &exact, 32) && low.reciprocal == (dp_uint128) 1 << 88,
		   "b = 2^40 takes 32 low bits, with the reciprocal 2^88 exactly");
	tap_ok(!dp_laplace_low_prepare(&low, &exact, 33),
		   "b = 2^40 refuses 33 bits (2^(33 + 8) > b)");
	tap_ok(widest(&low, &short_of) == 31, "b = 2^40 - 1 takes at most 31 bits (%d)",
		   widest(&low, &short_of));
	tap_ok(!dp_laplace_low_prepare(&low, &exact, 0) &&
		   !dp_laplace_low_prepare(&low, &(dp_scale) {(dp_uint128) 1 << 100, 1}, 57),
		   "0 bits and more than 56 are refused");
	/* 2^128 / b = 2^68 (1 - 1 / (3 2^60 + 1)), and 2^68 / (3 2^60 + 1) = 85.3 */
	tap_ok(dp_laplace_low_prepare(&low, &rational, 50) &&
		   low.reciprocal == (((dp_uint128) 1 << 68) - 86),
		   "b = (3 2^60 + 1) / 3: the reciprocal is floor(2^128 / b) = 2^68 - 86");
	tap_ok(widest(&low, &(dp_scale) {21, 1}) == 0, "b = 21 takes no low part");
}

/* the enclosure [below, above] 2^-64 against dp_bigfixed's of y = 1 - exp(-v / b) at 4 limbs */
static bool
encloses(const dp_laplace_low *low, const dp_scale *scale, uint64_t v, uint64_t *width)
{
	uint64_t	below;
	uint64_t	above;
	uint64_t	words[4] = {0, 0, 0, 0};
	dp_bigfixed_interval power;
	dp_bigfixed_interval bound;
	dp_bigfixed one;
	dp_bigfixed y_lower;
	dp_bigfixed y_upper;

	dp_laplace_low_enclosure(low, v, &below, &above);
	*width = above - below;
	if (v == 0)
		return below == 0;		/* y = 0 */
	dp_bigfixed_exp_minus(&power, 4, scale->denominator, v, 0, scale->numerator);
	dp_bigfixed_one(&one, 4);
	dp_bigfixed_subtract(&y_lower, &one, &power.upper);
	dp_bigfixed_subtract(&y_upper, &one, &power.lower);
	words[0] = below;
	dp_bigfixed_uniform(&bound, words, 4);	/* bound.lower = below 2^-64 exactly */
	if (dp_bigfixed_compare(&bound.lower, &y_lower) > 0)
		return false;
	words[0] = above;
	dp_bigfixed_uniform(&bound, words, 4);
	return dp_bigfixed_compare(&y_upper, &bound.lower) <= 0;
}

static const dp_scale scales[] = {
	{(dp_uint128) 1 << 45, 1},
	{((dp_uint128) 1 << 72) + 12345, 1},
	{UINT64_C(123456789012345), 7},
	{((dp_uint128) 1 << 96) + 12345, 1},
	{UINT64_C(3) << 30, UINT64_C(5)},
	{(dp_uint128) 1 << 9, 1},
};
#define SCALE_COUNT ((int) (sizeof(scales) / sizeof(scales[0])))

static void
test_enclosure(void)
{
	for (int s = 0; s < SCALE_COUNT; s++)
	{
		dp_laplace_low low;
		int			bits = widest(&low, &scales[s]);
		uint64_t	top = (UINT64_C(1) << bits) - 1;
		int			held = 0;
		int			checked = 0;
		uint64_t	widest_gap = 0;

		for (int i = 0; i < 3000; i++)
		{
			uint64_t	v = i < 4 ? (uint64_t[]) {0, 1, 2, top}[i] & top :
				i < 64 ? (top - (uint64_t) i) & top : (dp_random_uint64(&rng) & top);
			uint64_t	width;

			held += encloses(&low, &scales[s], v, &width);
			widest_gap = width > widest_gap ? width : widest_gap;
			checked++;
		}
		tap_ok(bits >= 1 && held == checked && widest_gap <= 2,
			   "scale %d (%d low bits): %d of %d enclosures hold against dp_bigfixed's, at most %llu units of 2^-64 wide",
			   s, bits, held, checked, (unsigned long long) widest_gap);
	}
}

/*
 * The extremes of what dp_laplace_low_prepare accepts, for every width L:
 * b = 2^(L + 8) exactly (x just below 2^-8, where the series' terms and
 * the rounding of x are largest), the same with a denominator near 2^62
 * (n = d 2^(L + 8) + 1: the reciprocal rounded down the most), and b near
 * 2^97 (x tiny, the lower end saturating at 0); v = 2^L - 1, 2^L - 2,
 * 2^(L - 1), 1 and 0: no 128-bit intermediate overflows and the lower end
 * saturates correctly at every width.  (The enclosure's allowance is
 * checked more finely by test_enclosure's 3,000 proposals per scale:
 * halving MISSED fails there.)
 */
static void
test_enclosure_extremes(void)
{
	const uint64_t big_denominator = (UINT64_C(1) << 62) - 57;
	int			held = 0;
	int			checked = 0;
	int			refused = 0;
	uint64_t	widest_gap = 0;

	for (int bits = 1; bits <= DP_LAPLACE_LOW_BITS_MAX; bits++)
	{
		uint64_t	top = (UINT64_C(1) << bits) - 1;
		dp_scale	extremes[] = {
			{(dp_uint128) 1 << (bits + 8), 1},
			{((dp_uint128) big_denominator << (bits + 8)) + 1, big_denominator},
			{((dp_uint128) 1 << 97) - 1, 1},
		};

		for (int e = 0; e < 3; e++)
		{
			dp_laplace_low low;

			if (!dp_laplace_low_prepare(&low, &extremes[e], bits))
			{
				refused++;
				continue;
			}
			for (int i = 0; i < 5; i++)
			{
				uint64_t	v = (uint64_t[]) {top, top - 1, top >> 1, 1, 0}[i] & top;
				uint64_t	width;

				held += encloses(&low, &extremes[e], v, &width);
				widest_gap = width > widest_gap ? width : widest_gap;
				checked++;
			}
		}
	}
	tap_ok(refused == 0 && held == checked && widest_gap <= 2,
		   "the extremes of L = 1 to 56 (b = 2^(L+8) exactly, d near 2^62, b near 2^97): "
		   "%d of %d enclosures hold, at most %llu units of 2^-64 wide, %d scales refused",
		   held, checked, (unsigned long long) widest_gap, refused);
}

/* y 2^64 for v / b, in long double (64-bit mantissa: 2^-73 absolute at y < 2^-8) */
static long double
threshold(const dp_scale *scale, uint64_t v)
{
	long double x = (long double) v * (long double) scale->denominator /
		(long double) scale->numerator;

	return -expm1l(-x) * 0x1p64L;
}

/*
 * The draw's decision for proposal v and first word t: the fast enclosure,
 * then the exact path on a copy of the stream (as dp_laplace_low_draw does).
 */
static bool
decide(const dp_laplace_low *low, const dp_scale *scale, uint64_t v, uint64_t t,
	   bool *exact_path)
{
	uint64_t	below;
	uint64_t	above;
	dp_random	more = rng;

	dp_laplace_low_enclosure(low, v, &below, &above);
	*exact_path = t >= below && t < above;
	if (t >= above)
		return true;
	if (t < below)
		return false;
	return dp_laplace_low_accept_exact(scale, v, t, &more);
}

static void
test_decisions(void)
{
	for (int s = 0; s < SCALE_COUNT; s++)
	{
		dp_laplace_low low;
		int			bits = widest(&low, &scales[s]);
		uint64_t	top = (UINT64_C(1) << bits) - 1;
		int			agree = 0;
		int			compared = 0;
		int			exact_calls = 0;

		for (int i = 0; i < 2000; i++)
		{
			uint64_t	v = (dp_random_uint64(&rng) & top) | 1;
			long double y = threshold(&scales[s], v);
			uint64_t	centre = (uint64_t) floorl(y);

			for (int delta = -3; delta <= 3; delta++)
			{
				uint64_t	t = centre + (uint64_t) (int64_t) delta;
				bool		exact_path;
				bool		accepted = decide(&low, &scales[s], v, t, &exact_path);

				exact_calls += exact_path;
				/* away from y, long double decides */
				if (delta <= -2 || delta >= 2)
				{
					agree += accepted == ((long double) t >= y);
					compared++;
				}
			}
		}
		tap_ok(agree == compared && exact_calls > 0,
			   "scale %d: %d of %d decisions two or more units from the threshold agree with long double; %d took the exact path",
			   s, agree, compared, exact_calls);
	}
}

/*
 * The law of V at b = 2^9, L = 1: P[V = 1] = q / (1 + q), q = exp(-1/512),
 * 4.9e-4 below one half.  The band is the 1e-6 two-sided normal band; it
 * must exclude one half, or the test could not tell the law from uniform.
 */
#define LAW_DRAWS 100000000L

static void
test_law(void)
{
	dp_scale	scale = {512, 1};
	dp_laplace_low low;
	long double q = expl(-1.0L / 512);
	double		p = (double) (q / (1 + q));
	double		band = Z_TWO_SIDED_1E6 * sqrt(p * (1 - p) / LAW_DRAWS);
	long		ones = 0;
	double		share;

	tap_ok(dp_laplace_low_prepare(&low, &scale, 1) && fabs(0.5 - p) > band,
		   "b = 512 takes a 1-bit low part; one half lies outside the band %.3g of %.6f", band,
		   p);
	for (long i = 0; i < LAW_DRAWS; i++)
		ones += (long) dp_laplace_low_draw(&low, &scale, &rng);
	share = (double) ones / LAW_DRAWS;
	tap_ok(fabs(share - p) <= band, "P[V = 1] = %.6f, within %.3g of %.6f (%ld draws)", share,
		   band, p, LAW_DRAWS);
}

/* Which tables replace chunks, and that a fresh draw reads fewer words. */
static void
test_tables(void)
{
	dp_scale	large = {(dp_uint128) 1 << 45, 1};
	dp_scale	small = {21, 1};
	dp_laplace_table *table = malloc(dp_laplace_table_size(&large));
	dp_random	a;
	dp_random	b;
	uint64_t	words_table;
	uint64_t	words_fresh;

	dp_laplace_table_build(table, &small, 64);
	tap_ok(table->low_chunks == 0, "b = 21: no low part");
	dp_laplace_table_build(table, &large, 64);
	tap_ok(table->low_chunks >= 4 && table->low.bits == table->chunks[table->low_chunks].shift &&
		   table->low.bits + DP_LAPLACE_LOW_MARGIN <= 45 &&
		   (table->low_chunks == table->chunk_count - 1 ||
			table->chunks[table->low_chunks + 1].shift + DP_LAPLACE_LOW_MARGIN > 45),
		   "b = 2^45: the low part takes the %d bits of %d chunks of %d", table->low.bits,
		   table->low_chunks, table->chunk_count);

	dp_random_init_keyed(&a, "words", 5);
	dp_random_init_keyed(&b, "words", 5);
	for (int i = 0; i < 10000; i++)
	{
		(void) dp_laplace_table_draw(table, &a);
		(void) dp_laplace_table_draw_fresh(table, &b);
	}
	words_table = a.block_counter;
	words_fresh = b.block_counter;
	tap_ok(words_fresh * 2 < words_table,
		   "b = 2^45: 10000 fresh draws read %llu ChaCha20 blocks, the table sampler %llu",
		   (unsigned long long) words_fresh, (unsigned long long) words_table);
	free(table);
}

int
main(void)
{
	dp_random_library_init();
	dp_random_init_keyed(&rng, "laplace low", 11);
	test_prepare();
	test_enclosure();
	test_enclosure_extremes();
	test_decisions();
	test_tables();
	test_law();
	return tap_done();
}
