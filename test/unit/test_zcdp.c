/*
 * test_zcdp.c
 *		The rho-zCDP mechanisms (discrete Gaussian noise): Gaussian Binary,
 *		balanced digits, the unbounded blocks and the BLT factorization.
 *		Their error is unbiased with the variance of their own description
 *		and of an independent formula, they store and continue exactly, and
 *		their text form says rho.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dp_blt.h"
#include "dp_counter.h"
#include "dp_gaussian.h"
#include "tap.h"
#include "test_support.h"

#define TRIALS 8000

static dp_random rng;

/* Var of N_Z(0, sensitivity^2 / (2 rho)) as dp_gaussian rounds it */
static double
gaussian_variance(uint64_t sensitivity_squared, double rho)
{
	dp_scale	sigma2;

	dp_gaussian_scale_for(sensitivity_squared, rho, &sigma2);
	return dp_discrete_gaussian_variance(&sigma2);
}

/* The variance at t written out independently of the mechanisms' code. */
static double
formula(const char *kind, const dp_mechanism *m, int64_t t, const dp_counter *counter)
{
	if (strcmp(kind, "binary") == 0)
	{
		int			levels = 64 - __builtin_clzll((uint64_t) m->horizon);

		return __builtin_popcountll((uint64_t) t) *
			gaussian_variance((uint64_t) levels * m->max_per_step * m->max_per_step, m->epsilon);
	}
	if (strcmp(kind, "balanced") == 0)
	{
		int64_t		power = 1;
		int			levels = 0;

		while ((power - 1) / 2 < m->horizon)
		{
			power *= m->block;
			levels++;
		}
		return test_balanced_terms(t, m->block) *
			gaussian_variance((uint64_t) levels * m->max_per_step * m->max_per_step, m->epsilon);
	}
	/* blt: sum_n H_n^2 times the encoded noise's variance, in units of 2^-F */
	{
		dp_blt_params params;
		const int64_t *derived = counter->derived;
		int			bits = (int) derived[0];

		dp_blt_design(m->horizon, &params);
		return dp_blt_variance_at(&params, t) * dp_discrete_gaussian_variance(&counter->scale) /
			ldexp(1.0, 2 * bits);
	}
}

static void
test_error(const char *kind, const char *text, const int64_t *points, int64_t steps)
{
	dp_mechanism m = test_mechanism(text);
	dp_counter *counter = malloc(dp_counter_size(&m));
	double		sum[4] = {0}, second[4] = {0}, fourth[4] = {0}, own[4] = {0}, expected[4] = {0};

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
			if (next < 4 && points[next] == t)
			{
				double		error = (double) (counter->release - truth);

				sum[next] += error;
				second[next] += error * error;
				fourth[next] += error * error * error * error;
				if (trial == 0)
				{
					own[next] = dp_counter_noise_variance(counter);
					expected[next] = formula(kind, &m, t, counter);
				}
				next++;
			}
		}
	}
	for (int i = 0; i < 4 && points[i] != 0; i++)
	{
		double		mean = sum[i] / TRIALS,
					m2 = second[i] / TRIALS,
					m4 = fourth[i] / TRIALS;
		/* the integer release adds its rounding, at most 1/4 to the second moment */
		double		rounding = strcmp(kind, "blt") == 0 ? 0.25 : 0.0;
		double		spread = sqrt((m4 - m2 * m2) / TRIALS);

		tap_ok(fabs(mean) <= Z_TWO_SIDED_1E6 * sqrt(m2 / TRIALS) &&
			   m2 >= expected[i] - Z_TWO_SIDED_1E6 * spread && m2 <= expected[i] + rounding + Z_TWO_SIDED_1E6 * spread,
			   "%s, t = %lld: error mean %.3f, variance %.3f vs formula %.3f (band +-%.3f)",
			   text, (long long) points[i], mean, m2, expected[i], Z_TWO_SIDED_1E6 * spread);
		tap_ok(fabs(own[i] - expected[i]) <= 1e-9 * expected[i],
			   "%s, t = %lld: the mechanism's own noise description agrees (%.6g)",
			   text, (long long) points[i], own[i]);
	}
	free(counter);
}

