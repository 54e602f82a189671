/*
 * test_mechanisms.c
 *		Every counting mechanism against error formulas written out here
 *		independently of the implementation (so a wrong noise scale, budget
 *		split or decomposition fails), through its stored forms, with its
 *		state checked for pan-privacy, and with consistent output checked
 *		for its invariants.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "tap.h"
#include "test_support.h"

static dp_random rng;

static double
scale_of(uint64_t sensitivity, double epsilon)
{
	dp_scale	scale;

	dp_scale_for(sensitivity, epsilon, &scale);
	return dp_scale_as_double(&scale);
}

/* The noise of a release as the test expects it: groups of one scale. */
#define EXPECTED_GROUPS 8
typedef struct expected_noise
{
	double		scale[EXPECTED_GROUPS];
	int64_t		terms[EXPECTED_GROUPS];
} expected_noise;

static int64_t
ceil_log2(int64_t x)
{
	int64_t		levels = 0;

	while ((((int64_t) 1) << levels) < x)
		levels++;
	return levels;
}

/* The formulas of docs/mechanisms.md, one per mechanism. */
static expected_noise
expected_for(const dp_mechanism *m, int64_t t)
{
	expected_noise e = {{1, 1, 1, 1, 1, 1, 1, 1}, {0}};
	uint64_t	n = (uint64_t) m->max_per_step;
	int			pan = (m->flags & DP_FLAG_PAN_PRIVATE) ? 2 : 1;

	switch (m->kind)
	{
		case DP_MECHANISM_BINARY:
			{
				int			levels = (int) ceil_log2(m->horizon + 1);	/* floor(log2 T) + 1 */

				e.scale[0] = scale_of(levels * n, m->epsilon);
				e.terms[0] = __builtin_popcountll((uint64_t) t) * pan;
			}
			break;
		case DP_MECHANISM_SIMPLE_I:
			{
				int64_t		c = ((int64_t) 1) << (int) lround(2.0 / 3.0 * log2((double) (m->horizon - 1)));

				e.scale[0] = scale_of(n * (1 + c), m->epsilon);
				e.terms[0] = 1;
				e.scale[1] = scale_of(n * (uint64_t) (m->horizon - 1 + (m->horizon - 1 + c - 1) / c),
									  m->epsilon);
				e.terms[1] = 1;
			}
			break;
		case DP_MECHANISM_SIMPLE_II:
			e.scale[0] = scale_of(n, m->epsilon);
			e.terms[0] = t;
			break;
		case DP_MECHANISM_TWO_LEVEL:
			e.scale[0] = scale_of(2 * n, m->epsilon);
			e.terms[0] = (t / m->block) * pan + t % m->block;
			break;
		case DP_MECHANISM_HYBRID:
			{
				int			k = 0;

				while ((((int64_t) 2) << k) <= t + 1)
					k++;		/* blocks 0 .. k-1 are complete */
				e.scale[0] = scale_of(2 * n, m->epsilon);
				e.terms[0] = (int64_t) k * pan;
				e.scale[1] = scale_of(2 * (uint64_t) (k + 1) * n, m->epsilon);
				e.terms[1] = __builtin_popcountll((uint64_t) (t + 1 - (((int64_t) 1) << k))) * pan;
			}
			break;
		case DP_MECHANISM_KARY:
			{
				/* L = base-k digits of T; one term per unit of each digit of t */
				int			levels = 0;
				int64_t		terms = 0;

				for (int64_t rest = m->horizon; rest > 0; rest /= m->block)
					levels++;
				for (int64_t rest = t; rest > 0; rest /= m->block)
					terms += rest % m->block;
				e.scale[0] = scale_of((uint64_t) levels * n, m->epsilon);
				e.terms[0] = terms * pan;
			}
			break;
		case DP_MECHANISM_BALANCED:
			{
				/* L: least with (k^L - 1) / 2 >= T; one term per unit of |d_j| */
				int64_t		k = m->block,
							h = (k - 1) / 2,
							power = 1,
							rest = t,
							terms = 0;
				int			levels = 0;

				while ((power - 1) / 2 < m->horizon || levels == 0)
				{
					power *= k;
					levels++;
				}
				for (int j = 0; j < levels; j++)
				{
					int64_t		d = rest % k;

					if (d > h)
						d -= k;
					terms += d < 0 ? -d : d;
					rest = (rest - d) / k;
				}
				e.scale[0] = scale_of((uint64_t) levels * n, m->epsilon);
				e.terms[0] = terms;
			}
			break;
		case DP_MECHANISM_BALANCED_UNBOUNDED:
			{
				/*
				 * Blocks of m k^b steps, m = max(1, round(k / 5)): m terms
				 * of scale (b + 1) N / epsilon per closed block b, and the
				 * open block's balanced digits at its own scale.
				 */
				int64_t		k = m->block,
							multiplier = (k + 2) / 5 < 1 ? 1 : (k + 2) / 5,
							start = 0,
							length = multiplier;
				int			block = 0;

				while (start + length < t)
				{
					e.scale[block] = scale_of((uint64_t) (block + 1) * n, m->epsilon);
					e.terms[block] = multiplier;
					start += length;
					length *= k;
					block++;
				}
				e.scale[block] = scale_of((uint64_t) (block + 1) * n, m->epsilon);
				e.terms[block] = test_balanced_terms(t - start, k);
			}
			break;
		case DP_MECHANISM_ROLLING:
			{
				/*
				 * `levels` levels (at most floor(log2 W) + 1); the window
				 * (t - W, t] is the union of its maximal dyadic intervals of
				 * at most 2^(levels - 1) steps, counted here from the right
				 * end (the mechanism decomposes from the left).
				 */
				int64_t		levels = (int64_t) m->shape,
							a = t > m->block ? t - m->block : 0,
							y = t,
							terms = 0;

				while (y > a)
				{
					int64_t		length = 1;

					while (y % (2 * length) == 0 && y - 2 * length >= a &&
						   2 * length <= (((int64_t) 1) << (levels - 1)))
						length *= 2;
					y -= length;
					terms++;
				}
				e.scale[0] = scale_of((uint64_t) levels * n, m->epsilon);
				e.terms[0] = terms * pan;
			}
			break;
		case DP_MECHANISM_PPCUM:
			{
				int64_t		levels = ceil_log2(m->horizon);

				e.scale[0] = scale_of((uint64_t) (levels + 1) * n, m->epsilon);
				e.terms[0] = levels + 1;
			}
			break;
	}
	return e;
}

