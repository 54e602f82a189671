/*
 * fuzz_samplers.c
 *		The exact samplers on scales from the input: the constant-time
 *		discrete Laplace tables (built with 64-bit cells, or with fewer so
 *		that the certified exact path decides often), their chunk search,
 *		cached and uncached draws, the sampler cache up to its reset; the
 *		discrete Gaussian with the reference and the constant-time
 *		acceptance, and the acceptance's fast and exact decisions at
 *		exponentials placed on and around the threshold; Bernoulli(exp(-x));
 *		randomized response.
 *
 * Input (little-endian, missing bytes read as zero):
 *   0    flags: 1 fill the sampler cache past its size, 2 Gaussian noise,
 *        4 constant-time Gaussian acceptance
 *   1-8  sensitivity (u64, 1 + value modulo 2^56)
 *   9-16 epsilon or rho (f64)
 *   17   cell bits of the table (1 + byte % 64; 64 from 64 up)
 *   18   draws (byte % 33)
 *   19-26 a proposal |Y| for the acceptance (modulo 2^54 + 1)
 *   27   where the exponential lies against the threshold X 2^48
 *        (signed: M = floor(X 2^48) + byte / 16, or a raw value at -128)
 *   28-35 a raw exponential magnitude, 36-43 Bernoulli numerator (modulo
 *   the denominator + 1), 44-51 its denominator, 52-59 epsilon of randomized response (f64)
 */
#include "fuzz_arena.h"
#include "fuzz_common.h"

#include "dp_gaussian.h"
#include "dp_laplace_table.h"
#include "dp_noise.h"
#include "dp_noise_sum.h"
#include "dp_randomized_response.h"

static double
read_f64(const uint8_t *data, size_t size, size_t offset)
{
	uint64_t	bits = fuzz_read_le(data, size, offset, 8);
	double		value;

	memcpy(&value, &bits, sizeof(value));
	return value;
}

static dp_uint128
magnitude_of(dp_int128 value)
{
	return value < 0 ? (dp_uint128) 0 - (dp_uint128) value : (dp_uint128) value;
}

/* ---- discrete Laplace ---- */

static void
laplace(const dp_scale *scale, int cell_bits, int draws, bool fill_cache)
{
	size_t		bytes = dp_laplace_table_size(scale);
	dp_laplace_table *table = fuzz_alloc(bytes);
	dp_random	rng;
	dp_random	other;
	fuzz_arena	tables = {{0}, 0, 0};
	dp_sampler_cache cache;

	FUZZ_CHECK(bytes <= DP_LAPLACE_TABLE_BYTES_MAX);
	dp_laplace_table_build(table, scale, cell_bits);
	FUZZ_CHECK(table->chunk_count >= 1 && table->chunk_count <= DP_LAPLACE_CHUNKS_MAX);
	fuzz_rng(&rng);
	for (int i = 0; i < draws; i++)
	{
		FUZZ_CHECK(magnitude_of(dp_laplace_table_draw(table, &rng)) <= DP_NOISE_DRAW_MAX);
		FUZZ_CHECK(dp_laplace_table_draw_magnitude(table, &rng) <= DP_NOISE_DRAW_MAX);
	}
	/* every chunk's search stays inside its table, at the edges of the words */
	for (int c = 0; c < table->chunk_count; c++)
	{
		const dp_laplace_chunk *chunk = &table->chunks[c];
		uint64_t	last = ((uint64_t) 1 << chunk->width) - 1;
		static const uint64_t words[] = {0, 1, UINT64_MAX - 1, UINT64_C(1) << 63,
		UINT64_MAX >> 1, UINT64_MAX - (UINT64_MAX >> 50)};

		FUZZ_CHECK(chunk->width >= 1 && chunk->width <= DP_LAPLACE_CHUNK_BITS_MAX);
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		{
			int			crowded = 0;

			FUZZ_CHECK(dp_laplace_chunk_search(chunk, words[w], &crowded) <= last);
		}
		for (uint64_t j = 1; j <= last; j++)
			FUZZ_CHECK(chunk->upper[j - 1] <= chunk->upper[j]);
	}

	/* a table built for each draw, and a cached one, give the 64-bit table's values */
	if (cell_bits == 64)
	{
		fuzz_rng(&rng);
		fuzz_rng(&other);
		memset(&cache, 0, sizeof(cache));
		cache.allocate = fuzz_arena_allocate;
		cache.release_all = fuzz_arena_release;
		cache.context = &tables;
		for (int i = 0; i < draws && i < 4; i++)
		{
			dp_int128	cached = dp_laplace_table_draw(dp_sampler_cache_laplace(&cache, scale),
													   &rng);

			FUZZ_CHECK(dp_laplace_table_draw_uncached(&other, scale) == cached);
			cached = (dp_int128) dp_laplace_table_draw_magnitude(table, &rng);
			FUZZ_CHECK(dp_laplace_table_draw_magnitude_uncached(&other, scale) ==
					   (dp_uint128) cached);
		}
		/* the same stream through dp_discrete_laplace with the table sampler */
		fuzz_rng(&rng);
		fuzz_rng(&other);
		rng.table_sampler = true;
		rng.samplers = &cache;
		other.table_sampler = true;
		if (draws > 0)
			FUZZ_CHECK(dp_discrete_laplace(&rng, scale) == dp_discrete_laplace(&other, scale));
		/* more scales than the cache holds: it starts again, and still finds each */
		if (fill_cache)
		{
			for (int i = 0; i <= DP_SAMPLER_CACHE_SIZE; i++)
			{
				dp_scale	other_scale = {scale->numerator + (dp_uint128) i + 1,
				scale->denominator};
				const dp_laplace_table *found = dp_sampler_cache_laplace(&cache, &other_scale);

				FUZZ_CHECK(found->scale.numerator == other_scale.numerator);
			}
			FUZZ_CHECK(tables.resets >= 1);
		}
		fuzz_arena_release(&tables);
	}
	free(table);
}

