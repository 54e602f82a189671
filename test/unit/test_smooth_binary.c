/*
 * test_smooth_binary.c
 *		The Smooth Binary mechanism (Andersson and Pagh, NeurIPS 2023),
 *		rho-zCDP: its design (h, k) against an independent search, releases
 *		that count every item exactly once at every step, an error that is
 *		unbiased with the variance k Var(N_Z(0, (h - k) U^2 / (2 rho))) at
 *		every t, the exact mean variance against Gaussian Binary, storing and
 *		continuing at every step, the largest horizon, and refusals.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_counter.h"
#include "dp_gaussian.h"
#include "tap.h"
#include "test_support.h"

#define TRIALS 8000
/* C(62, 31): one more than the largest horizon */
#define C_62_31 465428353255261088LL

static dp_random rng;

/*
 * The design written out independently: for each k, the least h with
 * C(h, k) > T (binomials by the multiplicative formula in 128 bits), then
 * the least k (h - k), ties to the least h and then the least k.
 */
static int
reference_design(int64_t horizon, int *height, int *ones)
{
	int64_t		best = -1;

	for (int k = 1; k < 62; k++)
	{
		unsigned __int128 c = 1;	/* C(h, k), from h = k */

		for (int h = k; h <= 62; h++)
		{
			if (h > k && c > (unsigned __int128) horizon)
			{
				int64_t		cost = (int64_t) k * (h - k);

				if (best < 0 || cost < best || (cost == best && h < *height))
				{
					best = cost;
					*height = h;
					*ones = k;
				}
				break;
			}
			c = c * (unsigned) (h + 1) / (unsigned) (h + 1 - k);
		}
	}
	return best >= 0;
}

/* Var of N_Z(0, sensitivity^2 / (2 rho)) as dp_gaussian rounds it */
static double
gaussian_variance(uint64_t sensitivity_squared, double rho)
{
	dp_scale	sigma2;

	dp_gaussian_scale_for(sensitivity_squared, rho, &sigma2);
	return dp_discrete_gaussian_variance(&sigma2);
}

/* k terms of sigma^2 = (h - k) U^2 / (2 rho) */
static double
formula(const dp_mechanism *m)
{
	int			h = 0,
				k = 0;
	uint64_t	unit = dp_mechanism_unit_bound(m);

	reference_design(m->horizon, &h, &k);
	return k * gaussian_variance((uint64_t) (h - k) * unit * unit, m->epsilon);
}

static double
variance_at(const dp_counter *header, int64_t t)
{
	dp_noise_group groups[DP_NOISE_GROUPS_MAX];
	int			count = dp_counter_noise_groups_at(header, t, groups);

	return dp_noise_sum_variance(groups, count);
}

/* the mechanism's tree height and terms agree with the reference design */
static void
test_design(void)
{
	static const int64_t spot[] = {
		4095, 4096, 65535, 65536, 65537, 1000000, 1048576, 1LL << 30, 1LL << 40,
		1LL << 50, 1LL << 58, C_62_31 - 1
	};
	int			mismatches = 0;
	int64_t		checked = 0;

	for (int64_t t = 1; t <= 3000 + (int64_t) (sizeof(spot) / sizeof(spot[0])); t++)
	{
		int64_t		horizon = t <= 3000 ? t : spot[t - 3001];
		dp_mechanism m = test_mechanism("smooth_binary(rho=0.5,horizon=1,max_per_step=1)");
		dp_counter	header;
		const char *field;
		dp_noise_group groups[DP_NOISE_GROUPS_MAX];
		dp_scale	expected;
		int			h = 0,
					k = 0;

		m.horizon = horizon;
		if (dp_counter_prepare(&header, &m, &field) != DP_OK || !reference_design(horizon, &h, &k))
		{
			mismatches++;
			continue;
		}
		dp_counter_noise_groups_at(&header, 1, groups);
		dp_gaussian_scale_for((uint64_t) (h - k), 0.5, &expected);
		if (header.kind_nodes != h || groups[0].terms != k ||
			groups[0].family != DP_FAMILY_GAUSSIAN ||
			header.scale.numerator != expected.numerator ||
			header.scale.denominator != expected.denominator)
			mismatches++;
		checked++;
	}
	tap_ok(mismatches == 0, "the height h and the k terms of the independent design at every "
		   "T <= 3000 and at 12 larger T up to C(62, 31) - 1 (%lld checked, %d mismatches)",
		   (long long) checked, mismatches);
	{
		int			h = 0,
					k = 0;

		reference_design(65536, &h, &k);
		tap_ok(h == 19 && k == 8, "T = 2^16: h = %d, k = %d (k (h - k) = %d)", h, k, k * (h - k));
	}
}