typedef struct config
{
	const char *label;
	dp_mechanism mechanism;
	int64_t		steps;			/* stream length used by the test */
	int64_t		points[4];		/* steps at which the error is checked; 0 ends */
} config;

#define M(kind_, eps_, horizon_, n_, block_, flags_) \
	{.kind = (kind_), .flags = (flags_), .epsilon = (eps_), .horizon = (horizon_), \
	 .max_per_step = (n_), .block = (block_)}
/* the same with a real parameter (the rolling window's levels) */
#define MS(kind_, eps_, horizon_, n_, block_, flags_, shape_) \
	{.kind = (kind_), .flags = (flags_), .epsilon = (eps_), .horizon = (horizon_), \
	 .max_per_step = (n_), .block = (block_), .shape = (shape_)}

static const config configs[] = {
	{"simple_i T=64", M(DP_MECHANISM_SIMPLE_I, 1.0, 64, 1, 0, 0), 64, {1, 30, 64}},
	{"simple_ii N=2", M(DP_MECHANISM_SIMPLE_II, 1.0, 0, 2, 0, 0), 160, {1, 50, 160}},
	{"two_level T=100 B=10", M(DP_MECHANISM_TWO_LEVEL, 1.0, 100, 1, 10, 0), 100, {7, 10, 57, 100}},
	{"two_level pan-private", M(DP_MECHANISM_TWO_LEVEL, 0.5, 100, 3, 7, DP_FLAG_PAN_PRIVATE), 100, {6, 14, 99}},
	{"hybrid", M(DP_MECHANISM_HYBRID, 1.0, 0, 1, 0, 0), 100, {1, 2, 6, 100}},
	{"hybrid pan-private N=4", M(DP_MECHANISM_HYBRID, 2.0, 0, 4, 0, DP_FLAG_PAN_PRIVATE), 40, {3, 7, 40}},
	{"ppcum T=100", M(DP_MECHANISM_PPCUM, 1.0, 100, 1, 0, 0), 100, {1, 37, 100}},
	{"binary pan-private T=64", M(DP_MECHANISM_BINARY, 1.0, 64, 1, 0, DP_FLAG_PAN_PRIVATE), 64, {3, 63, 64}},
	/* T = 100, k = 5: 3 digits; 24 = (0,4,4) has 8 terms, 25 = (1,0,0) one, 99 = (3,4,4) 11 */
	{"kary T=100 k=5", M(DP_MECHANISM_KARY, 1.0, 100, 2, 5, 0), 100, {24, 25, 99, 100}},
	{"kary pan-private T=300 k=7", M(DP_MECHANISM_KARY, 1.0, 300, 1, 7, DP_FLAG_PAN_PRIVATE), 300, {6, 49, 299}},
	/* T = 100, k = 5: 3 balanced digits; 2 = (1,-2) has 3 terms, 62 = (2,2,2) 6, 63 = (2,3-5..) */
	{"balanced T=100 k=5", M(DP_MECHANISM_BALANCED, 1.0, 100, 2, 5, 0), 100, {2, 13, 62, 100}},
	{"balanced consistent T=300 k=7", M(DP_MECHANISM_BALANCED, 1.0, 300, 1, 7, DP_FLAG_CONSISTENT), 300, {4, 171, 300}},
	/* k = 5, m = 1: blocks of 1, 5, 25, 125 steps end at 1, 6, 31, 156 */
	{"balanced_unbounded k=5", M(DP_MECHANISM_BALANCED_UNBOUNDED, 1.0, 0, 2, 5, 0), 200, {1, 6, 31, 200}},
	/* k = 21, m = 4: blocks of 4, 84, 1764 steps end at 4, 88, 1852 */
	{"balanced_unbounded k=21 consistent", M(DP_MECHANISM_BALANCED_UNBOUNDED, 0.5, 0, 1, 21, DP_FLAG_CONSISTENT), 400, {3, 4, 88, 400}},
	/* W = 7, the full tree: 3 levels; (13, 20] = (13,14] (14,16] (16,20]: 3 terms, (33, 40] 3, (0, 3] 2 */
	{"rolling W=7 N=2 levels=3", MS(DP_MECHANISM_ROLLING, 1.0, 0, 2, 7, 0, 3), 40, {3, 7, 20, 40}},
	/* W = 7, one level: every step its own node, 7 terms once t >= 7 */
	{"rolling W=7 N=2 levels=1", MS(DP_MECHANISM_ROLLING, 1.0, 0, 2, 7, 0, 1), 40, {3, 7, 20, 40}},
	/* W = 28, 3 levels: pieces of at most 4 steps; (12, 40] = 7 pieces of 4 */
	{"rolling W=28 levels=3", MS(DP_MECHANISM_ROLLING, 1.0, 0, 1, 28, 0, 3), 80, {5, 28, 40, 77}},
	/* W = 365: the full tree (9 levels), the error flat in t once t >= W */
	{"rolling W=365 pan-private levels=9", MS(DP_MECHANISM_ROLLING, 0.5, 0, 1, 365, DP_FLAG_PAN_PRIVATE, 9), 400, {1, 256, 365, 400}},
	/* W = 365, 5 levels: pieces of at most 16 steps */
	{"rolling W=365 levels=5", MS(DP_MECHANISM_ROLLING, 1.0, 0, 1, 365, 0, 5), 400, {17, 365, 383, 400}},
};