/* ---- discrete Gaussian ---- */

/* floor(sqrt(n / d)) + 1, as dp_gaussian.c proposes from */
static dp_uint128
proposal_scale(const dp_scale *sigma2)
{
	dp_uint128	x = sigma2->numerator / sigma2->denominator;
	dp_uint128	root = (dp_uint128) sqrt((double) x);

	while (root * root > x)
		root--;
	while ((root + 1) * (root + 1) <= x)
		root++;
	return root + 1;
}

static void
acceptance(const dp_scale *sigma2, dp_uint128 a, int8_t where, uint64_t raw)
{
	dp_uint128	t = proposal_scale(sigma2);
	double		n = (double) sigma2->numerator;
	double		d = (double) sigma2->denominator;
	double		u = fabs((double) a * d * (double) t - n);
	double		x = u / (2 * n * d * (double) t * (double) t) * u;
	dp_uint128	magnitude;
	dp_random	rng;
	int			fast;

	if (where == -128 || !(x * 0x1p48 < 0x1p100))
		magnitude = raw;
	else
	{
		dp_int128	m = (dp_int128) floor(x * 0x1p48) + where / 16;

		magnitude = m < 0 ? 0 : (dp_uint128) m;
	}
	fuzz_rng(&rng);
	fast = dp_gaussian_acceptance_fast(a, sigma2, t, magnitude);
	FUZZ_CHECK(fast >= -1 && fast <= 1);
	{
		bool		exact = dp_gaussian_acceptance_exact(&rng, a, sigma2, t, magnitude);

		/* where the fast path decides, the exact comparison agrees */
		if (fast >= 0)
			FUZZ_CHECK(exact == (fast == 1));
	}
	fuzz_rng(&rng);
	(void) dp_gaussian_accept_constant_time(&rng, a, sigma2, t);
}

static void
gaussian(uint64_t sensitivity, double rho, int draws, bool constant_time, dp_uint128 a,
		 int8_t where, uint64_t raw)
{
	dp_scale	sigma2;
	dp_random	rng;
	fuzz_arena	tables = {{0}, 0, 0};
	dp_sampler_cache cache;

	if (dp_gaussian_scale_for(sensitivity, rho, &sigma2) != DP_SCALE_OK)
		return;
	FUZZ_CHECK(dp_gaussian_scale_valid(&sigma2));
	FUZZ_CHECK(dp_discrete_gaussian_variance(&sigma2) >= 0);
	fuzz_rng(&rng);
	rng.constant_time_gaussian = constant_time;
	if (draws % 2)
	{
		memset(&cache, 0, sizeof(cache));
		cache.allocate = fuzz_arena_allocate;
		cache.release_all = fuzz_arena_release;
		cache.context = &tables;
		rng.samplers = &cache;
	}
	for (int i = 0; i < draws; i++)
	{
		dp_int128	value = dp_discrete_gaussian(&rng, &sigma2);

		FUZZ_CHECK(value != DP_GAUSSIAN_INVALID_DRAW);
		FUZZ_CHECK(magnitude_of(value) <= DP_GAUSSIAN_DRAW_MAX);
	}
	acceptance(&sigma2, a, where, raw);
	fuzz_arena_release(&tables);
	{
		/* an invalid scale draws the invalid value, never noise that is too small */
		dp_scale	bad = {0, 1};

		FUZZ_CHECK(!dp_gaussian_scale_valid(&bad));
		FUZZ_CHECK(dp_discrete_gaussian(&rng, &bad) == DP_GAUSSIAN_INVALID_DRAW);
	}
}

/*
 * The Chernoff half-width and the variance of a weighted sum of groups: a
 * number (never negative) for valid groups and a miss in (0, 1), NaN for
 * invalid ones.
 */