/*
 * The privacy argument checked by enumeration: with the reference design,
 * the nodes any release t = 1 .. T uses (the dyadic decomposition of
 * [0, x_{t+1})), and for each item leaf x_1 .. x_T the number of them that
 * contain it, which must be at most h - k (the noise class's units).
 */
static void
test_sensitivity(void)
{
	int			worst_excess = 0,
				tight = 0,
				horizons = 0;

	for (int64_t horizon = 1; horizon <= 2000; horizon += horizon < 300 ? 1 : 97)
	{
		int			h = 0,
					k = 0,
					most = 0;
		int64_t		found = 0;
		uint64_t   *leaves = malloc(sizeof(uint64_t) * (size_t) (horizon + 1));
		uint64_t   *used;		/* used[start]: bit j for the level-j node at start */

		reference_design(horizon, &h, &k);
		used = calloc((size_t) 1 << h, sizeof(uint64_t));
		for (uint64_t x = 0; found <= horizon; x++)
			if (__builtin_popcountll(x) == k)
				leaves[found++] = x;
		for (int64_t t = 1; t <= horizon; t++)
		{
			uint64_t	e = leaves[t];	/* x_{t+1} */

			/* [0, e): for each set bit j, the level-j node at e with bits 0..j cleared */
			for (int j = 0; j < h; j++)
				if ((e >> j) & 1)
					used[(e >> (j + 1)) << (j + 1)] |= ((uint64_t) 1) << j;
		}
		for (int64_t t = 0; t < horizon; t++)
		{
			uint64_t	x = leaves[t];	/* x_{t+1}, the leaf of step t + 1 */
			int			count = 0;

			for (int j = 0; j < h; j++)
			{
				if ((used[(x >> j) << j] >> j) & 1)
					count++;
			}
			if (count > most)
				most = count;
		}
		if (most - (h - k) > worst_excess)
			worst_excess = most - (h - k);
		if (most == h - k)
			tight++;
		horizons++;
		free(used);
		free(leaves);
	}
	tap_ok(worst_excess == 0, "enumerated for %d horizons up to 2000: no item lies in more than "
		   "h - k released nodes (the bound is reached at %d of them)", horizons, tight);
}

/*
 * Two counters that draw the same noise (the same stream) and see
 * different values: at every step their releases differ by exactly the
 * difference of the true counts, so every release counts each item so far
 * exactly once and nothing else.
 */
static void
test_exact_sums(int64_t horizon, int64_t max_per_step)
{
	char		text[160];
	dp_mechanism m;
	dp_counter *a,
			   *b;
	dp_random	stream_a,
				stream_b;
	const char *field;
	int64_t		truth_a = 0,
				truth_b = 0;
	int			wrong = 0,
				zero_start;

	snprintf(text, sizeof(text), "smooth_binary(rho=0.5,horizon=%lld,max_per_step=%lld)",
			 (long long) horizon, (long long) max_per_step);
	m = test_mechanism(text);
	a = malloc(dp_counter_size(&m));
	b = malloc(dp_counter_size(&m));
	dp_random_init_keyed(&stream_a, "exact", 5);
	stream_b = stream_a;
	dp_counter_start(a, &m, &stream_a, &field);
	dp_counter_start(b, &m, &stream_b, &field);
	zero_start = a->release == 0 && b->release == 0 && variance_at(a, 0) == 0;
	for (int64_t t = 1; t <= horizon; t++)
	{
		int64_t		va = (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1);
		int64_t		vb = (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1);

		dp_counter_push(a, va, &stream_a);
		dp_counter_push(b, vb, &stream_b);
		truth_a += va;
		truth_b += vb;
		if (a->release - b->release != (dp_int128) (truth_a - truth_b))
			wrong++;
	}
	tap_ok(wrong == 0 && zero_start,
		   "%s: release(a) - release(b) = truth(a) - truth(b) at every step, 0 at step 0 "
		   "(%d wrong)", text, wrong);
	tap_ok(dp_counter_push(a, 1, &stream_a) == DP_ERROR_HORIZON_EXCEEDED,
		   "%s: step T + 1 is refused", text);
	free(a);
	free(b);
}