#define TRIALS 20000

/*
 * Over TRIALS seeded streams of random values in [0, N], the error at each
 * point has mean 0 and the variance of the expected noise; bands are for
 * p = 1e-6 from the exact second and fourth moments.  The implementation's
 * own noise description (dp_counter_noise_variance) must agree too.
 */
static void
test_error_formula(const config *c)
{
	dp_counter *counter = test_start_counter(&c->mechanism, &rng);
	double		sum[4] = {0}, sum_sq[4] = {0};
	double		implementation_variance[4] = {0};

	int64_t    *values = calloc((size_t) c->steps + 1, sizeof(int64_t));
	bool		rolling = c->mechanism.kind == DP_MECHANISM_ROLLING;

	for (int trial = 0; trial < TRIALS; trial++)
	{
		int64_t		truth = 0;
		int			next = 0;
		const char *field;

		dp_counter_start(counter, &c->mechanism, &rng, &field);
		for (int64_t t = 1; t <= c->steps; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) c->mechanism.max_per_step + 1);

			dp_counter_push(counter, value, &rng);
			truth += value;
			/* a rolling release sums the last W steps only */
			values[t] = value;
			if (rolling && t > c->mechanism.block)
				truth -= values[t - c->mechanism.block];
			if (next < 4 && c->points[next] == t)
			{
				double		error = (double) (counter->release - truth);

				sum[next] += error;
				sum_sq[next] += error * error;
				if (trial == 0)
					implementation_variance[next] = dp_counter_noise_variance(counter);
				next++;
			}
		}
	}

	for (int i = 0; i < 4 && c->points[i] != 0; i++)
	{
		expected_noise e = expected_for(&c->mechanism, c->points[i]);
		double		variance = 0, excess_fourth = 0;
		double		mean = sum[i] / TRIALS, second = sum_sq[i] / TRIALS;
		double		spread;

		for (int g = 0; g < EXPECTED_GROUPS; g++)
		{
			double		v, m4;

			if (e.terms[g] == 0)
				continue;
			discrete_laplace_moments(e.scale[g], &v, &m4);
			variance += e.terms[g] * v;
			excess_fourth += e.terms[g] * (m4 - 3 * v * v);
		}
		/* Var of the squared error: sum k (m4 - 3 v^2) + 2 (sum k v)^2 */
		spread = sqrt((excess_fourth + 2 * variance * variance) / TRIALS);
		tap_ok(fabs(second - variance) <= Z_TWO_SIDED_1E6 * spread &&
			   fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(variance / TRIALS),
			   "%s, t = %lld: error mean %.2f, variance %.1f vs formula %.1f "
			   "(%lld x b=%.3g + %lld x b=%.3g), band +-%.1f",
			   c->label, (long long) c->points[i], mean, second, variance,
			   (long long) e.terms[0], e.scale[0], (long long) e.terms[1], e.scale[1],
			   Z_TWO_SIDED_1E6 * spread);
		tap_ok(fabs(implementation_variance[i] - variance) <= 1e-9 * variance,
			   "%s, t = %lld: the mechanism's own noise description agrees (%.6g)",
			   c->label, (long long) c->points[i], implementation_variance[i]);
	}
	free(counter);
	free(values);
}