static void
weighted_noise(const uint8_t *data, size_t size, const dp_scale *laplace_scale,
			   const dp_scale *gaussian_scale)
{
	dp_weighted_noise_group groups[4];
	uint8_t		count_byte = (uint8_t) fuzz_read_le(data, size, 60, 1);
	int			count = count_byte % 5 == 4 ? -1 : count_byte % 5;
	double		miss = fuzz_confidence((uint8_t) fuzz_read_le(data, size, 61, 1));
	bool		valid = count >= 0;

	memset(groups, 0, sizeof(groups));
	for (int i = 0; i < count; i++)
	{
		size_t		at = 62 + 17 * (size_t) i;
		uint8_t		family = (uint8_t) fuzz_read_le(data, size, at, 1);
		uint64_t	weight_bits = fuzz_read_le(data, size, at + 1, 8);
		dp_weighted_noise_group *group = &groups[i];

		group->family = (dp_noise_family) (family & 3);
		memcpy(&group->weight, &weight_bits, sizeof(double));
		group->terms = (int64_t) fuzz_read_le(data, size, at + 9, 8);
		if (family & 0x80)
			group->scale = (dp_scale) {0, 1};
		else
			group->scale = group->family == DP_FAMILY_GAUSSIAN ? *gaussian_scale : *laplace_scale;
		valid &= (group->family == DP_FAMILY_LAPLACE || group->family == DP_FAMILY_GAUSSIAN) &&
			group->scale.numerator != 0 && isfinite(group->weight) &&
			group->terms >= 0 && group->terms <= DP_WEIGHTED_NOISE_TERMS_MAX;
	}
	{
		double		variance = dp_weighted_noise_variance(groups, count);
		double		width = dp_weighted_noise_half_width_missing(groups, count, miss);

		FUZZ_CHECK(!(variance < 0) && !(width < 0));
		if (valid)
			FUZZ_CHECK(!isnan(variance));
		if (valid && miss > 0 && miss < 1)
			FUZZ_CHECK(!isnan(width));
		if (!valid)
			FUZZ_CHECK(isnan(width));
	}
	if (count > 0)
	{
		double		width = dp_weighted_noise_half_width_one(groups[0].family, &groups[0].scale,
															 groups[0].weight, groups[0].terms,
															 miss);

		FUZZ_CHECK(!(width < 0));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t		flags = (uint8_t) fuzz_read_le(data, size, 0, 1);
	uint64_t	sensitivity = 1 + fuzz_read_le(data, size, 1, 8) % DP_SENSITIVITY_MAX;
	double		epsilon = read_f64(data, size, 9);
	uint8_t		cell_byte = (uint8_t) fuzz_read_le(data, size, 17, 1);
	int			cell_bits = cell_byte >= 64 ? 64 : 1 + cell_byte;
	int			draws = (int) (fuzz_read_le(data, size, 18, 1) % 33);
	dp_uint128	a = fuzz_read_le(data, size, 19, 8) % (((uint64_t) 1 << 54) + 1);
	int8_t		where = (int8_t) fuzz_read_le(data, size, 27, 1);
	uint64_t	raw = fuzz_read_le(data, size, 28, 8);
	uint64_t	numerator = fuzz_read_le(data, size, 36, 8);
	uint64_t	denominator = fuzz_read_le(data, size, 44, 8);
	double		rr_epsilon = read_f64(data, size, 52);
	dp_random	rng;

	if (flags & 2)
		gaussian(sensitivity, epsilon, draws, (flags & 4) != 0, a, where, raw);
	else
	{
		dp_scale	scale;

		if (dp_scale_for(sensitivity, epsilon, &scale) == DP_SCALE_OK)
			laplace(&scale, cell_bits, draws, (flags & 1) != 0);
	}
	{
		dp_scale	laplace_scale;
		dp_scale	gaussian_scale;

		if (dp_scale_for(sensitivity, epsilon, &laplace_scale) == DP_SCALE_OK &&
			dp_gaussian_scale_for(sensitivity, epsilon, &gaussian_scale) == DP_SCALE_OK)
			weighted_noise(data, size, &laplace_scale, &gaussian_scale);
	}

	fuzz_rng(&rng);
	if (denominator != 0)
	{
		/* its domain is numerator <= denominator */
		int			bit = dp_bernoulli_exp_minus(&rng, numerator % (denominator + (dp_uint128) 1),
												 denominator);

		FUZZ_CHECK(bit == 0 || bit == 1);
	}
	{
		double		used;
		int			bit = dp_randomized_response(&rng, (int) (flags >> 7), rr_epsilon);

		if (dp_rr_epsilon(rr_epsilon, &used) == DP_OK)
			FUZZ_CHECK(bit == 0 || bit == 1);
		else
			FUZZ_CHECK(bit == -1);
	}
	return 0;
}