static void
test_error(const char *text, const int64_t *points, int64_t steps)
{
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = malloc(dp_counter_size(&m));
	double		sum[4] = {0}, second[4] = {0}, fourth[4] = {0}, own[4] = {0};
	double		expected = formula(&m);
	int			unequal = 0;

	for (int trial = 0; trial < TRIALS; trial++)
	{
		int64_t		truth = 0;
		int			next = 0;
		const char *field;

		dp_counter_start(counter, &m, &rng, &field);
		for (int64_t t = 1; t <= steps; t++)
		{
			int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);

			dp_counter_push(counter, value, &rng);
			truth += value;
			if (trial == 0 && (variance_at(counter, t) != variance_at(counter, 1) ||
							   fabs(variance_at(counter, t) - expected) > 1e-9 * expected))
				unequal++;
			if (next < 4 && points[next] == t)
			{
				double		error = (double) (counter->release - truth);

				sum[next] += error;
				second[next] += error * error;
				fourth[next] += error * error * error * error;
				if (trial == 0)
					own[next] = dp_counter_noise_variance(counter);
				next++;
			}
		}
	}
	tap_ok(unequal == 0, "%s: the mechanism's own variance is %.6g at every t <= %lld "
		   "(%d steps differ)", text, expected, (long long) steps, unequal);
	for (int i = 0; i < 4; i++)
	{
		double		mean = sum[i] / TRIALS,
					m2 = second[i] / TRIALS,
					m4 = fourth[i] / TRIALS;
		double		spread = sqrt((m4 - m2 * m2) / TRIALS);

		tap_ok(fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(m2 / TRIALS) && fabs(m2 - expected) <= Z_TWO_SIDED_1E6 * spread,
			   "%s, t = %lld: error mean %.3f, variance %.3f vs formula %.3f (band +-%.3f)",
			   text, (long long) points[i], mean, m2, expected, Z_TWO_SIDED_1E6 * spread);
		tap_ok(fabs(own[i] - expected) <= 1e-9 * expected, "%s, t = %lld: the noise description agrees (%.6g)",
			   text, (long long) points[i], own[i]);
	}
	free(counter);
}

/* mean, min and max of the exact variance over t = 1 .. T */
static void
variance_profile(const char *kind, int64_t horizon, double *mean, double *min, double *max)
{
	char		text[160];
	dp_mechanism m;
	dp_counter	header;
	const char *field;
	double		total = 0;

	snprintf(text, sizeof(text), "%s(rho=0.5,horizon=%lld)", kind, (long long) horizon);
	m = test_mechanism(text);
	dp_counter_prepare(&header, &m, &field);
	*max = 0;
	*min = INFINITY;
	for (int64_t t = 1; t <= horizon; t++)
	{
		double		v = variance_at(&header, t);

		total += v;
		if (v > *max)
			*max = v;
		if (v < *min)
			*min = v;
	}
	*mean = total / (double) horizon;
}