/*
 * Storing and continuing changes nothing: a counter rebuilt from either
 * stored form, fed the same values with a copy of the same noise source,
 * makes exactly the releases of the original.
 */
static void
test_continuation(const config *c)
{
	dp_counter *original = test_start_counter(&c->mechanism, &rng);
	size_t		size = dp_counter_size(&c->mechanism);
	dp_counter *from_binary = malloc(size);
	dp_counter *from_text = malloc(size);
	int			mismatches = 0;
	int			failures = 0;

	for (int64_t stop = 0; stop < c->steps; stop += 1 + stop / 3)
	{
		const char *field;
		unsigned char *bytes;
		char	   *text;
		dp_parse_error error;
		dp_mechanism parsed;
		dp_random	copy_a, copy_b;

		dp_counter_start(original, &c->mechanism, &rng, &field);
		for (int64_t t = 1; t <= stop; t++)
			dp_counter_push(original, (int64_t) dp_random_below(&rng, 5), &rng);

		bytes = malloc(dp_counter_serialized_size(original));
		dp_counter_serialize(original, bytes);
		text = malloc(dp_counter_text_size(original));
		dp_counter_to_text(original, text);
		failures += dp_counter_deserialize(bytes, dp_counter_serialized_size(original),
										   from_binary, size, &error) != DP_OK;
		failures += dp_counter_parse(text, &parsed, from_text, size, &error) != DP_OK;
		free(bytes);
		free(text);
		if (failures)
			break;
		mismatches += dp_counter_release(from_binary) != dp_counter_release(original);
		mismatches += dp_counter_release(from_text) != dp_counter_release(original);

		for (int64_t t = stop + 1; t <= c->steps; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, 5);

			copy_a = rng;
			copy_b = rng;
			dp_counter_push(original, value, &rng);
			dp_counter_push(from_binary, value, &copy_a);
			dp_counter_push(from_text, value, &copy_b);
			mismatches += dp_counter_release(from_binary) != dp_counter_release(original);
			mismatches += dp_counter_release(from_text) != dp_counter_release(original);
		}
	}
	tap_ok(failures == 0 && mismatches == 0,
		   "%s: stored at every point and continued, binary and text forms give the "
		   "original's releases (%d failures, %d mismatches)", c->label, failures, mismatches);
	free(original);
	free(from_binary);
	free(from_text);
}

/*
 * The stored accumulator of each mechanism differs from the raw partial sum
 * it covers by noise of the stated scale: mean 0 and exact variance.
 */
static void
test_stored_accumulator(const char *label, dp_mechanism mechanism, int node,
						int64_t steps, int64_t covered_from, double scale)
{
	dp_counter *counter = test_start_counter(&mechanism, &rng);
	double		sum = 0, sum_sq = 0, variance, fourth;

	for (int trial = 0; trial < TRIALS; trial++)
	{
		const char *field;
		int64_t		covered = 0;
		dp_int128	persisted[DP_COUNTER_MAX_NODES];
		double		difference;

		dp_counter_start(counter, &mechanism, &rng, &field);
		for (int64_t t = 1; t <= steps; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) mechanism.max_per_step + 1);

			dp_counter_push(counter, value, &rng);
			if (t >= covered_from)
				covered += value;
		}
		dp_counter_persisted_nodes(counter, persisted);
		difference = (double) (persisted[node] - covered);
		sum += difference;
		sum_sq += difference * difference;
	}
	discrete_laplace_moments(scale, &variance, &fourth);
	tap_ok(fabs(sum / TRIALS) <= Z_TWO_SIDED_1E6 * sqrt(variance / TRIALS) &&
		   fabs(sum_sq / TRIALS - variance) <=
		   Z_TWO_SIDED_1E6 * sqrt((fourth - variance * variance) / TRIALS),
		   "%s: stored node %d = raw sum of steps %lld..%lld + noise (mean %.3f, "
		   "variance %.2f vs %.2f)", label, node, (long long) covered_from,
		   (long long) steps, sum / TRIALS, sum_sq / TRIALS, variance);
	free(counter);
}

