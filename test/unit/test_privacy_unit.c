/*
 * test_privacy_unit.c
 *		The person-level privacy unit (DP_FLAG_PERSON): the noise of each
 *		mechanism is calibrated to K contributions of one person, by formulas
 *		written out here, and the empirical error variance over 20,000 seeded
 *		trials agrees with them (p = 1e-6 bands from the exact moments).
 *
 *		Formulas (scale b of the discrete Laplace noise of one term):
 *		  Binary     b = L K / eps, L = floor(log2 T) + 1; popcount(t) terms
 *		  Two-level  b = 2 K / eps; floor(t / B) + t mod B terms
 *		  Simple II  b = K / eps; t terms
 *		  a sum      b = L K N / eps for a counter whose observations are
 *		             worth up to N units (DP_FLAG_PER_OBSERVATION)
 */
#include <string.h>

#include "tap.h"
#include "dp_counter.h"
#include "dp_statistic.h"

#define TRIALS 20000

static dp_random rng;

static void
check_variance(const char *name, dp_mechanism mechanism, int64_t t, int terms, double b)
{
	double		variance,
				fourth,
				expected,
				spread,
				sum = 0,
				squares = 0,
				mean,
				observed;
	dp_counter *counter = malloc(dp_counter_size(&mechanism));
	const char *field = NULL;

	discrete_laplace_moments(b, &variance, &fourth);
	expected = terms * variance;
	/* variance of the mean of squares of a sum of `terms` i.i.d. terms */
	spread = sqrt((2 * expected * expected + terms * (fourth - 3 * variance * variance)) / TRIALS);
	for (int trial = 0; trial < TRIALS; trial++)
	{
		double		error;

		if (dp_counter_start(counter, &mechanism, &rng, &field) != DP_OK)
			abort();
		for (int64_t s = 0; s < t; s++)
			dp_counter_push(counter, 0, &rng);
		error = (double) dp_counter_release(counter);
		sum += error;
		squares += error * error;
	}
	mean = sum / TRIALS;
	observed = squares / TRIALS;
	tap_ok(fabs(observed - expected) <= Z_TWO_SIDED_1E6 * spread,
		   "%s: error variance %.1f vs %d terms of scale %.0f = %.1f (band +-%.1f; mean %.2f)",
		   name, observed, terms, b, expected, Z_TWO_SIDED_1E6 * spread, mean);
	free(counter);
}

static dp_mechanism
person(dp_mechanism_kind kind, int64_t horizon, int64_t block, int64_t contributions)
{
	dp_mechanism m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.epsilon = 1.0;
	m.horizon = horizon;
	m.block = block;
	m.max_per_step = 1000;		/* a clamp only: it must not enter the noise */
	m.flags = DP_FLAG_PERSON;
	m.contributions = contributions;
	return m;
}

static void
test_counters(void)
{
	/* T = 1024: L = 11; t = 1023 has ten 1-bits */
	check_variance("Binary, K = 3", person(DP_MECHANISM_BINARY, 1024, 0, 3), 1023, 10, 11.0 * 3);
	/* B = 10, t = 55: 5 blocks and 5 singletons */
	check_variance("Two-level, K = 4", person(DP_MECHANISM_TWO_LEVEL, 100, 10, 4), 55, 10, 2.0 * 4);
	check_variance("Simple II, K = 2", person(DP_MECHANISM_SIMPLE_II, 0, 0, 2), 50, 50, 2.0);
}

static void
test_scales(void)
{
	dp_mechanism event;
	dp_mechanism one = person(DP_MECHANISM_BINARY, 1024, 0, 1);
	dp_counter	a,
				b;
	const char *field = NULL;

	memset(&event, 0, sizeof(event));
	event.kind = DP_MECHANISM_BINARY;
	event.epsilon = 1.0;
	event.horizon = 1024;
	event.max_per_step = 1;
	dp_counter_prepare(&a, &event, &field);
	dp_counter_prepare(&b, &one, &field);
	tap_ok(memcmp(&a.scale, &b.scale, sizeof(a.scale)) == 0,
		   "one contribution per person is the 0/1 event level: the same scale");

	{
		dp_mechanism ppcum = person(DP_MECHANISM_PPCUM, 64, 0, 2);
		dp_mechanism simple_i = person(DP_MECHANISM_SIMPLE_I, 64, 0, 2);
		dp_mechanism none = person(DP_MECHANISM_BINARY, 64, 0, 0);

		tap_ok(dp_mechanism_validate(&ppcum, &field) == DP_ERROR_OPTION &&
			   dp_mechanism_validate(&simple_i, &field) == DP_ERROR_OPTION,
			   "PPCum and Simple I refuse a person-level unit");
		tap_ok(dp_mechanism_validate(&none, &field) == DP_ERROR_CONTRIBUTIONS,
			   "a person-level unit needs at least one contribution");
	}
}

/* a sum over [0, 10] of integers, K = 5 observations per person */
static void
test_statistic(void)
{
	dp_statistic_spec spec;
	dp_statistic layout;
	const char *field = NULL;
	const dp_counter *sum;
	dp_statistic *statistic;
	dp_scale	expected;

	memset(&spec, 0, sizeof(spec));
	spec.kind = DP_STATISTIC_SUM;
	spec.domain = DP_VALUES_INTEGER;
	spec.lower = 0;
	spec.upper = 10;
	spec.mechanism = person(DP_MECHANISM_BINARY, 64, 0, 5);
	spec.mechanism.max_per_step = 1;
	if (dp_statistic_layout(&layout, &spec, &field) != DP_OK)
	{
		tap_ok(0, "sum layout (%s)", field);
		return;
	}
	statistic = malloc(dp_statistic_size(&layout));
	dp_statistic_start(statistic, &layout, &rng);
	sum = dp_statistic_counter_const(statistic, 0);
	/* L = 7 for T = 64; an observation is worth up to 10 units */
	expected = dp_counter_scale_for(7 * 5 * 10, 1.0);
	tap_ok(memcmp(&sum->scale, &expected, sizeof(expected)) == 0 &&
		   (sum->mechanism.flags & DP_FLAG_PER_OBSERVATION),
		   "a sum: each of K = 5 observations worth N = 10 units, scale L K N / eps = 350");
	free(statistic);
}

int
main(void)
{
	static const char seed[] = "test_privacy_unit";

	if (!dp_random_library_init())
		return 1;
	dp_random_init_keyed(&rng, seed, sizeof(seed) - 1);
	test_counters();
	test_scales();
	test_statistic();
	return tap_done();
}