static void
test_mean_variance(void)
{
	static const int	powers[] = {10, 16, 20};

	for (int i = 0; i < 3; i++)
	{
		int64_t		horizon = ((int64_t) 1) << powers[i];
		double		smooth_mean,
					smooth_min,
					smooth_max,
					binary_mean,
					binary_min,
					binary_max;
		int			h = 0,
					k = 0;

		variance_profile("smooth_binary", horizon, &smooth_mean, &smooth_min, &smooth_max);
		variance_profile("binary", horizon, &binary_mean, &binary_min, &binary_max);
		reference_design(horizon, &h, &k);
		tap_diag("T = 2^%d, rho = 1/2, N = 1: smooth_binary h = %d, k = %d: mean %.4f, max %.4f; "
				 "Gaussian binary: mean %.4f, max %.4f; ratio of means %.3f",
				 powers[i], h, k, smooth_mean, smooth_max, binary_mean, binary_max,
				 smooth_mean / binary_mean);
		tap_ok(smooth_min == smooth_max && fabs(smooth_max - k * (h - k)) < 1e-6 * k * (h - k),
			   "T = 2^%d: the variance is k (h - k) = %d at every t", powers[i], k * (h - k));
		if (powers[i] == 16)
			tap_ok(smooth_mean <= 0.8 * binary_mean,
				   "T = 2^16: mean variance %.4f <= 0.8 x Gaussian Binary's %.4f",
				   smooth_mean, binary_mean);
	}
}

/* a counter through the binary and the text form */
static int
round_trip(const dp_counter *original, dp_counter *binary_copy, dp_counter *text_copy, size_t size)
{
	size_t		length = dp_counter_serialized_size(original);
	unsigned char *bytes = malloc(length),
			   *again = malloc(length);
	char	   *text = malloc(dp_counter_text_size(original));
	dp_parse_error error;
	dp_mechanism parsed;
	int			ok;

	dp_counter_serialize(original, bytes);
	dp_counter_to_text(original, text);
	ok = dp_counter_deserialize(bytes, length, binary_copy, size, &error) == DP_OK &&
		dp_counter_parse(text, &parsed, NULL, 0, &error) == DP_OK &&
		dp_counter_parse(text, &parsed, text_copy, size, &error) == DP_OK;
	/* the copy stores exactly what the original stored */
	if (ok)
	{
		dp_counter_serialize(binary_copy, again);
		ok = memcmp(bytes, again, length) == 0 &&
			binary_copy->release == original->release &&
			text_copy->release == original->release;
	}
	free(bytes);
	free(again);
	free(text);
	return ok;
}

/* stored at every step (binary and text) and continued: the same releases */
static void
test_store_continue(const char *text, int64_t steps)
{
	dp_mechanism m = test_mechanism(text);
	size_t		size = dp_counter_size(&m);
	dp_counter *original = malloc(size),
			   *copy = malloc(size),
			   *text_copy = malloc(size);
	dp_random	stream;
	const char *field;
	int			mismatches = 0;

	dp_random_init_keyed(&stream, "store", 5);
	dp_counter_start(original, &m, &stream, &field);
	for (int64_t t = 1; t <= steps; t++)
	{
		dp_random	fork = stream,
					fork_text = stream;
		int64_t		value = (int64_t) dp_random_below(&rng, (uint64_t) m.max_per_step + 1);

		if (!round_trip(original, copy, text_copy, size))
			mismatches++;
		dp_counter_push(original, value, &stream);
		dp_counter_push(copy, value, &fork);
		dp_counter_push(text_copy, value, &fork_text);
		if (dp_counter_release(copy) != dp_counter_release(original) ||
			dp_counter_release(text_copy) != dp_counter_release(original) ||
			copy->release != original->release || text_copy->release != original->release)
			mismatches++;
	}
	tap_ok(mismatches == 0, "%s: stored (binary and text) at every step and continued gives "
		   "the original's releases (%d mismatches)", text, mismatches);
	free(original);
	free(copy);
	free(text_copy);
}

/*
 * The largest horizon: 62 levels of 31 ones.  A state moved to the last
 * steps (its steps field rewritten; its nodes are a fresh counter's) runs
 * the leaves at the top of the 62-bit range: releases still differ by the
 * data only, and step T + 1 is refused.
 */