static void
test_stored_accumulators(void)
{
	test_stored_accumulator("two_level", (dp_mechanism) M(DP_MECHANISM_TWO_LEVEL, 1.0, 100, 2, 10, 0),
							1, 27, 21, scale_of(4, 1.0));
	test_stored_accumulator("hybrid", (dp_mechanism) M(DP_MECHANISM_HYBRID, 1.0, 0, 1, 0, 0),
							1, 21, 16, scale_of(2, 1.0));
	test_stored_accumulator("ppcum", (dp_mechanism) M(DP_MECHANISM_PPCUM, 1.0, 16, 1, 0, 0),
							0, 11, 1, scale_of(5, 1.0));
	test_stored_accumulator("simple_i", (dp_mechanism) M(DP_MECHANISM_SIMPLE_I, 1.0, 28, 1, 0, 0),
							0, 9, 1, scale_of(1 + 8, 1.0));	/* c = 2^round(2/3 log2 27) = 8 */
}

/*
 * Neighbouring streams (0, 0) and (0, 1) through PPCum with T = 2: the
 * releases at steps 1 and 2 and the stored accumulator after step 2 have
 * probabilities within e^epsilon of each other, cell by cell, over two
 * million runs each.  The counts' one-sided band uses z = 6 (p = 1e-6
 * across up to a thousand cells).  The same check run against a mechanism
 * with twice the epsilon must find a violation: the test can fail.
 */
#define HISTOGRAM_RUNS 2000000
#define HISTOGRAM_SPAN 8
#define HISTOGRAM_CELLS ((2 * HISTOGRAM_SPAN + 1) * (2 * HISTOGRAM_SPAN + 1) * (2 * HISTOGRAM_SPAN + 1))

static int
histogram_cell(dp_int128 a, dp_int128 b, dp_int128 c)
{
	const dp_int128 span = HISTOGRAM_SPAN;

	if (a < -span || a > span || b < -span || b > span || c < -span || c > span)
		return -1;
	return (int) (((a + span) * (2 * span + 1) + (b + span)) * (2 * span + 1) + (c + span));
}

static void
ppcum_view_histogram(double epsilon, int64_t last, long *counts)
{
	dp_mechanism mechanism = M(DP_MECHANISM_PPCUM, epsilon, 2, 1, 0, 0);
	dp_counter *counter = test_start_counter(&mechanism, &rng);

	memset(counts, 0, sizeof(long) * HISTOGRAM_CELLS);
	for (long run = 0; run < HISTOGRAM_RUNS; run++)
	{
		const char *field;
		dp_int128	first_release;
		int			cell;

		dp_counter_start(counter, &mechanism, &rng, &field);
		dp_counter_push(counter, 0, &rng);
		first_release = counter->release;
		dp_counter_push(counter, last, &rng);
		cell = histogram_cell(first_release, counter->release, counter->nodes[0]);
		if (cell >= 0)
			counts[cell]++;
	}
	free(counter);
}

/* Number of cells where one count exceeds e^epsilon times the other beyond the band. */
static int
privacy_violations(const long *a, const long *b, double epsilon, double *worst_ratio)
{
	int			violations = 0;
	double		factor = exp(epsilon);

	*worst_ratio = 0;
	for (int cell = 0; cell < HISTOGRAM_CELLS; cell++)
	{
		for (int direction = 0; direction < 2; direction++)
		{
			double		high = (double) (direction ? a[cell] : b[cell]);
			double		low = (double) (direction ? b[cell] : a[cell]);

			if (low >= 1000 && high / low > *worst_ratio)
				*worst_ratio = high / low;
			if (high - factor * low > 6.0 * sqrt(high + factor * factor * low))
				violations++;
		}
	}
	return violations;
}

static void
test_neighbouring_views(void)
{
	long	   *zero = malloc(sizeof(long) * HISTOGRAM_CELLS);
	long	   *one = malloc(sizeof(long) * HISTOGRAM_CELLS);
	double		worst;
	int			violations;

	ppcum_view_histogram(1.0, 0, zero);
	ppcum_view_histogram(1.0, 1, one);
	violations = privacy_violations(zero, one, 1.0, &worst);
	tap_ok(violations == 0 && worst > exp(1.0) * 0.9,
		   "ppcum: releases and stored state of neighbouring streams within e^epsilon "
		   "in every cell (worst ratio %.3f, e^1 = %.3f)", worst, exp(1.0));

	ppcum_view_histogram(2.0, 0, zero);
	ppcum_view_histogram(2.0, 1, one);
	violations = privacy_violations(zero, one, 1.0, &worst);
	tap_ok(violations > 0,
		   "negative control: the same check finds %d cells beyond e^1 when the noise "
		   "is for epsilon = 2 (worst ratio %.3f)", violations, worst);
	free(zero);
	free(one);
}