/* stored at every step (binary and text) and continued: the same releases */
static void
test_store_continue(const char *text, int64_t steps)
{
	dp_mechanism m = test_mechanism(text);
	size_t		size = dp_counter_size(&m);
	dp_counter *original = malloc(size),
			   *copy = malloc(size);
	dp_random	stream;
	const char *field;
	int			mismatches = 0;

	dp_random_init_keyed(&stream, "store", 5);
	dp_counter_start(original, &m, &stream, &field);
	for (int64_t t = 1; t <= steps; t++)
	{
		unsigned char *bytes = malloc(dp_counter_serialized_size(original));
		dp_parse_error error;
		dp_random	fork = stream;
		dp_int128	expected;

		dp_counter_serialize(original, bytes);
		if (dp_counter_deserialize(bytes, dp_counter_serialized_size(original), copy, size, &error) != DP_OK)
			mismatches++;
		dp_counter_push(original, t % 3, &stream);
		dp_counter_push(copy, t % 3, &fork);
		expected = original->release;
		if (copy->release != expected)
			mismatches++;
		free(bytes);
	}
	tap_ok(mismatches == 0, "%s: stored at every step and continued gives the original's releases "
		   "(%d mismatches)", text, mismatches);
	free(original);
	free(copy);
}

static void
test_text_and_refusals(void)
{
	dp_mechanism m = test_mechanism("blt(rho=0.5,horizon=1000,max_per_step=1)");
	char		text[DP_MECHANISM_TEXT_BYTES];
	const char *bad[] = {
		"blt(epsilon=1,horizon=1000)",	/* BLT is zCDP only */
		"blt(rho=0.5,horizon=2000000000000)",	/* beyond 2^40 */
		"blt(rho=0.5,horizon=100,max_per_step=33554432)",	/* beyond 2^24 */
		"two_level(rho=0.5,horizon=100)",	/* no Gaussian form */
		"hybrid(rho=0.5)",
		"binary(rho=0.5,horizon=100,key=k)",	/* keyed noise is Laplace's */
		"binary(rho=0,horizon=100)",
	};

	dp_mechanism_to_text(&m, text, sizeof(text));
	tap_ok(strcmp(text, "blt(rho=0.5,horizon=1000,max_per_step=1)") == 0,
		   "the text form says rho: %s", text);
	{
		dp_parse_error error;
		dp_mechanism both;
		const char *cursor = "binary(epsilon=1,rho=0.5,horizon=10)";

		tap_ok(dp_mechanism_parse(&cursor, &both, &error) != DP_OK,
			   "epsilon and rho together are refused");
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		dp_mechanism candidate;
		dp_parse_error error;
		const char *cursor = bad[i];
		const char *field = NULL;
		int			refused = dp_mechanism_parse(&cursor, &candidate, &error) != DP_OK ||
			dp_mechanism_validate(&candidate, &field) != DP_OK;

		tap_ok(refused, "%s is refused (%s)", bad[i], field ? field : error.field);
	}
}

int
main(void)
{
	static const int64_t binary_points[] = {1, 100, 511, 1000};
	static const int64_t blt_points[] = {1, 100, 512, 1000};

	dp_random_init_keyed(&rng, "zcdp", 4);
	test_error("binary", "binary(rho=0.5,horizon=1024)", binary_points, 1000);
	test_error("binary", "binary(rho=0.125,horizon=1024,max_per_step=3)", binary_points, 1000);
	test_error("balanced", "balanced(rho=0.5,horizon=1024,arity=13)", binary_points, 1000);
	test_error("blt", "blt(rho=0.5,horizon=1024)", blt_points, 1000);
	test_error("blt", "blt(rho=2,horizon=1024,max_per_step=5)", blt_points, 1000);
	test_store_continue("blt(rho=0.5,horizon=300)", 300);
	test_store_continue("binary(rho=0.5,horizon=300)", 300);
	test_store_continue("balanced_unbounded(rho=0.5,arity=5)", 300);
	test_text_and_refusals();
	return tap_done();
}