static void
test_largest_horizon(void)
{
	char		text[160];
	dp_mechanism m;
	dp_counter *fresh,
			   *a,
			   *b;
	size_t		size,
				length;
	unsigned char *bytes;
	dp_parse_error error;
	dp_random	stream_a,
				stream_b;
	const char *field;
	int64_t		steps = C_62_31 - 1 - 40;
	int			ok;
	int64_t		difference = 0;

	snprintf(text, sizeof(text), "smooth_binary(rho=0.5,horizon=%lld,max_per_step=1000)",
			 (long long) (C_62_31 - 1));
	m = test_mechanism(text);
	size = dp_counter_size(&m);
	fresh = malloc(size);
	a = malloc(size);
	b = malloc(size);
	dp_random_init_keyed(&stream_a, "top", 3);
	dp_counter_start(fresh, &m, &stream_a, &field);
	/* the fixed layout (version 4) keeps the step count at byte 40 */
	length = dp_counter_fixed_size(fresh);
	bytes = malloc(length);
	dp_counter_serialize_fixed(fresh, bytes);
	for (int i = 0; i < 8; i++)
		bytes[40 + i] = (unsigned char) ((uint64_t) steps >> (8 * i));
	ok = fresh->kind_nodes == 62 &&
		dp_counter_deserialize(bytes, length, a, size, &error) == DP_OK &&
		dp_counter_deserialize(bytes, length, b, size, &error) == DP_OK;
	stream_b = stream_a;
	for (int t = 0; ok && t < 40; t++)
	{
		int64_t		va = (int64_t) dp_random_below(&rng, 1001);
		int64_t		vb = (int64_t) dp_random_below(&rng, 1001);

		difference += va - vb;
		ok = dp_counter_push(a, va, &stream_a) == DP_OK &&
			dp_counter_push(b, vb, &stream_b) == DP_OK &&
			a->release - b->release == (dp_int128) difference;
	}
	ok = ok && a->steps == C_62_31 - 1 &&
		dp_counter_push(a, 1, &stream_a) == DP_ERROR_HORIZON_EXCEEDED;
	tap_ok(ok, "horizon C(62, 31) - 1: 62 nodes; the last 40 steps (leaves near 2^62) count "
		   "exactly and step T + 1 is refused");
	free(bytes);
	free(fresh);
	free(a);
	free(b);
}

static void
test_refusals(void)
{
	char		too_large[160],
				largest[160];
	const char *bad[] = {
		"smooth_binary(epsilon=1,horizon=100)",	/* zCDP only */
		"smooth_binary(rho=0.5,horizon=0)",
		too_large,				/* C(62, 31): beyond h = 62 */
		"smooth_binary(rho=0.5,horizon=4611686018427387905)",	/* beyond 2^62 */
		"smooth_binary(rho=0.5,horizon=100,max_per_step=16777217)",	/* beyond 2^24 */
		"smooth_binary(rho=0.5,horizon=100,contributions=5000,max_per_step=5000,per_observation=true)",
		"smooth_binary(rho=0.5,horizon=100,pan_private=true)",
		"smooth_binary(rho=0.5,horizon=100,pan_private=true,key=k)",
		"smooth_binary(rho=0,horizon=100)",
		"smooth_binary(rho=0.5)",	/* bounded: a horizon is needed */
	};
	const char *expected_field[] = {
		"rho_required", "horizon", "horizon", "horizon", "max_per_step", "contributions",
		NULL, NULL, NULL, NULL
	};

	snprintf(too_large, sizeof(too_large), "smooth_binary(rho=0.5,horizon=%lld)",
			 (long long) C_62_31);
	snprintf(largest, sizeof(largest), "smooth_binary(rho=0.5,horizon=%lld)",
			 (long long) (C_62_31 - 1));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		dp_mechanism candidate;
		dp_parse_error error;
		const char *cursor = bad[i];
		const char *field = NULL;
		int			parsed = dp_mechanism_parse(&cursor, &candidate, &error) == DP_OK;
		int			refused = !parsed || dp_mechanism_validate(&candidate, &field) != DP_OK;
		const char *culprit = parsed ? field : error.field;

		tap_ok(refused && (expected_field[i] == NULL ||
						   (culprit && strcmp(culprit, expected_field[i]) == 0)),
			   "%s is refused (%s)", bad[i], culprit ? culprit : "?");
	}
	{
		dp_mechanism m = test_mechanism(largest);
		dp_mechanism round;
		char		text[DP_MECHANISM_TEXT_BYTES];
		const char *cursor = text;
		dp_parse_error error;

		dp_mechanism_to_text(&m, text, sizeof(text));
		tap_ok(dp_mechanism_parse(&cursor, &round, &error) == DP_OK &&
			   memcmp(&round, &m, sizeof(m)) == 0 && strncmp(text, "smooth_binary(rho=", 18) == 0,
			   "the largest horizon is accepted and its text form round-trips: %s", text);
	}
	{
		dp_mechanism m = test_mechanism("smooth_binary(rho=0.5,horizon=1000,consistent=true,contributions=3,max_per_step=1)");
		double		bound;
		const char *field;

		tap_ok(dp_mechanism_error_bound(&m, 500, 0.95, &bound, &field) == DP_OK && bound > 0 &&
			   dp_mechanism_error_bound(&m, 1001, 0.95, &bound, &field) != DP_OK,
			   "person level and consistent output are accepted; error bounds up to T only");
	}
}