/*
 * Consistent output: over many seeded streams, releases are non-decreasing
 * integers, start at 0 before the first step, grow by at most N per step,
 * and each is computed from the previous one and the raw release alone.
 */
static void
test_consistent_output(void)
{
	static const dp_mechanism mechanisms[] = {
		M(DP_MECHANISM_BINARY, 0.5, 300, 3, 0, DP_FLAG_CONSISTENT),
		M(DP_MECHANISM_SIMPLE_I, 0.5, 300, 3, 0, DP_FLAG_CONSISTENT),
		M(DP_MECHANISM_SIMPLE_II, 0.5, 0, 3, 0, DP_FLAG_CONSISTENT),
		M(DP_MECHANISM_TWO_LEVEL, 0.5, 300, 3, 18, DP_FLAG_CONSISTENT | DP_FLAG_PAN_PRIVATE),
		M(DP_MECHANISM_HYBRID, 0.5, 0, 3, 0, DP_FLAG_CONSISTENT),
		M(DP_MECHANISM_PPCUM, 0.5, 300, 3, 0, DP_FLAG_CONSISTENT),
	};

	for (size_t i = 0; i < sizeof(mechanisms) / sizeof(mechanisms[0]); i++)
	{
		dp_counter *counter = test_start_counter(&mechanisms[i], &rng);
		long		broken = 0, lagging = 0;

		for (int stream = 0; stream < 200; stream++)
		{
			const char *field;
			int64_t		previous = 0;

			dp_counter_start(counter, &mechanisms[i], &rng, &field);
			for (int t = 1; t <= 300; t++)
			{
				int64_t		raw, consistent, expected;

				dp_counter_push(counter, (int64_t) dp_random_below(&rng, 4), &rng);
				raw = dp_int128_to_int64_saturated(counter->release);
				consistent = dp_counter_release(counter);
				expected = raw > previous ? previous + (raw - previous < 3 ? raw - previous : 3) : previous;
				broken += consistent < previous || consistent > previous + 3 || consistent != expected;
				lagging += consistent != raw;
				previous = consistent;
			}
		}
		tap_ok(broken == 0,
			   "%s consistent: 200 streams x 300 steps non-decreasing, increments in "
			   "[0, 3], each from the previous one and the raw release (%ld broken; "
			   "%ld of 60000 releases differ from the raw one)",
			   counter->kind->name, broken, lagging);
		free(counter);
	}
}

/*
 * Interval half-widths: against brute-force convolution of the exact
 * distributions for two groups (small scales, so the lattice step is 1 and
 * the answer must be exact), and the many-terms expansion against the exact
 * closed form where both apply.
 */
static void
brute_force_pmf(double b, int terms, int span, double *pmf)
{
	/* pmf[z + span] for |z| <= span of a sum of `terms` discrete Laplace(b) */
	double		q = exp(-1.0 / b);
	double	   *single = calloc(2 * span + 1, sizeof(double));
	double	   *next = calloc(2 * span + 1, sizeof(double));

	for (int z = -span; z <= span; z++)
		single[z + span] = (1 - q) / (1 + q) * pow(q, abs(z));
	memset(pmf, 0, sizeof(double) * (2 * span + 1));
	pmf[span] = 1;
	for (int k = 0; k < terms; k++)
	{
		memset(next, 0, sizeof(double) * (2 * span + 1));
		for (int a = -span; a <= span; a++)
			for (int z = -span; z <= span; z++)
				if (a + z >= -span && a + z <= span)
					next[a + z + span] += pmf[a + span] * single[z + span];
		memcpy(pmf, next, sizeof(double) * (2 * span + 1));
	}
	free(single);
	free(next);
}

static void
test_half_widths(void)
{
	enum
	{
		SPAN = 400
	};
	static double x[2 * SPAN + 1], y[2 * SPAN + 1];
	struct
	{
		uint64_t	sensitivity[2];
		int			terms[2];
		double		confidence;
	}			cases[] = {
		{{2, 8}, {3, 2}, 0.95}, {{1, 5}, {1, 1}, 0.9}, {{3, 3}, {2, 4}, 0.99}, {{6, 2}, {1, 5}, 0.95},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		dp_noise_group groups[2] = {0};	/* family 0: Laplace */
		double		w;
		double		outside_w = 0, outside_below = 0;

		for (int g = 0; g < 2; g++)
		{
			dp_scale_for(cases[i].sensitivity[g], 1.0, &groups[g].scale);
			groups[g].terms = cases[i].terms[g];
			groups[g].weight = 1.0;
		}
		brute_force_pmf(dp_scale_as_double(&groups[0].scale), cases[i].terms[0], SPAN, x);
		brute_force_pmf(dp_scale_as_double(&groups[1].scale), cases[i].terms[1], SPAN, y);
		w = dp_noise_sum_half_width(groups, 2, cases[i].confidence);
		for (int a = -SPAN; a <= SPAN; a++)
			for (int b = -SPAN; b <= SPAN; b++)
			{
				double		p = x[a + SPAN] * y[b + SPAN];

				outside_w += fabs((double) (a + b)) > w ? p : 0;
				outside_below += fabs((double) (a + b)) > w - 1 ? p : 0;
			}
		tap_ok(outside_w <= 1 - cases[i].confidence && outside_below > 1 - cases[i].confidence,
			   "two groups (%d x b=%g) + (%d x b=%g): half-width %.0f at %.2f is the exact one "
			   "(P outside %.5f, at w - 1 %.5f)", cases[i].terms[0],
			   dp_scale_as_double(&groups[0].scale), cases[i].terms[1],
			   dp_scale_as_double(&groups[1].scale), w, cases[i].confidence, outside_w,
			   outside_below);
	}

	{
		/* large scales: the lattice is coarse, the answer never below the exact one */
		dp_noise_group groups[2] = {0};
		dp_noise_group single = {0};
		double		w, lower;

		dp_scale_for(1000000, 1.0, &groups[0].scale);
		groups[0].terms = 3;
		groups[0].weight = 1.0;
		groups[1] = groups[0];
		groups[1].terms = 4;
		single = groups[0];
		single.terms = 7;
		w = dp_noise_sum_half_width(groups, 2, 0.95);
		lower = dp_noise_sum_half_width(&single, 1, 0.95);
		tap_ok(w >= lower && w - lower <= 1e-3 * lower,	/* the accuracy dp_noise.h states */
			   "two groups of one scale (3 + 4 terms, b = 1e6): %.0f vs exact %.0f for 7 terms "
			   "(never below, within 0.1%%)", w, lower);
	}

	for (int k = 100; k <= 128; k += 28)
	{
		dp_noise_group group = {0};
		double		exact, expansion;

		dp_scale_for(3, 1.0, &group.scale);
		group.terms = k;
		group.weight = 1.0;
		exact = dp_discrete_laplace_sum_half_width(&group.scale, k, 0.95);
		expansion = dp_noise_sum_half_width_expansion(&group.scale, k, 0.95);
		tap_ok(fabs(expansion - exact) <= 1e-3 * exact + 1,
			   "many terms: Cornish-Fisher %.0f vs exact %.0f at %d terms (within 0.1%% + 1)",
			   expansion, exact, k);
	}
}

/*
 * Every class of every mechanism gets at least its nominal scale
 * l1 U d / epsilon, also at the smallest epsilon accepted: a budget share
 * must never take epsilon below the range the scale can be computed in
 * (it once gave Hybrid scale 1 at epsilon below 2^-39).
 */
static void
test_class_scales_never_below_nominal(void)
{
	static const char *const texts[] = {
		"binary(epsilon=%s,horizon=1000,max_per_step=1)", "simple_i(epsilon=%s,horizon=1000,max_per_step=1)",
		"simple_ii(epsilon=%s,max_per_step=1)", "two_level(epsilon=%s,horizon=1000,max_per_step=1)",
		"hybrid(epsilon=%s,max_per_step=1)", "ppcum(epsilon=%s,horizon=1000,max_per_step=1)",
		"kary(epsilon=%s,horizon=1000,max_per_step=1)", "balanced(epsilon=%s,horizon=1000,max_per_step=1)",
		"balanced_unbounded(epsilon=%s,max_per_step=1)", "honaker(epsilon=%s,horizon=1000,max_per_step=1)",
	};
	static const char *const epsilons[] = {"9.094947017729282e-13", "0.3", "100"};
	int			failures = 0,
				checked = 0;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		for (size_t e = 0; e < sizeof(epsilons) / sizeof(epsilons[0]); e++)
		{
			char		text[200];
			const char *cursor = text;
			dp_mechanism m;
			dp_parse_error error;
			const char *field;
			dp_counter *counter;

			snprintf(text, sizeof(text), texts[i], epsilons[e]);
			if (dp_mechanism_parse(&cursor, &m, &error) != DP_OK ||
				dp_mechanism_validate(&m, &field) != DP_OK)
			{
				failures++;
				tap_diag("%s does not validate", text);
				continue;
			}
			counter = malloc(dp_counter_size(&m));
			if (dp_counter_prepare(counter, &m, &field) != DP_OK)
			{
				failures++;
				tap_diag("%s: no counter (%s)", text, field);
				free(counter);
				continue;
			}
			for (int index = 0; index < 64; index++)
			{
				dp_noise_class class;
				double		nominal;

				if (!counter->kind->noise_class(&m, index, &class))
					break;
				nominal = (double) class.l1_units * (double) dp_mechanism_unit_bound(&m) *
					(double) class.share_denominator / m.epsilon;
				{
					dp_scale	scale = dp_counter_class_scale(counter, index);

					checked++;
					if (dp_scale_as_double(&scale) < nominal * (1 - 1e-12))
					{
						failures++;
						tap_diag("%s class %d: scale %g below nominal %g", text, index,
								 dp_scale_as_double(&scale), nominal);
					}
				}
			}
			free(counter);
		}
	tap_ok(failures == 0, "every class of every mechanism at epsilon 2^-40, 0.3 and 100 has at "
		   "least its nominal scale (%d classes checked)", checked);
}