/*
 * The release a step computes from the one before (the nodes that leave
 * and come in) against the sum of every level's node the boundary selects,
 * recomputed from scratch after every step (the boundary x_{t+1} is the
 * counter's derived[2]).
 */
static void
test_incremental_release(int64_t horizon, int64_t max_per_step)
{
	char		text[160];
	dp_mechanism m;
	dp_counter *a;
	dp_random	stream;
	const char *field;
	int64_t		mismatches = 0;

	snprintf(text, sizeof(text), "smooth_binary(rho=0.5,horizon=%lld,max_per_step=%lld)",
			 (long long) horizon, (long long) max_per_step);
	m = test_mechanism(text);
	a = malloc(dp_counter_size(&m));
	dp_random_init_keyed(&stream, "incremental", 11);
	dp_counter_start(a, &m, &stream, &field);
	for (int64_t t = 1; t <= horizon; t++)
	{
		uint64_t	boundary;
		dp_int128	sum = 0;

		dp_counter_push(a, (int64_t) dp_random_below(&rng, (uint64_t) max_per_step + 1), &stream);
		boundary = (uint64_t) a->derived[2];
		for (int level = 0; level < a->kind_nodes; level++)
			if ((boundary >> level) & 1)
				sum += a->nodes[level];
		mismatches += sum != a->release;
	}
	tap_ok(mismatches == 0 && !a->overflow,
		   "%s: every step's release from the one before equals the sum of the boundary's nodes "
		   "recomputed from every level (%lld mismatches)", text, (long long) mismatches);
	free(a);
}

int
main(void)
{
	static const int64_t points_1024[] = {1, 511, 1023, 1024};
	static const int64_t points_1000[] = {1, 255, 767, 1000};
	static const int64_t points_200[] = {1, 63, 127, 200};

	dp_random_init_keyed(&rng, "smooth", 6);
	test_design();
	test_sensitivity();
	test_exact_sums(1, 1);
	test_exact_sums(2, 3);
	test_exact_sums(3, 1);
	test_exact_sums(7, 2);
	test_exact_sums(64, 5);
	test_exact_sums(1000, 100);
	test_exact_sums(70000, 1);
	test_incremental_release(5, 1);
	test_incremental_release(1000, 3);
	test_incremental_release(100000, 1);
	test_error("smooth_binary(rho=0.5,horizon=1024)", points_1024, 1024);
	test_error("smooth_binary(rho=0.125,horizon=1000,max_per_step=3)", points_1000, 1000);
	test_error("smooth_binary(rho=2,horizon=200,max_per_step=2,contributions=2,per_observation=true)",
			   points_200, 200);
	test_mean_variance();
	test_store_continue("smooth_binary(rho=0.5,horizon=300)", 300);
	test_store_continue("smooth_binary(rho=0.25,horizon=500,max_per_step=7,consistent=true)", 500);
	test_store_continue("smooth_binary(rho=1,horizon=129,max_per_step=3,contributions=4)", 129);
	test_largest_horizon();
	test_refusals();
	return tap_done();
}