/*
 * The last blocks of an unbounded balanced stream: for arity 7 block 23
 * starts below 2^62 although 7^23 passes int64 (a forged or very long
 * state gets there); its powers saturate, so pushing there is defined (the
 * sanitizer build checks it) and counts correctly.
 */
static void
test_last_block_powers(void)
{
	dp_mechanism m = M(DP_MECHANISM_BALANCED_UNBOUNDED, 1.0, 0, 1, 7, 0);
	dp_counter *counter = malloc(dp_counter_size(&m));
	const char *field;
	dp_status	status = DP_OK;

	dp_counter_start(counter, &m, &rng, &field);
	memset(counter->nodes, 0, sizeof(dp_int128) * (size_t) counter->node_count);
	counter->steps = 4561457890013486057 - 2;
	counter->kind->resume(counter);
	for (int i = 0; i < 4 && status == DP_OK; i++)
		status = dp_counter_push(counter, 1, &rng);
	tap_ok(status == DP_OK && counter->steps == 4561457890013486057 + 2,
		   "balanced_unbounded k = 7: pushes across the start of block 23 (7^23 > 2^63) are defined");
	free(counter);
}

/*
 * The rolling kind with one level updates its release from the last one
 * (the window sum kept in the counter's memo): at every step, including
 * past the window's first wrap, it must equal the sum over the whole
 * window taken by a copy without the memo that draws the same noise.
 */
static void
test_rolling_memo(void)
{
	static const dp_mechanism mechanisms[] = {
		MS(DP_MECHANISM_ROLLING, 1.0, 0, 3, 7, 0, 1),
		MS(DP_MECHANISM_ROLLING, 0.5, 0, 1, 28, DP_FLAG_PAN_PRIVATE, 1),
		MS(DP_MECHANISM_ROLLING, 1.0, 0, 5, 1, 0, 1),
	};

	for (size_t i = 0; i < sizeof(mechanisms) / sizeof(mechanisms[0]); i++)
	{
		size_t		size = dp_counter_size(&mechanisms[i]);
		dp_counter *counter = test_start_counter(&mechanisms[i], &rng);
		dp_counter *copy = malloc(size);
		bool		same = true;

		for (int64_t t = 1; t <= 100 && same; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) mechanisms[i].max_per_step + 1);
			dp_random	rng_copy = rng;

			memcpy(copy, counter, size);
			copy->memo_step = -1;
			dp_counter_push(counter, value, &rng);
			dp_counter_push(copy, value, &rng_copy);
			same = counter->release == copy->release && counter->memo_step == t &&
				memcmp(counter->nodes, copy->nodes, (size_t) counter->kind_nodes * sizeof(dp_int128)) == 0;
		}
		tap_ok(same, "rolling W = %lld levels = 1%s: the release kept from the step before equals the window's sum at each of 100 steps",
			   (long long) mechanisms[i].block,
			   (mechanisms[i].flags & DP_FLAG_PAN_PRIVATE) ? " pan-private" : "");
		free(copy);
		free(counter);
	}
}

int
main(void)
{
	static const char seed[] = "dp_stream unit test: all mechanisms";

	if (!dp_random_library_init())
	{
		printf("Bail out! libsodium failed to initialise\n");
		return 1;
	}
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	test_class_scales_never_below_nominal();
	test_last_block_powers();

	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
	{
		test_error_formula(&configs[i]);
		test_continuation(&configs[i]);
	}
	test_stored_accumulators();
	test_neighbouring_views();
	test_consistent_output();
	test_half_widths();
	test_rolling_memo();
	return tap_done();
}
